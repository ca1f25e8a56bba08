/** GraphQL resolvers of repository storage moves; the REST routes run through them too. */
import type { Context } from '../../context.js';
import type { PageArgs } from '../../graphql/connection.js';
import { parseRef } from '../../graphql/ids.js';
import { idFields } from '../../graphql/resolvers.js';
import type { NamespaceRow } from '../namespaces/service.js';
import type { ProjectRow } from '../projects/service.js';
import type { MoveRow, MoveState } from './service.js';

/** GitLab's `human_state_name`: the state's name with spaces. */
const humanStateName = (m: MoveRow) => m.state.replace(/_/g, ' ');

const STATES: Record<string, MoveState> = {
  INITIAL: 'initial',
  SCHEDULED: 'scheduled',
  STARTED: 'started',
  REPLICATED: 'replicated',
  FINISHED: 'finished',
  FAILED: 'failed',
  CLEANUP_FAILED: 'cleanup_failed',
};

const project = (ctx: Context, path: string) => ctx.services.projects.get(parseRef(path, 'Project', 'projectPath'));
const group = (ctx: Context, path: string) => ctx.services.groups.get(parseRef(path, 'Group', 'groupPath'));
const moves = (ctx: Context) => ctx.services.repository_storage_moves;

export const repositoryStorageMoveResolvers = {
  RepositoryStorageMoveState: STATES,
  ProjectRepositoryStorageMove: {
    ...idFields('Projects::RepositoryStorageMove'),
    id: (m: MoveRow) => m.id,
    humanStateName,
    project: (m: MoveRow, _a: unknown, ctx: Context) => ctx.loaders.projects.byId.load(m.projectId as number),
  },
  GroupRepositoryStorageMove: {
    ...idFields('Groups::RepositoryStorageMove'),
    id: (m: MoveRow) => m.id,
    humanStateName,
    group: (m: MoveRow, _a: unknown, ctx: Context) => ctx.loaders.namespaces.byId.load(m.groupId as number),
  },
  Project: {
    repositoryStorageMoves: (p: ProjectRow, args: PageArgs, ctx: Context) => moves(ctx).list('project', p.id, args),
    repositoryStorageMove: (p: ProjectRow, args: { id: number }, ctx: Context) => moves(ctx).get('project', args.id, p.id),
    repositoryReadOnly: (p: ProjectRow, _a: unknown, ctx: Context) => (ctx.access.allowed('admin_all_resources') ? p.repositoryReadOnly : null),
  },
  Group: {
    repositoryStorageMoves: (g: NamespaceRow, args: PageArgs, ctx: Context) => moves(ctx).list('group', g.id, args),
    repositoryStorageMove: (g: NamespaceRow, args: { id: number }, ctx: Context) => moves(ctx).get('group', args.id, g.id),
  },
  Query: {
    // Administrators are checked before the project or group is looked up, as GitLab's `authenticated_as_admin!` comes first.
    projectRepositoryStorageMoves: async (_: unknown, args: PageArgs & { projectPath?: string | null }, ctx: Context) => {
      await moves(ctx).authorize('read_repository_storage_move');
      return moves(ctx).list('project', args.projectPath ? (await project(ctx, args.projectPath)).id : null, args);
    },
    projectRepositoryStorage: async (_: unknown, args: { projectPath: string }, ctx: Context) => {
      await ctx.access.authorize('admin_all_resources', null);
      return project(ctx, args.projectPath);
    },
    projectRepositoryStorageMove: async (_: unknown, args: { id: number; projectPath?: string | null }, ctx: Context) => {
      await moves(ctx).authorize('read_repository_storage_move');
      return moves(ctx).get('project', args.id, args.projectPath ? (await project(ctx, args.projectPath)).id : null);
    },
    groupRepositoryStorageMoves: async (_: unknown, args: PageArgs & { groupPath?: string | null }, ctx: Context) => {
      await moves(ctx).authorize('read_repository_storage_move');
      return moves(ctx).list('group', args.groupPath ? (await group(ctx, args.groupPath)).id : null, args);
    },
    groupRepositoryStorageMove: async (_: unknown, args: { id: number; groupPath?: string | null }, ctx: Context) => {
      await moves(ctx).authorize('read_repository_storage_move');
      return moves(ctx).get('group', args.id, args.groupPath ? (await group(ctx, args.groupPath)).id : null);
    },
  },
  Mutation: {
    projectRepositoryStorageMoveCreate: async (_: unknown, args: { projectPath: string; destinationStorageName?: string | null }, ctx: Context) => {
      await moves(ctx).authorize('create_repository_storage_move');
      const target = await project(ctx, args.projectPath);
      return { projectRepositoryStorageMove: await moves(ctx).scheduleProject(target.id, args.destinationStorageName ?? null) };
    },
    groupRepositoryStorageMoveCreate: async (_: unknown, args: { groupPath: string; destinationStorageName?: string | null }, ctx: Context) => {
      await moves(ctx).authorize('create_repository_storage_move');
      const target = await group(ctx, args.groupPath);
      return { groupRepositoryStorageMove: await moves(ctx).scheduleGroup(target, args.destinationStorageName ?? null) };
    },
    projectRepositoryStorageMovesSchedule: async (_: unknown, args: { sourceStorageName: string; destinationStorageName?: string | null }, ctx: Context) => {
      await moves(ctx).scheduleAll('project', args.sourceStorageName, args.destinationStorageName ?? null);
      return { message: '202 Accepted' };
    },
    groupRepositoryStorageMovesSchedule: async (_: unknown, args: { sourceStorageName: string; destinationStorageName?: string | null }, ctx: Context) => {
      await moves(ctx).scheduleAll('group', args.sourceStorageName, args.destinationStorageName ?? null);
      return { message: '202 Accepted' };
    },
  },
  Subscription: {
    projectRepositoryStorageMoveUpdated: {
      subscribe: async (_: unknown, args: { projectPath?: string | null }, ctx: Context) => {
        await moves(ctx).authorize('read_repository_storage_move');
        return moves(ctx).watch('project', args.projectPath ? (await project(ctx, args.projectPath)).id : null, 'projectRepositoryStorageMoveUpdated');
      },
    },
    groupRepositoryStorageMoveUpdated: {
      subscribe: async (_: unknown, args: { groupPath?: string | null }, ctx: Context) => {
        await moves(ctx).authorize('read_repository_storage_move');
        return moves(ctx).watch('group', args.groupPath ? (await group(ctx, args.groupPath)).id : null, 'groupRepositoryStorageMoveUpdated');
      },
    },
  },
};
