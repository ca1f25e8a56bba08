/**
 * `npm run bench`: the same two reads — one project, and a 20-item project list with embedded users — three ways:
 * REST through the adapter, the same query through /api/graphql, and a hand-written express handler calling
 * Prisma directly. Prints req/s, p50 and p99 for each, and the REST-adapter / direct ratio (target ≥ 0.8).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import autocannon from 'autocannon';
import express from 'express';
import { loadConfig } from '../../src/config.js';
import { openMigratedDatabase } from '../../src/db/database.js';
import { startServer } from '../../src/server.js';
import { accessLog, bodyErrors, credentials, rateLimit, requestId, securityHeaders } from '../../src/http/middleware.js';
import { tokenAuthenticator } from '../../src/modules/tokens/service.js';
import { digestToken } from '../../src/auth/secrets.js';

const DURATION = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const TOKEN = 'glpat-bench-root-token-0000000000';

const { db } = await openMigratedDatabase({ databaseUrl: process.env.DATABASE_URL, dataDir: 'memory' });
const server = await startServer(loadConfig({}, { port: 0, host: '127.0.0.1', rootToken: TOKEN, logLevel: 'silent', rateLimitPerMinute: 0 }), { database: db });
const api = async (method: string, path: string, body?: unknown): Promise<any> => {
  const res = await fetch(`${server.url}/api/v4${path}`, {
    method,
    headers: { 'PRIVATE-TOKEN': TOKEN, 'Content-Type': 'application/json' },
    body: body ? JSON.stringify(body) : undefined,
  });
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return res.json();
};

// 30 users, each with a public personal project: a list page embeds 20 owners and 20 namespaces.
const runId = Date.now().toString(36);
for (let i = 0; i < 30; i++) {
  const user = await api('POST', '/users', { username: `bench${i}-${runId}`, name: `Bench ${i}`, email: `bench${i}-${runId}@example.com` });
  const token = await api('POST', `/users/${user.id}/personal_access_tokens`, { name: 'seed', scopes: ['api'] });
  const res = await fetch(`${server.url}/api/v4/projects`, {
    method: 'POST',
    headers: { 'PRIVATE-TOKEN': token.token, 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: `project-${i}`, visibility: 'public', description: `Bench project ${i}` }),
  });
  if (res.status !== 201) throw new Error(`seed project: ${res.status}`);
}
const projectId = (await api('GET', '/projects?per_page=1'))[0].id as number;

// The hand-written baseline: Prisma with includes, the same JSON and headers, no GraphQL.
const prisma = db.prisma;
const external = server.app.config.externalUrl;
type Row = Awaited<ReturnType<typeof loadProjects>>[number];
function loadProjects(where: { id?: number }, skip: number, take: number) {
  return prisma.project.findMany({ where, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], skip, take, include: { namespace: { include: { owner: true } } } });
}
function projectJson(p: Row) {
  const ns = p.namespace;
  const owner = ns.owner;
  return {
    id: p.id,
    description: p.description,
    name: p.name,
    name_with_namespace: `${ns.fullName} / ${p.name}`,
    path: p.path,
    path_with_namespace: p.fullPath,
    created_at: p.createdAt.toISOString(),
    default_branch: p.defaultBranch,
    tag_list: [],
    topics: [],
    ssh_url_to_repo: `git@${new URL(external).hostname}:${p.fullPath}.git`,
    http_url_to_repo: `${external}/${p.fullPath}.git`,
    web_url: `${external}/${p.fullPath}`,
    readme_url: null,
    forks_count: 0,
    avatar_url: null,
    star_count: 0,
    last_activity_at: p.lastActivityAt.toISOString(),
    visibility: p.visibility,
    namespace: { id: ns.id, name: ns.name, path: ns.path, kind: ns.kind, full_path: ns.fullPath, parent_id: ns.parentId, avatar_url: ns.avatarUrl, web_url: `${external}/${ns.fullPath}` },
    ...(owner ? { owner: { id: owner.id, username: owner.username, name: owner.name, state: owner.state, locked: false, avatar_url: owner.avatarUrl, web_url: `${external}/${owner.username}` } } : {}),
    creator_id: p.creatorId,
    archived: p.archived,
    empty_repo: true,
    updated_at: p.updatedAt.toISOString(),
    repository_storage: p.repositoryStorage,
    _links: {
      self: `${external}/api/v4/projects/${p.id}`,
      issues: `${external}/api/v4/projects/${p.id}/issues`,
      merge_requests: `${external}/api/v4/projects/${p.id}/merge_requests`,
      repo_branches: `${external}/api/v4/projects/${p.id}/repository/branches`,
      labels: `${external}/api/v4/projects/${p.id}/labels`,
      events: `${external}/api/v4/projects/${p.id}/events`,
      members: `${external}/api/v4/projects/${p.id}/members`,
      cluster_agents: `${external}/api/v4/projects/${p.id}/cluster_agents`,
    },
  };
}
// Mounted behind the server's own middleware (request id, access log, security headers, body parsers), so the
// comparison isolates what the adapter and GraphQL add.
const authenticate = tokenAuthenticator(prisma);
const direct = express();
direct.set('query parser', 'extended');
direct.use(requestId, accessLog(server.app.logger), securityHeaders, credentials, rateLimit(server.app.config.rateLimitPerMinute));
direct.use(express.json(), express.urlencoded({ extended: true }), bodyErrors);
// The same work as the server, written by hand: the shared token authentication, the viewer's memberships for
// the visibility check, then the rows with Prisma includes. The difference left is the GraphQL layer and the adapter.
direct.use(async (req, res, next) => {
  try {
    res.locals.viewer = await authenticate(digestToken(req.get('private-token') ?? ''));
    next();
  } catch {
    res.status(401).json({ message: '401 Unauthorized' });
  }
});
const memberships = (userId: number) =>
  prisma.member.findMany({
    where: { userId, OR: [{ expiresAt: null }, { expiresAt: { gte: new Date(new Date().toISOString().slice(0, 10)) } }] },
    select: { namespaceId: true, projectId: true, accessLevel: true },
  });
direct.get('/projects/:id', async (req, res) => {
  const [rows, mine] = await Promise.all([loadProjects({ id: Number(req.params.id) }, 0, 1), memberships(res.locals.viewer.id)]);
  const row = rows[0];
  const visible = row && (row.visibility !== 'private' || res.locals.viewer.admin || mine.some((m) => m.projectId === row.id || (m.namespaceId !== null && row.namespace.traversalIds.includes(m.namespaceId))));
  if (!visible) res.status(404).json({ message: '404 Project Not Found' });
  else res.json(projectJson(row));
});
direct.get('/projects', async (_req, res) => {
  // The viewer is an administrator: every project is visible, no membership lookup (the server skips it too).
  const [rows, total] = await Promise.all([loadProjects({}, 0, 20), prisma.project.count()]);
  res.set({ 'X-Total': String(total), 'X-Page': '1', 'X-Per-Page': '20' });
  res.json(rows.map(projectJson));
});
const directServer = createServer(direct);
await new Promise<void>((resolve) => directServer.listen(0, '127.0.0.1', resolve));
const directUrl = `http://127.0.0.1:${(directServer.address() as AddressInfo).port}`;

// The baseline must answer exactly what the adapter answers, or the comparison means nothing.
for (const [rest, hand] of [[`/api/v4/projects/${projectId}`, `/projects/${projectId}`], ['/api/v4/projects?per_page=20', '/projects']]) {
  const [a, b] = await Promise.all([
    fetch(`${server.url}${rest}`, { headers: { 'PRIVATE-TOKEN': TOKEN } }).then((r) => r.json()),
    fetch(`${directUrl}${hand}`, { headers: { 'PRIVATE-TOKEN': TOKEN } }).then((r) => r.json()),
  ]);
  const single = (x: unknown) => (Array.isArray(x) ? x : [x]) as Record<string, unknown>[];
  const strip = (x: unknown) => single(x).map(({ permissions: _p, ...rest }) => rest);
  if (JSON.stringify(strip(a)) !== JSON.stringify(strip(b))) {
    throw new Error(`direct handler differs from the adapter for ${rest}:\n${JSON.stringify(a).slice(0, 600)}\n${JSON.stringify(b).slice(0, 600)}`);
  }
}

const PROJECT_FIELDS = `id: databaseId description name name_with_namespace: nameWithNamespace path path_with_namespace: fullPath
  created_at: createdAt default_branch: defaultBranch web_url: webUrl visibility last_activity_at: lastActivityAt
  namespace { id: databaseId name path kind full_path: fullPath parent_id: parentId web_url: webUrl }
  owner { id: databaseId username name state avatar_url: avatarUrl web_url: webUrl }`;
const graphqlBody = (query: string) => JSON.stringify({ query });

interface Case {
  name: string;
  url: string;
  method?: 'GET' | 'POST';
  body?: string;
  headers: Record<string, string>;
}
const auth = { 'PRIVATE-TOKEN': TOKEN };
const scenarios: { read: string; cases: Case[] }[] = [
  {
    read: 'one project',
    cases: [
      { name: 'REST adapter', url: `${server.url}/api/v4/projects/${projectId}`, headers: auth },
      { name: 'GraphQL', url: `${server.url}/api/graphql`, method: 'POST', body: graphqlBody(`{ project(fullPath: "${projectId}") { ${PROJECT_FIELDS} } }`), headers: { ...auth, 'content-type': 'application/json' } },
      { name: 'direct Prisma', url: `${directUrl}/projects/${projectId}`, headers: auth },
    ],
  },
  {
    read: '20 projects with owners',
    cases: [
      { name: 'REST adapter', url: `${server.url}/api/v4/projects?per_page=20`, headers: auth },
      { name: 'GraphQL', url: `${server.url}/api/graphql`, method: 'POST', body: graphqlBody(`{ projects(first: 20) { count nodes { ${PROJECT_FIELDS} } } }`), headers: { ...auth, 'content-type': 'application/json' } },
      { name: 'direct Prisma', url: `${directUrl}/projects`, headers: auth },
    ],
  },
];

function run(c: Case): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    autocannon({ url: c.url, method: c.method ?? 'GET', body: c.body, headers: c.headers, connections: CONNECTIONS, duration: DURATION }, (err, result) =>
      err ? reject(err) : resolve(result),
    );
  });
}

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
console.log(`database: ${db.kind}; ${CONNECTIONS} connections, ${DURATION}s per run, ${ROUNDS} interleaved rounds, median shown\n`);
// BENCH_ONLY=<substring> runs only the matching cases (for profiling one of them).
const only = process.env.BENCH_ONLY;
for (const scenario of scenarios) {
  const cases = scenario.cases.filter((x) => !only || `${scenario.read} ${x.name}`.includes(only));
  for (const c of cases) await run(c); // warm-up pass, discarded
  // Rounds alternate the cases, so drift (JIT, GC, the database warming up) hits all of them alike.
  const runs = new Map<string, autocannon.Result[]>(cases.map((c) => [c.name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const c of cases) {
      const result = await run(c);
      if (result.non2xx > 0 || result.errors > 0) throw new Error(`${scenario.read} / ${c.name}: ${result.non2xx} non-2xx, ${result.errors} errors`);
      runs.get(c.name)?.push(result);
    }
  }
  const median = new Map<string, autocannon.Result>();
  for (const [name, results] of runs) {
    const sorted = [...results].sort((a, b) => a.requests.average - b.requests.average);
    const m = sorted[Math.floor(sorted.length / 2)];
    median.set(name, m);
    console.log(`${scenario.read.padEnd(24)} ${name.padEnd(14)} ${m.requests.average.toFixed(0).padStart(7)} req/s   p50 ${String(m.latency.p50).padStart(4)} ms   p99 ${String(m.latency.p99).padStart(4)} ms`);
  }
  const rest = median.get('REST adapter')?.requests.average;
  const base = median.get('direct Prisma')?.requests.average;
  if (rest && base) console.log(`${scenario.read.padEnd(24)} ratio REST adapter / direct = ${(rest / base).toFixed(2)} (target >= 0.80)`);
}

await new Promise<void>((resolve) => directServer.close(() => resolve()));
await server.close();
// Handlers of requests autocannon abandoned at the end of a run may still be waiting on the database.
await new Promise((resolve) => setTimeout(resolve, 500));
await db.close();
