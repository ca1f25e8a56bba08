/** GraphQL resolvers of personal access tokens. */
import type { Context } from '../../context.js';
import type { PageArgs } from '../../graphql/connection.js';
import { idFields } from '../../graphql/resolvers.js';
import { isTokenActive, type IssuedToken, type TokenFilters, type TokenInput, type TokenRow } from './service.js';

export const tokenResolvers = {
  Query: {
    personalAccessTokens: (_: unknown, args: TokenFilters & PageArgs, ctx: Context) => ctx.services.tokens.list(args, args),
    personalAccessToken: (_: unknown, args: { id?: string }, ctx: Context) => ctx.services.tokens.get(args.id),
  },
  Mutation: {
    personalAccessTokenCreate: (_: unknown, args: TokenInput, ctx: Context) => ctx.services.tokens.create(args),
    personalAccessTokenRevoke: (_: unknown, args: { id?: string }, ctx: Context) => ctx.services.tokens.revoke(args.id),
  },
  PersonalAccessToken: {
    ...idFields('PersonalAccessToken'),
    active: (token: TokenRow) => isTokenActive(token),
    user: (token: TokenRow, _a: unknown, ctx: Context) => ctx.loaders.users.byId.load(token.userId),
    token: (token: IssuedToken) => token.token ?? null,
  },
};
