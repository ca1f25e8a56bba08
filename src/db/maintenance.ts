/**
 * What PostgreSQL's autovacuum does, for PGlite, which has none: without it an embedded database's tables are never
 * analyzed, so the planner guesses their sizes (an issue's first thread page read all 10,000 of its notes instead of
 * the 20 threads' own), and never vacuumed, so dead rows pile up. A recurring job finds the tables whose size moved
 * by more than autovacuum's share since statistics were last taken, and vacuums and analyzes each of them.
 */
import type { PrismaClient } from './database.js';
import type { JobHandlers } from '../jobs/queue.js';

/** How often the tables are looked at: the check is one catalog read, the work only where a table changed. */
export const MAINTAIN_EVERY_MS = 60_000;
export const MAINTAIN_JOB = 'database.maintain';

/**
 * The tables of the server's schema that were never analyzed and hold rows, or whose pages grew or shrank by more
 * than a tenth (autovacuum's scale factor) and one page since: `relpages` is what the last VACUUM or ANALYZE counted,
 * `pg_relation_size` what the table takes now.
 */
async function tablesDue(db: PrismaClient): Promise<string[]> {
  const rows = await db.$queryRaw<{ name: string }[]>`
    SELECT quote_ident(c.relname) AS name
    FROM pg_class AS c JOIN pg_namespace AS n ON n.oid = c.relnamespace
    CROSS JOIN LATERAL (SELECT pg_relation_size(c.oid) / current_setting('block_size')::int AS pages) AS size
    WHERE n.nspname = current_schema() AND c.relkind = 'r'
      AND ((c.reltuples < 0 AND size.pages > 0) OR abs(size.pages - c.relpages) > 1 + c.relpages / 10)
    ORDER BY c.relname`;
  return rows.map((r) => r.name);
}

/** VACUUM (ANALYZE) of each table due, one statement each (VACUUM runs outside a transaction). */
export async function maintainTables(db: PrismaClient): Promise<string[]> {
  const due = await tablesDue(db);
  for (const table of due) await db.$executeRawUnsafe(`VACUUM (ANALYZE) ${table}`);
  return due;
}

/** The job, for PGlite only: a PostgreSQL server runs its own autovacuum. */
export const pgliteMaintenanceJobs: JobHandlers = {
  [MAINTAIN_JOB]: { everyMs: MAINTAIN_EVERY_MS, run: async (_payload, _job, db) => void (await maintainTables(db)) },
};
