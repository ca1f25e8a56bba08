/** GraphQL resolvers of projects. */
import type { Context } from '../../context.js';
import type { PageArgs } from '../../graphql/connection.js';
import { parseRef } from '../../graphql/ids.js';
import { apiUrl, idFields, shownWith, webUrl } from '../../graphql/resolvers.js';
import { namespaceAvatarUrl, namespaceWebUrl } from '../namespaces/resolvers.js';
import { avatarUrl } from '../../uploads/avatars.js';
import type { ProjectFilters, ProjectInput, ProjectRow } from './service.js';

type ProjectArgs = Omit<ProjectInput, 'namespace'> & { namespaceId?: string | null };

export const projectResolvers = {
  Query: {
    project: (_: unknown, args: { fullPath: string }, ctx: Context) => ctx.services.projects.find(parseRef(args.fullPath, 'Project', 'fullPath')),
    projects: (_: unknown, args: ProjectFilters & PageArgs, ctx: Context) => ctx.services.projects.list(args, args),
  },
  Mutation: {
    projectCreate: (_: unknown, { namespaceId, ...args }: ProjectArgs, ctx: Context) =>
      ctx.services.projects.create({ ...args, namespace: namespaceId != null ? parseRef(namespaceId, 'Namespace', 'namespaceId') : null }),
  },
  Project: {
    ...idFields('Project'),
    nameWithNamespace: (p: ProjectRow) => `${p.namespace.fullName} / ${p.name}`,
    repositoryStorage: shownWith('change_repository_storage', (p: ProjectRow) => p, (p) => p.repositoryStorage),
    topics: () => [],
    webUrl: (p: ProjectRow, _a: unknown, ctx: Context) => webUrl(ctx, p.fullPath),
    httpUrlToRepo: (p: ProjectRow, _a: unknown, ctx: Context) => webUrl(ctx, `${p.fullPath}.git`),
    sshUrlToRepo: (p: ProjectRow, _a: unknown, ctx: Context) => `git@${new URL(ctx.config.externalUrl).hostname}:${p.fullPath}.git`,
    readmeUrl: () => null,
    avatarUrl: (p: ProjectRow, _a: unknown, ctx: Context) => avatarUrl(ctx.config.externalUrl, 'project', p.id, p.avatar),
    avatarFile: (p: ProjectRow, _a: unknown, ctx: Context) => ctx.services.projects.avatarFile(p),
    forksCount: () => 0,
    starCount: () => 0,
    // Through the group's own rule, as `group(fullPath:)` would answer (GitLab lets a project's members read its group).
    group: (p: ProjectRow, _a: unknown, ctx: Context) => (p.namespace.kind === 'group' ? ctx.services.groups.find({ id: p.namespace.id }) : null),
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
    viewerPermissions: (p: ProjectRow) => p,
  },
  ProjectNamespace: {
    ...idFields('Namespace'),
    webUrl: namespaceWebUrl,
    avatarUrl: namespaceAvatarUrl,
  },
  ProjectPermissions: {
    projectAccess: async (p: ProjectRow, _a: unknown, ctx: Context) => (await ctx.access.directProjectLevel(p)) || null,
    groupAccess: async (p: ProjectRow, _a: unknown, ctx: Context) => (p.namespace.kind === 'group' ? (await ctx.access.namespaceLevel(p.namespace)) || null : null),
  },
};
