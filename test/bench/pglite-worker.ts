/**
 * `BENCH_PARTS=pglite-worker npm run bench`: PGlite in the server's thread against PGlite in a worker thread
 * (PGLITE_WORKER), as two `npm start` processes on data folders seeded alike. Each case loads one, then the other,
 * in alternating order, round after round, so a shared machine's drift falls on both; the median round is shown.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { TOKEN, startChild, type Child } from './shared.js';

const DURATION = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const auth = { 'PRIVATE-TOKEN': TOKEN };
const json = { ...auth, 'Content-Type': 'application/json' };

interface Case {
  name: string;
  method?: 'GET' | 'POST';
  path: string;
  body?: string;
}

const cases = (projectId: number): Case[] => [
  { name: 'GET /version', path: '/api/v4/version' },
  { name: 'GET /projects/:id', path: `/api/v4/projects/${projectId}` },
  { name: 'GET /projects?per_page=20', path: '/api/v4/projects?per_page=20' },
  { name: 'GraphQL project', method: 'POST', path: '/api/graphql', body: JSON.stringify({ query: `{ project(fullPath: "${projectId}") { id name fullPath description } }` }) },
  { name: 'POST /users/:id/personal_access_tokens', method: 'POST', path: '/api/v4/users/1/personal_access_tokens', body: JSON.stringify({ name: 'bench', scopes: ['read_api'] }) },
];

async function start(worker: boolean): Promise<{ child: Child; dataDir: string; projectId: number }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-pglite-worker-'));
  const env = { DATA_DIR: dataDir, DATABASE_URL: '', PGLITE_WORKER: worker ? '1' : '0', NODE_ENV: 'production', GITLAB_ROOT_TOKEN: TOKEN, RATE_LIMIT_PER_MINUTE: '0', LOG_LEVEL: 'warn' };
  const child = await startChild('npm', ['start', '--silent'], env, '/api/v4/version', auth);
  let projectId = 0;
  for (let i = 0; i < 20; i++) {
    const res = await fetch(`${child.url}/api/v4/projects`, { method: 'POST', headers: json, body: JSON.stringify({ name: `bench ${i}`, visibility: 'public' }) });
    if (res.status !== 201) throw new Error(`seeding: ${res.status} ${await res.text()}`);
    projectId = ((await res.json()) as { id: number }).id;
  }
  return { child, dataDir, projectId };
}

function load(base: string, c: Case): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    autocannon(
      { url: `${base}${c.path}`, method: c.method ?? 'GET', body: c.body, headers: c.body ? json : auth, connections: CONNECTIONS, duration: DURATION },
      (err, result) => (err ? reject(err) : resolve(result)),
    );
  });
}

const median = (runs: autocannon.Result[]) => [...runs].sort((a, b) => a.requests.average - b.requests.average)[Math.floor(runs.length / 2)];

const servers = { 'in-thread': await start(false), worker: await start(true) };
const names = Object.keys(servers) as (keyof typeof servers)[];
try {
  const runs = new Map<string, autocannon.Result[]>();
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, c] of cases(0).entries()) {
      const order = (round + i) % 2 ? [...names].reverse() : names;
      for (const name of order) {
        const s = servers[name];
        const result = await load(s.child.url, cases(s.projectId)[i]);
        if (result.non2xx || result.errors) throw new Error(`${c.name} on ${name}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
        runs.set(`${c.name}|${name}`, [...(runs.get(`${c.name}|${name}`) ?? []), result]);
      }
    }
  }
  console.log(`\n## PGlite in the server's thread vs in a worker thread; autocannon -c ${CONNECTIONS}, ${DURATION}s per case, ${ROUNDS} rounds (median)\n`);
  console.log('| case | in-thread req/s | p50 | p99 | worker req/s | p50 | p99 | worker / in-thread |\n|---|---|---|---|---|---|---|---|');
  for (const c of cases(0)) {
    const [a, b] = names.map((name) => median(runs.get(`${c.name}|${name}`) ?? []));
    const cell = (r: autocannon.Result) => `${Math.round(r.requests.average)} | ${r.latency.p50} | ${r.latency.p99}`;
    console.log(`| ${c.name} | ${cell(a)} | ${cell(b)} | ${(b.requests.average / a.requests.average).toFixed(2)} |`);
  }
} finally {
  for (const s of Object.values(servers)) {
    await s.child.stop();
    rmSync(s.dataDir, { recursive: true, force: true });
  }
}
