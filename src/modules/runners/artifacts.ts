/**
 * Job artifacts (GitLab's Ci::JobArtifacts::CreateService and friends): a running job uploads each kind once,
 * streamed to the artifact storage within the size limit and hashed, in the one format its type has; a `junit` report
 * (gzip, one member per file) is parsed into the artifact's report as well, and a `dotenv` report into the job's
 * dotenv variables (refused, and not kept, when GitLab could not read it). Archives are downloaded until they expire, unless kept: with the
 * project's keep_latest_artifact (on by default), the artifacts of each ref's latest successful pipeline, and of the
 * pipelines after it, outlive their expiry (GitLab locks a pipeline's artifacts until a newer pipeline of its ref
 * succeeds); Maintainers delete them.
 */
import type { ReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { ArtifactTooLarge, type ArtifactStorage } from '../../ci/artifact-storage.js';
import { parseDuration } from '../../ci/config/index.js';
import { ARTIFACT_FORMATS, ARTIFACT_TYPES, TYPE_AND_FORMAT } from '../../ci/artifact-types.js';
import { DotenvError, parseDotenv } from '../../ci/dotenv.js';
import { parseJunit } from '../../ci/junit.js';
import type { PrismaClient } from '../../db/database.js';
import { badRequest, invalidArgument, notFound, payloadTooLarge } from '../../errors.js';
import type { JobRow } from '../pipelines/service.js';
import type { ProtocolDeps } from './protocol.js';

/** GitLab's default `default_artifacts_expire_in`. */
const DEFAULT_EXPIRE_IN = '30 days';

export interface ArtifactUpload {
  type: string;
  format: string;
  /** `expire_in` as the runner sends it (`1 week`, `never`); GitLab's default when absent. */
  expireIn: string | null;
  /** The uploaded file's name. */
  fileName: string;
}

export interface Download {
  fileName: string;
  size: number;
  format: string;
  /** Where it is kept in the artifact storage. */
  path: string;
  open(): ReadStream;
}

/** One file of a job's archive, found and ready to stream. */
export interface ArtifactFile {
  /** Its path in the archive. */
  name: string;
  size: number;
  open(): Readable;
  close(): void;
}

/** When an artifact uploaded now expires: never for `never` or what GitLab's ChronicDuration cannot read. */
function expiry(expireIn: string | null, now: Date): Date | null {
  const seconds = parseDuration(expireIn ?? DEFAULT_EXPIRE_IN);
  return seconds === null ? null : new Date(now.getTime() + seconds * 1000);
}

export async function storeArtifact(deps: ProtocolDeps, job: JobRow, upload: ArtifactUpload, file: Readable): Promise<void> {
  if (!ARTIFACT_TYPES.includes(upload.type)) throw invalidArgument('artifactType');
  if (!(ARTIFACT_FORMATS as readonly string[]).includes(upload.format)) throw invalidArgument('artifactFormat');
  // Ci::JobArtifact#validate_file_format!: each type has one format.
  if (TYPE_AND_FORMAT[upload.type] !== upload.format) throw badRequest('Invalid file format with specified file type');
  const { db, app } = deps;
  const stored = await app.artifacts.write(job.projectId, job.id, upload.type, file, app.config.ciMaxArtifactSize).catch((error: unknown) => {
    throw error instanceof ArtifactTooLarge ? payloadTooLarge() : error;
  });
  // A second upload of a kind succeeds when it is the same file (a runner retrying: CreateService's
  // sha256_matches_existing_artifact?) and is refused otherwise; either way its copy goes.
  const settleDuplicate = async (): Promise<boolean> => {
    const existing = await db.ciJobArtifact.findUnique({ where: { jobId_fileType: { jobId: job.id, fileType: upload.type } }, select: { fileSha256: true } });
    if (!existing) return false;
    await app.artifacts.remove([stored.path]);
    if (existing.fileSha256 === stored.sha256) return true;
    throw badRequest('another artifact of the same type already exists');
  };
  if (await settleDuplicate()) return;
  const report = upload.type === 'junit' ? await parseJunit(await app.artifacts.bytes(stored.path), job.name) : null;
  // Ci::JobArtifacts::CreateService#parse_artifact: a dotenv report that GitLab cannot read is refused, not kept.
  let dotenv: { key: string; value: string }[] | null = null;
  if (upload.type === 'dotenv') {
    try {
      dotenv = parseDotenv(await app.artifacts.bytes(stored.path));
    } catch (error) {
      await app.artifacts.remove([stored.path]);
      throw error instanceof DotenvError ? badRequest(error.message) : error;
    }
  }
  const created = await db.ciJobArtifact
    .createMany({
      data: [
        {
          jobId: job.id,
          projectId: job.projectId,
          fileType: upload.type,
          fileFormat: upload.format,
          fileName: upload.fileName,
          size: stored.size,
          fileSha256: stored.sha256,
          path: stored.path,
          expireAt: expiry(upload.expireIn, new Date()),
          ...(report ? { report: report as object } : {}),
        },
      ],
      skipDuplicates: true,
    })
    .then((result) => result.count);
  // Two uploads of one kind at once: the one that lost is settled as a later one would be.
  if (created === 0 && !(await settleDuplicate())) {
    await app.artifacts.remove([stored.path]);
    throw badRequest('another artifact of the same type already exists');
  }
  // GitLab's Ci::JobVariable rows of source dotenv: the job's dependants read them (dependency variables).
  if (dotenv) await db.ciJob.update({ where: { id: job.id }, data: { dotenvVariables: dotenv } });
}

/** The job's archive while it lasts: `404 Not Found` when it has none, or it expired and is not kept. */
export async function downloadableArchive(db: PrismaClient, storage: ArtifactStorage, job: JobRow, keptPastExpiry: (jobId: number) => Promise<boolean>): Promise<Download> {
  const archive = await db.ciJobArtifact.findUnique({ where: { jobId_fileType: { jobId: job.id, fileType: 'archive' } } });
  const expired = archive?.expireAt != null && archive.expireAt <= new Date();
  if (!archive || (expired && !(await keptPastExpiry(job.id))) || !(await storage.exists(archive.path))) throw notFound();
  return { fileName: archive.fileName, size: archive.size, format: archive.fileFormat, path: archive.path, open: () => storage.read(archive.path) };
}

/**
 * One file of an archive (GitLab Workhorse's artifacts-entry, which reads the zip's central directory and inflates
 * that member alone): null when the archive has none by that exact name, or cannot be read as a zip. A path with a
 * NUL byte, or a `..` segment, is `400 Bad request` (GitLab's Artifacts::Path#valid?, and no way out of the archive).
 */
export async function archiveFile(storage: ArtifactStorage, archive: Download, name: string): Promise<ArtifactFile | null> {
  if (name.includes('\0') || name.split('/').includes('..')) throw badRequest('400 Bad request');
  const member = await storage.member(archive.path, name).catch(() => null);
  return member && { name, size: member.size, open: () => member.open(), close: () => member.close() };
}

/** Deletes every artifact of the job, files and rows; how many there were. */
export async function deleteJobArtifacts(db: PrismaClient, storage: ArtifactStorage, jobId: number): Promise<number> {
  const rows = await db.ciJobArtifact.findMany({ where: { jobId }, select: { id: true, path: true } });
  await db.ciJobArtifact.deleteMany({ where: { id: { in: rows.map((r) => r.id) } } });
  await storage.remove(rows.map((r) => r.path));
  return rows.length;
}

/** Removes the artifacts `rows` names, files and rows (the expired ones RunnersService.removeExpiredArtifacts picks); how many. */
export async function removeArtifacts(db: PrismaClient, storage: ArtifactStorage, rows: readonly { id: number; path: string }[]): Promise<number> {
  await db.ciJobArtifact.deleteMany({ where: { id: { in: rows.map((r) => r.id) } } });
  await storage.remove(rows.map((r) => r.path));
  return rows.length;
}
