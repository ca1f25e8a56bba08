/**
 * CI statuses as GitLab defines them (Ci::HasStatus, Gitlab::Ci::Status::Composite, Gitlab::Ci::Status::*): the
 * groups of statuses, how a pipeline's or stage's status is composed from its jobs', and the `detailed_status`
 * objects the API shows. Pure: no database.
 */

export const CI_STATUSES = [
  'created',
  'waiting_for_resource',
  'preparing',
  'waiting_for_callback',
  'pending',
  'running',
  'success',
  'failed',
  'canceling',
  'canceled',
  'skipped',
  'manual',
  'scheduled',
] as const;
export type CiStatus = (typeof CI_STATUSES)[number];

export const COMPLETED_STATUSES: readonly CiStatus[] = ['success', 'failed', 'canceled', 'skipped'];
export const ACTIVE_STATUSES: readonly CiStatus[] = ['waiting_for_resource', 'preparing', 'waiting_for_callback', 'pending', 'running'];
/** What cancel acts on: every status that is neither completed nor blocked, plus scheduled (GitLab's CANCELABLE_STATUSES). */
export const CANCELABLE_STATUSES: readonly CiStatus[] = ['created', 'waiting_for_resource', 'preparing', 'waiting_for_callback', 'pending', 'running', 'scheduled'];
/** `scope=finished` of the pipelines list: skipped is not finished. */
export const FINISHED_STATUSES: readonly CiStatus[] = ['success', 'failed', 'canceled'];

/** CommitStatusPresenter::CALLOUT_FAILURE_MESSAGES: what a failed job's reason says to its reader (none for a script failure). */
const FAILURE_MESSAGES: Readonly<Record<string, string>> = {
  unknown_failure: 'There is an unknown failure, please try again',
  api_failure: 'There has been an API failure, please try again',
  stuck_or_timeout_failure: 'There has been a timeout failure or the job got stuck. Check your timeout limits or try again',
  runner_system_failure: 'There has been a runner system failure, please try again',
  missing_dependency_failure: 'There has been a missing dependency failure',
  runner_unsupported: 'Your runner is outdated, please upgrade your runner',
  stale_schedule: 'Delayed job could not be executed by some reason, please try again',
  job_execution_timeout: 'The script exceeded the maximum execution time set for the job',
  archived_failure: 'The job is archived and cannot be run',
  unmet_prerequisites: 'The job failed to complete prerequisite tasks',
  scheduler_failure: 'The scheduler failed to assign job to the runner, please try again or contact system administrator',
  data_integrity_failure: 'There has been a structural integrity problem detected, please contact system administrator',
  forward_deployment_failure: 'The deployment job is older than the previously succeeded deployment job, and therefore cannot be run',
  pipeline_loop_detected: 'This job could not be executed because it would create infinitely looping pipelines',
  invalid_bridge_trigger: 'This job could not be executed because downstream pipeline trigger definition is invalid',
  downstream_bridge_project_not_found: 'This job could not be executed because downstream bridge project could not be found',
  insufficient_bridge_permissions: 'This job could not be executed because of insufficient permissions to create a downstream pipeline',
  bridge_pipeline_is_child_pipeline: 'This job belongs to a child pipeline and cannot create further child pipelines',
  downstream_pipeline_creation_failed: 'The downstream pipeline could not be created',
  secrets_provider_not_found: 'The secrets provider can not be found',
  reached_max_descendant_pipelines_depth: 'You reached the maximum depth of child pipelines',
  project_deleted: 'The job belongs to a deleted project',
  user_blocked: 'The user who created this job is blocked',
  ci_quota_exceeded: 'No more CI minutes available',
  no_matching_runner: 'No matching runner available',
  trace_size_exceeded: 'The job log size limit was reached',
};

/** The message of a failure reason (GraphQL's `CiJob.failureMessage`); null for a script failure or an unknown reason. */
export function failureMessage(reason: string): string | null {
  return FAILURE_MESSAGES[reason] ?? null;
}

export function isCompleted(status: string): boolean {
  return (COMPLETED_STATUSES as readonly string[]).includes(status);
}

/** What the composition reads of one job. */
export interface StatusOf {
  status: string;
  allowFailure: boolean;
}

/**
 * Gitlab::Ci::Status::Composite: the status of a set of (latest, not retried) jobs. A failed or canceled job that may
 * fail counts as success with warnings, a manual one that may fail as ignored. With `dag` (a job's needs), any
 * skipped or ignored need makes the result skipped. Null for no jobs.
 */
export function compositeStatus(jobs: readonly StatusOf[], options: { dag?: boolean } = {}): CiStatus | null {
  if (jobs.length === 0) return null;
  const set = new Set<string>();
  for (const job of jobs) {
    if (job.allowFailure && (job.status === 'failed' || job.status === 'canceled')) set.add('success_with_warnings');
    else if (job.allowFailure && job.status === 'manual') set.add('ignored');
    else set.add(job.status);
  }
  const only = (...allowed: string[]) => [...set].every((s) => allowed.includes(s));
  const any = (...wanted: string[]) => wanted.some((s) => set.has(s));
  if (options.dag && any('skipped', 'ignored')) return 'skipped';
  if (only('skipped', 'ignored')) return 'skipped';
  if (only('success', 'skipped', 'success_with_warnings', 'ignored')) return 'success';
  if (only('created', 'success_with_warnings', 'ignored')) return 'created';
  if (only('preparing', 'success_with_warnings', 'ignored')) return 'preparing';
  if (only('canceled', 'success', 'skipped', 'success_with_warnings', 'ignored')) return 'canceled';
  if (only('pending', 'created', 'skipped', 'success_with_warnings', 'ignored')) return 'pending';
  if (any('running', 'pending')) return 'running';
  if (any('waiting_for_resource')) return 'waiting_for_resource';
  if (any('waiting_for_callback')) return 'waiting_for_callback';
  if (any('manual')) return 'manual';
  if (any('scheduled')) return 'scheduled';
  if (any('preparing')) return 'preparing';
  if (any('created')) return 'running';
  if (any('canceling')) return 'canceling';
  return 'failed';
}

/** Whether a successful set of jobs had warnings: a job that may fail failed or was canceled (GitLab's has_warnings?). */
export function hasWarnings(jobs: readonly StatusOf[]): boolean {
  return jobs.some((job) => job.allowFailure && (job.status === 'failed' || job.status === 'canceled'));
}

/** GitLab's DetailedStatus object, as REST and GraphQL show it. */
export interface DetailedStatus {
  /** GitLab's Status::Core#id (`<status>-<subject ID>`). */
  id: string;
  icon: string;
  text: string;
  label: string;
  group: string;
  tooltip: string;
  hasDetails: boolean;
  detailsPath: string | null;
  illustration: null;
  favicon: string;
  /** The job whose actions (GraphQL's `action`) the status offers, where its subject is one. */
  job?: ActionJob;
}

/** What a job's status action depends on (Gitlab::Ci::Status::Build::*). */
export interface ActionJob extends StatusOf {
  id: number;
  type: string;
  when: string;
  retried: boolean;
  options: unknown;
}

/** GitLab's StatusAction: the button a job's status offers (run, run again, cancel, unschedule, stop). */
export interface StatusAction {
  id: string;
  icon: string;
  title: string;
  buttonTitle: string;
  path: string;
  method: string;
  /** `manual_confirmation:` of a manual job, asked before it runs (Ci::Build#manual_confirmation_message). */
  confirmationMessage: string | null;
}

/** Text and label of each core status (Gitlab::Ci::Status::<Status>, current wording). */
const CORE: Record<CiStatus, { text: string; label: string }> = {
  created: { text: 'Created', label: 'created' },
  waiting_for_resource: { text: 'Waiting', label: 'waiting for resource' },
  preparing: { text: 'Preparing', label: 'preparing' },
  waiting_for_callback: { text: 'Waiting', label: 'waiting for callback' },
  pending: { text: 'Pending', label: 'pending' },
  running: { text: 'Running', label: 'running' },
  success: { text: 'Passed', label: 'passed' },
  failed: { text: 'Failed', label: 'failed' },
  canceling: { text: 'Canceling', label: 'canceling' },
  canceled: { text: 'Canceled', label: 'canceled' },
  skipped: { text: 'Skipped', label: 'skipped' },
  manual: { text: 'Manual', label: 'manual action' },
  scheduled: { text: 'Scheduled', label: 'scheduled' },
};

/** Icon name of a status: GitLab names the manual and scheduled icons differently from their status. */
const ICON: Partial<Record<CiStatus, string>> = { scheduled: 'status_scheduled', waiting_for_resource: 'status_pending', waiting_for_callback: 'status_pending' };

function favicon(name: string): string {
  return `/assets/ci_favicons/favicon_${name}.png`;
}

/** The core status as GitLab details it: icon, text and label of the status, and the page of its subject. */
function coreDetailed(status: CiStatus, detailsPath: string | null, subjectId: number | string): DetailedStatus {
  const core = CORE[status] ?? CORE.created;
  const icon = ICON[status] ?? `status_${status}`;
  return {
    id: `${status}-${subjectId}`,
    icon,
    text: core.text,
    label: core.label,
    group: status,
    tooltip: core.label,
    hasDetails: detailsPath !== null,
    detailsPath,
    illustration: null,
    favicon: favicon(icon),
  };
}

/**
 * A pipeline's detailed status (Gitlab::Ci::Status::Pipeline::Factory): the core status, extended to "passed with
 * warnings" for a success with warnings, "waiting for manual action" when blocked and "waiting for delayed job" when
 * scheduled. `detailsPath` is the pipeline's page, shown to those who may read it.
 */
export function pipelineDetailedStatus(status: CiStatus, warnings: boolean, detailsPath: string | null, subjectId: number | string): DetailedStatus {
  const base = coreDetailed(status, detailsPath, subjectId);
  if (status === 'success' && warnings) {
    return { ...base, icon: 'status_warning', text: 'Warning', label: 'passed with warnings', group: 'success_with_warnings', tooltip: 'passed with warnings', favicon: favicon('status_warning') };
  }
  if (status === 'manual') return { ...base, text: 'Blocked', label: 'waiting for manual action', tooltip: 'waiting for manual action' };
  if (status === 'scheduled') return { ...base, text: 'Delayed', label: 'waiting for delayed job', tooltip: 'waiting for delayed job' };
  return base;
}

/**
 * A job's detailed status (Gitlab::Ci::Status::Build::Factory, the parts without actions' paths): failed jobs that
 * may fail show as warnings, manual jobs as "manual play action", scheduled ones as "delayed".
 */
export function jobDetailedStatus(job: ActionJob, detailsPath: string | null): DetailedStatus {
  const status = (CI_STATUSES as readonly string[]).includes(job.status) ? (job.status as CiStatus) : 'created';
  const base = { ...coreDetailed(status, detailsPath, job.id), job };
  if (status === 'failed' && job.allowFailure) {
    return { ...base, icon: 'status_warning', text: 'Failed', label: 'failed (allowed to fail)', group: 'failed_with_warnings', tooltip: 'failed - (allowed to fail)', favicon: favicon('status_warning') };
  }
  if (status === 'manual') return { ...base, label: 'manual play action', tooltip: 'manual action' };
  if (status === 'scheduled') return { ...base, text: 'Scheduled', label: 'delayed manual action', tooltip: 'delayed manual action' };
  return base;
}

/**
 * The action a job's status offers the viewer (Gitlab::Ci::Status::Build::Factory's Cancelable or Retryable, then
 * Unschedule, Play or Stop, the later winning), or null: none matches, or the viewer may not update the job
 * (`has_action?`). A bridge (Gitlab::Ci::Status::Bridge::Factory) offers only Play, while it waits to be played, to
 * whoever may play it. `jobPath` is the job's page.
 */
export function jobStatusAction(job: ActionJob, jobPath: string, may: { updateBuild: boolean; play: boolean }): StatusAction | null {
  if (job.type === 'bridge') return bridgeStatusAction(job, jobPath, may.play);
  if (!may.updateBuild || job.type !== 'build') return null;
  const status = job.status as CiStatus;
  const action = ['manual', 'delayed'].includes(job.when);
  const retryable = !job.retried && ['success', 'failed', 'canceled'].includes(status);
  const playable = action && (status === 'manual' || status === 'scheduled' || retryable);
  const options = job.options as { environment?: { action?: string } | null; manual_confirmation?: string | null } | null;
  const confirmation = job.when === 'manual' ? (options?.manual_confirmation ?? null) : null;
  const make = (verb: string, icon: string, title: string, buttonTitle: string, confirmationMessage: string | null = null): StatusAction => ({
    id: `Ci::Build-${job.id}`,
    icon,
    title,
    buttonTitle,
    path: `${jobPath}/${verb}`,
    method: 'post',
    confirmationMessage,
  });
  if (status === 'scheduled') return make('unschedule', 'time-out', 'Unschedule', 'Unschedule job');
  if (playable && options?.environment?.action === 'stop') return make('play', 'stop', 'Stop', 'Stop this environment');
  if (playable) return make('play', 'play', 'Run', 'Run job', confirmation);
  if ((CANCELABLE_STATUSES as readonly string[]).includes(status)) return make('cancel', 'cancel', 'Cancel', 'Cancel this job');
  if (retryable) return make('retry', 'retry', 'Run again', 'Run this job again', confirmation);
  return null;
}

/** Gitlab::Ci::Status::Bridge::Play: a manual bridge (`when: manual`, still `manual`) offers Run to whoever may play it. */
function bridgeStatusAction(job: ActionJob, jobPath: string, mayPlay: boolean): StatusAction | null {
  if (!mayPlay || job.when !== 'manual' || job.status !== 'manual') return null;
  const confirmation = (job.options as { manual_confirmation?: string | null } | null)?.manual_confirmation ?? null;
  return { id: `Ci::Bridge-${job.id}`, icon: 'play', title: 'Run', buttonTitle: 'Run job', path: `${jobPath}/play`, method: 'post', confirmationMessage: confirmation };
}
