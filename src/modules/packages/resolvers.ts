/** GraphQL resolvers of the package registry; the REST routes run through them too. */
import type { Context } from '../../context.js';
import type { PageArgs } from '../../graphql/connection.js';
import { parseRef } from '../../graphql/ids.js';
import type { NamespaceRow } from '../namespaces/service.js';
import type { ProjectRow } from '../projects/service.js';
import { PACKAGE_STATUSES, PACKAGE_TYPES, sortOf, type PackageFileRow, type PackageFilters, type PackageRow } from './service.js';

const lowerEnum = (values: readonly string[]) => Object.fromEntries(values.map((v) => [v.toUpperCase(), v]));

const projectOf = (ctx: Context, projectPath: string) => ctx.services.projects.get(parseRef(projectPath, 'Project', 'projectPath'));

type ListArgs = Omit<PackageFilters, 'orderBy' | 'sort'> & { sort?: string | null } & PageArgs;
type RestListArgs = PackageFilters & PageArgs;

const graphqlFilters = ({ sort, ...args }: ListArgs): PackageFilters => ({ ...args, ...sortOf(sort ?? 'CREATED_DESC') });

/** The fields every shape of a package shares (GitLab's Package, PackageBase and PackageDetailsType). */
const packageFields = {
  databaseId: (p: PackageRow) => p.id,
  project: (p: PackageRow, _a: unknown, ctx: Context) => ctx.services.packages.projectOf(p),
  canDestroy: (p: PackageRow, _a: unknown, ctx: Context) => ctx.services.packages.canDestroy(p),
  _links: async (p: PackageRow, _a: unknown, ctx: Context) => {
    const project = await ctx.services.packages.projectOf(p);
    const { externalUrl } = ctx.config;
    return {
      webPath: p.status === 'default' || p.status === 'deprecated' ? `/${project?.fullPath}/-/packages/${p.id}` : null,
      deleteApiPath: (await ctx.services.packages.canDestroy(p)) ? `${externalUrl}/api/v4/projects/${p.projectId}/packages/${p.id}` : null,
    };
  },
  metadata: (p: PackageRow, _a: unknown, ctx: Context) => (p.packageType === 'pypi' ? ctx.loaders.packages.pypiMetadata.load(p.id) : null),
};

/** What a package's own page shows besides (GitLab's Package and PackageDetailsType). */
const packageDetails = {
  ...packageFields,
  pipelines: (p: PackageRow, args: PageArgs, ctx: Context) => ctx.services.packages.pipelinesOf(p, args),
  versions: (p: PackageRow, args: PageArgs, ctx: Context) => ctx.services.packages.versions(p, args),
  packageFiles: (p: PackageRow, args: { orderBy?: 'id' | 'created_at' | 'file_name' | null; sort?: 'ASC' | 'DESC' | null } & PageArgs, ctx: Context) =>
    ctx.services.packages.filesOf(p, args, args),
};

const registryUrl = (ctx: Context, p: PackageRow, registry: string) => `${ctx.config.externalUrl}/api/v4/projects/${p.projectId}/packages/${registry}`;

/** The ID of the group a package's project is in; null for a project of a user's namespace. */
async function groupIdOf(ctx: Context, p: PackageRow): Promise<number | null> {
  const project = await ctx.services.packages.projectOf(p);
  if (!project) return null;
  const namespace = await ctx.loaders.namespaces.byId.load(project.namespaceId);
  return namespace?.kind === 'group' ? namespace.id : null;
}

export const packageResolvers = {
  PackageTypeEnum: lowerEnum(PACKAGE_TYPES),
  PackageStatus: lowerEnum(PACKAGE_STATUSES),
  Query: {
    package: (_: unknown, args: { id: number }, ctx: Context) => ctx.services.packages.byId(args.id),
    projectPackages: async (_: unknown, args: RestListArgs & { projectPath: string }, ctx: Context) =>
      ctx.services.packages.projectPackages(await projectOf(ctx, args.projectPath), args, args),
    groupPackages: async (_: unknown, args: RestListArgs & { groupPath: string }, ctx: Context) =>
      ctx.services.packages.groupPackages(await ctx.services.groups.get(parseRef(args.groupPath, 'Group', 'groupPath')), args, args),
    projectPackage: async (_: unknown, args: { projectPath: string; id: number }, ctx: Context) =>
      ctx.services.packages.get(await projectOf(ctx, args.projectPath), args.id),
    projectPackageFiles: async (_: unknown, args: { projectPath: string; id: number; orderBy?: 'id' | 'created_at' | 'file_name' | null; sort?: 'ASC' | 'DESC' | null } & PageArgs, ctx: Context) =>
      ctx.services.packages.files(await projectOf(ctx, args.projectPath), args.id, args, args),
    projectPackagePipelines: async (_: unknown, args: { projectPath: string; id: number } & PageArgs, ctx: Context) =>
      ctx.services.packages.pipelines(await projectOf(ctx, args.projectPath), args.id, args),
  },
  Project: {
    packages: (project: ProjectRow, args: ListArgs, ctx: Context) => ctx.services.packages.projectPackages(project, graphqlFilters(args), args),
  },
  Group: {
    packages: (group: NamespaceRow, args: ListArgs, ctx: Context) => ctx.services.packages.groupPackages(group, graphqlFilters(args), args),
  },
  Package: {
    ...packageDetails,
    buildPipelines: (p: PackageRow, _a: unknown, ctx: Context) => ctx.services.packages.buildPipelines(p),
  },
  PackageBase: packageFields,
  PackageDetailsType: {
    ...packageDetails,
    // GitLab's PackagesHelper: the project's registries under the API's URL.
    conanUrl: (p: PackageRow, _a: unknown, ctx: Context) => registryUrl(ctx, p, 'conan'),
    mavenUrl: (p: PackageRow, _a: unknown, ctx: Context) => registryUrl(ctx, p, 'maven'),
    npmUrl: (p: PackageRow, _a: unknown, ctx: Context) => registryUrl(ctx, p, 'npm'),
    nugetUrl: (p: PackageRow, _a: unknown, ctx: Context) => registryUrl(ctx, p, 'nuget/index.json'),
    pypiSetupUrl: (p: PackageRow, _a: unknown, ctx: Context) => registryUrl(ctx, p, 'pypi'),
    // The simple index asks for a token: GitLab shows where it goes.
    pypiUrl: (p: PackageRow, _a: unknown, ctx: Context) => registryUrl(ctx, p, 'pypi/simple/').replace('://', '://__token__:<your_personal_token>@'),
    composerUrl: async (p: PackageRow, _a: unknown, ctx: Context) => {
      const group = await groupIdOf(ctx, p);
      return group === null ? null : `${ctx.config.externalUrl}/api/v4/group/${group}/-/packages/composer/packages.json`;
    },
    composerConfigRepositoryUrl: async (p: PackageRow, _a: unknown, ctx: Context) => {
      const group = await groupIdOf(ctx, p);
      return group === null ? null : `${new URL(ctx.config.externalUrl).host}/${group}`;
    },
  },
  // PyPI's metadata is the only kind kept yet.
  PackageMetadata: { __resolveType: () => 'PypiMetadata' },
  PypiMetadata: { id: (m: { packageId: number }) => m.packageId },
  PackageFile: {
    databaseId: (f: PackageFileRow) => f.id,
    size: (f: PackageFileRow) => String(f.size),
    downloadPath: async (f: PackageFileRow, _a: unknown, ctx: Context) => {
      // A file goes with its package (the key cascades): never without one.
      const pkg = (await ctx.loaders.packages.byId.load(f.packageId))!;
      if (pkg.packageType === 'generic') return `/api/v4/projects/${pkg.projectId}/packages/generic/${encodeURIComponent(pkg.name)}/${encodeURIComponent(pkg.version ?? '')}/${encodeURIComponent(f.fileName)}`;
      return `/api/v4/projects/${pkg.projectId}/packages/${pkg.id}/package_files/${f.id}/download`;
    },
    pipelines: async (f: PackageFileRow, _a: unknown, ctx: Context) => {
      if (f.pipelineId === null) return null;
      const pipeline = await ctx.loaders.pipelines.byId.load(f.pipelineId);
      const project = pipeline ? await ctx.loaders.projects.byId.load(pipeline.projectId) : null;
      if (!pipeline || !project || !(await ctx.access.can('read_pipeline', project as ProjectRow))) return null;
      return [pipeline];
    },
  },
  Mutation: {
    destroyPackage: async (_: unknown, input: { id: number; projectPath?: string | null }, ctx: Context) => ({
      package: input.projectPath != null ? await ctx.services.packages.destroy(await projectOf(ctx, input.projectPath), input.id) : await ctx.services.packages.destroyById(input.id),
    }),
    destroyPackageFile: async (_: unknown, input: { id: number; projectPath?: string | null; packageId?: number | null }, ctx: Context) => ({
      packageFile:
        input.projectPath != null && input.packageId != null
          ? await ctx.services.packages.destroyFile(await projectOf(ctx, input.projectPath), input.packageId, input.id)
          : await ctx.services.packages.destroyFileById(input.id),
    }),
    destroyPackages: async (_: unknown, input: { ids: number[] }, ctx: Context) => {
      await ctx.services.packages.destroyMany(input.ids);
      return {};
    },
    destroyPackageFiles: async (_: unknown, input: { ids: number[]; projectPath: string }, ctx: Context) => {
      await ctx.services.packages.destroyFiles(await projectOf(ctx, input.projectPath), input.ids);
      return {};
    },
  },
};
