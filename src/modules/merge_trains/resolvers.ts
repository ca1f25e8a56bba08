/** GraphQL resolvers of merge trains; the Merge Trains API's routes run through them too. */
import type { Context } from '../../context.js';
import type { PageArgs } from '../../graphql/connection.js';
import { iidOf, parseId, parseRef } from '../../graphql/ids.js';
import { idFields, lowerEnum } from '../../graphql/resolvers.js';
import type { MergeRequestRow } from '../merge_requests/service.js';
import type { ProjectRow } from '../projects/service.js';
import type { CarRow, TrainRow } from './service.js';
import { mergeTrainsEnabled, mergeTrainsSkipTrainAllowed } from './settings.js';

const TYPE = 'MergeTrains::Car';

const projectOf = (ctx: Context, projectPath: string) => ctx.services.projects.get(parseRef(projectPath, 'Project', 'projectPath'));
const carProject = async (car: CarRow, ctx: Context) => (await ctx.loaders.projects.byId.load(car.targetProjectId)) as ProjectRow;

export const mergeTrainResolvers = {
  CarStatus: lowerEnum(['idle', 'stale', 'fresh', 'merging', 'merged', 'skip_merged']),
  MergeTrainStatus: { ACTIVE: 'active', COMPLETED: 'completed' },
  Project: {
    mergeTrains: (p: ProjectRow, args: { status?: 'active' | 'completed' | null; targetBranches?: string[] | null } & PageArgs, ctx: Context) =>
      ctx.services.merge_trains.trains(p, args.status ?? null, args.targetBranches ?? null, args),
    mergeTrainCars: (p: ProjectRow, args: { scope?: string | null; sort?: 'asc' | 'desc' | null; targetBranch?: string | null } & PageArgs, ctx: Context) =>
      ctx.services.merge_trains.list(p, args, args),
    mergeTrainCar: (p: ProjectRow, args: { iid: string }, ctx: Context) => ctx.services.merge_trains.carOf(p, iidOf(args.iid)),
    mergeTrainsEnabled: (p: ProjectRow) => mergeTrainsEnabled(p),
    mergeTrainsSkipTrainAllowed: (p: ProjectRow) => mergeTrainsSkipTrainAllowed(p),
  },
  MergeRequest: {
    mergeTrainCar: (mr: MergeRequestRow, _a: unknown, ctx: Context) => ctx.services.merge_trains.carOfMergeRequest(mr),
    mergeTrainsCount: (mr: MergeRequestRow, _a: unknown, ctx: Context) => ctx.services.merge_trains.activeCount(mr),
  },
  MergeTrain: {
    cars: (train: TrainRow, args: { activityStatus?: 'active' | 'completed' | null } & PageArgs, ctx: Context) =>
      ctx.services.merge_trains.list(train.project, { targetBranch: train.targetBranch, scope: args.activityStatus === 'completed' ? 'complete' : 'active', sort: 'asc' }, args),
  },
  MergeTrainCar: {
    ...idFields(TYPE),
    mergeRequest: (car: CarRow, _a: unknown, ctx: Context) => ctx.loaders.merge_trains.mergeRequestById.load(car.mergeRequestId),
    user: (car: CarRow, _a: unknown, ctx: Context) => (car.userId === null ? null : ctx.loaders.users.byId.load(car.userId)),
    pipeline: (car: CarRow, _a: unknown, ctx: Context) => (car.pipelineId === null ? null : ctx.loaders.pipelines.byId.load(car.pipelineId)),
    targetProject: carProject,
    status: (car: CarRow) => car.status,
    index: (car: CarRow, _a: unknown, ctx: Context) => ctx.services.merge_trains.indexOf(car),
    userPermissions: (car: CarRow, _a: unknown, ctx: Context) => ctx.services.merge_trains.permissions(car),
  },
  Mutation: {
    mergeTrainsAddMergeRequest: async (
      _: unknown,
      input: { projectPath: string; iid: string; whenPipelineSucceeds?: boolean | null; autoMerge?: boolean | null; sha?: string | null; squash?: boolean | null },
      ctx: Context,
    ) => {
      const project = await projectOf(ctx, input.projectPath);
      return ctx.services.merge_trains.add(project, iidOf(input.iid), { whenPipelineSucceeds: input.whenPipelineSucceeds || input.autoMerge, sha: input.sha, squash: input.squash });
    },
    mergeTrainsDeleteCar: async (_: unknown, input: { carId: string }, ctx: Context) => {
      await ctx.services.merge_trains.deleteCar(parseId(input.carId, TYPE, 'carId'));
      return {};
    },
  },
};
