/** GraphQL resolvers of groups. */
import type { Context } from '../../context.js';
import type { PageArgs } from '../../graphql/connection.js';
import { parseId, parseRef } from '../../graphql/ids.js';
import { idFields, lowerEnum } from '../../graphql/resolvers.js';
import { namespaceAvatarUrl, namespaceWebUrl } from '../namespaces/resolvers.js';
import type { NamespaceRow } from '../namespaces/service.js';
import type { GroupChanges, GroupFilters, GroupInput, GroupPermissionScope } from './service.js';
import type { UserRow } from '../users/service.js';
import { SHARED_RUNNERS_SETTINGS, sharedRunnersSetting } from './shared-runners.js';

type GroupArgs = Omit<GroupInput, 'parent'> & { parentId?: string | null };

/** A group by the full path (or ID) a mutation names: 404 Group Not Found when the viewer cannot read it. */
function groupByPath(ctx: Context, fullPath: string) {
  return ctx.services.groups.get(parseRef(fullPath, 'Group', 'fullPath'));
}

export const groupResolvers = {
  Query: {
    group: (_: unknown, args: { fullPath: string }, ctx: Context) => ctx.services.groups.find(parseRef(args.fullPath, 'Group', 'fullPath')),
    groups: (_: unknown, args: GroupFilters & PageArgs, ctx: Context) => ctx.services.groups.list(args, args),
  },
  Mutation: {
    groupCreate: async (_: unknown, { parentId, ...args }: GroupArgs, ctx: Context) => ({
      group: await ctx.services.groups.create({ ...args, parent: parentId != null ? { id: parseId(parentId, 'Group', 'parentId') } : null }),
    }),
    groupUpdate: async (_: unknown, { fullPath, ...changes }: GroupChanges & { fullPath: string }, ctx: Context) => ({
      group: await ctx.services.groups.update(await groupByPath(ctx, fullPath), changes),
    }),
    groupDelete: async (_: unknown, args: { fullPath: string }, ctx: Context) => {
      await ctx.services.groups.deletion.request(await groupByPath(ctx, args.fullPath));
      return { message: '202 Accepted' };
    },
    groupTransfer: async (_: unknown, args: { fullPath: string; groupId?: string | null }, ctx: Context) => {
      const to = args.groupId != null ? { id: parseId(args.groupId, 'Group', 'groupId') } : null;
      return { group: await ctx.services.groups.transfer(await groupByPath(ctx, args.fullPath), to) };
    },
  },
  SharedRunnersSetting: lowerEnum(SHARED_RUNNERS_SETTINGS),
  GroupPermission: lowerEnum(['create_projects', 'import_projects', 'transfer_projects']),
  UserCore: {
    groups: (user: UserRow, args: { search?: string | null; permissionScope?: GroupPermissionScope | null } & PageArgs, ctx: Context) =>
      ctx.services.groups.ofUser(user, args, args),
  },
  GroupPermissions: {
    createProjects: (ns: NamespaceRow, _a: unknown, ctx: Context) => ctx.access.check('create_projects', ns),
    readGroup: (ns: NamespaceRow, _a: unknown, ctx: Context) => ctx.access.check('read_group', ns),
  },
  Group: {
    ...idFields('Group'),
    userPermissions: (ns: NamespaceRow) => ns,
    descriptionHtml: (ns: NamespaceRow, _a: unknown, ctx: Context) => ctx.services.notes.markdownHtml(ctx.services, ns.description, null),
    // GitLab's licensed `epics` feature (EPICS_ENABLED).
    epicsEnabled: (_ns: NamespaceRow, _a: unknown, ctx: Context) => ctx.config.epicsEnabled,
    webUrl: namespaceWebUrl,
    avatarUrl: namespaceAvatarUrl,
    avatarFile: (ns: NamespaceRow, _a: unknown, ctx: Context) => ctx.services.groups.avatarFile(ns),
    parent: (ns: NamespaceRow, _a: unknown, ctx: Context) => (ns.parentId ? ctx.services.groups.find({ id: ns.parentId }) : null),
    defaultBranch: (ns: NamespaceRow) => ns.defaultBranchName,
    emailsDisabled: (ns: NamespaceRow) => !ns.emailsEnabled,
    sharedRunnersSetting,
    statistics: (ns: NamespaceRow, _a: unknown, ctx: Context) => ctx.services.groups.statistics(ns),
    subgroups: (ns: NamespaceRow, args: GroupFilters & PageArgs, ctx: Context) => ctx.services.groups.subgroups(ns, args, args),
    descendantGroups: (ns: NamespaceRow, args: GroupFilters & PageArgs, ctx: Context) => ctx.services.groups.subgroups(ns, args, args, true),
    projects: (ns: NamespaceRow, args: PageArgs & { includeSubgroups?: boolean; withShared?: boolean }, ctx: Context) =>
      ctx.services.projects.listInNamespace(ns, args.includeSubgroups ?? false, args, args.withShared ? ctx.services.sharing.sharedProjectsWhere(ns) : undefined),
    viewerAccess: async (ns: NamespaceRow, _a: unknown, ctx: Context) => (await ctx.access.namespaceLevel(ns)) || null,
  },
};
