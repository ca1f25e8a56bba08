/** GraphQL resolvers of snippet notes: the SNIPPET noteable kind, the Notes API's list and create, Snippet's notes. */
import type { Context } from '../../context.js';
import type { PageArgs } from '../../graphql/connection.js';
import type { Noteable } from '../notes/noteables.js';
import { noteableFields } from '../notes/resolvers.js';
import { SNIPPET } from './noteable.js';
import type { SnippetRow } from './service.js';

export const snippetNotesResolvers = {
  NoteableKind: { SNIPPET },
  NoteOrderBy: { CREATED_AT: 'created_at', UPDATED_AT: 'updated_at' },
  NoteableThreads: {
    notes: (n: Noteable, args: PageArgs & { orderBy?: 'created_at' | 'updated_at' | null; sort?: 'ASC' | 'DESC' | null }, ctx: Context) =>
      ctx.services.notes.notes(n, args, args.orderBy ?? 'created_at', args.sort === 'ASC' ? 'asc' : 'desc'),
  },
  Snippet: {
    ...noteableFields(SNIPPET),
    commenters: async (row: SnippetRow, args: PageArgs, ctx: Context) => ctx.services.notes.commenters(await ctx.services.notes.noteableOfRow(ctx.services, SNIPPET, row), args),
  },
};
