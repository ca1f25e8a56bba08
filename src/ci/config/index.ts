/**
 * The `.gitlab-ci.yml` engine: a configuration and its context in, GitLab's pipeline plan out (jobs, stages,
 * errors and warnings in GitLab's words, the merged YAML). Pure: no database, no HTTP; the repository is read
 * through the context.
 */
export { planPipeline } from './thread.js';
export { evaluateExpression } from './expression.js';
export { parseDuration } from './durations.js';
export type {
  CiContext, IncludedProject, PipelinePlan, PlannedArtifacts, PlannedInclude, PlannedJob, PlannedNeed, PlannedService, PlanOptions, PolicyValue, JobWhen,
} from './types.js';
