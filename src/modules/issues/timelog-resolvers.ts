/** GraphQL resolvers of timelogs (timelogs.ts): Timelog, the timelog lists and GitLab's timelogCreate and timelogDelete. */
import type { Context } from '../../context.js';
import type { PageArgs } from '../../graphql/connection.js';
import { globalId } from '../../graphql/ids.js';
import { notFound } from '../../errors.js';
import type { MergeRequestRow } from '../merge_requests/service.js';
import type { NamespaceRow } from '../namespaces/service.js';
import type { ProjectRow } from '../projects/service.js';
import { durationSeconds, humanDuration } from './durations.js';
import type { IssueRow } from './service.js';
import type { Issuable, TimelogFilters, TimelogRow, TimelogSort } from './timelogs.js';

type ListArgs = PageArgs & Omit<TimelogFilters, 'sort'> & { sort?: string | null };

const filters = (args: ListArgs): TimelogFilters => ({ ...args, sort: (args.sort?.toLowerCase() ?? null) as TimelogSort | null });

const timeTracking = {
  humanTimeEstimate: (row: IssueRow | MergeRequestRow) => humanDuration(row.timeEstimate),
  humanTotalTimeSpent: (row: IssueRow | MergeRequestRow) => humanDuration(row.totalTimeSpent),
};

/** The issuable timelogCreate names, as the viewer may read it. */
async function issuableOf(ctx: Context, ref: { type: string; id: number }): Promise<Issuable> {
  if (ref.type === 'Issue') {
    const row = await ctx.services.issues.byId(ref.id);
    if (!row) throw notFound('Issue');
    return { type: 'Issue', row };
  }
  const row = await ctx.services.merge_requests.byId(ref.id);
  if (!row) throw notFound('Merge Request');
  return { type: 'MergeRequest', row };
}

export const timelogResolvers = {
  Timelog: {
    id: (t: TimelogRow) => globalId('Timelog', t.id),
    issue: (t: TimelogRow, _a: unknown, ctx: Context) => (t.issueId === null ? null : ctx.loaders.issues.byId.load(t.issueId)),
    mergeRequest: (t: TimelogRow, _a: unknown, ctx: Context) => (t.mergeRequestId === null ? null : ctx.loaders.merge_requests.byId.load(t.mergeRequestId)),
    note: (t: TimelogRow, _a: unknown, ctx: Context) => (t.noteId === null ? null : ctx.loaders.notes.byId.load(t.noteId)),
    project: (t: TimelogRow, _a: unknown, ctx: Context) => ctx.loaders.projects.byId.load(t.projectId),
    user: (t: TimelogRow, _a: unknown, ctx: Context) => ctx.loaders.users.byId.load(t.userId),
    userPermissions: (t: TimelogRow) => t,
  },
  TimelogPermissions: {
    adminTimelog: (t: TimelogRow, _a: unknown, ctx: Context) => ctx.services.issues.timelogs.mayAdmin(t),
  },
  Issue: {
    ...timeTracking,
    timelogs: (i: IssueRow, args: PageArgs, ctx: Context) => ctx.services.issues.timelogs.of({ type: 'Issue', id: i.id, projectId: i.projectId }, args),
  },
  MergeRequest: {
    ...timeTracking,
    timelogs: (m: MergeRequestRow, args: PageArgs, ctx: Context) => ctx.services.issues.timelogs.of({ type: 'MergeRequest', id: m.id, projectId: m.projectId }, args),
  },
  Project: {
    timelogs: (project: ProjectRow, args: ListArgs, ctx: Context) => ctx.services.issues.timelogs.list({ project }, filters(args), args),
  },
  Group: {
    timelogs: (group: NamespaceRow, args: ListArgs, ctx: Context) => ctx.services.issues.timelogs.list({ group }, filters(args), args),
  },
  Query: {
    timelogs: (_: unknown, args: ListArgs, ctx: Context) => ctx.services.issues.timelogs.list(null, filters(args), args),
  },
  Mutation: {
    timelogCreate: async (_: unknown, input: { issuableId: { type: string; id: number }; timeSpent: string; spentAt: Date; summary: string }, ctx: Context) => {
      const parsed = durationSeconds(input.timeSpent);
      return { timelog: await ctx.services.issues.timelogs.create(await issuableOf(ctx, input.issuableId), parsed, input.spentAt, input.summary) };
    },
    timelogDelete: async (_: unknown, input: { id: number }, ctx: Context) => {
      const timelog = await ctx.services.issues.timelogs.byId(input.id);
      if (!timelog) throw notFound('Timelog');
      return { timelog: await ctx.services.issues.timelogs.destroy(timelog) };
    },
  },
};
