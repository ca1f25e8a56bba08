/**
 * The delivery engine, on the job queue. `hooks.dispatch` (one per event, queued in the change's transaction)
 * queues one `hooks.deliver` per hook the event goes to, keyed by event and hook, so a dispatch that runs again
 * queues nothing twice. A delivery makes one request; its outcome, the log row, the hook's failure counters and the
 * next attempt (after a 5xx or a network error, with a doubling wait) are written in one transaction
 * (HooksService.recordDelivery), so a replica dying mid-delivery leaves the job to be claimed again once its lease
 * lapses, never a half-recorded attempt.
 */
import { userViewer } from '../../auth/viewer.js';
import type { App } from '../../context.js';
import type { JobHandlers } from '../../jobs/queue.js';
import { API_VERSION } from '../metadata/service.js';
import type { JobEnvironment } from '../module.js';
import { DELIVER_JOB, DISPATCH_JOB, type HookEvent, type HookTrigger } from './events.js';
import { deliver } from './http.js';
import { alertStatus, interpolate } from './rules.js';
import type { DeliveryPayload, WebHookRow } from './service.js';

/** X-Gitlab-Event of a project hook, by trigger; system hooks always get `System Hook`. */
const EVENT_HEADER: Record<HookTrigger, string> = {
  system_hooks: 'System Hook',
  push_hooks: 'Push Hook',
  tag_push_hooks: 'Tag Push Hook',
  repository_update_hooks: 'System Hook',
  pipeline_hooks: 'Pipeline Hook',
  job_hooks: 'Job Hook',
};

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
  await hooks.queueDeliveries(event, targets, data);
}

function requestHeaders(app: App, hook: WebHookRow, d: DeliveryPayload): Record<string, string> {
  return {
    'Content-Type': 'application/json',
    'User-Agent': `GitLab/${API_VERSION}`,
    'X-Gitlab-Event': hook.type === 'SystemHook' ? 'System Hook' : EVENT_HEADER[d.trigger],
    'X-Gitlab-Webhook-UUID': d.webhookUuid,
    'X-Gitlab-Instance': app.config.externalUrl,
    'X-Gitlab-Event-UUID': d.uuid,
    ...(hook.token ? { 'X-Gitlab-Token': hook.token } : {}),
  };
}

async function deliverOnce({ app, contextFor }: JobEnvironment, d: DeliveryPayload): Promise<void> {
  const hooks = contextFor(null).services.hooks;
  const hook = await hooks.deliveryTarget(d.hookId);
  // Deleted since, or disabled since (a test goes whatever the state): nothing to do, as GitLab's WebHookService.
  if (!hook || (!d.force && alertStatus(hook) !== 'executable')) return;
  const headers = requestHeaders(app, hook, d);
  const config = app.config;
  const outcome = await deliver({
    url: interpolate(hook.url, hook.urlVariables as Record<string, string>),
    headers,
    body: JSON.stringify(d.data),
    timeoutMs: config.webhookTimeoutMs,
    verifyTls: hook.enableSslVerification,
    policy: { allowLocal: hook.type === 'SystemHook' ? config.allowLocalRequestsFromSystemHooks : config.allowLocalRequestsFromWebHooks },
  });
  await hooks.recordDelivery(hook, d, headers, outcome);
}

export function hookJobs(env: JobEnvironment): JobHandlers {
  return {
    [DISPATCH_JOB]: (payload) => dispatch(env, payload as HookEvent),
    [DELIVER_JOB]: (payload) => deliverOnce(env, payload as DeliveryPayload),
  };
}
