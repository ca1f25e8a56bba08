/**
 * Which job a runner gets (GitLab's Ci::RegisterJobService over Ci::Queue::BuildQueueService): pending builds of the
 * projects the runner serves (for instance runners every project whose shared runners are enabled, the group's
 * projects for group runners, the enabled projects for project runners), whose tags are all among the runner's (untagged ones only if it runs
 * untagged jobs), oldest first (instance runners: projects with fewer jobs running on instance runners first, as
 * GitLab's fair scheduling), protected refs only for `ref_protected` runners.
 *
 * The job row itself is claimed, pending to running, by one conditional UPDATE that takes the first of the
 * runner's candidates still pending and skips rows another runner is claiming at that moment (SKIP LOCKED): runners
 * asking at once take different jobs without waiting on each other or on the pipeline's lock, and a job moves to
 * running once (published in the same transaction). Its pipeline is processed afterwards, under its lock.
 */
import { digestToken, generateToken } from '../../auth/secrets.js';
import { JOB_UPDATED, processStartedJob, withPipeline, type JobUpdatedMessage } from '../pipelines/processing.js';
import type { JobRow } from '../pipelines/service.js';
import { dependencyJobs, dotenvVariables } from '../pipelines/dependencies.js';
import { mergeRequestFacts } from '../pipelines/merge_request_facts.js';
import { jobResponse, jobVariables, secretsProviderFound, type IdTokenFacts, type JobFacts, type JobResponse } from './payload.js';
import { ciSigningKey } from '../../ci/id-tokens.js';
import { userViewer } from '../../auth/viewer.js';
import { humanProjectAccess, projectSubject } from '../../auth/rules.js';
import type { ProjectRow } from '../projects/service.js';
import { keepPersistentRef, optionsOf, type ProtocolDeps } from './protocol.js';
import { failAs } from './transitions.js';
import type { RunnerRow } from './service.js';
import { enqueueHookEvent } from '../hooks/events.js';
import { followJob } from '../environments/ci.js';

/** GitLab's MAX_QUEUE_DEPTH: the candidates looked at per request. */
const MAX_QUEUE_DEPTH = 45;
const JOB_TOKEN_PREFIX = 'glcbt-';

interface Candidate {
  id: number;
  pipelineId: number;
  projectId: number;
  ref: string;
  tag: boolean;
  /** Whether the job's user is blocked: such a job fails instead of running (GitLab's pre-assign check). */
  userBlocked: boolean;
  /** Whether the job declares `secrets:` (checked for a provider before it is handed out). */
  hasSecrets: boolean;
}

function candidates(deps: ProtocolDeps, runner: RunnerRow): Promise<Candidate[]> {
  return deps.readDb.$queryRaw<Candidate[]>`
    SELECT j."id", j."pipelineId", j."projectId", j."ref", j."tag", COALESCE(u."state" = 'blocked', false) AS "userBlocked",
      (j."options" -> 'secrets') IS NOT NULL AS "hasSecrets"
    FROM "ci_builds" j LEFT JOIN "users" u ON u."id" = j."userId"
    WHERE j."status" = 'pending' AND j."type" = 'build'
      AND (
        (${runner.runnerType}::text = 'instance_type' AND EXISTS (
          SELECT 1 FROM "projects" p WHERE p."id" = j."projectId" AND p."sharedRunnersEnabled"))
        OR (${runner.runnerType}::text = 'group_type' AND j."projectId" IN (
          SELECT p."id" FROM "projects" p JOIN "namespaces" n ON n."id" = p."namespaceId"
          WHERE ${runner.namespaceId ?? 0}::int = ANY(n."traversalIds") AND p."groupRunnersEnabled"))
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

/**
 * Takes the first of `ids` (in their order) that is still pending and that no other runner is claiming right now,
 * moving it to running for the runner and publishing that, in one short transaction that waits on no other
 * runner and on no pipeline lock; null when none is left. Its pipeline is processed after (processStartedJob).
 */
async function claimFirst(deps: ProtocolDeps, runner: RunnerRow, ids: number[], digest: string, now: Date): Promise<{ id: number; pipelineId: number } | null> {
  const claimed = await deps.db.$transaction(async (tx) => {
    const [job] = await tx.$queryRaw<{ id: number; pipelineId: number; projectId: number; options: unknown }[]>`
      UPDATE "ci_builds" SET "status" = 'running', "runnerId" = ${runner.id}, "startedAt" = ${now}, "heartbeatAt" = ${now},
        "tokenDigest" = ${digest}, "traceHeld" = NULL, "updatedAt" = ${now}
      WHERE "id" = (
        SELECT "id" FROM "ci_builds" WHERE "id" = ANY(${ids}::int[]) AND "status" = 'pending'
        ORDER BY array_position(${ids}::int[], "id") LIMIT 1 FOR UPDATE SKIP LOCKED
      ) AND "status" = 'pending'
      RETURNING "id", "pipelineId", "projectId", "options"`;
    if (!job) return null;
    await followJob(tx, deps, job, 'running', now);
    await deps.publish(JOB_UPDATED, { jobId: job.id, pipelineId: job.pipelineId, projectId: job.projectId, status: 'running' } satisfies JobUpdatedMessage, tx);
    await enqueueHookEvent(deps.app.jobs, { trigger: 'job_hooks', projectId: job.projectId, branch: null, data: null, job: { jobId: job.id, status: 'running' } }, tx);
    return job;
  });
  // The start's webhook event exists now that the transaction committed.
  if (claimed) deps.app.jobs.wake();
  return claimed;
}

/** GitLab's pre-assign check: a pending job of a blocked user fails instead of running. */
async function failBlocked(deps: ProtocolDeps, candidate: Candidate, now: Date): Promise<void> {
  await withPipeline(deps.db, candidate.pipelineId, deps, async (tx) => {
    const job = await tx.ciJob.findUnique({ where: { id: candidate.id }, select: { status: true, user: { select: { state: true } } } });
    if (job?.status !== 'pending' || job.user?.state !== 'blocked') return;
    await deps.pipelines.setJobStatus(tx, { id: candidate.pipelineId, projectId: candidate.projectId }, candidate.id, 'failed', { failureReason: 'user_blocked', finishedAt: now });
  });
}

/**
 * GitLab's pre-assign check secrets_provider_not_found: a pending job with `secrets:` and no provider configured
 * for them (their variables absent from the job's variables) fails instead of running. True when it failed.
 */
async function failWithoutSecretsProvider(deps: ProtocolDeps, runner: RunnerRow, candidate: Candidate, now: Date): Promise<boolean> {
  const job = await deps.readDb.ciJob.findUnique({ where: { id: candidate.id } });
  if (!job || job.status !== 'pending') return false;
  const secrets = optionsOf(job).secrets ?? [];
  if (!secrets.length || secretsProviderFound(secrets, jobVariables(await jobFacts(deps, runner, job, '', now, { persistentRef: false })))) return false;
  let failed = false;
  await withPipeline(deps.db, candidate.pipelineId, deps, async (tx) => {
    const current = await tx.ciJob.findUnique({ where: { id: candidate.id }, select: { status: true } });
    if (current?.status !== 'pending') return;
    await deps.pipelines.setJobStatus(tx, { id: candidate.pipelineId, projectId: candidate.projectId }, candidate.id, 'failed', { failureReason: 'secrets_provider_not_found', finishedAt: now });
    failed = true;
  });
  return failed;
}

async function refIsProtected(deps: ProtocolDeps, candidate: Candidate): Promise<boolean> {
  // Protected tags are not modelled by this server: tags are never protected refs.
  return !candidate.tag && deps.protectedBranches.anyProtected(candidate.projectId, [candidate.ref]);
}

/** The job response for a claimed job: everything it needs, loaded once, the independent reads at once. */
async function present(deps: ProtocolDeps, runner: RunnerRow, job: JobRow, token: string, now: Date): Promise<JobResponse> {
  return jobResponse(await jobFacts(deps, runner, job, token, now));
}

/**
 * What presenting a job reads. `persistentRef: false` is for checks made before a job is claimed: they make no
 * persistent ref and sign no ID token.
 */
async function jobFacts(deps: ProtocolDeps, runner: RunnerRow, job: JobRow, token: string, now: Date, check?: { persistentRef: false }): Promise<JobFacts> {
  const db = deps.readDb;
  const [pipeline, project, user, protectedRef, pipelineVariables, dependencies, running, jobVariables] = await Promise.all([
    db.pipeline.findUniqueOrThrow({ where: { id: job.pipelineId } }),
    deps.projectOf(job.projectId),
    job.userId === null ? null : deps.userOf(job.userId),
    !job.tag && deps.protectedBranches.anyProtected(job.projectId, [job.ref]),
    db.pipelineVariable.findMany({ where: { pipelineId: job.pipelineId }, orderBy: { id: 'asc' }, select: { key: true, value: true, variableType: true } }),
    dependencyJobs(db, job),
    runner.runnerType === 'instance_type' ? db.ciJob.count({ where: { projectId: job.projectId, status: 'running', runner: { runnerType: 'instance_type' } } }) : null,
    db.ciJobVariable.findMany({ where: { jobId: job.id }, orderBy: { id: 'asc' }, select: { key: true, value: true } }),
  ]);
  const [commit, hasPersistentRef, ciVariables, archives, mergeRequest] = await Promise.all([
    deps.repositories.open(project).then((repository) => repository.commit(job.sha)),
    check ? false : keepPersistentRef(deps, project, pipeline, job.sha),
    deps.ciVariables(project, { protectedRef, environment: optionsOf(job).environment?.name ?? null }),
    dependencies.length ? db.ciJobArtifact.findMany({ where: { jobId: { in: dependencies.map((d) => d.id) }, fileType: 'archive' } }) : [],
    mergeRequestFacts(db, deps.protectedBranches, pipeline.mergeRequestId),
  ]);
  const idTokens = !check && optionsOf(job).id_tokens?.length ? await idTokenFacts(deps, project, job.userId) : null;
  return {
    config: deps.app.config,
    job,
    token,
    pipeline,
    project,
    runner,
    user: user && { id: user.id, username: user.username, name: user.name, email: user.email },
    commit,
    protectedRef,
    mergeRequest,
    persistentRef: hasPersistentRef,
    pipelineVariables,
    jobVariables,
    ciVariables,
    dependencies: dependencies.map((d) => {
      const archive = archives.find((a) => a.jobId === d.id && (a.expireAt === null || a.expireAt > now));
      return { id: d.id, name: d.name, archive: archive ? { filename: archive.fileName, size: archive.size } : null, dotenv: dotenvVariables([d]) };
    }),
    runningOnInstanceRunners: running,
    idTokens,
    now,
  };
}

/** The signing key, and the job's user's level in the project (GitLab's human_max_access), for its ID tokens. */
async function idTokenFacts(deps: ProtocolDeps, project: ProjectRow, userId: number | null): Promise<IdTokenFacts> {
  const [signing, viewer] = await Promise.all([ciSigningKey(deps.db), userId === null ? null : userViewer(deps.readDb, userId)]);
  if (!viewer) return { signing, userAccessLevel: null };
  return { signing, userAccessLevel: humanProjectAccess({ viewer, memberships: await deps.app.memberships.of(viewer.id) }, projectSubject(project)) };
}

/** The first job of the runner's queue it can claim, presented; null when there is none. */
export async function claimJob(deps: ProtocolDeps, runner: RunnerRow): Promise<JobResponse | null> {
  const queue: Candidate[] = [];
  for (const candidate of await candidates(deps, runner)) {
    if (runner.accessLevel === 'ref_protected' && !(await refIsProtected(deps, candidate))) continue;
    if (candidate.hasSecrets && !candidate.userBlocked && (await failWithoutSecretsProvider(deps, runner, candidate, new Date()))) continue;
    queue.push(candidate);
  }
  // The queue in order: a blocked user's job is failed where it stands; the run of jobs up to the next such one is
  // claimed in one statement (again after a job that could not be presented failed, so the next one is tried).
  for (let from = 0; from < queue.length; ) {
    if (queue[from].userBlocked) {
      await failBlocked(deps, queue[from], new Date());
      from += 1;
      continue;
    }
    let to = from;
    while (to < queue.length && !queue[to].userBlocked) to += 1;
    const token = generateToken(JOB_TOKEN_PREFIX);
    const digest = digestToken(token);
    const now = new Date();
    const claimed = await claimFirst(deps, runner, queue.slice(from, to).map((c) => c.id), digest, now);
    if (!claimed) {
      from = to;
      continue;
    }
    await processStartedJob({ write: deps.db, read: deps.readDb }, claimed.pipelineId, deps);
    // The row as it is now: a cancel may have come since (the runner then learns it at its first update).
    const job = await deps.readDb.ciJob.findUnique({ where: { id: claimed.id } });
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
