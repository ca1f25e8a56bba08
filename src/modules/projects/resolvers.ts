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
    links: (p: ProjectRow, _a: unknown, ctx: Context) => {
      const base = apiUrl(ctx, `projects/${p.id}`);
      return {
        self: base,
        issues: `${base}/issues`,
        mergeRequests: `${base}/merge_requests`,
        repoBranches: `${base}/repository/branches`,
        labels: `${base}/labels`,
        events: `${base}/events`,
        members: `${base}/members`,
        clusterAgents: `${base}/cluster_agents`,
      };
    },
    projectMembers: (p: ProjectRow, args: PageArgs & MemberFilters, ctx: Context) => ctx.services.members.listForProject(p, args, args),
    viewerPermissions: (p: ProjectRow) => p,
  },
  ProjectPermissions: {
    projectAccess: async (p: ProjectRow, _a: unknown, ctx: Context) => (await ctx.services.members.directProjectLevel(p.id)) || null,
    groupAccess: async (p: ProjectRow, _a: unknown, ctx: Context) =>
      p.namespace.kind === 'group' ? (await ctx.services.members.levelInNamespace(p.namespace)) || null : null,
  },
};
