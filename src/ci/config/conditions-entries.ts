/**
 * Validators of the keywords that decide whether and when a job runs: `rules` (of jobs, `workflow` and `include`),
 * `needs`, `only`/`except` and `trigger`, returning what the planner evaluates, with GitLab's errors.
 */
import { LIMITS, parseDuration } from './durations.js';
import { isValidExpression } from './expression.js';
import { Problems, unknownKeys } from './problems.js';
import { isRegexpLiteral, regexpLiteral } from './regexp.js';
import type { Clauses } from './conditions.js';
import type { PlannedJob, PlannedNeed, PolicyValue, Value } from './types.js';
import { readVariables } from './entries.js';
import { readParallel } from './parallel.js';
import { isBlank, isBoolean, isMap, isString, isStringArray, toPlain } from './values.js';

/**
 * A need as the plan carries it; `matrix`: the `parallel: matrix:` combinations it selects (values as written, with
 * their `$[[ matrix.X ]]` expressions), until the job's instances name the jobs they need.
 */
export type NeedSpec = PlannedNeed & { matrix?: [string, string][][] };

export interface RuleSpec extends Clauses {
  when?: string;
  startIn?: number;
  allowFailure?: boolean;
  interruptible?: boolean;
  variables?: [string, string][];
  needs?: NeedSpec[];
  /** A workflow rule's `auto_cancel:` (GitLab 16.9+), over the workflow's own when the rule matches. */
  autoCancel?: AutoCancel;
}

/** `workflow:auto_cancel` (GitLab's Ci::PipelineMetadata auto_cancel_on_new_commit / auto_cancel_on_job_failure). */
export interface AutoCancel {
  onNewCommit?: string;
  onJobFailure?: string;
}

/** Ci::PipelineMetadata's enum values, in their order (the messages list them so). */
export const AUTO_CANCEL_ON_NEW_COMMIT = ['conservative', 'interruptible', 'none'] as const;
export const AUTO_CANCEL_ON_JOB_FAILURE = ['none', 'all'] as const;

/** GitLab's Entry::AutoCancel: a hash of `on_new_commit` and `on_job_failure`, each one of its enum's values. */
export function readAutoCancel(value: Value, location: string, p: Problems): AutoCancel | null {
  if (value === null) return {};
  if (!isMap(value)) {
    p.add(location, 'config should be a hash');
    return null;
  }
  const out: AutoCancel = {};
  const ok = p.clean(() => {
    unknownKeys(p, location, value.keys(), ['on_new_commit', 'on_job_failure']);
    const fields = [
      ['on_new_commit', 'on new commit', AUTO_CANCEL_ON_NEW_COMMIT, 'onNewCommit'],
      ['on_job_failure', 'on job failure', AUTO_CANCEL_ON_JOB_FAILURE, 'onJobFailure'],
    ] as const;
    for (const [key, words, allowed, field] of fields) {
      const given = value.get(key) ?? null;
      if (given === null) continue;
      // Both validators run (ActiveModel): a non-string is neither a string nor one of the values.
      if (!isString(given)) p.add(location, `${words} should be a string`);
      if (!isString(given) || !(allowed as readonly string[]).includes(given)) p.add(location, `${words} must be one of: ${allowed.join(', ')}`);
      else out[field] = given;
    }
  });
  return ok ? out : null;
}

type RuleKind = 'job' | 'workflow' | 'include';

const RULE_KEYS: Readonly<Record<RuleKind, readonly string[]>> = {
  job: ['if', 'changes', 'exists', 'when', 'start_in', 'allow_failure', 'variables', 'needs', 'interruptible'],
  workflow: ['if', 'changes', 'exists', 'when', 'variables', 'auto_cancel'],
  include: ['if', 'exists', 'changes', 'when'],
};
const RULE_WHEN: Readonly<Record<RuleKind, readonly string[]>> = {
  job: ['on_success', 'on_failure', 'always', 'never', 'manual', 'delayed'],
  workflow: ['always', 'never'],
  include: ['never', 'always'],
};

/** Most paths a `changes:` or `exists:` clause lists (GitLab's validation). */
const MAX_PATHS = 50;

/** Rule nesting GitLab flattens (`rules: [[…], …]`, as `!reference` produces). */
const MAX_RULE_NESTING = 10;

function flattenHashes(value: Value, depth: number): Value[] | null {
  if (!Array.isArray(value)) return null;
  const out: Value[] = [];
  for (const item of value) {
    if (isMap(item)) out.push(item);
    else if (Array.isArray(item) && depth > 0) {
      const inner = flattenHashes(item, depth - 1);
      if (!inner) return null;
      out.push(...inner);
    } else return null;
  }
  return out;
}

/** `changes:`/`exists:` of a rule: an array of paths, or `{ paths: [...] }` with its extra keys. */
function readPaths(value: Value, location: string, p: Problems, extraKeys: readonly string[]): string[] | null {
  if (Array.isArray(value)) {
    if (!isStringArray(value)) p.add(location, 'config should be an array of strings');
    else if (value.length > MAX_PATHS) p.add(location, `config has too many entries (maximum ${MAX_PATHS})`);
    else return value;
    return null;
  }
  if (!isMap(value)) {
    p.raw(`${location} should be an array or a hash`);
    return null;
  }
  const paths = value.get('paths');
  const ok = p.clean(() => {
    unknownKeys(p, location, value.keys(), ['paths', ...extraKeys]);
    if (paths === undefined) p.add(location, 'config missing required keys: paths');
    else if (!isStringArray(paths)) p.add(location, 'paths should be an array of strings');
    else if (paths.length > MAX_PATHS) p.add(location, `paths has too many entries (maximum ${MAX_PATHS})`);
  });
  return ok ? (paths as string[]) : null;
}

function readRule(value: Value, location: string, kind: RuleKind, p: Problems): RuleSpec | null {
  if (isBlank(value)) {
    p.add(location, "config can't be blank");
    return null;
  }
  if (!isMap(value)) {
    p.add(location, 'config should be a hash');
    return null;
  }
  const rule: RuleSpec = {};
  const ok = p.clean(() => {
    unknownKeys(p, location, value.keys(), RULE_KEYS[kind]);
    const condition = value.get('if') ?? null;
    if (condition !== null) {
      if (isValidExpression(condition)) rule.if = condition as string;
      else p.add(location, 'if invalid expression syntax');
    }
    const when = value.get('when') ?? null;
    if (when !== null) {
      if (isString(when) && RULE_WHEN[kind].includes(when)) rule.when = when;
      else p.add(location, `when unknown value: ${String(when)}`);
    }
    const startIn = value.get('start_in') ?? null;
    if (when === 'delayed') {
      const seconds = parseDuration(startIn);
      if (isBlank(startIn)) p.add(location, "start_in can't be blank");
      else if (seconds === null) p.add(location, 'start_in should be a duration');
      else if (seconds > LIMITS.week) p.add(location, 'start_in should not exceed the limit');
      else rule.startIn = seconds;
    } else if (value.has('start_in')) p.add(location, 'config contains disallowed keys: start_in');
    for (const key of ['allow_failure', 'interruptible'] as const) {
      const flag = value.get(key) ?? null;
      if (flag === null) continue;
      if (!isBoolean(flag)) p.add(location, `${key} should be a boolean value`);
      else if (key === 'allow_failure') rule.allowFailure = flag;
      else rule.interruptible = flag;
    }
    if (value.has('changes')) rule.changes = readPaths(value.get('changes') ?? null, `${location}:changes`, p, ['compare_to']) ?? undefined;
    if (value.has('exists')) {
      const exists = value.get('exists') ?? null;
      rule.exists = readPaths(exists, `${location}:exists`, p, ['project', 'ref']) ?? undefined;
      // `exists: {paths, project, ref}`: files of another project, at its default branch or `ref`.
      if (isMap(exists)) {
        for (const key of ['project', 'ref'] as const) {
          const given = exists.get(key) ?? null;
          if (given !== null && !isString(given)) p.add(`${location}:exists`, `${key} should be a string`);
        }
        const project = exists.get('project');
        const ref = exists.get('ref');
        if (isString(project)) rule.existsProject = project;
        if (isString(ref)) rule.existsRef = ref;
        if (!isString(project) && isString(ref)) p.add(`${location}:exists`, 'ref requires project');
      }
    }
    if (value.has('variables')) rule.variables = readVariables(value.get('variables') ?? null, `${location}:variables`, p, []) ?? undefined;
    if (value.has('needs')) rule.needs = readNeeds(value.get('needs') ?? null, location, p)?.jobs;
    if (kind === 'workflow' && value.has('auto_cancel')) rule.autoCancel = readAutoCancel(value.get('auto_cancel') ?? null, `${location}:auto_cancel`, p) ?? undefined;
  });
  return ok ? rule : null;
}

/** A `rules:` list (nested lists flattened), or null with errors. `location` is the entry owning the rules. */
export function readRules(value: Value, location: string, kind: RuleKind, p: Problems): RuleSpec[] | null {
  const rules = flattenHashes(value, MAX_RULE_NESTING);
  if (!rules) {
    p.add(location, 'rules should be an array containing hashes and arrays of hashes');
    return null;
  }
  if (rules.length === 0) {
    p.add(`${location}:rules`, "config can't be blank");
    return null;
  }
  const out: RuleSpec[] = [];
  for (const rule of rules) {
    const read = readRule(rule, `${location}:rules:rule`, kind, p);
    if (read) out.push(read);
  }
  return out.length === rules.length ? out : null;
}

/** `needs:` of a job or rule: jobs (strings or `{ job, artifacts, optional }`), and a bridge's `{ pipeline }`. */
export function readNeeds(value: Value, location: string, p: Problems): { jobs: NeedSpec[]; pipeline: string | null } | null {
  const loc = `${location}:needs`;
  if (!Array.isArray(value) && !isMap(value)) {
    p.add(loc, 'config can only be a hash or an array');
    return null;
  }
  const jobs: NeedSpec[] = [];
  let pipeline: string | null = null;
  const ok = p.clean(() => {
    // A list in the list (from `!reference`) is flattened, as GitLab's Entry::Needs does.
    for (const need of Array.isArray(value) ? value.flat(Infinity as 1) : [value]) {
      const needLoc = `${loc}:need`;
      if (isString(need)) {
        if (need === '') p.add(needLoc, "config can't be blank");
        else jobs.push({ name: need, artifacts: true, optional: false });
      } else if (isMap(need) && need.has('job')) {
        unknownKeys(p, needLoc, need.keys(), ['job', 'artifacts', 'optional', 'parallel', 'project', 'ref', 'pipeline']);
        const job = need.get('job');
        const artifacts = need.get('artifacts') ?? null;
        const optional = need.get('optional') ?? null;
        if (isBlank(job)) p.add(needLoc, "job can't be blank");
        else if (!isString(job)) p.add(needLoc, 'job should be a string');
        if (artifacts !== null && !isBoolean(artifacts)) p.add(needLoc, 'artifacts should be a boolean value');
        if (optional !== null && !isBoolean(optional)) p.add(needLoc, 'optional should be a boolean value');
        // `project:` (another project's job) and `pipeline:` (another pipeline's) needs are not jobs of this pipeline.
        const selected = isString(job) && need.has('parallel') ? readParallel(need.get('parallel') ?? null, job, `${needLoc}:parallel`, p) : null;
        const matrix = selected?.map((instance) => instance.variables);
        if (isString(job) && !need.has('project') && !need.has('pipeline')) jobs.push({ name: job, artifacts: artifacts !== false, optional: optional === true, ...(matrix ? { matrix } : {}) });
      } else if (isMap(need) && isString(need.get('pipeline'))) {
        pipeline = need.get('pipeline') as string;
      } else {
        p.raw(`${needLoc} has an unsupported type`);
      }
    }
  });
  return ok ? { jobs, pipeline } : null;
}

const POLICY_KEYS = ['refs', 'kubernetes', 'variables', 'changes'];

function validRefs(refs: Value): refs is string[] {
  return isStringArray(refs) && refs.every((ref) => !isRegexpLiteral(ref) || regexpLiteral(ref) !== null);
}

/** `only:`/`except:`: an array of refs, or `{ refs, variables, changes, kubernetes }`. */
export function readPolicy(value: Value, location: string, p: Problems): PolicyValue | null {
  if (Array.isArray(value)) {
    if (validRefs(value)) return { refs: value };
    p.add(location, 'config should be an array of strings or regular expressions using re2 syntax');
    return null;
  }
  if (!isMap(value)) {
    p.raw(`${location} has to be either an array of conditions or a hash`);
    return null;
  }
  const policy: PolicyValue = {};
  const ok = p.clean(() => {
    if (value.size === 0) p.add(location, "config can't be blank");
    unknownKeys(p, location, value.keys(), POLICY_KEYS);
    const refs = value.get('refs');
    if (refs !== undefined) {
      if (validRefs(refs)) policy.refs = refs;
      else p.add(location, 'refs should be an array of strings or regular expressions using re2 syntax');
    }
    const variables = value.get('variables');
    if (variables !== undefined) {
      if (isStringArray(variables) && variables.every(isValidExpression)) policy.variables = variables;
      else p.add(`${location}:variables`, 'config should be an array of valid expressions');
    }
    const changes = value.get('changes');
    if (changes !== undefined) {
      const paths = isMap(changes) ? changes.get('paths') : changes;
      if (isStringArray(paths)) policy.changes = paths;
      else p.add(`${location}:changes`, 'config should be an array of strings');
    }
    const kubernetes = value.get('kubernetes');
    if (kubernetes !== undefined) {
      if (kubernetes === 'active') policy.kubernetes = kubernetes;
      else p.add(location, `kubernetes unknown value: ${String(kubernetes)}`);
    }
  });
  return ok ? policy : null;
}

type TriggerSpec = NonNullable<PlannedJob['trigger']>;

/** `trigger:` of a bridge: a project path, `{ project, branch, strategy, forward }` or `{ include, strategy, forward }`. */
export function readTrigger(value: Value, location: string, p: Problems): TriggerSpec | null {
  if (isString(value)) {
    if (value === '') p.add(location, "config can't be blank");
    return value === '' ? null : { project: value };
  }
  if (!isMap(value)) {
    p.raw(`${location} has to be either a string or a hash`);
    return null;
  }
  const include = value.has('include');
  const trigger: TriggerSpec = {};
  const ok = p.clean(() => {
    unknownKeys(p, location, value.keys(), include ? ['strategy', 'include', 'forward'] : ['project', 'branch', 'strategy', 'forward']);
    const strategy = value.get('strategy') ?? null;
    if (strategy !== null) {
      if (strategy === 'depend' || strategy === 'mirror') trigger.strategy = strategy;
      else p.add(location, 'strategy should be depend or mirror');
    }
    const forward = value.get('forward') ?? null;
    if (forward !== null) {
      if (!isMap(forward)) p.add(`${location}:forward`, 'config should be a hash');
      else {
        unknownKeys(p, `${location}:forward`, forward.keys(), ['yaml_variables', 'pipeline_variables']);
        for (const key of ['yaml_variables', 'pipeline_variables'] as const) {
          const flag = forward.get(key) ?? null;
          if (flag === null) continue;
          if (typeof flag !== 'boolean') p.add(`${location}:forward`, `${key} should be a boolean value`);
          else (trigger.forward ??= {})[key] = flag;
        }
      }
    }
    if (include) trigger.include = toPlain(value.get('include') ?? null);
    else {
      const project = value.get('project');
      const branch = value.get('branch') ?? null;
      if (project === undefined) p.raw('config must specify either project or include');
      else if (!isString(project) || project === '') p.add(location, "project can't be blank");
      else trigger.project = project;
      if (branch !== null && !isString(branch)) p.add(location, 'branch should be a string');
      else if (isString(branch)) trigger.branch = branch;
    }
  });
  return ok ? trigger : null;
}
