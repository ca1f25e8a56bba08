/** Batched reads of what a listed epic shows: epics by id, their labels and parents, and the epic an issue is in. */
import DataLoader from 'dataloader';
import { Prisma, type PrismaClient } from '../../db/database.js';
import { byKeyLoader } from '../../db/loader.js';
import { labelsOfLoader } from '../labels/loaders.js';

const EPIC = 'Epic';

/**
 * What GitLab's epic aggregates (BulkEpicAggregateLoader and EpicNode) add up over an epic and every epic below it,
 * whoever reads them: descendant epics and issues by state, the issues' weights by state, and open issues by health.
 */
export interface EpicAggregate {
  openedEpics: number;
  closedEpics: number;
  openedIssues: number;
  closedIssues: number;
  openedWeight: number;
  closedWeight: number;
  atRisk: number;
  needsAttention: number;
  onTrack: number;
}

export function createEpicLoaders(db: PrismaClient) {
  return {
    byId: byKeyLoader((ids: readonly number[]) => db.epic.findMany({ where: { id: { in: [...ids] } } }), (e) => e.id),
    /** Each epic's labels, by title. */
    labels: labelsOfLoader(db, 'epicId'),
    /** Comments by users (not system notes) on each epic (GitLab's `user_notes_count`). */
    userNotesCount: new DataLoader<number, number>(async (ids) => {
      const rows = await db.note.groupBy({ by: ['noteableId'], where: { noteableType: EPIC, noteableId: { in: [...ids] }, system: false }, _count: { _all: true } });
      const found = new Map(rows.map((r) => [r.noteableId, r._count._all]));
      return ids.map((id) => found.get(id) ?? 0);
    }),
    /** Each epic's tree sums (EpicAggregate), in two statements for the whole batch. */
    aggregate: new DataLoader<number, EpicAggregate>(async (ids) => {
      const tree = Prisma.sql`WITH RECURSIVE "tree"("root", "id") AS (
          SELECT "id", "id" FROM "epics" WHERE "id" = ANY(${[...ids]}::int[])
          UNION ALL SELECT "tree"."root", "e"."id" FROM "epics" "e" JOIN "tree" ON "e"."parentId" = "tree"."id")`;
      const [epics, issues] = await Promise.all([
        db.$queryRaw<{ root: number; opened: bigint; closed: bigint }[]>`${tree}
          SELECT "tree"."root", count(*) FILTER (WHERE "e"."state" = 'opened') AS "opened", count(*) FILTER (WHERE "e"."state" = 'closed') AS "closed"
          FROM "tree" JOIN "epics" "e" ON "e"."id" = "tree"."id" WHERE "tree"."id" <> "tree"."root" GROUP BY "tree"."root"`,
        db.$queryRaw<{ root: number; opened: bigint; closed: bigint; openedWeight: bigint; closedWeight: bigint; atRisk: bigint; needsAttention: bigint; onTrack: bigint }[]>`${tree}
          SELECT "tree"."root",
            count(*) FILTER (WHERE "i"."state" = 'opened') AS "opened",
            count(*) FILTER (WHERE "i"."state" = 'closed') AS "closed",
            coalesce(sum("i"."weight") FILTER (WHERE "i"."state" = 'opened'), 0) AS "openedWeight",
            coalesce(sum("i"."weight") FILTER (WHERE "i"."state" = 'closed'), 0) AS "closedWeight",
            count(*) FILTER (WHERE "i"."state" = 'opened' AND "i"."healthStatus"::text = 'at_risk') AS "atRisk",
            count(*) FILTER (WHERE "i"."state" = 'opened' AND "i"."healthStatus"::text = 'needs_attention') AS "needsAttention",
            count(*) FILTER (WHERE "i"."state" = 'opened' AND "i"."healthStatus"::text = 'on_track') AS "onTrack"
          FROM "tree" JOIN "epic_issues" "ei" ON "ei"."epicId" = "tree"."id" JOIN "issues" "i" ON "i"."id" = "ei"."issueId" GROUP BY "tree"."root"`,
      ]);
      return ids.map((id) => {
        const e = epics.find((r) => r.root === id);
        const i = issues.find((r) => r.root === id);
        return {
          openedEpics: Number(e?.opened ?? 0),
          closedEpics: Number(e?.closed ?? 0),
          openedIssues: Number(i?.opened ?? 0),
          closedIssues: Number(i?.closed ?? 0),
          openedWeight: Number(i?.openedWeight ?? 0),
          closedWeight: Number(i?.closedWeight ?? 0),
          atRisk: Number(i?.atRisk ?? 0),
          needsAttention: Number(i?.needsAttention ?? 0),
          onTrack: Number(i?.onTrack ?? 0),
        };
      });
    }),
    /** The epic-issue association of each issue, if it is in an epic. */
    linkByIssueId: byKeyLoader((ids: readonly number[]) => db.epicIssue.findMany({ where: { issueId: { in: [...ids] } } }), (l) => l.issueId),
  };
}

export type EpicLoaders = ReturnType<typeof createEpicLoaders>;
