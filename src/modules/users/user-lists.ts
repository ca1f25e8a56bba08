/**
 * UserCore's lists of what belongs to a user in other domains, each through the owning module's finder: the merge
 * requests they authored, are assigned or asked to review (GitLab's UserMergeRequestsResolverBase over the merge
 * requests finder), their snippets (SnippetsFinder with `author`), their group and project memberships and group count.
 */
import type { Context } from '../../context.js';
import { connection, type PageArgs } from '../../graphql/connection.js';
import { filtersOf, type ListArgs } from '../merge_requests/resolvers.js';
import type { MergeRequestFilters, MergeRequestScope } from '../merge_requests/service.js';
import type { UserRow } from './service.js';

interface UserMergeRequestArgs extends ListArgs {
  projectPath?: string | null;
  projectId?: number | null;
  groupId?: number | null;
}

/**
 * Where the user's merge requests are looked for: a project (by path or ID) or a group with its subgroups, as the
 * viewer may read it, or everywhere the viewer may read; null when the named project or group is not readable.
 */
async function scopeOf(args: UserMergeRequestArgs, ctx: Context): Promise<MergeRequestScope | null> {
  if (args.projectPath != null || args.projectId != null) {
    const project = await ctx.services.projects.find(args.projectPath != null ? { path: args.projectPath } : { id: args.projectId ?? 0 });
    return project && { project };
  }
  if (args.groupId != null) {
    const group = await ctx.services.groups.find({ id: args.groupId });
    return group && { group };
  }
  return { all: true };
}

/** One of the user's merge request lists: the finder's filters, with the user as author, assignee or reviewer. */
const mergeRequests =
  (role: (user: UserRow) => MergeRequestFilters) =>
  async (user: UserRow, args: UserMergeRequestArgs, ctx: Context) => {
    const scope = await scopeOf(args, ctx);
    if (!scope) return connection(args, async () => [], async () => 0);
    // `scope: all`: the finder's own default, the viewer's merge requests, is REST's, not the user's lists'.
    return ctx.services.merge_requests.list(scope, { ...filtersOf(args), scope: 'all', ...role(user) }, args);
  };

interface UserSnippetArgs extends PageArgs {
  ids?: number[] | null;
  visibility?: string | null;
  type?: 'personal' | 'project' | null;
}

export const userListResolvers = {
  authoredMergeRequests: mergeRequests((user) => ({ authorId: user.id })),
  assignedMergeRequests: mergeRequests((user) => ({ assigneeId: String(user.id) })),
  reviewRequestedMergeRequests: mergeRequests((user) => ({ reviewerId: String(user.id) })),
  snippets: (user: UserRow, args: UserSnippetArgs, ctx: Context) =>
    ctx.services.snippets.list({ authorId: user.id, ids: args.ids, visibility: args.visibility, type: args.type }, args),
  // UserPolicy's read_group_count: the user themselves and administrators.
  groupCount: async (user: UserRow, _a: unknown, ctx: Context) => ((await ctx.access.can('read_group_count', user)) ? ctx.loaders.members.groupCountByUser.load(user.id) : null),
  groupMemberships: (user: UserRow, args: PageArgs, ctx: Context) => ctx.services.members.ofUser(user.id, 'group', args),
  projectMemberships: (user: UserRow, args: PageArgs, ctx: Context) => ctx.services.members.ofUser(user.id, 'project', args),
};
