/** The background job queue: jobs stored in the `jobs` table, claimed by any replica, retried with backoff. */
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import { Prisma, type Database, type PrismaClient, type RawQuerier } from '../db/database.js';

/** The bus topic of JobQueueOptions.announceEnqueued. */
export const JOBS_ENQUEUED = 'jobs.enqueued';

export interface JobInfo {
  id: bigint;
  /** 1 on the first run. */
  attempts: number;
}

/** Runs one job; `db` is the queue's database (write connections), for the handler's own statements. */
export type JobHandler = (payload: unknown, job: JobInfo, db: PrismaClient) => Promise<void>;

/**
 * A job that runs every `everyMs`, on one replica at a time: one row per kind (unique key `recurring:<kind>`),
 * claimed like any job and, once run (or failed), queued again for the next interval instead of finishing.
 */
export interface RecurringJob {
  everyMs: number;
  run: JobHandler;
}

/** Handlers by job kind, as modules declare them. */
export type JobHandlers = Readonly<Record<string, JobHandler | RecurringJob>>;

export interface JobQueueOptions {
  /** Recorded in "lockedBy"; must differ between processes sharing a database. */
  workerId?: string;
  pollIntervalMs?: number;
  /** How long a claim lasts without renewal; a crashed worker's jobs run again after it. */
  leaseMs?: number;
  /** Jobs run at the same time by this queue, and claimed per tick. */
  concurrency?: number;
  /** How long stop() waits for running handlers. */
  stopTimeoutMs?: number;
  logger?: { warn(obj: object, msg?: string): void };
  /**
   * Announces, on commit of `tx`, that a transaction enqueued jobs (the event bus: src/server.ts wakes every replica's
   * queue on it). Without it a job enqueued in a transaction waits for the next poll on PostgreSQL, where the wake at
   * enqueue looks before the transaction has committed.
   */
  announceEnqueued?: (tx: RawQuerier) => Promise<unknown>;
}

export interface EnqueueOptions {
  runAt?: Date;
  maxAttempts?: number;
  /** A job with this key is created once, ever: later enqueues return the existing job's id. */
  uniqueKey?: string;
}

interface ClaimedJob {
  id: bigint;
  kind: string;
  payload: unknown;
  attempts: number;
  maxAttempts: number;
}

const MAX_BACKOFF_MS = 60 * 60 * 1000;
const MAX_ERROR_LENGTH = 4000;

/** The unique key of a recurring kind's one row. */
export function recurringKey(kind: string): string {
  return `recurring:${kind}`;
}

/** 2^attempts seconds, capped at an hour, plus up to 10% jitter so failed jobs do not retry in lockstep. */
export function backoffMs(attempts: number): number {
  const base = Math.min(2 ** attempts * 1000, MAX_BACKOFF_MS);
  return Math.round(base + Math.random() * base * 0.1);
}

export class JobQueue {
  readonly workerId: string;
  private readonly pollIntervalMs: number;
  private readonly leaseMs: number;
  private readonly concurrency: number;
  private readonly stopTimeoutMs: number;
  private readonly logger: { warn(obj: object, msg?: string): void };
  private readonly announceEnqueued: ((tx: RawQuerier) => Promise<unknown>) | undefined;
  private readonly handlers = new Map<string, JobHandler>();
  /** Interval of each recurring kind. */
  private readonly recurring = new Map<string, number>();
  /** Claimed jobs still running here, by id, with the attempt number that identifies this claim. */
  private readonly inFlight = new Map<bigint, number>();
  private running = false;
  private timer: NodeJS.Timeout | undefined;
  private heartbeat: NodeJS.Timeout | undefined;
  private tick: Promise<void> | undefined;
  private wakeRequested = false;

  constructor(
    private readonly db: Database,
    options: JobQueueOptions = {},
  ) {
    this.workerId = options.workerId ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
    this.pollIntervalMs = options.pollIntervalMs ?? 1000;
    this.leaseMs = options.leaseMs ?? 60_000;
    this.concurrency = options.concurrency ?? 1;
    this.stopTimeoutMs = options.stopTimeoutMs ?? 30_000;
    this.logger = options.logger ?? { warn: (obj, msg) => console.warn(msg ?? 'job queue', obj) };
    this.announceEnqueued = options.announceEnqueued;
  }

  register(kind: string, handler: JobHandler | RecurringJob): void {
    if (this.handlers.has(kind)) throw new Error(`A handler for job kind "${kind}" is already registered`);
    if (typeof handler === 'function') {
      this.handlers.set(kind, handler);
      return;
    }
    if (!(handler.everyMs > 0)) throw new Error(`Recurring job kind "${kind}" needs a positive interval`);
    this.handlers.set(kind, handler.run);
    this.recurring.set(kind, handler.everyMs);
  }

  /**
   * Makes sure every recurring kind has its row, first due one interval from now (a new database has nothing to
   * catch up on); a row left finished by an older version is due at once. Every replica calls this at start; the
   * unique key leaves one row whoever comes first. One statement: once one kind's row is there, all are.
   */
  async scheduleRecurring(): Promise<void> {
    const rows = [...this.recurring].map(
      ([kind, everyMs]) => Prisma.sql`(${kind}, '{}'::jsonb, 1, ${recurringKey(kind)}::text, now() + (${everyMs}::double precision * interval '1 millisecond'), now())`,
    );
    await this.db.prisma.$executeRaw`
      INSERT INTO "jobs" ("kind", "payload", "maxAttempts", "uniqueKey", "runAt", "updatedAt")
      VALUES ${Prisma.join(rows)}
      ON CONFLICT ("uniqueKey") DO UPDATE SET "status" = 'queued', "runAt" = now(), "updatedAt" = now()
      WHERE "jobs"."status" IN ('done', 'failed')`;
  }

  /** With `tx`, the job exists only if that transaction commits; this process then finds it on its next poll. */
  async enqueue(kind: string, payload: unknown, options: EnqueueOptions = {}, tx?: RawQuerier): Promise<bigint> {
    const client = tx ?? this.db.prisma;
    const json = JSON.stringify(payload ?? {});
    const runAt = options.runAt ?? null;
    const maxAttempts = options.maxAttempts ?? 5;
    const uniqueKey = options.uniqueKey ?? null;
    const inserted = await client.$queryRaw<Array<{ id: bigint }>>`
      INSERT INTO "jobs" ("kind", "payload", "maxAttempts", "runAt", "uniqueKey", "updatedAt")
      VALUES (${kind}, ${json}::jsonb, ${maxAttempts}::int, COALESCE(${runAt}::timestamptz, now()), ${uniqueKey}::text, now())
      ON CONFLICT ("uniqueKey") DO NOTHING
      RETURNING "id"`;
    let id = inserted[0]?.id;
    if (id === undefined) {
      const existing = await client.$queryRaw<Array<{ id: bigint }>>`SELECT "id" FROM "jobs" WHERE "uniqueKey" = ${uniqueKey}::text`;
      id = existing[0]?.id;
      if (id === undefined) throw new Error(`Job with unique key "${uniqueKey}" neither inserted nor found`);
    }
    if (tx && this.announceEnqueued) await this.announceEnqueued(tx);
    else this.wake();
    return id;
  }

  /** Starts polling; recurring kinds get their rows first (a failure there is logged, and the next start retries). */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.heartbeat ??= setInterval(() => void this.renewLeases(), Math.max(50, Math.floor(this.leaseMs / 3)));
    if (this.recurring.size === 0) return this.schedule(0);
    this.scheduleRecurring()
      .catch((err) => this.logger.warn({ err, workerId: this.workerId }, 'job queue: scheduling recurring jobs failed'))
      .finally(() => this.running && this.schedule(0));
  }

  /** Handlers still running after stopTimeoutMs are abandoned: their leases lapse and another worker reruns them. */
  async stop(): Promise<void> {
    this.running = false;
    clearTimeout(this.timer);
    this.timer = undefined;
    const tick = this.tick;
    if (tick) {
      let timeout: NodeJS.Timeout | undefined;
      const timedOut = new Promise<'timeout'>((resolve) => {
        timeout = setTimeout(() => resolve('timeout'), this.stopTimeoutMs);
      });
      const outcome = await Promise.race([tick.then(() => 'done' as const), timedOut]);
      clearTimeout(timeout);
      if (outcome === 'timeout') {
        this.logger.warn({ jobs: [...this.inFlight.keys()].map(String), workerId: this.workerId }, 'job queue: stopped with jobs still running');
      }
    }
    // start() may have been called again while this stop() waited.
    if (!this.running) {
      clearInterval(this.heartbeat);
      this.heartbeat = undefined;
    }
  }

  /** Claims one batch and runs it to the end; resolves to the number of jobs claimed. */
  async runOnce(): Promise<number> {
    const kinds = [...this.handlers.keys()];
    if (kinds.length === 0) return 0;
    const jobs = await this.claim(kinds, this.concurrency);
    // allSettled: returning while a sibling still runs would let stop() and the next tick miss it.
    const outcomes = await Promise.allSettled(jobs.map((job) => this.run(job)));
    const failure = outcomes.find((outcome) => outcome.status === 'rejected');
    if (failure) throw failure.reason;
    return jobs.length;
  }

  /**
   * Runs batches until no job is runnable now (jobs waiting for a later runAt stay queued), and waits for the batch a
   * poll or a wake has running meanwhile: once it resolves, this queue runs nothing until something is enqueued.
   */
  async drain(timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      await this.tick;
      if ((await this.runOnce()) === 0 && !this.tick) return;
      if (Date.now() > deadline) throw new Error(`Job queue not drained after ${timeoutMs} ms`);
    }
  }

  /** Looks for due jobs now (after a transaction that enqueued some committed), not at the next poll. */
  wake(): void {
    if (!this.running) return;
    if (this.tick) {
      this.wakeRequested = true;
      return;
    }
    this.schedule(0);
  }

  private schedule(delayMs: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      // A restart right after stop() can find the previous tick still running; never run two at once.
      if (this.tick) {
        this.wakeRequested = true;
        return;
      }
      this.tick = this.loop().finally(() => {
        this.tick = undefined;
      });
    }, delayMs);
  }

  private async loop(): Promise<void> {
    this.wakeRequested = false;
    let claimed = 0;
    try {
      claimed = await this.runOnce();
    } catch (err) {
      // The database may be briefly unreachable; the next poll tries again.
      this.logger.warn({ err, workerId: this.workerId }, 'job queue: running a batch failed');
    }
    if (!this.running) return;
    // A full batch suggests more are waiting: go on at once instead of sleeping a whole interval.
    const again = this.wakeRequested || claimed >= this.concurrency;
    this.schedule(again ? 0 : this.pollIntervalMs);
  }

  /**
   * One statement, so rows are locked only for its duration and never while a handler runs. Times are compared at
   * the columns' precision: a `runAt` of now() is stored rounded to the millisecond, up to half of one later, and a
   * claim right after its enqueue would otherwise find it not yet due (rounding keeps the order of the two times).
   */
  private async claim(kinds: string[], limit: number): Promise<ClaimedJob[]> {
    const jobs = await this.db.prisma.$queryRaw<ClaimedJob[]>`
      UPDATE "jobs" SET
        "status" = 'running',
        "attempts" = "attempts" + 1,
        "lockedUntil" = now() + (${this.leaseMs}::double precision * interval '1 millisecond'),
        "lockedBy" = ${this.workerId}::text,
        "updatedAt" = now()
      WHERE "id" IN (
        SELECT "id" FROM "jobs"
        WHERE (("status" = 'queued' AND "runAt" <= now()::timestamptz(3)) OR ("status" = 'running' AND "lockedUntil" < now()::timestamptz(3)))
          AND "kind" = ANY(${kinds}::text[])
        ORDER BY "runAt", "id"
        LIMIT ${limit}::int
        FOR UPDATE SKIP LOCKED
      )
      RETURNING "id", "kind", "payload", "attempts", "maxAttempts"`;
    for (const job of jobs) this.inFlight.set(job.id, job.attempts);
    return jobs;
  }

  private async run(job: ClaimedJob): Promise<void> {
    try {
      const handler = this.handlers.get(job.kind);
      if (!handler) throw new Error(`No handler registered for job kind "${job.kind}"`);
      const every = this.recurring.get(job.kind);
      if (job.attempts > job.maxAttempts) {
        // Only a lapsed lease gets here: the final attempt never reported back, probably because it
        // crashed its worker, so running it again could crash the next one too.
        const lapsed = new Error('Lease expired during the final attempt');
        if (every !== undefined) return await this.finishRecurring(job, every, lapsed);
        await this.finishFailed(job, lapsed, true);
        return;
      }
      try {
        await handler(job.payload, { id: job.id, attempts: job.attempts }, this.db.prisma);
      } catch (err) {
        if (every !== undefined) return await this.finishRecurring(job, every, err);
        await this.finishFailed(job, err, job.attempts >= job.maxAttempts);
        return;
      }
      if (every !== undefined) return await this.finishRecurring(job, every);
      await this.finishDone(job);
    } finally {
      this.inFlight.delete(job.id);
    }
  }

  private async finishDone(job: ClaimedJob): Promise<void> {
    const updated = await this.db.prisma.$executeRaw`
      UPDATE "jobs" SET "status" = 'done', "finishedAt" = now(), "lockedUntil" = NULL, "lastError" = NULL, "updatedAt" = now()
      WHERE ${this.ownClaim(job)}`;
    if (updated === 0) this.lostClaim(job);
  }

  private async finishFailed(job: ClaimedJob, err: unknown, final: boolean): Promise<void> {
    const message = (err instanceof Error ? err.message : String(err)).slice(0, MAX_ERROR_LENGTH);
    this.logger.warn({ err, jobId: String(job.id), kind: job.kind, attempts: job.attempts, final }, 'job queue: job failed');
    const updated = final
      ? await this.db.prisma.$executeRaw`
          UPDATE "jobs" SET "status" = 'failed', "finishedAt" = now(), "lockedUntil" = NULL, "lastError" = ${message}::text, "updatedAt" = now()
          WHERE ${this.ownClaim(job)}`
      : await this.db.prisma.$executeRaw`
          UPDATE "jobs" SET "status" = 'queued', "runAt" = now() + (${backoffMs(job.attempts)}::double precision * interval '1 millisecond'),
            "lockedUntil" = NULL, "lockedBy" = NULL, "lastError" = ${message}::text, "updatedAt" = now()
          WHERE ${this.ownClaim(job)}`;
    if (updated === 0) this.lostClaim(job);
  }

  /** A recurring job waits for its next interval, whether this run succeeded or failed (it is not retried sooner). */
  private async finishRecurring(job: ClaimedJob, everyMs: number, err?: unknown): Promise<void> {
    const message = err === undefined ? null : (err instanceof Error ? err.message : String(err)).slice(0, MAX_ERROR_LENGTH);
    if (err !== undefined) this.logger.warn({ err, jobId: String(job.id), kind: job.kind }, 'job queue: recurring job failed; it runs again at its next interval');
    const updated = await this.db.prisma.$executeRaw`
      UPDATE "jobs" SET "status" = 'queued', "attempts" = 0, "runAt" = now() + (${everyMs}::double precision * interval '1 millisecond'),
        "finishedAt" = now(), "lockedUntil" = NULL, "lockedBy" = NULL, "lastError" = ${message}::text, "updatedAt" = now()
      WHERE ${this.ownClaim(job)}`;
    if (updated === 0) this.lostClaim(job);
  }

  /** A claim is this worker's and this attempt's: a reclaim by anyone, even this worker, bumps attempts. */
  private ownClaim(job: ClaimedJob): Prisma.Sql {
    return Prisma.sql`"id" = ${job.id} AND "lockedBy" = ${this.workerId}::text AND "status" = 'running' AND "attempts" = ${job.attempts}::int`;
  }

  private lostClaim(job: ClaimedJob): void {
    this.logger.warn(
      { jobId: String(job.id), kind: job.kind, attempts: job.attempts, workerId: this.workerId },
      'job queue: lease lapsed before the job finished; another worker owns it now, result discarded',
    );
  }

  /** Runs while handlers do, so a long job keeps its claim and is not started a second time elsewhere. */
  private async renewLeases(): Promise<void> {
    if (this.inFlight.size === 0) return;
    const ids = [...this.inFlight.keys()];
    try {
      await this.db.prisma.$executeRaw`
        UPDATE "jobs" SET "lockedUntil" = now() + (${this.leaseMs}::double precision * interval '1 millisecond'), "updatedAt" = now()
        WHERE "id" = ANY(${ids}::bigint[]) AND "lockedBy" = ${this.workerId}::text AND "status" = 'running'`;
    } catch (err) {
      this.logger.warn({ err, workerId: this.workerId }, 'job queue: renewing leases failed');
    }
  }
}
