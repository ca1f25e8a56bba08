/** GraphQL resolvers of shares with groups. */
import type { Context } from '../../context.js';
import type { PageArgs } from '../../graphql/connection.js';
import { parseId, parseRef } from '../../graphql/ids.js';
import type { GroupFilters } from '../groups/service.js';
import type { NamespaceRow } from '../namespaces/service.js';
import type { ProjectRow } from '../projects/service.js';
import type { ProjectGroupFilters, ShareView } from './service.js';

interface ShareArgs {
  fullPath: string;
  groupId: string;
  groupAccess: number;
  expiresAt?: Date | null;
}
interface UnshareArgs {
  fullPath: string;
  groupId: string;
}

const group = (ctx: Context, fullPath: string) => ctx.services.groups.get(parseRef(fullPath, 'Group', 'fullPath'));
const project = (ctx: Context, fullPath: string) => ctx.services.projects.get(parseRef(fullPath, 'Project', 'fullPath'));
const invitedId = (groupId: string) => parseId(groupId, 'Group', 'groupId');

export const sharingResolvers = {
  Mutation: {
    groupShare: async (_: unknown, args: ShareArgs, ctx: Context) => {
      const shared = await group(ctx, args.fullPath);
      const invited = await ctx.services.groups.get({ id: invitedId(args.groupId) });
      return { group: await ctx.services.sharing.shareGroup(shared, invited, args) };
    },
    groupUnshare: async (_: unknown, args: UnshareArgs, ctx: Context) => ({
      group: await ctx.services.sharing.unshareGroup(await group(ctx, args.fullPath), invitedId(args.groupId)),
    }),
    projectShare: async (_: unknown, args: ShareArgs, ctx: Context) => ({
      link: await ctx.services.sharing.shareProject(await project(ctx, args.fullPath), invitedId(args.groupId), args),
    }),
    projectUnshare: async (_: unknown, args: UnshareArgs, ctx: Context) => {
      await ctx.services.sharing.unshareProject(await project(ctx, args.fullPath), invitedId(args.groupId));
      return { link: null };
    },
  },
  Group: {
    sharedWithGroups: (ns: NamespaceRow, _a: unknown, ctx: Context) => ctx.services.sharing.groupShares(ns),
    sharedGroups: (ns: NamespaceRow, args: GroupFilters & PageArgs, ctx: Context) => ctx.services.sharing.sharedGroups(ns, args, args),
  },
  Project: {
    sharedWithGroups: (p: ProjectRow, _a: unknown, ctx: Context) => ctx.services.sharing.projectShares(p),
    groups: (p: ProjectRow, args: ProjectGroupFilters & PageArgs, ctx: Context) => ctx.services.sharing.projectGroups(p, args, args),
  },
  GroupShare: {
    groupId: (s: ShareView) => s.group.id,
    groupName: (s: ShareView) => s.group.name,
    groupFullPath: (s: ShareView) => s.group.fullPath,
    groupAccessLevel: (s: ShareView) => s.groupAccess,
  },
};
