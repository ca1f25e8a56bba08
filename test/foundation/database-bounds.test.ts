import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, type Config } from '../../src/config.js';
import type { PrismaClient } from '../../src/db/database.js';
import { startTestServer, type ApiResponse, type TestServer } from '../support/server.js';
import { unique } from '../support/factories.js';
import { issueToken } from '../../src/modules/tokens/service.js';

const onPostgres = !!process.env.TEST_DATABASE_URL;

/** A server of its own for one describe block. */
function server(overrides: Partial<Config>): () => TestServer {
  let started: TestServer | undefined;
  beforeAll(async () => {
    started = await startTestServer({ rateLimitPerMinute: 0, ...overrides });
  });
  afterAll(() => started?.close());
  return () => {
    if (!started) throw new Error('server not started');
    return started;
  };
}

/**
 * Takes a connection of `client` and keeps it, in an open transaction, until released: on PostgreSQL one
 * connection of that lane's pool, on PGlite the only connection there is.
 */
async function hold(client: PrismaClient): Promise<() => Promise<void>> {
  let release = () => {};
  const released = new Promise<void>((resolve) => (release = resolve));
  let taken = () => {};
  const holding = new Promise<void>((resolve) => (taken = resolve));
  const transaction = client.$transaction(async (tx) => {
    await tx.$queryRaw`SELECT 1`;
    taken();
    await released;
  });
  await holding;
  return async () => {
    release();
    await transaction;
  };
}

/**
 * Users whose rows a search has to scan one by one (GitLab's user search is a substring match), written on a
 * connection of the test's own: the server's may not run a statement that long.
 */
async function bulkUsers(t: TestServer, count: number): Promise<void> {
  const tag = unique('bulk');
  const sql = `INSERT INTO users (username, name, email, "updatedAt")
    SELECT '${tag}-' || g, 'Bulk ' || g, '${tag}-' || g || '@example.com', now() FROM generate_series(1, ${count}) g`;
  if (!t.databaseUrl) {
    await t.server.database.prisma.$executeRawUnsafe(sql);
    return;
  }
  const client = new pg.Client({ connectionString: t.databaseUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

const HEAVY_READ = '{ users(search: "zz-no-such-user") { count nodes { id } } }';

function expectUnavailable(res: ApiResponse) {
  expect(res.status).toBe(503);
  expect(res.body).toEqual({ message: '503 Service Unavailable' });
  expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
}

describe('configuration', () => {
  it('defaults to GitLab\'s deadlines and a pool that keeps a third of its connections for writes', () => {
    expect(loadConfig({})).toMatchObject({
      databasePoolSize: 10,
      databaseWritePoolSize: 3,
      databasePoolTimeoutMs: 5000,
      databaseStatementTimeoutMs: 15_000,
      graphqlTimeoutMs: 30_000,
      restTimeoutMs: 60_000,
    });
  });

  it('refuses a write pool as large as the pool, and bounds that are not positive integers', () => {
    expect(() => loadConfig({ DATABASE_POOL_SIZE: '4', DATABASE_WRITE_POOL_SIZE: '4' })).toThrow(ConfigError);
    expect(() => loadConfig({ DATABASE_POOL_SIZE: '1' })).toThrow(/DATABASE_POOL_SIZE must be an integer between 2/);
    for (const name of ['DATABASE_POOL_TIMEOUT_MS', 'DATABASE_STATEMENT_TIMEOUT_MS', 'GRAPHQL_TIMEOUT_MS', 'REST_TIMEOUT_MS']) {
      expect(() => loadConfig({ [name]: '0' }), name).toThrow(ConfigError);
      expect(() => loadConfig({ [name]: '1.5s' }), name).toThrow(ConfigError);
    }
  });
});

describe.skipIf(!onPostgres)('a saturated pool (PostgreSQL)', () => {
  const t = server({ databasePoolSize: 2, databaseWritePoolSize: 1, databasePoolTimeoutMs: 300 });

  it('answers a write that gets no connection in time 503 with Retry-After, while reads go on', async () => {
    const release = await hold(t().server.database.prisma);
    try {
      expectUnavailable(await t().api('POST', '/groups', { body: { name: 'x', path: unique('held') } }));
      const graphql = await t().graphql('mutation($p: String!) { groupCreate(input: { name: $p, path: $p }) { group { id } } }', { p: unique('held') });
      expect(graphql.status).toBe(503);
      expect(Number(graphql.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(graphql.body.errors?.[0].extensions?.code).toBe('SERVICE_UNAVAILABLE');
      expect((await t().api('GET', '/projects')).status).toBe(200);
    } finally {
      await release();
    }
    expect((await t().api('POST', '/groups', { body: { name: 'x', path: unique('free') } })).status).toBe(201);
  });

  it('keeps writes going while reads hold every read connection', async () => {
    const release = await hold(t().server.database.readPrisma);
    try {
      expectUnavailable(await t().api('GET', '/projects'));
      const read = await t().graphql('{ projects { count } }');
      expect(read.status).toBe(503);
      expect(read.body.errors?.[0]).toMatchObject({ message: '503 Service Unavailable', extensions: { code: 'SERVICE_UNAVAILABLE' } });
      expect((await t().api('POST', '/groups', { body: { name: 'x', path: unique('write') } })).status).toBe(201);
    } finally {
      await release();
    }
  });
});

describe('request deadlines', () => {
  // The pool waits longer than the deadlines, so it is the deadline that ends a request stuck behind the held connection.
  const t = server({ databasePoolSize: 2, databaseWritePoolSize: 1, databasePoolTimeoutMs: 10_000, restTimeoutMs: 300, graphqlTimeoutMs: 300 });

  it('answers a REST request still waiting at its deadline 503, and does not do its work later', async () => {
    const path = unique('late');
    const release = await hold(t().server.database.prisma);
    let late: ApiResponse;
    try {
      late = await t().api('POST', '/groups', { body: { name: path, path } });
    } finally {
      await release();
    }
    expect(late.status).toBe(503);
    expect(late.body).toEqual({ message: '503 Service Unavailable' });
    expect(late.headers.get('retry-after')).toBeNull();
    // The late request reaches its resolvers once the connection is free, past its deadline: they refuse to start,
    // so there is no such group. A busy machine may miss this server's short deadline on the read too: then it reads
    // again (a read, as a write answered 503 once its work had begun would do it, and then the path would be taken).
    let again = await t().api('GET', `/groups/${path}`);
    for (let tries = 1; again.status === 503 && tries < 5; tries++) again = await t().api('GET', `/groups/${path}`);
    expect(again.status, again.text).toBe(404);
    expect((await t().api('POST', '/groups', { body: { name: path, path } })).status).not.toBe(400);
  });

  it('fails GraphQL fields that would start after the deadline with graphql-ruby\'s timeout error', async () => {
    // A token used for the first time: its lookup waits for the held connection (a known one is remembered).
    // Issued straight in the database: this server's 300 ms REST deadline leaves no room for a busy machine.
    const root = await t().server.database.prisma.user.findUniqueOrThrow({ where: { username: 'root' } });
    const fresh = await issueToken(t().server.database.prisma, { userId: root.id, name: 'deadline', scopes: ['api'], expiresAt: null });
    const release = await hold(t().server.database.readPrisma);
    const pending = t().graphql('{ currentUser { username } }', {}, fresh.token);
    await new Promise((resolve) => setTimeout(resolve, 400)); // the deadline itself is what this waits for
    await release();
    const res = await pending;
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ currentUser: null });
    expect(res.body.errors).toEqual([expect.objectContaining({ message: 'Timeout on Query.currentUser', extensions: { code: 'TIMEOUT' } })]);
  });
});

describe('heavy reads', () => {
  const t = server({ databasePoolSize: 6, databaseWritePoolSize: 2, databasePoolTimeoutMs: 2000 });
  beforeAll(async () => {
    await bulkUsers(t(), onPostgres ? 100_000 : 10_000);
  });

  it('do not make writes fail: every write answers 201, or 503 with Retry-After', async () => {
    const readers = onPostgres ? 12 : 4;
    let writing = true;
    const readStatuses: number[] = [];
    let firstRead = () => {};
    const reading = new Promise<void>((resolve) => (firstRead = resolve));
    const loops = Array.from({ length: readers }, async () => {
      while (writing) {
        const res = await t().graphql(HEAVY_READ);
        readStatuses.push(res.status);
        firstRead();
      }
    });
    await reading;
    const writes = await Promise.all(
      Array.from({ length: 30 }, () => t().api('POST', '/projects', { body: { name: unique('busy') } })),
    ).finally(() => (writing = false));
    await Promise.all(loops);
    for (const res of writes.filter((r) => r.status !== 201)) expectUnavailable(res);
    expect(writes.filter((r) => r.status === 201).length).toBeGreaterThan(0);
    expect(readStatuses.every((s) => s === 200 || s === 503)).toBe(true);
  });
});

describe.skipIf(!onPostgres)('the statement timeout (PostgreSQL)', () => {
  // PGlite runs in WebAssembly, which cannot interrupt a statement: there the deadlines are the bound.
  const t = server({ databaseStatementTimeoutMs: 40 });
  beforeAll(async () => {
    await bulkUsers(t(), 200_000);
  });

  it('answers a statement cancelled by the statement timeout 503, over REST and GraphQL, never 500', async () => {
    expectUnavailable(await t().api('GET', '/users?search=zz-no-such-user'));
    const graphql = await t().graphql(HEAVY_READ);
    expect(graphql.status).toBe(503);
    expect(Number(graphql.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(graphql.body.errors?.[0]).toMatchObject({
      message: 'Request timed out. Please try a less complex query or a smaller set of records.',
      extensions: { code: 'SERVICE_UNAVAILABLE' },
    });
  });
});
