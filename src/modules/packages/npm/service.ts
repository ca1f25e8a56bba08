/**
 * The npm registry (GitLab's `lib/api/npm_project_packages.rb`, `npm_instance_packages.rb`, the NpmEndpoints concern
 * and `app/services/packages/npm/*`): publishing a version (its tarball streamed from the body's base64 into the
 * package store), the package's metadata as npm reads it, tarballs, dist-tags, and the instance-level lookup of a
 * scoped name's project.
 *
 * A published version is `processing` until `packages.npm.process` (GitLab's ProcessPackageFileWorker) has read the
 * tarball's package.json: name, version and scripts as published make it `default`, anything else `error` with
 * GitLab's status message. Packages, files, pipelines and deletion are the package registry's own (service.ts).
 */
import { Readable } from 'node:stream';
import { Prisma } from '../../../db/database.js';
import { equalsIgnoringCase } from '../../../db/text.js';
import { badRequest, forbidden, missing, notFound, payloadTooLarge, refused, unauthenticated } from '../../../errors.js';
import type { ServiceBase } from '../../module.js';
import type { ProjectRow } from '../../projects/service.js';
import { findPackageJson, publicationReader, PublicationError, TarballError } from './stream.js';
import type { PackageDownload, PackageRow, PackagesService } from '../service.js';
import { PackageFileTooLarge, type StoredPackageFile } from '../storage.js';

export const NPM_PROCESS_JOB = 'packages.npm.process';

/** Gitlab::Regex.npm_package_name_regex. */
const NAME = /^(?:@([A-Za-z0-9][-+._A-Za-z0-9]*)\/)?[-+._A-Za-z0-9]+$/;
/** Gitlab::Regex.semver_regex (SemVer 2.0.0). */
const SEMVER =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;
/** Of a version's package.json, what the metadata repeats besides name, version, dist and dependencies. */
const ALLOWED_FIELDS = ['deprecated', 'bin', 'directories', 'dist', 'engines', '_hasShrinkwrap'] as const;
/** Not kept of a published package.json (GitLab's PACKAGE_JSON_NOT_ALLOWED_FIELDS). */
const NOT_KEPT = ['readme', 'readmeFilename'];
const DEPENDENCY_TYPES = ['dependencies', 'devDependencies', 'bundleDependencies', 'peerDependencies'] as const;
/** Versions npm may install (Packages::Package.installable). */
const INSTALLABLE = ['default', 'hidden', 'deprecated'];
/** Bound of everything of a publication but the tarball. */
const MAX_METADATA = 10 * 1024 * 1024;

/** `@scope` of `@scope/name`, else null (Packages::Npm.scope_of). */
export function scopeOf(name: string): string | null {
  return /^@([^/]+)\//.exec(name)?.[1] ?? null;
}

/** SemVer precedence, then text (VersionSorter's order for what is not SemVer). */
export function compareVersions(a: string, b: string): number {
  const x = SEMVER.exec(a);
  const y = SEMVER.exec(b);
  if (!x || !y) return x ? 1 : y ? -1 : a < b ? -1 : a > b ? 1 : 0;
  for (let i = 1; i <= 3; i++) {
    const d = Number(x[i]) - Number(y[i]);
    if (d) return Math.sign(d);
  }
  if (!x[4] || !y[4]) return x[4] ? -1 : y[4] ? 1 : 0;
  const p = x[4].split('.');
  const q = y[4].split('.');
  for (let i = 0; i < Math.max(p.length, q.length); i++) {
    if (p[i] === undefined) return -1;
    if (q[i] === undefined) return 1;
    const m = /^\d+$/.test(p[i]!);
    const n = /^\d+$/.test(q[i]!);
    if (m && n && p[i] !== q[i]) return Math.sign(Number(p[i]) - Number(q[i]));
    if (m !== n) return m ? -1 : 1;
    if (p[i] !== q[i]) return p[i]! < q[i]! ? -1 : 1;
  }
  return 0;
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

export interface NpmVersion {
  [field: string]: unknown;
}

export interface NpmMetadata {
  name: string;
  versions: Record<string, NpmVersion>;
  'dist-tags': Record<string, string>;
}

export class NpmPackagesService {
  constructor(
    private readonly base: ServiceBase,
    private readonly packages: PackagesService,
  ) {}

  private async authorizeRead(project: ProjectRow): Promise<void> {
    if (!(await this.base.access.can('read_package', project))) throw forbidden();
  }

  /** authenticate_non_get!, then the ability. */
  private async authorizeWrite(project: ProjectRow, ability: 'create_package' | 'destroy_package'): Promise<void> {
    if (!this.base.viewer) throw unauthenticated();
    await this.authorizeRead(project);
    await this.base.access.authorize(ability, project);
  }

  /**
   * The project the instance-level endpoints serve a name from (API::Helpers::Packages::Npm#project_id_or_nil): the
   * newest npm package of that name under the top-level namespace whose path is the name's scope. Null when none.
   */
  async instanceProjectId(name: string): Promise<number | null> {
    const scope = scopeOf(name);
    if (!scope) return null;
    const { db } = this.base;
    const namespace = await db.namespace.findFirst({ where: { parentId: null, path: equalsIgnoringCase(scope) }, select: { id: true } });
    if (!namespace) return null;
    const found = await db.package.findFirst({
      where: { packageType: 'npm', name, status: { in: INSTALLABLE }, project: { namespace: { traversalIds: { has: namespace.id } }, pendingDelete: false } },
      orderBy: { id: 'desc' },
      select: { projectId: true },
    });
    return found?.projectId ?? null;
  }

  private installable(project: ProjectRow, name: string): Promise<PackageRow[]> {
    return this.base.db.package.findMany({ where: { projectId: project.id, packageType: 'npm', name, version: { not: null }, status: { in: INSTALLABLE } }, orderBy: { id: 'asc' } });
  }

  /** The dist-tags of these versions, `latest` defaulting to the highest version (GenerateMetadataService#dist_tags). */
  private async distTags(projectId: number, name: string, packages: { id: number; version: string | null }[]): Promise<Record<string, string>> {
    const byId = new Map(packages.map((p) => [p.id, p.version!]));
    const tags = await this.base.db.packageTag.findMany({ where: { projectId, packageType: 'npm', packageName: name }, orderBy: { id: 'asc' }, select: { name: true, packageId: true } });
    const out: Record<string, string> = {};
    for (const tag of tags) {
      const version = byId.get(tag.packageId);
      if (version !== undefined) out[tag.name] = version;
    }
    if (!out.latest && packages.length) out.latest = [...byId.values()].sort(compareVersions).at(-1)!;
    return out;
  }

  /** GET …/packages/npm/:package_name: every installable version with its dist, and the dist-tags. */
  async metadata(project: ProjectRow, name: string): Promise<NpmMetadata> {
    const { db, app } = this.base;
    await this.authorizeRead(project);
    // One statement: each installable version with its newest installable file and its package.json, by id.
    const rows = await db.$queryRaw<{ id: number; version: string; fileName: string; fileSha1: string; packageJson: unknown; integrity: string | null }[]>`
      SELECT p."id", p."version", f."fileName", f."fileSha1", m."packageJson", m."integrity"
      FROM "packages_packages" p
      JOIN LATERAL (
        SELECT "fileName", "fileSha1" FROM "packages_package_files" WHERE "packageId" = p."id" AND "status" = 'default' ORDER BY "id" DESC LIMIT 1
      ) f ON TRUE
      LEFT JOIN "packages_npm_metadata" m ON m."packageId" = p."id"
      WHERE p."projectId" = ${project.id} AND p."packageType" = 'npm' AND p."name" = ${name} AND p."version" IS NOT NULL
        AND p."status" IN (${Prisma.join(INSTALLABLE)})
      ORDER BY p."id"`;
    if (!rows.length) throw notFound('Packages');
    const versions: Record<string, NpmVersion> = {};
    for (const row of rows) {
      const json = isObject(row.packageJson) ? row.packageJson : {};
      const version: NpmVersion = {};
      for (const field of ALLOWED_FIELDS) if (field in json) version[field] = json[field];
      version.name = name;
      version.version = row.version;
      version.dist = {
        shasum: row.fileSha1,
        tarball: `${app.config.externalUrl}/api/v4/projects/${project.id}/packages/npm/${name}/-/${row.fileName}`,
        ...(row.integrity ? { integrity: row.integrity } : {}),
      };
      for (const type of DEPENDENCY_TYPES) {
        const deps = json[type];
        if (isObject(deps) && Object.keys(deps).length) version[type] = deps;
      }
      versions[row.version] = version;
    }
    return { name, versions, 'dist-tags': await this.distTags(project.id, name, rows) };
  }

  /** GET …/-/package/:package_name/dist-tags. */
  async listTags(project: ProjectRow, name: string): Promise<Record<string, string>> {
    await this.authorizeRead(project);
    const packages = await this.installable(project, name);
    if (!packages.length) throw notFound();
    return this.distTags(project.id, name, packages);
  }

  /** The audit endpoints (`npm audit`): allowed to the project's package readers; nothing is forwarded. */
  async auditReport(project: ProjectRow): Promise<void> {
    await this.authorizeRead(project);
  }

  /** PUT …/dist-tags/:tag: the tag names this version now (Packages::Npm::CreateTagService). */
  async addTag(project: ProjectRow, name: string, tag: string, version: string): Promise<void> {
    if (!version) throw badRequest('400 Bad request - Version attribute is missing');
    if (!tag) throw badRequest('400 Bad request - Tag attribute is missing');
    await this.authorizeWrite(project, 'create_package');
    const pkg = await this.base.db.package.findFirst({
      where: { projectId: project.id, packageType: 'npm', name, version, status: { in: INSTALLABLE } },
      orderBy: { id: 'desc' },
    });
    if (!pkg) throw notFound('Package');
    await this.tag(this.base.db, pkg, tag);
  }

  private async tag(db: Prisma.TransactionClient, pkg: PackageRow, tag: string): Promise<void> {
    const key = { projectId: pkg.projectId, packageType: 'npm', packageName: pkg.name, name: tag };
    await db.packageTag.upsert({ where: { projectId_packageType_packageName_name: key }, create: { ...key, packageId: pkg.id }, update: { packageId: pkg.id } });
  }

  /** DELETE …/dist-tags/:tag (Maintainers, as GitLab's `destroy_package`). */
  async removeTag(project: ProjectRow, name: string, tag: string): Promise<void> {
    await this.authorizeWrite(project, 'destroy_package');
    const removed = await this.base.db.packageTag.deleteMany({ where: { projectId: project.id, packageType: 'npm', packageName: name, name: tag } });
    if (!removed.count) throw notFound('Package tag');
  }

  /** A tarball (GET …/packages/npm/:package_name/-/:file_name): the newest installable version with that file. */
  async tarball(project: ProjectRow, name: string, fileName: string): Promise<PackageDownload> {
    const { db, app } = this.base;
    await this.authorizeRead(project);
    const pkg = await db.package.findFirst({
      where: { projectId: project.id, packageType: 'npm', name, status: { in: INSTALLABLE }, files: { some: { fileName, status: 'default' } } },
      orderBy: { id: 'desc' },
    });
    if (!pkg) throw notFound('Package');
    const file = await db.packageFile.findFirst({ where: { packageId: pkg.id, fileName, status: 'default' }, orderBy: { id: 'desc' } });
    if (!file) throw notFound();
    await db.package.update({ where: { id: pkg.id }, data: { lastDownloadedAt: new Date() } });
    return { file, open: () => app.packages.read(file.fileSha256) };
  }

  /**
   * PUT …/packages/npm/:package_name (Packages::Npm::CreatePackageService): the body streams through; its tarball goes
   * to the store while the rest is kept, then the version is checked and recorded, `processing`, with its file,
   * package.json, dist-tag and the pipeline of a CI job's token, and its tarball queued for the check.
   */
  async publish(project: ProjectRow, pathName: string, body: Readable): Promise<PackageRow> {
    const { app } = this.base;
    await this.authorizeWrite(project, 'create_package');
    const limit = this.packages.maxFileSize('npm');
    const reader = publicationReader(body, MAX_METADATA);
    let stored: Awaited<ReturnType<typeof app.packages.write>> | null = null;
    try {
      stored = await app.packages.write(Readable.from(reader.tarball, { objectMode: false }), limit);
    } catch (error) {
      if (error instanceof PackageFileTooLarge) throw badRequest('File is too large.');
      if (error instanceof PublicationError) throw error.tooLarge ? payloadTooLarge() : badRequest(error.message);
      throw error;
    }
    try {
      return await this.record(project, pathName, stored, reader.result());
    } catch (error) {
      // Nothing names the bytes: they go (unless an earlier file has the same).
      await this.packages.release(stored);
      if (error instanceof PublicationError) throw badRequest(error.message);
      throw error;
    }
  }

  private async record(
    project: ProjectRow,
    pathName: string,
    stored: StoredPackageFile,
    read: { skeleton: unknown; attachment: string | null; sha512: Buffer | null },
  ): Promise<PackageRow> {
    const { db, app, viewer } = this.base;
    const body = read.skeleton;
    if (!isObject(body) || !isObject(body.versions)) throw missing('versions');
    const name = typeof body.name === 'string' ? body.name : pathName;
    const version = Object.keys(body.versions)[0];
    if (!version) throw badRequest('Version is empty.');
    const versionData = body.versions[version];
    const problems: string[] = [];
    if (!NAME.test(name)) problems.push('Name is invalid');
    if (!SEMVER.test(version)) problems.push('Version is invalid');
    if (problems.length) throw badRequest(`Validation failed: ${problems.join(', ')}`);
    const existing = await db.package.count({ where: { projectId: project.id, packageType: 'npm', name, version, status: { not: 'pending_destruction' } } });
    if (existing) throw refused('Package already exists.');
    const fileName = `${name}-${version}.tgz`;
    if (read.attachment !== fileName || !read.sha512) throw badRequest('Attachment not found');
    const tags = isObject(body['dist-tags']) ? Object.keys(body['dist-tags']) : [];
    const packageJson: Json = isObject(versionData) ? Object.fromEntries(Object.entries(versionData).filter(([k]) => !NOT_KEPT.includes(k))) : {};
    const pipelineId = viewer?.job?.pipelineId ?? null;
    const created = db.$transaction(async (tx) => {
      await this.packages.claimBytes(tx, stored);
      const pkg = await tx.package.create({ data: { projectId: project.id, packageType: 'npm', name, version, status: 'processing', creatorId: viewer?.id ?? null } });
      const file = await tx.packageFile.create({
        data: { packageId: pkg.id, fileName, size: BigInt(stored.size), fileMd5: stored.md5, fileSha1: stored.sha1, fileSha256: stored.sha256, pipelineId },
      });
      if (pipelineId !== null) await tx.packageBuildInfo.create({ data: { packageId: pkg.id, pipelineId } });
      await tx.packageNpmMetadatum.create({ data: { packageId: pkg.id, packageJson: packageJson as Prisma.InputJsonValue, integrity: `sha512-${read.sha512!.toString('base64')}` } });
      await this.tag(tx, pkg, tags[0] ?? 'latest');
      await app.jobs.enqueue(NPM_PROCESS_JOB, { packageFileId: file.id }, { uniqueKey: `${NPM_PROCESS_JOB}:${file.id}`, maxAttempts: 5 }, tx);
      return pkg;
    });
    try {
      return await created;
    } catch (error) {
      // A publication of the same version at the same moment met the partial unique index first.
      if (await db.package.count({ where: { projectId: project.id, packageType: 'npm', name, version, status: { not: 'pending_destruction' } } })) throw refused('Package already exists.');
      throw error;
    }
  }

  /**
   * `npm deprecate` (PUT …/packages/npm/:package_name with `Npm-Command: deprecate`; Maintainers, as GitLab's
   * `destroy_package`; Packages::Npm::DeprecatePackageService): each version of the body with a `deprecated` key gets
   * that message in its package.json and the status `deprecated`, or loses both when the message is empty.
   */
  async deprecate(project: ProjectRow, pathName: string, body: unknown): Promise<void> {
    const { db } = this.base;
    await this.authorizeWrite(project, 'destroy_package');
    if (!isObject(body) || !isObject(body.versions)) throw missing('versions');
    const name = typeof body.name === 'string' ? body.name : pathName;
    const wanted = new Map(Object.entries(body.versions).filter(([, v]) => isObject(v) && 'deprecated' in v).map(([version, v]) => [version, (v as Json).deprecated]));
    if (!wanted.size) return;
    const packages = await db.package.findMany({
      where: { projectId: project.id, packageType: 'npm', name, version: { in: [...wanted.keys()] }, status: { in: INSTALLABLE } },
      include: { npmMetadatum: true },
    });
    await db.$transaction(async (tx) => {
      for (const pkg of packages) {
        const message = wanted.get(pkg.version!);
        const text = typeof message === 'string' ? message : message == null ? '' : String(message);
        const json: Json = { ...(isObject(pkg.npmMetadatum?.packageJson) ? pkg.npmMetadatum.packageJson : {}) };
        if (text === (typeof json.deprecated === 'string' ? json.deprecated : '')) continue;
        if (text) json.deprecated = text;
        else delete json.deprecated;
        await tx.packageNpmMetadatum.updateMany({ where: { packageId: pkg.id }, data: { packageJson: json as Prisma.InputJsonValue } });
        await tx.package.update({ where: { id: pkg.id }, data: { status: text ? 'deprecated' : 'default' } });
      }
    });
  }

  /**
   * `packages.npm.process` (Packages::Npm::ProcessPackageFileService): the tarball's package.json must say the
   * published name, version and scripts; the version becomes installable, or `error` with GitLab's message.
   */
  async process(packageFileId: number): Promise<void> {
    const { db, app } = this.base;
    const file = await db.packageFile.findUnique({ where: { id: packageFileId }, include: { package: { include: { npmMetadatum: true } } } });
    if (!file) return;
    const pkg = file.package;
    if (pkg.packageType !== 'npm' || pkg.status !== 'processing') return;
    let message: string | null = null;
    try {
      if (!file.size) throw new TarballError('invalid package file');
      const text = await findPackageJson(app.packages.read(file.fileSha256));
      if (text === null) throw new TarballError('package.json not found');
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        throw new Error('Unexpected error: JSON::ParserError');
      }
      const published = isObject(pkg.npmMetadatum?.packageJson) ? pkg.npmMetadatum.packageJson : {};
      const coherent =
        isObject(json) && json.name === pkg.name && json.version === pkg.version && JSON.stringify(json.scripts ?? {}) === JSON.stringify(published.scripts ?? {});
      if (!coherent) throw new TarballError('Package manifest is not coherent');
    } catch (error) {
      message = error instanceof TarballError || (error instanceof Error && error.message.startsWith('Unexpected error')) ? error.message : 'Unexpected error: Zlib::GzipFile::Error';
    }
    await db.package.updateMany({ where: { id: pkg.id, status: 'processing' }, data: message === null ? { status: 'default' } : { status: 'error', statusMessage: message } });
  }
}
