/** The job queue against a real database: runs, retries, leases, races between workers, deduplication. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/db/database.js';
import { JobQueue, backoffMs, recurringKey, type JobInfo, type JobQueueOptions } from '../../src/jobs/queue.js';
import { freshDatabase, type FreshDatabase } from '../support/db.js';
import { eventually } from '../support/wait.js';

let fresh: FreshDatabase;
let db: Database;
const quiet = { warn: () => {} };

beforeAll(async () => {
  fresh = await freshDatabase('jobs');
  db = fresh.db;
}, 60_000);

afterAll(async () => {
  await fresh?.cleanup();
});

/** Queues claim only kinds they handle, so a kind per test keeps the tests of this file apart. */
function uniqueKind(name: string): string {
  return `${name}-${Math.random().toString(36).slice(2, 10)}`;
}

function queue(options: JobQueueOptions = {}, database: Database = db): JobQueue {
  return new JobQueue(database, { logger: quiet, ...options });
}

function job(id: bigint) {
  return db.prisma.job.findUniqueOrThrow({ where: { id } });
}

const waitFor = (check: () => boolean | Promise<boolean>, timeoutMs = 10_000) => eventually(check, timeoutMs, 10);

describe('JobQueue', () => {
  it('runs a job with its payload and marks it done', async () => {
    const kind = uniqueKind('hook');
    const q = queue({ workerId: 'worker-a' });
    const calls: Array<[unknown, JobInfo]> = [];
    q.register(kind, async (payload, info) => {
      calls.push([payload, info]);
    });
    const id = await q.enqueue(kind, { hookId: 12, event: 'push' });
    expect(typeof id).toBe('bigint');
    expect(await q.runOnce()).toBe(1);
    expect(calls).toEqual([[{ hookId: 12, event: 'push' }, { id, attempts: 1 }]]);
    const row = await job(id);
    expect(row).toMatchObject({ status: 'done', attempts: 1, lockedBy: 'worker-a', lockedUntil: null, lastError: null });
    expect(row.finishedAt).toBeInstanceOf(Date);
    expect(await q.runOnce()).toBe(0);
  });

  it('runs a job enqueued a moment ago, every time: its runAt, now() stored to the millisecond, may round up', async () => {
    const kind = uniqueKind('at-once');
    const q = queue();
    q.register(kind, async () => {});
    let missed = 0;
    for (let i = 0; i < 100; i += 1) {
      await q.enqueue(kind, {});
      if ((await q.runOnce()) === 0) missed += 1;
    }
    expect(missed).toBe(0);
  });

  it('does not run a job before its runAt', async () => {
    const kind = uniqueKind('later');
    const q = queue();
    let runs = 0;
    q.register(kind, async () => {
      runs += 1;
    });
    const id = await q.enqueue(kind, {}, { runAt: new Date(Date.now() + 60_000) });
    expect(await q.runOnce()).toBe(0);
    await db.prisma.job.update({ where: { id }, data: { runAt: new Date(Date.now() - 1000) } });
    expect(await q.runOnce()).toBe(1);
    expect(runs).toBe(1);
  });

  it('retries a failing job with exponential backoff, then fails it after maxAttempts', async () => {
    const kind = uniqueKind('flaky');
    const q = queue();
    const attempts: number[] = [];
    q.register(kind, async (_payload, info) => {
      attempts.push(info.attempts);
      throw new Error(`boom ${info.attempts}`);
    });
    const id = await q.enqueue(kind, {}, { maxAttempts: 3 });

    const before1 = Date.now();
    expect(await q.runOnce()).toBe(1);
    let row = await job(id);
    expect(row).toMatchObject({ status: 'queued', attempts: 1, lastError: 'boom 1', lockedBy: null, finishedAt: null });
    // 2^1 s plus at most 10% jitter; a second of slack for clock differences with the database.
    expect(row.runAt.getTime() - before1).toBeGreaterThanOrEqual(2000 - 1000);
    expect(row.runAt.getTime() - before1).toBeLessThanOrEqual(2200 + 1000);
    expect(await q.runOnce()).toBe(0);

    await db.prisma.job.update({ where: { id }, data: { runAt: new Date(Date.now() - 1000) } });
    const before2 = Date.now();
    expect(await q.runOnce()).toBe(1);
    row = await job(id);
    expect(row).toMatchObject({ status: 'queued', attempts: 2, lastError: 'boom 2' });
    expect(row.runAt.getTime() - before2).toBeGreaterThanOrEqual(4000 - 1000);
    expect(row.runAt.getTime() - before2).toBeLessThanOrEqual(4400 + 1000);

    await db.prisma.job.update({ where: { id }, data: { runAt: new Date(Date.now() - 1000) } });
    expect(await q.runOnce()).toBe(1);
    row = await job(id);
    expect(row).toMatchObject({ status: 'failed', attempts: 3, lastError: 'boom 3', lockedUntil: null });
    expect(row.finishedAt).toBeInstanceOf(Date);

    await db.prisma.job.update({ where: { id }, data: { runAt: new Date(Date.now() - 1000) } });
    expect(await q.runOnce()).toBe(0);
    expect(attempts).toEqual([1, 2, 3]);
  });

  it('caps the backoff at an hour', () => {
    for (let i = 0; i < 20; i += 1) {
      expect(backoffMs(1)).toBeGreaterThanOrEqual(2000);
      expect(backoffMs(1)).toBeLessThanOrEqual(2200);
      expect(backoffMs(30)).toBeGreaterThanOrEqual(3_600_000);
      expect(backoffMs(30)).toBeLessThanOrEqual(3_960_000);
    }
  });

  it('runs each of 50 jobs exactly once when two workers race for them', async () => {
    const kind = uniqueKind('race');
    // On PostgreSQL the second worker gets its own connection pool, as a second replica would.
    const second = fresh.databaseUrl ? await openDatabase({ databaseUrl: fresh.databaseUrl }) : db;
    const runs = new Map<string, number>();
    const byWorker = new Map<string, number>();
    const workers = ['worker-1', 'worker-2'].map((workerId, index) => {
      const q = queue({ workerId, pollIntervalMs: 20, concurrency: 4 }, index === 0 ? db : second);
      q.register(kind, async (payload) => {
        const key = String((payload as { n: number }).n);
        runs.set(key, (runs.get(key) ?? 0) + 1);
        byWorker.set(workerId, (byWorker.get(workerId) ?? 0) + 1);
        await new Promise((resolve) => setTimeout(resolve, 2));
      });
      return q;
    });
    try {
      const enqueuer = queue();
      for (let n = 0; n < 50; n += 1) await enqueuer.enqueue(kind, { n });
      for (const w of workers) w.start();
      await waitFor(async () => (await db.prisma.job.count({ where: { kind, status: 'done' } })) === 50);
      for (const w of workers) await w.stop();
      expect(runs.size).toBe(50);
      expect([...runs.values()].every((count) => count === 1)).toBe(true);
      expect((byWorker.get('worker-1') ?? 0) + (byWorker.get('worker-2') ?? 0)).toBe(50);
      expect(byWorker.get('worker-1')).toBeGreaterThan(0);
      expect(byWorker.get('worker-2')).toBeGreaterThan(0);
    } finally {
      for (const w of workers) await w.stop();
      if (second !== db) await second.close();
    }
  }, 20_000);

  it('reclaims a job whose worker let its lease lapse, but not one whose lease is current', async () => {
    const kind = uniqueKind('crashed');
    const q = queue({ workerId: 'rescuer' });
    const seen: JobInfo[] = [];
    q.register(kind, async (_payload, info) => {
      seen.push(info);
    });
    const id = await q.enqueue(kind, {});
    await db.prisma.job.update({
      where: { id },
      data: { status: 'running', attempts: 1, lockedBy: 'crashed-worker', lockedUntil: new Date(Date.now() + 60_000) },
    });
    expect(await q.runOnce()).toBe(0);

    await db.prisma.job.update({ where: { id }, data: { lockedUntil: new Date(Date.now() - 1000) } });
    expect(await q.runOnce()).toBe(1);
    expect(seen).toEqual([{ id, attempts: 2 }]);
    expect(await job(id)).toMatchObject({ status: 'done', attempts: 2, lockedBy: 'rescuer' });
  });

  it('fails without running a job whose final attempt lost its lease', async () => {
    const kind = uniqueKind('poison');
    const q = queue();
    let runs = 0;
    q.register(kind, async () => {
      runs += 1;
    });
    const id = await q.enqueue(kind, {}, { maxAttempts: 2 });
    await db.prisma.job.update({
      where: { id },
      data: { status: 'running', attempts: 2, lockedBy: 'crashed-worker', lockedUntil: new Date(Date.now() - 1000) },
    });
    expect(await q.runOnce()).toBe(1);
    expect(runs).toBe(0);
    expect(await job(id)).toMatchObject({ status: 'failed', lastError: 'Lease expired during the final attempt' });
  });

  it('discards the result of a worker whose job was reclaimed by another', async () => {
    const kind = uniqueKind('slow');
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const slow = queue({ workerId: 'slow-worker', leaseMs: 100 });
    slow.register(kind, async () => {
      await released;
      throw new Error('late failure');
    });
    const fast = queue({ workerId: 'fast-worker' });
    fast.register(kind, async () => {});

    const id = await slow.enqueue(kind, {}, { maxAttempts: 5 });
    // runOnce renews no leases, so the slow worker's claim lapses while its handler waits.
    const slowRun = slow.runOnce();
    await waitFor(async () => (await job(id)).status === 'running');
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(await fast.runOnce()).toBe(1);
    release();
    await slowRun;
    expect(await job(id)).toMatchObject({ status: 'done', attempts: 2, lockedBy: 'fast-worker', lastError: null });
  });

  it('renews the lease of a long job so no other worker starts it again', async () => {
    const kind = uniqueKind('long');
    let runs = 0;
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const owner = queue({ workerId: 'owner', leaseMs: 150, pollIntervalMs: 20 });
    owner.register(kind, async () => {
      runs += 1;
      await released;
    });
    const other = queue({ workerId: 'other' });
    other.register(kind, async () => {
      runs += 1;
    });
    const id = await owner.enqueue(kind, {});
    owner.start();
    try {
      await waitFor(() => runs === 1);
      for (let i = 0; i < 5; i += 1) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        expect(await other.runOnce()).toBe(0);
      }
      release();
      await waitFor(async () => (await job(id)).status === 'done');
      expect(runs).toBe(1);
      expect(await job(id)).toMatchObject({ attempts: 1, lockedBy: 'owner' });
    } finally {
      release();
      await owner.stop();
    }
  });

  it('creates a job with a unique key only once', async () => {
    const kind = uniqueKind('schedule');
    const q = queue();
    const uniqueKey = `${kind}:2026-01-01T00:00`;
    const first = await q.enqueue(kind, { n: 1 }, { uniqueKey });
    const second = await q.enqueue(kind, { n: 2 }, { uniqueKey });
    expect(second).toBe(first);
    const rows = await db.prisma.job.findMany({ where: { kind } });
    expect(rows).toHaveLength(1);
    expect(rows[0].payload).toEqual({ n: 1 });
    expect(await q.enqueue(kind, { n: 3 }, { uniqueKey: `${uniqueKey}-other` })).not.toBe(first);
  });

  it('enqueues inside a transaction only if it commits', async () => {
    const kind = uniqueKind('tx');
    const q = queue();
    await expect(
      db.prisma.$transaction(async (tx) => {
        await q.enqueue(kind, { n: 1 }, {}, tx);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await db.prisma.job.count({ where: { kind } })).toBe(0);
    const id = await db.prisma.$transaction((tx) => q.enqueue(kind, { n: 2 }, {}, tx));
    expect(await job(id)).toMatchObject({ kind, payload: { n: 2 }, status: 'queued' });
  });

  it('wakes at once on enqueue and lets stop() wait for a running handler', async () => {
    const kind = uniqueKind('wake');
    const q = queue({ pollIntervalMs: 60_000 });
    let finished = false;
    let started = false;
    q.register(kind, async () => {
      started = true;
      await new Promise((resolve) => setTimeout(resolve, 200));
      finished = true;
    });
    q.start();
    try {
      // Let the first (empty) poll pass, so only the wake-up can find the job within a minute.
      await new Promise((resolve) => setTimeout(resolve, 50));
      const id = await q.enqueue(kind, {});
      await waitFor(() => started, 2000);
      await q.stop();
      expect(finished).toBe(true);
      expect(await job(id)).toMatchObject({ status: 'done' });
    } finally {
      await q.stop();
    }
  });

  it('drains every runnable job', async () => {
    const kind = uniqueKind('drain');
    const q = queue({ concurrency: 3 });
    let runs = 0;
    q.register(kind, async () => {
      runs += 1;
    });
    for (let n = 0; n < 10; n += 1) await q.enqueue(kind, { n });
    await q.enqueue(kind, {}, { runAt: new Date(Date.now() + 60_000) });
    await q.drain(5000);
    expect(runs).toBe(10);
    expect(await db.prisma.job.count({ where: { kind, status: 'queued' } })).toBe(1);
  });

  it('keeps one row per recurring kind across replicas and queues it again after each run, failed or not', async () => {
    const kind = uniqueKind('recurring');
    const everyMs = 60 * 60 * 1000;
    const a = queue({ workerId: 'replica-a' });
    const b = queue({ workerId: 'replica-b' });
    let runs = 0;
    const recurring = { everyMs, run: async () => {
      runs += 1;
      if (runs === 2) throw new Error('flaky');
    } };
    a.register(kind, recurring);
    b.register(kind, recurring);
    await Promise.all([a.scheduleRecurring(), b.scheduleRecurring()]);
    const rows = await db.prisma.job.findMany({ where: { kind } });
    expect(rows.map((r) => r.uniqueKey)).toEqual([recurringKey(kind)]);
    // First due one interval after the first start.
    expect(rows[0].runAt.getTime()).toBeGreaterThan(Date.now() + everyMs - 60_000);
    expect(await a.runOnce()).toBe(0);
    await db.prisma.job.update({ where: { id: rows[0].id }, data: { runAt: new Date() } });
    expect((await Promise.all([a.runOnce(), b.runOnce()])).reduce((x, y) => x + y)).toBe(1);
    const after = await job(rows[0].id);
    expect(after).toMatchObject({ status: 'queued', attempts: 0, lastError: null, lockedBy: null });
    expect(after.runAt.getTime()).toBeGreaterThan(Date.now() + everyMs - 60_000);
    // Due again: a failure waits for the next interval too, with its error kept.
    await db.prisma.job.update({ where: { id: rows[0].id }, data: { runAt: new Date() } });
    expect(await a.runOnce()).toBe(1);
    expect(await job(rows[0].id)).toMatchObject({ status: 'queued', attempts: 0, lastError: 'flaky' });
    expect(runs).toBe(2);
    // A row an older version left finished is queued again at the next start.
    await db.prisma.job.update({ where: { id: rows[0].id }, data: { status: 'done', runAt: new Date(Date.now() + everyMs) } });
    await b.scheduleRecurring();
    expect(await b.runOnce()).toBe(1);
    expect(runs).toBe(3);
  });

  it('refuses a recurring kind without a positive interval', () => {
    expect(() => queue().register(uniqueKind('never'), { everyMs: 0, run: async () => {} })).toThrow(/positive interval/);
  });
});
