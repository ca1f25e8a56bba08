/** GraphQL resolvers of activity events. */
import type { Context } from '../../context.js';
import type { PageArgs } from '../../graphql/connection.js';
import { parseRef } from '../../graphql/ids.js';
import { idFields } from '../../graphql/resolvers.js';
import type { ProjectRow } from '../projects/service.js';
import type { UserRow } from '../users/service.js';
import { ACTIVITY_ACTIONS, TARGET_TYPES, actionName } from './actions.js';
import type { EventFilters, EventRow } from './service.js';

export const activityResolvers = {
  Subscription: {
    activityEventRecorded: {
      subscribe: async (_: unknown, args: { projectPath?: string | null }, ctx: Context) =>
        ctx.services.activity.recorded(ctx.services, args.projectPath != null ? await ctx.services.projects.get(parseRef(args.projectPath, 'Project', 'projectPath')) : null),
    },
  },
  UserCore: {
    events: (user: UserRow, args: EventFilters & { scope?: string | null } & PageArgs, ctx: Context) => ctx.services.activity.listForUser(ctx.services, user, args, args),
  },
  Project: {
    events: (project: ProjectRow, args: EventFilters & PageArgs, ctx: Context) => ctx.services.activity.listForProject(ctx.services, project, args, args),
  },
  EventAction: Object.fromEntries(ACTIVITY_ACTIONS.map((action) => [action.toUpperCase(), action])),
  EventTargetType: TARGET_TYPES,
  Event: {
    ...idFields('Event'),
    title: () => null,
    actionName: (e: EventRow) => actionName(e),
    // A live event's row comes with its author (ActivityService.recorded); a listed one's is loaded.
    author: (e: EventRow & { author?: UserRow }, _a: unknown, ctx: Context) => e.author ?? ctx.loaders.users.byId.load(e.authorId),
    targetIid: (e: EventRow) => e.targetIid ?? e.targetId,
    importedFrom: () => 'none',
    pushData: (e: EventRow) => (e.action === 'pushed' ? e.pushData : null),
  },
};
