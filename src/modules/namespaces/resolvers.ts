/** GraphQL resolvers of namespaces (personal ones and groups, as the namespaces API shows them). */
import { sharedRunnersSetting } from '../groups/shared-runners.js';
import type { Context } from '../../context.js';
import type { PageArgs } from '../../graphql/connection.js';
import { parseRef } from '../../graphql/ids.js';
import { idFields, shownWith, webUrl } from '../../graphql/resolvers.js';
import type { NamespaceFilters, NamespaceRow } from './service.js';
import type { UserRow } from '../users/service.js';
import { avatarUrl } from '../../uploads/avatars.js';

export const namespaceWebUrl = (ns: NamespaceRow, _a: unknown, ctx: Context) => webUrl(ctx, ns.kind === 'group' ? `groups/${ns.fullPath}` : ns.fullPath);

/** A group's own avatar; a personal namespace shows its owner's (from the row when it came with it). */
export const namespaceAvatarUrl = async (ns: NamespaceRow & { owner?: UserRow | null }, _a: unknown, ctx: Context) => {
  if (ns.kind === 'group') return avatarUrl(ctx.config.externalUrl, 'group', ns.id, ns.avatar);
  const owner = ns.owner !== undefined ? ns.owner : ns.ownerId ? await ctx.loaders.users.byId.load(ns.ownerId) : null;
  return owner ? avatarUrl(ctx.config.externalUrl, 'user', owner.id, owner.avatar) : null;
};

/** Plan and size fields: shown to those who administer the namespace (its owner, group owners, administrators). */
const adminOnly = <T>(value: (ns: NamespaceRow, ctx: Context) => T | Promise<T>) => shownWith('admin_namespace', (ns: NamespaceRow) => ns, value);
/** Member counts: shown to those who administer the group's members. */
const memberAdminOnly = <T>(value: (ns: NamespaceRow, ctx: Context) => T | Promise<T>) => shownWith('admin_group_member', (ns: NamespaceRow) => ns, value);

export const namespaceResolvers = {
  Query: {
    namespace: (_: unknown, args: { fullPath: string }, ctx: Context) => ctx.services.namespaces.find(parseRef(args.fullPath, 'Namespace', 'fullPath')),
    namespaces: (_: unknown, args: NamespaceFilters & PageArgs, ctx: Context) => ctx.services.namespaces.list(args, args),
    namespaceExists: (_: unknown, args: { path: string; parentId?: number | null }, ctx: Context) =>
      ctx.services.namespaces.exists(args.path, args.parentId ?? null),
  },
  Namespace: {
    ...idFields('Namespace'),
    descriptionHtml: (ns: NamespaceRow, _a: unknown, ctx: Context) => ctx.services.notes.markdownHtml(ctx.services, ns.description, null),
    sharedRunnersSetting,
    webUrl: namespaceWebUrl,
    avatarUrl: namespaceAvatarUrl,
    membersCountWithDescendants: memberAdminOnly((ns, ctx) => ctx.services.members.countWithDescendants(ns)),
    billableMembersCount: adminOnly((ns, ctx) => (ns.kind === 'group' ? ctx.services.members.countWithDescendants(ns) : 1)),
    plan: adminOnly(() => 'default'),
    trial: adminOnly(() => false),
    endDate: () => null,
    trialEndsOn: () => null,
    rootRepositorySize: memberAdminOnly(() => 0),
    projectsCount: memberAdminOnly((ns, ctx) => ctx.services.projects.countInNamespaceTree(ns)),
    maxSeatsUsed: () => null,
    seatsInUse: () => null,
    maxSeatsUsedChangedAt: () => null,
    projects: (ns: NamespaceRow, args: PageArgs, ctx: Context) => ctx.services.projects.listInNamespace(ns, false, args),
  },
};
