/** GraphQL resolvers of server metadata and the heartbeat. */
import type { Context } from '../../context.js';

export const metadataResolvers = {
  Query: {
    metadata: (_: unknown, _a: unknown, ctx: Context) => ctx.services.metadata.get(),
  },
  Subscription: {
    heartbeat: { subscribe: (_: unknown, args: { intervalSeconds: number }, ctx: Context) => ctx.services.metadata.heartbeat(args.intervalSeconds) },
  },
};
