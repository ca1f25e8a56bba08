/** GraphQL resolvers of activity events. */
import type { Context } from '../../context.js';
import { parseRef } from '../../graphql/ids.js';
import { idFields } from '../../graphql/resolvers.js';
import { actionName, type EventRow } from './service.js';

export const activityResolvers = {
  Subscription: {
    activityEventRecorded: {
      subscribe: async (_: unknown, args: { projectPath?: string | null }, ctx: Context) =>
        ctx.services.activity.recorded(args.projectPath != null ? await ctx.services.projects.get(parseRef(args.projectPath, 'Project', 'projectPath')) : null),
    },
  },
  Event: {
    ...idFields('Event'),
    actionName: (e: EventRow) => actionName(e.action, e.targetType),
    author: (e: EventRow, _a: unknown, ctx: Context) => ctx.loaders.users.byId.load(e.authorId),
  },
};
