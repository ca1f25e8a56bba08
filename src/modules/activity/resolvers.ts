/** GraphQL resolvers of activity events. */
import type { Context } from '../../context.js';
import { idFields } from '../../graphql/resolvers.js';
import { actionName, type EventRow } from './service.js';

export const activityResolvers = {
  Subscription: {
    activityEventRecorded: {
      subscribe: (_: unknown, args: { projectPath?: string | null }, ctx: Context) => ctx.services.activity.recorded(args.projectPath),
    },
  },
  Event: {
    ...idFields('Event'),
    actionName: (e: EventRow) => actionName(e.action, e.targetType),
    author: (e: EventRow, _a: unknown, ctx: Context) => ctx.loaders.users.byId.load(e.authorId),
  },
};
