/**
 * The `.gitlab-ci.yml` engine: a CI configuration and the pipeline's facts in, the pipeline's plan out (stages, the
 * jobs its rules keep, their settings), or the configuration's errors as GitLab words them. No database, no HTTP:
 * `include: local` reads through the context. YAML is parsed by the `yaml` package with aliases bounded.
 */
import { isScalar, isSeq, parseDocument, type Node as YamlNode } from 'yaml';
import { evaluateExpression, ExpressionError } from './expression.js';

export { evaluateExpression };

export interface CiContext {
  /** Variables visible to rules/workflow `if:` (predefined CI_* plus project/pipeline variables), key → value. */
  variables: Record<string, string>;
  /** Paths changed by the push, for rules:changes; undefined when unknown (`changes` then holds). */
  changes?: readonly string[];
  /** A file of the repository at the pipeline's commit (`include: local`); null if absent. */
  readLocal(path: string): Promise<string | null>;
}

export interface PlannedNeed {
  name: string;
  artifacts: boolean;
  optional: boolean;
}

export type JobWhen = 'on_success' | 'on_failure' | 'always' | 'manual' | 'delayed';

export interface PlannedJob {
  name: string;
  stage: string;
  stageIdx: number;
  when: JobWhen;
  allowFailure: boolean;
  allowFailureExitCodes: number[] | null;
  /** null: waits for all earlier stages; an array (maybe empty): waits only for these (DAG). */
  needs: PlannedNeed[] | null;
  script: string[];
  beforeScript: string[];
  afterScript: string[];
  image: { name: string; entrypoint?: string[] } | null;
  services: { name: string; alias?: string; entrypoint?: string[]; command?: string[] }[];
  /** Global `variables:` first, then the job's (later wins). */
  variables: { key: string; value: string }[];
  tags: string[];
  artifacts: { name?: string; paths: string[]; exclude: string[]; untracked: boolean; when: 'on_success' | 'on_failure' | 'always'; expireIn?: string; reports: { junit: string[] } } | null;
  dependencies: string[] | null;
  coverage: string | null;
  retry: { max: number; when: string[]; exitCodes: number[] };
  timeout: number | null;
  startIn: number | null;
  environment: { name: string; action?: string } | null;
  interruptible: boolean;
  trigger: { include?: unknown; project?: string; branch?: string; strategy?: string } | null;
}

export interface PipelinePlan {
  errors: string[];
  warnings: string[];
  name: string | null;
  filteredByWorkflow: boolean;
  workflowVariables: { key: string; value: string }[];
  stages: string[];
  jobs: PlannedJob[];
  mergedYaml: string;
  includes: { type: string; location: string; blob: string | null; raw: string | null; extra: object; context_project: string | null; context_sha: string | null }[];
}

type Hash = Record<string, unknown>;

/** GitLab's limits: total configuration size, include count, extends depth, YAML nesting. */
const MAX_CONFIG_BYTES = 4 * 1024 * 1024;
const MAX_INCLUDES = 150;
const MAX_EXTENDS_DEPTH = 11;
const MAX_ALIASES = 1000;
const MAX_NESTING = 100;

/** Top-level keys that are not jobs. */
const GLOBAL_KEYWORDS = new Set(['default', 'include', 'stages', 'variables', 'workflow', 'image', 'services', 'cache', 'before_script', 'after_script', 'types', 'pages:deploy']);
const JOB_KEYWORDS = new Set([
  'after_script', 'allow_failure', 'artifacts', 'before_script', 'cache', 'coverage', 'dast_configuration', 'dependencies', 'environment', 'except',
  'extends', 'hooks', 'id_tokens', 'identity', 'image', 'inherit', 'interruptible', 'manual_confirmation', 'needs', 'only', 'pages', 'parallel', 'release',
  'resource_group', 'retry', 'rules', 'run', 'script', 'secrets', 'services', 'stage', 'start_in', 'tags', 'timeout', 'trigger', 'variables', 'when', 'publish',
]);
const DEFAULT_KEYWORDS = ['after_script', 'artifacts', 'before_script', 'cache', 'hooks', 'image', 'interruptible', 'retry', 'services', 'tags', 'timeout', 'id_tokens'];
const WHENS = new Set(['on_success', 'on_failure', 'always', 'manual', 'delayed', 'never']);
const DEFAULT_STAGES = ['build', 'test', 'deploy'];

class ConfigError extends Error {}

const isHash = (v: unknown): v is Hash => typeof v === 'object' && v !== null && !Array.isArray(v);

/** GitLab's durations: `30`, `30 seconds`, `1h 30m`, `2 days`… in seconds; null when unreadable. */
export function parseDuration(value: unknown): number | null {
  if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return Math.round(value);
  if (typeof value !== 'string') return null;
  const text = value.trim().toLowerCase();
  if (/^\d+$/.test(text)) return Number(text);
  const units: Record<string, number> = { s: 1, sec: 1, second: 1, m: 60, min: 60, minute: 60, h: 3600, hr: 3600, hour: 3600, d: 86400, day: 86400, w: 604800, week: 604800, mo: 2592000, month: 2592000, y: 31536000, year: 31536000 };
  let total = 0;
  let matched = false;
  const re = /(\d+(?:\.\d+)?)\s*([a-z]+?)s?(?=\s|\d|,|$|and)/g;
  const rest = text.replace(re, (_all, n: string, unit: string) => {
    const factor = units[unit];
    if (factor === undefined) return _all;
    matched = true;
    total += Number(n) * factor;
    return '';
  });
  if (!matched || rest.replace(/and|,|\s/g, '') !== '') return null;
  return Math.round(total);
}

function depth(value: unknown, level = 0): number {
  if (level > MAX_NESTING) return level;
  if (Array.isArray(value)) return Math.max(level, ...value.map((v) => depth(v, level + 1)));
  if (isHash(value)) return Math.max(level, ...Object.values(value).map((v) => depth(v, level + 1)));
  return level;
}

/** Resolves `!reference [job, key, …]` tags after the whole document is known. */
const REFERENCE = Symbol('reference');
type Reference = { [REFERENCE]: string[] };
const isReference = (v: unknown): v is Reference => typeof v === 'object' && v !== null && REFERENCE in v;

function parseYaml(text: string, file: string): Hash {
  if (Buffer.byteLength(text) > MAX_CONFIG_BYTES) throw new ConfigError(`${file}: config is too large`);
  if (text.includes('\0')) throw new ConfigError(`${file}: Invalid configuration format`);
  const doc = parseDocument(text, {
    uniqueKeys: false,
    merge: true,
    customTags: [
      {
        tag: '!reference',
        collection: 'seq',
        resolve: (value: unknown) => {
          const items = isSeq(value) ? value.items.map((i) => (isScalar(i) ? String(i.value) : '')) : [];
          return { [REFERENCE]: items } as unknown as YamlNode;
        },
      },
    ],
  });
  if (doc.errors.length > 0) throw new ConfigError(`${file === '.gitlab-ci.yml' ? 'jobs' : file}: (<unknown>): ${doc.errors[0].message.split('\n')[0]}`.replace(/^jobs: /, ''));
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: MAX_ALIASES });
  } catch (error) {
    throw new ConfigError(`${file}: ${(error as Error).message}`);
  }
  if (value === null || value === undefined) return {};
  if (!isHash(value)) throw new ConfigError('Invalid configuration format');
  if (depth(value) > MAX_NESTING) throw new ConfigError('The parsed YAML is too big');
  return value;
}

function strings(value: unknown, where: string): string[] {
  if (value === undefined || value === null) return [];
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return [String(value)];
  if (Array.isArray(value)) {
    return value.flatMap((v) => {
      if (Array.isArray(v)) return strings(v, where);
      if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return [String(v)];
      throw new ConfigError(`${where} config should be a string or a nested array of strings up to 10 levels deep`);
    });
  }
  throw new ConfigError(`${where} config should be a string or a nested array of strings up to 10 levels deep`);
}

function variablesOf(value: unknown, where: string): { key: string; value: string }[] {
  if (value === undefined || value === null) return [];
  if (!isHash(value)) throw new ConfigError(`${where} config should be a hash of key value pairs`);
  return Object.entries(value).map(([key, v]) => {
    if (isHash(v)) return { key, value: v.value === undefined || v.value === null ? '' : String(v.value) };
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return { key, value: String(v) };
    throw new ConfigError(`${where} config should be a hash of key value pairs, value can be a hash`);
  });
}

/** `$VAR` and `${VAR}` replaced by their values (unknown ones by nothing), as GitLab expands workflow:name. */
function expand(text: string, variables: Record<string, string>): string {
  return text.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)/g, (_m, a: string | undefined, b: string | undefined) => variables[(a ?? b)!] ?? '');
}

/** Deep merge as GitLab's extends and default: hashes merge, anything else is replaced. */
function deepMerge(base: Hash, over: Hash): Hash {
  const out: Hash = { ...base };
  for (const [key, value] of Object.entries(over)) out[key] = isHash(out[key]) && isHash(value) ? deepMerge(out[key] as Hash, value) : value;
  return out;
}

/** Glob match for `changes:` (GitLab's File.fnmatch with PATHNAME and EXTGLOB): `**` crosses folders, `*` does not. */
function globMatch(pattern: string, path: string): boolean {
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '*') {
      if (pattern[i + 1] === '*') {
        re += pattern[i + 2] === '/' ? '(?:.*/)?' : '.*';
        i += pattern[i + 2] === '/' ? 2 : 1;
      } else re += '[^/]*';
    } else if (c === '?') re += '[^/]';
    else if (c === '{') {
      const end = pattern.indexOf('}', i);
      if (end < 0) re += '\\{';
      else {
        re += `(?:${pattern.slice(i + 1, end).split(',').map((p) => p.replace(/[.+^${}()|[\]\\*?]/g, '\\$&')).join('|')})`;
        i = end;
      }
    } else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`).test(path);
}

function changesMatch(value: unknown, ctx: CiContext, where: string): boolean {
  if (ctx.changes === undefined) return true;
  const patterns = strings(isHash(value) ? value.paths : value, `${where}:changes`);
  return ctx.changes.some((path) => patterns.some((p) => globMatch(p, path)));
}

interface RuleOutcome {
  when: string;
  allowFailure?: boolean;
  variables: { key: string; value: string }[];
  startIn?: unknown;
  needs?: unknown;
}

/** The first rule that matches, or null when none does. */
function firstRule(rules: unknown, ctx: CiContext, variables: Record<string, string>, where: string): RuleOutcome | null {
  if (!Array.isArray(rules)) throw new ConfigError(`${where}:rules config should be an array of hashes`);
  for (const rule of rules.flat()) {
    if (!isHash(rule)) throw new ConfigError(`${where}:rules:rule config should be a hash`);
    const unknown = Object.keys(rule).filter((k) => !['if', 'changes', 'exists', 'when', 'allow_failure', 'variables', 'start_in', 'needs', 'interruptible', 'auto_cancel'].includes(k));
    if (unknown.length) throw new ConfigError(`${where}:rules:rule config contains unknown keys: ${unknown.join(', ')}`);
    if (rule.when !== undefined && (typeof rule.when !== 'string' || !WHENS.has(rule.when))) {
      throw new ConfigError(`${where}:rules:rule when unknown value: ${String(rule.when)}`);
    }
    let matches = true;
    if (rule.if !== undefined) {
      if (typeof rule.if !== 'string') throw new ConfigError(`${where}:rules:rule if should be a string`);
      try {
        matches = evaluateExpression(rule.if, variables);
      } catch (error) {
        if (error instanceof ExpressionError) throw new ConfigError(`${where}:rules:rule if invalid expression syntax`);
        throw error;
      }
    }
    if (matches && rule.changes !== undefined) matches = changesMatch(rule.changes, ctx, `${where}:rules:rule`);
    if (!matches) continue;
    return {
      when: (rule.when as string | undefined) ?? 'on_success',
      allowFailure: typeof rule.allow_failure === 'boolean' ? rule.allow_failure : undefined,
      variables: variablesOf(rule.variables, `${where}:rules:rule:variables`),
      startIn: rule.start_in,
      needs: rule.needs,
    };
  }
  return null;
}

/** `only`/`except` (refs, keywords, `variables:`, `changes:`) against the pipeline. */
function refsPolicy(policy: unknown, ctx: CiContext, variables: Record<string, string>, where: string): boolean {
  const spec = Array.isArray(policy) || typeof policy === 'string' ? { refs: policy } : policy;
  if (!isHash(spec)) throw new ConfigError(`${where} config should be an array of strings or regular expressions`);
  const ref = variables.CI_COMMIT_REF_NAME ?? '';
  const source = variables.CI_PIPELINE_SOURCE ?? '';
  const tag = variables.CI_COMMIT_TAG !== undefined;
  const keyword: Record<string, () => boolean> = {
    branches: () => !tag && ['push', 'web', 'api', 'schedule', 'trigger', 'pipeline', 'parent_pipeline', 'chat', 'webide'].includes(source),
    tags: () => tag,
    api: () => source === 'api',
    external: () => source === 'external',
    pipelines: () => source === 'pipeline' || source === 'parent_pipeline',
    pushes: () => source === 'push',
    schedules: () => source === 'schedule',
    triggers: () => source === 'trigger',
    web: () => source === 'web',
    chat: () => source === 'chat',
    merge_requests: () => source === 'merge_request_event',
    external_pull_requests: () => source === 'external_pull_request_event',
  };
  let ok = true;
  if (spec.refs !== undefined) {
    const refs = strings(spec.refs, `${where}:refs`);
    ok = refs.some((r) => {
      if (keyword[r]) return keyword[r]();
      const regexp = /^\/(.*)\/([a-z]*)$/s.exec(r);
      if (regexp) {
        try {
          return new RegExp(regexp[1], regexp[2].replace(/[^ims]/g, '')).test(ref);
        } catch {
          throw new ConfigError(`${where}:refs config should be an array of strings or regular expressions`);
        }
      }
      return r.split('@')[0] === ref;
    });
  }
  if (ok && spec.variables !== undefined) {
    const expressions = strings(spec.variables, `${where}:variables`);
    try {
      ok = expressions.some((e) => evaluateExpression(e, variables));
    } catch (error) {
      if (error instanceof ExpressionError) throw new ConfigError(`${where}:variables config should be an array of valid expressions`);
      throw error;
    }
  }
  if (ok && spec.changes !== undefined) ok = changesMatch(spec.changes, ctx, where);
  return ok;
}

function imageOf(value: unknown, where: string): PlannedJob['image'] {
  if (value === undefined || value === null) return null;
  if (typeof value === 'string') return { name: value };
  if (isHash(value) && typeof value.name === 'string') return { name: value.name, ...(value.entrypoint ? { entrypoint: strings(value.entrypoint, `${where}:image:entrypoint`) } : {}) };
  throw new ConfigError(`${where}:image config should be a hash or a string`);
}

function servicesOf(value: unknown, where: string): PlannedJob['services'] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new ConfigError(`${where}:services config should be a array`);
  return value.map((s) => {
    if (typeof s === 'string') return { name: s };
    if (isHash(s) && typeof s.name === 'string') {
      return { name: s.name, ...(typeof s.alias === 'string' ? { alias: s.alias } : {}), ...(s.entrypoint ? { entrypoint: strings(s.entrypoint, where) } : {}), ...(s.command ? { command: strings(s.command, where) } : {}) };
    }
    throw new ConfigError(`${where}:services:service config should be a hash or a string`);
  });
}

function artifactsOf(value: unknown, where: string): PlannedJob['artifacts'] {
  if (value === undefined || value === null) return null;
  if (!isHash(value)) throw new ConfigError(`${where}:artifacts config should be a hash`);
  const when = value.when ?? 'on_success';
  if (!['on_success', 'on_failure', 'always'].includes(when as string)) throw new ConfigError(`${where}:artifacts when should be on_success, on_failure or always`);
  const reports = isHash(value.reports) ? value.reports : {};
  return {
    ...(typeof value.name === 'string' ? { name: value.name } : {}),
    paths: strings(value.paths, `${where}:artifacts:paths`),
    exclude: strings(value.exclude, `${where}:artifacts:exclude`),
    untracked: value.untracked === true,
    when: when as 'on_success',
    ...(value.expire_in !== undefined ? { expireIn: String(value.expire_in) } : {}),
    reports: { junit: strings(reports.junit, `${where}:artifacts:reports:junit`) },
  };
}

function retryOf(value: unknown, where: string): PlannedJob['retry'] {
  if (value === undefined || value === null) return { max: 0, when: [], exitCodes: [] };
  const max = typeof value === 'number' ? value : isHash(value) ? (value.max ?? 0) : NaN;
  if (!Number.isInteger(max) || (max as number) < 0 || (max as number) > 2) throw new ConfigError(`${where}:retry config must be between 0 and 2`);
  return {
    max: max as number,
    when: isHash(value) ? strings(value.when, `${where}:retry:when`) : [],
    exitCodes: isHash(value) && value.exit_codes !== undefined ? [value.exit_codes].flat().map(Number) : [],
  };
}

function needsOf(value: unknown, where: string): PlannedNeed[] {
  if (value === null || value === undefined) return [];
  if (!Array.isArray(value)) throw new ConfigError(`${where}:needs config should be an array`);
  return value.map((n) => {
    if (typeof n === 'string') return { name: n, artifacts: true, optional: false };
    if (isHash(n) && typeof n.job === 'string') return { name: n.job, artifacts: n.artifacts !== false, optional: n.optional === true };
    throw new ConfigError(`${where}:needs config can only be a string or a hash`);
  });
}

/** Reads `include: local` files (and plain strings naming local files), merging them under the main file. */
async function withIncludes(root: Hash, ctx: CiContext, includes: PipelinePlan['includes'], seen = { count: 0 }): Promise<Hash> {
  if (root.include === undefined) return root;
  const list = Array.isArray(root.include) ? root.include : [root.include];
  let merged: Hash = {};
  for (const entry of list) {
    if (++seen.count > MAX_INCLUDES) throw new ConfigError(`Maximum of ${MAX_INCLUDES} nested includes are allowed!`);
    let local: string | null = null;
    if (typeof entry === 'string') {
      if (/^https?:\/\//.test(entry)) throw new ConfigError(`Remote includes are not supported by this server: \`${entry}\``);
      local = entry;
    } else if (isHash(entry) && typeof entry.local === 'string') local = entry.local;
    else if (isHash(entry) && (entry.remote || entry.template || entry.project || entry.component)) {
      const kind = ['remote', 'template', 'project', 'component'].find((k) => entry[k] !== undefined)!;
      throw new ConfigError(`Included file type \`${kind}\` is not supported by this server`);
    } else throw new ConfigError('Included file `' + JSON.stringify(entry) + '` does not have a valid location!');
    const path = local.replace(/^\/+/, '');
    const text = await ctx.readLocal(path);
    if (text === null) throw new ConfigError(`Local file \`${path}\` does not exist!`);
    let parsed: Hash;
    try {
      parsed = parseYaml(text, path);
    } catch {
      throw new ConfigError(`Included file \`${path}\` does not have valid YAML syntax!`);
    }
    includes.push({ type: 'local', location: path, blob: null, raw: null, extra: {}, context_project: null, context_sha: null });
    merged = deepMerge(merged, await withIncludes(parsed, ctx, includes, seen));
  }
  const { include: _include, ...rest } = root;
  return deepMerge(merged, rest);
}

/** `extends:` resolved for every job, deepest first (GitLab: up to 11 levels, no cycles). */
function resolveExtends(config: Hash): Hash {
  const resolved = new Map<string, Hash>();
  const resolve = (name: string, chain: string[]): Hash => {
    const done = resolved.get(name);
    if (done) return done;
    const job = config[name];
    if (!isHash(job)) throw new ConfigError(`${chain.at(-1) ?? name}: unknown keys in \`extends\` (${name})`);
    if (chain.includes(name)) throw new ConfigError(`${chain[0]}: circular dependency detected in \`extends\``);
    if (chain.length >= MAX_EXTENDS_DEPTH) throw new ConfigError(`${chain[0]}: nesting too deep in \`extends\``);
    const parents = job.extends === undefined ? [] : strings(job.extends, `${name}:extends`);
    let base: Hash = {};
    for (const parent of parents) {
      if (!isHash(config[parent])) throw new ConfigError(`${name}: unknown keys in \`extends\` (${parent})`);
      base = deepMerge(base, resolve(parent, [...chain, name]));
    }
    const { extends: _e, ...own } = job;
    const out = deepMerge(base, own);
    resolved.set(name, out);
    return out;
  };
  const out: Hash = {};
  for (const [key, value] of Object.entries(config)) out[key] = isHash(value) && !GLOBAL_KEYWORDS.has(key) ? resolve(key, []) : value;
  return out;
}

/** `!reference [job, key, …]` replaced by what it names. */
function resolveReferences(config: Hash): Hash {
  const lookup = (path: string[], depthLeft: number): unknown => {
    if (depthLeft <= 0) throw new ConfigError('!reference nesting too deep');
    let value: unknown = config;
    for (const key of path) {
      if (!isHash(value) || !(key in value)) throw new ConfigError(`!reference ["${path.join('", "')}"] could not be found`);
      value = value[key];
    }
    return walk(value, depthLeft - 1);
  };
  const walk = (value: unknown, depthLeft: number): unknown => {
    if (isReference(value)) return lookup(value[REFERENCE], depthLeft);
    if (Array.isArray(value)) return value.flatMap((v) => (isReference(v) ? [lookup(v[REFERENCE], depthLeft)].flat() : [walk(v, depthLeft)]));
    if (isHash(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v, depthLeft)]));
    return value;
  };
  return walk(config, 10) as Hash;
}

function toYaml(value: unknown): string {
  return JSON.stringify(value, null, 2);
}

export async function planPipeline(content: string, ctx: CiContext): Promise<PipelinePlan> {
  const plan: PipelinePlan = { errors: [], warnings: [], name: null, filteredByWorkflow: false, workflowVariables: [], stages: [], jobs: [], mergedYaml: '', includes: [] };
  try {
    await build(content, ctx, plan);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    plan.errors.push(error.message);
    plan.jobs = [];
  }
  return plan;
}

async function build(content: string, ctx: CiContext, plan: PipelinePlan): Promise<void> {
  const parsed = parseYaml(content, '.gitlab-ci.yml');
  const config = resolveReferences(resolveExtends(await withIncludes(parsed, ctx, plan.includes)));
  plan.mergedYaml = toYaml(config);

  const stages = config.stages ?? config.types;
  const declared = stages === undefined ? DEFAULT_STAGES : strings(stages, 'stages');
  plan.stages = ['.pre', ...declared.filter((s) => s !== '.pre' && s !== '.post'), '.post'];

  const globalVariables = variablesOf(config.variables, 'variables');
  const variables: Record<string, string> = { ...Object.fromEntries(globalVariables.map((v) => [v.key, v.value])), ...ctx.variables };

  if (config.workflow !== undefined) {
    if (!isHash(config.workflow)) throw new ConfigError('workflow config should be a hash');
    if (config.workflow.rules !== undefined) {
      const rule = firstRule(config.workflow.rules, ctx, variables, 'workflow');
      if (!rule || rule.when === 'never') {
        plan.filteredByWorkflow = true;
        return;
      }
      plan.workflowVariables = rule.variables;
      for (const v of rule.variables) variables[v.key] = v.value;
    }
    if (config.workflow.name !== undefined) {
      if (typeof config.workflow.name !== 'string' || config.workflow.name.length > 255) throw new ConfigError('workflow name is too long (maximum is 255 characters)');
      plan.name = expand(config.workflow.name, variables).trim() || null;
    }
  }

  const defaults: Hash = isHash(config.default) ? { ...config.default } : {};
  for (const key of ['image', 'services', 'before_script', 'after_script', 'cache']) if (config[key] !== undefined && defaults[key] === undefined) defaults[key] = config[key];

  const jobs: PlannedJob[] = [];
  const visible = Object.entries(config).filter(([name]) => !GLOBAL_KEYWORDS.has(name) && !name.startsWith('.'));
  for (const [name, raw] of visible) {
    if (!isHash(raw)) throw new ConfigError(`jobs:${name} config should be a hash`);
    const where = `jobs:${name}`;
    const unknown = Object.keys(raw).filter((k) => !JOB_KEYWORDS.has(k));
    if (unknown.length) throw new ConfigError(`${where} config contains unknown keys: ${unknown.join(', ')}`);
    if (raw.script === undefined && raw.trigger === undefined && raw.run === undefined) throw new ConfigError(`${where} config should implement the script:, run:, or trigger: keyword`);
    if (raw.rules !== undefined && (raw.only !== undefined || raw.except !== undefined)) throw new ConfigError(`${where} config key may not be used with \`rules\`: only, except`.replace('only, except', raw.only !== undefined ? 'only' : 'except'));
    const job: Hash = { ...Object.fromEntries(DEFAULT_KEYWORDS.filter((k) => defaults[k] !== undefined).map((k) => [k, defaults[k]])), ...raw };
    const stage = job.stage === undefined ? 'test' : String(job.stage);
    const stageIdx = plan.stages.indexOf(stage);
    if (stageIdx < 0) throw new ConfigError(`${name} job: chosen stage ${stage} does not exist; available stages are ${plan.stages.join(', ')}`);
    if (job.when !== undefined && (typeof job.when !== 'string' || !WHENS.has(job.when) || job.when === 'never')) {
      throw new ConfigError(`${where} when should be one of: on_success, on_failure, always, manual, delayed`);
    }
    const jobVariables = variablesOf(job.variables, `${where}:variables`);
    const ruleVariables = { ...variables, ...Object.fromEntries(jobVariables.map((v) => [v.key, v.value])) };

    let when = (job.when as JobWhen | undefined) ?? 'on_success';
    let allowFailure: boolean | undefined;
    let extraVariables: { key: string; value: string }[] = [];
    let startIn = job.start_in;
    if (job.rules !== undefined) {
      const rule = firstRule(job.rules, ctx, ruleVariables, where);
      if (!rule || rule.when === 'never') continue;
      if (rule.when !== undefined) when = rule.when as JobWhen;
      allowFailure = rule.allowFailure;
      extraVariables = rule.variables;
      if (rule.startIn !== undefined) startIn = rule.startIn;
    } else {
      if (job.only !== undefined && !refsPolicy(job.only, ctx, ruleVariables, `${where}:only`)) continue;
      if (job.except !== undefined && refsPolicy(job.except, ctx, ruleVariables, `${where}:except`)) continue;
      if (job.only === undefined && job.except === undefined) {
        // GitLab's default `only: [branches, tags]`.
        if (!refsPolicy(['branches', 'tags'], ctx, ruleVariables, `${where}:only`)) continue;
      }
    }

    let exitCodes: number[] | null = null;
    if (allowFailure === undefined) {
      if (typeof job.allow_failure === 'boolean') allowFailure = job.allow_failure;
      else if (isHash(job.allow_failure)) {
        exitCodes = [job.allow_failure.exit_codes].flat().map(Number);
        if (exitCodes.some((c) => !Number.isInteger(c))) throw new ConfigError(`${where}:allow_failure exit_codes should be an integer or an array of integers`);
        allowFailure = false;
      } else if (job.allow_failure !== undefined) throw new ConfigError(`${where} allow failure should be a hash or a boolean value`);
      else allowFailure = when === 'manual' && job.rules === undefined;
    }

    let startInSeconds: number | null = null;
    if (when === 'delayed') {
      if (startIn === undefined) throw new ConfigError(`${where} start in should be specified for delayed job`);
      startInSeconds = parseDuration(startIn);
      if (startInSeconds === null || startInSeconds > 7 * 86400) throw new ConfigError(`${where} start in should be a duration of at most one week`);
    }
    const timeout = job.timeout === undefined ? null : parseDuration(job.timeout);
    if (job.timeout !== undefined && timeout === null) throw new ConfigError(`${where}:timeout config should be a duration`);
    const trigger = job.trigger === undefined ? null : isHash(job.trigger) ? (job.trigger as PlannedJob['trigger']) : { project: String(job.trigger) };
    const environment = job.environment === undefined ? null : typeof job.environment === 'string' ? { name: job.environment } : isHash(job.environment) && typeof job.environment.name === 'string' ? { name: job.environment.name, ...(typeof job.environment.action === 'string' ? { action: job.environment.action } : {}) } : null;
    jobs.push({
      name,
      stage,
      stageIdx,
      when,
      allowFailure,
      allowFailureExitCodes: exitCodes,
      needs: job.needs === undefined ? null : needsOf(job.needs, where),
      script: strings(job.script, `${where}:script`),
      beforeScript: strings(job.before_script, `${where}:before_script`),
      afterScript: strings(job.after_script, `${where}:after_script`),
      image: imageOf(job.image, where),
      services: servicesOf(job.services, where),
      variables: [...globalVariables, ...jobVariables, ...extraVariables],
      tags: strings(job.tags, `${where}:tags`),
      artifacts: artifactsOf(job.artifacts, where),
      dependencies: job.dependencies === undefined ? null : strings(job.dependencies, `${where}:dependencies`),
      coverage: typeof job.coverage === 'string' ? job.coverage : null,
      retry: retryOf(job.retry, where),
      timeout,
      startIn: startInSeconds,
      environment,
      interruptible: job.interruptible === true,
      trigger,
    });
  }
  if (visible.length === 0) throw new ConfigError('jobs config should contain at least one visible job');

  // Needs: every needed job must exist in this pipeline (unless optional) and run in an earlier (or the same) stage.
  const byName = new Map(jobs.map((j) => [j.name, j]));
  for (const job of jobs) {
    if (!job.needs) continue;
    job.needs = job.needs.filter((need) => {
      const needed = byName.get(need.name);
      if (!needed) {
        if (need.optional) return false;
        throw new ConfigError(`'${job.name}' job needs '${need.name}' job, but '${need.name}' does not exist in the pipeline. This might be because of the only, except, or rules keywords. To need a job that sometimes does not exist in the pipeline, use needs:optional.`);
      }
      if (needed.stageIdx > job.stageIdx) throw new ConfigError(`${job.name} job: need ${need.name} is not defined in current or prior stages`);
      return true;
    });
    for (const dependency of job.dependencies ?? []) {
      if (!byName.has(dependency)) throw new ConfigError(`${job.name} job: undefined dependency: ${dependency}`);
    }
  }
  plan.jobs = jobs;
}
