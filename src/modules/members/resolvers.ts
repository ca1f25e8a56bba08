/** GraphQL resolvers of memberships and access levels. */
import type { Context } from '../../context.js';
import { accessLevelName } from '../../auth/policy.js';
import { globalId } from '../../graphql/ids.js';
import type { MemberInput, MemberRow } from './service.js';

export const memberResolvers = {
  Mutation: {
    groupMemberCreate: (_: unknown, args: MemberInput & { groupId: string }, ctx: Context) =>
      ctx.services.members.addToGroup(args.groupId, args),
    projectMemberCreate: (_: unknown, args: MemberInput & { projectId: string }, ctx: Context) =>
      ctx.services.members.addToProject(args.projectId, args),
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
};
