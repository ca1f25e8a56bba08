/**
 * The delivery engine, on the job queue. `hooks.dispatch` (one per event, queued in the change's transaction)
 * queues one `hooks.deliver` per hook the event goes to, keyed by event and hook, so a dispatch that runs again
 * queues nothing twice. A delivery makes one request; its outcome, the log row, the hook's failure counters and the
 * next attempt (after a 5xx or a network error, with a doubling wait) are written in one transaction, so a replica
 * dying mid-delivery leaves the job to be claimed again once its lease lapses, never a half-recorded attempt.
 */
import { randomUUID } from 'node:crypto';
import { userViewer } from '../../auth/viewer.js';
import type { App } from '../../context.js';
import { Prisma } from '../../db/database.js';
import type { JobHandlers } from '../../jobs/queue.js';
import { API_VERSION } from '../metadata/service.js';
import type { JobEnvironment } from '../module.js';
import { DELIVER_JOB, DISPATCH_JOB, type HookEvent, type HookTrigger } from './events.js';
import { deliver } from './http.js';
import { afterDelivery, alertStatus, branchMatches, interpolate } from './rules.js';
import type { WebHookRow } from './service.js';

export interface DeliveryPayload {
  uuid: string;
  webhookUuid: string;
  hookId: number;
  trigger: HookTrigger;
  data: unknown;
  attempt: number;
  /** A test: delivered whatever the hook's events and state. */
  force: boolean;
}

/** X-Gitlab-Event of a project hook, by trigger; system hooks always get `System Hook`. */
const EVENT_HEADER: Record<HookTrigger, string> = {
  system_hooks: 'System Hook',
  push_hooks: 'Push Hook',
  tag_push_hooks: 'Tag Push Hook',
  repository_update_hooks: 'System Hook',
  pipeline_hooks: 'Pipeline Hook',
  job_hooks: 'Job Hook',
};

/** The hooks an event can go to, before their state and branch filters are asked. */
function candidates(event: HookEvent): Prisma.WebHookWhereInput {
  if (event.hookId !== undefined) return { id: event.hookId };
  const project = (flag: Prisma.WebHookWhereInput): Prisma.WebHookWhereInput => (event.projectId === null ? { id: -1 } : { type: 'ProjectHook', projectId: event.projectId, ...flag });
  switch (event.trigger) {
    case 'system_hooks':
      return { type: 'SystemHook' };
    case 'push_hooks':
      return { OR: [project({ pushEvents: true }), { type: 'SystemHook', pushEvents: true }] };
    case 'tag_push_hooks':
      return { OR: [project({ tagPushEvents: true }), { type: 'SystemHook', tagPushEvents: true }] };
    case 'repository_update_hooks':
      return { type: 'SystemHook', repositoryUpdateEvents: true };
    case 'pipeline_hooks':
      return project({ pipelineEvents: true });
    case 'job_hooks':
      return project({ jobEvents: true });
  }
}

async function dispatch({ app, contextFor }: JobEnvironment, event: HookEvent): Promise<void> {
  const hooks = await app.db.webHook.findMany({ where: candidates(event), orderBy: { id: 'asc' } });
  const now = new Date();
  const chosen = hooks.filter(
    (hook) =>
      event.hookId !== undefined ||
      (alertStatus(hook, now) === 'executable' && (event.trigger !== 'push_hooks' || branchMatches(hook.branchFilterStrategy, hook.pushEventsBranchFilter, event.branch))),
  );
  if (chosen.length === 0) return;
  let data = event.data;
  if (event.push) {
    // Built as the pusher, who could read the project a moment ago; a user gone since leaves nothing to send.
    const viewer = await userViewer(app.db, event.push.userId);
    data = viewer ? await contextFor(viewer).services.hooks.pushEventData(event.push) : null;
    if (data === null) return;
  }
  await app.db.$transaction(async (tx) => {
    for (const hook of chosen) {
      const delivery: DeliveryPayload = { uuid: event.uuid, webhookUuid: randomUUID(), hookId: hook.id, trigger: event.trigger, data, attempt: 1, force: event.hookId !== undefined };
      await app.jobs.enqueue(DELIVER_JOB, delivery, { uniqueKey: `${DELIVER_JOB}:${event.uuid}:${hook.id}:1` }, tx);
    }
  });
  app.jobs.wake();
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

async function deliverOnce(app: App, d: DeliveryPayload): Promise<void> {
  const hook = await app.db.webHook.findUnique({ where: { id: d.hookId } });
  // Deleted since, or disabled since (a test goes whatever the state): nothing to do, as GitLab's WebHookService.
  if (!hook || (!d.force && alertStatus(hook) !== 'executable')) return;
  const headers = requestHeaders(app, hook, d);
  const body = JSON.stringify(d.data);
  const config = app.config;
  const outcome = await deliver({
    url: interpolate(hook.url, hook.urlVariables as Record<string, string>),
    headers,
    body,
    timeoutMs: config.webhookTimeoutMs,
    verifyTls: hook.enableSslVerification,
    policy: { allowLocal: hook.type === 'SystemHook' ? config.allowLocalRequestsFromSystemHooks : config.allowLocalRequestsFromWebHooks },
  });
  // GitLab's response categories: 2xx and 3xx are fine; the rest fail.
  const succeeded = outcome.status !== null && outcome.status < 400;
  const retry = !succeeded && !outcome.blocked && (outcome.status === null || outcome.status >= 500) && d.attempt < config.webhookMaxAttempts;
  await app.db.$transaction(async (tx) => {
    await tx.webHookLog.create({
      data: {
        webHookId: hook.id,
        trigger: d.trigger,
        url: hook.url,
        requestHeaders: { ...headers, ...(hook.token ? { 'X-Gitlab-Token': '[REDACTED]' } : {}) },
        requestData: d.data as Prisma.InputJsonValue,
        responseHeaders: outcome.headers,
        responseBody: outcome.status === null ? (outcome.error ?? '') : outcome.body,
        responseStatus: outcome.status === null ? 'internal error' : String(outcome.status),
        executionDuration: outcome.durationMs / 1000,
        internalErrorMessage: outcome.error,
      },
    });
    if (retry) {
      const next: DeliveryPayload = { ...d, attempt: d.attempt + 1 };
      const runAt = new Date(Date.now() + config.webhookRetryBaseMs * 2 ** (d.attempt - 1));
      await app.jobs.enqueue(DELIVER_JOB, next, { runAt, uniqueKey: `${DELIVER_JOB}:${d.uuid}:${d.hookId}:${next.attempt}` }, tx);
      return;
    }
    // The hook's counters, under its row lock: deliveries to one hook may finish at once.
    const [locked] = await tx.$queryRaw<WebHookRow[]>`SELECT * FROM "web_hooks" WHERE "id" = ${hook.id} FOR UPDATE`;
    if (!locked) return;
    const state = afterDelivery(locked, succeeded);
    if (state.recentFailures !== locked.recentFailures || state.backoffCount !== locked.backoffCount || state.disabledUntil?.getTime() !== locked.disabledUntil?.getTime()) {
      await tx.webHook.update({ where: { id: hook.id }, data: state });
    }
  });
  if (retry) app.jobs.wake();
}

export function hookJobs(env: JobEnvironment): JobHandlers {
  const { app } = env;
  return {
    [DISPATCH_JOB]: (payload) => dispatch(env, payload as HookEvent),
    [DELIVER_JOB]: (payload) => deliverOnce(app, payload as DeliveryPayload),
  };
}
