/**
 * Alert notifications (issue 28): BENCH_ALERT_NOTIFICATIONS (10,000) generic payloads, each of one of 100
 * fingerprints, sent by 8 concurrent senders to a project's HTTP integration with its Bearer key, as `npm start`
 * runs the server (`DATABASE_URL` runs it on PostgreSQL). Notifications per second and each request's p50/p99,
 * then the alerts checked exact (100 alerts, their event counts summing to what was sent); against the database
 * floor the other parts use: one single-row insert with the database's own driver (`pg`, or PGlite on the same data
 * folder once the server stopped), timed the same way.
 */
import { rmSync } from 'node:fs';
import { TOKEN, call, insertFloor, pct, serverEnv, startChild } from './shared.js';

const NOTIFICATIONS = Number(process.env.BENCH_ALERT_NOTIFICATIONS ?? 10_000);
const SENDERS = 8;
const FINGERPRINTS = 100;
const WARM_UP = 50;
const FLOOR_INSERTS = Math.min(NOTIFICATIONS, 2_000);
const { env, dataDir, databaseUrl } = serverEnv('alerts');

const payloadOf = (i: number) =>
  JSON.stringify({
    title: `Bench alert ${i % FINGERPRINTS}`,
    description: `notification number ${i}`,
    start_time: new Date().toISOString(),
    severity: 'high',
    service: 'bench',
    monitoring_tool: 'bench',
    hosts: ['bench-1'],
    fingerprint: `bench-${i % FINGERPRINTS}`,
  });

async function graphql(base: string, query: string, variables: Record<string, unknown>): Promise<any> {
  const res = await fetch(`${base}/api/graphql`, { method: 'POST', headers: { 'PRIVATE-TOKEN': TOKEN, 'Content-Type': 'application/json' }, body: JSON.stringify({ query, variables }) });
  const body = (await res.json()) as { data?: any; errors?: unknown };
  if (body.errors || !body.data) throw new Error(`GraphQL: ${JSON.stringify(body.errors)}`);
  return body.data;
}

let floorMs: number[] = [];
let sendMs: number[] = [];
let seconds = 0;
let checked = '';
try {
  const server = await startChild('npm', ['start', '--silent'], env, '/api/v4/version', { 'PRIVATE-TOKEN': TOKEN });
  try {
    const project = await call(server.url, 'POST', '/projects', { name: `bench-alerts-${Date.now()}` });
    const created = await graphql(
      server.url,
      `mutation($input: HttpIntegrationCreateInput!) { httpIntegrationCreate(input: $input) { errors integration { url token } } }`,
      { input: { projectPath: project.path_with_namespace, name: 'Bench', active: true } },
    );
    const integration = created.httpIntegrationCreate.integration as { url: string; token: string };
    // The integration advertises the configured external URL: the same path on the server this bench started.
    const advertised = new URL(integration.url);
    const url = `${server.url}${advertised.pathname}`;
    const headers = { 'Content-Type': 'application/json', Authorization: `Bearer ${integration.token}` };
    const send = async (i: number) => {
      const started = performance.now();
      const res = await fetch(url, { method: 'POST', headers, body: payloadOf(i) });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`notification ${i}: ${res.status}`);
      return performance.now() - started;
    };
    // Warm-up, not timed (its notifications are counted in the check).
    for (let i = 0; i < WARM_UP; i++) await send(i);
    let next = WARM_UP;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: SENDERS }, async () => {
        while (next < NOTIFICATIONS + WARM_UP) sendMs.push(await send(next++));
      }),
    );
    seconds = (performance.now() - started) / 1000;

    const data = await graphql(server.url, `query($p: ID!) { project(fullPath: $p) { alertManagementAlerts(first: 100) { count nodes { eventCount } } } }`, {
      p: project.path_with_namespace,
    });
    const alerts = data.project.alertManagementAlerts as { count: number; nodes: { eventCount: number }[] };
    const total = alerts.nodes.reduce((n, a) => n + a.eventCount, 0);
    const sent = NOTIFICATIONS + WARM_UP;
    // Notification i has fingerprint i % 100: 100 alerts, each with ⌊n/100⌋ or ⌈n/100⌉ events.
    const exact = alerts.count === FINGERPRINTS && total === sent && alerts.nodes.every((a) => Math.abs(a.eventCount - sent / FINGERPRINTS) < 1);
    checked = `${alerts.count} alerts, ${total} notifications counted (${exact ? 'exact' : 'NOT EXACT'})`;
    if (!exact) process.exitCode = 1;
  } finally {
    await server.stop();
  }

  // The floor: one single-row insert per call, on the same database, with its own driver.
  floorMs = await insertFloor(databaseUrl, dataDir, FLOOR_INSERTS);
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}

console.log(`\nAlert notifications (${databaseUrl ? 'PostgreSQL' : 'PGlite'}; ${NOTIFICATIONS} generic payloads, ${FINGERPRINTS} fingerprints, ${SENDERS} senders)\n`);
console.log('| case | samples | p50 ms | p99 ms |\n|---|---|---|---|');
console.log(`| POST /:project/alerts/notify/:name/:endpoint_identifier.json (HTTP integration) | ${sendMs.length} | ${pct(sendMs, 50).toFixed(2)} | ${pct(sendMs, 99).toFixed(2)} |`);
console.log(`| one single-row INSERT, the driver alone (floor) | ${floorMs.length} | ${pct(floorMs, 50).toFixed(2)} | ${pct(floorMs, 99).toFixed(2)} |`);
console.log(`\n${(NOTIFICATIONS / seconds).toFixed(0)} notifications/s; notification p99 / insert floor p99: ${(pct(sendMs, 99) / pct(floorMs, 99)).toFixed(1)}; ${checked}\n`);
