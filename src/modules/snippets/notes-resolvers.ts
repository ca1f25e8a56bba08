/** GraphQL resolvers of snippet notes: the SNIPPET noteable kind, the Notes API's list and create, Snippet's notes. */
import type { Context } from '../../context.js';
import type { PageArgs } from '../../graphql/connection.js';
import type { Noteable } from '../notes/noteables.js';
import { SNIPPET } from './noteable.js';
import type { SnippetRow } from './service.js';

/** The snippet as a noteable of the notes engine (its project's, or none for a personal snippet). */
async function noteableOf(ctx: Context, s: SnippetRow): Promise<Noteable> {
  return ctx.services.notes.noteableByGlobalId(ctx.services, SNIPPET, String(s.id), null);
}

export const snippetNotesResolvers = {
  NoteableKind: { SNIPPET },
  NoteOrderBy: { CREATED_AT: 'created_at', UPDATED_AT: 'updated_at' },
  NoteableThreads: {
    notes: (n: Noteable, args: PageArgs & { orderBy?: 'created_at' | 'updated_at' | null; sort?: 'ASC' | 'DESC' | null }, ctx: Context) =>
      ctx.services.notes.notes(n, args, args.orderBy ?? 'created_at', args.sort === 'ASC' ? 'asc' : 'desc'),
  },
  Snippet: {
    notes: async (s: SnippetRow, args: PageArgs, ctx: Context) => ctx.services.notes.comments(await noteableOf(ctx, s), args),
    discussions: async (s: SnippetRow, args: PageArgs, ctx: Context) => ctx.services.notes.discussions(await noteableOf(ctx, s), args),
  },
};
