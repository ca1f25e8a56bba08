/**
 * `NODE_ENV=production npx tsx test/bench/live.ts` (part `live` of `npm run bench`): the CI hot paths at scale.
 *
 * 1. Pipeline status fan-out: LIVE_SUBSCRIBERS (1,000) graphql-ws subscriptions of `ciPipelineStatusUpdated` on one
 *    pipeline, 100 per socket, over 10 users who are Developers of the private project; per round, the time from the
 *    REST `POST /projects/:id/pipelines/:id/cancel` to the last subscriber's CANCELED (then a retry every subscriber
 *    hears before the next round), p50/p99 over LIVE_ROUNDS rounds, against the floor of the same cancel call with
 *    nobody subscribed; server heap per 1,000 subscriptions (inspector, after a forced collection).
 * 2. `POST /api/v4/jobs/request` with 50 runners polling at once for LIVE_REQUEST_SECONDS while pipelines of 50 jobs
 *    keep jobs pending (a backlog, and one more pipeline created after another meanwhile): jobs handed out per second
 *    and request p50/p99, against a floor in the same run: a bare `http` handler claiming the oldest pending job with
 *    one `UPDATE … FOR UPDATE SKIP LOCKED` through the raw driver, on the same data (jobs set back to pending).
 *
 * The server runs as test/bench/fanout.ts runs it (its own process, `--inspect` for the heap; LIVE_SERVER_FLAGS adds
 * node flags, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`). PGlite in a new data folder, or `DATABASE_URL`.
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { ROOT, freePort, heapUsed, pct, progress } from './shared.js';

const SUBSCRIBERS = Number(process.env.LIVE_SUBSCRIBERS ?? 1000);
const PER_SOCKET = 100;
const USERS = 10;
const ROUNDS = Number(process.env.LIVE_ROUNDS ?? 20);
const RUNNERS = 50;
const JOBS_PER_PIPELINE = 50;
const BACKLOG_PIPELINES = Number(process.env.LIVE_BACKLOG ?? 20);
const REQUEST_SECONDS = Number(process.env.LIVE_REQUEST_SECONDS ?? 10);
const TOKEN = 'glpat-live-bench-root-000000000000';
const QUERY = 'subscription($id: ID!) { ciPipelineStatusUpdated(pipelineId: $id) { id status detailedStatus { group label } } }';
const RUNNER_INFO = { name: 'gitlab-runner', version: '17.5.0', revision: 'abcdef12', platform: 'linux', architecture: 'amd64', executor: 'shell' };
const databaseUrl = process.env.DATABASE_URL || undefined;
const dataDir = mkdtempSync(join(tmpdir(), 'bench-live-'));

/** Milliseconds since the epoch with sub-millisecond precision, comparable between threads. */
const now = () => performance.timeOrigin + performance.now();
const ms = (v: number) => v.toFixed(1);

/** The subscribers' worker (plain JavaScript: Node 20 does not hand tsx's loader to workers): reports when all heard a status. */
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const WebSocket = require(workerData.ws);
const now = () => performance.timeOrigin + performance.now();
let sockets = [];
let expected = null;
let heard = 0;
let total = 0;
parentPort.on('message', async (msg) => {
  if (msg.expect) { expected = msg.expect; heard = 0; return; }
  if (msg.close) { for (const s of sockets) s.close(); sockets = []; return; }
  const { url, tokens, count, pipelineId } = msg.open;
  total = count;
  const opening = [];
  for (let i = 0; i * workerData.perSocket < count; i++) opening.push(openSocket(url, tokens[i % tokens.length], Math.min(workerData.perSocket, count - i * workerData.perSocket), pipelineId));
  try { await Promise.all(opening); parentPort.postMessage({ opened: true }); } catch (err) { parentPort.postMessage({ failed: String(err) }); }
});
function openSocket(url, token, subscriptions, pipelineId) {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, 'graphql-transport-ws');
    sockets.push(socket);
    socket.on('open', () => socket.send(JSON.stringify({ type: 'connection_init', payload: { 'PRIVATE-TOKEN': token } })));
    socket.on('error', reject);
    socket.on('message', (raw) => {
      const msg = JSON.parse(raw.toString());
      if (msg.type === 'connection_ack') {
        for (let id = 0; id < subscriptions; id++) socket.send(JSON.stringify({ id: String(id), type: 'subscribe', payload: { query: workerData.query, variables: { id: String(pipelineId) } } }));
        resolve();
      } else if (msg.type === 'next' && msg.payload && msg.payload.data) {
        if (msg.payload.data.ciPipelineStatusUpdated.status === expected && ++heard === total) parentPort.postMessage({ delivered: { status: expected, last: now() } });
      } else if (msg.type === 'error' || (msg.payload && msg.payload.errors)) {
        parentPort.postMessage({ failed: JSON.stringify(msg) });
      }
    });
  });
}
`;

async function main(): Promise<void> {
  const [port, inspectPort] = [await freePort(), await freePort()];
  const base = `http://127.0.0.1:${port}`;
  const flags = (process.env.LIVE_SERVER_FLAGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...flags, `--inspect=127.0.0.1:${inspectPort}`, '--import', 'tsx', 'src/main.ts'], {
    cwd: ROOT,
    env: {
      ...process.env,
      ...(databaseUrl ? { DATABASE_URL: databaseUrl, REPOSITORY_STORAGES: `default=${join(dataDir, 'repositories')}` } : { DATA_DIR: dataDir, DATABASE_URL: '' }),
      PORT: String(port),
      HOST: '127.0.0.1',
      GITLAB_ROOT_TOKEN: TOKEN,
      LOG_LEVEL: 'silent',
      RATE_LIMIT_PER_MINUTE: '0',
      GRAPHQL_WS_MAX_SUBSCRIPTIONS: String(PER_SOCKET),
      GRAPHQL_WS_MESSAGES_PER_MINUTE: '0',
      CI_LONG_POLLING_MS: '0',
      NODE_ENV: 'production',
      WEB_CONCURRENCY: '1',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const worker = new Worker(WORKER, { eval: true, workerData: { ws: createRequire(import.meta.url).resolve('ws'), perSocket: PER_SOCKET, query: QUERY } });
  let requestResult: RequestResult;
  let projectId: number;
  try {
    const api = async (method: string, path: string, body?: unknown, token: string | null = TOKEN): Promise<{ status: number; body: any }> => {
      const send = () => fetch(`${base}/api/v4${path}`, { method, headers: { ...(token ? { 'PRIVATE-TOKEN': token } : {}), 'Content-Type': 'application/json' }, body: body ? JSON.stringify(body) : undefined });
      let res = await send();
      // While a thousand subscriptions start, PGlite's one connection may keep a write waiting past the pool timeout.
      for (let retries = 0; res.status === 503 && retries < 5; retries++) res = await send();
      const text = await res.text();
      if (res.status >= 300 && res.status !== 204) throw new Error(`${method} ${path}: ${res.status} ${text}`);
      return { status: res.status, body: text ? JSON.parse(text) : null };
    };
    for (let up = false; !up; ) {
      up = await fetch(`${base}/api/v4/version`, { headers: { 'PRIVATE-TOKEN': TOKEN } }).then((r) => r.ok, () => false);
      if (!up) await new Promise((r) => setTimeout(r, 100));
    }
    progress('server up');

    // ---- 1. fan-out ----
    const newProject = async (jobs: number) => {
      const created = (await api('POST', '/projects', { name: `live-${Date.now()}-${jobs}`, visibility: 'private' })).body;
      const config = Array.from({ length: jobs }, (_, i) => `job${i}:\n  script: echo ${i}\n`).join('');
      await api('POST', `/projects/${created.id}/repository/commits`, { branch: 'main', commit_message: 'CI', actions: [{ action: 'create', file_path: '.gitlab-ci.yml', content: config }] });
      return created as { id: number };
    };
    // A pipeline of one job: what is measured is the delivery, not the cancel of many jobs.
    const project = await newProject(1);
    const tokens: string[] = [];
    for (let i = 0; i < USERS; i++) {
      const user = (await api('POST', '/users', { username: `live${i}`, name: `Live ${i}`, email: `live${i}@example.com` })).body;
      tokens.push((await api('POST', `/users/${user.id}/personal_access_tokens`, { name: 'bench', scopes: ['read_api'] })).body.token);
      await api('POST', `/projects/${project.id}/members`, { user_id: user.id, access_level: 30 });
    }
    const pipeline = (await api('POST', `/projects/${project.id}/pipeline`, { ref: 'main' })).body;
    const cancel = () => api('POST', `/projects/${project.id}/pipelines/${pipeline.id}/cancel`);
    const retry = () => api('POST', `/projects/${project.id}/pipelines/${pipeline.id}/retry`);

    const waiting = new Map<string, (last: number) => void>();
    let opened: (() => void) | undefined;
    let failed: ((err: Error) => void) | undefined;
    worker.on('message', (msg: { opened?: true; failed?: string; delivered?: { status: string; last: number } }) => {
      if (msg.opened) opened?.();
      else if (msg.failed) failed?.(new Error(msg.failed));
      else if (msg.delivered) waiting.get(msg.delivered.status)?.(msg.delivered.last);
    });
    /** Sends a transition and resolves with the time from the call to the last subscriber hearing `status`. */
    const transition = (status: string, send: () => Promise<unknown>, within = 60_000): Promise<number> =>
      new Promise((resolve, reject) => {
        worker.postMessage({ expect: status });
        const timer = setTimeout(() => reject(new Error(`not every subscriber heard ${status} within ${within} ms`)), within);
        const start = now();
        waiting.set(status, (last) => {
          clearTimeout(timer);
          resolve(last - start);
        });
        send().catch(reject);
      });

    // The floor: the same cancel (and retry) with nobody subscribed.
    const floor: number[] = [];
    for (let i = 0; i < ROUNDS + 3; i++) {
      const start = now();
      await cancel();
      if (i >= 3) floor.push(now() - start);
      await retry();
    }
    const heapBefore = await heapUsed(inspectPort);
    await new Promise<void>((resolve, reject) => {
      opened = resolve;
      failed = reject;
      worker.postMessage({ open: { url: `ws://127.0.0.1:${port}/api/graphql`, tokens, count: SUBSCRIBERS, pipelineId: pipeline.id } });
    });
    // graphql-ws does not acknowledge a subscription: a transition every subscriber hears proves they all listen.
    for (let attempt = 0; ; attempt++) {
      try {
        await transition('CANCELED', cancel, 2000);
        await transition('PENDING', retry, 60_000);
        break;
      } catch (err) {
        if (attempt > 10) throw err;
        await retry();
      }
    }
    for (let warm = 0; warm < 3; warm++) {
      await transition('CANCELED', cancel);
      await transition('PENDING', retry);
    }
    progress(`${SUBSCRIBERS} subscriptions listening`);
    const latencies: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      latencies.push(await transition('CANCELED', cancel));
      await transition('PENDING', retry);
    }
    const heapAfter = await heapUsed(inspectPort);
    worker.postMessage({ close: true });
    await cancel();
    const perThousand = ((heapAfter - heapBefore) * 1000) / SUBSCRIBERS / 1024 / 1024;
    const db = databaseUrl ? 'PostgreSQL' : 'PGlite';
    console.log(`\n### Pipeline status fan-out (${db}): ${SUBSCRIBERS} graphql-ws subscribers of one pipeline, ${PER_SOCKET} per socket, ${ROUNDS} rounds; ms from the REST cancel to the last delivery\n`);
    console.log('| case | p50 | p99 | max | × floor (p50) | × floor (p99) | goal |');
    console.log('|---|---|---|---|---|---|---|');
    console.log(`| floor: the cancel call, nobody subscribed | ${ms(pct(floor, 50))} | ${ms(pct(floor, 99))} | ${ms(Math.max(...floor))} | 1.00 | 1.00 | |`);
    console.log(
      `| cancel → last of ${SUBSCRIBERS} subscribers | ${ms(pct(latencies, 50))} | ${ms(pct(latencies, 99))} | ${ms(Math.max(...latencies))} | ${(pct(latencies, 50) / pct(floor, 50)).toFixed(2)} | ${(pct(latencies, 99) / pct(floor, 99)).toFixed(2)} | p99 ≤ 100 |`,
    );
    console.log(`\nserver heap per 1,000 subscriptions: ${perThousand.toFixed(2)} MB (goal ≤ 10)\n`);

    // ---- 2. POST /jobs/request ----
    const queued = await newProject(JOBS_PER_PIPELINE);
    projectId = queued.id;
    const runnerTokens: string[] = [];
    for (let i = 0; i < RUNNERS; i++) runnerTokens.push((await api('POST', '/user/runners', { runner_type: 'project_type', project_id: queued.id })).body.token);
    for (let i = 0; i < BACKLOG_PIPELINES; i++) await api('POST', `/projects/${queued.id}/pipeline`, { ref: 'main' });
    progress(`${RUNNERS} runners, ${BACKLOG_PIPELINES * JOBS_PER_PIPELINE} jobs pending`);
    requestResult = await pollers(`${base}/api/v4/jobs/request`, runnerTokens, async (stop) => {
      while (!stop()) await api('POST', `/projects/${queued.id}/pipeline`, { ref: 'main' });
    });
  } finally {
    await worker.terminate();
    child.kill('SIGTERM');
    await exited;
  }
  const floorResult = await claimFloor(projectId);
  const db = databaseUrl ? 'PostgreSQL' : 'PGlite';
  console.log(`### POST /api/v4/jobs/request (${db}): ${RUNNERS} runners polling at once for ${REQUEST_SECONDS} s, pipelines of ${JOBS_PER_PIPELINE} jobs pending\n`);
  console.log('| case | jobs/s | requests/s | 204s | p50 ms | p99 ms | × floor (jobs/s) |');
  console.log('|---|---|---|---|---|---|---|');
  const row = (name: string, r: RequestResult) =>
    `| ${name} | ${r.jobsPerSecond.toFixed(0)} | ${r.requestsPerSecond.toFixed(0)} | ${r.empty} | ${ms(r.p50)} | ${ms(r.p99)} | ${(r.jobsPerSecond / floorResult.jobsPerSecond).toFixed(2)} |`;
  console.log(row('floor: one UPDATE … SKIP LOCKED, raw driver, bare http', floorResult));
  console.log(row('POST /jobs/request', requestResult));
  console.log();
}

interface RequestResult {
  jobsPerSecond: number;
  requestsPerSecond: number;
  empty: number;
  p50: number;
  p99: number;
}

/** RUNNERS loops asking `url` for a job for REQUEST_SECONDS (after a second of warm-up), `meanwhile` running beside them. */
async function pollers(url: string, tokens: string[], meanwhile: (stop: () => boolean) => Promise<void> = async () => {}): Promise<RequestResult> {
  let measuring = false;
  let stopped = false;
  const latencies: number[] = [];
  let jobs = 0;
  let empty = 0;
  const loop = async (token: string) => {
    while (!stopped) {
      const start = now();
      const res = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ token, info: RUNNER_INFO }) });
      await res.arrayBuffer();
      if (res.status !== 201 && res.status !== 204) throw new Error(`${url}: ${res.status}`);
      if (!measuring) continue;
      latencies.push(now() - start);
      if (res.status === 201) jobs += 1;
      else empty += 1;
    }
  };
  const running = Promise.all([...tokens.map(loop), meanwhile(() => stopped)]);
  await new Promise((r) => setTimeout(r, 1000));
  measuring = true;
  const started = now();
  await new Promise((r) => setTimeout(r, REQUEST_SECONDS * 1000));
  measuring = false;
  const seconds = (now() - started) / 1000;
  stopped = true;
  await running;
  return { jobsPerSecond: jobs / seconds, requestsPerSecond: latencies.length / seconds, empty, p50: pct(latencies, 50), p99: pct(latencies, 99) };
}

/** The floor of a job request: a bare handler claiming the oldest pending job of the project in one statement. */
async function claimFloor(projectId: number): Promise<RequestResult> {
  let query: (sql: string, params: unknown[]) => Promise<{ id: number }[]>;
  let end: () => Promise<void>;
  if (databaseUrl) {
    const { default: pg } = await import('pg');
    const pool = new pg.Pool({ connectionString: databaseUrl, max: 7 });
    query = async (sql, params) => (await pool.query(sql, params)).rows;
    end = () => pool.end();
  } else {
    const { PGlite } = await import('@electric-sql/pglite');
    const db = await PGlite.create({ dataDir });
    query = async (sql, params) => (await db.query<{ id: number }>(sql, params)).rows;
    end = () => db.close();
  }
  await query(`UPDATE "ci_builds" SET "status" = 'pending', "runnerId" = NULL, "startedAt" = NULL WHERE "projectId" = $1 AND "status" = 'running'`, [projectId]);
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', async () => {
      const { token } = JSON.parse(body) as { token: string };
      const rows = await query(
        `UPDATE "ci_builds" SET "status" = 'running', "startedAt" = now(), "tokenDigest" = $2 || '-' || gen_random_uuid() WHERE "id" = (
           SELECT "id" FROM "ci_builds" WHERE "projectId" = $1 AND "status" = 'pending' AND "type" = 'build' ORDER BY "id" LIMIT 1 FOR UPDATE SKIP LOCKED
         ) RETURNING *`,
        [projectId, token],
      );
      if (!rows.length) return res.writeHead(204).end();
      res.writeHead(201, { 'Content-Type': 'application/json' }).end(JSON.stringify(rows[0]));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  try {
    return await pollers(`http://127.0.0.1:${port}/`, Array.from({ length: RUNNERS }, (_, i) => `floor-${i}`));
  } finally {
    await new Promise((r) => server.close(r));
    await end();
  }
}

try {
  await main();
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
