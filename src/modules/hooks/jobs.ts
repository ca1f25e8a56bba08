/**
 * The delivery engine, on the job queue. `hooks.dispatch` (one per event, queued in the change's transaction)
 * queues one `hooks.deliver` per hook the event goes to, keyed by event and hook, so a dispatch that runs again
 * queues nothing twice. A delivery makes one request; its outcome, the log row, the hook's failure counters and the
 * next attempt (after a 5xx or a network error, with a doubling wait) are written in one transaction
 * (HooksService.recordDelivery), so a replica dying mid-delivery leaves the job to be claimed again once its lease
 * lapses, never a half-recorded attempt.
 */
import { userViewer } from '../../auth/viewer.js';
import type { JobHandlers } from '../../jobs/queue.js';
import type { JobEnvironment } from '../module.js';
import { attemptDelivery } from './delivery.js';
import { DELIVER_JOB, DISPATCH_JOB, type HookEvent } from './events.js';
import { alertStatus } from './rules.js';
import type { DeliveryPayload } from './service.js';

async function dispatch({ app, contextFor }: JobEnvironment, event: HookEvent): Promise<void> {
  const hooks = contextFor(null).services.hooks;
  const targets = await hooks.dispatchTargets(event);
  if (targets.length === 0) return;
  let data = event.data;
  if (event.push) {
    // Built as the pusher, who could read the project a moment ago; a user gone since leaves nothing to send.
    const viewer = await userViewer(app.db, event.push.userId);
    data = viewer ? await contextFor(viewer).services.hooks.pushEventData(event.push) : null;
    if (data === null) return;
  }
  if (event.pipeline) {
    data = await hooks.pipelineEventData(event.pipeline);
    if (data === null) return;
  }
  if (event.job) {
    data = await hooks.jobEventData(event.job);
    if (data === null) return;
  }
  if (event.deployment) {
    data = await hooks.deploymentEventData(event.deployment);
    if (data === null) return;
  }
  await hooks.queueDeliveries(event, targets, data);
}

async function deliverOnce({ app, contextFor }: JobEnvironment, d: DeliveryPayload): Promise<void> {
  const hooks = contextFor(null).services.hooks;
  const hook = await hooks.deliveryTarget(d.hookId);
  // Deleted since, or disabled since (a test goes whatever the state): nothing to do, as GitLab's WebHookService.
  if (!hook || (!d.force && alertStatus(hook) !== 'executable')) return;
  await attemptDelivery(app, hooks, hook, d);
}

/** The recurring job that deletes delivery logs past their retention. */
export const PRUNE_LOGS_JOB = 'hooks.prune_logs';
const PRUNE_EVERY_MS = 60 * 60 * 1000;

export function hookJobs(env: JobEnvironment): JobHandlers {
  return {
    [PRUNE_LOGS_JOB]: {
      everyMs: PRUNE_EVERY_MS,
      run: async () => {
        const hooks = env.contextFor(null).services.hooks;
        const now = new Date();
        while ((await hooks.pruneLogs(now)) > 0);
      },
    },
    [DISPATCH_JOB]: (payload) => dispatch(env, payload as HookEvent),
    [DELIVER_JOB]: (payload) => deliverOnce(env, payload as DeliveryPayload),
  };
}
