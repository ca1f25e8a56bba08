/** GraphQL resolvers of OAuth applications; the REST routes (`/applications`) run through them too. */
import type { Context } from '../../context.js';
import { parseId } from '../../graphql/ids.js';
import { idFields } from '../../graphql/resolvers.js';
import type { ApplicationInput, ApplicationRow, IssuedApplication } from './service.js';

const TYPE = 'Authn::OauthApplication';
const applicationId = (id: string | number) => parseId(id, TYPE, 'id');

export const applicationResolvers = {
  Query: {
    oauthApplications: (_: unknown, _a: unknown, ctx: Context) => ctx.services.applications.list(),
  },
  Mutation: {
    oauthApplicationCreate: async (_: unknown, args: ApplicationInput, ctx: Context) => ({ oauthApplication: await ctx.services.applications.create(args) }),
    oauthApplicationDelete: async (_: unknown, args: { id: string }, ctx: Context) => ({ oauthApplication: await ctx.services.applications.destroy(applicationId(args.id)) }),
    oauthApplicationRenewSecret: async (_: unknown, args: { id: string }, ctx: Context) => ({
      oauthApplication: await ctx.services.applications.renewSecret(applicationId(args.id)),
    }),
  },
  OauthApplication: {
    ...idFields(TYPE),
    applicationId: (app: ApplicationRow) => app.uid,
    callbackUrl: (app: ApplicationRow) => app.redirectUri,
    secret: (app: IssuedApplication) => app.secret ?? null,
  },
};
