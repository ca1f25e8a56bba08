/**
 * Which job a runner gets (GitLab's Ci::RegisterJobService over Ci::Queue::BuildQueueService): pending builds of the
 * projects the runner serves (every project for instance runners, the group's projects for group runners, the
 * enabled projects for project runners), whose tags are all among the runner's (untagged ones only if it runs
 * untagged jobs), oldest first (instance runners: projects with fewer jobs running on instance runners first, as
 * GitLab's fair scheduling), protected refs only for `ref_protected` runners. A job is claimed under its pipeline's
 * lock and only while still pending, so of two runners asking at once one gets it; the pipeline is then processed.
 */
import { digestToken, generateToken } from '../../auth/secrets.js';
import { withPipeline } from '../pipelines/processing.js';
import type { JobRow } from '../pipelines/service.js';
import { jobResponse, type JobResponse } from './payload.js';
import { keepPersistentRef, optionsOf, type ProtocolDeps, type Tx } from './protocol.js';
import { failAs } from './transitions.js';
import type { RunnerRow } from './service.js';

/** GitLab's MAX_QUEUE_DEPTH: the candidates looked at per request. */
const MAX_QUEUE_DEPTH = 45;
const JOB_TOKEN_PREFIX = 'glcbt-';

interface Candidate {
  id: number;
  pipelineId: number;
  projectId: number;
  ref: string;
  tag: boolean;
}

function candidates(deps: ProtocolDeps, runner: RunnerRow): Promise<Candidate[]> {
  return deps.db.$queryRaw<Candidate[]>`
    SELECT j."id", j."pipelineId", j."projectId", j."ref", j."tag"
    FROM "ci_builds" j
    WHERE j."status" = 'pending' AND j."type" = 'build'
      AND (
        ${runner.runnerType}::text = 'instance_type'
        OR (${runner.runnerType}::text = 'group_type' AND j."projectId" IN (
          SELECT p."id" FROM "projects" p JOIN "namespaces" n ON n."id" = p."namespaceId"
          WHERE ${runner.namespaceId ?? 0}::int = ANY(n."traversalIds")))
        OR (${runner.runnerType}::text = 'project_type' AND j."projectId" IN (
          SELECT rp."projectId" FROM "ci_runner_projects" rp WHERE rp."runnerId" = ${runner.id}))
      )
      AND j."tagList" <@ ${runner.tagList}::text[]
      AND (${runner.runUntagged}::boolean OR cardinality(j."tagList") > 0)
    ORDER BY
      CASE WHEN ${runner.runnerType}::text = 'instance_type' THEN (
        SELECT count(*) FROM "ci_builds" r JOIN "ci_runners" rr ON rr."id" = r."runnerId"
        WHERE r."projectId" = j."projectId" AND r."status" = 'running' AND rr."runnerType" = 'instance_type'
      ) ELSE 0 END,
      j."id"
    LIMIT ${MAX_QUEUE_DEPTH}`;
}

/** The jobs whose artifacts a job downloads (GitLab's Ci::BuildDependencies#local): earlier stages, or its needs; narrowed by `dependencies:`. */
export async function dependencyJobs(tx: Pick<Tx, 'ciJob'>, job: JobRow): Promise<JobRow[]> {
  const options = optionsOf(job);
  if (Array.isArray(options.dependencies) && options.dependencies.length === 0) return [];
  let jobs = await tx.ciJob.findMany({ where: { pipelineId: job.pipelineId, retried: false, type: 'build', id: { not: job.id } }, orderBy: { id: 'asc' } });
  if (job.schedulingType === 'dag') {
    const needed = new Set((options.needs ?? []).filter((n) => n.artifacts).map((n) => n.name));
    jobs = jobs.filter((j) => needed.has(j.name));
  } else {
    jobs = jobs.filter((j) => j.stageIdx < job.stageIdx);
  }
  if (options.dependencies?.length) jobs = jobs.filter((j) => options.dependencies?.includes(j.name));
  return jobs;
}

/** Claims the job for the runner when it is still pending: running, with a new token, its pipeline processed. */
async function claim(deps: ProtocolDeps, runner: RunnerRow, candidate: Candidate, token: string, now: Date): Promise<JobRow | null> {
  return withPipeline(deps.db, candidate.pipelineId, deps, async (tx) => {
    const job = await tx.ciJob.findUnique({ where: { id: candidate.id } });
    if (!job || job.status !== 'pending') return null;
    const pipeline = { id: job.pipelineId, projectId: job.projectId };
    // GitLab's pre-assign check: a blocked user's jobs fail instead of running.
    const user = job.userId === null ? null : await tx.user.findUnique({ where: { id: job.userId }, select: { state: true } });
    if (user?.state === 'blocked') {
      await deps.pipelines.setJobStatus(tx, pipeline, job.id, 'failed', { failureReason: 'user_blocked', finishedAt: now });
      return null;
    }
    await deps.pipelines.setJobStatus(tx, pipeline, job.id, 'running', {
      runner: { connect: { id: runner.id } },
      startedAt: now,
      heartbeatAt: now,
      tokenDigest: digestToken(token),
      traceHeld: null,
    });
    return { ...job, status: 'running', runnerId: runner.id, startedAt: now, heartbeatAt: now };
  });
}

async function refIsProtected(deps: ProtocolDeps, candidate: Candidate): Promise<boolean> {
  // Protected tags are not modelled by this server: tags are never protected refs.
  return !candidate.tag && deps.protectedBranches.anyProtected(candidate.projectId, [candidate.ref]);
}

/** The job response for a claimed job: everything it needs, loaded once. */
async function present(deps: ProtocolDeps, runner: RunnerRow, job: JobRow, token: string, now: Date): Promise<JobResponse> {
  const { db } = deps;
  const [pipeline, project] = await Promise.all([db.pipeline.findUniqueOrThrow({ where: { id: job.pipelineId } }), deps.projectOf(job.projectId)]);
  const user = job.userId === null ? null : await deps.userOf(job.userId);
  const commit = await (await deps.repositories.open(project)).commit(job.sha);
  const hasPersistentRef = await keepPersistentRef(deps, project, pipeline.id, job.sha);
  const protectedRef = !job.tag && (await deps.protectedBranches.anyProtected(project.id, [job.ref]));
  const pipelineVariables = await db.pipelineVariable.findMany({ where: { pipelineId: pipeline.id }, orderBy: { id: 'asc' }, select: { key: true, value: true, variableType: true } });
  const ciVariables = await deps.ciVariables(project, { protectedRef, environment: optionsOf(job).environment?.name ?? null });
  const dependencies = await dependencyJobs(db, job);
  const archives = await db.ciJobArtifact.findMany({ where: { jobId: { in: dependencies.map((d) => d.id) }, fileType: 'archive' } });
  const running =
    runner.runnerType === 'instance_type'
      ? await db.ciJob.count({ where: { projectId: project.id, status: 'running', runner: { runnerType: 'instance_type' } } })
      : null;
  return jobResponse({
    config: deps.app.config,
    job,
    token,
    pipeline,
    project,
    runner,
    user: user && { id: user.id, username: user.username, name: user.name, email: user.email },
    commit,
    protectedRef,
    persistentRef: hasPersistentRef,
    pipelineVariables,
    ciVariables,
    dependencies: dependencies.map((d) => {
      const archive = archives.find((a) => a.jobId === d.id && (a.expireAt === null || a.expireAt > now));
      return { id: d.id, name: d.name, archive: archive ? { filename: archive.fileName, size: archive.size } : null };
    }),
    runningOnInstanceRunners: running,
    now,
  });
}

/** The first job of the runner's queue it can claim, presented; null when there is none. */
export async function claimJob(deps: ProtocolDeps, runner: RunnerRow): Promise<JobResponse | null> {
  for (const candidate of await candidates(deps, runner)) {
    if (runner.accessLevel === 'ref_protected' && !(await refIsProtected(deps, candidate))) continue;
    const token = generateToken(JOB_TOKEN_PREFIX);
    const now = new Date();
    const job = await claim(deps, runner, candidate, token, now);
    if (!job) continue;
    try {
      return await present(deps, runner, job, token, now);
    } catch (error) {
      // GitLab's scheduler_failure!: a job that cannot be presented fails (and is retried twice), the next one is tried.
      deps.app.logger.error({ err: (error as Error).message, job: job.id }, 'presenting a job to its runner failed');
      await failAs(deps, { id: job.id, pipelineId: job.pipelineId, status: 'running' }, 'scheduler_failure', new Date());
    }
  }
  return null;
}
