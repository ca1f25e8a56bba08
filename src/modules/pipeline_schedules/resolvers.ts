/** GraphQL resolvers of pipeline schedules; the REST routes run through them too. */
import type { Context } from '../../context.js';
import { wholeConnection, type PageArgs } from '../../graphql/connection.js';
import { globalId, parseId, parseRef } from '../../graphql/ids.js';
import { idFields } from '../../graphql/resolvers.js';
import { notFound } from '../../errors.js';
import type { PipelineFilters } from '../pipelines/service.js';
import type { ProjectRow } from '../projects/service.js';
import { shortRef, storedInputs } from './rules.js';
import type { PipelineScheduleRow, ScheduleChanges, ScheduleInput, ScheduleVariableRow, VariableType } from './service.js';

const TYPE = 'Ci::PipelineSchedule';

type ScheduledPipelineArgs = Pick<PipelineFilters, 'status' | 'updatedAfter' | 'updatedBefore' | 'createdAfter' | 'createdBefore'> & { scope?: string | null; sort?: string | null } & PageArgs;

interface IdInput {
  id: string;
  projectPath?: string | null;
}

/**
 * A schedule named by ID, with its project, as the viewer may see it (404 otherwise). With `projectPath` (REST
 * paths name the project) the schedule must belong to that project.
 */
async function scheduleById(ctx: Context, input: IdInput): Promise<{ project: ProjectRow; id: number }> {
  const id = parseId(input.id, TYPE, 'id');
  if (input.projectPath != null) return { project: await ctx.services.projects.get(parseRef(input.projectPath, 'Project', 'projectPath')), id };
  const project = await ctx.services.projects.find({ id: await ctx.services.pipeline_schedules.projectOf(id) });
  if (!project) throw notFound('Pipeline Schedule');
  return { project, id };
}

const projectOf = async (ctx: Context, row: { projectId: number }) => (await ctx.loaders.projects.byId.load(row.projectId)) as ProjectRow;

export const pipelineScheduleResolvers = {
  PipelineScheduleStatus: { ACTIVE: 'active', INACTIVE: 'inactive' },
  Project: {
    pipelineSchedules: (p: ProjectRow, args: { status?: 'active' | 'inactive' | null; ids?: string[] | null } & PageArgs, ctx: Context) =>
      ctx.services.pipeline_schedules.list(p, { status: args.status, ids: args.ids?.map((id) => parseId(id, TYPE, 'ids')) }, args),
    pipelineSchedule: (p: ProjectRow, args: { id: string }, ctx: Context) => ctx.services.pipeline_schedules.get(p, parseId(args.id, TYPE, 'id')),
  },
  PipelineSchedule: {
    ...idFields(TYPE),
    refForDisplay: (s: PipelineScheduleRow) => shortRef(s.ref),
    forTag: (s: PipelineScheduleRow) => s.ref.startsWith('refs/tags/'),
    realNextRun: (s: PipelineScheduleRow) => s.nextRunAt,
    owner: (s: PipelineScheduleRow, _a: unknown, ctx: Context) => ctx.loaders.users.byId.load(s.ownerId),
    project: (s: PipelineScheduleRow, _a: unknown, ctx: Context) => projectOf(ctx, s),
    lastPipeline: (s: PipelineScheduleRow, _a: unknown, ctx: Context) => ctx.services.pipeline_schedules.lastPipeline(s),
    variables: async (s: PipelineScheduleRow, _a: unknown, ctx: Context) => {
      const nodes = await ctx.services.pipeline_schedules.variables(s);
      return nodes && wholeConnection(nodes);
    },
    inputs: (s: PipelineScheduleRow) => {
      const nodes = storedInputs(s);
      return wholeConnection(nodes);
    },
    variable: (s: PipelineScheduleRow, args: { key: string }, ctx: Context) => ctx.services.pipeline_schedules.variable(s, args.key),
    pipelines: (s: PipelineScheduleRow, args: ScheduledPipelineArgs, ctx: Context) =>
      ctx.services.pipeline_schedules.scheduledPipelines(s, { ...args, scope: args.scope as PipelineFilters['scope'], sort: args.sort ? (args.sort.toLowerCase() as 'asc' | 'desc') : null }, args),
    userPermissions: (s: PipelineScheduleRow, _a: unknown, ctx: Context) => ctx.services.pipeline_schedules.permissions(s),
    // GitLab's edit_project_pipeline_schedule_path, for whoever may update the schedule.
    editPath: async (s: PipelineScheduleRow, _a: unknown, ctx: Context) =>
      (await ctx.services.pipeline_schedules.mayUpdate(s)) ? `/${(await projectOf(ctx, s)).fullPath}/-/pipeline_schedules/${s.id}/edit` : null,
    // GitLab's project_commits_path of the ref's short name.
    refPath: async (s: PipelineScheduleRow, _a: unknown, ctx: Context) => `/${(await projectOf(ctx, s)).fullPath}/-/commits/${shortRef(s.ref)}`,
  },
  PipelineScheduleVariable: {
    id: (v: ScheduleVariableRow) => globalId('Ci::PipelineScheduleVariable', v.id),
  },
  Mutation: {
    pipelineScheduleCreate: async (_: unknown, input: ScheduleInput & { projectPath: string }, ctx: Context) => {
      const project = await ctx.services.projects.get(parseRef(input.projectPath, 'Project', 'projectPath'));
      return { pipelineSchedule: await ctx.services.pipeline_schedules.create(project, input) };
    },
    pipelineScheduleUpdate: async (_: unknown, input: IdInput & ScheduleChanges, ctx: Context) => {
      const { project, id } = await scheduleById(ctx, input);
      return { pipelineSchedule: await ctx.services.pipeline_schedules.update(project, id, input) };
    },
    pipelineScheduleDelete: async (_: unknown, input: IdInput, ctx: Context) => {
      const { project, id } = await scheduleById(ctx, input);
      return { pipelineSchedule: await ctx.services.pipeline_schedules.destroy(project, id) };
    },
    pipelineSchedulePlay: async (_: unknown, input: IdInput, ctx: Context) => {
      const { project, id } = await scheduleById(ctx, input);
      return { pipelineSchedule: await ctx.services.pipeline_schedules.play(project, id), message: '201 Created' };
    },
    pipelineScheduleTakeOwnership: async (_: unknown, input: IdInput, ctx: Context) => {
      const { project, id } = await scheduleById(ctx, input);
      return { pipelineSchedule: await ctx.services.pipeline_schedules.takeOwnership(project, id) };
    },
    pipelineScheduleVariableCreate: async (_: unknown, args: IdInput & { key: string; value: string; variableType?: VariableType | null }, ctx: Context) => {
      const { project, id } = await scheduleById(ctx, args);
      return { pipelineScheduleVariable: await ctx.services.pipeline_schedules.createVariable(project, id, args) };
    },
    pipelineScheduleVariableUpdate: async (_: unknown, args: IdInput & { key: string; value?: string | null; variableType?: VariableType | null }, ctx: Context) => {
      const { project, id } = await scheduleById(ctx, args);
      return { pipelineScheduleVariable: await ctx.services.pipeline_schedules.updateVariable(project, id, args.key, args) };
    },
    pipelineScheduleVariableDelete: async (_: unknown, args: IdInput & { key: string }, ctx: Context) => {
      const { project, id } = await scheduleById(ctx, args);
      return { pipelineScheduleVariable: await ctx.services.pipeline_schedules.deleteVariable(project, id, args.key) };
    },
  },
};
