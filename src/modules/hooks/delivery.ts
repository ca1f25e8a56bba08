/**
 * One delivery attempt of a hook: GitLab's request headers, the request (src/modules/hooks/http.ts, with the SSRF
 * guard), and its record (HooksService.recordDelivery). The delivery job and a resent event both make it.
 */
import type { App } from '../../context.js';
import { API_VERSION } from '../metadata/service.js';
import type { HookTrigger } from './events.js';
import { deliver, type DeliveryOutcome } from './http.js';
import { interpolate } from './rules.js';
import type { DeliveryPayload, HooksService, WebHookRow } from './service.js';

/** X-Gitlab-Event of a project hook, by trigger; system hooks always get `System Hook`. */
const EVENT_HEADER: Record<HookTrigger, string> = {
  system_hooks: 'System Hook',
  push_hooks: 'Push Hook',
  tag_push_hooks: 'Tag Push Hook',
  repository_update_hooks: 'System Hook',
  pipeline_hooks: 'Pipeline Hook',
  job_hooks: 'Job Hook',
  note_hooks: 'Note Hook',
  confidential_note_hooks: 'Confidential Note Hook',
  issue_hooks: 'Issue Hook',
  confidential_issue_hooks: 'Confidential Issue Hook',
  merge_request_hooks: 'Merge Request Hook',
  release_hooks: 'Release Hook',
  deployment_hooks: 'Deployment Hook',
};

/** GitLab's headers, after the hook's custom headers (which cannot replace them). */
function requestHeaders(app: App, hook: WebHookRow, d: DeliveryPayload): Record<string, string> {
  return {
    ...((hook.customHeaders ?? {}) as Record<string, string>),
    'Content-Type': 'application/json',
    'User-Agent': `GitLab/${API_VERSION}`,
    'X-Gitlab-Event': hook.type === 'SystemHook' ? 'System Hook' : EVENT_HEADER[d.trigger],
    'X-Gitlab-Webhook-UUID': d.webhookUuid,
    'X-Gitlab-Instance': app.config.externalUrl,
    'X-Gitlab-Event-UUID': d.uuid,
    ...(hook.token ? { 'X-Gitlab-Token': hook.token } : {}),
  };
}

/** Makes one attempt and records it; its outcome. */
export async function attemptDelivery(app: App, hooks: HooksService, hook: WebHookRow, d: DeliveryPayload): Promise<DeliveryOutcome> {
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
  return outcome;
}
