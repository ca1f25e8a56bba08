/**
 * A project's CI/CD settings that `POST /projects` and `PUT /projects/:id` take (GitLab's build_timeout,
 * public_builds as `public_jobs`, and ci_cd_settings.default_git_depth as `ci_default_git_depth`,
 * auto_cancel_pending_pipelines, restrict_user_defined_variables with ci_pipeline_variables_minimum_override_role,
 * ci_forward_deployment_enabled with ci_forward_deployment_rollback_allowed, ci_allow_fork_pipelines_to_run_in_parent_project, and the merge checks only_allow_merge_if_pipeline_succeeds, allow_merge_on_skipped_pipeline and
 * only_allow_merge_if_all_discussions_are_resolved; merge_pipelines_enabled, merge_trains_enabled and merge_trains_skip_train_allowed, GitLab's ci_cd_settings;
 * ci_separated_caches, group_runners_enabled, build_git_strategy as build_allow_git_fetch; keep_latest_artifact, kept in
 * project_ci_cd_settings by the job token scope module), GitLab's validations of them, and what storing them writes.
 */
import type { Prisma } from '../../db/database.js';
import { invalidArgument } from '../../errors.js';

export interface ProjectCiSettingsInput {
  /** Seconds a job may run unless it sets its own timeout. */
  buildTimeout?: number | null;
  /** Whether those who see the project but are not Reporters see its jobs and their logs. */
  publicJobs?: boolean | null;
  /** Commits a job's clone fetches; 0: all. */
  ciDefaultGitDepth?: number | null;
  /** `enabled` or `disabled`: whether a new pipeline cancels its ref's older redundant ones. */
  autoCancelPendingPipelines?: string | null;
  /** Whether passing pipeline variables needs `ciPipelineVariablesMinimumOverrideRole`. */
  restrictUserDefinedVariables?: boolean | null;
  /** `developer`, `maintainer`, `owner` or `no_one_allowed`. */
  ciPipelineVariablesMinimumOverrideRole?: string | null;
  /** Whether an older pipeline's deployment job is dropped once a newer deployment to its environment succeeded. */
  ciForwardDeploymentEnabled?: boolean | null;
  /** Whether, with forward deployment on, a finished older deployment job may be retried (a rollback). */
  ciForwardDeploymentRollbackAllowed?: boolean | null;
  /** Whether merge requests from forks may run their pipelines in this project (MergeRequests::CreatePipelineService). */
  ciAllowForkPipelinesToRunInParentProject?: boolean | null;
  /** Merge checks of its merge requests (GitLab's only_allow_merge_if_pipeline_succeeds and companions). */
  onlyAllowMergeIfPipelineSucceeds?: boolean | null;
  allowMergeOnSkippedPipeline?: boolean | null;
  onlyAllowMergeIfAllDiscussionsAreResolved?: boolean | null;
  /** Merged results pipelines: merge request pipelines run on the merge ref's commit. */
  mergePipelinesEnabled?: boolean | null;
  /** Merge trains (in effect only with merged results pipelines), and whether a merge may skip the train. */
  mergeTrainsEnabled?: boolean | null;
  mergeTrainsSkipTrainAllowed?: boolean | null;
  /** Whether cache keys of protected and unprotected refs get `-protected` / `-non_protected` suffixes. */
  ciSeparatedCaches?: boolean | null;
  /** Whether the runners of the project's group (and its ancestors) take its jobs. */
  groupRunnersEnabled?: boolean | null;
  /** `fetch` or `clone`: how runners get the sources unless the job's `GIT_STRATEGY` says. */
  buildGitStrategy?: string | null;
  /** Whether the artifacts of each ref's latest successful pipeline outlive their expiry (project_ci_cd_settings). */
  keepLatestArtifact?: boolean | null;
}

export const CI_SETTINGS_ARGUMENTS = [
  'buildTimeout',
  'publicJobs',
  'ciDefaultGitDepth',
  'autoCancelPendingPipelines',
  'restrictUserDefinedVariables',
  'ciPipelineVariablesMinimumOverrideRole',
  'ciForwardDeploymentEnabled',
  'ciForwardDeploymentRollbackAllowed',
  'ciAllowForkPipelinesToRunInParentProject',
  'onlyAllowMergeIfPipelineSucceeds',
  'allowMergeOnSkippedPipeline',
  'onlyAllowMergeIfAllDiscussionsAreResolved',
  'mergePipelinesEnabled',
  'mergeTrainsEnabled',
  'mergeTrainsSkipTrainAllowed',
  'ciSeparatedCaches',
  'groupRunnersEnabled',
  'buildGitStrategy',
  'keepLatestArtifact',
] as const;

const AUTO_CANCEL_VALUES = ['enabled', 'disabled'];
/** Grape's values of build_git_strategy (lib/api/helpers/projects_helpers.rb). */
const GIT_STRATEGIES = ['fetch', 'clone'];
/** ProjectCiCdSetting's pipeline_variables_minimum_override_role values. */
export const OVERRIDE_ROLES = ['no_one_allowed', 'developer', 'maintainer', 'owner'];

/** GitLab's Project::MAX_BUILD_TIMEOUT (a month) and its lower bound (10 minutes). */
const MIN_BUILD_TIMEOUT = 600;
const MAX_BUILD_TIMEOUT = 2_592_000;
/** ProjectCiCdSetting's bounds of default_git_depth. */
const MAX_GIT_DEPTH = 1000;

/** GitLab's validation errors of the given settings, by field. */
export function ciSettingsErrors(input: ProjectCiSettingsInput): Record<string, string[]> {
  // Grape's `values:` check, before any record validation.
  if (input.autoCancelPendingPipelines != null && !AUTO_CANCEL_VALUES.includes(input.autoCancelPendingPipelines)) throw invalidArgument('auto_cancel_pending_pipelines');
  if (input.buildGitStrategy != null && !GIT_STRATEGIES.includes(input.buildGitStrategy)) throw invalidArgument('build_git_strategy');
  const role = input.ciPipelineVariablesMinimumOverrideRole;
  if (role != null && !OVERRIDE_ROLES.includes(role)) throw invalidArgument('ci_pipeline_variables_minimum_override_role');
  const errors: Record<string, string[]> = {};
  const timeout = input.buildTimeout;
  if (timeout != null && (!Number.isInteger(timeout) || timeout < MIN_BUILD_TIMEOUT || timeout >= MAX_BUILD_TIMEOUT)) {
    errors.buildTimeout = ['needs to be between 10 minutes and 1 month'];
  }
  const depth = input.ciDefaultGitDepth;
  if (depth != null) {
    if (!Number.isInteger(depth)) errors.ciDefaultGitDepth = ['must be an integer'];
    else if (depth < 0) errors.ciDefaultGitDepth = ['must be greater than or equal to 0'];
    else if (depth > MAX_GIT_DEPTH) errors.ciDefaultGitDepth = [`must be less than or equal to ${MAX_GIT_DEPTH}`];
  }
  return errors;
}

/** The given settings of the project's own row as a Prisma update (keep_latest_artifact lives elsewhere). */
export function ciSettingsData(input: ProjectCiSettingsInput): {
  buildTimeout?: number;
  publicJobs?: boolean;
  ciDefaultGitDepth?: number;
  autoCancelPendingPipelines?: string;
  restrictUserDefinedVariables?: boolean;
  ciPipelineVariablesMinimumOverrideRole?: string;
  ciForwardDeploymentEnabled?: boolean;
  ciForwardDeploymentRollbackAllowed?: boolean;
  ciAllowForkPipelinesToRunInParentProject?: boolean;
  onlyAllowMergeIfPipelineSucceeds?: boolean;
  allowMergeOnSkippedPipeline?: boolean;
  onlyAllowMergeIfAllDiscussionsAreResolved?: boolean;
  mergePipelinesEnabled?: boolean;
  mergeTrainsEnabled?: boolean;
  mergeTrainsSkipTrainAllowed?: boolean;
  ciSeparatedCaches?: boolean;
  groupRunnersEnabled?: boolean;
  buildAllowGitFetch?: boolean;
} {
  return {
    ...(input.buildTimeout != null ? { buildTimeout: input.buildTimeout } : {}),
    ...(input.publicJobs != null ? { publicJobs: input.publicJobs } : {}),
    ...(input.ciDefaultGitDepth != null ? { ciDefaultGitDepth: input.ciDefaultGitDepth } : {}),
    ...(input.autoCancelPendingPipelines != null ? { autoCancelPendingPipelines: input.autoCancelPendingPipelines } : {}),
    ...(input.restrictUserDefinedVariables != null ? { restrictUserDefinedVariables: input.restrictUserDefinedVariables } : {}),
    ...(input.ciPipelineVariablesMinimumOverrideRole != null ? { ciPipelineVariablesMinimumOverrideRole: input.ciPipelineVariablesMinimumOverrideRole } : {}),
    ...(input.ciForwardDeploymentEnabled != null ? { ciForwardDeploymentEnabled: input.ciForwardDeploymentEnabled } : {}),
    ...(input.ciForwardDeploymentRollbackAllowed != null ? { ciForwardDeploymentRollbackAllowed: input.ciForwardDeploymentRollbackAllowed } : {}),
    ...(input.ciAllowForkPipelinesToRunInParentProject != null ? { ciAllowForkPipelinesToRunInParentProject: input.ciAllowForkPipelinesToRunInParentProject } : {}),
    ...(input.onlyAllowMergeIfPipelineSucceeds != null ? { onlyAllowMergeIfPipelineSucceeds: input.onlyAllowMergeIfPipelineSucceeds } : {}),
    ...(input.allowMergeOnSkippedPipeline != null ? { allowMergeOnSkippedPipeline: input.allowMergeOnSkippedPipeline } : {}),
    ...(input.onlyAllowMergeIfAllDiscussionsAreResolved != null ? { onlyAllowMergeIfAllDiscussionsAreResolved: input.onlyAllowMergeIfAllDiscussionsAreResolved } : {}),
    ...(input.mergePipelinesEnabled != null ? { mergePipelinesEnabled: input.mergePipelinesEnabled } : {}),
    ...(input.mergeTrainsEnabled != null ? { mergeTrainsEnabled: input.mergeTrainsEnabled } : {}),
    ...(input.mergeTrainsSkipTrainAllowed != null ? { mergeTrainsSkipTrainAllowed: input.mergeTrainsSkipTrainAllowed } : {}),
    ...(input.ciSeparatedCaches != null ? { ciSeparatedCaches: input.ciSeparatedCaches } : {}),
    ...(input.groupRunnersEnabled != null ? { groupRunnersEnabled: input.groupRunnersEnabled } : {}),
    ...(input.buildGitStrategy != null ? { buildAllowGitFetch: input.buildGitStrategy === 'fetch' } : {}),
  };
}

/** Stores keep_latest_artifact in the project's project_ci_cd_settings row (made with the other defaults if missing). */
export async function storeKeepLatestArtifact(db: Pick<Prisma.TransactionClient, 'projectCiCdSetting'>, projectId: number, keepLatestArtifact: boolean): Promise<void> {
  await db.projectCiCdSetting.upsert({ where: { projectId }, create: { projectId, keepLatestArtifact }, update: { keepLatestArtifact }, select: { projectId: true } });
}
