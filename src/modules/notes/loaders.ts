/** Batched reads of notes: the notes of threads (GraphQL's `Note.discussion`), merge requests' unresolved notes, and users by username (mentions). */
import DataLoader from 'dataloader';
import type { PrismaClient } from '../../db/database.js';
import { byKeyLoader } from '../../db/loader.js';
import { equalsIgnoringCase } from '../../db/text.js';
import type { NoteRow } from './service.js';

/** A noteable's loader key, `Type:id` (its class name and id), read back. */
function noteableKey(key: string): { type: string; id: number } {
  const at = key.lastIndexOf(':');
  return { type: key.slice(0, at), id: Number(key.slice(at + 1)) };
}

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
    /**
     * Each noteable's commenters (key `Type:id`): the authors of its user notes (not system notes), one row per author
     * and internality, the author's first comment first.
     */
    commenters: new DataLoader<string, { authorId: number; internal: boolean }[]>(async (keys) => {
      const targets = keys.map(noteableKey);
      const rows = await db.note.groupBy({
        by: ['noteableType', 'noteableId', 'authorId', 'internal'],
        where: { OR: targets.map((t) => ({ noteableType: t.type, noteableId: t.id })), system: false },
        _min: { createdAt: true, id: true },
        orderBy: [{ _min: { createdAt: 'asc' } }, { _min: { id: 'asc' } }],
      });
      return targets.map((t) => rows.filter((r) => r.noteableType === t.type && r.noteableId === t.id).map((r) => ({ authorId: r.authorId, internal: r.internal })));
    }),
    /** Each noteable's threads with a user note (key `Type:id`): all of them, and those with a note that is not internal. */
    userDiscussions: new DataLoader<string, { all: number; public: number }>(async (keys) => {
      const targets = keys.map(noteableKey);
      const rows = await db.$queryRaw<{ type: string; id: number; all: number; public: number }[]>`
        SELECT "noteableType" AS "type", "noteableId" AS "id", COUNT(DISTINCT "discussionId")::int AS "all",
          (COUNT(DISTINCT "discussionId") FILTER (WHERE NOT "internal"))::int AS "public"
        FROM "notes"
        WHERE "noteableType" = ANY(${[...new Set(targets.map((t) => t.type))]}::text[]) AND "noteableId" = ANY(${targets.map((t) => t.id)}::int[]) AND NOT "system"
        GROUP BY "noteableType", "noteableId"`;
      return targets.map((t) => rows.find((r) => r.type === t.type && r.id === t.id) ?? { all: 0, public: 0 });
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
