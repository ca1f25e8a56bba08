/** GraphQL resolvers of iteration cadences, iterations and an issue's iteration; the REST Iterations API runs through them too. */
import type { Context } from '../../context.js';
import type { PageArgs } from '../../graphql/connection.js';
import { globalId, iidOf, parseId, parseRef } from '../../graphql/ids.js';
import { webUrl } from '../../graphql/resolvers.js';
import { argumentError } from '../../errors.js';
import { renderMarkdown } from '../../markdown.js';
import type { IssueRow } from '../issues/service.js';
import type { NamespaceRow } from '../namespaces/service.js';
import type { ProjectRow } from '../projects/service.js';
import { computeState, STATE_ENUM, type IterationState } from './dates.js';
import type { Noteable } from '../notes/noteables.js';
import type { IterationEventRow, CadenceChanges, CadenceFilters, IterationChanges, IterationFilters, IterationParent, IterationRow, CadenceRow } from './service.js';

interface IterationListArgs extends PageArgs {
  timeframe?: { start: Date; end: Date } | null;
  state?: IterationFilters['state'];
  title?: string | null;
  search?: string | null;
  in?: ('TITLE' | 'CADENCE_TITLE')[] | null;
  id?: string | null;
  iid?: string | null;
  includeAncestors?: boolean | null;
  iterationCadenceIds?: number[] | null;
  sort?: 'CADENCE_AND_DUE_DATE_ASC' | 'CADENCE_AND_DUE_DATE_DESC' | null;
  updatedBefore?: Date | null;
  updatedAfter?: Date | null;
}

function filtersOf(args: IterationListArgs): IterationFilters {
  // The deprecated `title` searches titles, as `search` with `in: [TITLE]` does.
  const search = args.search ?? args.title ?? null;
  return {
    // The REST API's deprecated `started` is `current` (adjust_deprecated_state).
    state: (args.state as string) === 'started' ? 'current' : args.state,
    search,
    in: args.search ? args.in?.map((f) => (f === 'TITLE' ? 'title' : 'cadence_title')) : ['title'],
    ids: args.id != null ? [parseId(args.id, 'Iteration', 'id')] : null,
    iids: args.iid != null ? [iidOf(args.iid)] : null,
    includeAncestors: args.includeAncestors,
    cadenceIds: args.iterationCadenceIds,
    timeframe: args.timeframe,
    updatedBefore: args.updatedBefore,
    updatedAfter: args.updatedAfter,
    sort: args.sort ? (args.sort.toLowerCase() as IterationFilters['sort']) : null,
  };
}

const list = (parent: IterationParent, args: IterationListArgs, ctx: Context) => ctx.services.iterations.list(parent, filtersOf(args), args);
const groupArg = (ctx: Context, path: string, argument = 'groupPath') => ctx.services.iterations.group(parseRef(path, 'Group', argument));
const groupOf = async (row: { groupId: number }, ctx: Context): Promise<NamespaceRow> => (await ctx.loaders.namespaces.byId.load(row.groupId))!;
const path = async (it: IterationRow, ctx: Context) => `groups/${(await groupOf(it, ctx)).fullPath}/-/iterations/${it.id}`;

/** Which cadence filters Group.iterationCadences takes. */
type CadenceListArgs = PageArgs & CadenceFilters;

/** The issue's iteration on create (CreateIssueInput): an iteration by id, or CURRENT of a cadence. */
interface IssueIterationInput {
  iterationId?: number | null;
  iterationWildcardId?: 'CURRENT' | null;
  iterationCadenceId?: number | null;
}

export const iterationResolvers = {
  IterationState: { upcoming: 'upcoming', current: 'current', started: 'started', opened: 'opened', closed: 'closed', all: 'all' },
  Group: {
    iterationCadences: (group: NamespaceRow, args: CadenceListArgs, ctx: Context) => ctx.services.iterations.cadences(group, args, args),
    iterations: (group: NamespaceRow, args: IterationListArgs, ctx: Context) => list({ group }, args, ctx),
  },
  Project: {
    iterations: (project: ProjectRow, args: IterationListArgs, ctx: Context) => list({ project }, args, ctx),
  },
  Query: {
    iteration: (_: unknown, args: { id: number }, ctx: Context) => ctx.services.iterations.byId(args.id),
  },
  Issue: {
    iteration: (issue: IssueRow, _a: unknown, ctx: Context) => ctx.services.iterations.ofIssue(issue),
  },
  ResourceEvents: {
    iterationEvents: (n: Noteable, args: PageArgs, ctx: Context) => ctx.services.iterations.iterationEvents(n, args),
    iterationEvent: (n: Noteable, args: { id: string }, ctx: Context) => ctx.services.iterations.iterationEvent(n, args.id),
  },
  ResourceIterationEvent: {
    id: (e: IterationEventRow) => globalId('ResourceIterationEvent', e.id),
    databaseId: (e: IterationEventRow) => e.id,
    user: (e: IterationEventRow, _a: unknown, ctx: Context) => ctx.loaders.users.byId.load(e.userId),
    resourceType: () => 'Issue',
    resourceId: (e: IterationEventRow) => e.issueId,
    iteration: (e: IterationEventRow, _a: unknown, ctx: Context) => ctx.loaders.iterations.byId.load(e.iterationId),
  },
  IterationCadence: {
    id: (c: CadenceRow) => globalId('Iterations::Cadence', c.id),
  },
  Iteration: {
    report: (it: IterationRow, args: { fullPath?: string | null }, ctx: Context) => ctx.services.iterations.report(it, args.fullPath),
    id: (it: IterationRow) => globalId('Iteration', it.id),
    iid: (it: IterationRow) => String(it.iid),
    databaseId: (it: IterationRow) => it.id,
    databaseIid: (it: IterationRow) => it.iid,
    descriptionHtml: (it: IterationRow, _a: unknown, ctx: Context) =>
      it.description == null ? null : renderMarkdown(it.description, { users: new Map(), numbered: new Map(), externalUrl: ctx.config.externalUrl }),
    state: (it: IterationRow): IterationState => computeState(it.startDate, it.dueDate),
    stateId: (it: IterationRow) => STATE_ENUM[computeState(it.startDate, it.dueDate)],
    iterationCadence: (it: IterationRow, _a: unknown, ctx: Context) => ctx.loaders.iterations.cadenceById.load(it.iterationsCadenceId),
    webPath: async (it: IterationRow, _a: unknown, ctx: Context) => `/${await path(it, ctx)}`,
    webUrl: async (it: IterationRow, _a: unknown, ctx: Context) => webUrl(ctx, await path(it, ctx)),
    scopedPath: () => null,
    scopedUrl: () => null,
  },
  Mutation: {
    iterationCadenceCreate: async (_: unknown, input: CadenceChanges & { groupPath: string; automatic: boolean; active: boolean }, ctx: Context) => {
      const { groupPath, ...rest } = input;
      return { iterationCadence: await ctx.services.iterations.createCadence(await groupArg(ctx, groupPath), rest) };
    },
    iterationCadenceUpdate: async (_: unknown, input: CadenceChanges & { id: number }, ctx: Context) => {
      const { id, clientMutationId: _c, ...changes } = input as typeof input & { clientMutationId?: string };
      return { iterationCadence: await ctx.services.iterations.updateCadence(id, changes) };
    },
    iterationCadenceDestroy: async (_: unknown, input: { id: number }, ctx: Context) => ({ group: await ctx.services.iterations.destroyCadence(input.id) }),
    iterationCreate: async (_: unknown, input: IterationChanges & { groupPath?: string | null; projectPath?: string | null; iterationsCadenceId?: number | null }, ctx: Context) => {
      // Mutations::ResolvesResourceParent: exactly one of the group and the project.
      if ((input.groupPath == null) === (input.projectPath == null)) throw argumentError('Exactly one of group_path or project_path arguments is required');
      const parent: IterationParent =
        input.groupPath != null
          ? { group: await groupArg(ctx, input.groupPath) }
          : { project: await ctx.services.projects.get(parseRef(input.projectPath!, 'Project', 'projectPath')) };
      if ('project' in parent) ctx.services.iterations.requireAvailable();
      const { title, description, startDate, dueDate } = input;
      return { iteration: await ctx.services.iterations.create(parent, input.iterationsCadenceId ?? null, { title, description, startDate, dueDate }) };
    },
    updateIteration: async (_: unknown, input: IterationChanges & { groupPath: string; id: string }, ctx: Context) => {
      const group = await groupArg(ctx, input.groupPath);
      const { title, description, startDate, dueDate } = input;
      // Mutations::Iterations::Update: a global ID, or a raw model id for backward compatibility.
      return { iteration: await ctx.services.iterations.update(group, parseId(input.id, 'Iteration', 'id'), { title, description, startDate, dueDate }) };
    },
    iterationDelete: (_: unknown, input: { id: number }, ctx: Context) => ctx.services.iterations.destroy(input.id),
    issueSetIteration: async (_: unknown, input: { projectPath: string; iid: string; iterationId?: number | null }, ctx: Context) => {
      const project = await ctx.services.projects.get(parseRef(input.projectPath, 'Project', 'projectPath'));
      const issue = await ctx.services.issues.get(project, iidOf(input.iid));
      return { issue: await ctx.services.iterations.setIssueIteration(issue, input.iterationId ? { iterationId: input.iterationId } : null) };
    },
  },
};

/**
 * CreateIssueInput's iteration (EE's Mutations::Issues::Create): `iterationId`, or `iterationWildcardId: CURRENT`
 * with `iterationCadenceId`; the two are exclusive, and the wildcard needs the cadence.
 */
export function issueIterationChoice(input: IssueIterationInput): { iterationId: number } | { currentOfCadence: number } | null {
  if (input.iterationId != null && input.iterationWildcardId != null) throw argumentError('Incompatible arguments: iterationId, iterationWildcardId.');
  if (input.iterationWildcardId != null && input.iterationCadenceId == null) throw argumentError('iterationCadenceId is required when iterationWildcardId is provided.');
  if (input.iterationId != null) return { iterationId: input.iterationId };
  if (input.iterationWildcardId === 'CURRENT') return { currentOfCadence: input.iterationCadenceId! };
  return null;
}
