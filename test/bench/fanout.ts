/**
 * `NODE_ENV=production npx tsx test/bench/fanout.ts`: how fast one activity event reaches many graphql-ws
 * subscribers, and what it costs the server meanwhile. The server runs as `npm start` runs it, in a child process
 * of its own (PGlite in memory, or `DATABASE_URL`); the subscribers live in a worker thread of this process, so
 * that reading their messages does not delay the `GET /api/v4/version` samples and REST calls of the main thread.
 *
 * For each size (FANOUT_SIZES, default 1000,10000): opens that many subscriptions, 100 per socket (FANOUT_PER_SOCKET)
 * spread over 10 users who are developers of one private group, waits until every one has heard a warm-up event,
 * and three more, then creates FANOUT_EVENTS projects (default 10) in the group through REST, one at a time, and measures from the
 * REST call to the last subscriber's delivery. Heap is read through the inspector (`--inspect` on the child) after a
 * forced garbage collection, before the subscriptions open and after the events, with them still open. Prints a markdown table.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { freePort, heapUsed, pct, progress } from './shared.js';

const PER_SOCKET = Number(process.env.FANOUT_PER_SOCKET ?? 100);
const USERS = 10;
const WARM_UP_EVENTS = 3;
const QUERY = 'subscription { activityEventRecorded { id action actionName projectId author { username } createdAt } }';

/** Messages between the main thread and the subscribers' worker. */
type ToWorker = { open: { url: string; tokens: string[]; count: number } } | { close: true };
type FromWorker = { opened: true } | { delivered: { projectId: number; last: number } } | { failed: string };

/** Milliseconds since the epoch with sub-millisecond precision, comparable between threads. */
const now = () => performance.timeOrigin + performance.now();

/**
 * The worker: sockets and their subscriptions; reports when every subscription has heard of a project's event.
 * Plain JavaScript, evaluated: Node 20 does not hand tsx's loader to worker threads.
 */
const SUBSCRIBERS = `
const { parentPort, workerData } = require('node:worker_threads');
const WebSocket = require(workerData.ws);
const now = () => performance.timeOrigin + performance.now();
let sockets = [];
let total = 0;
const heard = new Map();
parentPort.on('message', async (msg) => {
  if (msg.close) {
    for (const s of sockets) s.close();
    sockets = [];
    heard.clear();
    return;
  }
  const { url, tokens, count } = msg.open;
  total = count;
  const opening = [];
  for (let i = 0; i * workerData.perSocket < count; i++) {
    opening.push(openSocket(url, tokens[i % tokens.length], Math.min(workerData.perSocket, count - i * workerData.perSocket)));
  }
  try {
    await Promise.all(opening);
    parentPort.postMessage({ opened: true });
  } catch (err) {
    parentPort.postMessage({ failed: String(err) });
  }
});
function openSocket(url, token, subscriptions) {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, 'graphql-transport-ws');
    sockets.push(socket);
    socket.on('open', () => socket.send(JSON.stringify({ type: 'connection_init', payload: { 'PRIVATE-TOKEN': token } })));
    socket.on('error', reject);
    socket.on('close', (code) => code !== 1000 && code !== 1005 && reject(new Error('socket closed: ' + code)));
    socket.on('message', (raw) => {
      const msg = JSON.parse(raw.toString());
      if (msg.type === 'connection_ack') {
        for (let id = 0; id < subscriptions; id++) socket.send(JSON.stringify({ id: String(id), type: 'subscribe', payload: { query: workerData.query } }));
        resolve();
      } else if (msg.type === 'next' && msg.payload && msg.payload.data) {
        const projectId = msg.payload.data.activityEventRecorded.projectId;
        const n = (heard.get(projectId) || 0) + 1;
        heard.set(projectId, n);
        if (n === total) parentPort.postMessage({ delivered: { projectId, last: now() } });
      } else if (msg.type === 'error' || (msg.payload && msg.payload.errors)) {
        reject(new Error(JSON.stringify(msg)));
      }
    });
  });
}
`;

async function main(): Promise<void> {
  const sizes = (process.env.FANOUT_SIZES ?? '1000,10000').split(',').map(Number);
  const events = Number(process.env.FANOUT_EVENTS ?? 10);
  const timeoutMs = Number(process.env.FANOUT_TIMEOUT_MS ?? 300_000);
  const token = 'glpat-fanout-bench-root-0000000000';
  const [port, inspectPort] = [await freePort(), await freePort()];
  const base = `http://127.0.0.1:${port}`;
  // FANOUT_SERVER_FLAGS: more node flags for the server, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`.
  const flags = (process.env.FANOUT_SERVER_FLAGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...flags, `--inspect=127.0.0.1:${inspectPort}`, '--import', 'tsx', 'src/main.ts'], {
    cwd: new URL('../../', import.meta.url).pathname,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: 'memory',
      GITLAB_ROOT_TOKEN: token,
      LOG_LEVEL: 'silent',
      RATE_LIMIT_PER_MINUTE: '0',
      GRAPHQL_WS_MAX_SUBSCRIPTIONS: String(PER_SOCKET),
      GRAPHQL_WS_MESSAGES_PER_MINUTE: '0',
      NODE_ENV: 'production',
      // One process, whose heap the inspector reads (a cluster's primary serves nothing).
      WEB_CONCURRENCY: '1',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const worker = new Worker(SUBSCRIBERS, { eval: true, workerData: { ws: createRequire(import.meta.url).resolve('ws'), perSocket: PER_SOCKET, query: QUERY } });
  try {
    const api = async (method: string, path: string, body?: unknown, as = token): Promise<any> => {
      const send = () => fetch(`${base}/api/v4${path}`, { method, headers: { 'PRIVATE-TOKEN': as, 'Content-Type': 'application/json' }, body: body ? JSON.stringify(body) : undefined });
      // A server that stalled for longer than its keep-alive timeout closes the idle connection this request was
      // sent on before reading it: the request never ran, so it is sent again once, on a new connection.
      const res = await send().catch((err: Error & { cause?: { code?: string } }) => {
        if (err.cause?.code === 'ECONNRESET') return send();
        throw err;
      });
      if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
      return res.json();
    };
    await waitUntilUp(base, token);
    progress('server up');

    const group = await api('POST', '/groups', { name: 'fanout', path: 'fanout', visibility: 'private' });
    const tokens: string[] = [];
    for (let i = 0; i < USERS; i++) {
      const user = await api('POST', '/users', { username: `fan${i}`, name: `Fan ${i}`, email: `fan${i}@example.com` });
      tokens.push((await api('POST', `/users/${user.id}/personal_access_tokens`, { name: 'bench', scopes: ['read_api'] })).token);
      await api('POST', `/groups/${group.id}/members`, { user_id: user.id, access_level: 30 });
    }
    let created = 0;
    const createProject = async () => (await api('POST', '/projects', { name: `p${++created}`, namespace_id: group.id })).id as number;

    const delivered = new Map<number, (last: number) => void>();
    const pending = new Map<number, number>();
    let opened: (() => void) | undefined;
    let failed: ((err: Error) => void) | undefined;
    worker.on('message', (msg: FromWorker) => {
      if ('opened' in msg) opened?.();
      else if ('failed' in msg) failed?.(new Error(msg.failed));
      else {
        const waiter = delivered.get(msg.delivered.projectId);
        if (waiter) waiter(msg.delivered.last);
        else pending.set(msg.delivered.projectId, msg.delivered.last);
      }
    });
    /** Resolves with the time the last subscriber heard of the project's event. */
    const lastDelivery = (projectId: number, within: number): Promise<number> =>
      new Promise((resolve, reject) => {
        const early = pending.get(projectId);
        if (early !== undefined) return resolve(early);
        const timer = setTimeout(() => reject(new Error(`not every subscriber heard of project ${projectId} within ${within} ms`)), within);
        delivered.set(projectId, (last) => {
          clearTimeout(timer);
          resolve(last);
        });
      });

    const rows: string[] = [];
    // A first, unrecorded round warms the server up (operations compiled on first use, query plans, pools), so
    // the heap measured per 1,000 subscriptions is what subscriptions cost, not what the first one paid for all.
    const WARM_UP = Math.min(PER_SOCKET * 2, sizes[0]);
    for (const [round, size] of [WARM_UP, ...sizes].entries()) {
      const heapBefore = await heapUsed(inspectPort);
      const rssBefore = rss(child.pid);
      await new Promise<void>((resolve, reject) => {
        opened = resolve;
        failed = reject;
        worker.postMessage({ open: { url: `ws://127.0.0.1:${port}/api/graphql`, tokens, count: size } } satisfies ToWorker);
      });
      // graphql-ws does not acknowledge a subscription: an event every subscriber hears proves they all listen.
      for (let warm = 0; ; warm++) {
        const id = await createProject();
        try {
          await lastDelivery(id, warm === 0 ? 2000 : timeoutMs);
          break;
        } catch (err) {
          if (warm > 0) throw err;
        }
      }
      // A few more, so that what is measured runs warmed up, as a long-running server does.
      for (let warm = 0; warm < WARM_UP_EVENTS; warm++) await lastDelivery(await createProject(), timeoutMs);
      progress(`${size} subscriptions listening`);

      const sampler = sampleVersion(base, token);
      const latencies: number[] = [];
      for (let i = 0; i < events; i++) {
        const start = now();
        const id = await createProject();
        latencies.push((await lastDelivery(id, timeoutMs)) - start);
        progress(`${size}: event ${i + 1} reached everyone in ${ms(latencies[i])} ms`);
      }
      const versions = await sampler.stop();
      // Measured after the events, with the subscriptions still open: the inspector's collection would disturb them.
      const heapAfter = await heapUsed(inspectPort);
      const rssAfter = rss(child.pid);
      worker.postMessage({ close: true } satisfies ToWorker);
      const perThousand = (v: number) => ((v * 1000) / size / 1024 / 1024).toFixed(2);
      if (round > 0) rows.push(
        `| ${size} | ${Math.ceil(size / PER_SOCKET)} | ${events} | ${ms(pct(latencies, 50))} | ${ms(pct(latencies, 95))} | ${ms(pct(latencies, 99))} | ${ms(Math.max(...latencies))} | ${versions.length} | ${ms(pct(versions, 50))} | ${ms(pct(versions, 99))} | ${ms(Math.max(...versions))} | ${perThousand(heapAfter - heapBefore)} | ${perThousand(rssAfter - rssBefore)} |`,
      );
      // Let the server notice the closed sockets before the next size measures its heap.
      await new Promise((r) => setTimeout(r, 1000));
    }
    const db = process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite';
    console.log(`\n${db}, ${PER_SOCKET} subscriptions per socket, ${USERS} users (group developers); times in ms, from the REST call to the last delivery\n`);
    console.log('| subscribers | sockets | events | p50 | p95 | p99 | max | /version samples | /version p50 | /version p99 | /version max | heap MB per 1,000 | RSS MB per 1,000 |');
    console.log('|---|---|---|---|---|---|---|---|---|---|---|---|---|');
    for (const row of rows) console.log(row);
  } finally {
    await worker.terminate();
    child.kill('SIGTERM');
  }
}

async function waitUntilUp(base: string, token: string): Promise<void> {
  for (let i = 0; i < 600; i++) {
    try {
      if ((await fetch(`${base}/api/v4/version`, { headers: { 'PRIVATE-TOKEN': token } })).ok) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the server did not start');
}

/** `GET /api/v4/version`, one request at a time with 5 ms between them, until stopped: the latencies. */
function sampleVersion(base: string, token: string): { stop(): Promise<number[]> } {
  const latencies: number[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const start = now();
      // A reset (a stalled server closing the idle connection) counts as the wait it was, like an answer.
      await fetch(`${base}/api/v4/version`, { headers: { 'PRIVATE-TOKEN': token } }).then(
        (res) => res.text(),
        () => undefined,
      );
      latencies.push(now() - start);
      await new Promise((r) => setTimeout(r, 5));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return latencies;
    },
  };
}

/** The child's resident set size in bytes (Linux). */
function rss(pid: number | undefined): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('VmRSS:'));
  return Number(line?.split(/\s+/)[1] ?? 0) * 1024;
}

function ms(v: number): string {
  return v.toFixed(1);
}

await main();
