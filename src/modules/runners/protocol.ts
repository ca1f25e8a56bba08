/**
 * What the runner protocol's steps share: their dependencies (the runners service hands them over), a job found by
 * the token a runner works on it with (GitLab's authenticate_job!), and the values its log must never show.
 */
import { digestToken } from '../../auth/secrets.js';
import type { JobCiVariable } from '../../ci/variables.js';
import type { ArtifactsAccess, PlannedReports } from '../../ci/config/types.js';
import type { PlannedRelease } from '../../ci/config/release-entry.js';
import type { App } from '../../context.js';
import type { Prisma, PrismaClient } from '../../db/database.js';
import { forbidden, jobForbidden } from '../../errors.js';
import { ZERO_SHA } from '../../git/repository.js';
import { isCompleted } from '../pipelines/status.js';
import type { PipelinesService, JobRow } from '../pipelines/service.js';
import type { ProjectRow } from '../projects/service.js';
import type { ProtectedBranchesService } from '../protected_branches/service.js';
import type { RepositoriesService } from '../repositories/service.js';
import type { UserRow } from '../users/service.js';

export type Tx = Prisma.TransactionClient;

export interface ProtocolDeps {
  /** The write lane's client. */
  db: PrismaClient;
  /** The client of the lane the request came on: a job request reads on the read lane all but what it claims. */
  readDb: PrismaClient;
  app: App;
  publish(topic: string, payload: unknown, tx?: Tx): Promise<void>;
  pipelines: PipelinesService;
  repositories: RepositoriesService;
  protectedBranches: ProtectedBranchesService;
  /** A project by ID, whoever asks (runners act for no user). */
  projectOf(id: number): Promise<ProjectRow>;
  userOf(id: number): Promise<UserRow | null>;
  /** The job's CI/CD variables of the instance, its groups and its project (none until that module is wired). */
  ciVariables(project: ProjectRow, options: { protectedRef: boolean; environment: string | null }): Promise<JobCiVariable[]>;
}

/** `artifacts:reports` as stored: [type, paths] pairs in the configuration's order (jobs stored before: an object). */
export type StoredReports = [string, PlannedReports[string]][] | PlannedReports;

/** A job's options as the pipelines module stores them (create.ts `jobOptions`), in the names the protocol uses. */
export interface JobOptions {
  script?: string[];
  before_script?: string[];
  after_script?: string[];
  image?: { name: string; entrypoint?: string[] } | null;
  services?: { name: string; alias?: string; entrypoint?: string[]; command?: string[] }[];
  artifacts?: { name?: string; paths: string[]; exclude: string[]; untracked: boolean; when: string; expireIn?: string; exposeAs?: string; access?: ArtifactsAccess; reports: StoredReports } | null;
  /** `cache:` with resolved keys (pipelines/cache.ts StoredCache). */
  cache?: { key: string; paths: string[]; untracked: boolean; policy: string; when: string; unprotect: boolean; fallback_keys: string[] }[];
  dependencies?: string[] | null;
  needs?: { name: string; artifacts: boolean; optional: boolean }[];
  coverage?: string | null;
  retry?: { max: number; when: string[]; exitCodes: number[] };
  allow_failure_exit_codes?: number[] | null;
  /** As the environments module stores it once the pipeline is created (StoredEnvironment). */
  environment?: { name: string; action?: string; slug?: string; url?: string; tier?: string } | null;
  /** `release:` as the config engine validated it, asset links as [key, value] pairs (create.ts `jobOptions`). */
  release?: StoredRelease | null;
  /** `id_tokens:` as [name, { aud }] pairs, in the configuration's order. */
  id_tokens?: [string, { aud: string | string[] }][] | null;
  hooks?: { pre_get_sources_script?: string[] } | null;
  /** `secrets:` as [variable, provider settings] pairs, in the configuration's order. */
  secrets?: [string, Record<string, unknown>][] | null;
  manual_confirmation?: string | null;
  pages?: boolean | { path_prefix?: string; expire_in?: string; publish?: string } | null;
  publish?: string | null;
  identity?: string | null;
  dast_configuration?: { site_profile?: string; scanner_profile?: string } | null;
}

/** The config engine's `release:` as stored: its asset links as [key, value] pairs, in the order written. */
export type StoredRelease = Omit<PlannedRelease, 'assets'> & { assets?: { links?: [string, unknown][][] } };

export function optionsOf(job: Pick<JobRow, 'options'>): JobOptions {
  return (job.options ?? {}) as JobOptions;
}

/** A runner's contact (and what it reports about itself) is written at most this often, so polling stays a read. */
export const CONTACT_RESOLUTION_MS = 60_000;

/** GitLab's project build timeout (an hour) for jobs without their own; a runner's maximum timeout caps either. */
export const DEFAULT_JOB_TIMEOUT = 3600;

export function effectiveTimeout(job: Pick<JobRow, 'timeout'>, runner: { maximumTimeout: number | null } | null, projectTimeout = DEFAULT_JOB_TIMEOUT): number {
  const own = job.timeout ?? projectTimeout;
  return runner?.maximumTimeout ? Math.min(own, runner.maximumTimeout) : own;
}

/**
 * The job a runner works on with `token`: `403 Forbidden` for an unknown job or a wrong token; for a job that is no
 * longer running, `403 Forbidden - Job is not running` with its status in `Job-Status`, so the runner stops (a job's
 * token is cleared when it ends, so a stopped job answers this to whichever token asks).
 */
export async function jobByToken(db: PrismaClient, jobId: number, token: unknown): Promise<JobRow> {
  const job = await db.ciJob.findUnique({ where: { id: jobId } });
  if (!job || job.type !== 'build') throw forbidden();
  const digest = typeof token === 'string' && token !== '' ? digestToken(token) : null;
  if (job.status !== 'running' && job.tokenDigest === null && digest !== null) throw jobForbidden(job.status, 'Job is not running');
  if (digest === null || job.tokenDigest !== digest) throw forbidden();
  if (job.status !== 'running') throw jobForbidden(job.status, 'Job is not running');
  return job;
}

/** Values the job's log must not show: its token, and its masked CI/CD variables. */
export async function maskedValues(deps: ProtocolDeps, job: JobRow, token: string): Promise<string[]> {
  const project = await deps.projectOf(job.projectId);
  const protectedRef = !job.tag && (await deps.protectedBranches.anyProtected(project.id, [job.ref]));
  const variables = await deps.ciVariables(project, { protectedRef, environment: optionsOf(job).environment?.name ?? null });
  return [token, ...variables.filter((v) => v.masked).map((v) => v.value)];
}

/** GitLab's persistent ref of a pipeline: its commit stays fetchable while it runs, whatever its branch does. */
export const persistentRef = (pipelineId: number) => `refs/pipelines/${pipelineId}`;

/** Persistent refs being made, by pipeline: the runners that take a new pipeline's jobs at once share one git run. */
const makingPersistentRefs = new Map<number, Promise<boolean>>();

/**
 * Creates the pipeline's persistent ref at `sha` unless it is there; whether it is there now. The pipeline row
 * remembers that it was made, so that only the first job handed out of a pipeline runs git for it.
 */
export async function keepPersistentRef(deps: ProtocolDeps, project: ProjectRow, pipeline: { id: number; persistentRef: boolean }, sha: string): Promise<boolean> {
  if (pipeline.persistentRef) return true;
  let making = makingPersistentRefs.get(pipeline.id);
  if (!making) {
    making = (async () => {
      const repository = await deps.repositories.open(project);
      const kept = (await repository.resolve(persistentRef(pipeline.id))) !== null || (await repository.updateRef(persistentRef(pipeline.id), sha, ZERO_SHA));
      if (kept) await setPersistentRef(deps.db, pipeline.id, true);
      return kept;
    })().finally(() => makingPersistentRefs.delete(pipeline.id));
    makingPersistentRefs.set(pipeline.id, making);
  }
  return making;
}

/** Records whether the persistent ref exists; a raw write, as the pipeline itself (its updated_at) did not change. */
async function setPersistentRef(db: PrismaClient, pipelineId: number, exists: boolean): Promise<void> {
  await db.$executeRaw`UPDATE "ci_pipelines" SET "persistentRef" = ${exists} WHERE "id" = ${pipelineId}`;
}

/** Removes the pipeline's persistent ref once the pipeline completed (GitLab's Ci::PipelineCleanupRefWorker). */
export async function releasePersistentRef(deps: ProtocolDeps, pipelineId: number): Promise<void> {
  const pipeline = await deps.db.pipeline.findUnique({ where: { id: pipelineId }, select: { status: true, projectId: true, persistentRef: true } });
  if (!pipeline || !isCompleted(pipeline.status)) return;
  const repository = await deps.repositories.open(await deps.projectOf(pipeline.projectId));
  const sha = await repository.resolve(persistentRef(pipelineId));
  if (sha) await repository.updateRef(persistentRef(pipelineId), ZERO_SHA, sha);
  if (pipeline.persistentRef) await setPersistentRef(deps.db, pipelineId, false);
}
