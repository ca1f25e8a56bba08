/** GraphQL resolvers of namespaces and groups. */
import type { Context } from '../../context.js';
import type { PageArgs } from '../../graphql/connection.js';
import { idFields, webUrl } from '../../graphql/resolvers.js';
import type { GroupFilters, GroupInput } from './groups.js';
import type { NamespaceFilters, NamespaceRow } from './service.js';
import type { MemberFilters } from '../members/service.js';

type Args<T = unknown> = T & PageArgs;

/** A field exposed only to those who administer the namespace (owners, administrators); null for others. */
const adminOnly =
  <T>(value: (ns: NamespaceRow, ctx: Context) => T | Promise<T>, groupsOnly = false) =>
  async (ns: NamespaceRow, _a: unknown, ctx: Context): Promise<T | null> =>
    (!groupsOnly || ns.kind === 'group') && (await ctx.services.namespaces.canAdmin(ns)) ? value(ns, ctx) : null;

const namespaceWebUrl = (ns: NamespaceRow, _a: unknown, ctx: Context) =>
  webUrl(ctx, ns.kind === 'group' ? `groups/${ns.fullPath}` : ns.fullPath);

export const namespaceResolvers = {
  Query: {
    namespace: (_: unknown, args: { fullPath: string }, ctx: Context) => ctx.services.namespaces.find(args.fullPath),
    namespaces: (_: unknown, args: Args<NamespaceFilters>, ctx: Context) => ctx.services.namespaces.list(args, args),
    namespaceExists: (_: unknown, args: { path: string; parentId?: number | null }, ctx: Context) =>
      ctx.services.namespaces.exists(args.path, args.parentId ?? null),
    group: (_: unknown, args: { fullPath: string }, ctx: Context) => ctx.services.groups.find(args.fullPath),
    groups: (_: unknown, args: Args<GroupFilters>, ctx: Context) => ctx.services.groups.list(args, args),
  },
  Mutation: {
    groupCreate: (_: unknown, args: GroupInput, ctx: Context) => ctx.services.groups.create(args),
  },
  Namespace: {
    ...idFields('Namespace'),
    webUrl: namespaceWebUrl,
    membersCountWithDescendants: adminOnly((ns, ctx) => ctx.services.members.countWithDescendants(ns.id), true),
    billableMembersCount: adminOnly((ns, ctx) => (ns.kind === 'group' ? ctx.services.members.countWithDescendants(ns.id) : 1)),
    plan: adminOnly(() => 'default'),
    trial: adminOnly(() => false),
    endDate: () => null,
    trialEndsOn: () => null,
    rootRepositorySize: adminOnly(() => 0, true),
    projectsCount: adminOnly((ns, ctx) => ctx.services.namespaces.projectsCount(ns), true),
    maxSeatsUsed: () => null,
    seatsInUse: () => null,
    maxSeatsUsedChangedAt: () => null,
    projects: (ns: NamespaceRow, args: PageArgs, ctx: Context) => ctx.services.projects.listInNamespace(ns, false, args),
  },
  Group: {
    ...idFields('Group'),
    webUrl: namespaceWebUrl,
    parent: (ns: NamespaceRow, _a: unknown, ctx: Context) => (ns.parentId ? ctx.loaders.namespaces.byId.load(ns.parentId) : null),
    defaultBranch: () => null,
    subgroups: (ns: NamespaceRow, args: Args<{ search?: string }>, ctx: Context) => ctx.services.groups.subgroups(ns, args.search, args),
    groupMembers: (ns: NamespaceRow, args: Args<MemberFilters>, ctx: Context) => ctx.services.members.listForNamespace(ns, args, args),
    projects: (ns: NamespaceRow, args: Args<{ includeSubgroups?: boolean }>, ctx: Context) =>
      ctx.services.projects.listInNamespace(ns, args.includeSubgroups ?? false, args),
    viewerAccess: async (ns: NamespaceRow, _a: unknown, ctx: Context) => {
      const level = await ctx.services.members.levelInNamespace(ns);
      return level > 0 ? level : null;
    },
  },
};
