/**
 * The pipeline list: `GET /projects/:id/pipelines` (20 items) and the GraphQL list with each pipeline's user and
 * detailed status, against a floor measured in the same run: a bare `http` handler running the same page's SQL
 * (the pipelines, their users, the project) with the raw driver (`pg` on PostgreSQL, PGlite itself on the same data
 * folder once the server stopped). The server runs as `npm start` runs it. `DATABASE_URL` runs it on PostgreSQL.
 */
import { createServer, type Server } from 'node:http';
import { rmSync } from 'node:fs';
import autocannon from 'autocannon';
import { TOKEN, call, serverEnv, startChild } from './shared.js';

const DURATION = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const { env, dataDir, databaseUrl } = serverEnv('pipelines');
const headers = { 'PRIVATE-TOKEN': TOKEN, 'Content-Type': 'application/json' };


interface Result {
  rps: number;
  p50: number;
  p99: number;
}

async function load(url: string, options: Partial<autocannon.Options> = {}): Promise<Result> {
  const result = await autocannon({ url, connections: CONNECTIONS, duration: DURATION, headers, ...options });
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${url}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99 };
}

/** 20 users each run a pipeline of a five-job configuration: a page of 20 embeds 20 users. */
async function seed(base: string): Promise<number> {
  const project = await call(base, 'POST', '/projects', { name: `bench-${Date.now()}`, visibility: 'public' });
  const ci = ['a', 'b', 'c', 'd', 'e'].map((job) => `${job}:\n  script: echo ${job}\n`).join('');
  await call(base, 'POST', `/projects/${project.id}/repository/commits`, { branch: 'main', commit_message: 'CI', actions: [{ action: 'create', file_path: '.gitlab-ci.yml', content: ci }] });
  for (let i = 0; i < 20; i++) {
    const user = await call(base, 'POST', '/users', { username: `bench-${i}-${Date.now()}`, name: `Bench ${i}`, email: `bench-${i}-${Date.now()}@example.com`, password: 'a-long-password-1' });
    await call(base, 'POST', `/projects/${project.id}/members`, { user_id: user.id, access_level: 30 });
    const token = await call(base, 'POST', `/users/${user.id}/personal_access_tokens`, { name: 'bench', scopes: ['api'] });
    await call(base, 'POST', `/projects/${project.id}/pipeline`, { ref: 'main' }, token.token);
  }
  return project.id;
}

const PAGE_SQL = `
  SELECT p.*, u."username", u."name", u."state"
  FROM "ci_pipelines" p LEFT JOIN "users" u ON u."id" = p."userId"
  WHERE p."projectId" = $1 AND p."source" <> 'parent_pipeline' ORDER BY p."id" DESC LIMIT 21`;

/** The floor: the page's SQL (pipelines with users, a count, the project) behind a bare handler, as JSON. */
async function floor(projectId: number): Promise<{ server: Server; url: string; close(): Promise<void> }> {
  let query: (sql: string, params: unknown[]) => Promise<unknown[]>;
  let end: () => Promise<void>;
  if (databaseUrl) {
    const { default: pg } = await import('pg');
    const pool = new pg.Pool({ connectionString: databaseUrl, max: 4 });
    query = async (sql, params) => (await pool.query(sql, params)).rows;
    end = () => pool.end();
  } else {
    const { PGlite } = await import('@electric-sql/pglite');
    const db = await PGlite.create({ dataDir });
    query = async (sql, params) => (await db.query(sql, params)).rows;
    end = () => db.close();
  }
  const server = createServer(async (_req, res) => {
    const [rows, count, project] = await Promise.all([
      query(PAGE_SQL, [projectId]),
      query(`SELECT count(*) FROM "ci_pipelines" WHERE "projectId" = $1`, [projectId]),
      query(`SELECT "fullPath" FROM "projects" WHERE "id" = $1`, [projectId]),
    ]);
    res.setHeader('Content-Type', 'application/json');
    res.end(JSON.stringify({ rows: rows.slice(0, 20), count, project }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  return { server, url: `http://127.0.0.1:${address.port}/`, close: async () => { await new Promise((r) => server.close(r)); await end(); } };
}

try {
  const api = await startChild('npm', ['start', '--silent'], env, '/api/v4/version', { 'PRIVATE-TOKEN': TOKEN });
  let projectId: number;
  let rest: Result;
  let graphql: Result;
  try {
    projectId = await seed(api.url);
    rest = await load(`${api.url}/api/v4/projects/${projectId}/pipelines?per_page=20`);
    const body = JSON.stringify({
      query: `{ project(fullPath: "${projectId}") { pipelines(first: 20) { nodes { id iid status user { username } detailedStatus { group } } } } }`,
    });
    graphql = await load(`${api.url}/api/graphql`, { method: 'POST', body });
  } finally {
    await api.stop();
  }
  const bare = await floor(projectId);
  let floorResult: Result;
  try {
    floorResult = await load(bare.url);
  } finally {
    await bare.close();
  }
  const row = (name: string, r: Result) => `| ${name} | ${r.rps.toFixed(0)} | ${r.p50} | ${r.p99} | ${(r.rps / floorResult.rps).toFixed(2)} |`;
  console.log(`\nPipeline list, 20 items of 20 users (${databaseUrl ? 'PostgreSQL' : 'PGlite'}, ${CONNECTIONS} connections, ${DURATION} s)\n`);
  console.log('| case | req/s | p50 ms | p99 ms | × floor |\n|---|---|---|---|---|');
  console.log(row('floor: the page SQL, raw driver, bare http', floorResult));
  console.log(row('GET /projects/:id/pipelines?per_page=20', rest));
  console.log(row('GraphQL pipelines(first: 20) with user and detailedStatus', graphql));
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
