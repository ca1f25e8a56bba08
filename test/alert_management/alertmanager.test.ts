/**
 * The real Prometheus Alertmanager (Debian's prometheus-alertmanager) delivering to an integration: configured with a
 * webhook receiver at the Prometheus integration's URL and its key (http_config authorization credentials), fed
 * firing and then resolved alerts through its own API, with short group waits so it delivers at once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suiteServer } from '../support/server.js';
import { createProject, createUser, type TestUser } from '../support/factories.js';
import { eventually } from '../support/wait.js';
import { alerts, createHttpIntegration, createPrometheusIntegration, localUrl, type Integration } from './support.js';

const BINARY = '/usr/bin/prometheus-alertmanager';
const missing = existsSync(BINARY) ? null : `${BINARY} is not installed (Debian package prometheus-alertmanager; .ci/run installs it)`;
if (missing) console.warn(`Skipping the Alertmanager test: ${missing}`);

const t = suiteServer();
let owner: TestUser;
let path: string;
let prometheus: Integration;
let http: Integration;
let dir: string;
let am: ChildProcess | undefined;
let amUrl: string;
let amOutput = '';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function config(receivers: { name: string; integration: Integration }[]): string {
  const lines = [
    'route:',
    `  receiver: ${receivers[0]!.name}`,
    "  group_by: ['alertname']",
    '  group_wait: 50ms',
    '  group_interval: 200ms',
    '  repeat_interval: 1h',
    '  routes:',
    ...receivers.map((r) => `    - receiver: ${r.name}\n      matchers: ['receiver="${r.name}"']`),
    'receivers:',
  ];
  for (const r of receivers) {
    lines.push(`  - name: ${r.name}`, '    webhook_configs:', `      - url: '${localUrl(t, r.integration.url)}'`, '        send_resolved: true', '        http_config:', '          authorization:', `            credentials: '${r.integration.token}'`);
  }
  return `${lines.join('\n')}\n`;
}

async function post(alertsIn: unknown[]) {
  const res = await fetch(`${amUrl}/api/v2/alerts`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(alertsIn) });
  if (res.status !== 200) throw new Error(`Alertmanager refused the alerts: ${res.status} ${await res.text()}\n${amOutput}`);
}

describe.skipIf(missing !== null)('Prometheus Alertmanager delivering to the server', () => {
  beforeAll(async () => {
    owner = await createUser(t);
    const project = await createProject(t, owner.token);
    path = project.path_with_namespace;
    prometheus = await createPrometheusIntegration(t, owner.token, path);
    http = await createHttpIntegration(t, owner.token, path, { name: 'Alertmanager over HTTP' });
    dir = await mkdtemp(join(tmpdir(), 'alertmanager-'));
    await writeFile(join(dir, 'alertmanager.yml'), config([{ name: 'prometheus', integration: prometheus }, { name: 'http', integration: http }]));
    const port = await freePort();
    amUrl = `http://127.0.0.1:${port}`;
    am = spawn(BINARY, [`--config.file=${join(dir, 'alertmanager.yml')}`, `--storage.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`, '--cluster.listen-address=', '--log.level=debug'], { stdio: ['ignore', 'pipe', 'pipe'] });
    am.stdout!.on('data', (c: Buffer) => (amOutput += c.toString()));
    am.stderr!.on('data', (c: Buffer) => (amOutput += c.toString()));
    await eventually(async () => (await fetch(`${amUrl}/-/ready`).catch(() => null))?.status === 200, 20_000);
  }, 60_000);

  afterAll(async () => {
    if (am && am.exitCode === null) {
      const exited = new Promise((resolve) => am!.once('exit', resolve));
      am.kill('SIGTERM');
      await exited;
    }
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('delivers firing alerts, then more of the same group, then their resolution, with the right counts and states', async () => {
    const startsAt = new Date(Date.now() - 60_000).toISOString();
    const alert = (name: string, instance: string, severity: string) => ({
      labels: { alertname: name, instance, severity, receiver: 'prometheus' },
      annotations: { title: `${name} on ${instance}`, description: `${name} fired on ${instance}`, runbook: 'https://runbooks.example.com/x' },
      startsAt,
      generatorURL: `http://prometheus.example.com/graph?g0.expr=${encodeURIComponent(`up{instance="${instance}"} == 0`)}&g0.tab=1`,
    });
    const a = alert('InstanceDown', 'web-1', 'critical');
    const b = alert('DiskFull', 'db-1', 'warning');
    await post([a, b]);
    const fired = await eventually(async () => {
      const list = await alerts(t, owner.token, path);
      return list.length === 2 ? list : null;
    }, 20_000);
    const byTitle = (list: any[], title: string) => list.find((x) => x.title === title);
    expect(byTitle(fired, 'InstanceDown on web-1')).toMatchObject({ status: 'TRIGGERED', severity: 'CRITICAL', monitoringTool: 'Prometheus', eventCount: 1, description: 'InstanceDown fired on web-1', runbook: 'https://runbooks.example.com/x' });
    expect(byTitle(fired, 'DiskFull on db-1')).toMatchObject({ status: 'TRIGGERED', severity: 'LOW', eventCount: 1 });

    // A second alert of InstanceDown's group: Alertmanager notifies the group again, with both alerts in it; the
    // first is a duplicate of its open alert and counts an event, the second opens an alert.
    const c = alert('InstanceDown', 'web-2', 'high');
    await post([c]);
    const grouped = await eventually(async () => {
      const list = await alerts(t, owner.token, path);
      return list.length === 3 && byTitle(list, 'InstanceDown on web-1').eventCount === 2 ? list : null;
    }, 20_000);
    expect(byTitle(grouped, 'InstanceDown on web-2')).toMatchObject({ status: 'TRIGGERED', severity: 'HIGH', eventCount: 1 });
    expect(byTitle(grouped, 'DiskFull on db-1').eventCount).toBe(1);

    // Resolved through Alertmanager's API: an endsAt in the past.
    const endsAt = new Date(Date.now() - 1000).toISOString();
    await post([{ ...a, endsAt }, { ...b, endsAt }]);
    const resolved = await eventually(async () => {
      const list = await alerts(t, owner.token, path);
      return byTitle(list, 'InstanceDown on web-1').status === 'RESOLVED' && byTitle(list, 'DiskFull on db-1').status === 'RESOLVED' ? list : null;
    }, 20_000);
    expect(resolved).toHaveLength(3);
    expect(byTitle(resolved, 'InstanceDown on web-1').endedAt).not.toBeNull();
    expect(byTitle(resolved, 'InstanceDown on web-2')).toMatchObject({ status: 'TRIGGERED', endedAt: null });
    const counts = await t.graphql(`query($p: ID!) { project(fullPath: $p) { alertManagementAlertStatusCounts { all open triggered resolved } } }`, { p: path }, owner.token);
    expect(counts.body.data.project.alertManagementAlertStatusCounts).toEqual({ all: 3, open: 1, triggered: 1, resolved: 2 });
  }, 90_000);

  it('delivers to an HTTP integration too (the webhook is recognized by its shape)', async () => {
    const startsAt = new Date(Date.now() - 30_000).toISOString();
    await post([{ labels: { alertname: 'ViaHttp', receiver: 'http', severity: 'info' }, annotations: { summary: 'Delivered over the HTTP integration' }, startsAt }]);
    const alert = await eventually(async () => (await alerts(t, owner.token, path)).find((x) => x.title === 'Delivered over the HTTP integration'), 20_000);
    expect(alert).toMatchObject({ status: 'TRIGGERED', severity: 'INFO', eventCount: 1 });
  }, 60_000);
});
