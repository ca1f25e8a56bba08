/** GraphQL resolvers of protected branches. */
import type { Context } from '../../context.js';
import type { PageArgs } from '../../graphql/connection.js';
import { parseRef } from '../../graphql/ids.js';
import { idFields } from '../../graphql/resolvers.js';
import type { ProjectRow } from '../projects/service.js';
import { PROTECTED_REF_ACCESS_LEVELS } from '../../auth/access-levels.js';
import { type AccessAction, type ProtectedBranchAccessRow, type ProtectedBranchChanges, type ProtectedBranchInput, type ProtectedBranchRow } from './service.js';

const project = (ctx: Context, projectId: string) => ctx.services.projects.get(parseRef(projectId, 'Project', 'projectId'));
const levels = (action: AccessAction) => (rule: ProtectedBranchRow) => rule.accessLevels.filter((level) => level.action === action);

export const protectedBranchResolvers = {
  Project: {
    protectedBranches: (p: ProjectRow, args: { search?: string | null } & PageArgs, ctx: Context) => ctx.services.protected_branches.list(p, args.search, args),
    protectedBranch: (p: ProjectRow, args: { name: string }, ctx: Context) => ctx.services.protected_branches.get(p, args.name),
  },
  Mutation: {
    protectedBranchCreate: async (_: unknown, args: ProtectedBranchInput & { projectId: string }, ctx: Context) => ({
      protectedBranch: await ctx.services.protected_branches.create(await project(ctx, args.projectId), args),
    }),
    protectedBranchUpdate: async (_: unknown, args: ProtectedBranchChanges & { projectId: string; name: string }, ctx: Context) => ({
      protectedBranch: await ctx.services.protected_branches.update(await project(ctx, args.projectId), args.name, args),
    }),
    protectedBranchDelete: async (_: unknown, args: { projectId: string; name: string }, ctx: Context) => ({
      protectedBranch: await ctx.services.protected_branches.delete(await project(ctx, args.projectId), args.name),
    }),
  },
  ProtectedBranch: {
    ...idFields('ProtectedBranch'),
    pushAccessLevels: levels('push'),
    mergeAccessLevels: levels('merge'),
    unprotectAccessLevels: levels('unprotect'),
    inherited: () => false,
  },
  ProtectedBranchAccessLevel: {
    ...idFields('ProtectedBranchAccessLevel'),
    accessLevelDescription: (level: ProtectedBranchAccessRow) => PROTECTED_REF_ACCESS_LEVELS[level.accessLevel],
    deployKeyId: () => null,
    userId: () => null,
    groupId: () => null,
  },
};
