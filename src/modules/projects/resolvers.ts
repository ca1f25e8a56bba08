/** GraphQL resolvers of projects. */
import { hashedPath } from '../../git/storages.js';
import { projectPermissionResolvers } from './permissions.js';
import type { Context } from '../../context.js';
import type { PageArgs } from '../../graphql/connection.js';
import { parseId, parseRef } from '../../graphql/ids.js';
import { apiUrl, idFields, shownWith, webUrl } from '../../graphql/resolvers.js';
import { namespaceAvatarUrl, namespaceWebUrl } from '../namespaces/resolvers.js';
import type { Visibility } from '../namespaces/paths.js';
import type { UserRow } from '../users/service.js';
import { avatarUrl } from '../../uploads/avatars.js';
import type { ProjectFilters, ProjectInput, ProjectRow, ProjectUpdateInput } from './service.js';
import { projectFeatureResolvers } from './feature-resolvers.js';

type ProjectArgs = Omit<ProjectInput, 'namespace'> & { namespaceId?: string | null };
type FullPath = { fullPath: string };

const projectInput = ({ namespaceId, ...args }: ProjectArgs): ProjectInput => ({
  ...args,
  namespace: namespaceId != null ? parseRef(namespaceId, 'Namespace', 'namespaceId') : null,
});

/** The project an argument names, or NOT_FOUND. */
const projectOf = (ctx: Context, args: FullPath) => ctx.services.projects.get(parseRef(args.fullPath, 'Project', 'fullPath'));

interface ForkArgs extends FullPath {
  namespaceId?: string | null;
  namespacePath?: string | null;
  namespace?: string | null;
  name?: string | null;
  path?: string | null;
  description?: string | null;
  visibility?: Visibility | null;
  branches?: string | null;
}

export const projectResolvers = {
  Query: {
    project: (_: unknown, args: FullPath, ctx: Context) => ctx.services.projects.find(parseRef(args.fullPath, 'Project', 'fullPath')),
    projects: (_: unknown, args: ProjectFilters & PageArgs, ctx: Context) => ctx.services.projects.list(args, args),
  },
  Mutation: {
    projectCreate: async (_: unknown, { userId, initializeWithReadme, ...args }: ProjectArgs & { userId?: number | null; initializeWithReadme?: boolean | null }, ctx: Context) => {
      const { projects, repositories } = ctx.services;
      const project = userId != null ? await projects.createForUser(parseId(userId, 'User', 'userId'), projectInput(args)) : await projects.create(projectInput(args));
      if (!initializeWithReadme) return { project };
      await repositories.writes.initializeWithReadme(project);
      return { project: await projects.reload(project.id) };
    },
    projectUpdate: async (_: unknown, { fullPath, ...input }: FullPath & ProjectUpdateInput, ctx: Context) => ({
      project: await ctx.services.projects.update(await projectOf(ctx, { fullPath }), input),
    }),
    projectArchive: async (_: unknown, args: FullPath, ctx: Context) => ({ project: await ctx.services.projects.setArchived(await projectOf(ctx, args), true) }),
    projectUnarchive: async (_: unknown, args: FullPath, ctx: Context) => ({ project: await ctx.services.projects.setArchived(await projectOf(ctx, args), false) }),
    projectDelete: async (_: unknown, args: FullPath, ctx: Context) => {
      const project = await projectOf(ctx, args);
      await ctx.services.projects.deletion.request(project);
      // Projects::DestroyService unlinks the project from its fork network (UnlinkForkService), closing the merge
      // requests between it and the other projects of the network.
      await ctx.services.merge_requests.closeFromAndToForks(project);
      return { message: '202 Accepted' };
    },
    projectTransfer: async (_: unknown, args: FullPath & { namespace: string }, ctx: Context) => ({
      project: await ctx.services.projects.transfer(await projectOf(ctx, args), parseRef(args.namespace, 'Namespace', 'namespace')),
    }),
    projectFork: async (_: unknown, { namespaceId, namespacePath, namespace, ...args }: ForkArgs, ctx: Context) => ({
      project: await ctx.services.projects.fork(await projectOf(ctx, args), {
        ...args,
        namespace:
          namespaceId != null
            ? parseRef(namespaceId, 'Namespace', 'namespaceId')
            : namespacePath != null
              ? { path: namespacePath }
              : namespace != null
                ? parseRef(namespace, 'Namespace', 'namespace')
                : null,
      }),
    }),
    projectForkRelationDelete: async (_: unknown, args: FullPath, ctx: Context) => {
      const project = await projectOf(ctx, args);
      const deleted = await ctx.services.projects.unlinkFork(project);
      // Projects::UnlinkForkService: the open merge requests from and to the fork are closed, as the one unlinking it.
      await ctx.services.merge_requests.closeFromAndToForks(project);
      return { deleted };
    },
    projectForkRelationCreate: async (_: unknown, args: FullPath & { forkedFromId: string }, ctx: Context) => ({
      project: await ctx.services.projects.linkFork(await projectOf(ctx, args), parseRef(args.forkedFromId, 'Project', 'forkedFromId')),
    }),
    projectStar: async (_: unknown, args: FullPath, ctx: Context) => {
      const project = await projectOf(ctx, args);
      await ctx.services.projects.stars.set(project.id, true);
      return { project };
    },
    projectUnstar: async (_: unknown, args: FullPath, ctx: Context) => {
      const project = await projectOf(ctx, args);
      await ctx.services.projects.stars.set(project.id, false);
      return { project };
    },
  },
  Project: {
    ...idFields('Project'),
    nameWithNamespace: (p: ProjectRow) => `${p.namespace.fullName} / ${p.name}`,
    // GitLab's Project#lfs_enabled?: a project without a setting of its own (none here has one) follows its namespace.
    lfsEnabled: (p: ProjectRow) => p.namespace.lfsEnabled,
    descriptionHtml: (p: ProjectRow, _a: unknown, ctx: Context) => (p.description == null ? null : ctx.services.notes.markdownHtml(ctx.services, p.description, p.id)),
    repositoryStorage: shownWith('change_repository_storage', (p: ProjectRow) => p, (p) => p.repositoryStorage),
    repositoryDiskPath: async (p: ProjectRow, _a: unknown, ctx: Context) => {
      await ctx.access.authorize('admin_all_resources', null);
      return hashedPath(p.id).replace(/\.git$/, '');
    },
    webUrl: (p: ProjectRow, _a: unknown, ctx: Context) => webUrl(ctx, p.fullPath),
    httpUrlToRepo: (p: ProjectRow, _a: unknown, ctx: Context) => webUrl(ctx, `${p.fullPath}.git`),
    sshUrlToRepo: (p: ProjectRow, _a: unknown, ctx: Context) => `git@${new URL(ctx.config.externalUrl).hostname}:${p.fullPath}.git`,
    // GitLab's Project#readme_url: the README of the default branch's root, as a blob URL.
    readmeUrl: (p: ProjectRow, _a: unknown, ctx: Context) =>
      p.readmePath ? webUrl(ctx, `${p.fullPath}/-/blob/${[...p.defaultBranch.split('/'), p.readmePath].map(encodeURIComponent).join('/')}`) : null,
    avatarUrl: (p: ProjectRow, _a: unknown, ctx: Context) => avatarUrl(ctx.config.externalUrl, 'project', p.id, p.avatar),
    avatarFile: (p: ProjectRow, _a: unknown, ctx: Context) => ctx.services.projects.avatarFile(p),
    forksCount: (p: ProjectRow, _a: unknown, ctx: Context) => ctx.loaders.projects.forksCount.load(p.id),
    readableCode: shownWith('download_code', (p: ProjectRow) => p, (p) => p),
    starCount: (p: ProjectRow, _a: unknown, ctx: Context) => ctx.loaders.projects.starCount.load(p.id),
    forkedFromProject: (p: ProjectRow, _a: unknown, ctx: Context) => ctx.services.projects.forkedFrom(p),
    ciConfigPath: (p: ProjectRow) => p.ciConfigPath || null,
    // Project#merge_requests_ff_only_enabled and ProjectSetting#squash_readonly? of the stored merge settings.
    mergeRequestsFfOnlyEnabled: (p: ProjectRow) => p.mergeMethod === 'ff',
    squashReadOnly: (p: ProjectRow) => p.squashOption === 'always' || p.squashOption === 'never',
    buildTimeout: shownWith('admin_project', (p: ProjectRow) => p, (p) => p.buildTimeout),
    ciDefaultGitDepth: shownWith('admin_project', (p: ProjectRow) => p, (p) => p.ciDefaultGitDepth),
    autoCancelPendingPipelines: shownWith('admin_project', (p: ProjectRow) => p, (p) => p.autoCancelPendingPipelines),
    restrictUserDefinedVariables: shownWith('admin_project', (p: ProjectRow) => p, (p) => p.restrictUserDefinedVariables),
    ciPipelineVariablesMinimumOverrideRole: shownWith('admin_project', (p: ProjectRow) => p, (p) => p.ciPipelineVariablesMinimumOverrideRole),
    ciForwardDeploymentEnabled: shownWith('admin_project', (p: ProjectRow) => p, (p) => p.ciForwardDeploymentEnabled),
    ciForwardDeploymentRollbackAllowed: shownWith('admin_project', (p: ProjectRow) => p, (p) => p.ciForwardDeploymentRollbackAllowed),
    ciAllowForkPipelinesToRunInParentProject: shownWith('admin_project', (p: ProjectRow) => p, (p) => p.ciAllowForkPipelinesToRunInParentProject),
    ciSeparatedCaches: shownWith('admin_project', (p: ProjectRow) => p, (p) => p.ciSeparatedCaches),
    groupRunnersEnabled: shownWith('admin_project', (p: ProjectRow) => p, (p) => p.groupRunnersEnabled),
    // API::Entities::ProjectWithAccess: build_allow_git_fetch shown as the strategy it means.
    buildGitStrategy: shownWith('admin_project', (p: ProjectRow) => p, (p) => (p.buildAllowGitFetch ? 'fetch' : 'clone')),
    keepLatestArtifact: shownWith('admin_project', (p: ProjectRow) => p, (p, ctx) => ctx.loaders.projects.keepLatestArtifact.load(p.id)),
    forks: (p: ProjectRow, args: ProjectFilters & PageArgs, ctx: Context) => ctx.services.projects.forksOf(p, args, args),
    starrers: (p: ProjectRow, args: { search?: string | null } & PageArgs, ctx: Context) => ctx.services.projects.stars.starrers(p.id, args.search, args),
    users: (p: ProjectRow, args: { search?: string | null; skipUsers?: number[] | null } & PageArgs, ctx: Context) => ctx.services.projects.users(p, args, args),
    // Through the group's own rule, as `group(fullPath:)` would answer (GitLab lets a project's members read its group).
    namespace: async (p: ProjectRow, _a: unknown, ctx: Context) => ((await ctx.access.can('read_namespace', p.namespace)) ? p.namespace : null),
    namespaceIdentity: (p: ProjectRow) => p.namespace,
    group: (p: ProjectRow, _a: unknown, ctx: Context) => (p.namespace.kind === 'group' ? ctx.services.groups.find({ id: p.namespace.id }) : null),
    owner: (p: ProjectRow) => p.namespace.owner,
    ...projectFeatureResolvers.Project,
    links: async (p: ProjectRow, _a: unknown, ctx: Context) => {
      const base = apiUrl(ctx, `projects/${p.id}`);
      // GitLab's RelatedResourcesHelpers: the issues and merge requests links only where the caller may use them.
      return {
        self: base,
        issues: (await ctx.access.featureAvailable(p, 'issues')) ? `${base}/issues` : null,
        mergeRequests: (await ctx.access.featureAvailable(p, 'merge_requests')) ? `${base}/merge_requests` : null,
        repoBranches: `${base}/repository/branches`,
        labels: `${base}/labels`,
        events: `${base}/events`,
        members: `${base}/members`,
        clusterAgents: `${base}/cluster_agents`,
      };
    },
    viewerPermissions: (p: ProjectRow) => p,
    userPermissions: (p: ProjectRow) => p,
    // Resolvers::Projects::ForkTargetsResolver authorizes fork_project on the project.
    forkTargets: async (p: ProjectRow, args: { search?: string | null } & PageArgs, ctx: Context) =>
      (await ctx.access.can('fork_project', p)) ? ctx.services.namespaces.forkTargets(args.search, args) : null,
  },
  ProjectFeatureAccessLevel: projectFeatureResolvers.ProjectFeatureAccessLevel,
  ProjectPagesAccessLevel: projectFeatureResolvers.ProjectPagesAccessLevel,
  ProjectStar: {
    starredSince: (s: { createdAt: Date }) => s.createdAt,
  },
  UserCore: {
    starredProjects: (u: UserRow, args: ProjectFilters & PageArgs, ctx: Context) => ctx.services.projects.starredBy(u, args, args),
  },
  ProjectNamespace: {
    ...idFields('Namespace'),
    webUrl: namespaceWebUrl,
    avatarUrl: namespaceAvatarUrl,
  },
  ProjectPermissions: {
    ...projectPermissionResolvers,
    projectAccess: async (p: ProjectRow, _a: unknown, ctx: Context) => (await ctx.access.directProjectLevel(p)) || null,
    groupAccess: async (p: ProjectRow, _a: unknown, ctx: Context) => (p.namespace.kind === 'group' ? (await ctx.access.namespaceLevel(p.namespace)) || null : null),
  },
};
