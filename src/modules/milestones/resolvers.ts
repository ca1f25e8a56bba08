/** GraphQL resolvers of milestones; the REST routes run through them too. */
import type { Context } from '../../context.js';
import type { PageArgs } from '../../graphql/connection.js';
import { globalId } from '../../graphql/ids.js';
import { webUrl } from '../../graphql/resolvers.js';
import type { NamespaceRow } from '../namespaces/service.js';
import type { ProjectRow } from '../projects/service.js';
import { notFound } from '../../errors.js';
import { parentOf } from '../labels/resolvers.js';
import type { TimeboxParent } from '../labels/service.js';
import type { MilestoneChanges, MilestoneFilters, MilestoneInput, MilestoneRow } from './service.js';

type ListArgs = MilestoneFilters & { searchTitle?: string | null } & PageArgs;
interface IdInput {
  projectPath?: string | null;
  groupPath?: string | null;
  id: number;
}

const list = (parent: TimeboxParent, args: ListArgs, ctx: Context) => ctx.services.milestones.list(parent, { ...args, search: args.searchTitle }, args);
const dateOnly = (date: Date | null) => date && date.toISOString().slice(0, 10);

/** The milestone's path: `<project>/-/milestones/<iid>` or `groups/<group>/-/milestones/<iid>` (Gitlab::UrlBuilder). */
async function pathOf(m: MilestoneRow, ctx: Context): Promise<string> {
  if (m.projectId !== null) return `${(await ctx.loaders.projects.byId.load(m.projectId))?.fullPath}/-/milestones/${m.iid}`;
  const group = await ctx.loaders.namespaces.byId.load(m.groupId ?? -1);
  return `groups/${group?.fullPath}/-/milestones/${m.iid}`;
}

/** The project or group a milestone (already read) belongs to: the scope of its issues and merge requests lists. */
export async function milestoneParent(m: MilestoneRow, ctx: Context): Promise<TimeboxParent> {
  if (m.projectId !== null) {
    const project = await ctx.loaders.projects.byId.load(m.projectId);
    if (project) return { project };
  } else {
    const group = await ctx.loaders.namespaces.byId.load(m.groupId ?? -1);
    if (group) return { group };
  }
  throw notFound('Milestone');
}

export const milestoneResolvers = {
  Project: {
    milestones: (project: ProjectRow, args: ListArgs, ctx: Context) => list({ project }, args, ctx),
    milestone: (project: ProjectRow, args: { id: number }, ctx: Context) => ctx.services.milestones.get({ project }, args.id),
  },
  Group: {
    milestones: (group: NamespaceRow, args: ListArgs, ctx: Context) => list({ group }, args, ctx),
    milestone: (group: NamespaceRow, args: { id: number }, ctx: Context) => ctx.services.milestones.get({ group }, args.id),
  },
  Query: {
    milestone: (_: unknown, args: { id: number }, ctx: Context) => ctx.services.milestones.find(ctx.services, args.id),
  },
  Milestone: {
    id: (m: MilestoneRow) => globalId('Milestone', m.id),
    databaseId: (m: MilestoneRow) => m.id,
    databaseIid: (m: MilestoneRow) => m.iid,
    dueOn: (m: MilestoneRow) => dateOnly(m.dueDate),
    startOn: (m: MilestoneRow) => dateOnly(m.startDate),
    expired: (m: MilestoneRow) => m.dueDate !== null && m.dueDate.toISOString().slice(0, 10) < new Date().toISOString().slice(0, 10),
    projectMilestone: (m: MilestoneRow) => m.projectId !== null,
    groupMilestone: (m: MilestoneRow) => m.groupId !== null,
    webPath: async (m: MilestoneRow, _a: unknown, ctx: Context) => `/${await pathOf(m, ctx)}`,
    webUrl: async (m: MilestoneRow, _a: unknown, ctx: Context) => webUrl(ctx, await pathOf(m, ctx)),
    subgroupMilestone: async (m: MilestoneRow, _a: unknown, ctx: Context) => m.groupId !== null && (await ctx.loaders.namespaces.byId.load(m.groupId))?.parentId != null,
    releases: (m: MilestoneRow, args: PageArgs, ctx: Context) => ctx.services.releases.ofMilestone(m.id, args),
    report: (m: MilestoneRow, args: { fullPath?: string | null }, ctx: Context) => ctx.services.milestones.report(m, args.fullPath),
  },
  TimeboxReportInterface: {
    __resolveType: (timebox: object) => ('iterationsCadenceId' in timebox ? 'Iteration' : 'Milestone'),
  },
  Mutation: {
    milestoneCreate: async (_: unknown, input: IdInput & MilestoneInput, ctx: Context) => ({ milestone: await ctx.services.milestones.create(await parentOf(ctx, input), input) }),
    milestoneUpdate: async (_: unknown, input: IdInput & MilestoneChanges, ctx: Context) => ({
      milestone: await ctx.services.milestones.update(await parentOf(ctx, input), input.id, input),
    }),
    milestoneDestroy: async (_: unknown, input: IdInput, ctx: Context) => ({ milestone: await ctx.services.milestones.destroy(await parentOf(ctx, input), input.id) }),
    milestonePromote: async (_: unknown, input: IdInput, ctx: Context) => ({ milestone: await ctx.services.milestones.promote(await parentOf(ctx, input), input.id) }),
  },
};
