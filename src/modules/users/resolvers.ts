/** GraphQL resolvers of users and their account data (keys, e-mail addresses, status, preferences, impersonation tokens). */
import { userListResolvers } from './user-lists.js';
import type { Context } from '../../context.js';
import { avatarUrl } from '../../uploads/avatars.js';
import type { UploadedFile } from '../../uploads/storage.js';
import type { PageArgs } from '../../graphql/connection.js';
import { parseId, parseRef } from '../../graphql/ids.js';
import { idFields, lowerEnum, shownWith, webUrl } from '../../graphql/resolvers.js';
import type { ProjectFilters } from '../projects/service.js';
import type { KeyRow } from './keys/service.js';
import { BLANK_STATUS, CLEAR_AFTER, type PreferencesInput, type StatusView } from './profile/service.js';
import { commitEmailOrDefault, type UserFilters, type UserInput, type UserRow, type UserUpdateInput } from './service.js';
import { renderSingleLine } from '../../markdown.js';

type IdArgs = { id: string };
type Optional<T, K extends keyof T> = Omit<T, K> & { [P in K]?: string | null };

const userId = (id: string) => parseId(id, 'User', 'id');
const optionalUserId = (id: string | null | undefined) => (id == null ? null : parseId(id, 'User', 'userId'));
const numeric = (id: string, argument: string) => parseId(id, '', argument);

/** The address web commits use (GitLab's commit_email_or_default). */
function commitEmailOf(user: UserRow, ctx: Context): string {
  return commitEmailOrDefault(user, ctx.config.externalUrl);
}

/** The profile's `<job title> at <organization>`, or whichever is set (GitLab's UsersHelper#work_information). */
function workInformation(user: UserRow): string | null {
  if (user.jobTitle && user.organization) return `${user.jobTitle} at ${user.organization}`;
  return user.jobTitle || user.organization || null;
}

// GitLab renders a status message as a single line of Markdown; a blank status renders as ''.
const statusMessageHtml = (status: StatusView) => (status.message == null ? '' : renderSingleLine(status.message));

const profileShown = <V>(value: (user: UserRow, ctx: Context) => V) => shownWith('read_user_profile', (user: UserRow) => user, value);

export const userResolvers = {
  UserState: { active: 'active', blocked: 'blocked', deactivated: 'deactivated', banned: 'banned', blocked_pending_approval: 'blocked_pending_approval' },
  UserType: { HUMAN: 'human', PROJECT_BOT: 'project_bot', GHOST: 'ghost', ALERT_BOT: 'alert_bot', AUTOMATION_BOT: 'automation_bot' },
  UserStatusClearAfter: Object.fromEntries(Object.keys(CLEAR_AFTER).map((key) => [`_${key}`, key])),
  Query: {
    currentUser: (_: unknown, _a: unknown, ctx: Context) => ctx.services.users.current(),
    user: (_: unknown, args: { id?: string | null; username?: string | null }, ctx: Context) =>
      args.id != null
        ? ctx.services.users.find(parseRef(args.id, 'User', 'id'))
        : args.username != null
          ? ctx.services.users.find({ path: args.username })
          : null,
    userDetails: (_: unknown, args: IdArgs, ctx: Context) => ctx.services.users.details(parseRef(args.id, 'User', 'id')),
    users: (_: unknown, args: UserFilters & PageArgs, ctx: Context) => ctx.services.users.list(args, args),
    userActivities: (_: unknown, args: { from?: Date | null } & PageArgs, ctx: Context) => ctx.services.users.activities(args.from ?? null, args),
    userEmails: (_: unknown, args: { userId: string } & PageArgs, ctx: Context) => ctx.services.users.emails.listOf(parseId(args.userId, 'User', 'userId'), args),
    userMemberships: (_: unknown, args: { userId: string; type?: 'Project' | 'Namespace' | null } & PageArgs, ctx: Context) =>
      ctx.services.users.memberships(parseId(args.userId, 'User', 'userId'), args.type, args),
    userImpersonationTokens: (_: unknown, args: { userId: string; state?: 'all' | 'active' | 'inactive' | null } & PageArgs, ctx: Context) =>
      ctx.services.users.impersonation.list(parseId(args.userId, 'User', 'userId'), args.state, args),
    userImpersonationToken: (_: unknown, args: { userId: string; tokenId: string }, ctx: Context) =>
      ctx.services.users.impersonation.get(parseId(args.userId, 'User', 'userId'), numeric(args.tokenId, 'tokenId')),
    sshKey: (_: unknown, args: IdArgs, ctx: Context) => ctx.services.users.keys.byId(numeric(args.id, 'id')),
    sshKeyByFingerprint: (_: unknown, args: { fingerprint: string }, ctx: Context) => ctx.services.users.keys.byFingerprint(args.fingerprint),
  },
  Mutation: {
    userCreate: async (_: unknown, args: UserInput, ctx: Context) => ({ user: await ctx.services.users.create(args) }),
    userAvatarUpdate: async (_: unknown, args: { avatar: UploadedFile }, ctx: Context) => ({ user: await ctx.services.users.setOwnAvatar(args.avatar) }),
    userUpdate: async (_: unknown, args: Optional<UserUpdateInput, 'id'> & { id: string }, ctx: Context) => ({
      user: await ctx.services.users.update({ ...args, id: userId(args.id) }),
    }),
    userDelete: async (_: unknown, args: IdArgs & { hardDelete?: boolean | null }, ctx: Context) => ({
      deleted: await ctx.services.users.lifecycle.delete(userId(args.id), !!args.hardDelete),
    }),
    userBlock: async (_: unknown, args: IdArgs, ctx: Context) => ({ blocked: await ctx.services.users.lifecycle.block(userId(args.id)) }),
    userUnblock: async (_: unknown, args: IdArgs, ctx: Context) => ({ unblocked: await ctx.services.users.lifecycle.unblock(userId(args.id)) }),
    userBan: async (_: unknown, args: IdArgs, ctx: Context) => ({ banned: await ctx.services.users.lifecycle.ban(userId(args.id)) }),
    userUnban: async (_: unknown, args: IdArgs, ctx: Context) => ({ unbanned: await ctx.services.users.lifecycle.unban(userId(args.id)) }),
    userDeactivate: async (_: unknown, args: IdArgs, ctx: Context) => ({ deactivated: await ctx.services.users.lifecycle.deactivate(userId(args.id)) }),
    userActivate: async (_: unknown, args: IdArgs, ctx: Context) => ({ activated: await ctx.services.users.lifecycle.activate(userId(args.id)) }),
    // The service answers GitLab's `{ message: 'Success' }`: the payload's own field.
    userApprove: (_: unknown, args: IdArgs, ctx: Context) => ctx.services.users.lifecycle.approve(userId(args.id)),
    userReject: async (_: unknown, args: IdArgs, ctx: Context) => ({ user: await ctx.services.users.lifecycle.reject(userId(args.id)) }),
    userStatusSet: async (_: unknown, args: { emoji?: string | null; message?: string | null; availability?: string | null; clearStatusAfter?: string | null }, ctx: Context) => {
      const status = await ctx.services.users.profile.setStatus(args);
      return { userStatus: status === BLANK_STATUS ? null : status, statusOrBlank: status };
    },
    userPreferencesUpdate: async (_: unknown, args: PreferencesInput, ctx: Context) => ({ userPreferences: await ctx.services.users.profile.updatePreferences(args) }),
    sshKeyCreate: async (_: unknown, args: { userId?: string | null; key: string; title: string; expiresAt?: string | null; usageType?: string | null }, ctx: Context) => ({
      sshKey: await ctx.services.users.keys.create({ ...args, userId: optionalUserId(args.userId) }),
    }),
    sshKeyDelete: async (_: unknown, args: { userId?: string | null; keyId: string }, ctx: Context) => ({
      deleted: await ctx.services.users.keys.delete(optionalUserId(args.userId), numeric(args.keyId, 'keyId')),
    }),
    emailCreate: async (_: unknown, args: { userId?: string | null; email: string; skipConfirmation?: boolean | null }, ctx: Context) => ({
      email: await ctx.services.users.emails.create(optionalUserId(args.userId), args.email, args.skipConfirmation),
    }),
    emailDelete: async (_: unknown, args: { userId?: string | null; emailId: string }, ctx: Context) => ({
      deleted: await ctx.services.users.emails.delete(optionalUserId(args.userId), numeric(args.emailId, 'emailId')),
    }),
    impersonationTokenCreate: async (_: unknown, args: { userId: string; name: string; expiresAt?: Date | null; scopes?: string[] | null }, ctx: Context) => ({
      personalAccessToken: await ctx.services.users.impersonation.create({ ...args, userId: parseId(args.userId, 'User', 'userId') }),
    }),
    impersonationTokenRevoke: async (_: unknown, args: { userId: string; tokenId: string }, ctx: Context) => ({
      revoked: await ctx.services.users.impersonation.revoke(parseId(args.userId, 'User', 'userId'), numeric(args.tokenId, 'tokenId')),
    }),
  },
  // No field answers the interface itself: a user is a UserCore wherever one is asked for as a `User`.
  User: { __resolveType: () => 'UserCore' },
  UserPermissions: {
    // GitLab's PermissionTypes::User asks create_snippet of the current user without a subject: a personal snippet.
    createSnippet: (_u: UserRow, _a: unknown, ctx: Context) => ctx.access.check('create_snippet', { project: null }),
  },
  UserCore: {
    ...idFields('User'),
    userPermissions: (user: UserRow) => user,
    ...userListResolvers,
    avatarUrl: (user: UserRow, _a: unknown, ctx: Context) => avatarUrl(ctx.config.externalUrl, 'user', user.id, user.avatar),
    active: (user: UserRow) => user.state === 'active',
    locked: () => false,
    webUrl: (user: UserRow, _a: unknown, ctx: Context) => webUrl(ctx, user.username),
    webPath: (user: UserRow) => `/${user.username}`,
    email: shownWith('read_user_email_address', (user: UserRow) => user, (user) => user.email),
    commitEmail: shownWith('read_user_email_address', (user: UserRow) => user, commitEmailOf),
    workInformation,
    localTime: () => null,
    human: (user: UserRow) => user.userType === 'human' && !user.bot,
    type: (user: UserRow) => (user.userType !== 'human' ? user.userType : user.bot ? 'project_bot' : 'human'),
    // GitLab shows is_admin only to administrators (UserWithAdmin), not to users looking at themselves.
    admin: shownWith('admin_all_resources', () => null, (user: UserRow) => user.admin),
    createdAt: profileShown((user) => user.createdAt),
    // This server has no following: nobody follows anybody.
    followers: profileShown(() => 0),
    following: profileShown(() => 0),
    isFollowed: profileShown((_user, ctx) => (ctx.viewer ? false : null)),
    canCreateProject: (user: UserRow) => user.projectsLimit > 0,
    namespace: (user: UserRow, _a: unknown, ctx: Context) => ctx.services.namespaces.personalOf(user),
    status: (user: UserRow, _a: unknown, ctx: Context) => ctx.services.users.profile.status(user),
    statusOrBlank: async (user: UserRow, _a: unknown, ctx: Context) => (await ctx.services.users.profile.status(user)) ?? BLANK_STATUS,
    account: shownWith('update_user', (user: UserRow) => user, (user) => user),
    administration: shownWith('admin_all_resources', () => null, (user: UserRow) => user),
    sshKeys: (user: UserRow, args: PageArgs, ctx: Context) => ctx.services.users.keys.list(user, args),
    sshKey: (user: UserRow, args: IdArgs, ctx: Context) => ctx.services.users.keys.get(user, numeric(args.id, 'id')),
    emails: (user: UserRow, args: PageArgs, ctx: Context) => ctx.services.users.emails.list(user, args),
    emailAddress: (user: UserRow, args: IdArgs, ctx: Context) => ctx.services.users.emails.get(user, numeric(args.id, 'id')),
    preferences: (user: UserRow, _a: unknown, ctx: Context) => ctx.services.users.profile.preferences(user),
    personalProjects: async (user: UserRow, args: ProjectFilters & PageArgs, ctx: Context) => {
      // Every user has a personal namespace, made with them.
      const ns = await ctx.loaders.namespaces.personalByOwnerId.load(user.id);
      return ctx.services.projects.list({ ...args, namespaceId: ns?.id ?? 0 }, args);
    },
  },
  UserAccount: {
    lastSignInAt: () => null,
    currentSignInAt: () => null,
    identities: () => [],
    canCreateProject: (user: UserRow) => user.projectsLimit > 0,
    twoFactorEnabled: () => false,
    commitEmail: (user: UserRow, _a: unknown, ctx: Context) => commitEmailOf(user, ctx),
    preferredLanguage: () => 'en',
  },
  UserAdministration: {
    user: (user: UserRow) => user,
    account: (user: UserRow) => user,
    isAdmin: (user: UserRow) => user.admin,
    namespaceId: async (user: UserRow, _a: unknown, ctx: Context) => (await ctx.loaders.namespaces.personalByOwnerId.load(user.id))?.id ?? null,
    createdBy: (user: UserRow, _a: unknown, ctx: Context) => (user.createdById === null ? null : ctx.loaders.users.byId.load(user.createdById)),
    emailResetOfferedAt: () => null,
    highestRole: (user: UserRow, _a: unknown, ctx: Context) => ctx.services.users.highestRole(user),
    currentSignInIp: () => null,
    lastSignInIp: () => null,
    signInCount: () => 0,
  },
  Email: {
    databaseId: (email: { id: number }) => email.id,
  },
  UserStatus: {
    messageHtml: statusMessageHtml,
  },
  UserStatusEntity: {
    messageHtml: statusMessageHtml,
  },
  AvailabilityEnum: lowerEnum(['not_set', 'busy']),
  VisibilityPipelineIdType: lowerEnum(['id', 'iid']),
  UserPreferences: {
    // Stored lower-cased, as GitLab stores it; the IssueSort value it names.
    issuesSort: (p: { issuesSort: string | null }) => p.issuesSort?.toUpperCase() ?? null,
  },
  SshKey: {
    // GitLab's publishable_key: the comment, which may hold an e-mail address, replaced by `<user name> (<host>)`.
    key: async (key: KeyRow, _a: unknown, ctx: Context) => {
      const owner = await ctx.loaders.users.byId.load(key.userId);
      return `${key.key.split(' ').slice(0, 2).join(' ')} ${owner?.name ?? ''} (${new URL(ctx.config.externalUrl).hostname})`;
    },
    fingerprintSha256: (key: KeyRow) => `SHA256:${key.fingerprintSha256}`,
    user: (key: KeyRow, _a: unknown, ctx: Context) => ctx.loaders.users.byId.load(key.userId),
  },
};
