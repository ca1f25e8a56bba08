/**
 * Validators of the job-level keywords that hold data (scripts, image, services, tags, variables, artifacts,
 * environment, retry, timeout, coverage, allow_failure), each returning the value GitLab would keep, or null after
 * adding GitLab's error for its location (`jobs:build:image config should be a hash or a string`).
 */
import { LIMITS, parseDuration } from './durations.js';
import { Problems, unknownKeys } from './problems.js';
import { regexpLiteral } from './regexp.js';
import type { ArtifactsAccess, ConfigMap, JobEnvironment, PlannedArtifacts, PlannedReports, PlannedService, Value } from './types.js';
import { flattenStrings, isBlank, isBoolean, isInteger, isMap, isString, isStringArray, rubyString } from './values.js';

/** GitLab's Commands/Script entries: a string or nested arrays of strings (10 levels), flattened. */
export function readCommands(value: Value, location: string, p: Problems): string[] | null {
  const commands = flattenStrings(value, 10);
  if (!commands) p.add(location, 'config should be a string or a nested array of strings up to 10 levels deep');
  return commands;
}

const IMAGE_KEYS = ['name', 'entrypoint', 'ports', 'pull_policy', 'docker', 'kubernetes'];

function readImageable(value: Value, location: string, p: Problems, extraKeys: readonly string[]): (PlannedService & { map?: ConfigMap }) | null {
  if (isString(value)) return { name: value };
  if (!isMap(value)) {
    p.add(location, 'config should be a hash or a string');
    return null;
  }
  const ok = p.clean(() => {
    unknownKeys(p, location, value.keys(), [...IMAGE_KEYS, ...extraKeys]);
    const name = value.get('name');
    if (isBlank(name)) p.add(location, "name can't be blank");
    else if (!isString(name)) p.add(location, 'name should be a string');
    const entrypoint = value.get('entrypoint');
    if (entrypoint !== undefined && entrypoint !== null && !isStringArray(entrypoint)) p.add(location, 'entrypoint should be an array of strings');
  });
  if (!ok) return null;
  const entrypoint = value.get('entrypoint');
  return { name: value.get('name') as string, ...(isStringArray(entrypoint) ? { entrypoint } : {}), map: value };
}

export function readImage(value: Value, location: string, p: Problems): { name: string; entrypoint?: string[] } | null {
  const image = readImageable(value, location, p, []);
  return image && { name: image.name, ...(image.entrypoint ? { entrypoint: image.entrypoint } : {}) };
}

export function readServices(value: Value, location: string, p: Problems): PlannedService[] | null {
  if (!Array.isArray(value)) {
    p.add(location, 'config should be a array');
    return null;
  }
  const services: PlannedService[] = [];
  for (const item of value) {
    const loc = `${location}:service`;
    const service = readImageable(item, loc, p, ['command', 'alias', 'variables']);
    if (!service) continue;
    const command = service.map?.get('command');
    const alias = service.map?.get('alias');
    if (command !== undefined && command !== null && !isStringArray(command)) p.add(loc, 'command should be an array of strings');
    if (alias !== undefined && alias !== null && !isString(alias)) p.add(loc, 'alias should be a string');
    services.push({
      name: service.name,
      ...(isString(alias) ? { alias } : {}),
      ...(service.entrypoint ? { entrypoint: service.entrypoint } : {}),
      ...(isStringArray(command) ? { command } : {}),
    });
  }
  return services;
}

export function readTags(value: Value, location: string, p: Problems): string[] | null {
  if (isStringArray(value)) return value;
  p.add(location, 'config should be an array of strings');
  return null;
}

export function readBoolean(value: Value, location: string, p: Problems): boolean | null {
  if (isBoolean(value)) return value;
  p.add(location, 'config should be a boolean value');
  return null;
}

/**
 * GitLab's Variables entry: a hash of scalars, or of `{ value, description, expand, options }` where `dataKeys`
 * allows them (the top level allows all four, jobs `value` and `expand`). Values become strings, as Ruby's `to_s`.
 */
export function readVariables(value: Value, location: string, p: Problems, dataKeys: readonly string[]): [string, string][] | null {
  if (!isMap(value)) {
    p.add(location, 'config should be a hash');
    return null;
  }
  const out: [string, string][] = [];
  for (const [key, written] of value) {
    const loc = `${location}:${key}`;
    // A variable without a value (`EMPTY:`) is read as `{}` (GitLab's ComposableHash: `config || {}`): an empty one.
    const item = written ?? new Map<string, Value>();
    if (isString(item) || typeof item === 'number' || isBoolean(item)) {
      out.push([key, rubyString(item)]);
    } else if (isMap(item)) {
      const extra = [...item.keys()].filter((k) => !dataKeys.includes(k));
      if (dataKeys.length === 0) p.add(loc, 'config must be a string');
      else if (extra.length) p.add(loc, `config uses invalid data keys: ${extra.join(', ')}`);
      const data = item.get('value') ?? null;
      if (data !== null && !(isString(data) || typeof data === 'number' || isBoolean(data))) p.add(loc, 'config value must be a scalar');
      const options = item.get('options');
      if (options !== undefined && options !== null && (!isStringArray(options) || !options.includes(rubyString(data)))) {
        p.add(loc, isStringArray(options) ? 'config value must be present in options' : 'config options should be an array of strings');
      }
      out.push([key, rubyString(isMap(data) || Array.isArray(data) ? null : data)]);
    } else {
      p.raw('variable definition must be either a string or a hash');
    }
  }
  return out;
}

const ARTIFACT_KEYS = ['name', 'untracked', 'paths', 'reports', 'when', 'expire_in', 'expose_as', 'exclude', 'public', 'access'];
const ARTIFACT_WHEN = ['on_success', 'on_failure', 'always'];
const ARTIFACT_ACCESS = ['none', 'developer', 'maintainer', 'all'];

/** Who may download the artifacts: `access`, else `public: false` (developer); nothing for everyone. */
function artifactsAccess(access: Value | null, isPublic: Value | null): { access?: ArtifactsAccess } {
  if (isString(access) && ARTIFACT_ACCESS.includes(access) && access !== 'all') return { access: access as ArtifactsAccess };
  return access === null && isPublic === false ? { access: 'developer' } : {};
}
/** GitLab's Reports entry keys (report types a job may upload). */
const REPORT_KEYS = [
  'junit', 'codequality', 'sast', 'secret_detection', 'dependency_scanning', 'container_scanning', 'dast', 'license_scanning',
  'performance', 'browser_performance', 'load_performance', 'metrics', 'requirements', 'requirements_v2', 'coverage_report',
  'dotenv', 'terraform', 'accessibility', 'cluster_image_scanning', 'cyclonedx', 'api_fuzzing', 'coverage_fuzzing',
  'annotations', 'repository_xray',
];

/** GitLab's Reports::CoverageReport: `coverage_format` (cobertura or jacoco) and `path`. */
const COVERAGE_REPORT_KEYS = ['coverage_format', 'path'];
const COVERAGE_FORMATS = ['cobertura', 'jacoco'];
/** GitLab's Artifacts entry EXPOSE_AS_REGEX: `expose_as` names (letters, digits, `-`, `_` and spaces, at most 100 characters). */
const EXPOSE_AS = /^\w[-\w ]*$/;

function checkCoverageReport(value: Value, location: string, p: Problems): void {
  const loc = `${location}:coverage_report`;
  if (!isMap(value)) return p.add(loc, 'config should be a hash');
  unknownKeys(p, loc, value.keys(), COVERAGE_REPORT_KEYS);
  const format = value.get('coverage_format') ?? null;
  if (!(isString(format) && COVERAGE_FORMATS.includes(format))) p.add(loc, `coverage format must be one of supported formats: ${COVERAGE_FORMATS.join(', ')}.`);
  const path = value.get('path') ?? null;
  if (isBlank(path)) p.add(loc, "path can't be blank");
  else if (!isString(path)) p.add(loc, 'path should be a string');
}

/** The reports as GitLab keeps them (Reports#value): each type's paths as an array; `coverage_report` as its hash. */
function reportsValue(reports: Value | null): PlannedReports {
  const out: PlannedReports = {};
  if (!isMap(reports)) return out;
  for (const [key, paths] of reports) {
    if (paths === null) continue;
    if (key === 'coverage_report' && isMap(paths)) out.coverage_report = { coverage_format: paths.get('coverage_format') as string, path: paths.get('path') as string };
    else if (key !== 'coverage_report') out[key] = isString(paths) ? [paths] : (paths as string[]);
  }
  return out;
}

export function readArtifacts(value: Value, location: string, p: Problems): PlannedArtifacts | null {
  if (!isMap(value)) {
    p.add(location, 'config should be a hash');
    return null;
  }
  const get = (key: string) => value.get(key) ?? null;
  const ok = p.clean(() => {
    unknownKeys(p, location, value.keys(), ARTIFACT_KEYS);
    const name = get('name');
    if (name !== null && !isString(name)) p.add(location, 'name should be a string');
    for (const key of ['untracked', 'public']) if (get(key) !== null && !isBoolean(get(key))) p.add(location, `${key} should be a boolean value`);
    for (const key of ['paths', 'exclude']) if (get(key) !== null && !isStringArray(get(key))) p.add(location, `${key} should be an array of strings`);
    const exposeAs = get('expose_as');
    if (exposeAs !== null) {
      if (!isString(exposeAs)) p.add(location, 'expose as should be a string');
      else {
        if (exposeAs.length > 100) p.add(location, 'expose as is too long (maximum is 100 characters)');
        if (!EXPOSE_AS.test(exposeAs)) p.add(location, "expose as can contain only letters, digits, '-', '_' and spaces");
      }
      const paths = get('paths');
      if (paths === null) p.add(location, "paths can't be blank");
      else if (isStringArray(paths) && paths.some((path) => path.includes('*'))) p.add(location, "paths can't contain '*' when used with 'expose_as'");
    }
    const when = get('when');
    if (when !== null && !(isString(when) && ARTIFACT_WHEN.includes(when))) p.add(location, `when should be one of: ${ARTIFACT_WHEN.join(', ')}`);
    const expireIn = get('expire_in');
    if (expireIn !== null && expireIn !== 'never' && parseDuration(expireIn) === null) p.add(location, 'expire_in should be a duration');
    const access = get('access');
    if (access !== null && !(isString(access) && ARTIFACT_ACCESS.includes(access))) p.add(location, `access should be one of: ${ARTIFACT_ACCESS.join(', ')}`);
    const reports = get('reports');
    if (reports !== null) {
      const loc = `${location}:reports`;
      if (!isMap(reports)) p.add(loc, 'config should be a hash');
      else {
        unknownKeys(p, loc, reports.keys(), REPORT_KEYS);
        for (const [key, paths] of reports) {
          if (key === 'coverage_report') {
            if (paths !== null) checkCoverageReport(paths, loc, p);
          } else if (paths !== null && !isString(paths) && !isStringArray(paths)) p.add(loc, `${key} should be an array of strings or a string`);
        }
      }
    }
  });
  if (!ok) return null;
  const name = get('name');
  const expireIn = get('expire_in');
  const exposeAs = get('expose_as');
  return {
    ...(isString(name) ? { name } : {}),
    paths: (get('paths') as string[] | null) ?? [],
    exclude: (get('exclude') as string[] | null) ?? [],
    untracked: get('untracked') === true,
    when: (get('when') as PlannedArtifacts['when'] | null) ?? 'on_success',
    ...(expireIn !== null ? { expireIn: rubyString(expireIn) } : {}),
    ...(isString(exposeAs) ? { exposeAs } : {}),
    ...artifactsAccess(get('access'), get('public')),
    reports: reportsValue(get('reports')),
  };
}

const ENVIRONMENT_KEYS = ['name', 'url', 'action', 'on_stop', 'auto_stop_in', 'kubernetes', 'deployment_tier'];
const ENVIRONMENT_ACTIONS = ['start', 'stop', 'prepare', 'verify', 'access'];
const ENVIRONMENT_TIERS = ['production', 'staging', 'testing', 'development', 'other'];
const ENVIRONMENT_NAME = /^[a-zA-Z0-9_/${}. -]+$/;
const ENVIRONMENT_NAME_MESSAGE = "can contain only letters, digits, '-', '_', '/', '$', '{', '}', '.', and spaces, but it cannot start or end with '/'";

export function readEnvironment(value: Value, location: string, p: Problems): JobEnvironment | null {
  const map = isString(value) ? new Map<string, Value>([['name', value]]) : value;
  if (!isMap(map)) {
    p.add(location, 'config should be a hash or a string');
    return null;
  }
  const ok = p.clean(() => {
    if (isMap(value)) unknownKeys(p, location, map.keys(), ENVIRONMENT_KEYS);
    const name = map.get('name') ?? null;
    if (isBlank(name)) p.add(location, "name can't be blank");
    else if (!isString(name) || !ENVIRONMENT_NAME.test(name) || name.startsWith('/') || name.endsWith('/')) p.add(location, `name ${ENVIRONMENT_NAME_MESSAGE}`);
    const action = map.get('action') ?? null;
    if (action !== null && !(isString(action) && ENVIRONMENT_ACTIONS.includes(action))) p.add(location, 'action should be start, stop, prepare, verify, or access');
    const tier = map.get('deployment_tier') ?? null;
    if (tier !== null && !(isString(tier) && ENVIRONMENT_TIERS.includes(tier))) p.add(location, `deployment_tier must be one of ${ENVIRONMENT_TIERS.join(', ')}`);
    const url = map.get('url') ?? null;
    if (url !== null && !(isString(url) && url.length <= 255)) p.add(location, 'url should be a string');
    const onStop = map.get('on_stop') ?? null;
    if (onStop !== null && !isString(onStop)) p.add(location, 'on_stop should be a string');
    const autoStop = map.get('auto_stop_in') ?? null;
    if (autoStop !== null && autoStop !== 'never' && parseDuration(autoStop) === null) p.add(location, 'auto_stop_in should be a duration');
  });
  if (!ok) return null;
  const action = map.get('action');
  const onStop = map.get('on_stop');
  const url = map.get('url');
  const autoStopIn = map.get('auto_stop_in');
  const tier = map.get('deployment_tier');
  return {
    name: map.get('name') as string,
    action: isString(action) ? action : 'start',
    ...(isString(onStop) ? { onStop } : {}),
    ...(isString(url) ? { url } : {}),
    ...(typeof autoStopIn === 'string' || typeof autoStopIn === 'number' ? { autoStopIn: String(autoStopIn) } : {}),
    ...(isString(tier) ? { deploymentTier: tier } : {}),
  };
}

/** GitLab's retry `when` values: the job failure reasons, and `always`. */
const RETRY_WHEN = [
  'always', 'unknown_failure', 'script_failure', 'api_failure', 'stuck_or_timeout_failure', 'runner_system_failure',
  'runner_unsupported', 'stale_schedule', 'job_execution_timeout', 'archived_failure', 'unmet_prerequisites',
  'scheduler_failure', 'data_integrity_failure',
];

const retryRange = (p: Problems, attribute: string, n: Value) => {
  if (!isInteger(n)) p.add('retry', `${attribute} must be an integer`);
  else if (n < 0) p.add('retry', `${attribute} must be greater than or equal to 0`);
  else if (n > 2) p.add('retry', `${attribute} must be less than or equal to 2`);
};

/** GitLab's Retry entry, which names itself `retry` in its errors whatever the job. */
export function readRetry(value: Value, p: Problems): { max: number; when: string[]; exitCodes: number[] } | null {
  if (typeof value === 'number') {
    return p.clean(() => retryRange(p, 'config', value)) ? { max: value, when: ['always'], exitCodes: [] } : null;
  }
  if (!isMap(value)) {
    p.add('retry config', 'has to be either an integer or a hash');
    return null;
  }
  const max = value.get('max') ?? null;
  const when = value.get('when') ?? null;
  const exitCodes = value.get('exit_codes') ?? null;
  const ok = p.clean(() => {
    unknownKeys(p, 'retry', value.keys(), ['max', 'when', 'exit_codes']);
    if (max !== null) retryRange(p, 'max', max);
    if (when !== null) {
      if (isString(when)) {
        if (!RETRY_WHEN.includes(when)) p.add('retry', 'when is not included in the list');
      } else if (isStringArray(when)) {
        const unknown = when.filter((w) => !RETRY_WHEN.includes(w));
        if (unknown.length) p.add('retry', `when contains unknown values: ${unknown.join(', ')}`);
      } else p.add('retry', 'when should be an array of strings or a string');
    }
    if (exitCodes !== null && !isInteger(exitCodes) && !(Array.isArray(exitCodes) && exitCodes.every(isInteger))) {
      p.add('retry', 'exit_codes should be an array of integers or an integer');
    }
  });
  if (!ok) return null;
  return {
    max: (max as number | null) ?? 0,
    when: when === null ? ['always'] : isString(when) ? [when] : (when as string[]),
    exitCodes: exitCodes === null ? [] : isInteger(exitCodes) ? [exitCodes] : (exitCodes as number[]),
  };
}

/** Seconds of a job timeout (at most a month, as GitLab's Timeout entry allows). */
export function readTimeout(value: Value, location: string, p: Problems): number | null {
  const seconds = parseDuration(value);
  if (seconds === null) p.add(location, 'config should be a duration');
  else if (seconds > LIMITS.month) p.add(location, 'config should not exceed the limit');
  else return seconds;
  return null;
}

export function readCoverage(value: Value, location: string, p: Problems): string | null {
  if (isString(value) && regexpLiteral(value)) return value;
  p.add(location, 'config must be a regular expression with re2 syntax');
  return null;
}

/** GitLab's AllowFailure entry: a boolean, or `{ exit_codes: N | [N, …] }` (the job may fail with those codes). */
export function readAllowFailure(value: Value, location: string, p: Problems): { allowFailure: boolean; exitCodes: number[] | null } | null {
  if (isBoolean(value)) return { allowFailure: value, exitCodes: null };
  if (!isMap(value)) {
    p.add(location, 'config should be a hash or a boolean value');
    return null;
  }
  const codes = value.get('exit_codes') ?? null;
  const ok = p.clean(() => {
    unknownKeys(p, location, value.keys(), ['exit_codes']);
    if (codes !== null && !isInteger(codes) && !(Array.isArray(codes) && codes.every(isInteger))) p.add(location, 'exit_codes should be an array of integers or an integer');
  });
  if (!ok) return null;
  return { allowFailure: false, exitCodes: codes === null ? [] : isInteger(codes) ? [codes] : (codes as number[]) };
}
