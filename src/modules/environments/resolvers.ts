/** GraphQL resolvers of environments and deployments; the REST routes run through them too. */
import type { Context } from '../../context.js';
import type { PageArgs } from '../../graphql/connection.js';
import { parseRef } from '../../graphql/ids.js';
import { idFields, lowerEnum } from '../../graphql/resolvers.js';
import { recordNotFound } from '../../errors.js';
import type { ProjectRow } from '../projects/service.js';
import { DEPLOYMENT_STATUSES, TIERS } from './rules.js';
import type { DeploymentFilters, DeploymentRow, EnvironmentChanges, EnvironmentFilters, EnvironmentInput, EnvironmentRow } from './service.js';

const projectOf = async (ctx: Context, row: { projectId: number }) => (await ctx.loaders.projects.byId.load(row.projectId)) as ProjectRow;

/** The project a mutation names by path, or the environment's own (GraphQL names the environment alone). */
async function environmentTarget(ctx: Context, input: { id: number; projectPath?: string | null }): Promise<{ project: ProjectRow; id: number }> {
  if (input.projectPath != null) return { project: await ctx.services.projects.get(parseRef(input.projectPath, 'Project', 'projectPath')), id: input.id };
  const project = await ctx.services.projects.find({ id: await ctx.services.environments.projectOf(input.id) });
  if (!project) throw recordNotFound();
  return { project, id: input.id };
}

/** GitLab's Environment#set_environment_type: the first part of a name split on `/`, when it has several (Ruby's split drops trailing empty parts). */
function environmentType(name: string): string | null {
  const parts = name.split('/');
  while (parts.length && parts[parts.length - 1] === '') parts.pop();
  return parts.length > 1 ? parts[0] : null;
}

const projectByPath = (ctx: Context, path: string) => ctx.services.projects.get(parseRef(path, 'Project', 'projectPath'));

export const environmentResolvers = {
  DeploymentTier: lowerEnum(TIERS),
  DeploymentStatus: lowerEnum(DEPLOYMENT_STATUSES),
  DeploymentsOrderField: lowerEnum(['id', 'iid', 'created_at', 'updated_at', 'finished_at', 'ref']),
  Project: {
    environments: (p: ProjectRow, args: EnvironmentFilters & { state?: string | null } & PageArgs, ctx: Context) =>
      ctx.services.environments.list(p, { ...args, states: args.state ? [args.state] : args.states }, args),
    environment: (p: ProjectRow, args: EnvironmentFilters, ctx: Context) => ctx.services.environments.find(p, args),
    environmentById: (p: ProjectRow, args: { id: number }, ctx: Context) => ctx.services.environments.get(p, args.id),
    deployment: (p: ProjectRow, args: { iid: string }, ctx: Context) => (/^\d+$/.test(args.iid) ? ctx.services.environments.deploymentByIid(p, Number(args.iid)) : null),
    deploymentById: (p: ProjectRow, args: { id: number }, ctx: Context) => ctx.services.environments.deployment(p, args.id),
    deploymentList: (p: ProjectRow, args: Omit<DeploymentFilters, 'sort'> & { sort?: string | null } & PageArgs, ctx: Context) =>
      ctx.services.environments.deployments(p, { ...args, sort: args.sort ? (args.sort.toLowerCase() as 'asc' | 'desc') : null }, args),
  },
  Environment: {
    ...idFields('Environment'),
    path: async (e: EnvironmentRow, _a: unknown, ctx: Context) => `/${(await projectOf(ctx, e)).fullPath}/-/environments/${e.id}`,
    enableAdvancedLogsQuerying: async (e: EnvironmentRow, _a: unknown, ctx: Context) => ((await ctx.services.environments.readsLogs(e)) ? false : null),
    logsApiPath: async (e: EnvironmentRow, _a: unknown, ctx: Context) =>
      (await ctx.services.environments.readsLogs(e)) ? `/${(await projectOf(ctx, e)).fullPath}/-/logs/k8s.json?environment_name=${encodeURIComponent(e.name)}` : null,
    userPermissions: (e: EnvironmentRow, _a: unknown, ctx: Context) => ctx.services.environments.permissions(e),
    environmentType: (e: EnvironmentRow) => environmentType(e.name),
    lastDeployment: (e: EnvironmentRow, args: { status: string }, ctx: Context) => ctx.services.environments.lastDeployment(e, args.status),
    deployments: (e: EnvironmentRow, args: { statuses?: string[] | null; sort?: string | null } & PageArgs, ctx: Context) =>
      ctx.services.environments.environmentDeployments(e, { statuses: args.statuses, sort: args.sort ? (args.sort.toLowerCase() as 'asc' | 'desc') : null }, args),
  },
  Deployment: {
    ...idFields('Deployment'),
    iid: (d: DeploymentRow) => String(d.iid),
    databaseIid: (d: DeploymentRow) => d.iid,
    job: (d: DeploymentRow, _a: unknown, ctx: Context) => ctx.services.environments.deployable(d),
    commit: (d: DeploymentRow, _a: unknown, ctx: Context) => ctx.services.environments.commitOf(d),
    triggerer: (d: DeploymentRow, _a: unknown, ctx: Context) => (d.userId === null ? null : ctx.loaders.users.byId.load(d.userId)),
    environment: (d: DeploymentRow, _a: unknown, ctx: Context) => ctx.services.environments.environmentById(d.environmentId),
    userPermissions: (d: DeploymentRow, _a: unknown, ctx: Context) => ctx.services.environments.deploymentPermissions(d),
    tags: (d: DeploymentRow, _a: unknown, ctx: Context) => ctx.services.environments.tagsOf(d),
  },
  Mutation: {
    environmentCreate: async (_: unknown, input: EnvironmentInput & { projectPath: string }, ctx: Context) => ({
      environment: await ctx.services.environments.create(await projectByPath(ctx, input.projectPath), input),
    }),
    environmentUpdate: async (_: unknown, input: EnvironmentChanges & { id: number; projectPath?: string | null }, ctx: Context) => {
      const { project, id } = await environmentTarget(ctx, input);
      return { environment: await ctx.services.environments.update(project, id, input) };
    },
    environmentDelete: async (_: unknown, input: { id: number; projectPath?: string | null }, ctx: Context) => {
      const { project, id } = await environmentTarget(ctx, input);
      return { environment: await ctx.services.environments.destroy(project, id) };
    },
    environmentStop: async (_: unknown, input: { id: number; projectPath?: string | null; force?: boolean | null }, ctx: Context) => {
      const { project, id } = await environmentTarget(ctx, input);
      return { environment: await ctx.services.environments.stop(project, id, input.force ?? false) };
    },
    environmentsStopStale: async (_: unknown, input: { projectPath: string; before: Date | string }, ctx: Context) =>
      ctx.services.environments.stopStale(await projectByPath(ctx, input.projectPath), new Date(input.before)),
    environmentsDeleteReviewApps: async (_: unknown, input: { projectPath: string; before?: Date | string | null; limit?: number | null; dryRun?: boolean | null }, ctx: Context) =>
      ctx.services.environments.scheduleReviewAppsDeletion(await projectByPath(ctx, input.projectPath), input),
    deploymentCreate: async (_: unknown, input: { projectPath: string; environment: string; sha: string; ref: string; tag: boolean; status: string }, ctx: Context) => ({
      deployment: await ctx.services.environments.createDeployment(await projectByPath(ctx, input.projectPath), input),
    }),
    deploymentUpdate: async (_: unknown, input: { projectPath: string; id: number; status: string }, ctx: Context) => ({
      deployment: await ctx.services.environments.updateDeployment(await projectByPath(ctx, input.projectPath), input.id, input.status),
    }),
    deploymentDelete: async (_: unknown, input: { projectPath: string; id: number }, ctx: Context) => ({
      deployment: await ctx.services.environments.destroyDeployment(await projectByPath(ctx, input.projectPath), input.id),
    }),
  },
};
