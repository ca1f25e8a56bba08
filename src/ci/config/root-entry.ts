/**
 * The whole configuration as GitLab's Entry::Root reads it (global keywords, `workflow`, jobs: every other key),
 * then its logical checks (GitLab's YamlProcessor: stages, dependencies, needs, `on_stop`, needs cycles), which
 * stop at the first problem as GitLab's do.
 */
import { readVariables } from './entries.js';
import { readAutoCancel, readRules, type AutoCancel, type NeedSpec, type RuleSpec } from './conditions-entries.js';
import { jobType, readDefaults, readJob, type JobSpec } from './job-entry.js';
import { Problems, unknownKeys } from './problems.js';
import type { ConfigMap, Value } from './types.js';
import { flattenStrings, isBlank, isMap, isString } from './values.js';

/** Keys of the root that are never jobs (GitLab's reserved entries). */
const RESERVED = ['include', 'before_script', 'image', 'services', 'after_script', 'variables', 'stages', 'cache'];
/** Keys of the root that are jobs only when they look like one. */
const GLOBAL = ['default', 'workflow'];
const DEFAULT_STAGES = ['build', 'test', 'deploy'];

interface Workflow {
  name: string | null;
  rules: RuleSpec[] | null;
  autoCancel: AutoCancel;
}

export interface RootSpec {
  stages: string[];
  variables: [string, string][];
  workflow: Workflow;
  /** Visible jobs in configuration order, `parallel:` jobs as their instances. */
  jobs: JobSpec[];
}

function readStages(config: ConfigMap, p: Problems): string[] {
  if (!config.has('stages')) return ['.pre', ...DEFAULT_STAGES, '.post'];
  const stages = flattenStrings(config.get('stages') ?? null, 10);
  if (!stages || !Array.isArray(config.get('stages'))) {
    p.add('stages', 'config should be an array of strings or a nested array of strings up to 10 levels deep');
    return ['.pre', ...DEFAULT_STAGES, '.post'];
  }
  return stages.length === 0 ? ['.pre', ...DEFAULT_STAGES, '.post'] : stages;
}

function readWorkflow(value: Value | undefined, p: Problems): Workflow {
  const workflow: Workflow = { name: null, rules: null, autoCancel: {} };
  if (value === undefined || value === null) return workflow;
  if (!isMap(value)) {
    p.add('workflow', 'config should be a hash');
    return workflow;
  }
  unknownKeys(p, 'workflow', value.keys(), ['rules', 'name', 'auto_cancel']);
  const name = value.get('name') ?? null;
  if (name !== null) {
    if (!isString(name)) p.add('workflow', 'name should be a string');
    else if (name.length > 255) p.add('workflow', 'name is too long (maximum is 255 characters)');
    else workflow.name = name;
  }
  if (value.has('auto_cancel')) workflow.autoCancel = readAutoCancel(value.get('auto_cancel') ?? null, 'workflow:auto_cancel', p) ?? {};
  if (value.has('rules') && value.get('rules') !== null) workflow.rules = readRules(value.get('rules')!, 'workflow', 'workflow', p);
  return workflow;
}

/** GitLab's Interpolation::MatrixInterpolator expression. */
const MATRIX_EXPRESSION = /\$\[\[\s*matrix\.([a-zA-Z0-9_-]+)\s*\]\]/g;

/**
 * `needs: [{job, parallel: {matrix}}]` as the jobs they name (`build: [linux, amd64]`), each value's `$[[ matrix.X ]]`
 * replaced by the needing instance's own matrix value (GitLab's MatrixInterpolator, with its error for an unknown X).
 */
function selectMatrix(list: NeedSpec[] | undefined | null, own: ReadonlyMap<string, string>, errors: Set<string>): NeedSpec[] | undefined {
  return list?.flatMap(({ matrix, ...need }) => {
    if (!matrix) return [need];
    const value = (text: string) =>
      text.replace(MATRIX_EXPRESSION, (whole, name: string) => {
        if (own.has(name)) return own.get(name)!;
        errors.add(`'${name}' does not exist in matrix configuration`);
        return whole;
      });
    return matrix.map((combination) => ({ ...need, name: `${need.name}: [${combination.map(([, v]) => value(v)).join(', ')}]` }));
  });
}

/** Each visible job as its `parallel:` instances (named `job 1/3`, `job: [a, b]`), with the matrix's variables. */
function instances(spec: JobSpec, p: Problems): JobSpec[] {
  const each = spec.parallel ?? [{ name: spec.name, variables: [] }];
  const errors = new Set<string>();
  const out = each.map((instance) => {
    const own = new Map(instance.variables);
    return {
      ...spec,
      name: instance.name,
      variables: [...spec.variables, ...instance.variables],
      parallel: null,
      needs: selectMatrix(spec.needs, own, errors) ?? null,
      rules: spec.rules?.map((rule) => (rule.needs ? { ...rule, needs: selectMatrix(rule.needs, own, errors) } : rule)) ?? null,
    };
  });
  for (const error of errors) p.raw(`${spec.name} job: ${error}`);
  return out;
}

/** Needs and dependencies naming a parallel job name all its instances (GitLab's Config::Normalizer). */
function expandParallelNames(jobs: JobSpec[], specs: JobSpec[]): JobSpec[] {
  const names = new Map(specs.filter((s) => s.parallel).map((s) => [s.name, s.parallel!.map((i) => i.name)]));
  const needs = (list: NeedSpec[] | undefined) => list?.flatMap((need) => (names.get(need.name) ?? [need.name]).map((name) => ({ ...need, name })));
  return jobs.map((job) => ({
    ...job,
    needs: needs(job.needs ?? undefined) ?? null,
    dependencies: job.dependencies?.flatMap((d) => names.get(d) ?? [d]) ?? null,
    rules: job.rules?.map((rule) => (rule.needs ? { ...rule, needs: needs(rule.needs) } : rule)) ?? null,
  }));
}

/** Validates the configuration: errors in `p`, and the jobs, stages, variables and workflow when there are none. */
export function readRoot(config: ConfigMap, p: Problems): RootSpec | null {
  const defaults = readDefaults(config, p);
  const variables = config.has('variables') && config.get('variables') !== null ? (readVariables(config.get('variables')!, 'variables', p, ['value', 'description', 'expand', 'options']) ?? []) : [];
  const stages = readStages(config, p);
  const workflowIsJob = jobType('workflow', config.get('workflow') ?? null) !== null;
  const workflow = readWorkflow(workflowIsJob ? undefined : config.get('workflow'), p);

  const specs: JobSpec[] = [];
  let visible = false;
  const context = { defaults, workflowHasRules: workflow.rules !== null };
  for (const [name, value] of config) {
    if (RESERVED.includes(name)) continue;
    const type = jobType(name, value);
    if (GLOBAL.includes(name) && (type === null || type === 'hidden')) continue;
    if (type === null) p.add('jobs', `${name} config should implement the script:, run:, or trigger: keyword`);
    else if (type === 'hidden') {
      if (isBlank(value)) p.add(`jobs:${name}`, "config can't be blank");
    } else {
      visible = true;
      const spec = readJob(name, value as ConfigMap, type === 'bridge', context, p);
      if (spec) specs.push(spec);
    }
  }
  if (!visible) p.add('jobs', 'config should contain at least one visible job');
  if (p.errors.length) return null;
  const all = specs.flatMap((spec) => instances(spec, p));
  if (p.errors.length) return null;
  const jobs = expandParallelNames(all, specs);
  return { stages, variables, workflow, jobs };
}

class LogicalError extends Error {}

function checkDependency(jobs: Map<string, JobSpec>, stages: string[], job: JobSpec, dependency: string, type: 'dependency' | 'need', optional: boolean): void {
  const other = jobs.get(dependency);
  if (!other) {
    if (optional) return;
    throw new LogicalError(`${job.name} job: undefined ${type}: ${dependency}`);
  }
  if (type === 'need' && dependency.length > 255) throw new LogicalError(`${job.name} job: need \`${dependency}\` name is too long (maximum is 255 characters)`);
  const index = stages.indexOf(other.stage);
  if (index < 0 || index > stages.indexOf(job.stage)) throw new LogicalError(`${job.name} job: ${type} ${dependency} is not defined in current or prior stages`);
}

function checkNeeds(jobs: Map<string, JobSpec>, stages: string[], job: JobSpec, needs: NeedSpec[] | undefined | null): void {
  if (!needs) return;
  for (const need of needs) checkDependency(jobs, stages, job, need.name, 'need', need.optional);
  const seen = new Set<string>();
  const duplicated = [...new Set(needs.map((n) => n.name).filter((name) => seen.has(name) || !seen.add(name)))];
  if (duplicated.length) throw new LogicalError(`${job.name} has the following needs duplicated: ${duplicated.join(', ')}.`);
}

function checkOnStop(jobs: Map<string, JobSpec>, job: JobSpec): void {
  const onStop = job.environment?.onStop;
  if (!onStop) return;
  const stop = jobs.get(onStop);
  if (!stop) throw new LogicalError(`${job.name} job: on_stop job ${onStop} is not defined`);
  if (!stop.environment) throw new LogicalError(`${job.name} job: on_stop job ${onStop} does not have environment defined`);
  if (stop.environment.name !== job.environment!.name) throw new LogicalError(`${job.name} job: on_stop job ${onStop} have different environment name`);
  if (stop.environment.action !== 'stop') throw new LogicalError(`${job.name} job: on_stop job ${onStop} needs to have action stop defined`);
}

/** A cycle among needs, as Ruby's TSort reports it, or null. */
function needsCycle(jobs: JobSpec[]): string | null {
  const edges = new Map(jobs.map((job) => [job.name, (job.needs ?? []).map((n) => n.name)]));
  for (const [name, needs] of edges) if (needs.includes(name)) return `self-dependency: ${name}`;
  // Tarjan's strongly connected components, iteratively: any component of two or more jobs is a cycle.
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  for (const start of edges.keys()) {
    if (index.has(start)) continue;
    const work: [string, number][] = [[start, 0]];
    index.set(start, counter);
    low.set(start, counter++);
    stack.push(start);
    onStack.add(start);
    while (work.length) {
      const frame = work[work.length - 1];
      const [node, i] = frame;
      const next = (edges.get(node) ?? []).filter((n) => edges.has(n));
      if (i < next.length) {
        frame[1]++;
        const child = next[i];
        if (!index.has(child)) {
          index.set(child, counter);
          low.set(child, counter++);
          stack.push(child);
          onStack.add(child);
          work.push([child, 0]);
        } else if (onStack.has(child)) low.set(node, Math.min(low.get(node)!, index.get(child)!));
        continue;
      }
      work.pop();
      if (work.length) {
        const parent = work[work.length - 1][0];
        low.set(parent, Math.min(low.get(parent)!, low.get(node)!));
      }
      if (low.get(node) === index.get(node)) {
        const component: string[] = [];
        let member: string;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          component.push(member);
        } while (member !== node);
        if (component.length > 1) return `topological sort failed: [${component.reverse().map((c) => JSON.stringify(c)).join(', ')}]`;
      }
    }
  }
  return null;
}

/** GitLab's logical validation of a valid configuration: the first problem, or null. */
export function logicalError(root: RootSpec): string | null {
  const jobs = new Map(root.jobs.map((job) => [job.name, job]));
  try {
    for (const job of root.jobs) {
      if (!root.stages.includes(job.stage)) throw new LogicalError(`${job.name} job: chosen stage ${job.stage} does not exist; available stages are ${root.stages.join(', ')}`);
      for (const dependency of job.dependencies ?? []) checkDependency(jobs, root.stages, job, dependency, 'dependency', false);
      checkNeeds(jobs, root.stages, job, job.needs);
      for (const rule of job.rules ?? []) checkNeeds(jobs, root.stages, job, rule.needs);
      checkOnStop(jobs, job);
    }
  } catch (error) {
    if (error instanceof LogicalError) return error.message;
    throw error;
  }
  const cycle = needsCycle(root.jobs);
  return cycle ? `The pipeline has circular dependencies: ${cycle}` : null;
}
