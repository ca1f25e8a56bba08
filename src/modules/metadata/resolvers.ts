/** GraphQL resolvers of server metadata and the heartbeat. */
import type { Context } from '../../context.js';

export const metadataResolvers = {
  Query: {
    metadata: (_: unknown, _a: unknown, ctx: Context) => ctx.services.metadata.get(),
    // GitLab's EchoResolver: the username as Ruby's `inspect` writes it, `nil` for no one.
    echo: (_: unknown, args: { text: string }, ctx: Context) => `${ctx.viewer ? JSON.stringify(ctx.viewer.username) : 'nil'} says: ${args.text}`,
  },
  Subscription: {
    heartbeat: { subscribe: (_: unknown, args: { intervalSeconds: number }, ctx: Context) => ctx.services.metadata.heartbeat(args.intervalSeconds) },
  },
};
