/** GraphQL resolvers of memberships and access levels. */
import { MEMBER_ACCESS_LEVELS, accessLevelName } from '../../auth/access-levels.js';
import type { Context } from '../../context.js';
import type { PageArgs } from '../../graphql/connection.js';
import { recordNotFound } from '../../errors.js';
import { globalId, parseId, parseRef } from '../../graphql/ids.js';
import type { Interaction } from '../merge_requests/interactions.js';
import type { NamespaceRow } from '../namespaces/service.js';
import type { ProjectRow } from '../projects/service.js';
import type { MemberChange, MemberFilters, MemberInput, MemberRelation, MemberRow, MembersAddInput, MembersAdded } from './service.js';

interface MemberArgs {
  userId?: string | null;
  username?: string | null;
  accessLevel: number;
  expiresAt?: Date | null;
}

interface FilterArgs extends PageArgs {
  search?: string | null;
  relations?: readonly MemberRelation[] | null;
  userIds?: readonly string[] | null;
  skipUsers?: readonly string[] | null;
}

interface OneMemberArgs {
  userId: string;
  relations: readonly MemberRelation[];
}

interface ChangeArgs {
  userId: string;
  accessLevel: number;
  expiresAt?: Date | null;
}

/** The numeric ids of REST's `user_id` (one, or several comma-separated); the rest is the service's to refuse. */
const listedIds = (userId: string | null | undefined): number[] => (userId ?? '').split(',').filter((part) => /^\s*\d{1,9}\s*$/.test(part)).map(Number);

const memberInput = (args: MemberArgs): MemberInput => ({
  userId: args.userId != null ? parseId(args.userId, 'User', 'userId') : null,
  username: args.username,
  accessLevel: args.accessLevel,
  expiresAt: args.expiresAt,
});

interface BulkArgs {
  userIds: readonly number[];
  accessLevel: number;
  expiresAt?: Date | null;
}

const change = (args: { accessLevel: number; expiresAt?: Date | null }): MemberChange => ({ accessLevel: args.accessLevel, expiresAt: args.expiresAt });

const userOf = (args: { userId: string }) => parseId(args.userId, 'User', 'userId');

const bulkUsers = (input: BulkArgs) => input.userIds;

/** MembersAddResult's fields: the member, or the status of several. */
const addResult = (added: MembersAdded) => ('member' in added ? { member: added.member, message: null, status: null } : { member: null, ...added });

/** The one membership a single-member change returns. */
function only(members: MemberRow[]): MemberRow {
  const [member] = members;
  if (!member) throw recordNotFound();
  return member;
}

/** User IDs as GitLab's CommaSeparatedToIntegerArray reads them: a list, each item possibly `4,5`. */
function idList(values: readonly string[] | null | undefined, argument: string): number[] | null {
  if (values == null) return null;
  return values.flatMap((value) => value.split(',')).map((id) => parseId(id.trim(), 'User', argument));
}

const filters = (args: FilterArgs): MemberFilters => ({
  search: args.search,
  relations: args.relations,
  userIds: idList(args.userIds, 'userIds'),
  skipUsers: idList(args.skipUsers, 'skipUsers'),
});

const groupOf = (ctx: Context, groupId: string) => ctx.services.groups.get(parseRef(groupId, 'Group', 'groupId'));
const projectOf = (ctx: Context, projectId: string) => ctx.services.projects.get(parseRef(projectId, 'Project', 'projectId'));

/** GitLab's type of a membership: of a project, or of a group. */
const memberType = (m: MemberRow) => (m.projectId != null ? 'ProjectMember' : 'GroupMember');

/** The fields of MemberInterface, the same on both of its types. */
const memberFields = {
  id: (m: MemberRow) => globalId(memberType(m), m.id),
  user: (m: MemberRow, _a: unknown, ctx: Context) => ctx.loaders.users.byId.load(m.userId),
  accessLevel: (m: MemberRow) => m.accessLevel,
  createdBy: (m: MemberRow, _a: unknown, ctx: Context) => (m.createdById ? ctx.loaders.users.byId.load(m.createdById) : null),
  membershipState: () => 'active',
  // GitLab's MergeRequestInteractionResolver: the merge request as the viewer may read it (else null), seen from the member.
  mergeRequestInteraction: async (m: MemberRow, args: { id: number }, ctx: Context): Promise<Interaction | null> => {
    const mergeRequest = await ctx.services.merge_requests.byId(args.id);
    return mergeRequest && { userId: m.userId, mergeRequest };
  },
};

/** The member's group or project row, whoever reads it: GroupMemberPolicy and ProjectMemberPolicy delegate to it. */
const groupRow = async (m: MemberRow, _a: unknown, ctx: Context) => (await ctx.loaders.namespaces.byId.load(m.namespaceId ?? 0))!;
const projectRow = async (m: MemberRow, _a: unknown, ctx: Context) => (await ctx.loaders.projects.byId.load(m.projectId ?? 0))!;

/**
 * GitLab's Todos::Destroy::EntityLeaveService after a member leaves or is removed: once the removal is settled (the
 * user's memberships forgotten), their to-do items about what they may no longer read there go.
 */
async function leftTodos(ctx: Context, userId: number, entity: { projectId: number } | { groupId: number }): Promise<void> {
  await ctx.settle();
  await ctx.services.todos.entityLeft(userId, entity);
}

export const memberResolvers = {
  Mutation: {
    groupMemberCreate: async (_: unknown, args: MemberArgs & { groupId: string }, ctx: Context) => {
      const input = memberInput(args);
      ctx.services.members.preloadUsers([input.userId]);
      return { groupMember: await ctx.services.members.addToGroup(await groupOf(ctx, args.groupId), input) };
    },
    projectMemberCreate: async (_: unknown, args: MemberArgs & { projectId: string }, ctx: Context) => {
      const input = memberInput(args);
      ctx.services.members.preloadUsers([input.userId]);
      return { projectMember: await ctx.services.members.addToProject(await projectOf(ctx, args.projectId), input) };
    },
    groupMembersAdd: async (_: unknown, args: MembersAddInput & { groupId: string }, ctx: Context) => {
      ctx.services.members.preloadUsers(listedIds(args.userId));
      return { membersAddResult: addResult(await ctx.services.members.addUsersToGroup(await groupOf(ctx, args.groupId), args)) };
    },
    projectMembersAdd: async (_: unknown, args: MembersAddInput & { projectId: string }, ctx: Context) => {
      ctx.services.members.preloadUsers(listedIds(args.userId));
      return { membersAddResult: addResult(await ctx.services.members.addUsersToProject(await projectOf(ctx, args.projectId), args)) };
    },
    groupMemberUpdate: async (_: unknown, args: ChangeArgs & { groupId: string }, ctx: Context) => ({
      groupMember: only(await ctx.services.members.updateInGroup(await groupOf(ctx, args.groupId), [userOf(args)], change(args))),
    }),
    projectMemberUpdate: async (_: unknown, args: ChangeArgs & { projectId: string }, ctx: Context) => ({
      projectMember: only(await ctx.services.members.updateInProject(await projectOf(ctx, args.projectId), [userOf(args)], change(args))),
    }),
    groupMemberBulkUpdate: async (_: unknown, args: BulkArgs & { groupId: number }, ctx: Context) => ({
      groupMembers: await ctx.services.members.updateInGroup(await ctx.services.groups.get({ id: args.groupId }), bulkUsers(args), change(args)),
    }),
    projectMemberBulkUpdate: async (_: unknown, args: BulkArgs & { projectId: number }, ctx: Context) => ({
      projectMembers: await ctx.services.members.updateInProject(await ctx.services.projects.get({ id: args.projectId }), bulkUsers(args), change(args)),
    }),
    groupMemberDelete: async (_: unknown, args: { groupId: string; userId: string; skipSubresources?: boolean | null }, ctx: Context) => {
      const group = await groupOf(ctx, args.groupId);
      const groupMember = await ctx.services.members.removeFromGroup(group, userOf(args), { skipSubresources: args.skipSubresources });
      await leftTodos(ctx, groupMember.userId, { groupId: group.id });
      return { groupMember };
    },
    projectMemberDelete: async (_: unknown, args: { projectId: string; userId: string }, ctx: Context) => {
      const project = await projectOf(ctx, args.projectId);
      const projectMember = await ctx.services.members.removeFromProject(project, userOf(args));
      await leftTodos(ctx, projectMember.userId, { projectId: project.id });
      return { projectMember };
    },
  },
  Group: {
    groupMembers: (group: NamespaceRow, args: FilterArgs, ctx: Context) => ctx.services.members.listForGroup(group, filters(args), args),
    groupMember: (group: NamespaceRow, args: OneMemberArgs, ctx: Context) => ctx.services.members.findInGroup(group, userOf(args), args.relations),
  },
  Project: {
    projectMembers: (project: ProjectRow, args: FilterArgs, ctx: Context) => ctx.services.members.listForProject(project, filters(args), args),
    projectMember: (project: ProjectRow, args: OneMemberArgs, ctx: Context) => ctx.services.members.findInProject(project, userOf(args), args.relations),
  },
  MemberInterface: {
    __resolveType: (m: MemberRow) => memberType(m),
  },
  GroupMember: {
    ...memberFields,
    group: (m: MemberRow, _a: unknown, ctx: Context) => ctx.services.groups.find({ id: m.namespaceId ?? 0 }),
    userPermissions: groupRow,
  },
  ProjectMember: {
    ...memberFields,
    project: (m: MemberRow, _a: unknown, ctx: Context) => ctx.services.projects.find({ id: m.projectId ?? 0 }),
    userPermissions: projectRow,
  },
  AccessLevel: {
    integerValue: (level: number) => level,
    stringValue: (level: number) => accessLevelName(level),
  },
  // The enum's values are the levels stored and sent by REST (`access_level=30`).
  MemberAccessLevel: MEMBER_ACCESS_LEVELS,
};
