/**
 * The PyPI registry (GitLab's `lib/api/pypi_packages.rb`, Packages::Pypi::CreatePackageService, its finders): uploads
 * as twine sends them, one package per name and version holding its wheels and sdists, and the PEP 503 simple index
 * that pip reads, for a project and for a group's projects. Rows, statuses, pipelines and deletion are the package
 * registry's own (../service.ts); the bytes are content-addressed in its store.
 *
 * Who is refused how follows GitLab's BasicAuthHelpers: a caller without credentials where some would be needed gets
 * 401 (the HTTP layer adds the Basic challenge pip answers), a signed-in caller 404 for what it may not see and 403 for
 * what it sees but may not do.
 */
import type { Readable } from 'node:stream';
import { Prisma } from '../../../db/database.js';
import { argumentRefused, badRequest, forbidden, missing, notFound, unauthenticated } from '../../../errors.js';
import type { Ref } from '../../../graphql/ids.js';
import type { ServiceBase } from '../../module.js';
import type { NamespaceRow } from '../../namespaces/service.js';
import type { ProjectRow } from '../../projects/service.js';
import { INSTALLABLE, type PackageDownload, type PackageFileRow, type PackagesService } from '../service.js';
import { PackageFileTooLarge, type StoredPackageFile } from '../storage.js';

/** The fields of twine's upload form this registry keeps (GitLab's declared params, snake_case in the form). */
export interface PypiUploadFields {
  name?: string;
  version?: string;
  requiresPython?: string;
  md5Digest?: string;
  sha256Digest?: string;
  metadataVersion?: string;
  authorEmail?: string;
  description?: string;
  descriptionContentType?: string;
  summary?: string;
  keywords?: string;
}

/** The form field of each upload field. */
export const PYPI_FORM_FIELDS: Record<string, keyof PypiUploadFields> = {
  name: 'name',
  version: 'version',
  requires_python: 'requiresPython',
  md5_digest: 'md5Digest',
  sha256_digest: 'sha256Digest',
  metadata_version: 'metadataVersion',
  author_email: 'authorEmail',
  description: 'description',
  description_content_type: 'descriptionContentType',
  summary: 'summary',
  keywords: 'keywords',
};

/** Packages::Pypi::Metadatum's lengths: longer values are truncated, as CreatePackageService#truncate_fields does. */
const METADATA_LENGTHS = { requiredPython: 255, metadataVersion: 16, authorEmail: 2048, description: 4000, descriptionContentType: 128, summary: 255, keywords: 1024 } as const;

/** Gitlab::Regex.pypi_version_regex (PEP 440, case-insensitive). */
const PYPI_VERSION =
  /^v?(?:[0-9]+!)?[0-9]+(?:\.[0-9]+)*(?:[-_.]?(?:a|b|c|rc|alpha|beta|pre|preview)[-_.]?[0-9]*)?(?:-[0-9]+|[-_.]?(?:post|rev|r)[-_.]?[0-9]*)?(?:[-_.]?dev[-_.]?[0-9]*)?(?:\+[a-z0-9]+(?:[-_.][a-z0-9]+)*)?$/i;
/** Gitlab::Regex.package_name_regex (Ruby's `\w` is ASCII here). */
const PACKAGE_NAME = /^@?(?:[\w\-.+]*\/)*[\w\-.]+@?(?:[\w\-.+]*\/)*[\w\-.]*$/;
/** The packages' `name` column's length. */
const MAX_NAME_LENGTH = 255;
/** Gitlab::Regex.sha256_regex. */
const SHA256 = /^[0-9a-f]{64}$/i;
const MD5 = /^[0-9a-f]{32}$/i;
/** PEP 503's runs of separators (GitLab's PYPI_NORMALIZED_NAME_REGEX_STRING). */
const SEPARATORS = /[-_.]+/g;

/** A lock key of its own for one project's PyPI uploads (pg_advisory_xact_lock's first key): find-or-create, then files. */
const PYPI_UPLOAD_LOCK = 0x70797069;

/** PEP 503's normalized name (Packages::Pypi::Package#normalized_pypi_name). */
export function normalizePypiName(name: string): string {
  return name.replace(SEPARATORS, '-').toLowerCase();
}

/** GitLab's `400 Bad request - <reason>` (bad_request!). */
const badRequestFor = (reason: string) => badRequest(`400 Bad request - ${reason}`);

export interface PypiIndexEntry {
  name: string;
  requiredPython: string;
}

export interface PypiFileLink {
  fileName: string;
  sha256: string;
  requiredPython: string;
}

export class PypiRegistry {
  constructor(
    private readonly base: ServiceBase,
    private readonly packages: PackagesService,
  ) {}

  /** GitLab's `unauthorized_or!`: 401 to a caller without credentials, `error` to one with. */
  private unauthorizedOr(error: Error): Error {
    return this.base.viewer ? error : unauthenticated();
  }

  /**
   * The project of a PyPI route (GitLab's `project!` then `authorized_project_find!`): `found` is the project as the
   * viewer may read it, null when hidden or missing. A missing project is 404 for everyone; a hidden one 401 without
   * credentials and 404 with; with `read_package`, a readable project whose packages are not is 403.
   */
  async project(ref: Ref, found: ProjectRow | null, action: 'read_package' | 'read_project'): Promise<ProjectRow> {
    const { access, loaders } = this.base;
    if (!found) {
      // Only a project named by ID can be told to exist without being readable; by path, a hidden one is as missing.
      const exists = 'id' in ref && (await loaders.projects.byId.load(ref.id));
      throw exists && !exists.pendingDelete ? this.unauthorizedOr(notFound()) : notFound();
    }
    if (action === 'read_package' && !(await access.can('read_package', found))) throw forbidden();
    return found;
  }

  /** The group of a group-level PyPI route (GitLab's `find_authorized_group!`), then `read_package` on it. */
  group(found: NamespaceRow | null): NamespaceRow {
    if (!found) throw this.unauthorizedOr(notFound());
    return found;
  }

  /** GitLab's `authorize_upload!`: Developers publish; 401 without credentials, 403 with. */
  async authorizeUpload(project: ProjectRow): Promise<void> {
    if (!(await this.base.access.can('create_package', project))) throw this.unauthorizedOr(forbidden());
  }

  /** The largest file PyPI uploads may carry. */
  get maxFileSize(): number {
    return this.packages.maxFileSize('pypi');
  }

  /** The upload's declared params as Grape checks them: what is missing, a digest of the wrong form. */
  checkParams(fields: PypiUploadFields, hasContent: boolean): void {
    const absent = [...(hasContent ? [] : ['content']), ...(fields.name === undefined ? ['name'] : []), ...(fields.version === undefined ? ['version'] : [])];
    if (absent.length) throw missing(...absent);
    if (fields.sha256Digest !== undefined && !SHA256.test(fields.sha256Digest)) throw argumentRefused('sha256Digest', 'is invalid');
  }

  /** The package's validations (Packages::Pypi::Package), as CreatePackageService reports them. */
  checkPackage(fields: PypiUploadFields): void {
    const errors: string[] = [];
    const name = fields.name ?? '';
    if (!name) errors.push("Name can't be blank");
    else if (name.length > MAX_NAME_LENGTH || !PACKAGE_NAME.test(name)) errors.push('Name is invalid');
    if (!PYPI_VERSION.test(fields.version ?? '')) errors.push('Version is invalid');
    if (errors.length) throw badRequestFor(`Validation failed: ${errors.join(', ')}`);
  }

  /** Streams an upload's file to the store within the PyPI limit (`File is too large` past it). */
  async store(source: Readable): Promise<StoredPackageFile> {
    try {
      return await this.base.app.packages.write(source, this.maxFileSize);
    } catch (error) {
      if (error instanceof PackageFileTooLarge) throw badRequestFor('File is too large');
      throw error;
    }
  }

  /** Removes the bytes of an upload refused after its file came in (PackagesService.release). */
  async discard(stored: StoredPackageFile): Promise<void> {
    await this.packages.release(stored);
  }

  /**
   * Records an uploaded file (POST /projects/:id/packages/pypi, CreatePackageService): the digests the client sent
   * must be those of the bytes; the package of that name and version is found or made with the metadata of this
   * upload; a second file of the same name in it is refused; a CI job's upload records the job's pipeline.
   */
  async record(project: ProjectRow, fields: PypiUploadFields, fileName: string, stored: StoredPackageFile): Promise<PackageFileRow> {
    const { db, viewer } = this.base;
    this.checkParams(fields, true);
    this.checkPackage(fields);
    if (fields.sha256Digest !== undefined && fields.sha256Digest.toLowerCase() !== stored.sha256) throw badRequestFor('Validation failed: File sha256 does not match the uploaded file');
    if (fields.md5Digest && MD5.test(fields.md5Digest) && fields.md5Digest.toLowerCase() !== stored.md5) throw badRequestFor('Validation failed: File md5 does not match the uploaded file');
    const name = fields.name as string;
    const version = fields.version as string;
    const truncate = (key: keyof typeof METADATA_LENGTHS, value: string | undefined) => value?.slice(0, METADATA_LENGTHS[key]) ?? null;
    const metadata = {
      requiredPython: truncate('requiredPython', fields.requiresPython) ?? '',
      metadataVersion: truncate('metadataVersion', fields.metadataVersion),
      authorEmail: truncate('authorEmail', fields.authorEmail),
      description: truncate('description', fields.description),
      descriptionContentType: truncate('descriptionContentType', fields.descriptionContentType),
      summary: truncate('summary', fields.summary),
      keywords: truncate('keywords', fields.keywords),
    };
    const pipelineId = viewer?.job?.pipelineId ?? null;
    return db.$transaction(async (tx) => {
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(${PYPI_UPLOAD_LOCK}::int4, ${project.id}::int4)`;
      const existing = await tx.package.findFirst({
        where: { projectId: project.id, packageType: 'pypi', name, version, status: { not: 'pending_destruction' } },
        orderBy: { id: 'desc' },
      });
      const pkg = existing ?? (await tx.package.create({ data: { projectId: project.id, packageType: 'pypi', name, version, creatorId: viewer?.id ?? null } }));
      if (await tx.packageFile.count({ where: { packageId: pkg.id, fileName, status: { not: 'pending_destruction' } } })) {
        throw badRequestFor('Validation failed: File name has already been taken');
      }
      await tx.packagePypiMetadatum.upsert({ where: { packageId: pkg.id }, create: { packageId: pkg.id, ...metadata }, update: metadata });
      await this.packages.claimBytes(tx, stored);
      const file = await tx.packageFile.create({
        data: { packageId: pkg.id, fileName, size: BigInt(stored.size), fileMd5: stored.md5, fileSha1: stored.sha1, fileSha256: stored.sha256, pipelineId },
      });
      if (pipelineId !== null) await tx.packageBuildInfo.upsert({ where: { packageId_pipelineId: { packageId: pkg.id, pipelineId } }, create: { packageId: pkg.id, pipelineId }, update: {} });
      await tx.package.update({ where: { id: pkg.id }, data: { updatedAt: new Date() } });
      return file;
    });
  }

  /** Installable PyPI packages with a version (Packages::Pypi::PackagesFinder's base) of a project or a group's projects. */
  private async scope(owner: { project: ProjectRow } | { group: NamespaceRow }): Promise<Prisma.PackageWhereInput> {
    const base: Prisma.PackageWhereInput = { packageType: 'pypi', version: { not: null }, status: { in: INSTALLABLE } };
    if ('project' in owner) {
      await this.authorizeRead(owner.project);
      return { ...base, projectId: owner.project.id };
    }
    const readable = await this.base.access.where('read_package');
    return { ...base, project: { AND: [readable, { namespace: { traversalIds: { has: owner.group.id } } }, { pendingDelete: false }] } };
  }

  private async authorizeRead(project: ProjectRow): Promise<void> {
    if (!(await this.base.access.can('read_package', project))) throw forbidden();
  }

  /** The simple index (GET …/pypi/simple): one entry per package, as GitLab's SimpleIndexPresenter lists them. */
  async index(owner: { project: ProjectRow } | { group: NamespaceRow }): Promise<PypiIndexEntry[]> {
    const where = await this.scope(owner);
    const rows = await this.base.db.package.findMany({ where, orderBy: { id: 'asc' }, select: { name: true, pypiMetadatum: { select: { requiredPython: true } } } });
    return rows.map((row) => ({ name: row.name, requiredPython: row.pypiMetadatum?.requiredPython ?? '' }));
  }

  /**
   * A package's page of the simple index (GET …/pypi/simple/:package_name): the installable files of every version
   * whose normalized name is the requested one lower-cased (GitLab's `with_normalized_pypi_name`); `404 Package Not
   * Found` when there is none. The name shown is the first package's.
   */
  async versions(owner: { project: ProjectRow } | { group: NamespaceRow }, packageName: string): Promise<{ name: string; files: PypiFileLink[] }> {
    const { db } = this.base;
    const where = await this.scope(owner);
    const inProject = 'project' in owner ? Prisma.sql`AND "projectId" = ${owner.project.id}` : Prisma.empty;
    const named = await db.$queryRaw<{ id: number }[]>`
      SELECT "id" FROM "packages_packages"
      WHERE "packageType" = 'pypi' ${inProject} AND LOWER(regexp_replace("name", '[-_.]+', '-', 'g')) = ${packageName.toLowerCase()}`;
    if (!named.length) throw notFound('Package');
    const packages = await db.package.findMany({
      where: { AND: [where, { id: { in: named.map((row) => row.id) } }] },
      orderBy: { id: 'asc' },
      select: { id: true, name: true, pypiMetadatum: { select: { requiredPython: true } } },
    });
    if (!packages.length) throw notFound('Package');
    const files = await db.packageFile.findMany({
      where: { packageId: { in: packages.map((p) => p.id) }, status: 'default' },
      orderBy: [{ packageId: 'asc' }, { id: 'asc' }],
      select: { packageId: true, fileName: true, fileSha256: true },
    });
    const required = new Map(packages.map((p) => [p.id, p.pypiMetadatum?.requiredPython ?? '']));
    return { name: packages[0].name, files: files.map((f) => ({ fileName: f.fileName, sha256: f.fileSha256, requiredPython: required.get(f.packageId) ?? '' })) };
  }

  /** A file by its SHA-256 and name (GET …/pypi/files/:sha256/*file_identifier); `404 Package Not Found` otherwise. */
  async download(owner: { project: ProjectRow } | { group: NamespaceRow }, sha256: string, fileName: string): Promise<PackageDownload> {
    const { db, app } = this.base;
    const where = await this.scope(owner);
    const file = await db.packageFile.findFirst({ where: { fileSha256: sha256.toLowerCase(), fileName, status: 'default', package: where }, orderBy: { id: 'desc' } });
    if (!file) throw notFound('Package');
    await db.package.update({ where: { id: file.packageId }, data: { lastDownloadedAt: new Date() } });
    return { file, open: () => app.packages.read(file.fileSha256) };
  }
}
