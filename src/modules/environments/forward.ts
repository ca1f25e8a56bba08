/**
 * Forward deployment (GitLab's ci_forward_deployment_enabled and ci_forward_deployment_rollback_allowed, on by
 * default): an older pipeline's deployment never replaces a newer one.
 *
 * - `hasOutdatedDeployment` is Ci::Deployable#has_outdated_deployment?: the job starts an environment, the project
 *   has forward deployment on, its deployment is older (a lower ID, another commit) than the environment's last
 *   successful one, and the job has not finished, or rollbacks are not allowed. Such a job is not started
 *   (`failed_outdated_deployment_job`: Ci::ProcessBuildService and AssignResourceFromResourceGroupService) and may not
 *   be played, retried or canceled (Ci::DeployablePolicy), so with rollbacks allowed only a finished older job may be
 *   retried, and its retry deploys anew.
 * - `dropOlderLater`: a deployment that starts running has the unfinished older deployments of its environment dropped
 *   (`forward_deployment_failure`) by a background job (Deployment's `after_transition any => :running`,
 *   Deployments::OlderDeploymentsDropService).
 */
import type { Prisma } from '../../db/database.js';
import type { ProcessingEffects } from '../pipelines/processing.js';

type Querier = Pick<Prisma.TransactionClient, '$queryRaw'>;

/** Job kind: drop the jobs of a running deployment's older unfinished deployments (Deployments::DropOlderDeploymentsWorker). */
export const DROP_OLDER_DEPLOYMENTS_JOB = 'environments.drop_older_deployments';

/** How a job that would start with an outdated deployment ends (Ci::Build#drop!(:failed_outdated_deployment_job)). */
export const OUTDATED_DEPLOYMENT = (now: Date) => ({ failureReason: 'failed_outdated_deployment_job', finishedAt: now });

/** Whether the job's deployment is outdated (Ci::Deployable#has_outdated_deployment?); `finished`: the job completed. */
export async function hasOutdatedDeployment(db: Querier, jobId: number, finished: boolean): Promise<boolean> {
  return (await outdatedDeployments(db, [{ id: jobId, finished }])).has(jobId);
}

/** The jobs among `jobs` whose deployment is outdated, in one query whatever their number. */
export async function outdatedDeployments(db: Querier, jobs: readonly { id: number; finished: boolean }[]): Promise<Set<number>> {
  if (!jobs.length) return new Set();
  const rows = await db.$queryRaw<{ jobId: number; rollbackAllowed: boolean }[]>`
    SELECT d."jobId", p."ciForwardDeploymentRollbackAllowed" AS "rollbackAllowed" FROM "deployments" d
    JOIN "projects" p ON p."id" = d."projectId"
    JOIN LATERAL (
      SELECT l."id", l."sha" FROM "deployments" l WHERE l."environmentId" = d."environmentId" AND l."status" = 'success' ORDER BY l."id" DESC LIMIT 1
    ) last ON true
    WHERE d."jobId" = ANY(${jobs.map((j) => j.id)}::int[])
      AND p."ciForwardDeploymentEnabled"
      AND last."id" > d."id" AND last."sha" <> d."sha"`;
  const finished = new Map(jobs.map((j) => [j.id, j.finished]));
  return new Set(rows.filter((r) => !r.rollbackAllowed || !finished.get(r.jobId)).map((r) => r.jobId));
}

/** A deployment started running: its older unfinished deployments' jobs are dropped, when the project says so. */
export async function dropOlderLater(tx: Prisma.TransactionClient, effects: ProcessingEffects, deployment: { id: number; projectId: number }): Promise<void> {
  const project = await tx.project.findUnique({ where: { id: deployment.projectId }, select: { ciForwardDeploymentEnabled: true } });
  if (!project?.ciForwardDeploymentEnabled) return;
  await effects.app.jobs.enqueue(DROP_OLDER_DEPLOYMENTS_JOB, { deploymentId: deployment.id }, {}, tx);
}

/** The jobs of the deployments a running deployment makes obsolete: older, of its environment, still created or running. */
export async function olderActiveJobs(db: Querier, deploymentId: number): Promise<{ id: number; pipelineId: number; status: string }[]> {
  return db.$queryRaw<{ id: number; pipelineId: number; status: string }[]>`
    SELECT j."id", j."pipelineId", j."status" FROM "deployments" d
    JOIN "deployments" o ON o."environmentId" = d."environmentId" AND o."id" < d."id" AND o."status" IN ('created', 'running')
    JOIN "ci_builds" j ON j."id" = o."jobId"
    WHERE d."id" = ${deploymentId} AND d."status" = 'running'
    ORDER BY o."id"`;
}
