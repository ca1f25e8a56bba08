/**
 * The pipeline engine (GitLab's Ci::PipelineProcessing::AtomicProcessingService and Ci::ProcessBuildService): after
 * anything changes a job, the pipeline is processed once, under a lock on its row, so two runners finishing jobs at
 * the same time never both start, or both miss, the next stage. Each created job whose prerequisites (earlier
 * stages, or its `needs`) have completed is started as its `when` says, or skipped; then the pipeline's status is
 * composed from its latest jobs. Transitions are published on the bus after the transaction commits.
 */
import type { Prisma, PrismaClient } from '../../db/database.js';
import type { JobQueue } from '../../jobs/queue.js';
import { compositeStatus, isCompleted, type CiStatus, type StatusOf } from './status.js';
import { isMergeTrainRef } from './predefined.js';
import { enqueueHookEvent } from '../hooks/events.js';
import { enqueueAutoMerge } from '../merge_requests/auto_merge.js';
import { enqueueTrainPipelineFinished } from '../merge_trains/jobs.js';
import { environmentOf, followJob } from '../environments/ci.js';
import { hasOutdatedDeployment, OUTDATED_DEPLOYMENT } from '../environments/forward.js';
import { ASSIGN_RESOURCE_JOB, gateResources } from './resource_groups.js';

/** Bus topic: a pipeline's status (or timing) changed. */
export const PIPELINE_UPDATED = 'ci.pipeline.updated';
/** Bus topic: a job's status changed. */
export const JOB_UPDATED = 'ci.job.updated';

export interface PipelineUpdatedMessage {
  pipelineId: number;
  projectId: number;
  status: string;
}

export interface JobUpdatedMessage {
  jobId: number;
  pipelineId: number;
  projectId: number;
  status: string;
}

/** Bus topic: a running job's log grew by one stored chunk (the runner's patch, masked, or what was held back of it). */
export const JOB_TRACE_APPENDED = 'ci.job.trace';

export interface JobTraceAppendedMessage {
  jobId: number;
  pipelineId: number;
  projectId: number;
  /** The stored chunk: its bytes are loaded by whoever listens, as NOTIFY payloads are small. */
  chunkId: number;
  /** Where the chunk starts in the stored (masked) log, in bytes. */
  offset: number;
  /** The chunk's length in bytes. */
  bytes: number;
}

/** How a job entry in `options.needs` is stored. */
export interface StoredNeed {
  name: string;
  artifacts: boolean;
  optional: boolean;
}

type Tx = Prisma.TransactionClient;

/** Job kind: create the downstream pipeline of a bridge that became pending (GitLab's CreateDownstreamPipelineWorker). */
export const DOWNSTREAM_JOB = 'pipelines.downstream';
/** Job kind: a downstream pipeline finished; its bridge may inherit its status (GitLab's PipelineBridgeStatusWorker). */
export const BRIDGE_STATUS_JOB = 'pipelines.bridge_status';

/**
 * What processing does besides writing rows: bus messages and background jobs, both on commit of the transaction.
 * Services pass their ServiceBase; `withPipeline` wakes the job queue once the transaction committed.
 */
export interface ProcessingEffects {
  app: { jobs: Pick<JobQueue, 'enqueue' | 'wake'> };
  publish(topic: string, payload: unknown, tx?: Tx): Promise<void>;
}

/** Queues a bridge's downstream pipeline: once per bridge, whichever transition made it pending. */
export async function queueDownstream(effects: ProcessingEffects, tx: Tx, bridgeId: number): Promise<void> {
  await effects.app.jobs.enqueue(DOWNSTREAM_JOB, { bridgeId }, { uniqueKey: `downstream:${bridgeId}` }, tx);
}

interface ProcessedJob extends StatusOf {
  id: number;
  name: string;
  stageIdx: number;
  when: string;
  type: string;
  schedulingType: string;
  options: Prisma.JsonValue;
  queuedAt: Date | null;
  resourceGroupId: number | null;
}

function needsOf(job: ProcessedJob): StoredNeed[] {
  const options = job.options as { needs?: StoredNeed[] } | null;
  return Array.isArray(options?.needs) ? options.needs : [];
}

function startInSeconds(job: ProcessedJob): number {
  const options = job.options as { start_in_seconds?: number } | null;
  return typeof options?.start_in_seconds === 'number' ? options.start_in_seconds : 0;
}

/** What a job's prerequisites allow once they completed (ProcessBuildService#valid_statuses_for_build). */
function runsAfter(when: string, prerequisites: CiStatus): boolean {
  switch (when) {
    case 'on_failure':
      return prerequisites === 'failed';
    case 'always':
      return prerequisites === 'success' || prerequisites === 'failed' || prerequisites === 'skipped';
    default:
      return prerequisites === 'success' || prerequisites === 'skipped';
  }
}

/** Locks the pipeline's row for the rest of the transaction: one processing of a pipeline at a time. */
export async function lockPipeline(tx: Tx, pipelineId: number): Promise<boolean> {
  const rows = await tx.$queryRaw<{ id: number }[]>`SELECT "id" FROM "ci_pipelines" WHERE "id" = ${pipelineId} FOR UPDATE`;
  return rows.length > 0;
}

/**
 * Processes the pipeline inside `tx` (which must hold its lock, see lockPipeline): starts or skips what may now
 * start, then sets the pipeline's status and times. Publishes every job and pipeline transition on commit.
 */
export async function processPipeline(tx: Tx, pipelineId: number, effects: ProcessingEffects, now = new Date()): Promise<void> {
  const pipeline = await tx.pipeline.findUnique({ where: { id: pipelineId } });
  if (!pipeline) return;
  const jobs: ProcessedJob[] = await tx.ciJob.findMany({
    where: { pipelineId, retried: false },
    orderBy: [{ stageIdx: 'asc' }, { id: 'asc' }],
    select: { id: true, name: true, stageIdx: true, status: true, when: true, allowFailure: true, type: true, schedulingType: true, options: true, queuedAt: true, resourceGroupId: true },
  });
  // Ci::ProcessBuildService#enqueue: a deployment job older than its environment's last deployment never starts.
  const outdated = (job: ProcessedJob) => (environmentOf(job.options)?.slug !== undefined ? hasOutdatedDeployment(tx, job.id, false) : Promise.resolve(false));
  const byName = new Map(jobs.map((job) => [job.name, job]));
  const byId = new Map(jobs.map((job) => [job.id, job]));
  const changed = new Map<number, Prisma.CiJobUpdateInput>();
  const set = (job: ProcessedJob, status: CiStatus, data: Prisma.CiJobUpdateInput = {}) => {
    job.status = status;
    changed.set(job.id, { ...changed.get(job.id), ...data, status });
  };
  const prerequisites = (job: ProcessedJob): CiStatus | null => {
    if (job.schedulingType === 'dag') {
      const needed = needsOf(job).map((need) => byName.get(need.name)).filter((j): j is ProcessedJob => !!j);
      return compositeStatus(needed, { dag: true }) ?? 'success';
    }
    return compositeStatus(jobs.filter((other) => other.stageIdx < job.stageIdx)) ?? 'success';
  };
  // Stage order, then again while a DAG job's decision unblocks another: each pass only moves jobs forward.
  for (let pass = 0, moved = true; moved && pass <= jobs.length; pass++) {
    moved = false;
    for (const job of jobs) {
      if (job.status !== 'created') continue;
      const before = prerequisites(job);
      if (before === null || !isCompleted(before)) continue;
      moved = true;
      if (!runsAfter(job.when, before)) {
        set(job, 'skipped');
      } else if (job.when === 'manual') {
        set(job, 'manual');
      } else if (job.when === 'delayed') {
        set(job, 'scheduled', { scheduledAt: new Date(now.getTime() + startInSeconds(job) * 1000) });
      } else if (await outdated(job)) {
        set(job, 'failed', OUTDATED_DEPLOYMENT(now));
      } else {
        set(job, 'pending', { queuedAt: now });
      }
    }
  }
  // Jobs of a resource group wait for its resource, and give it back when done (resource_groups.ts).
  for (const resourceGroupId of await gateResources(tx, jobs, set, now, outdated)) await effects.app.jobs.enqueue(ASSIGN_RESOURCE_JOB, { resourceGroupId }, {}, tx);
  for (const [id, data] of changed) {
    await tx.ciJob.update({ where: { id }, data });
    await effects.publish(JOB_UPDATED, { jobId: id, pipelineId, projectId: pipeline.projectId, status: data.status as string } satisfies JobUpdatedMessage, tx);
    if (byId.get(id)?.type === 'build') await enqueueHookEvent(effects.app.jobs, { trigger: 'job_hooks', projectId: pipeline.projectId, branch: null, data: null, job: { jobId: id, status: data.status as string } }, tx);
    await followJob(tx, effects, byId.get(id)!, data.status as string, now);
    // A bridge runs no script: pending, it waits for its downstream pipeline to be created.
    if (data.status === 'pending' && byId.get(id)?.type === 'bridge') await queueDownstream(effects, tx, id);
  }
  const status: CiStatus = pipeline.yamlErrors ? 'failed' : (compositeStatus(jobs) ?? 'skipped');
  await setPipelineStatus(tx, pipeline, status, effects, now, changed.size > 0);
}

/**
 * GitLab's Gitlab::Ci::Pipeline::Duration: the whole seconds the latest builds of the pipeline and of the pipelines
 * downstream of it ran (those that succeeded, failed, were canceled or still run, until now), each moment counted
 * once however many ran then. Pending, manual and queued time is not running time.
 */
async function runningSeconds(tx: Tx, pipelineId: number, now: Date): Promise<number> {
  const periods = await tx.$queryRaw<{ startedAt: Date; finishedAt: Date | null }[]>`
    WITH RECURSIVE "family" AS (
      SELECT ${pipelineId}::int AS "id"
      UNION
      SELECT p."id" FROM "ci_pipelines" p JOIN "ci_builds" b ON b."id" = p."sourceJobId" JOIN "family" f ON f."id" = b."pipelineId"
    )
    SELECT "startedAt", "finishedAt" FROM "ci_builds"
    WHERE "pipelineId" IN (SELECT "id" FROM "family") AND "type" = 'build' AND NOT "retried"
      AND "status" IN ('success', 'failed', 'canceled', 'running') AND "startedAt" IS NOT NULL
    ORDER BY "startedAt"`;
  let total = 0;
  let union: { from: number; to: number } | null = null;
  for (const { startedAt, finishedAt } of periods) {
    const from = startedAt.getTime();
    const to = (finishedAt ?? now).getTime();
    if (union && from <= union.to) union.to = Math.max(union.to, to);
    else {
      if (union) total += union.to - union.from;
      union = { from, to };
    }
  }
  if (union) total += union.to - union.from;
  return Math.trunc(Math.max(0, total) / 1000);
}

/**
 * GitLab's pipeline state machine: started_at set once on entering running; finished_at on finishing; duration
 * (runningSeconds) on finishing and on waiting for a manual job.
 */
async function setPipelineStatus(
  tx: Tx,
  pipeline: { id: number; projectId: number; ref: string; status: string; startedAt: Date | null; createdAt: Date; sourceJobId: number | null },
  status: CiStatus,
  effects: ProcessingEffects,
  now: Date,
  jobsMoved: boolean,
): Promise<void> {
  if (pipeline.status === status && !jobsMoved) return;
  const data: Prisma.PipelineUpdateInput = { status };
  if (pipeline.status !== status) {
    if (status === 'running' && !pipeline.startedAt) data.startedAt = now;
    // GitLab's `after_transition canceled: any - [:canceled]`: a pipeline that runs again is no longer auto-canceled.
    if (pipeline.status === 'canceled') data.autoCanceledBy = { disconnect: true };
    const finishes = status === 'success' || status === 'failed' || status === 'canceled';
    if (finishes) data.finishedAt = now;
    else if (!isCompleted(status)) data.finishedAt = null;
    // GitLab's update_duration: nothing for a pipeline that never ran (canceled while pending keeps a null duration).
    if ((finishes || status === 'manual') && pipeline.startedAt) data.duration = await runningSeconds(tx, pipeline.id, now);
  }
  await tx.pipeline.update({ where: { id: pipeline.id }, data });
  if (pipeline.status !== status) {
    await effects.publish(PIPELINE_UPDATED, { pipelineId: pipeline.id, projectId: pipeline.projectId, status } satisfies PipelineUpdatedMessage, tx);
    await enqueueHookEvent(effects.app.jobs, { trigger: 'pipeline_hooks', projectId: pipeline.projectId, branch: null, data: null, pipeline: { pipelineId: pipeline.id, status } }, tx);
    // Merge requests set to merge when this pipeline succeeds (auto_merge.ts): merged, or their auto-merge cancelled.
    if (status === 'success' || status === 'failed' || status === 'canceled') await enqueueAutoMerge(effects.app.jobs, pipeline.id, status, tx);
    // A merge train car's pipeline finished: its train moves on (merge_trains/jobs.ts).
    if (isMergeTrainRef(pipeline.ref) && isCompleted(status)) await enqueueTrainPipelineFinished(effects.app.jobs, pipeline.id, status, tx);
    // A downstream pipeline tells its bridge (`strategy: depend` or `mirror`) when it completes or waits for a manual
    // job (GitLab's bridgeable statuses that either strategy acts on); the upstream pipeline is processed in a
    // transaction of its own, never under this one's lock.
    if (pipeline.sourceJobId !== null && (isCompleted(status) || status === 'manual')) {
      await effects.app.jobs.enqueue(BRIDGE_STATUS_JOB, { pipelineId: pipeline.id }, {}, tx);
    }
  }
}

/**
 * Processing after a job moved from pending to running without the pipeline's lock (the runner queue claims job
 * rows alone, so that runners do not queue behind each other): such a move starts nothing and can only make the
 * pipeline running. So the pipeline is first read under a shared lock, which runners hold together and which
 * waits only for a processing under way (one that may have read the job still pending): running then, there is
 * nothing to do, as any later processing sees the job. Otherwise it is processed under its lock, unless another
 * runner made it running meanwhile. The shared read may go through a read lane's client: it writes nothing.
 */
export async function processStartedJob(db: { write: PrismaClient; read: PrismaClient }, pipelineId: number, effects: ProcessingEffects): Promise<void> {
  const [seen] = await db.read.$queryRaw<{ status: string }[]>`SELECT "status" FROM "ci_pipelines" WHERE "id" = ${pipelineId} FOR SHARE`;
  if (!seen || seen.status === 'running') return;
  await db.write.$transaction(async (tx) => {
    const [pipeline] = await tx.$queryRaw<{ status: string }[]>`SELECT "status" FROM "ci_pipelines" WHERE "id" = ${pipelineId} FOR UPDATE`;
    if (pipeline && pipeline.status !== 'running') await processPipeline(tx, pipelineId, effects);
  });
  // The status change's webhook event exists now that the transaction committed.
  effects.app.jobs.wake();
}

/** Runs `change` and then processes the pipeline, in one transaction holding the pipeline's lock. */
export async function withPipeline<T>(db: PrismaClient, pipelineId: number, effects: ProcessingEffects, change: (tx: Tx) => Promise<T>): Promise<T> {
  let queued = false;
  const jobs: ProcessingEffects['app']['jobs'] = {
    enqueue: (...args) => ((queued = true), effects.app.jobs.enqueue(...args)),
    wake: () => effects.app.jobs.wake(),
  };
  const result = await db.$transaction(async (tx) => {
    await lockPipeline(tx, pipelineId);
    const result = await change(tx);
    await processPipeline(tx, pipelineId, { publish: effects.publish, app: { jobs } });
    return result;
  });
  // Jobs queued in the transaction exist now: look for them at once rather than at the next poll.
  if (queued) effects.app.jobs.wake();
  return result;
}
