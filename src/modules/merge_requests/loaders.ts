/** Batched reads of what a listed merge request shows: its labels, milestone, iid and user notes count. */
import DataLoader from 'dataloader';
import type { PrismaClient } from '../../db/database.js';
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
    /** Comments by users (not system notes) on each merge request (GitLab's `user_notes_count`). */
    userNotesCount: new DataLoader<number, number>(async (ids) => {
      const rows = await db.note.groupBy({ by: ['noteableId'], where: { noteableType: MERGE_REQUEST, noteableId: { in: [...ids] }, system: false }, _count: { _all: true } });
      const found = new Map(rows.map((r) => [r.noteableId, r._count._all]));
      return ids.map((id) => found.get(id) ?? 0);
    }),
  };
}

export type MergeRequestLoaders = ReturnType<typeof createMergeRequestLoaders>;
