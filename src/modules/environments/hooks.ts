/** Deployment events for project hooks (GitLab's Deployments::HooksWorker), queued in the transaction that moves a deployment. */
import type { Prisma } from '../../db/database.js';
import { enqueueHookEvent } from '../hooks/events.js';
import type { ProcessingEffects } from '../pipelines/processing.js';
import { HOOKED_STATUSES } from './rules.js';

/** Queues the Deployment Hook event of a deployment that moved to `status` (running, success, failed or canceled). */
export async function deploymentHookEvent(
  tx: Prisma.TransactionClient,
  effects: Pick<ProcessingEffects, 'app'>,
  deployment: { id: number; projectId: number },
  status: string,
  now: Date,
): Promise<void> {
  if (!HOOKED_STATUSES.includes(status)) return;
  const deploymentId = deployment.id;
  await enqueueHookEvent(effects.app.jobs, { trigger: 'deployment_hooks', projectId: deployment.projectId, branch: null, data: null, deployment: { deploymentId, status, changedAt: now.toISOString() } }, tx);
}
