import { afterAll, beforeAll } from 'vitest';
/** Starts the real server on a real port (port 0) over a fresh database, with helpers to call it over HTTP. */
import { randomBytes } from 'node:crypto';
import { loadConfig, type Config } from '../../src/config.js';
import { startServer, type RunningServer } from '../../src/server.js';
import { databaseBounds, openDatabase, type Database } from '../../src/db/database.js';
import { freshDatabase } from './db.js';

export const EXTERNAL_URL = 'http://gitlab.example.com';

export interface ApiResponse<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface TestServer {
  server: RunningServer;
  url: string;
  /** The PostgreSQL database this server uses; undefined on PGlite. */
  databaseUrl: string | undefined;
  rootToken: string;
  /** Raw HTTP to `/api/v4<path>`; JSON bodies are sent as JSON. */
  api<T = any>(method: string, path: string, options?: { token?: string | null; body?: unknown; headers?: Record<string, string> }): Promise<ApiResponse<T>>;
  /** POST a GraphQL operation to /api/graphql. */
  graphql<T = any>(query: string, variables?: Record<string, unknown>, token?: string | null): Promise<ApiResponse<{ data?: T; errors?: { message: string; extensions?: Record<string, unknown> }[] }>>;
  close(): Promise<void>;
}

export interface TestServerOptions {
  /** Run as another replica on the database of this server (PostgreSQL only). */
  replicaOf?: TestServer;
  /** Called with every SQL statement the server runs (query budgets). */
  onQuery?: (sql: string) => void;
}

export async function startTestServer(overrides: Partial<Config> = {}, options: TestServerOptions = {}): Promise<TestServer> {
  const primary = options.replicaOf;
  const rootToken = primary?.rootToken ?? `glpat-root-${randomBytes(12).toString('hex')}`;
  // Repositories in a temporary folder removed at close; a replica uses its primary's, as replicas share storages.
  const repositoryStorages = primary?.server.app.repositories.storages.slice();
  const config = loadConfig({}, { port: 0, host: '127.0.0.1', rootToken, logLevel: 'silent', externalUrl: EXTERNAL_URL, dataDir: 'memory', repositoryStorages, ...overrides });
  let db: Database;
  let cleanup: () => Promise<void>;
  let fresh: Awaited<ReturnType<typeof freshDatabase>> | undefined;
  if (primary) {
    if (!primary.databaseUrl) throw new Error('replicas need a PostgreSQL database');
    db = await openDatabase({ databaseUrl: primary.databaseUrl, bounds: databaseBounds(config) });
    cleanup = () => db.close();
  } else {
    fresh = await freshDatabase('test', { onQuery: options.onQuery, bounds: databaseBounds(config), pgliteWorker: overrides.pgliteWorker });
    ({ db, cleanup } = fresh);
  }
  // A poll of the job queue every second would land in the statement counts and connection waits tests measure.
  const server = await startServer(config, { database: db, jobPollIntervalMs: 60_000 });
  const url = server.url;

  async function request<T>(method: string, target: string, token: string | null | undefined, body: unknown, headers: Record<string, string> = {}) {
    const h: Record<string, string> = { ...headers };
    if (token) h['PRIVATE-TOKEN'] = token;
    let payload: string | undefined;
    if (body !== undefined) {
      if (typeof body === 'string') payload = body;
      else {
        payload = JSON.stringify(body);
        h['Content-Type'] ??= 'application/json';
      }
    }
    const res = await fetch(`${url}${target}`, { method, headers: h, body: payload });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      parsed = text;
    }
    return { status: res.status, headers: res.headers, body: parsed as T, text };
  }

  return {
    server,
    url,
    databaseUrl: primary?.databaseUrl ?? fresh?.databaseUrl,
    rootToken,
    api: (method, path, options = {}) => request(method, `/api/v4${path}`, options.token === undefined ? rootToken : options.token, options.body, options.headers),
    graphql: (query, variables = {}, token = rootToken) => request('POST', '/api/graphql', token, { query, variables }),
    async close() {
      await server.close();
      await cleanup();
    },
  };
}

/**
 * The server of one test file: started before its tests, closed after them. The returned object forwards to
 * it, so a file writes `const t = suiteServer();` and uses `t` in its hooks and tests.
 */
export function suiteServer(overrides: Partial<Config> = {}, options: TestServerOptions = {}): TestServer {
  let started: TestServer | undefined;
  beforeAll(async () => {
    started = await startTestServer(overrides, options);
  });
  afterAll(() => started?.close());
  return new Proxy({} as TestServer, {
    get(_target, key) {
      if (!started) throw new Error('the suite server is used before beforeAll started it');
      const value = started[key as keyof TestServer];
      return typeof value === 'function' ? value.bind(started) : value;
    },
  });
}
