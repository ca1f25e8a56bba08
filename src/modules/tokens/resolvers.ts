/** GraphQL resolvers of personal access tokens. */
import type { Context } from '../../context.js';
import type { PageArgs } from '../../graphql/connection.js';
import { parseId } from '../../graphql/ids.js';
import { idFields } from '../../graphql/resolvers.js';
import { isTokenActive, type IssuedToken, type TokenFilters, type TokenInput, type TokenRow } from './service.js';

type WithUserId<T> = Omit<T, 'userId'> & { userId?: string | null };

const tokenId = (id: string) => parseId(id, 'PersonalAccessToken', 'id');

export const tokenResolvers = {
  Query: {
    personalAccessTokens: (_: unknown, args: WithUserId<TokenFilters> & PageArgs, ctx: Context) =>
      ctx.services.tokens.list({ ...args, userId: args.userId != null ? parseId(args.userId, 'User', 'userId') : null }, args),
    personalAccessToken: (_: unknown, args: { id: string }, ctx: Context) => ctx.services.tokens.get(tokenId(args.id)),
    personalAccessTokenSelf: (_: unknown, _a: unknown, ctx: Context) => ctx.services.tokens.self(),
  },
  Mutation: {
    personalAccessTokenCreate: async (_: unknown, args: WithUserId<TokenInput> & { userId: string }, ctx: Context) => ({
      personalAccessToken: await ctx.services.tokens.create({ ...args, userId: parseId(args.userId, 'User', 'userId') }),
    }),
    personalAccessTokenRevoke: async (_: unknown, args: { id: string }, ctx: Context) => ({ personalAccessToken: await ctx.services.tokens.revoke(tokenId(args.id)) }),
    personalAccessTokenSelfRevoke: async (_: unknown, _a: unknown, ctx: Context) => ({ personalAccessToken: await ctx.services.tokens.revokeSelf() }),
  },
  PersonalAccessToken: {
    ...idFields('PersonalAccessToken'),
    active: (token: TokenRow) => isTokenActive(token),
    user: (token: TokenRow, _a: unknown, ctx: Context) => ctx.loaders.users.byId.load(token.userId),
    token: (token: IssuedToken) => token.token ?? null,
  },
};
