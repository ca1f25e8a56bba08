/**
 * How a running job ends: the runner's `PUT /jobs/:id` (GitLab's Ci::UpdateBuildStateService), or the server giving
 * up on it (GitLab's StuckCiJobsWorker and timed-out job check). Success records the coverage its log shows;
 * failure records the reason and exit code, lets the job fail when its exit code is one `allow_failure: exit_codes`
 * names, and retries it as `retry:` says (GitLab's Gitlab::Ci::Build::AutoRetry). Either way the job's token stops
 * working, what was held back of its log is stored, and its pipeline is processed so the next stage starts.
 */
import { extractCoverage } from '../../ci/coverage.js';
import { maskTrace } from '../../ci/mask.js';
import { withPipeline } from '../pipelines/processing.js';
import type { JobRow } from '../pipelines/service.js';
import { FAILURE_REASONS } from './payload.js';
import { storeTraceChunk } from './trace.js';
import { CONTACT_RESOLUTION_MS, DEFAULT_JOB_TIMEOUT, jobByToken, maskedValues, optionsOf, releasePersistentRef, type ProtocolDeps, type Tx } from './protocol.js';

export { jobByToken };

export interface JobUpdate {
  state?: string | null;
  failureReason?: string | null;
  exitCode?: number | null;
  checksum?: string | null;
}

export interface JobUpdateResult {
  /** 200, or 400 for a state GitLab does not know. */
  status: number;
  /** The job's status after the update (`Job-Status`). */
  jobStatus: string;
}

/** GitLab's DEFAULT_RETRIES: failures retried without `retry:` configured. */
const DEFAULT_RETRIES: Readonly<Record<string, number>> = { scheduler_failure: 2 };
/** A running job whose runner has said nothing for this long is stuck (GitLab's BUILD_RUNNING_OUTDATED_TIMEOUT). */
const RUNNING_OUTDATED_MS = 60 * 60 * 1000;
/** A job pending for this long will not be picked (GitLab's BUILD_PENDING_OUTDATED_TIMEOUT). */
const PENDING_OUTDATED_MS = 24 * 60 * 60 * 1000;
/** A runner enforces a job's timeout itself; the server steps in when this long has passed beyond it. */
const TIMEOUT_GRACE_MS = 5 * 60 * 1000;
/** Stuck jobs failed per run of the recurring check. */
const STUCK_BATCH = 100;

/** Whether a failure is retried automatically, and the job not retried too often already. */
async function autoRetry(tx: Tx, job: JobRow, reason: string, exitCode: number | null): Promise<boolean> {
  const retry = optionsOf(job).retry;
  const when = retry?.when.length ? retry.when : ['always'];
  const matches = (when.includes('always') || when.includes(reason)) && (!retry?.exitCodes.length || (exitCode !== null && retry.exitCodes.includes(exitCode)));
  const max = matches && retry?.max ? retry.max : (DEFAULT_RETRIES[reason] ?? 0);
  if (max <= 0) return false;
  const retries = await tx.ciJob.count({ where: { pipelineId: job.pipelineId, name: job.name, retried: true } });
  return retries < max;
}

/** Fails the job (in its pipeline's transaction): reason, exit code, allowed by exit code, retried as configured. */
async function fail(deps: ProtocolDeps, tx: Tx, job: JobRow, reason: string, exitCode: number | null, now: Date, data: { traceChecksum?: string | null } = {}): Promise<void> {
  const allowed = (optionsOf(job).allow_failure_exit_codes ?? []).includes(exitCode ?? NaN);
  await deps.pipelines.setJobStatus(tx, { id: job.pipelineId, projectId: job.projectId }, job.id, 'failed', {
    ...data,
    failureReason: reason,
    exitCode,
    finishedAt: now,
    tokenDigest: null,
    traceHeld: null,
    ...(allowed ? { allowFailure: true } : {}),
  });
  if (await autoRetry(tx, job, reason, exitCode)) await deps.pipelines.cloneForRetry(tx, job, job.userId);
}

/** The job's log as stored, for its coverage. */
async function storedLog(tx: Tx, jobId: number): Promise<string> {
  const chunks = await tx.ciTraceChunk.findMany({ where: { jobId }, orderBy: { offset: 'asc' }, select: { data: true } });
  return Buffer.concat(chunks.map((c) => Buffer.from(c.data))).toString('utf8');
}

/** Stores what was held back of the log (the job ended: an unfinished value is no value). */
async function flushHeld(deps: ProtocolDeps, tx: Tx, job: JobRow, secrets: readonly string[]): Promise<void> {
  if (!job.traceHeld?.length) return;
  const held = Buffer.from(job.traceHeld);
  const { store } = maskTrace(Buffer.alloc(0), held, secrets, true);
  if (store.length) await storeTraceChunk(tx, deps.publish, job, job.traceSize - held.length, store);
}

/** The runner called about the job: its runner was in contact now (written at most once a minute). */
export async function touchRunner(deps: ProtocolDeps, runnerId: number | null, now: Date): Promise<void> {
  if (runnerId === null) return;
  await deps.db.runner.updateMany({
    where: { id: runnerId, OR: [{ contactedAt: null }, { contactedAt: { lt: new Date(now.getTime() - CONTACT_RESOLUTION_MS) } }] },
    data: { contactedAt: now },
  });
}

export async function updateJobState(deps: ProtocolDeps, jobId: number, token: unknown, update: JobUpdate): Promise<JobUpdateResult> {
  const job = await jobByToken(deps.db, jobId, token);
  const now = new Date();
  await touchRunner(deps, job.runnerId, now);
  if (update.state === 'running') {
    await deps.db.ciJob.update({ where: { id: job.id }, data: { heartbeatAt: now } });
    return { status: 200, jobStatus: 'running' };
  }
  if (update.state !== 'success' && update.state !== 'failed') return { status: 400, jobStatus: job.status };
  const secrets = await maskedValues(deps, job, token as string);
  const jobStatus = await withPipeline(deps.db, job.pipelineId, deps, async (tx) => {
    const current = await tx.ciJob.findUnique({ where: { id: job.id } });
    // Canceled (or failed as stuck) while the runner finished: the job keeps what happened to it first.
    if (!current || current.status !== 'running') return current?.status ?? 'canceled';
    await flushHeld(deps, tx, current, secrets);
    const traceChecksum = update.checksum ?? null;
    if (update.state === 'success') {
      const pattern = optionsOf(current).coverage;
      const coverage = pattern ? extractCoverage(await storedLog(tx, current.id), pattern) : null;
      await deps.pipelines.setJobStatus(tx, { id: current.pipelineId, projectId: current.projectId }, current.id, 'success', {
        finishedAt: now,
        coverage,
        exitCode: update.exitCode ?? null,
        tokenDigest: null,
        traceHeld: null,
        traceChecksum,
      });
      return 'success';
    }
    const reason = (FAILURE_REASONS as readonly string[]).includes(update.failureReason ?? '') ? (update.failureReason as string) : 'unknown_failure';
    await fail(deps, tx, current, reason, update.exitCode ?? null, now, { traceChecksum });
    return 'failed';
  });
  await releasePersistentRef(deps, job.pipelineId);
  return { status: 200, jobStatus };
}

interface StuckJob {
  id: number;
  pipelineId: number;
  status: string;
  reason: string;
}

/**
 * Fails, at `now`, running jobs past their timeout (`job_execution_timeout`) or not heard of for an hour, and jobs
 * pending for a day (`stuck_or_timeout_failure`): what GitLab's StuckCiJobsWorker and timed-out check do.
 */
export async function failStuckJobs(deps: ProtocolDeps, now: Date): Promise<number> {
  const outdated = new Date(now.getTime() - RUNNING_OUTDATED_MS);
  const pendingSince = new Date(now.getTime() - PENDING_OUTDATED_MS);
  const graceEnd = new Date(now.getTime() - TIMEOUT_GRACE_MS);
  const stuck = await deps.db.$queryRaw<StuckJob[]>`
    SELECT j."id", j."pipelineId", j."status",
      CASE WHEN j."status" = 'running' AND j."startedAt" + make_interval(secs => LEAST(COALESCE(j."timeout", p."buildTimeout", ${DEFAULT_JOB_TIMEOUT}), COALESCE(r."maximumTimeout", 2147483647))) < ${graceEnd}
        THEN 'job_execution_timeout' ELSE 'stuck_or_timeout_failure' END AS "reason"
    FROM "ci_builds" j LEFT JOIN "ci_runners" r ON r."id" = j."runnerId" LEFT JOIN "projects" p ON p."id" = j."projectId"
    WHERE j."type" = 'build' AND (
      (j."status" = 'running' AND (
        j."startedAt" + make_interval(secs => LEAST(COALESCE(j."timeout", p."buildTimeout", ${DEFAULT_JOB_TIMEOUT}), COALESCE(r."maximumTimeout", 2147483647))) < ${graceEnd}
        OR COALESCE(j."heartbeatAt", j."startedAt", j."updatedAt") < ${outdated}))
      OR (j."status" = 'pending' AND COALESCE(j."queuedAt", j."createdAt") < ${pendingSince}))
    ORDER BY j."id"
    LIMIT ${STUCK_BATCH}`;
  let failed = 0;
  for (const candidate of stuck) if (await failAs(deps, candidate, candidate.reason, now)) failed += 1;
  return failed;
}

/**
 * Fails a job the server gives up on (no runner's word), when it still has the status it was found with; what its
 * runner sent but was held back of its log is dropped: without the job's token it cannot be masked.
 */
export async function failAs(deps: ProtocolDeps, found: { id: number; pipelineId: number; status: string }, reason: string, now: Date): Promise<boolean> {
  const failed = await withPipeline(deps.db, found.pipelineId, deps, async (tx) => {
    const job = await tx.ciJob.findUnique({ where: { id: found.id } });
    if (job?.status !== found.status) return false;
    await fail(deps, tx, job, reason, null, now);
    return true;
  });
  if (failed) await releasePersistentRef(deps, found.pipelineId);
  return failed;
}
