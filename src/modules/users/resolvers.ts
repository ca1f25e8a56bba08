/** GraphQL resolvers of users. */
import type { Context } from '../../context.js';
import { avatarUrl } from '../../uploads/avatars.js';
import type { UploadedFile } from '../../uploads/storage.js';
import type { PageArgs } from '../../graphql/connection.js';
import { parseId, parseRef } from '../../graphql/ids.js';
import { idFields, shownWith, webUrl } from '../../graphql/resolvers.js';
import type { UserFilters, UserInput, UserRow } from './service.js';

export const userResolvers = {
  Query: {
    currentUser: (_: unknown, _a: unknown, ctx: Context) => ctx.services.users.current(),
    user: (_: unknown, args: { id?: string | null; username?: string | null }, ctx: Context) =>
      args.id != null
        ? ctx.services.users.find(parseRef(args.id, 'User', 'id'))
        : args.username != null
          ? ctx.services.users.find({ path: args.username })
          : null,
    users: (_: unknown, args: UserFilters & PageArgs, ctx: Context) => ctx.services.users.list(args, args),
  },
  Mutation: {
    userCreate: (_: unknown, args: UserInput, ctx: Context) => ctx.services.users.create(args),
    userAvatarUpdate: (_: unknown, args: { avatar: UploadedFile }, ctx: Context) => ctx.services.users.setOwnAvatar(args.avatar),
    userBlock: (_: unknown, args: { id: string }, ctx: Context) => ctx.services.users.setBlocked(parseId(args.id, 'User', 'id'), true),
    userUnblock: (_: unknown, args: { id: string }, ctx: Context) => ctx.services.users.setBlocked(parseId(args.id, 'User', 'id'), false),
  },
  UserCore: {
    ...idFields('User'),
    avatarUrl: (user: UserRow, _a: unknown, ctx: Context) => avatarUrl(ctx.config.externalUrl, 'user', user.id, user.avatar),
    locked: () => false,
    webUrl: (user: UserRow, _a: unknown, ctx: Context) => webUrl(ctx, user.username),
    webPath: (user: UserRow) => `/${user.username}`,
    email: shownWith('read_user_email_address', (user: UserRow) => user, (user) => user.email),
    // GitLab shows is_admin only to administrators (UserWithAdmin), not to users looking at themselves.
    admin: shownWith('admin_all_resources', () => null, (user: UserRow) => user.admin),
    publicEmail: () => null,
    canCreateProject: (user: UserRow) => user.projectsLimit > 0,
    namespace: (user: UserRow, _a: unknown, ctx: Context) => ctx.services.namespaces.personalOf(user),
  },
};
