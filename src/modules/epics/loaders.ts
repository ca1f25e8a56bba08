/** Batched reads of what a listed epic shows: epics by id, their labels and parents, and the epic an issue is in. */
import DataLoader from 'dataloader';
import type { PrismaClient } from '../../db/database.js';
import { byKeyLoader } from '../../db/loader.js';
import { labelsOfLoader } from '../labels/loaders.js';

const EPIC = 'Epic';

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
    /** The epic-issue association of each issue, if it is in an epic. */
    linkByIssueId: byKeyLoader((ids: readonly number[]) => db.epicIssue.findMany({ where: { issueId: { in: [...ids] } } }), (l) => l.issueId),
  };
}

export type EpicLoaders = ReturnType<typeof createEpicLoaders>;
