/**
 * `npm run bench`: the server as a user runs it (`npm start`, its own process), loaded by autocannon from this
 * process, against floors measured in the same run on the same data (test/bench/floor.ts):
 *
 * - `GET /version` against a bare `http` handler that authenticates with one query;
 * - `GET /projects/:id` and the 20-project list against bare handlers running the same SQL with the raw driver;
 * - the REST adapter against a hand-written Prisma handler behind the server's middleware;
 * - a mixed workload: 80% reads over five routes, 20% writes (project create, member add, token create);
 * - the SQL statements each route runs per request.
 *
 * PostgreSQL when `DATABASE_URL` is set, PGlite (a new data folder) otherwise. Rounds alternate the processes, so
 * drift on a shared machine hits every case alike; the median round is shown. Then test/bench/fanout.ts and
 * test/bench/startup.ts, test/bench/clone.ts (git clone over HTTP against a local clone) and test/bench/commits.ts
 * (commits per second through the API against the same git plumbing run directly) and test/bench/pipelines.ts (the
 * pipeline list against its SQL run bare) and test/bench/live.ts (pipeline status fan-out to 1,000 graphql-ws
 * subscribers, and `POST /jobs/request` with 50 runners), test/bench/hooks.ts (webhook deliveries), test/bench/errors.ts
 * (Sentry envelopes against one insert), test/bench/alerts.ts (alert notifications through an HTTP integration against one insert) and test/bench/yaml-bombs.ts (`GET /version` while four
 * clients commit YAML bombs, against the same with none), test/bench/includes.ts (pipeline creation from 150 local includes against the same jobs in one
 * file), test/bench/mr-diffs.ts (the first `/diffs` page and `/changes` of a 10,000-file merge request against `git diff`),
 * test/bench/notes.ts (the first page of an issue's notes and threads with 10,000 notes against one with 10),
 * when present, run as children
 * (`BENCH_PARTS=http,fanout,startup,clone,commits` picks parts);
 * `BENCH_PARTS=pglite-worker` runs test/bench/pglite-worker.ts, PGlite in the server's thread against a worker thread.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/db/database.js';
import { startServer } from '../../src/server.js';
import { ROOT, TOKEN, pct, startChild } from './shared.js';

const DURATION = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const PARTS = (process.env.BENCH_PARTS ?? 'http,fanout,startup,clone,commits,pipelines,live,yaml-bombs,hooks,errors,alerts,packages,npm,notes').split(',');
const EXTERNAL = 'http://gitlab.example.com';
const databaseUrl = process.env.DATABASE_URL || undefined;
const dataDir = databaseUrl ? undefined : mkdtempSync(join(tmpdir(), 'bench-pglite-'));
const databaseEnv: Record<string, string> = databaseUrl ? { DATABASE_URL: databaseUrl } : { DATA_DIR: dataDir as string, DATABASE_URL: '' };
const env = { ...databaseEnv, NODE_ENV: 'production', GITLAB_ROOT_TOKEN: TOKEN, EXTERNAL_URL: EXTERNAL, RATE_LIMIT_PER_MINUTE: '0', LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info' };
const auth = { 'PRIVATE-TOKEN': TOKEN };
const json = { ...auth, 'Content-Type': 'application/json' };

/** The access log's lines (route template, method, server-side duration) while `accessLog.recording`. */
const accessLog = { recording: false, entries: [] as { route: string; method: string; ms: number }[] };
/** The server exactly as `npm start` runs it, its access log heard. */
const startApi = () =>
  startChild('npm', ['start', '--silent'], env, '/api/v4/version', auth, (line) => {
    if (!accessLog.recording || !line.includes('"durationMs"')) return;
    const { route, method, durationMs } = JSON.parse(line) as { route: string; method: string; durationMs: number };
    accessLog.entries.push({ route, method, ms: durationMs });
  });
const startFloor = (mode: 'raw' | 'prisma') => startChild(process.execPath, ['--import', 'tsx', 'test/bench/floor.ts', mode], env, mode === 'raw' ? '/floor/version' : '/direct/projects', auth);

async function call(base: string, method: string, path: string, body?: unknown, token = TOKEN): Promise<any> {
  const res = await fetch(`${base}/api/v4${path}`, { method, headers: { 'PRIVATE-TOKEN': token, 'Content-Type': 'application/json' }, body: body ? JSON.stringify(body) : undefined });
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return res.json();
}

interface Fixture {
  projectId: number;
  groupId: number;
  userIds: number[];
}

/** 30 users, each with a public personal project (a list page embeds 20 owners and namespaces), and a group. */
async function seed(base: string): Promise<Fixture> {
  const runId = Date.now().toString(36);
  const userIds: number[] = [];
  for (let i = 0; i < 30; i++) {
    const user = await call(base, 'POST', '/users', { username: `bench${i}-${runId}`, name: `Bench ${i}`, email: `bench${i}-${runId}@example.com` });
    userIds.push(user.id);
    const token = await call(base, 'POST', `/users/${user.id}/personal_access_tokens`, { name: 'seed', scopes: ['api'] });
    await call(base, 'POST', '/projects', { name: `project-${i}`, visibility: 'public', description: `Bench project ${i}` }, token.token);
  }
  const group = await call(base, 'POST', '/groups', { name: `Bench ${runId}`, path: `bench-${runId}` });
  for (const id of userIds.slice(0, 5)) await call(base, 'POST', `/groups/${group.id}/members`, { user_id: id, access_level: 30 });
  const projectId = (await call(base, 'GET', '/projects?per_page=1'))[0].id as number;
  // The project every read case asks for is shared with the group and starred: its answer has something to show.
  await call(base, 'POST', `/projects/${projectId}/share`, { group_id: group.id, group_access: 30 });
  await call(base, 'POST', `/projects/${projectId}/star`, {});
  return { projectId, groupId: group.id, userIds };
}

const PROJECT_FIELDS = `id: databaseId description name name_with_namespace: nameWithNamespace path path_with_namespace: fullPath
  created_at: createdAt default_branch: defaultBranch web_url: webUrl visibility last_activity_at: lastActivityAt
  namespace { id: databaseId name path kind full_path: fullPath parent_id: parentId web_url: webUrl }
  owner { id: databaseId username name state avatar_url: avatarUrl web_url: webUrl }`;
const graphql = (query: string) => ({ method: 'POST' as const, body: JSON.stringify({ query }), headers: json });

interface Case {
  name: string;
  process: 'api' | 'raw' | 'prisma';
  path: string;
  method?: 'GET' | 'POST';
  body?: string;
  headers?: Record<string, string>;
  /** autocannon's request sequence, for the mixed workload. */
  requests?: autocannon.Request[];
}

function cases(f: Fixture): Case[] {
  let serial = 0;
  const unique = () => `${process.pid}-${Date.now().toString(36)}-${serial++}`;
  const read = (path: string): autocannon.Request => ({ method: 'GET', path: `/api/v4${path}`, headers: auth });
  const reads = [`/projects/${f.projectId}`, '/projects?per_page=20', '/user', `/groups/${f.groupId}`, `/projects/${f.projectId}/members`].map(read);
  // 15 requests: 12 reads (the five routes, 2–3 times each) and 3 writes (20%): a project in the group, a member of
  // that project, a token for a user.
  const writes: autocannon.Request[] = [
    {
      method: 'POST',
      path: '/api/v4/projects',
      headers: json,
      setupRequest: (req) => ({ ...req, body: JSON.stringify({ name: `mixed ${unique()}`, namespace_id: f.groupId }) }),
      onResponse: (status, body, context) => {
        if (status === 201) (context as { projectId?: number }).projectId = JSON.parse(body).id;
      },
    },
    {
      method: 'POST',
      headers: json,
      setupRequest: (req, context) => ({ ...req, path: `/api/v4/projects/${(context as { projectId?: number }).projectId}/members`, body: JSON.stringify({ user_id: f.userIds[serial % f.userIds.length], access_level: 30 }) }),
    },
    {
      method: 'POST',
      headers: json,
      setupRequest: (req) => ({ ...req, path: `/api/v4/users/${f.userIds[serial % f.userIds.length]}/personal_access_tokens`, body: JSON.stringify({ name: `mixed ${unique()}`, scopes: ['read_api'] }) }),
    },
  ];
  return [
    { name: 'GET /version', process: 'api', path: '/api/v4/version', headers: auth },
    { name: 'GET /projects/:id', process: 'api', path: `/api/v4/projects/${f.projectId}`, headers: auth },
    { name: 'GET /projects?per_page=20', process: 'api', path: '/api/v4/projects?per_page=20', headers: auth },
    { name: 'GraphQL project', process: 'api', path: '/api/graphql', ...graphql(`{ project(fullPath: "${f.projectId}") { ${PROJECT_FIELDS} } }`) },
    { name: 'GraphQL 20 projects', process: 'api', path: '/api/graphql', ...graphql(`{ projects(first: 20) { count nodes { ${PROJECT_FIELDS} } } }`) },
    { name: 'mixed 80/20', process: 'api', path: '/', requests: [...reads, ...reads, reads[0], reads[1], writes[0], writes[1], writes[2]] },
    { name: 'floor: auth + static', process: 'raw', path: '/floor/version', headers: auth },
    { name: 'floor: project', process: 'raw', path: `/floor/projects/${f.projectId}` },
    { name: 'floor: 20 projects', process: 'raw', path: '/floor/projects' },
    { name: 'Prisma by hand: project', process: 'prisma', path: `/direct/projects/${f.projectId}`, headers: auth },
    { name: 'Prisma by hand: 20 projects', process: 'prisma', path: '/direct/projects', headers: auth },
  ];
}

function load(base: string, c: Case, duration: number): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    autocannon(
      { url: `${base}${c.path}`, method: c.method ?? 'GET', body: c.body, headers: c.headers, requests: c.requests, connections: CONNECTIONS, duration },
      (err, result) => (err ? reject(err) : resolve(result)),
    );
  });
}

/** The server's answers to the two project reads the floors also answer (`permissions` aside: the floors skip it). */
async function answers(base: string, paths: string[]): Promise<string[]> {
  const strip = (x: unknown) => (Array.isArray(x) ? x : [x]).map(({ permissions: _p, ...rest }) => rest);
  return Promise.all(paths.map(async (path) => JSON.stringify(strip(await fetch(`${base}${path}`, { headers: auth }).then((r) => r.json())))));
}

/** A floor must answer exactly what the server answers, or the comparison means nothing. */
async function checkFloor(base: string, which: 'raw' | 'prisma', expected: string[], f: Fixture): Promise<void> {
  const paths = which === 'raw' ? [`/floor/projects/${f.projectId}`, '/floor/projects'] : [`/direct/projects/${f.projectId}`, '/direct/projects'];
  const got = await answers(base, paths);
  got.forEach((g, i) => {
    if (g === expected[i]) return;
    let at = 0;
    while (g[at] === expected[i][at]) at++;
    const around = (text: string) => text.slice(Math.max(0, at - 200), at + 200);
    throw new Error(`${paths[i]} differs from the server at character ${at}:\nserver: …${around(expected[i])}…\nfloor:  …${around(g)}…`);
  });
}

/** SQL statements per request for each read route and each write of the mixed workload, counted in-process. */
async function queriesPerRequest(f: Fixture): Promise<[string, number][]> {
  let count = 0;
  const db = await openDatabase({ databaseUrl, dataDir, onQuery: () => (count += 1) });
  // The job queue's polls would be counted as the requests' statements.
  const server = await startServer(loadConfig({}, { port: 0, host: '127.0.0.1', rootToken: TOKEN, logLevel: 'silent', rateLimitPerMinute: 0, externalUrl: EXTERNAL }), { database: db, jobPollIntervalMs: 600_000 });
  const rows: [string, number][] = [];
  const measure = async (name: string, send: (i: number) => Promise<unknown>) => {
    await send(-1); // warm: loaders, caches
    // What the warm request set going beside it (its user's first activity write of the day) is not the route's cost.
    for (let seen = -1; seen !== count; ) {
      seen = count;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const before = count;
    for (let i = 0; i < 10; i++) await send(i);
    rows.push([name, (count - before) / 10]);
  };
  const base = server.url;
  for (const path of ['/version', `/projects/${f.projectId}`, '/projects?per_page=20', '/user', `/groups/${f.groupId}`, `/projects/${f.projectId}/members`]) {
    await measure(`GET ${path.replace(String(f.projectId), ':id').replace(String(f.groupId), ':id')}`, () => call(base, 'GET', path));
  }
  const stamp = Date.now().toString(36);
  const created: number[] = [];
  await measure('POST /projects', async (i) => created.push((await call(base, 'POST', '/projects', { name: `q ${stamp} ${i}`, namespace_id: f.groupId })).id));
  await measure('POST /projects/:id/members', (i) => call(base, 'POST', `/projects/${created[i + 1]}/members`, { user_id: f.userIds[0], access_level: 30 }));
  await measure('POST /users/:id/personal_access_tokens', (i) => call(base, 'POST', `/users/${f.userIds[0]}/personal_access_tokens`, { name: `q ${i}`, scopes: ['api'] }));
  await server.close();
  await db.close();
  return rows;
}

const fmt = (n: number, digits = 0) => n.toFixed(digits);
const median = (results: autocannon.Result[]) => [...results].sort((a, b) => a.requests.average - b.requests.average)[Math.floor(results.length / 2)];

async function benchHttp(): Promise<void> {
  console.log(`## HTTP: ${databaseUrl ? 'PostgreSQL' : 'PGlite'}; autocannon -c ${CONNECTIONS} from its own process, ${DURATION}s per case, ${ROUNDS} rounds (median)\n`);
  const seeding = await startApi();
  const fixture = await seed(seeding.url);
  const expected = await answers(seeding.url, [`/api/v4/projects/${fixture.projectId}`, '/api/v4/projects?per_page=20']);
  await seeding.stop();
  const all = cases(fixture);
  const runs = new Map<string, autocannon.Result[]>(all.map((c) => [c.name, []]));
  const only = process.env.BENCH_ONLY; // a substring of case names, for profiling one of them
  for (let round = 0; round < ROUNDS; round++) {
    for (const which of ['raw', 'prisma', 'api'] as const) {
      const chosen = all.filter((c) => c.process === which && (!only || c.name.includes(only)));
      if (!chosen.length) continue;
      // PGlite is one process's database: the server and the floors take turns on its folder.
      const child = which === 'api' ? await startApi() : await startFloor(which);
      if (which !== 'api' && round === 0) await checkFloor(child.url, which, expected, fixture);
      try {
        for (const c of chosen) {
          await load(child.url, c, 1); // warm-up, discarded
          accessLog.recording = !!c.requests;
          const result = await load(child.url, c, DURATION);
          accessLog.recording = false;
          if (result.errors > 0 || (result.non2xx > 0 && !c.requests)) throw new Error(`${c.name}: ${result.non2xx} non-2xx, ${result.errors} errors`);
          runs.get(c.name)?.push(result);
        }
      } finally {
        await child.stop();
      }
    }
  }
  const result = (name: string) => median(runs.get(name) ?? []);
  const rate = (name: string) => result(name)?.requests.average ?? NaN;
  const floorOf: Record<string, [string, number]> = {
    'GET /version': ['floor: auth + static', 0.7],
    'GET /projects/:id': ['floor: project', 0.5],
    'GET /projects?per_page=20': ['floor: 20 projects', 0.4],
    'GraphQL project': ['floor: project', NaN],
    'GraphQL 20 projects': ['floor: 20 projects', NaN],
    'Prisma by hand: project': ['floor: project', NaN],
    'Prisma by hand: 20 projects': ['floor: 20 projects', NaN],
  };
  console.log('| case | req/s | p50 ms | p99 ms | × floor | target |');
  console.log('|---|---|---|---|---|---|');
  for (const c of all) {
    const m = result(c.name);
    if (!m) continue;
    const [floor, target] = floorOf[c.name] ?? [c.name, NaN];
    const ratio = floor === c.name ? '' : fmt(rate(c.name) / rate(floor), 2);
    console.log(`| ${c.name} | ${fmt(m.requests.average)} | ${m.latency.p50} | ${m.latency.p99} | ${ratio} | ${Number.isNaN(target) ? '' : `≥ ${target}`} |`);
  }
  const mixed = result('mixed 80/20');
  if (mixed) {
    console.log(`\nmixed 80/20: ${fmt(mixed.requests.average)} req/s, p99 ${mixed.latency.p99} ms (target ≤ 50), ${mixed.non2xx} non-2xx`);
    mixedRoutes();
  }
  for (const [rest, hand] of [['GET /projects/:id', 'Prisma by hand: project'], ['GET /projects?per_page=20', 'Prisma by hand: 20 projects']]) {
    console.log(`REST adapter / Prisma by hand, ${rest}: ${fmt(rate(rest) / rate(hand), 2)} (target ≥ 0.9)`);
  }
  console.log('\n| route | SQL statements per request |\n|---|---|');
  for (const [name, n] of await queriesPerRequest(fixture)) console.log(`| ${name} | ${fmt(n, 1)} |`);
  console.log();
}

/**
 * Where the mixed workload's time goes: each route's share of its requests and its server-side duration (from the
 * access log: first byte read to last byte written, so without the time a request waits in the socket's queue).
 */
function mixedRoutes(): void {
  const byRoute = new Map<string, number[]>();
  for (const e of accessLog.entries) {
    const key = `${e.method} ${e.route.replace(/^\/api\/v4/, '')}`;
    let durations = byRoute.get(key);
    if (!durations) byRoute.set(key, (durations = []));
    durations.push(e.ms);
  }
  const all = accessLog.entries.map((e) => e.ms);
  console.log(`\n| mixed 80/20, server side (all rounds) | requests | p50 ms | p99 ms |\n|---|---|---|---|`);
  for (const [route, ms] of [...byRoute].sort((a, b) => pct(b[1], 99) - pct(a[1], 99))) {
    console.log(`| ${route} | ${ms.length} | ${fmt(pct(ms, 50), 1)} | ${fmt(pct(ms, 99), 1)} |`);
  }
  console.log(`| all | ${all.length} | ${fmt(pct(all, 50), 1)} | ${fmt(pct(all, 99), 1)} |`);
}

if (PARTS.includes('http')) await benchHttp();
for (const part of ['fanout', 'startup', 'pglite-worker', 'clone', 'commits', 'pipelines', 'live', 'yaml-bombs', 'includes', 'hooks', 'errors', 'alerts', 'packages', 'npm', 'mr-diffs', 'notes']) {
  const script = join(ROOT, 'test/bench', `${part}.ts`);
  if (!PARTS.includes(part) || !existsSync(script)) continue;
  const run = spawnSync(process.execPath, ['--import', 'tsx', script], { cwd: ROOT, stdio: 'inherit', env: { ...process.env, NODE_ENV: 'production' } });
  if (run.status !== 0) process.exitCode = 1;
}
if (dataDir) rmSync(dataDir, { recursive: true, force: true });
