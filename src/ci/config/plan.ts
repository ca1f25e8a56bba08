/**
 * From `.gitlab-ci.yml` text to a pipeline plan, in GitLab's order: YAML, includes, `extends`, `!reference`,
 * `.pre`/`.post`, entry validation, logical validation; then (unless static) `workflow:rules`, each job's rules or
 * only/except, and the needs of the jobs that remain.
 */
import { ComposeError, applyExtends, injectEdgeStages, resolveReferences } from './compose.js';
import { RepositoryProbe, RuleParseError } from './conditions.js';
import type { RuleSpec } from './conditions-entries.js';
import { matchingRule, mergeVariables, policyAllows, visibleVariables } from './decide.js';
import { IncludeError, IncludeExpander } from './includes.js';
import { interpolate } from './inputs.js';
import { defaultConflict, type JobSpec } from './job-entry.js';
import { Problems } from './problems.js';
import { logicalError, readRoot, type RootSpec } from './root-entry.js';
import type { CiContext, ConfigMap, PipelinePlan, PlannedJob, PlanOptions, Value } from './types.js';
import { exceedsSize, isMap } from './values.js';
import { expandNested } from './variables.js';
import { TOO_BIG, ValueBudget, emitYaml, parseYaml } from './yaml.js';

/** Values the composed configuration may hold, shared `extends` and `!reference` parts counted each time they appear. */
const MAX_COMPOSED_VALUES = 500_000;

/** A configuration that could not be built: its one error, no jobs, no merged YAML. */
export function failed(error: string): PipelinePlan {
  return { errors: [error], warnings: [], name: null, filteredByWorkflow: false, workflowVariables: [], stages: [], jobs: [], mergedYaml: null, includes: null };
}

/** A JSON value as YAML gives it: objects become hashes. */
function fromJson(value: unknown): Value {
  if (Array.isArray(value)) return value.map(fromJson);
  if (value !== null && typeof value === 'object') return new Map(Object.entries(value).map(([key, v]) => [key, fromJson(v)]));
  return value as Value;
}

/** The pipeline's inputs as the arguments of its file's `spec: inputs`; null when none were given. */
function pipelineInputs(inputs: CiContext['inputs']): ConfigMap | null {
  if (!inputs) return null;
  return new Map(Object.entries(inputs).map(([name, value]) => [name, fromJson(value)]));
}

/** The configuration GitLab validates, or the error that stopped building it. */
async function compose(content: string, ctx: CiContext, probe: RepositoryProbe): Promise<{ config: ConfigMap; expander: IncludeExpander } | { error: string }> {
  if (content.trim() === '') return { error: 'Please provide content of .gitlab-ci.yml' };
  const budget = new ValueBudget();
  const read = parseYaml(content, budget);
  if (!read.ok) return { error: read.error };
  // The pipeline's own file takes the pipeline's inputs (none: its `spec: inputs` defaults are interpolated).
  const parsed = interpolate(read.value, read.header, pipelineInputs(ctx.inputs), ctx.variables);
  if (!parsed.ok) return { error: parsed.error };
  if (!isMap(parsed.value)) return { error: 'Invalid configuration format' };
  const expander = new IncludeExpander(ctx, probe, budget);
  try {
    const included = await expander.expand(parsed.value);
    const resolved = resolveReferences(applyExtends(included));
    // Shared `!reference` and `extends` parts count each time they appear: the same bound as the files' values.
    if (exceedsSize(resolved, MAX_COMPOSED_VALUES)) return { error: TOO_BIG };
    const conflict = defaultConflict(resolved);
    if (conflict) return { error: conflict };
    return { config: injectEdgeStages(resolved), expander };
  } catch (error) {
    if (error instanceof IncludeError || error instanceof ComposeError) return { error: error.message };
    throw error;
  }
}

/** The global variables a job takes (`inherit:variables`). */
function inherited(job: JobSpec, rootVariables: [string, string][]): [string, string][] {
  const inherit = job.inheritVariables;
  return inherit === true ? rootVariables : inherit === false ? [] : rootVariables.filter(([key]) => inherit.includes(key));
}

/** A job of the plan, as its spec and (in a pipeline) the rule that matched decide. */
function planned(job: JobSpec, root: RootSpec, rootVariables: [string, string][], rule: RuleSpec | null): PlannedJob {
  const globals = inherited(job, rootVariables);
  const when = (rule?.when as PlannedJob['when'] | undefined) ?? job.when;
  return {
    name: job.name,
    stage: job.stage,
    stageIdx: root.stages.indexOf(job.stage),
    when,
    allowFailure: rule?.allowFailure ?? job.allowFailure,
    allowFailureExitCodes: job.allowFailureExitCodes,
    needs: rule?.needs ?? job.needs,
    script: job.script,
    beforeScript: job.beforeScript,
    afterScript: job.afterScript,
    image: job.image,
    services: job.services,
    variables: mergeVariables(globals, job.variables, rule?.variables ?? []).map(([key, value]) => ({ key, value })),
    tags: job.tags,
    artifacts: job.artifacts,
    cache: job.cache,
    dependencies: job.dependencies,
    coverage: job.coverage,
    retry: job.retry,
    timeout: job.timeout,
    startIn: when === 'delayed' ? (rule?.startIn ?? job.startIn) : null,
    environment: job.environment && { ...job.environment },
    release: job.release,
    interruptible: rule?.interruptible ?? job.interruptible,
    resourceGroup: job.resourceGroup,
    idTokens: job.idTokens,
    hooks: job.hooks,
    secrets: job.secrets,
    manualConfirmation: job.manualConfirmation,
    pages: job.pages,
    publish: job.publish,
    identity: job.identity,
    dastConfiguration: job.dastConfiguration,
    trigger: job.trigger,
    only: job.only,
    except: job.except,
  };
}

/** GitLab's seeding errors for needs on jobs the rules left out (joined in one message, as GitLab joins them). */
function missingNeeds(jobs: PlannedJob[]): { jobs: PlannedJob[]; error: string | null } {
  const present = new Set(jobs.map((job) => job.name));
  const errors: string[] = [];
  const kept = jobs.map((job) => {
    if (!job.needs) return job;
    for (const need of job.needs) {
      if (!present.has(need.name) && !need.optional) {
        errors.push(
          `'${job.name}' job needs '${need.name}' job, but '${need.name}' does not exist in the pipeline. This might be because of the only, except, or rules keywords. To need a job that sometimes does not exist in the pipeline, use needs:optional.`,
        );
      }
    }
    return { ...job, needs: job.needs.filter((need) => present.has(need.name)) };
  });
  return { jobs: kept, error: errors.length ? errors.join('\n') : null };
}

/** A rule that cannot be evaluated, as GitLab's seeding reports it for a job (`Failed to parse rule for <job>: …`). */
const parseError = (job: string | null) => (error: unknown): RuleParseError => {
  if (!(error instanceof RuleParseError)) throw error;
  return job === null ? error : new RuleParseError(`Failed to parse rule for ${job}: ${error.message}`);
};

export async function planPipeline(content: string, ctx: CiContext, options: PlanOptions = {}): Promise<PipelinePlan> {
  const probe = new RepositoryProbe(ctx);
  const composed = await compose(content, ctx, probe);
  if ('error' in composed) return failed(composed.error);
  const { config, expander } = composed;
  const p = new Problems();
  const root = readRoot(config, p);
  const base = { warnings: p.warnings, mergedYaml: emitYaml(config), includes: expander.includes };
  const invalid = (errors: string[]): PipelinePlan => ({ ...base, errors, name: null, filteredByWorkflow: false, workflowVariables: [], stages: root?.stages ?? [], jobs: [] });
  if (!root) return invalid(p.errors);
  const logical = logicalError(root);
  if (logical) return invalid([logical]);

  if (options.static) {
    const jobs = root.jobs.map((job) => planned(job, root, root.variables, null));
    return { ...base, errors: [], name: root.workflow.name, filteredByWorkflow: false, workflowVariables: [], autoCancel: root.workflow.autoCancel, stages: root.stages, jobs };
  }

  let workflowVariables: [string, string][] = [];
  let filteredByWorkflow = false;
  let autoCancel = root.workflow.autoCancel;
  if (root.workflow.rules) {
    const rule = await matchingRule(root.workflow.rules, visibleVariables(ctx, root.variables), ctx, probe).catch(parseError(null));
    if (rule instanceof RuleParseError) return { ...base, errors: [rule.message], name: null, filteredByWorkflow: false, workflowVariables: [], stages: root.stages, jobs: [] };
    filteredByWorkflow = !rule || rule.when === 'never';
    workflowVariables = rule?.variables ?? [];
    // Chain::Metadata: the matching rule's auto_cancel settings win over the workflow's, each on its own.
    if (rule?.autoCancel) autoCancel = { ...autoCancel, ...rule.autoCancel };
  }
  const rootVariables = mergeVariables(root.variables, workflowVariables);
  const nameVariables = visibleVariables(ctx, rootVariables);
  const name = root.workflow.name === null ? null : expandNested(root.workflow.name, nameVariables);
  const header = { ...base, name, filteredByWorkflow, workflowVariables: workflowVariables.map(([key, value]) => ({ key, value })), autoCancel, stages: root.stages };
  if (filteredByWorkflow) return { ...header, errors: [], jobs: [] };

  const jobs: PlannedJob[] = [];
  const ruleErrors: string[] = [];
  for (const job of root.jobs) {
    const variables = visibleVariables(ctx, mergeVariables(inherited(job, rootVariables), job.variables));
    if (job.rules) {
      const rule = await matchingRule(job.rules, variables, ctx, probe).catch(parseError(job.name));
      if (rule instanceof RuleParseError) ruleErrors.push(rule.message);
      else if (rule && rule.when !== 'never') jobs.push(planned(job, root, rootVariables, rule));
    } else if (policyAllows(job.only, job.except, variables, ctx)) {
      jobs.push(planned(job, root, rootVariables, null));
    }
  }
  if (ruleErrors.length) return { ...header, errors: ruleErrors, jobs: [] };
  const checked = missingNeeds(jobs);
  if (checked.error) return { ...header, errors: [checked.error], jobs: [] };
  // Jobs of `.pre` and `.post` alone are not a pipeline (GitLab's Chain::Populate): none is created.
  const complete = checked.jobs.some((job) => job.stage !== '.pre' && job.stage !== '.post');
  return { ...header, errors: [], jobs: complete ? checked.jobs : [] };
}
