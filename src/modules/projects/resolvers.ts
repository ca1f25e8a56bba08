/** GraphQL resolvers of projects. */
import type { Context } from '../../context.js';
import type { PageArgs } from '../../graphql/connection.js';
import { apiUrl, idFields, webUrl } from '../../graphql/resolvers.js';
import type { ProjectFilters, ProjectInput, ProjectRow } from './service.js';
import type { MemberFilters } from '../members/service.js';


export const projectResolvers = {
  Query: {
    project: (_: unknown, args: { fullPath: string }, ctx: Context) => ctx.services.projects.find(args.fullPath),
    projects: (_: unknown, args: ProjectFilters & PageArgs, ctx: Context) => ctx.services.projects.list(args, args),
  },
  Mutation: {
    projectCreate: (_: unknown, args: ProjectInput, ctx: Context) => ctx.services.projects.create(args),
  },
  Project: {
    ...idFields('Project'),
    nameWithNamespace: (p: ProjectRow) => `${p.namespace.fullName} / ${p.name}`,
    repositoryStorage: (p: ProjectRow, _a: unknown, ctx: Context) => (ctx.viewer?.admin ? p.repositoryStorage : null),
    topics: () => [],
    webUrl: (p: ProjectRow, _a: unknown, ctx: Context) => webUrl(ctx, p.fullPath),
    httpUrlToRepo: (p: ProjectRow, _a: unknown, ctx: Context) => webUrl(ctx, `${p.fullPath}.git`),
    sshUrlToRepo: (p: ProjectRow, _a: unknown, ctx: Context) => `git@${new URL(ctx.config.externalUrl).hostname}:${p.fullPath}.git`,
    readmeUrl: () => null,
    avatarUrl: () => null,
    forksCount: () => 0,
    starCount: () => 0,
    emptyRepo: () => true,
    group: (p: ProjectRow) => (p.namespace.kind === 'group' ? p.namespace : null),
    owner: (p: ProjectRow) => p.namespace.owner,
    links: (p: ProjectRow) => p,
    projectMembers: (p: ProjectRow, args: PageArgs & MemberFilters, ctx: Context) => ctx.services.members.listForProject(p, args, args),
    viewerPermissions: (p: ProjectRow) => p,
  },
  ProjectPermissions: {
    projectAccess: async (p: ProjectRow, _a: unknown, ctx: Context) => (await ctx.services.members.directProjectLevel(p.id)) || null,
    groupAccess: async (p: ProjectRow, _a: unknown, ctx: Context) =>
      p.namespace.kind === 'group' ? (await ctx.services.members.levelInNamespace(p.namespace)) || null : null,
  },
  ProjectLinks: {
    self: (p: ProjectRow, _a: unknown, ctx: Context) => apiUrl(ctx, `projects/${p.id}`),
    issues: (p: ProjectRow, _a: unknown, ctx: Context) => apiUrl(ctx, `projects/${p.id}/issues`),
    mergeRequests: (p: ProjectRow, _a: unknown, ctx: Context) => apiUrl(ctx, `projects/${p.id}/merge_requests`),
    repoBranches: (p: ProjectRow, _a: unknown, ctx: Context) => apiUrl(ctx, `projects/${p.id}/repository/branches`),
    labels: (p: ProjectRow, _a: unknown, ctx: Context) => apiUrl(ctx, `projects/${p.id}/labels`),
    events: (p: ProjectRow, _a: unknown, ctx: Context) => apiUrl(ctx, `projects/${p.id}/events`),
    members: (p: ProjectRow, _a: unknown, ctx: Context) => apiUrl(ctx, `projects/${p.id}/members`),
    clusterAgents: (p: ProjectRow, _a: unknown, ctx: Context) => apiUrl(ctx, `projects/${p.id}/cluster_agents`),
  },
};
