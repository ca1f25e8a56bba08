/** Helpers of the alert tests: integrations through GraphQL, notifications through their URLs on the test server. */
import type { TestServer } from '../support/server.js';
import { EXTERNAL_URL } from '../support/server.js';

export interface Integration {
  id: string;
  type: string;
  name: string;
  active: boolean;
  token: string;
  url: string;
  apiUrl: string | null;
}

const FIELDS = 'id type name active token url apiUrl';

export async function createHttpIntegration(t: TestServer, token: string, projectPath: string, input: Record<string, unknown> = {}): Promise<Integration> {
  const res = await t.graphql(
    `mutation($input: HttpIntegrationCreateInput!) { httpIntegrationCreate(input: $input) { errors integration { ${FIELDS} } } }`,
    { input: { projectPath, name: 'Generic', active: true, ...input } },
    token,
  );
  const payload = res.body.data?.httpIntegrationCreate;
  if (!payload?.integration) throw new Error(`httpIntegrationCreate: ${res.text}`);
  return payload.integration;
}

export async function createPrometheusIntegration(t: TestServer, token: string, projectPath: string, input: Record<string, unknown> = {}): Promise<Integration> {
  const res = await t.graphql(
    `mutation($input: PrometheusIntegrationCreateInput!) { prometheusIntegrationCreate(input: $input) { errors integration { ${FIELDS} } } }`,
    { input: { projectPath, active: true, ...input } },
    token,
  );
  const payload = res.body.data?.prometheusIntegrationCreate;
  if (!payload?.integration) throw new Error(`prometheusIntegrationCreate: ${res.text}`);
  return payload.integration;
}

/** The integration's URL on the test server (it advertises the configured external URL). */
export const localUrl = (t: TestServer, url: string) => url.replace(EXTERNAL_URL, t.url);

export async function notify(t: TestServer, url: string, body: unknown, auth: { bearer?: string; basic?: string; raw?: string } = {}, headers: Record<string, string> = {}) {
  const h: Record<string, string> = { 'Content-Type': 'application/json', ...headers };
  if (auth.bearer) h.Authorization = `Bearer ${auth.bearer}`;
  if (auth.basic) h.Authorization = `Basic ${Buffer.from(`:${auth.basic}`).toString('base64')}`;
  const res = await fetch(localUrl(t, url), { method: 'POST', headers: h, body: auth.raw ?? (typeof body === 'string' ? body : JSON.stringify(body)) });
  const text = await res.text();
  let parsed: any = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = text;
  }
  return { status: res.status, body: parsed, text };
}

export const ALERT_FIELDS = 'iid title description severity status service monitoringTool hosts startedAt endedAt eventCount details runbook';

export async function alerts(t: TestServer, token: string, projectPath: string, args = ''): Promise<any[]> {
  const res = await t.graphql(`query($p: ID!) { project(fullPath: $p) { alertManagementAlerts${args ? `(${args})` : ''} { nodes { ${ALERT_FIELDS} } } } }`, { p: projectPath }, token);
  if (res.body.errors) throw new Error(`alerts: ${res.text}`);
  return res.body.data.project.alertManagementAlerts.nodes;
}

/** An Alertmanager webhook (version 4) of the HighLatency group carrying these alerts. */
export const alertmanagerWebhook = (alertsIn: unknown[], status = 'firing') => ({
  version: '4',
  groupKey: '{}:{alertname="HighLatency"}',
  truncatedAlerts: 0,
  status,
  receiver: 'gitlab',
  groupLabels: { alertname: 'HighLatency' },
  commonLabels: { alertname: 'HighLatency' },
  commonAnnotations: {},
  externalURL: 'http://alertmanager.example.com',
  alerts: alertsIn,
});
