/**
 * One job of the configuration (GitLab's Entry::Job and Entry::Bridge): its keys validated with GitLab's errors,
 * `default:` values inherited where the job leaves them out (as `inherit:default` allows), and the values the
 * planner needs. Which jobs run is decided later, by the planner.
 */
import {
  readAllowFailure, readArtifacts, readBoolean, readCommands, readCoverage, readEnvironment, readImage, readRetry, readServices, readTags,
  readTimeout, readVariables,
} from './entries.js';
import { readNeeds, readPolicy, readRules, readTrigger, type RuleSpec } from './conditions-entries.js';
import { readCache } from './cache-entry.js';
import { readRelease } from './release-entry.js';
import { readDastConfiguration, readHooks, readIdentity, readIdTokens, readPages, readPublish, readSecrets } from './job-keywords.js';
import { LIMITS, parseDuration } from './durations.js';
import { readParallel, type ParallelInstance } from './parallel.js';
import { Problems, unknownKeys } from './problems.js';
import type { ConfigMap, JobEnvironment, JobWhen, PlannedJob, Value } from './types.js';
import { isBlank, isBoolean, isMap, isString, isStringArray } from './values.js';

const PROCESSABLE_KEYS = ['extends', 'stage', 'only', 'except', 'rules', 'variables', 'inherit', 'allow_failure', 'when', 'needs', 'resource_group', 'environment', 'interruptible'];
const JOB_KEYS = [
  ...PROCESSABLE_KEYS, 'tags', 'script', 'run', 'type', 'image', 'services', 'start_in', 'artifacts', 'cache', 'dependencies', 'before_script',
  'after_script', 'hooks', 'coverage', 'retry', 'parallel', 'timeout', 'release', 'secrets', 'id_tokens', 'publish', 'pages',
  'manual_confirmation', 'identity', 'dast_configuration',
];
const BRIDGE_KEYS = [...PROCESSABLE_KEYS, 'trigger', 'parallel'];
const JOB_WHEN: readonly JobWhen[] = ['on_success', 'on_failure', 'always', 'manual', 'delayed'];
const BRIDGE_WHEN: readonly JobWhen[] = ['on_success', 'on_failure', 'always', 'manual', 'delayed'];

/** Keys a job takes from `default:` when it has none (GitLab's `inherit: true` entries). */
const INHERITED_KEYS = ['before_script', 'after_script', 'image', 'services', 'cache', 'interruptible', 'timeout', 'retry', 'tags', 'artifacts', 'hooks', 'id_tokens'];

const WARNING =
  'may allow multiple pipelines to run for a single action due to `rules:when` clause with no `workflow:rules` - read more: https://docs.gitlab.com/ee/ci/troubleshooting.html#pipeline-warnings';

/** A validated job: the plan's settings as the job states them, and what deciding whether it runs needs. */
export interface JobSpec
  extends Pick<
    PlannedJob,
    | 'name' | 'stage' | 'when' | 'startIn' | 'allowFailure' | 'allowFailureExitCodes' | 'script' | 'beforeScript' | 'afterScript' | 'image'
    | 'services' | 'tags' | 'artifacts' | 'cache' | 'retry' | 'timeout' | 'interruptible' | 'coverage' | 'dependencies' | 'needs' | 'trigger' | 'only' | 'except'
    | 'resourceGroup' | 'release' | 'idTokens' | 'hooks' | 'secrets' | 'manualConfirmation' | 'pages' | 'publish' | 'identity' | 'dastConfiguration'
  > {
  bridge: boolean;
  environment: JobEnvironment | null;
  rules: RuleSpec[] | null;
  /** The job's own variables (and a matrix instance's). */
  variables: [string, string][];
  /** Which global variables the job takes (`inherit:variables`). */
  inheritVariables: boolean | string[];
  /** The instances `parallel:` makes, or null. */
  parallel: ParallelInstance[] | null;
}

interface JobContext {
  /** `default:` (with the deprecated top-level keys folded in), as validated values by key. */
  defaults: ConfigMap;
  workflowHasRules: boolean;
}

/** GitLab's job types: hidden (`.name`), a job (`script:`/`run:`), a bridge (`trigger:`, or `needs:` alone). */
export function jobType(name: string, config: Value): 'hidden' | 'job' | 'bridge' | null {
  if (name.startsWith('.')) return 'hidden';
  if (!isMap(config)) return null;
  if (config.has('script') || config.has('run')) return 'job';
  if (config.has('trigger') || config.has('needs')) return 'bridge';
  return null;
}

function inheritedDefaults(config: ConfigMap, loc: string, p: Problems): { defaults: boolean | string[]; variables: boolean | string[] } {
  const inherit = config.get('inherit') ?? null;
  const out = { defaults: true as boolean | string[], variables: true as boolean | string[] };
  if (inherit === null) return out;
  if (!isMap(inherit)) {
    p.add(`${loc}:inherit`, 'config should be a hash');
    return out;
  }
  unknownKeys(p, `${loc}:inherit`, inherit.keys(), ['default', 'variables']);
  for (const [key, field] of [['default', 'defaults'], ['variables', 'variables']] as const) {
    const value = inherit.get(key) ?? null;
    if (value === null) continue;
    if (isBoolean(value) || isStringArray(value)) out[field] = value;
    else p.add(`${loc}:inherit:${key}`, 'config should be a boolean value or an array of strings');
  }
  return out;
}

/** Validates one visible job and returns what the planner needs, or null when it has errors. */
export function readJob(name: string, config: ConfigMap, bridge: boolean, context: JobContext, p: Problems): JobSpec | null {
  const loc = `jobs:${name}`;
  const has = (key: string) => config.has(key) && config.get(key) !== null;
  const get = (key: string): Value => config.get(key) ?? null;
  const before = p.errors.length;

  unknownKeys(p, loc, config.keys(), bridge ? BRIDGE_KEYS : JOB_KEYS);
  if (name.length > 255) p.add(loc, 'name is too long (maximum is 255 characters)');
  const inherit = inheritedDefaults(config, loc, p);
  const fromDefault = (key: string): Value | undefined => {
    if (has(key) || !INHERITED_KEYS.includes(key)) return has(key) ? get(key) : undefined;
    if (inherit.defaults === false || (Array.isArray(inherit.defaults) && !inherit.defaults.includes(key))) return undefined;
    return context.defaults.get(key);
  };

  const rules = has('rules') ? readRules(get('rules'), loc, 'job', p) : null;
  if (config.has('rules')) {
    const disallowed = ['only', 'except', 'start_in'].filter(has);
    if (disallowed.length) p.add(loc, `config key may not be used with \`rules\`: ${disallowed.join(', ')}`);
  }
  // GitLab's Processable entry: `validates :resource_group, type: String`.
  const resourceGroup = has('resource_group') ? get('resource_group') : null;
  if (resourceGroup !== null && !isString(resourceGroup)) p.add(loc, 'resource group should be a string');
  const stageValue = has('stage') ? get('stage') : has('type') ? get('type') : 'test';
  if (!isString(stageValue)) p.add(`${loc}:${has('stage') ? 'stage' : 'type'}`, 'config should be a string');
  if (has('extends') && !isString(get('extends')) && !isStringArray(get('extends'))) p.add(loc, 'extends should be an array of strings or a string');

  const whenValue = get('when');
  const allowedWhen = bridge ? BRIDGE_WHEN : JOB_WHEN;
  if (whenValue !== null && !(isString(whenValue) && (allowedWhen as readonly string[]).includes(whenValue))) p.add(loc, `when should be one of: ${allowedWhen.join(', ')}`);
  const when = (isString(whenValue) && (allowedWhen as readonly string[]).includes(whenValue) ? whenValue : 'on_success') as JobWhen;
  let startIn: number | null = null;
  if (when === 'delayed' && !rules) {
    startIn = parseDuration(get('start_in'));
    if (startIn === null) p.add(loc, 'start_in should be a duration');
    else if (startIn > LIMITS.week) p.add(loc, 'start_in should not exceed the limit');
  } else if (has('start_in') && !has('rules')) p.add(loc, 'start_in must be blank');

  // GitLab's `ignore`: a manual job may fail unless it says otherwise; a bridge takes only a boolean.
  let allowFailure: { allowFailure: boolean; exitCodes: number[] | null } = { allowFailure: when === 'manual', exitCodes: null };
  if (has('allow_failure')) {
    const value = get('allow_failure');
    if (!bridge) allowFailure = readAllowFailure(value, `${loc}:allow_failure`, p) ?? allowFailure;
    else if (isBoolean(value)) allowFailure = { allowFailure: value, exitCodes: null };
    else p.add(loc, 'allow_failure should be a boolean value');
  }

  // GitLab validates the script's presence: nil, '' and [] are blank.
  const script = !bridge && !isBlank(get('script')) ? readCommands(get('script'), `${loc}:script`, p) : [];
  if (!bridge && config.has('script') && isBlank(get('script')) && !has('run')) p.add(loc, "script can't be blank");
  const commands = (key: string) => {
    const value = fromDefault(key);
    return value === undefined || value === null ? [] : (readCommands(value, `${loc}:${key}`, p) ?? []);
  };
  const optional = <T>(key: string, read: (value: Value, location: string) => T | null): T | null => {
    const value = fromDefault(key);
    return value === undefined || value === null ? null : read(value, `${loc}:${key}`);
  };

  const dependencies = has('dependencies') ? get('dependencies') : null;
  if (dependencies !== null && !isStringArray(dependencies)) p.add(loc, 'dependencies should be an array of strings');
  const needs = has('needs') ? readNeeds(get('needs'), loc, p) : null;
  if (bridge && !has('trigger') && !needs?.pipeline && needs) p.add(loc, 'config should contain either a trigger or a needs:pipeline');
  if (isStringArray(dependencies) && needs && needs.jobs.length) {
    const missing = dependencies.filter((d) => !needs.jobs.some((n) => n.name === d));
    if (missing.length) p.add(loc, `dependencies the ${missing.join(', ')} should be part of needs`);
  }
  const only = has('only') ? readPolicy(get('only'), `${loc}:only`, p) : null;
  const except = has('except') ? readPolicy(get('except'), `${loc}:except`, p) : null;
  const variables = has('variables') ? (readVariables(get('variables'), `${loc}:variables`, p, ['value', 'expand']) ?? []) : [];
  const parallel = has('parallel') ? readParallel(get('parallel'), name, `${loc}:parallel`, p) : null;
  const manualConfirmation = has('manual_confirmation') ? get('manual_confirmation') : null;
  if (!bridge && manualConfirmation !== null && !isString(manualConfirmation)) p.add(loc, 'manual confirmation should be a string');
  // GitLab's pages_job?: `pages:` set (a hash or true), or a job named `pages` that does not say `pages: false`.
  const pagesValue = get('pages');
  const pagesJob = !bridge && (pagesValue === true || (isMap(pagesValue) && pagesValue.size > 0) || (name === 'pages' && pagesValue !== false));
  if (!bridge && has('publish') && !pagesJob) p.add(loc, 'publish can only be used within a `pages` job');

  const spec: JobSpec = {
    name,
    bridge,
    stage: isString(stageValue) ? stageValue : 'test',
    when,
    startIn,
    allowFailure: allowFailure.allowFailure,
    allowFailureExitCodes: allowFailure.exitCodes,
    script: script ?? [],
    beforeScript: bridge ? [] : commands('before_script'),
    afterScript: bridge ? [] : commands('after_script'),
    image: bridge ? null : optional('image', (v, l) => readImage(v, l, p)),
    services: bridge ? [] : (optional('services', (v, l) => readServices(v, l, p)) ?? []),
    tags: bridge ? [] : (optional('tags', (v, l) => readTags(v, l, p)) ?? []),
    artifacts: bridge ? null : optional('artifacts', (v, l) => readArtifacts(v, l, p)),
    cache: bridge ? [] : (optional('cache', (v, l) => readCache(v, l, p)) ?? []),
    retry: (bridge ? null : optional('retry', (v) => readRetry(v, p))) ?? { max: 0, when: ['always'], exitCodes: [] },
    timeout: bridge ? null : optional('timeout', (v, l) => readTimeout(v, l, p)),
    interruptible: optional('interruptible', (v, l) => readBoolean(v, l, p)) ?? false,
    coverage: bridge ? null : optional('coverage', (v, l) => readCoverage(v, l, p)),
    environment: optional('environment', (v, l) => readEnvironment(v, l, p)),
    release: bridge ? null : optional('release', (v, l) => readRelease(v, l, p)),
    idTokens: bridge ? null : optional('id_tokens', (v, l) => readIdTokens(v, l, p)),
    hooks: bridge ? null : optional('hooks', (v, l) => readHooks(v, l, p)),
    secrets: bridge ? null : optional('secrets', (v, l) => readSecrets(v, l, p)),
    manualConfirmation: isString(manualConfirmation) ? manualConfirmation : null,
    pages: bridge ? null : pagesOf(pagesJob, optional('pages', (v, l) => readPages(v, l, p))),
    publish: bridge ? null : optional('publish', (v, l) => readPublish(v, l, p)),
    identity: bridge ? null : optional('identity', (v, l) => readIdentity(v, l, p)),
    dastConfiguration: bridge ? null : optional('dast_configuration', (v, l) => readDastConfiguration(v, l, p)),
    resourceGroup: isString(resourceGroup) ? resourceGroup : null,
    dependencies: isStringArray(dependencies) ? dependencies : null,
    needs: needs ? needs.jobs : null,
    rules,
    // Without rules (of the job or the workflow), GitLab's default is `only: [branches, tags]`.
    only: only ?? (config.has('rules') || context.workflowHasRules ? null : { refs: ['branches', 'tags'] }),
    except,
    variables,
    inheritVariables: inherit.variables,
    trigger: bridge && has('trigger') ? readTrigger(get('trigger'), `${loc}:trigger`, p) : null,
    parallel,
  };
  // GitLab 17.10: a Pages job's folder (`pages:publish`, `publish:`, else `public`) is added to its artifacts' paths.
  if (spec.pages !== null) {
    const folder = (typeof spec.pages === 'object' ? spec.pages.publish : undefined) ?? spec.publish ?? 'public';
    const artifacts = spec.artifacts ?? { paths: [], exclude: [], untracked: false, when: 'on_success' as const, reports: {} };
    if (!artifacts.paths.includes(folder)) spec.artifacts = { ...artifacts, paths: [...artifacts.paths, folder] };
  }
  // What this server has no service for is said, not dropped in silence (README: what the server cannot do).
  if (spec.pages !== null) p.warn(loc, 'pages: this server does not serve GitLab Pages, the job runs and keeps its artifacts');
  if (spec.identity !== null) p.warn(loc, 'identity: Google Cloud workload identity is not available on this server, the job runs without it');
  if (spec.dastConfiguration !== null) p.warn(loc, 'dast_configuration: DAST site and scanner profiles are not available on this server, the job runs without them');
  if (rules && !context.workflowHasRules) {
    const last = get('rules');
    const lastRule = Array.isArray(last) ? last.flat(MAX_FLAT)[last.flat(MAX_FLAT).length - 1] : null;
    if (isMap(lastRule) && lastRule.size === 1 && lastRule.has('when') && lastRule.get('when') !== 'never') p.warn(loc, WARNING);
  }
  return p.errors.length === before ? spec : null;
}

const MAX_FLAT = 10;

/** A Pages job's `pages:` (true when it says nothing more); null for any other job. */
function pagesOf(pagesJob: boolean, value: ReturnType<typeof readPages>): ReturnType<typeof readPages> {
  return pagesJob ? (value || true) : null;
}

/** Top-level keys GitLab still reads as defaults (deprecated in favour of `default:`). */
const DEPRECATED_GLOBALS = ['before_script', 'image', 'services', 'after_script', 'cache'];

/** GitLab's InheritError: a deprecated top-level key and the same key in `default:`. */
export function defaultConflict(root: ConfigMap): string | null {
  const declared = declaredDefaults(root);
  if (!declared) return null;
  const key = DEPRECATED_GLOBALS.find((k) => root.has(k) && !isBlank(root.get(k)) && declared.has(k));
  return key ? `${key} is defined in top-level and \`default:\` entry` : null;
}

function validateDefault(key: string, entry: Value, loc: string, p: Problems): void {
  if (key === 'before_script' || key === 'after_script') readCommands(entry, loc, p);
  else if (key === 'image') readImage(entry, loc, p);
  else if (key === 'services') readServices(entry, loc, p);
  else if (key === 'tags') readTags(entry, loc, p);
  else if (key === 'artifacts') readArtifacts(entry, loc, p);
  else if (key === 'cache') readCache(entry, loc, p);
  else if (key === 'retry') readRetry(entry, p);
  else if (key === 'timeout') readTimeout(entry, loc, p);
  else if (key === 'interruptible') readBoolean(entry, loc, p);
  else if (key === 'hooks') readHooks(entry, loc, p);
  else if (key === 'id_tokens') readIdTokens(entry, loc, p);
}

/** Validates `default:` and returns its entries (deprecated top-level keys folded in), with GitLab's errors. */
/** The root's `default:` entry, unless that key holds a job (GitLab reads `default: {script: …}` as one). */
function declaredDefaults(root: ConfigMap): ConfigMap | null {
  const value = root.get('default');
  return isMap(value) && jobType('default', value) === null ? value : null;
}

export function readDefaults(root: ConfigMap, p: Problems): ConfigMap {
  const defaults: ConfigMap = new Map();
  const value = root.get('default');
  const declared = declaredDefaults(root) ?? new Map<string, Value>();
  if (value !== undefined && value !== null && !isMap(value)) p.add('default', 'config should be a hash');
  unknownKeys(p, 'default', declared.keys(), ['before_script', 'image', 'services', 'after_script', 'cache', 'interruptible', 'timeout', 'retry', 'tags', 'artifacts', 'hooks', 'id_tokens']);
  for (const [key, entry] of declared) defaults.set(key, entry);
  for (const key of DEPRECATED_GLOBALS) {
    if (root.has(key) && !isBlank(root.get(key)) && !declared.has(key)) defaults.set(key, root.get(key)!);
  }
  // Each default is validated once, here, so its errors name `default:<key>` (or the top-level key); an invalid one
  // is then left out, and jobs behave as if it were absent.
  for (const [key, entry] of [...defaults]) {
    const check = new Problems();
    validateDefault(key, entry, root.has(key) && !declared.has(key) ? key : `default:${key}`, check);
    for (const error of check.errors) p.raw(error);
    if (check.errors.length) defaults.delete(key);
  }
  return defaults;
}
