/** GraphQL resolvers of memberships and access levels. */
import { MEMBER_ACCESS_LEVELS, accessLevelName } from '../../auth/access-levels.js';
import type { Context } from '../../context.js';
import type { PageArgs } from '../../graphql/connection.js';
import { globalId, parseId, parseRef } from '../../graphql/ids.js';
import type { NamespaceRow } from '../namespaces/service.js';
import type { ProjectRow } from '../projects/service.js';
import type { MemberFilters, MemberInput, MemberRow } from './service.js';

interface MemberArgs {
  userId?: string | null;
  username?: string | null;
  accessLevel: number;
  expiresAt?: Date | null;
}

const memberInput = (args: MemberArgs): MemberInput => ({
  userId: args.userId != null ? parseId(args.userId, 'User', 'userId') : null,
  username: args.username,
  accessLevel: args.accessLevel,
  expiresAt: args.expiresAt,
});

export const memberResolvers = {
  Mutation: {
    groupMemberCreate: async (_: unknown, args: MemberArgs & { groupId: string }, ctx: Context) =>
      ctx.services.members.addToGroup(await ctx.services.groups.get(parseRef(args.groupId, 'Group', 'groupId')), memberInput(args)),
    projectMemberCreate: async (_: unknown, args: MemberArgs & { projectId: string }, ctx: Context) =>
      ctx.services.members.addToProject(await ctx.services.projects.get(parseRef(args.projectId, 'Project', 'projectId')), memberInput(args)),
  },
  Group: {
    groupMembers: (group: NamespaceRow, args: PageArgs & MemberFilters, ctx: Context) => ctx.services.members.listForGroup(group, args, args),
  },
  Project: {
    projectMembers: (project: ProjectRow, args: PageArgs & MemberFilters, ctx: Context) => ctx.services.members.listForProject(project, args, args),
  },
  Member: {
    id: (m: MemberRow) => globalId(m.projectId != null ? 'ProjectMember' : 'GroupMember', m.id),
    user: (m: MemberRow, _a: unknown, ctx: Context) => ctx.loaders.users.byId.load(m.userId),
    accessLevel: (m: MemberRow) => m.accessLevel,
    createdBy: (m: MemberRow, _a: unknown, ctx: Context) => (m.createdById ? ctx.loaders.users.byId.load(m.createdById) : null),
    membershipState: () => 'active',
  },
  AccessLevel: {
    integerValue: (level: number) => level,
    stringValue: (level: number) => accessLevelName(level),
  },
  // The enum's values are the levels stored and sent by REST (`access_level=30`).
  MemberAccessLevel: MEMBER_ACCESS_LEVELS,
};
