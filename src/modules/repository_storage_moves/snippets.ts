/**
 * Snippet repository storage moves (GitLab's Snippets::RepositoryStorageMove and lib/api/snippet_repository_storage_moves.rb):
 * the same engine as projects' (service.ts schedules, mover.ts copies, checks, switches and removes the source), its
 * GraphQL fields and REST routes. Administrators only, checked before the snippet is looked up.
 */
import type { Context } from '../../context.js';
import { notFound } from '../../errors.js';
import type { PageArgs } from '../../graphql/connection.js';
import { idFields } from '../../graphql/resolvers.js';
import type { RestRoute } from '../../rest/route.js';
import type { SnippetRow } from '../snippets/service.js';
import type { MoveRow } from './service.js';

const moves = (ctx: Context) => ctx.services.repository_storage_moves;

/** The snippet a path names (`Snippet.find_by_id`: any snippet, as administrators read them all), else `404 Snippet Not Found`. */
async function snippetId(ctx: Context, id: string): Promise<number> {
  const row = /^\d{1,10}$/.test(id) ? await ctx.services.snippets.find(Number(id)) : null;
  if (!row) throw notFound('Snippet');
  return row.id;
}

export const snippetMoveResolvers = {
  SnippetRepositoryStorageMove: {
    ...idFields('Snippets::RepositoryStorageMove'),
    id: (m: MoveRow) => m.id,
    humanStateName: (m: MoveRow) => m.state.replace(/_/g, ' '),
    snippet: (m: MoveRow, _a: unknown, ctx: Context) => ctx.services.snippets.find(m.snippetId as number),
  },
  Snippet: {
    repositoryReadOnly: (s: SnippetRow, _a: unknown, ctx: Context) => (ctx.access.allowed('admin_all_resources') ? s.repositoryReadOnly : null),
  },
  Query: {
    snippetRepositoryStorageMoves: async (_: unknown, args: PageArgs & { snippetId?: string | null }, ctx: Context) => {
      await moves(ctx).authorize('read_repository_storage_move');
      return moves(ctx).list('snippet', args.snippetId ? await snippetId(ctx, args.snippetId) : null, args);
    },
    snippetRepositoryStorageMove: async (_: unknown, args: { id: number; snippetId?: string | null }, ctx: Context) => {
      await moves(ctx).authorize('read_repository_storage_move');
      return moves(ctx).get('snippet', args.id, args.snippetId ? await snippetId(ctx, args.snippetId) : null);
    },
  },
  Mutation: {
    snippetRepositoryStorageMoveCreate: async (_: unknown, args: { snippetId: string; destinationStorageName?: string | null }, ctx: Context) => {
      await moves(ctx).authorize('create_repository_storage_move');
      return { snippetRepositoryStorageMove: await moves(ctx).scheduleSnippet(await snippetId(ctx, args.snippetId), args.destinationStorageName ?? null) };
    },
    snippetRepositoryStorageMovesSchedule: async (_: unknown, args: { sourceStorageName: string; destinationStorageName?: string | null }, ctx: Context) => {
      await moves(ctx).scheduleAll('snippet', args.sourceStorageName, args.destinationStorageName ?? null);
      return { message: '202 Accepted' };
    },
  },
};

export const snippetMoveRoutes: RestRoute[] = [
  { method: 'GET', path: '/snippet_repository_storage_moves', operation: 'RestListSnippetRepositoryStorageMoves', result: 'snippetRepositoryStorageMoves', paginate: true },
  { method: 'GET', path: '/snippet_repository_storage_moves/:repository_storage_move_id', operation: 'RestGetSnippetRepositoryStorageMove', result: 'snippetRepositoryStorageMove' },
  // GitLab's accepted!: the moves are scheduled by a background job.
  { method: 'POST', path: '/snippet_repository_storage_moves', operation: 'RestScheduleSnippetRepositoryStorageMoves', result: 'snippetRepositoryStorageMovesSchedule', status: 202 },
  { method: 'GET', path: '/snippets/:id/repository_storage_moves', operation: 'RestListRepositoryStorageMovesOfSnippet', result: 'snippetRepositoryStorageMoves', paginate: true },
  { method: 'GET', path: '/snippets/:id/repository_storage_moves/:repository_storage_move_id', operation: 'RestGetRepositoryStorageMoveOfSnippet', result: 'snippetRepositoryStorageMove' },
  { method: 'POST', path: '/snippets/:id/repository_storage_moves', operation: 'RestCreateSnippetRepositoryStorageMove', result: 'snippetRepositoryStorageMoveCreate.snippetRepositoryStorageMove' },
];
