/** GraphQL resolvers of resource events; the resource events APIs run through them. */
import type { Context } from '../../context.js';
import type { PageArgs } from '../../graphql/connection.js';
import { globalId, parseRef } from '../../graphql/ids.js';
import type { Noteable } from '../notes/noteables.js';
import type { LabelEventRow, MilestoneEventRow, StateEventRow, WeightEventRow } from './service.js';

interface ResourceArgs {
  projectId: string;
  noteableType: string;
  key: string;
}

type Row = LabelEventRow | WeightEventRow | MilestoneEventRow | StateEventRow;

/** What every event shows alike: its ids, its author and its time. */
const common = (type: string) => ({
  id: (e: Row) => globalId(type, e.id),
  databaseId: (e: Row) => e.id,
  user: (e: Row, _a: unknown, ctx: Context) => ctx.loaders.users.byId.load(e.userId),
});

export const resourceEventsResolvers = {
  Query: {
    resourceEvents: (_: unknown, args: ResourceArgs, ctx: Context) =>
      ctx.services.notes.noteable(ctx.services, args.noteableType, parseRef(args.projectId, 'Project', 'projectId'), args.key),
  },
  ResourceEvents: {
    labelEvents: (n: Noteable, args: PageArgs, ctx: Context) => ctx.services.resource_events.labelEvents(n, args),
    labelEvent: (n: Noteable, args: { id: string }, ctx: Context) => ctx.services.resource_events.labelEvent(n, args.id),
    weightEvents: (n: Noteable, args: PageArgs, ctx: Context) => ctx.services.resource_events.weightEvents(n, args),
    weightEvent: (n: Noteable, args: { id: string }, ctx: Context) => ctx.services.resource_events.weightEvent(n, args.id),
    milestoneEvents: (n: Noteable, args: PageArgs, ctx: Context) => ctx.services.resource_events.milestoneEvents(n, args),
    milestoneEvent: (n: Noteable, args: { id: string }, ctx: Context) => ctx.services.resource_events.milestoneEvent(n, args.id),
    stateEvents: (n: Noteable, args: PageArgs, ctx: Context) => ctx.services.resource_events.stateEvents(n, args),
    stateEvent: (n: Noteable, args: { id: string }, ctx: Context) => ctx.services.resource_events.stateEvent(n, args.id),
  },
  ResourceLabelEvent: {
    ...common('ResourceLabelEvent'),
    // The label as reached through the resource's project (its parent for Label's per-project fields).
    label: async (e: LabelEventRow, _a: unknown, ctx: Context) => {
      if (!e.label) return null;
      const project = e.projectId === null ? null : await ctx.loaders.projects.byId.load(e.projectId);
      return { ...e.label, parent: project ? { project } : null };
    },
  },
  ResourceWeightEvent: common('ResourceWeightEvent'),
  ResourceMilestoneEvent: common('ResourceMilestoneEvent'),
  ResourceStateEvent: common('ResourceStateEvent'),
};
