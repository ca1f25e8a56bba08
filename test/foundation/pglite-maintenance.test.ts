/**
 * PGlite has no autovacuum: the server's recurring `database.maintain` job vacuums and analyzes the tables whose size
 * moved, so the planner knows their sizes (src/db/maintenance.ts). On PostgreSQL the server's own autovacuum does it
 * and the job does not exist.
 */
import { describe, expect, it } from 'vitest';
import { suiteServer } from '../support/server.js';
import { eventually } from '../support/wait.js';

const t = suiteServer();
/** The pglite project runs with TEST_DATABASE_URL empty; the postgres project's server has autovacuum instead. */
const onPglite = !process.env.TEST_DATABASE_URL;
const db = () => t.server.database.prisma;
const statistics = async (table: string) =>
  (await db().$queryRaw<{ reltuples: number; relpages: number }[]>`SELECT reltuples::float8 AS reltuples, relpages FROM pg_class WHERE relname = ${table}`)[0];
const maintainNow = async () => {
  await db().$executeRaw`UPDATE "jobs" SET "runAt" = now() WHERE "uniqueKey" = 'recurring:database.maintain' AND "status" = 'queued'`;
  t.server.app.jobs.wake();
};

describe('table maintenance', () => {
  it('exists on PGlite only', async () => {
    const recurring = async () => (await db().$queryRaw<{ kind: string }[]>`SELECT "kind" FROM "jobs" WHERE "uniqueKey" LIKE 'recurring:%'`).map((r) => r.kind);
    // The queue writes its recurring rows as it starts: once any is there, all are.
    const kinds = await eventually(async () => {
      const found = await recurring();
      return found.length > 0 && found;
    });
    expect([t.server.database.kind, kinds.includes('database.maintain')]).toEqual(onPglite ? ['pglite', true] : ['postgres', false]);
  });

  it.runIf(onPglite)('gives a table that grew its statistics, and leaves unchanged ones alone (PGlite)', async () => {
    // note_counts holds no foreign keys: rows straight in, as if 5,000 noteables had been commented on.
    await db().$executeRaw`INSERT INTO note_counts (key, notes, threads) SELECT 'Bench:' || i, 1, 1 FROM generate_series(1, 5000) AS i`;
    await maintainNow();
    const counted = await eventually(async () => {
      const s = await statistics('note_counts');
      return s.reltuples >= 5000 && s;
    });
    expect(counted.relpages).toBeGreaterThan(10);
    // Nothing changed since: the next run leaves it as it is (its statistics keep their time).
    const analyzedAt = async () => (await db().$queryRaw<{ at: Date | null }[]>`SELECT last_analyze AS at FROM pg_stat_user_tables WHERE relname = 'note_counts'`)[0].at;
    const before = await analyzedAt();
    const runs = async () => (await db().$queryRaw<{ attempts: number; runAt: Date }[]>`SELECT "attempts", "runAt" FROM "jobs" WHERE "uniqueKey" = 'recurring:database.maintain'`)[0];
    const first = await runs();
    await maintainNow();
    await eventually(async () => (await runs()).runAt.getTime() > first.runAt.getTime());
    expect(await analyzedAt()).toEqual(before);
  });
});
