/** Batched reads for a page of errors: users affected, and each error's first and latest event. */
import DataLoader from 'dataloader';
import { Prisma, type PrismaClient } from '../../db/database.js';
import { queryRows } from '../../db/direct-reads.js';
import type { ErrorEventRow } from './service.js';

export function createErrorTrackingLoaders(db: PrismaClient) {
  /** One event per error, the earliest or the latest by occurrence. */
  const edgeEvents = (order: Prisma.Sql) =>
    new DataLoader<number, ErrorEventRow | null>(async (errorIds) => {
      const rows = await queryRows<ErrorEventRow>(
        db,
        Prisma.sql`SELECT DISTINCT ON ("errorId") * FROM error_tracking_error_events
          WHERE "errorId" = ANY(${[...errorIds]}::int[]) ORDER BY "errorId", ${order}`,
      );
      const byError = new Map(rows.map((r) => [r.errorId, r]));
      return errorIds.map((id) => byError.get(id) ?? null);
    });
  return {
    /** Distinct users an error's events name (GitLab's users affected). */
    userCounts: new DataLoader<number, number>(async (errorIds) => {
      const rows = await queryRows<{ errorId: number; users: bigint | number }>(
        db,
        Prisma.sql`SELECT "errorId", count(DISTINCT "userIdentity") AS users FROM error_tracking_error_events
          WHERE "errorId" = ANY(${[...errorIds]}::int[]) GROUP BY "errorId"`,
      );
      const counts = new Map(rows.map((r) => [r.errorId, Number(r.users)]));
      return errorIds.map((id) => counts.get(id) ?? 0);
    }),
    firstEvents: edgeEvents(Prisma.sql`"occurredAt" ASC, id ASC`),
    latestEvents: edgeEvents(Prisma.sql`"occurredAt" DESC, id DESC`),
  };
}

export type ErrorTrackingLoaders = ReturnType<typeof createErrorTrackingLoaders>;
