/** GraphQL resolvers of resource events; the resource events APIs run through them. */
import type { Context } from '../../context.js';
import type { PageArgs } from '../../graphql/connection.js';
import { globalId } from '../../graphql/ids.js';
import type { Noteable } from '../notes/noteables.js';
import { noteableOf, type NoteableArgs } from '../notes/resolvers.js';
import type { LabelEventRow, MilestoneEventRow, StateEventRow, WeightEventRow } from './service.js';


type Row = LabelEventRow | WeightEventRow | MilestoneEventRow | StateEventRow;

/** What every event shows alike: its ids, its author and its time. */
const common = (type: string) => ({
  id: (e: Row) => globalId(type, e.id),
  databaseId: (e: Row) => e.id,
  user: (e: Row, _a: unknown, ctx: Context) => ctx.loaders.users.byId.load(e.userId),
});

export const resourceEventsResolvers = {
  Query: {
    resourceEvents: (_: unknown, args: NoteableArgs, ctx: Context) => noteableOf(ctx, args),
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
    // The label as reached through the resource's project, or group for an epic's (its parent for Label's per-parent fields).
    label: async (e: LabelEventRow, _a: unknown, ctx: Context) => {
      if (!e.label) return null;
      const project = e.projectId === null ? null : await ctx.loaders.projects.byId.load(e.projectId);
      const group = !project && e.groupId !== null ? await ctx.loaders.namespaces.byId.load(e.groupId) : null;
      return { ...e.label, parent: project ? { project } : group ? { group } : null };
    },
  },
  ResourceWeightEvent: common('ResourceWeightEvent'),
  ResourceMilestoneEvent: common('ResourceMilestoneEvent'),
  ResourceStateEvent: common('ResourceStateEvent'),
};
