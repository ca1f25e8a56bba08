/** GraphQL resolvers of runners and job artifacts; the REST routes run through them too. */
import { lowerEnum, webUrl } from '../../graphql/resolvers.js';
import type { Context } from '../../context.js';
import { restRunnerStatus } from '../../ci/runner-status.js';
import type { PageArgs } from '../../graphql/connection.js';
import { parseId, parseRef } from '../../graphql/ids.js';
import type { NamespaceRow } from '../namespaces/service.js';
import { jobById } from '../pipelines/resolvers.js';
import type { JobRow } from '../pipelines/service.js';
import type { ProjectRow } from '../projects/service.js';
import { RUNNER_STATUSES, RUNNER_TYPES, type RunnerCreateInput, type RunnerFilters, type RunnerUpdateInput } from './attributes.js';
import type { IssuedRunner, JobsStatistics, RunnerProjectFilters, RunnerRow } from './service.js';

type FilterArgs = RunnerFilters & PageArgs;

export const runnerResolvers = {
  CiRunnerType: lowerEnum(RUNNER_TYPES),
  CiRunnerAccessLevel: lowerEnum(['not_protected', 'ref_protected']),
  CiRunnerStatus: lowerEnum(RUNNER_STATUSES),
  Query: {
    runners: (_: unknown, args: FilterArgs, ctx: Context) => ctx.services.runners.all(args, args),
    ownedRunners: (_: unknown, args: FilterArgs, ctx: Context) => ctx.services.runners.owned(args, args),
    runner: (_: unknown, args: { id: string }, ctx: Context) => ctx.services.runners.get(args.id),
  },
  Project: {
    runners: (p: ProjectRow, args: FilterArgs, ctx: Context) => ctx.services.runners.forProject(p, args, args),
  },
  Group: {
    runners: (g: NamespaceRow, args: FilterArgs, ctx: Context) => ctx.services.runners.forGroup(g, args, args),
  },
  CiJob: {
    project: (j: JobRow, _a: unknown, ctx: Context) => ctx.loaders.projects.byId.load(j.projectId),
    stuck: (j: JobRow, _a: unknown, ctx: Context) => ctx.services.runners.stuck(j),
  },
  CiRunner: {
    shortSha: (r: RunnerRow) => r.tokenPrefix.replace(/^glrt-/, ''),
    // GitLab's default: runner tokens do not expire unless an instance setting says so; this server has none.
    tokenExpiresAt: () => null,
    ephemeralAuthenticationToken: (r: IssuedRunner) => r.token ?? null,
    maintenanceNote: (r: RunnerRow, _a: unknown, ctx: Context) => ctx.services.runners.maintenanceNoteOf(r),
    platformName: (r: RunnerRow) => r.platform,
    architectureName: (r: RunnerRow) => r.architecture,
    executorName: (r: RunnerRow) => r.executorType,
    restStatus: (r: RunnerRow) => restRunnerStatus(r),
    projects: (r: RunnerRow, args: RunnerProjectFilters & PageArgs, ctx: Context) => ctx.services.runners.projectsOf(r, args, args),
    groups: (r: RunnerRow, args: PageArgs, ctx: Context) => ctx.services.runners.groupsOf(r, args),
    userPermissions: (r: RunnerRow, _a: unknown, ctx: Context) => ctx.services.runners.permissions(r),
    jobCount: (r: RunnerRow, args: { statuses?: string[] | null }, ctx: Context) => ctx.services.runners.jobCount(r, args.statuses),
    projectCount: (r: RunnerRow, _a: unknown, ctx: Context) => ctx.services.runners.projectCount(r),
    ownerProject: async (r: RunnerRow, _a: unknown, ctx: Context) => {
      const id = await ctx.services.runners.ownerProjectId(r);
      return id === null ? null : ctx.services.projects.find({ id });
    },
    createdBy: (r: RunnerRow, _a: unknown, ctx: Context) => (r.creatorId === null ? null : ctx.loaders.users.byId.load(r.creatorId)),
    adminUrl: (r: RunnerRow, _a: unknown, ctx: Context) => (ctx.services.runners.administers() ? webUrl(ctx, `admin/runners/${r.id}`) : null),
    editAdminUrl: (r: RunnerRow, _a: unknown, ctx: Context) => (ctx.services.runners.administers() ? webUrl(ctx, `admin/runners/${r.id}/edit`) : null),
    registerAdminUrl: (r: RunnerRow, _a: unknown, ctx: Context) =>
      ctx.services.runners.administers() && ctx.services.runners.registrationAvailable(r) ? webUrl(ctx, `admin/runners/${r.id}/register`) : null,
    maintenanceNoteHtml: async (r: RunnerRow, _a: unknown, ctx: Context) => {
      const note = await ctx.services.runners.maintenanceNoteOf(r);
      return note === null ? null : ctx.services.notes.markdownHtml(ctx.services, note, null);
    },
    jobs: (r: RunnerRow, args: { statuses?: string[] | null; sort?: string | null } & PageArgs, ctx: Context) =>
      ctx.services.runners.jobs(r, { statuses: args.statuses, sort: args.sort === 'ASC' ? 'asc' : 'desc' }, args),
  },
  CiRunnerConnection: {
    jobsStatistics: (c: { jobsStatistics?: Promise<JobsStatistics | null> }) => c.jobsStatistics ?? null,
  },
  Mutation: {
    runnerCacheClear: async (_: unknown, args: { projectId: string }, ctx: Context) => {
      await ctx.services.projects.resetRunnerCache(await ctx.services.projects.get({ id: parseId(args.projectId, 'Project', 'projectId') }));
      return {};
    },
    runnerCreate: async (_: unknown, args: RunnerCreateInput, ctx: Context) => ({ runner: await ctx.services.runners.create(args) }),
    runnerUpdate: async (_: unknown, args: RunnerUpdateInput, ctx: Context) => ({ runner: await ctx.services.runners.update(args) }),
    runnerDelete: async (_: unknown, args: { id: string }, ctx: Context) => {
      await ctx.services.runners.delete(args.id);
      return {};
    },
    runnerAssignToProject: async (_: unknown, args: { runnerId: string; projectPath: string }, ctx: Context) => {
      const project = await ctx.services.projects.get(parseRef(args.projectPath, 'Project', 'projectPath'));
      return { runner: await ctx.services.runners.assignToProject(project, args.runnerId) };
    },
    runnerUnassignFromProject: async (_: unknown, args: { runnerId: string; projectPath: string }, ctx: Context) => {
      const project = await ctx.services.projects.get(parseRef(args.projectPath, 'Project', 'projectPath'));
      return { runner: await ctx.services.runners.unassignFromProject(project, args.runnerId) };
    },
    jobArtifactsDestroy: async (_: unknown, args: { id: string; projectPath?: string | null }, ctx: Context) => {
      const { job, project } = await jobById(ctx, args.id, args.projectPath);
      const { job: updated, count } = await ctx.services.runners.destroyArtifacts(project, job.id);
      return { job: updated, destroyedArtifactsCount: count };
    },
    jobArtifactsKeep: async (_: unknown, args: { id: string; projectPath?: string | null }, ctx: Context) => {
      const { job, project } = await jobById(ctx, args.id, args.projectPath);
      return { job: await ctx.services.runners.keepArtifacts(project, job.id) };
    },
    projectArtifactsExpire: async (_: unknown, args: { projectPath: string }, ctx: Context) =>
      ctx.services.runners.expireProjectArtifacts(await ctx.services.projects.get(parseRef(args.projectPath, 'Project', 'projectPath'))),
  },
};
