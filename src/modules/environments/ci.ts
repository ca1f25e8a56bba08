/**
 * Where CI meets environments (GitLab's Gitlab::Ci::Pipeline::Seed::Environment and Seed::Deployment, and
 * Deployment#sync_status_with with Deployments::UpdateEnvironmentService): the pipelines and runners modules call
 * these two functions inside their own transactions.
 *
 * - `prepareDeployments`, when a pipeline is created (or a job retried): each job naming an `environment:` has its
 *   name and url expanded, its environment found or created, and, when it starts the environment, a deployment in
 *   `created`; the job's stored `environment` then carries what its runner payload shows (slug, tier, url).
 * - `followJob`, when a job's status changes: its deployment follows (running, success, failed, canceled, skipped);
 *   a successful deployment makes the environment available with its url, tier and `auto_stop_in`; a successful
 *   `action: stop` job stops the environment, a failed one gives a stopping environment back.
 */
import type { Prisma } from '../../db/database.js';
import type { JobEnvironment } from '../../ci/config/types.js';
import { expandVariables } from '../../ci/config/variables.js';
import { parseDuration } from '../../ci/config/durations.js';
import type { ProcessingEffects } from '../pipelines/processing.js';
import { dropOlderLater } from './forward.js';
import { deploymentHookEvent } from './hooks.js';
import { deploymentMayMove, deploymentStatusOf, environmentSlug, FINISHED_STATUSES, guessTier, nameErrors } from './rules.js';

type Tx = Prisma.TransactionClient;

/** Bus topic: a deployment's status changed, or an environment's state. */
export const DEPLOYMENT_UPDATED = 'environments.deployment.updated';
export interface DeploymentUpdatedMessage {
  deploymentId: number;
  environmentId: number;
  projectId: number;
  status: string;
}

/** A job's `environment:` as pipeline creation stores it in the job's options; `slug` and `tier` once prepared. */
export interface StoredEnvironment extends JobEnvironment {
  slug?: string;
  tier?: string;
}

export function environmentOf(options: unknown): StoredEnvironment | null {
  const env = (options as { environment?: StoredEnvironment | null } | null)?.environment;
  return env && typeof env.name === 'string' ? env : null;
}

/** The next deployment number of a project (callers hold the project's row lock, as pipeline creation does). */
export async function nextDeploymentIid(tx: Tx, projectId: number): Promise<number> {
  const { _max } = await tx.deployment.aggregate({ where: { projectId }, _max: { iid: true } });
  return (_max.iid ?? 0) + 1;
}

/** Finds or creates the project's environment of that name (the tier guessed from the name unless given). */
export async function ensureEnvironment(tx: Tx, projectId: number, name: string, tier: string | null) {
  const found = await tx.environment.findUnique({ where: { projectId_name: { projectId, name } } });
  if (found) return found;
  const rows = await tx.$queryRaw<{ id: number }[]>`
    INSERT INTO "environments" ("projectId", "name", "slug", "tier", "updatedAt")
    VALUES (${projectId}, ${name}, ${environmentSlug(name)}, ${tier ?? guessTier(name)}, now())
    ON CONFLICT ("projectId", "name") DO NOTHING RETURNING "id"`;
  return rows.length ? tx.environment.findUniqueOrThrow({ where: { id: rows[0].id } }) : tx.environment.findUniqueOrThrow({ where: { projectId_name: { projectId, name } } });
}

/**
 * Prepares the environments and deployments of a pipeline's jobs not prepared yet; `variables` are those the
 * configuration was read with (the job's own `variables:` are added), which expand `name` and `url`.
 */
export async function prepareDeployments(tx: Tx, pipelineId: number, variables: Readonly<Record<string, string>>): Promise<void> {
  const jobs = await tx.ciJob.findMany({
    where: { pipelineId, retried: false, type: 'build', status: { in: ['created', 'manual', 'scheduled', 'pending'] } },
    select: { id: true, projectId: true, options: true, yamlVariables: true, ref: true, tag: true, sha: true, userId: true },
    orderBy: { id: 'asc' },
  });
  for (const job of jobs) {
    const env = environmentOf(job.options);
    if (!env || env.slug !== undefined) continue;
    const own = Object.fromEntries(((job.yamlVariables ?? []) as { key: string; value: string }[]).map((v) => [v.key, v.value]));
    const scope = { ...variables, ...own };
    const name = expandVariables(env.name, scope, false).trim();
    if (nameErrors(name).length) {
      // GitLab drops a job whose environment cannot be created (environment_creation_failure).
      await tx.ciJob.update({ where: { id: job.id }, data: { status: 'failed', failureReason: 'environment_creation_failure', finishedAt: new Date() } });
      continue;
    }
    const environment = await ensureEnvironment(tx, job.projectId, name, env.deploymentTier ?? null);
    const url = env.url ? expandVariables(env.url, { ...scope, CI_ENVIRONMENT_NAME: name, CI_ENVIRONMENT_SLUG: environment.slug }, false) : undefined;
    // CI_ENVIRONMENT_URL is the job's url, else the environment's own.
    const shownUrl = url || environment.externalUrl;
    const prepared: StoredEnvironment = { ...env, name, slug: environment.slug, tier: env.deploymentTier ?? environment.tier, ...(shownUrl ? { url: shownUrl } : {}) };
    await tx.ciJob.update({ where: { id: job.id }, data: { options: { ...(job.options as Prisma.JsonObject), environment: prepared as unknown as Prisma.InputJsonObject } } });
    if ((env.action ?? 'start') !== 'start') continue;
    await tx.deployment.create({
      data: {
        iid: await nextDeploymentIid(tx, job.projectId),
        projectId: job.projectId,
        environmentId: environment.id,
        ref: job.ref,
        tag: job.tag,
        sha: job.sha,
        userId: job.userId,
        jobId: job.id,
        onStop: env.onStop ?? null,
      },
    });
  }
}

/** Moves a deployment to `status` (its state machine permitting), telling the bus and project hooks. */
export async function moveDeployment(tx: Tx, effects: ProcessingEffects, deployment: { id: number; status: string; projectId: number; environmentId: number }, status: string, now: Date): Promise<boolean> {
  if (!deploymentMayMove(deployment.status, status)) return false;
  await tx.deployment.update({ where: { id: deployment.id }, data: { status, ...(FINISHED_STATUSES.includes(status) ? { finishedAt: now } : {}) } });
  await effects.publish(DEPLOYMENT_UPDATED, { deploymentId: deployment.id, environmentId: deployment.environmentId, projectId: deployment.projectId, status } satisfies DeploymentUpdatedMessage, tx);
  await deploymentHookEvent(tx, effects, deployment, status, now);
  return true;
}

/** A job's status changed (inside the transaction that changed it): its deployment and environment follow. */
export async function followJob(tx: Tx, effects: ProcessingEffects, job: { id: number; options: unknown }, jobStatus: string, now = new Date()): Promise<void> {
  const env = environmentOf(job.options);
  if (!env || env.slug === undefined) return;
  const action = env.action ?? 'start';
  if (action === 'start') {
    const deployment = await tx.deployment.findUnique({ where: { jobId: job.id } });
    const status = deploymentStatusOf(jobStatus);
    if (!deployment || !status || !(await moveDeployment(tx, effects, deployment, status, now))) return;
    if (status === 'running') await dropOlderLater(tx, effects, deployment);
    if (status !== 'success') return;
    const seconds = env.autoStopIn && env.autoStopIn !== 'never' ? parseDuration(env.autoStopIn) : null;
    await tx.environment.update({
      where: { id: deployment.environmentId },
      data: {
        state: 'available',
        ...(env.url ? { externalUrl: env.url } : {}),
        ...(env.deploymentTier ? { tier: env.deploymentTier } : {}),
        ...(env.autoStopIn ? { autoStopAt: seconds === null ? null : new Date(now.getTime() + seconds * 1000) } : {}),
      },
    });
    return;
  }
  if (action !== 'stop') return;
  const projectId = (await tx.ciJob.findUnique({ where: { id: job.id }, select: { projectId: true } }))?.projectId;
  if (projectId === undefined) return;
  const where = { projectId_name: { projectId, name: env.name } };
  if (jobStatus === 'success') {
    await tx.environment.updateMany({ where: { projectId, name: env.name, state: { in: ['available', 'stopping'] } }, data: { state: 'stopped', autoStopAt: null } });
  } else if (jobStatus === 'failed' || jobStatus === 'canceled') {
    await tx.environment.updateMany({ where: { ...where.projectId_name, state: 'stopping' }, data: { state: 'available' } });
  }
}

/** A retried job's new try deploys again: a new deployment like the old try's (GitLab seeds one for the clone). */
export async function deploymentForRetry(tx: Tx, fromJobId: number, toJob: { id: number; projectId: number; userId: number | null }): Promise<void> {
  const before = await tx.deployment.findUnique({ where: { jobId: fromJobId } });
  if (!before) return;
  await tx.deployment.create({
    data: {
      iid: await nextDeploymentIid(tx, toJob.projectId),
      projectId: toJob.projectId,
      environmentId: before.environmentId,
      ref: before.ref,
      tag: before.tag,
      sha: before.sha,
      userId: toJob.userId,
      jobId: toJob.id,
      onStop: before.onStop,
    },
  });
}
