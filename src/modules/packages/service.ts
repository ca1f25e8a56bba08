/**
 * The package registry (GitLab's Packages::Package and Packages::PackageFile, `lib/api/project_packages.rb`,
 * `group_packages.rb`, `package_files.rb`, `generic_packages.rb`): lists with GitLab's filters and orders, one package
 * with its versions, its files and pipelines, deletion, and generic packages' uploads and downloads.
 *
 * Deleting marks the package (or the file) `pending_destruction` in the request; `packages.destroy` on the job queue
 * removes the rows, and the bytes once no package file names them any more (files are content-addressed). A package
 * being destroyed is no longer listed, shown or downloadable.
 */
import type { Readable } from 'node:stream';
import type { Prisma } from '../../db/database.js';
import { argumentRefused, featureUnavailable, forbidden, invalidArgument, notFound, notFoundAs, payloadTooLarge, recordNotFound } from '../../errors.js';
import { containsIgnoringCase } from '../../db/text.js';
import { connection, type PageArgs } from '../../graphql/connection.js';
import type { ServiceBase } from '../module.js';
import type { NamespaceRow } from '../namespaces/service.js';
import type { ProjectRow } from '../projects/service.js';
import type { PipelineRow } from '../pipelines/service.js';
import { NpmPackagesService } from './npm/service.js';
import { PypiRegistry } from './pypi/service.js';
import { PackageFileTooLarge, type StoredPackageFile } from './storage.js';

export type PackageRow = Prisma.PackageGetPayload<object>;
export type PackageFileRow = Prisma.PackageFileGetPayload<object>;

/** GitLab's package_type enum keys, in the enum's order (`order_by=type` sorts by it). */
export const PACKAGE_TYPES = ['maven', 'npm', 'conan', 'nuget', 'pypi', 'composer', 'generic', 'golang', 'debian', 'rubygems', 'helm', 'terraform_module', 'rpm', 'ml_model'] as const;
export type PackageType = (typeof PACKAGE_TYPES)[number];
export const PACKAGE_STATUSES = ['default', 'hidden', 'processing', 'error', 'pending_destruction', 'deprecated'] as const;
export type PackageStatus = (typeof PACKAGE_STATUSES)[number];

/** Listed without a `status` filter (GitLab's DISPLAYABLE_STATUSES). */
const DISPLAYABLE: PackageStatus[] = ['default', 'error', 'deprecated'];
/** Whose files may be downloaded (GitLab's INSTALLABLE_STATUSES). */
export const INSTALLABLE: PackageStatus[] = ['default', 'hidden', 'deprecated'];
/** Shown by the single-package endpoints (`detailed_info?`). */
const DETAILED: PackageStatus[] = ['default', 'deprecated'];
/** How many packages and files one bulk GraphQL deletion may name (BulkDestroy::MAX_PACKAGES, DestroyFiles::MAXIMUM_FILES); beyond, GitLab's raise_resource_not_available_error! in its own words (featureUnavailable's shape). */
const MAX_BULK_PACKAGES = 20;
const MAX_BULK_FILES = 100;

/** GitLab's page of package pipelines: at most 20. */
const MAX_PIPELINES_PAGE = 20;

/** GitLab's plan limits (`plan_limits.*_max_file_size`), bytes. */
const GB = 1024 ** 3;
const MB = 1024 ** 2;
const TYPE_MAX_FILE_SIZE: Partial<Record<PackageType, number>> = {
  generic: 5 * GB,
  npm: 500 * MB,
  pypi: 3 * GB,
  maven: 3 * GB,
  conan: 3 * GB,
  nuget: 500 * MB,
  helm: 5 * MB,
  terraform_module: GB,
  golang: 100 * MB,
  debian: 3 * GB,
  rubygems: 3 * GB,
};

export type PackageOrderBy = 'created_at' | 'name' | 'version' | 'type' | 'project_path';

export interface PackageFilters {
  orderBy?: PackageOrderBy | null;
  sort?: 'ASC' | 'DESC' | null;
  packageType?: PackageType | null;
  packageName?: string | null;
  packageVersion?: string | null;
  includeVersionless?: boolean | null;
  status?: PackageStatus | null;
  /** Group lists: only the group's own projects. */
  excludeSubgroups?: boolean | null;
}

/** GraphQL's PackageSort / PackageGroupSort as an order and a direction. */
export function sortOf(sort: string | null | undefined): Pick<PackageFilters, 'orderBy' | 'sort'> {
  const match = /^(CREATED|NAME|VERSION|TYPE|PROJECT_PATH)_(ASC|DESC)$/.exec(sort ?? '');
  if (!match) return {};
  const orderBy = ({ CREATED: 'created_at', NAME: 'name', VERSION: 'version', TYPE: 'type', PROJECT_PATH: 'project_path' } as const)[match[1] as 'CREATED'];
  return { orderBy, sort: match[2] as 'ASC' | 'DESC' };
}

/** GitLab's Gitlab::Regex for generic packages. */
const GENERIC_NAME = /^[A-Za-z0-9._+-]+$/;
const GENERIC_VERSION = /^(?!.*\.\.)[A-Za-z0-9_+.-]+$/;
const GENERIC_FILE_NAME = /^(?!.*\.\.)[A-Za-z0-9._+~@-]+$/;

/** GitLab's `regexp:` of the generic routes' path parameters: 400 `<param> is invalid`. */
function checkGenericNames(input: { name: string; version: string; fileName: string }): void {
  if (!GENERIC_NAME.test(input.name) || input.name === '.' || input.name === '..') throw argumentRefused('packageName', 'is invalid');
  if (!GENERIC_VERSION.test(input.version)) throw argumentRefused('packageVersion', 'is invalid');
  if (!GENERIC_FILE_NAME.test(input.fileName)) throw argumentRefused('fileName', 'is invalid');
}

export interface GenericUpload {
  name: string;
  version: string;
  fileName: string;
  status?: string | null;
}

export interface PackageDownload {
  file: PackageFileRow;
  open(): Readable;
}

export class PackagesService {
  constructor(private readonly base: ServiceBase) {}

  /** The PyPI registry (pypi/service.ts). */
  get pypi(): PypiRegistry {
    return (this.#pypi ??= new PypiRegistry(this.base, this));
  }
  #pypi?: PypiRegistry;

  /** The npm registry (npm.ts). */
  get npm(): NpmPackagesService {
    return (this.#npm ??= new NpmPackagesService(this.base, this));
  }
  #npm?: NpmPackagesService;

  /** The largest file of a type this server accepts: PACKAGE_MAX_FILE_SIZE, else GitLab's plan limit. */
  maxFileSize(type: PackageType): number {
    return this.base.app.config.packageMaxFileSize ?? TYPE_MAX_FILE_SIZE[type] ?? GB;
  }

  /** 403 (404 where the project is hidden) unless the viewer reads the project's packages. */
  private async authorizeRead(project: ProjectRow): Promise<void> {
    if (!(await this.base.access.can('read_package', project))) throw forbidden();
  }

  private where(filters: PackageFilters): Prisma.PackageWhereInput[] {
    const and: Prisma.PackageWhereInput[] = [];
    and.push(filters.status ? { status: filters.status } : { status: { in: DISPLAYABLE } });
    // Terraform modules are listed only when asked for by type (GitLab's packages finders).
    and.push(filters.packageType ? { packageType: filters.packageType } : { packageType: { not: 'terraform_module' } });
    if (filters.packageName) and.push({ name: containsIgnoringCase(filters.packageName) });
    if (filters.packageVersion) and.push({ version: filters.packageVersion });
    else if (!filters.includeVersionless) and.push({ version: { not: null } });
    return and;
  }

  private orderOf(filters: PackageFilters): Prisma.PackageOrderByWithRelationInput[] {
    const dir = filters.sort === 'DESC' ? 'desc' : 'asc';
    switch (filters.orderBy) {
      case 'name':
        return [{ name: dir }, { id: dir }];
      case 'version':
        return [{ version: { sort: dir, nulls: dir === 'asc' ? 'first' : 'last' } }, { id: dir }];
      case 'project_path':
        return [{ project: { path: dir } }, { id: dir }];
      default:
        return [{ createdAt: dir }, { id: dir }];
    }
  }

  private list(where: Prisma.PackageWhereInput, filters: PackageFilters, page: PageArgs) {
    const { db } = this.base;
    if (filters.orderBy === 'type') {
      // By the enum's order, as GitLab sorts its integer column: a count per type says which types the page spans,
      // then each of those gives its slice, by id.
      const dir = filters.sort === 'DESC' ? 'desc' : 'asc';
      return connection(
        page,
        async ({ skip, take }) => {
          const counts = new Map((await db.package.groupBy({ by: ['packageType'], where, _count: { _all: true } })).map((g) => [g.packageType, g._count._all]));
          const types = dir === 'asc' ? [...PACKAGE_TYPES] : [...PACKAGE_TYPES].reverse();
          const rows: PackageRow[] = [];
          let start = 0;
          for (const type of types) {
            const n = counts.get(type) ?? 0;
            const from = Math.max(skip - start, 0);
            const want = take - rows.length;
            if (want > 0 && from < n) rows.push(...(await db.package.findMany({ where: { AND: [where, { packageType: type }] }, orderBy: { id: dir }, skip: from, take: want })));
            start += n;
          }
          return rows;
        },
        () => db.package.count({ where }),
      );
    }
    const orderBy = this.orderOf(filters);
    return connection(
      page,
      ({ skip, take }) => db.package.findMany({ where, orderBy, skip, take }),
      () => db.package.count({ where }),
    );
  }

  /** A project's packages (GitLab's Packages::PackagesFinder). */
  async projectPackages(project: ProjectRow, filters: PackageFilters, page: PageArgs) {
    await this.authorizeRead(project);
    if (filters.orderBy === 'project_path') filters = { ...filters, orderBy: 'created_at' };
    return this.list({ AND: [{ projectId: project.id }, ...this.where(filters)] }, filters, page);
  }

  /** The packages of a group's projects, and its subgroups' unless excluded (Packages::GroupPackagesFinder). */
  async groupPackages(group: NamespaceRow, filters: PackageFilters, page: PageArgs) {
    const readable = await this.base.access.where('read_package');
    const inGroup: Prisma.ProjectWhereInput = filters.excludeSubgroups ? { namespaceId: group.id } : { namespace: { traversalIds: { has: group.id } } };
    const project: Prisma.ProjectWhereInput = { AND: [readable, inGroup, { pendingDelete: false }] };
    return this.list({ AND: [{ project }, ...this.where(filters)] }, filters, page);
  }

  /** A package of the project in any status but pending destruction; 404 otherwise. */
  private async find(project: ProjectRow, id: number, statuses?: PackageStatus[]): Promise<PackageRow> {
    const found = await this.base.loaders.packages.byId.load(id);
    if (!found || found.projectId !== project.id || found.status === 'pending_destruction') throw recordNotFound();
    if (statuses && !statuses.includes(found.status as PackageStatus)) throw recordNotFound();
    return found;
  }

  /** One package (GET /projects/:id/packages/:package_id): only displayable ones, and an errored one is "Package not found". */
  async get(project: ProjectRow, id: number): Promise<PackageRow> {
    await this.authorizeRead(project);
    const found = await this.find(project, id, DISPLAYABLE);
    if (!DETAILED.includes(found.status as PackageStatus)) throw notFound('Package');
    return found;
  }

  /** A package by global ID (GraphQL `package(id:)`): null when it does not exist or the viewer may not read it. */
  async byId(id: number): Promise<PackageRow | null> {
    const found = await this.base.loaders.packages.byId.load(id);
    if (!found || found.status === 'pending_destruction') return null;
    const project = await this.projectOf(found);
    if (!project || !(await this.base.access.can('read_package', project))) return null;
    return found;
  }

  async projectOf(pkg: PackageRow): Promise<ProjectRow | null> {
    return (await this.base.loaders.projects.byId.load(pkg.projectId)) as ProjectRow | null;
  }

  /** Other displayable versions of the package's name and type in its project, by version (Package#versions). */
  async versions(pkg: PackageRow, page: PageArgs) {
    const { db } = this.base;
    const where: Prisma.PackageWhereInput = { projectId: pkg.projectId, name: pkg.name, packageType: pkg.packageType, id: { not: pkg.id }, status: { in: DISPLAYABLE }, version: { not: null } };
    return connection(
      page,
      ({ skip, take }) => db.package.findMany({ where, orderBy: [{ version: 'asc' }, { id: 'asc' }], skip, take }),
      () => db.package.count({ where }),
    );
  }

  /** The installable files of a package (GET …/package_files). */
  async files(project: ProjectRow, packageId: number, order: { orderBy?: 'id' | 'created_at' | 'file_name' | null; sort?: 'ASC' | 'DESC' | null }, page: PageArgs) {
    await this.authorizeRead(project);
    const pkg = await this.find(project, packageId);
    return this.filesOf(pkg, order, page);
  }

  filesOf(pkg: PackageRow, order: { orderBy?: 'id' | 'created_at' | 'file_name' | null; sort?: 'ASC' | 'DESC' | null }, page: PageArgs) {
    const { db } = this.base;
    const dir = order.sort === 'DESC' ? 'desc' : 'asc';
    const key = order.orderBy === 'file_name' ? 'fileName' : order.orderBy === 'created_at' ? 'createdAt' : 'id';
    const where: Prisma.PackageFileWhereInput = { packageId: pkg.id, status: 'default' };
    return connection(
      page,
      ({ skip, take }) => db.packageFile.findMany({ where, orderBy: [{ [key]: dir }, { id: dir }], skip, take }),
      () => db.packageFile.count({ where }),
    );
  }

  /** The pipelines that published the package, newest first, at most 20 a page (GET …/pipelines). */
  async pipelines(project: ProjectRow, packageId: number, page: PageArgs) {
    await this.authorizeRead(project);
    // GitLab's `per_page` of this list, values 1..20 (REST's name for `first`).
    if (page.first != null && (page.first < 1 || page.first > MAX_PIPELINES_PAGE)) throw invalidArgument('perPage');
    const pkg = await this.find(project, packageId);
    if (!DETAILED.includes(pkg.status as PackageStatus)) throw notFound('Package not found');
    return this.pipelinesOf(pkg, { ...page, first: page.first ?? MAX_PIPELINES_PAGE });
  }

  /** The pipelines of a package the viewer may read, newest first. */
  async pipelinesOf(pkg: PackageRow, page: PageArgs) {
    const { db } = this.base;
    const where: Prisma.PipelineWhereInput = { projectId: pkg.projectId, id: { in: await this.base.loaders.packages.pipelineIds.load(pkg.id) } };
    const project = await this.projectOf(pkg);
    if (!project || !(await this.base.access.can('read_pipeline', project))) return connection(page, async () => [] as PipelineRow[], async () => 0);
    return connection(
      page,
      ({ skip, take }) => db.pipeline.findMany({ where, orderBy: { id: 'desc' }, skip, take }),
      () => db.pipeline.count({ where }),
    );
  }

  /**
   * The newest (at most 20) pipelines of a package, through loaders so a page of packages costs one query; null when
   * it has none or the viewer may not read the project's pipelines (REST's deprecated `pipelines`).
   */
  async buildPipelines(pkg: PackageRow): Promise<PipelineRow[] | null> {
    const { loaders, access } = this.base;
    const ids = (await loaders.packages.pipelineIds.load(pkg.id)).slice(0, MAX_PIPELINES_PAGE);
    if (!ids.length) return null;
    const project = await this.projectOf(pkg);
    if (!project || !(await access.can('read_pipeline', project))) return null;
    const pipelines = (await loaders.pipelines.byId.loadMany(ids)).filter((p): p is PipelineRow => !!p && !(p instanceof Error));
    return pipelines.length ? pipelines : null;
  }

  /** Whether the viewer may delete the package (`_links.delete_api_path`, GraphQL `canDestroy`). */
  async canDestroy(pkg: PackageRow): Promise<boolean> {
    const project = await this.projectOf(pkg);
    return !!project && this.base.access.can('destroy_package', project);
  }

  /** Marks the package for destruction; the job removes it (Packages::MarkPackageForDestructionService). */
  async destroy(project: ProjectRow, packageId: number): Promise<PackageRow> {
    await this.authorizeRead(project);
    const pkg = await this.find(project, packageId);
    await this.base.access.authorize('destroy_package', project);
    return this.markForDestruction(pkg);
  }

  /** GraphQL `destroyPackage`: the package by global ID. */
  async destroyById(id: number): Promise<PackageRow> {
    const pkg = await this.byId(id);
    if (!pkg) throw notFoundAs("The resource that you are attempting to access does not exist or you don't have permission to perform this action");
    const project = (await this.projectOf(pkg))!;
    await this.base.access.authorize('destroy_package', project);
    return this.markForDestruction(pkg);
  }

  /**
   * GraphQL `destroyPackages` (Mutations::Packages::BulkDestroy, MarkPackagesForDestructionService): at most 20, the
   * displayable ones of those named marked for destruction together, none when the caller may not destroy every one.
   */
  async destroyMany(ids: readonly number[]): Promise<void> {
    if (ids.length > MAX_BULK_PACKAGES) throw featureUnavailable(`Cannot delete more than ${MAX_BULK_PACKAGES} packages`);
    const packages = await this.base.db.package.findMany({ where: { id: { in: [...ids] }, status: { in: [...DISPLAYABLE] } } });
    for (const pkg of packages) {
      const project = await this.projectOf(pkg);
      if (!project || !(await this.base.access.can('destroy_package', project))) throw notFoundAs("The resource that you are attempting to access does not exist or you don't have permission to perform this action");
    }
    const { db, app } = this.base;
    await db.$transaction(async (tx) => {
      const marked = packages.map((p) => p.id);
      await tx.package.updateMany({ where: { id: { in: marked } }, data: { status: 'pending_destruction' } });
      await tx.packageFile.updateMany({ where: { packageId: { in: marked } }, data: { status: 'pending_destruction' } });
      for (const id of marked) await app.jobs.enqueue(DESTROY_JOB, { packageId: id }, { uniqueKey: `${DESTROY_JOB}:package:${id}`, maxAttempts: 25 }, tx);
    });
  }

  /**
   * GraphQL `destroyPackageFiles` (Mutations::Packages::DestroyFiles): at most 100 files, every one of the project
   * named (`All files must be in the requested project`, also when none is found), marked for destruction together.
   */
  async destroyFiles(project: ProjectRow, ids: readonly number[]): Promise<void> {
    await this.base.access.authorize('destroy_package', project);
    if (ids.length > MAX_BULK_FILES) throw featureUnavailable(`Cannot delete more than ${MAX_BULK_FILES} files`);
    const { db, app } = this.base;
    const files = await db.packageFile.findMany({ where: { id: { in: [...ids] } }, select: { id: true, status: true, package: { select: { projectId: true } } } });
    const projects = new Set(files.map((f) => f.package.projectId));
    if (projects.size !== 1 || !projects.has(project.id)) throw featureUnavailable('All files must be in the requested project');
    const marked = files.filter((f) => f.status === 'default').map((f) => f.id);
    await db.$transaction(async (tx) => {
      await tx.packageFile.updateMany({ where: { id: { in: marked } }, data: { status: 'pending_destruction' } });
      for (const id of marked) await app.jobs.enqueue(DESTROY_JOB, { packageFileId: id }, { uniqueKey: `${DESTROY_JOB}:file:${id}`, maxAttempts: 25 }, tx);
    });
  }

  private async markForDestruction(pkg: PackageRow): Promise<PackageRow> {
    const { db, app } = this.base;
    return db.$transaction(async (tx) => {
      const marked = await tx.package.update({ where: { id: pkg.id }, data: { status: 'pending_destruction' } });
      await tx.packageFile.updateMany({ where: { packageId: pkg.id }, data: { status: 'pending_destruction' } });
      await app.jobs.enqueue(DESTROY_JOB, { packageId: pkg.id }, { uniqueKey: `${DESTROY_JOB}:package:${pkg.id}`, maxAttempts: 25 }, tx);
      return marked;
    });
  }

  /** Marks one installable file for destruction (DELETE …/package_files/:package_file_id). */
  async destroyFile(project: ProjectRow, packageId: number, fileId: number): Promise<PackageFileRow> {
    await this.authorizeRead(project);
    const pkg = await this.find(project, packageId);
    const file = await this.base.db.packageFile.findFirst({ where: { id: fileId, packageId: pkg.id, status: 'default' } });
    if (!file) throw notFound();
    await this.base.access.authorize('destroy_package', project);
    return this.markFileForDestruction(file);
  }

  /** GraphQL `destroyPackageFile`: the file by global ID. */
  async destroyFileById(id: number): Promise<PackageFileRow> {
    const file = await this.base.db.packageFile.findFirst({ where: { id, status: 'default' } });
    const pkg = file ? await this.byId(file.packageId) : null;
    if (!file || !pkg) throw notFoundAs("The resource that you are attempting to access does not exist or you don't have permission to perform this action");
    await this.base.access.authorize('destroy_package', (await this.projectOf(pkg))!);
    return this.markFileForDestruction(file);
  }

  private async markFileForDestruction(file: PackageFileRow): Promise<PackageFileRow> {
    const { db, app } = this.base;
    return db.$transaction(async (tx) => {
      const marked = await tx.packageFile.update({ where: { id: file.id }, data: { status: 'pending_destruction' } });
      await app.jobs.enqueue(DESTROY_JOB, { packageFileId: file.id }, { uniqueKey: `${DESTROY_JOB}:file:${file.id}`, maxAttempts: 25 }, tx);
      return marked;
    });
  }

  /**
   * Removes what was marked for destruction: the rows, then each file's bytes unless another package file still names
   * them. Runs again safely: what is already gone is skipped.
   */
  async purge(target: { packageId?: number; packageFileId?: number }): Promise<void> {
    const { db } = this.base;
    const files = await db.packageFile.findMany({
      where: target.packageId != null ? { packageId: target.packageId } : { id: target.packageFileId ?? -1, status: 'pending_destruction' },
      select: { id: true, fileSha256: true },
    });
    if (target.packageId != null) await db.package.deleteMany({ where: { id: target.packageId, status: 'pending_destruction' } });
    await db.packageFile.deleteMany({ where: { id: { in: files.map((f) => f.id) } } });
    for (const sha of new Set(files.map((f) => f.fileSha256))) await this.removeUnusedBytes(sha);
  }

  /** A project being deleted: its packages' rows, and the bytes no other project's file names. Idempotent. */
  async teardownProject(projectId: number): Promise<void> {
    const { db } = this.base;
    const files = await db.packageFile.findMany({ where: { package: { projectId } }, select: { fileSha256: true }, distinct: ['fileSha256'] });
    await db.package.deleteMany({ where: { projectId } });
    for (const { fileSha256 } of files) await this.removeUnusedBytes(fileSha256);
  }

  /** Removes the bytes of a digest when no file names them, under the digest's lock an upload takes to record its file (claimBytes). */
  private async removeUnusedBytes(sha256: string): Promise<void> {
    const { db, app } = this.base;
    await db.$transaction(async (tx) => {
      await lockDigest(tx, sha256);
      if (!(await tx.packageFile.count({ where: { fileSha256: sha256 } }))) await app.packages.remove(sha256);
    });
  }

  /** An upload whose file was not recorded: its staged bytes go, and the placed ones too when no file names them. */
  async release(stored: StoredPackageFile): Promise<void> {
    await this.base.app.packages.discard(stored);
    await this.removeUnusedBytes(stored.sha256);
  }

  /**
   * Puts an upload's staged bytes at their address for a file row about to be inserted in `tx`, under the digest's
   * lock, which a purge takes to decide the bytes are unused: the same bytes deleted and sent again at once never
   * leave a row naming nothing (a purge that ran first removed the old copy; this one is placed after it).
   */
  async claimBytes(tx: Prisma.TransactionClient, stored: StoredPackageFile): Promise<void> {
    await lockDigest(tx, stored.sha256);
    await this.base.app.packages.place(stored);
  }

  /**
   * A generic package's file (PUT /projects/:id/packages/generic/:package_name/:package_version/:file_name): the
   * package is found or made (`processing` while its first file streams in), the bytes streamed to the store with their
   * checksums, then the file recorded with the pipeline of the CI job whose token sent it.
   */
  async uploadGeneric(project: ProjectRow, input: GenericUpload, body: Readable, declaredSize: number | null): Promise<PackageFileRow> {
    const { access, db, app, viewer } = this.base;
    checkGenericNames(input);
    if (input.status != null && input.status !== 'default' && input.status !== 'hidden') throw invalidArgument('status');
    access.requireViewer();
    await this.authorizeRead(project);
    await access.authorize('create_package', project);
    const limit = this.maxFileSize('generic');
    if (declaredSize !== null && declaredSize > limit) throw payloadTooLarge();
    const status = input.status === 'hidden' ? 'hidden' : 'default';
    const existing = await db.package.findFirst({
      where: { projectId: project.id, packageType: 'generic', name: input.name, version: input.version, status: { not: 'pending_destruction' } },
      orderBy: { id: 'desc' },
    });
    const pkg = existing ?? (await db.package.create({ data: { projectId: project.id, packageType: 'generic', name: input.name, version: input.version, status: 'processing', creatorId: viewer?.id ?? null } }));
    let stored;
    try {
      stored = await app.packages.write(body, limit);
    } catch (error) {
      if (!existing) await db.package.deleteMany({ where: { id: pkg.id, files: { none: {} } } });
      if (error instanceof PackageFileTooLarge) throw payloadTooLarge();
      throw error;
    }
    const pipelineId = viewer?.job?.pipelineId ?? null;
    const recorded = db.$transaction(async (tx) => {
      await this.claimBytes(tx, stored);
      const file = await tx.packageFile.create({
        data: { packageId: pkg.id, fileName: input.fileName, size: BigInt(stored.size), fileMd5: stored.md5, fileSha1: stored.sha1, fileSha256: stored.sha256, pipelineId },
      });
      if (pipelineId !== null) await tx.packageBuildInfo.upsert({ where: { packageId_pipelineId: { packageId: pkg.id, pipelineId } }, create: { packageId: pkg.id, pipelineId }, update: {} });
      await tx.package.update({ where: { id: pkg.id }, data: { status } });
      return file;
    });
    try {
      return await recorded;
    } catch (error) {
      await this.release(stored);
      throw error;
    }
  }

  /** One installable file of a package by id (GET …/package_files/:package_file_id/download). */
  async downloadFile(project: ProjectRow, packageId: number, fileId: number): Promise<PackageDownload> {
    const { db, app } = this.base;
    await this.authorizeRead(project);
    const pkg = await this.find(project, packageId, INSTALLABLE);
    const file = await db.packageFile.findFirst({ where: { id: fileId, packageId: pkg.id, status: 'default' } });
    if (!file) throw notFound();
    await db.package.update({ where: { id: pkg.id }, data: { lastDownloadedAt: new Date() } });
    return { file, open: () => app.packages.read(file.fileSha256) };
  }

  /** A generic package's file for download: the newest of that name in the newest installable package of that name and version. */
  async downloadGeneric(project: ProjectRow, name: string, version: string, fileName: string): Promise<PackageDownload> {
    const { db, app } = this.base;
    checkGenericNames({ name, version, fileName });
    await this.authorizeRead(project);
    const pkg = await db.package.findFirst({
      where: { projectId: project.id, packageType: 'generic', name, version, status: { in: INSTALLABLE } },
      orderBy: { id: 'desc' },
    });
    if (!pkg) throw notFound('Package');
    const file = await db.packageFile.findFirst({ where: { packageId: pkg.id, fileName, status: 'default' }, orderBy: { id: 'desc' } });
    if (!file) throw notFound('Package file');
    await db.package.update({ where: { id: pkg.id }, data: { lastDownloadedAt: new Date() } });
    return { file, open: () => app.packages.read(file.fileSha256) };
  }
}

export const DESTROY_JOB = 'packages.destroy';

/** The transaction-scoped lock of one SHA-256 digest's bytes in the store: recording a file and purging them take it. */
function lockDigest(tx: Prisma.TransactionClient, sha256: string): Promise<unknown> {
  return tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`packages:${sha256}`}, 0))`;
}
