/** GraphQL resolvers of users. */
import type { Context } from '../../context.js';
import type { PageArgs } from '../../graphql/connection.js';
import { idFields, webUrl, type Resolver } from '../../graphql/resolvers.js';
import type { UserFilters, UserInput, UserRow } from './service.js';

/** Fields only the user themselves and administrators may see. */
const privateField =
  <K extends keyof UserRow>(key: K): Resolver<UserRow> =>
  (user, _args, ctx) =>
    ctx.viewer && (ctx.viewer.admin || ctx.viewer.id === user.id) ? user[key] : null;

export const userResolvers = {
  Query: {
    currentUser: (_: unknown, _a: unknown, ctx: Context) => ctx.services.users.current(),
    user: (_: unknown, args: { id?: string; username?: string }, ctx: Context) => ctx.services.users.find(args),
    users: (_: unknown, args: UserFilters & PageArgs, ctx: Context) => ctx.services.users.list(args, args),
  },
  Mutation: {
    userCreate: (_: unknown, args: UserInput, ctx: Context) => ctx.services.users.create(args),
  },
  UserCore: {
    ...idFields('User'),
    locked: () => false,
    webUrl: (user: UserRow, _a: unknown, ctx: Context) => webUrl(ctx, user.username),
    webPath: (user: UserRow) => `/${user.username}`,
    email: privateField('email'),
    // GitLab shows is_admin only to administrators (UserWithAdmin), not to users looking at themselves.
    admin: (user: UserRow, _a: unknown, ctx: Context) => (ctx.viewer?.admin ? user.admin : null),
    publicEmail: () => null,
    canCreateProject: (user: UserRow) => user.projectsLimit > 0,
    namespace: (user: UserRow, _a: unknown, ctx: Context) => ctx.loaders.namespaces.personalByOwnerId.load(user.id),
  },
};
