/**
 * Sentry envelopes (issue 28): BENCH_ERROR_EVENTS (10,000) envelopes, each one exception event of one of 100
 * fingerprints, each fingerprint's events by 50 users, sent by 8 concurrent senders to the collector with a client key's DSN, as
 * `npm start` runs the server (`DATABASE_URL` runs it on PostgreSQL). Events per second and each request's p50/p99,
 * then the counts checked exact; against the database floor: one single-row insert with the database's own driver
 * (`pg`, or PGlite on the same data folder once the server stopped), timed the same way.
 */
import { rmSync } from 'node:fs';
import { TOKEN, call, insertFloor, pct, serverEnv, startChild } from './shared.js';

const EVENTS = Number(process.env.BENCH_ERROR_EVENTS ?? 10_000);
const SENDERS = 8;
const FINGERPRINTS = 100;
const FLOOR_INSERTS = Math.min(EVENTS, 2_000);
const { env, dataDir, databaseUrl } = serverEnv('errors');

const envelopeOf = (i: number) => {
  const event = {
    event_id: i.toString(16).padStart(32, '0'),
    platform: 'node',
    level: 'error',
    environment: 'bench',
    timestamp: Date.now() / 1000,
    user: { id: `user-${Math.floor(i / FINGERPRINTS) % 50}` },
    exception: { values: [{ type: `BenchError${i % FINGERPRINTS}`, value: `failure number ${i}`, stacktrace: { frames: [{ function: 'main', module: 'bench' }, { function: `step${i % FINGERPRINTS}`, module: 'bench.steps', lineno: 10 }] } }] },
  };
  return `${JSON.stringify({ event_id: event.event_id, sent_at: new Date().toISOString() })}\n${JSON.stringify({ type: 'event' })}\n${JSON.stringify(event)}\n`;
};

let floorMs: number[] = [];
let sendMs: number[] = [];
let seconds = 0;
let checked = '';
try {
  const server = await startChild('npm', ['start', '--silent'], env, '/api/v4/version', { 'PRIVATE-TOKEN': TOKEN });
  try {
    const project = await call(server.url, 'POST', '/projects', { name: `bench-errors-${Date.now()}` });
    await call(server.url, 'PUT', `/projects/${project.id}/error_tracking/settings`, { active: true, integrated: true });
    const key = await call(server.url, 'POST', `/projects/${project.id}/error_tracking/client_keys`);
    const url = `${server.url}/api/v4/error_tracking/collector/api/${project.id}/envelope/`;
    const headers = { 'Content-Type': 'application/x-sentry-envelope', 'X-Sentry-Auth': `Sentry sentry_version=7, sentry_key=${key.public_key}` };
    const send = async (i: number) => {
      const started = performance.now();
      const res = await fetch(url, { method: 'POST', headers, body: envelopeOf(i) });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`envelope ${i}: ${res.status}`);
      return performance.now() - started;
    };
    // Warm-up, not counted (its events are, in the check).
    for (let i = 0; i < 50; i++) await send(i);
    let next = 50;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: SENDERS }, async () => {
        while (next < EVENTS + 50) sendMs.push(await send(next++));
      }),
    );
    seconds = (performance.now() - started) / 1000;

    const query = `query($p: ID!) { project(fullPath: $p) { sentryErrors { errors(first: 100) { count nodes { count userCount } } } } }`;
    const res = await fetch(`${server.url}/api/graphql`, { method: 'POST', headers: { 'PRIVATE-TOKEN': TOKEN, 'Content-Type': 'application/json' }, body: JSON.stringify({ query, variables: { p: project.path_with_namespace } }) });
    const errors = ((await res.json()) as { data: { project: { sentryErrors: { errors: { count: number; nodes: { count: number; userCount: number }[] } } } } }).data.project.sentryErrors.errors;
    const total = errors.nodes.reduce((n, e) => n + e.count, 0);
    // Event i has fingerprint i % 100 and user ⌊i/100⌋ % 50: every error has the 50 users, and ⌊n/100⌋ or ⌈n/100⌉ events.
    const sent = EVENTS + 50;
    const exact =
      errors.count === FINGERPRINTS && total === sent && errors.nodes.every((e) => e.userCount === 50 && Math.abs(e.count - sent / FINGERPRINTS) < 1);
    checked = `${errors.count} errors, ${total} events counted (${exact ? 'exact' : 'NOT EXACT'})`;
  } finally {
    await server.stop();
  }

  // The floor: one single-row insert per call, on the same database, with its own driver.
  floorMs = await insertFloor(databaseUrl, dataDir, FLOOR_INSERTS);
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}

console.log(`\nSentry envelopes (${databaseUrl ? 'PostgreSQL' : 'PGlite'}; ${EVENTS} envelopes of one event, ${FINGERPRINTS} fingerprints, ${SENDERS} senders)\n`);
console.log('| case | samples | p50 ms | p99 ms |\n|---|---|---|---|');
console.log(`| POST …/collector/api/:id/envelope/ | ${sendMs.length} | ${pct(sendMs, 50).toFixed(2)} | ${pct(sendMs, 99).toFixed(2)} |`);
console.log(`| one single-row INSERT, the driver alone (floor) | ${floorMs.length} | ${pct(floorMs, 50).toFixed(2)} | ${pct(floorMs, 99).toFixed(2)} |`);
console.log(`\n${(EVENTS / seconds).toFixed(0)} events/s; envelope p99 / insert floor p99: ${(pct(sendMs, 99) / pct(floorMs, 99)).toFixed(1)}; ${checked}\n`);
