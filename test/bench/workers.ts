/**
 * `npx tsx test/bench/workers.ts`: does a second worker pay? On PostgreSQL (DATABASE_URL, or a scratch database on
 * 127.0.0.1) it starts `npm start` with WEB_CONCURRENCY=1 and then 2, and loads GET /api/v4/version and
 * GET /api/v4/projects/:id with autocannon run as a separate process (10 connections, BENCH_SECONDS each, default 10),
 * so the load generator does not share the server's event loop. Prints req/s, p50 and p99 and the 2/1 ratio.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { TOKEN, npmStart, scratchPostgres } from './shared.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const AUTOCANNON = new URL('../../node_modules/.bin/autocannon', import.meta.url).pathname;

interface Result {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

async function load(url: string): Promise<Result> {
  const { stdout } = await promisify(execFile)(AUTOCANNON, ['-c', '10', '-d', String(SECONDS), '-j', '-H', `PRIVATE-TOKEN=${TOKEN}`, url], { maxBuffer: 1 << 24 });
  const r = JSON.parse(stdout) as { requests: { average: number }; latency: { p50: number; p99: number }; non2xx: number; errors: number };
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, errors: r.non2xx + r.errors };
}

const db = scratchPostgres('workers_bench');
const rows = new Map<string, Result[]>();
try {
  for (const workers of [1, 2]) {
    const server = await npmStart({ DATABASE_URL: db.url, WEB_CONCURRENCY: String(workers), RATE_LIMIT_PER_MINUTE: '0' });
    try {
      const base = `http://127.0.0.1:${server.port}/api/v4`;
      const res = await fetch(`${base}/projects`, {
        method: 'POST',
        headers: { 'PRIVATE-TOKEN': TOKEN, 'content-type': 'application/json' },
        body: JSON.stringify({ name: `bench-${workers}-${Date.now()}` }),
      });
      const { id } = (await res.json()) as { id: number };
      for (const path of ['/version', `/projects/:id`]) {
        const result = await load(`${base}${path.replace(':id', String(id))}`);
        rows.set(path, [...(rows.get(path) ?? []), result]);
      }
    } finally {
      await server.stop();
    }
  }
} finally {
  db.drop();
}
console.log(`\nautocannon -c 10 -d ${SECONDS}, a separate process; PostgreSQL\n`);
console.log('| route | WEB_CONCURRENCY=1 req/s (p50/p99 ms) | WEB_CONCURRENCY=2 req/s (p50/p99 ms) | 2/1 |');
console.log('|---|---|---|---|');
for (const [path, [one, two]] of rows) {
  const cell = (r: Result) => `${r.rps.toFixed(0)} (${r.p50}/${r.p99})${r.errors ? `, ${r.errors} errors` : ''}`;
  console.log(`| GET ${path} | ${cell(one)} | ${cell(two)} | ${(two.rps / one.rps).toFixed(2)} |`);
}
