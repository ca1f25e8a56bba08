/** GraphQL resolvers of groups. */
import type { Context } from '../../context.js';
import type { PageArgs } from '../../graphql/connection.js';
import { parseId, parseRef } from '../../graphql/ids.js';
import { idFields } from '../../graphql/resolvers.js';
import { namespaceAvatarUrl, namespaceWebUrl } from '../namespaces/resolvers.js';
import type { NamespaceRow } from '../namespaces/service.js';
import type { GroupFilters, GroupInput } from './service.js';

type GroupArgs = Omit<GroupInput, 'parent'> & { parentId?: string | null };

export const groupResolvers = {
  Query: {
    group: (_: unknown, args: { fullPath: string }, ctx: Context) => ctx.services.groups.find(parseRef(args.fullPath, 'Group', 'fullPath')),
    groups: (_: unknown, args: GroupFilters & PageArgs, ctx: Context) => ctx.services.groups.list(args, args),
  },
  Mutation: {
    groupCreate: (_: unknown, { parentId, ...args }: GroupArgs, ctx: Context) =>
      ctx.services.groups.create({ ...args, parent: parentId != null ? { id: parseId(parentId, 'Group', 'parentId') } : null }),
  },
  Group: {
    ...idFields('Group'),
    webUrl: namespaceWebUrl,
    avatarUrl: namespaceAvatarUrl,
    parent: (ns: NamespaceRow, _a: unknown, ctx: Context) => (ns.parentId ? ctx.services.groups.find({ id: ns.parentId }) : null),
    defaultBranch: () => null,
    subgroups: (ns: NamespaceRow, args: PageArgs & { search?: string }, ctx: Context) => ctx.services.groups.subgroups(ns, args.search, args),
    projects: (ns: NamespaceRow, args: PageArgs & { includeSubgroups?: boolean }, ctx: Context) =>
      ctx.services.projects.listInNamespace(ns, args.includeSubgroups ?? false, args),
    viewerAccess: async (ns: NamespaceRow, _a: unknown, ctx: Context) => (await ctx.access.namespaceLevel(ns)) || null,
  },
};
