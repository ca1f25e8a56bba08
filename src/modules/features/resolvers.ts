/** GraphQL resolvers of feature flags and experiments; the REST routes (`/features`, `/experiments`) run through them. */
import type { Context } from '../../context.js';
import type { FeatureSetArgs } from './service.js';

export const featureResolvers = {
  Query: {
    features: (_: unknown, _a: unknown, ctx: Context) => ctx.services.features.list(),
    featureDefinitions: (_: unknown, _a: unknown, ctx: Context) => ctx.services.features.definitions(),
    experiments: (_: unknown, _a: unknown, ctx: Context) => ctx.services.features.experiments(),
  },
  Mutation: {
    featureSet: async (_: unknown, args: FeatureSetArgs, ctx: Context) => ({ feature: await ctx.services.features.set(args) }),
    featureDelete: async (_: unknown, args: { name: string }, ctx: Context) => ({ feature: await ctx.services.features.remove(args.name) }),
  },
};
