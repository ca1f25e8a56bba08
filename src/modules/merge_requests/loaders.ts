/** Batched reads of what a listed merge request shows: its labels, milestone, iid, user notes count and newest diff version. */
import DataLoader from 'dataloader';
import type { Prisma, PrismaClient } from '../../db/database.js';
import { byKeyLoader } from '../../db/loader.js';
import { labelsOfLoader } from '../labels/loaders.js';

const MERGE_REQUEST = 'MergeRequest';

export function createMergeRequestLoaders(db: PrismaClient) {
  return {
    /** Each merge request's labels, by title. */
    labels: labelsOfLoader(db, 'mergeRequestId'),
    /** Merge requests' iids by id, for the notes on them. */
    iidById: new DataLoader<number, number | undefined>(async (ids) => {
      const rows = await db.mergeRequest.findMany({ where: { id: { in: [...ids] } }, select: { id: true, iid: true } });
      const found = new Map(rows.map((r) => [r.id, r.iid]));
      return ids.map((id) => found.get(id));
    }),
    milestoneById: byKeyLoader((ids: readonly number[]) => db.milestone.findMany({ where: { id: { in: [...ids] } } }), (m) => m.id),
    /** Merge requests by id, with their people, unchecked: the merge request of a timelog its reader may read. */
    byId: byKeyLoader(
      (ids: readonly number[]) =>
        db.mergeRequest.findMany({
          where: { id: { in: [...ids] } },
          include: { assignees: { select: { userId: true }, orderBy: { createdAt: 'asc' } }, reviewers: { select: { userId: true, state: true }, orderBy: { createdAt: 'asc' } } },
        }),
      (m) => m.id,
    ),
    /** Comments by users (not system notes) on each merge request (GitLab's `user_notes_count`). */
    userNotesCount: new DataLoader<number, number>(async (ids) => {
      const rows = await db.note.groupBy({ by: ['noteableId'], where: { noteableType: MERGE_REQUEST, noteableId: { in: [...ids] }, system: false }, _count: { _all: true } });
      const found = new Map(rows.map((r) => [r.noteableId, r._count._all]));
      return ids.map((id) => found.get(id) ?? 0);
    }),
    /**
     * When each merge request was prepared (GitLab's prepared_at, set once MergeRequests::AfterCreateService made its
     * first diff version): its first version's creation, null while it has none.
     */
    preparedAt: new DataLoader<number, Date | null>(async (ids) => {
      const rows = await db.mergeRequestDiff.groupBy({ by: ['mergeRequestId'], where: { mergeRequestId: { in: [...ids] } }, _min: { createdAt: true } });
      const found = new Map(rows.map((r) => [r.mergeRequestId, r._min.createdAt]));
      return ids.map((id) => found.get(id) ?? null);
    }),
    /** Whether each merge request has pipelines of its own (merge request pipelines, merged results or trains). */
    hasPipelines: new DataLoader<number, boolean>(async (ids) => {
      const rows = await db.pipeline.findMany({ where: { mergeRequestId: { in: [...ids] } }, distinct: ['mergeRequestId'], select: { mergeRequestId: true } });
      const found = new Set(rows.map((r) => r.mergeRequestId));
      return ids.map((id) => found.has(id));
    }),
    /** Each merge request's newest diff version (its latest_merge_request_diff, versions.ts), or null. */
    latestVersion: new DataLoader<number, Prisma.MergeRequestDiffGetPayload<object> | null>(async (ids) => {
      const newest = await db.$queryRaw<{ id: number }[]>`
        SELECT DISTINCT ON ("mergeRequestId") "id" FROM "merge_request_diffs"
        WHERE "mergeRequestId" = ANY(${[...ids]}::int[]) ORDER BY "mergeRequestId", "id" DESC`;
      const rows = newest.length ? await db.mergeRequestDiff.findMany({ where: { id: { in: newest.map((r) => r.id) } } }) : [];
      const found = new Map(rows.map((r) => [r.mergeRequestId, r]));
      return ids.map((id) => found.get(id) ?? null);
    }),
  };
}

export type MergeRequestLoaders = ReturnType<typeof createMergeRequestLoaders>;
