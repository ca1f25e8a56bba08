/**
 * Webhook deliveries (issue 26): commits through the API to a project with a push hook, against the same commits to a
 * project with none. A request that triggers hooks must take no longer than one that triggers none (deliveries leave
 * through the job queue, never on the request path): the ratio of their p50 and p99 is the figure. Each delivery is
 * timed from the start of the request that caused it to its arrival at a receiver on a loopback port, and a burst of
 * four committing clients gives deliveries per second. The server runs as `npm start` runs it; `DATABASE_URL` runs
 * it on PostgreSQL.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { rmSync } from 'node:fs';
import { call, pct, serverEnv, startChild, TOKEN } from './shared.js';

const COMMITS = Number(process.env.BENCH_HOOK_COMMITS ?? 40);
const BURST_SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CLIENTS = 4;
const { env, dataDir, databaseUrl } = serverEnv('hooks');

/** When each pushed sha's Push Hook arrived (performance.now()). */
const arrivals = new Map<string, number>();
const waiting = new Map<string, () => void>();

function body(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (text += chunk));
    req.on('end', () => resolve(text));
  });
}

const receiver = createServer(async (req, res) => {
  const payload = JSON.parse(await body(req)) as { after?: string };
  if (req.headers['x-gitlab-event'] === 'Push Hook' && payload.after) {
    arrivals.set(payload.after, performance.now());
    waiting.get(payload.after)?.();
  }
  res.writeHead(200).end('ok');
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

/** The push hook of `sha` has arrived. */
function arrived(sha: string): Promise<void> {
  if (arrivals.has(sha)) return Promise.resolve();
  return new Promise((resolve) => waiting.set(sha, resolve));
}

try {
  const server = await startChild('npm', ['start', '--silent'], { ...env, ALLOW_LOCAL_REQUESTS_FROM_WEB_HOOKS: 'true' }, '/api/v4/version', { 'PRIVATE-TOKEN': TOKEN });
  try {
    const project = async (name: string) => {
      const p = await call(server.url, 'POST', '/projects', { name: `${name}-${Date.now()}` });
      await call(server.url, 'POST', `/projects/${p.id}/repository/commits`, { branch: 'main', commit_message: 'init', actions: [{ action: 'create', file_path: 'README.md', content: 'x\n' }] });
      return p.id as number;
    };
    const plain = await project('bench-no-hooks');
    const hooked = await project('bench-hooks');
    await call(server.url, 'POST', `/projects/${hooked}/hooks`, { url: receiverUrl, push_events: true, enable_ssl_verification: false });

    /** One commit to `main`: its request's duration, its sha, and when it started. */
    const commit = async (projectId: number, i: number, branch = 'main') => {
      const started = performance.now();
      const c = await call(server.url, 'POST', `/projects/${projectId}/repository/commits`, {
        branch,
        commit_message: `commit ${i}`,
        actions: [{ action: 'update', file_path: 'README.md', content: `${i} ${started}\n` }],
      });
      return { ms: performance.now() - started, sha: c.id as string, started };
    };

    // Alternating, so that drift on a shared machine falls on both alike; the first few warm up.
    const without: number[] = [];
    const withHooks: number[] = [];
    const delivery: number[] = [];
    for (let i = 0; i < COMMITS + 5; i++) {
      const a = await commit(plain, i);
      const b = await commit(hooked, i);
      await arrived(b.sha);
      if (i < 5) continue;
      without.push(a.ms);
      withHooks.push(b.ms);
      delivery.push(arrivals.get(b.sha)! - b.started);
    }

    // A burst: CLIENTS clients, each on a branch of its own, commit for BURST_SECONDS; every delivery is awaited.
    const burstStart = performance.now();
    const until = burstStart + BURST_SECONDS * 1000;
    const shas: string[] = [];
    await Promise.all(
      Array.from({ length: CLIENTS }, async (_, client) => {
        await call(server.url, 'POST', `/projects/${hooked}/repository/branches`, { branch: `burst-${client}`, ref: 'main' });
        for (let i = 0; performance.now() < until; i++) shas.push((await commit(hooked, i, `burst-${client}`)).sha);
      }),
    );
    await Promise.all(shas.map(arrived));
    const burstSeconds = (Math.max(...shas.map((sha) => arrivals.get(sha)!)) - burstStart) / 1000;

    const row = (name: string, samples: number[]) => `| ${name} | ${samples.length} | ${pct(samples, 50).toFixed(1)} | ${pct(samples, 99).toFixed(1)} |`;
    console.log(`\nWebhook deliveries (${databaseUrl ? 'PostgreSQL' : 'PGlite'}; a push hook to a loopback receiver)\n`);
    console.log('| case | samples | p50 ms | p99 ms |\n|---|---|---|---|');
    console.log(row('POST /repository/commits, project without hooks (floor)', without));
    console.log(row('POST /repository/commits, project with a push hook', withHooks));
    console.log(row('request start → Push Hook received', delivery));
    console.log(`\nrequest with hooks / without: p50 ${(pct(withHooks, 50) / pct(without, 50)).toFixed(2)}, p99 ${(pct(withHooks, 99) / pct(without, 99)).toFixed(2)} (target ≤ 1)`);
    console.log(`delivery p99 / request floor p50: ${(pct(delivery, 99) / pct(without, 50)).toFixed(2)}`);
    console.log(`burst: ${shas.length} commits by ${CLIENTS} clients, all ${shas.length} delivered in ${burstSeconds.toFixed(2)} s: ${(shas.length / burstSeconds).toFixed(1)} deliveries/s\n`);
  } finally {
    await server.stop();
  }
} finally {
  receiver.close();
  rmSync(dataDir, { recursive: true, force: true });
}
