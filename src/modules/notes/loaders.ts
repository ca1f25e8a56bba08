/** Batched reads of notes: the notes of threads (GraphQL's `Note.discussion`), merge requests' unresolved notes, and users by username (mentions). */
import DataLoader from 'dataloader';
import type { PrismaClient } from '../../db/database.js';
import { byKeyLoader } from '../../db/loader.js';
import { equalsIgnoringCase } from '../../db/text.js';
import type { NoteRow } from './service.js';

export function createNotesLoaders(db: PrismaClient) {
  return {
    byId: byKeyLoader((ids: readonly number[]) => db.note.findMany({ where: { id: { in: [...ids] } } }), (n) => n.id),
    /** A thread's notes, oldest first. */
    byDiscussion: new DataLoader<string, NoteRow[]>(async (ids) => {
      const notes = await db.note.findMany({ where: { discussionId: { in: [...ids] } }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
      const byThread = new Map(ids.map((id) => [id, [] as NoteRow[]]));
      for (const note of notes) byThread.get(note.discussionId)?.push(note);
      return ids.map((id) => byThread.get(id) ?? []);
    }),
    /** How many resolvable notes of a merge request are unresolved (its threads' DiffNotes and DiscussionNotes), by id. */
    unresolvedOfMergeRequest: new DataLoader<number, number>(async (ids) => {
      const rows = await db.note.groupBy({
        by: ['noteableId'],
        where: { noteableType: 'MergeRequest', noteableId: { in: [...ids] }, system: false, type: { in: ['DiffNote', 'DiscussionNote'] }, resolvedAt: null },
        _count: { _all: true },
      });
      const counts = new Map(rows.map((r) => [r.noteableId, r._count._all]));
      return ids.map((id) => counts.get(id) ?? 0);
    }),
    /** Users a text mentions, by lower-cased username (usernames are unique whatever their case). */
    usersByUsername: byKeyLoader(
      (names: readonly string[]) =>
        db.user.findMany({ where: { OR: names.map((username) => ({ username: equalsIgnoringCase(username) })) }, select: { id: true, username: true, name: true } }),
      (u) => u.username.toLowerCase(),
    ),
  };
}

export type NotesLoaders = ReturnType<typeof createNotesLoaders>;
