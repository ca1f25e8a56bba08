/**
 * A running job's log, as its runner sends it (GitLab's Ci::AppendBuildTraceService): each patch starts where the
 * stored log ends, else `416` with the size the runner must resume from. Masked values are replaced by `[MASKED]`
 * before anything is stored, whichever runner sent the log, an end that might begin one being held back until the
 * next patch. Sizes and offsets count the bytes the runner sent; the stored bytes are the masked ones.
 */
import { maskTrace } from '../../ci/mask.js';
import { badRequest, forbidden, jobForbidden } from '../../errors.js';
import { JOB_TRACE_APPENDED, withPipeline, type JobTraceAppendedMessage } from '../pipelines/processing.js';
import { jobByToken, maskedValues, type ProtocolDeps, type Tx } from './protocol.js';
import { touchRunner } from './transitions.js';

/** GitLab's `ci_jobs_trace_size_limit` default: a log beyond 100 MB fails the job (`trace_size_exceeded`). */
export const MAX_TRACE_BYTES = 100 * 1024 * 1024;
/** What GitLab asks a runner to wait between patches while someone watches the job (`X-GitLab-Trace-Update-Interval`). */
export const TRACE_UPDATE_INTERVAL_SECONDS = 3;

export interface TraceResult {
  /** 202 when appended, 416 when the patch does not start at the end of the stored log. */
  status: 202 | 416;
  /** The log's size now (`Range: 0-<size>`). */
  size: number;
  jobStatus: string;
}

/**
 * Stores one chunk of a job's log (bytes already masked) that starts at `runnerOffset` of what the runner sent, and
 * announces it on commit of `tx` (jobTraceUpdated), with where it starts in the stored log. The caller holds the
 * job's lock, so chunks are numbered and announced in the order they are stored.
 */
export async function storeTraceChunk(tx: Tx, publish: ProtocolDeps['publish'], job: { id: number; pipelineId: number; projectId: number }, runnerOffset: number, bytes: Buffer): Promise<void> {
  const [stored] = await tx.$queryRaw<{ size: number }[]>`
    SELECT COALESCE(SUM(octet_length("data")), 0)::int AS "size" FROM "ci_build_trace_chunks" WHERE "jobId" = ${job.id}`;
  const chunk = await tx.ciTraceChunk.create({ data: { jobId: job.id, offset: runnerOffset, data: new Uint8Array(bytes) }, select: { id: true } });
  const message: JobTraceAppendedMessage = { jobId: job.id, pipelineId: job.pipelineId, projectId: job.projectId, chunkId: chunk.id, offset: stored?.size ?? 0, bytes: bytes.length };
  await publish(JOB_TRACE_APPENDED, message, tx);
}

/** The first byte of `Content-Range: <first>-<last>`; GitLab reads the first number only (runners send an inclusive end). */
function rangeStart(contentRange: string | undefined): number {
  if (contentRange === undefined) throw badRequest('400 Missing header Content-Range');
  const match = /^\s*(\d{1,15})-\d{1,15}\s*$/.exec(contentRange);
  if (!match) throw badRequest('400 Bad request - Content-Range is invalid');
  return Number(match[1]);
}

export async function appendTrace(deps: ProtocolDeps, jobId: number, token: unknown, contentRange: string | undefined, body: Buffer): Promise<TraceResult> {
  const job = await jobByToken(deps.db, jobId, token);
  const start = rangeStart(contentRange);
  const now = new Date();
  await touchRunner(deps, job.runnerId, now);
  if (start + body.length > MAX_TRACE_BYTES) {
    await withPipeline(deps.db, job.pipelineId, deps, async (tx) => {
      const current = await tx.ciJob.findUnique({ where: { id: job.id }, select: { status: true } });
      if (current?.status !== 'running') return;
      await deps.pipelines.setJobStatus(tx, { id: job.pipelineId, projectId: job.projectId }, job.id, 'failed', {
        failureReason: 'trace_size_exceeded',
        finishedAt: now,
        tokenDigest: null,
        traceHeld: null,
      });
    });
    throw forbidden();
  }
  const secrets = await maskedValues(deps, job, token as string);
  return deps.db.$transaction(async (tx) => {
    // One patch of a job at a time: the job's row is locked while its log grows.
    const [current] = await tx.$queryRaw<{ status: string; traceSize: number; traceHeld: Uint8Array | null }[]>`
      SELECT "status", "traceSize", "traceHeld" FROM "ci_builds" WHERE "id" = ${job.id} FOR UPDATE`;
    if (!current) throw forbidden();
    if (current.status !== 'running') throw jobForbidden(current.status, 'Job is not running');
    if (start !== current.traceSize) return { status: 416, size: current.traceSize, jobStatus: current.status };
    const held = current.traceHeld ? Buffer.from(current.traceHeld) : Buffer.alloc(0);
    const masked = maskTrace(held, body, secrets, false);
    if (masked.store.length) await storeTraceChunk(tx, deps.publish, job, start - held.length, masked.store);
    const size = start + body.length;
    await tx.ciJob.update({ where: { id: job.id }, data: { traceSize: size, traceHeld: masked.held.length ? new Uint8Array(masked.held) : null, heartbeatAt: now } });
    return { status: 202, size, jobStatus: current.status };
  });
}
