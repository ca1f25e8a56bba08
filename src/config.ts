/** Server configuration: read from the environment once, validated at start. */
import { isIP } from 'node:net';
import { resolve } from 'node:path';

export interface Config {
  port: number;
  host: string;
  /** PGlite folder, or 'memory'; ignored when databaseUrl is set. */
  dataDir: string;
  databaseUrl: string | undefined;
  /**
   * Run PGlite in a worker thread, so the database and the server use a core each (measured 1.0-1.3x the requests
   * per second of PGlite in the server's thread); ignored when databaseUrl is set.
   */
  pgliteWorker: boolean;
  rootToken: string | undefined;
  externalUrl: string;
  logLevel: LogLevel;
  /** Largest request body accepted, in bytes. */
  bodyLimit: number;
  /** Largest file a commit made through the API may write (COMMIT_MAX_FILE_SIZE, bytes after decoding); 413 beyond. */
  commitMaxFileSize: number;
  /** Largest snippet file in bytes (GitLab's snippet_size_limit, 50 MB): SNIPPET_MAX_SIZE. */
  snippetMaxSize: number;
  /** Largest Markdown upload in bytes (GitLab's max_attachment_size, 100 MB): MAX_ATTACHMENT_SIZE; 413 beyond. */
  maxAttachmentSize: number;
  /** Whether epics are available (EPICS_ENABLED; GitLab's licensed `epics` feature): off, every epic endpoint answers 403. */
  epicsEnabled: boolean;
  /** Whether iterations are available (ITERATIONS_ENABLED; GitLab's licensed `iterations` feature): off, every iteration endpoint answers 403. */
  iterationsEnabled: boolean;
  /** Full path of the group whose members read the experiments listing (EXPERIMENTS_TEAM_GROUP; GitLab.com's gitlab-com); null: administrators only. */
  experimentsTeamGroup: string | null;
  /** Requests per minute allowed for one token (or one address when anonymous). 0 disables the limit. */
  rateLimitPerMinute: number;
  /** How long a stop may wait for in-flight requests before closing their connections. */
  shutdownTimeoutMs: number;
  /** Proxies whose `X-Forwarded-For` is believed (addresses, CIDR ranges, or `loopback`, `linklocal`, `uniquelocal`); none by default. */
  trustedProxies: string[];
  /** Objects a GraphQL operation's connections may return at most (a bound of ours; GitLab has none). 0 disables. */
  graphqlMaxNodes: number;
  /** Operations one graphql-ws connection may run at a time. */
  wsMaxSubscriptions: number;
  /** Messages one graphql-ws connection may send per minute; beyond, the socket is closed. 0 disables. */
  wsMessagesPerMinute: number;
  /** Connections to PostgreSQL per replica, reads and writes together (PGlite has one). */
  databasePoolSize: number;
  /** Of those, the connections kept for writes (mutations) and background work; read requests share the rest. */
  databaseWritePoolSize: number;
  /** Longest wait, in ms, for a connection or for a transaction to start; beyond it the request answers 503. */
  databasePoolTimeoutMs: number;
  /** Longest a statement may run (PostgreSQL's statement_timeout), and a transaction last, in ms. */
  databaseStatementTimeoutMs: number;
  /** Deadline of a GraphQL request, in ms: fields not started by then fail with a timeout (GitLab: 30 s). */
  graphqlTimeoutMs: number;
  /** Longest wait for a request's headers, in ms (Node's `headersTimeout`); 408 beyond. */
  headersTimeoutMs: number;
  /** Longest wait for a whole request, headers and body, in ms (Node's `requestTimeout`); 408 beyond. 0: no bound. */
  requestTimeoutMs: number;
  /** Deadline of a REST request, in ms: answered 503 when it passes (GitLab: 60 s). */
  restTimeoutMs: number;
  /** Server processes sharing the port (node:cluster); more than one only on PostgreSQL. */
  webConcurrency: number;
  /**
   * Where repositories live (REPOSITORY_STORAGES): named folders, each with GitLab's weight for new repositories.
   * Undefined: one storage `default` under the data folder (a temporary folder when DATA_DIR is `memory`).
   */
  repositoryStorages: RepositoryStorageConfig[] | undefined;
  /**
   * RUNNER=shell: at start the server makes sure it has an instance runner of its own (created once; its token kept
   * in `<DATA_DIR>/shell-runner.json`, or a new runner per start with DATA_DIR=memory) and runs the built-in shell
   * runner (`src/runner/`, the same client `npm run runner` starts) as a child process in its process group, which
   * stops with the server. Unset: no runner; jobs wait for one to be registered.
   */
  runner: 'shell' | null;
  /** RUNNER_CONCURRENCY: jobs the built-in runner runs at once (2). */
  runnerConcurrency: number;
  /** RUNNER_TAGS: the built-in runner's tags (comma-separated); with tags it takes no untagged jobs. */
  runnerTags: string[];
  /** Largest job artifact accepted (CI_MAX_ARTIFACT_SIZE, bytes; GitLab's default maximum artifacts size, 100 MB); 413 beyond. */
  ciMaxArtifactSize: number;
  /**
   * Largest package file accepted, every package type (PACKAGE_MAX_FILE_SIZE, bytes); null: GitLab's plan limits per
   * type (generic 5 GB, npm 500 MB, PyPI 3 GB, …). 413 beyond.
   */
  packageMaxFileSize: number | null;
  /**
   * How long `POST /jobs/request` holds a runner that already holds the latest queue state, waiting for a job to
   * become pending (CI_LONG_POLLING_MS; Workhorse's `apiCiLongPollingDuration`, 50 s). 0 answers at once.
   */
  ciLongPollingMs: number;
  /** System hooks may deliver to loopback, private and link-local addresses (ALLOW_LOCAL_REQUESTS_FROM_SYSTEM_HOOKS; GitLab's default true). */
  allowLocalRequestsFromSystemHooks: boolean;
  /** Project hooks may deliver to loopback, private and link-local addresses (ALLOW_LOCAL_REQUESTS_FROM_WEB_HOOKS; GitLab's default false). */
  allowLocalRequestsFromWebHooks: boolean;
  /** Longest a webhook delivery may take, connecting and answering (WEBHOOK_TIMEOUT_MS; GitLab's 10 s). */
  webhookTimeoutMs: number;
  /** Attempts of one delivery that meets a 5xx or a network error (WEBHOOK_MAX_ATTEMPTS). */
  webhookMaxAttempts: number;
  /** Wait before a delivery's second attempt, doubling for each later one (WEBHOOK_RETRY_BASE_MS). */
  webhookRetryBaseMs: number;
}

export interface RepositoryStorageConfig {
  name: string;
  /** Absolute folder. */
  path: string;
  /** Share of new repositories, as GitLab's storage weights (0 takes none). */
  weight: number;
}

export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';
const LOG_LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error', 'silent'];

export class ConfigError extends Error {}

function integer(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new ConfigError(`${name} must be an integer between ${min} and ${max}, got "${raw}"`);
  }
  return Number(raw);
}

function runnerKind(raw: string | undefined): 'shell' | null {
  if (raw === undefined || raw === '') return null;
  if (raw === 'shell') return 'shell';
  throw new ConfigError(`RUNNER must be "shell" or unset, got "${raw}"`);
}

function flag(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (raw === '1' || raw === 'true') return true;
  if (raw === '0' || raw === 'false') return false;
  throw new ConfigError(`${name} must be 1, 0, true or false, got "${raw}"`);
}

const PROXY = /^(loopback|linklocal|uniquelocal|[0-9.]+(\/\d{1,2})?|[0-9a-fA-F:.]+(\/\d{1,3})?)$/;

function proxies(raw: string | undefined): string[] {
  const list = (raw ?? '').split(',').map((p) => p.trim()).filter(Boolean);
  const bad = list.filter((p) => !PROXY.test(p) || (!/^[a-z]+$/.test(p) && isIP(p.split('/')[0]) === 0));
  if (bad.length) throw new ConfigError(`TRUSTED_PROXIES must list addresses, CIDR ranges, loopback, linklocal or uniquelocal; got "${bad.join(', ')}"`);
  return list;
}

const STORAGE = /^([A-Za-z0-9][A-Za-z0-9_.-]*)=(.+?)(?::(\d{1,3}))?$/;

/**
 * `name=path[:weight]` pairs, comma-separated. GitLab needs a storage named `default`; without a weight it takes
 * every new repository (weight 100) and the others none, as GitLab's defaults do.
 */
function repositoryStorages(raw: string | undefined): RepositoryStorageConfig[] | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  const storages = raw.split(',').map((entry) => {
    const match = STORAGE.exec(entry.trim());
    if (!match || match[2].trim() === '') {
      throw new ConfigError(`REPOSITORY_STORAGES entries are name=path or name=path:weight, got "${entry.trim()}"`);
    }
    const [, name, path, weight] = match;
    if (weight !== undefined && Number(weight) > 100) throw new ConfigError(`REPOSITORY_STORAGES: the weight of "${name}" must be between 0 and 100, got ${weight}`);
    return { name, path: resolve(path), weight: weight === undefined ? (name === 'default' ? 100 : 0) : Number(weight) };
  });
  const names = storages.map((s) => s.name);
  const twice = names.filter((n, i) => names.indexOf(n) !== i);
  if (twice.length) throw new ConfigError(`REPOSITORY_STORAGES names "${twice[0]}" twice`);
  if (!names.includes('default')) throw new ConfigError('REPOSITORY_STORAGES must include a storage named "default"');
  if (storages.every((s) => s.weight === 0)) throw new ConfigError('REPOSITORY_STORAGES: at least one storage needs a weight above 0 for new repositories');
  return storages;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Config> = {}): Config {
  const port = overrides.port ?? integer(env, 'PORT', 8080, 0, 65535);
  const databaseUrl = overrides.databaseUrl ?? (env.DATABASE_URL || undefined);
  if (databaseUrl !== undefined && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL must be a postgresql:// URL');
  }
  const logLevel = (overrides.logLevel ?? env.LOG_LEVEL ?? 'info') as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);
  const externalUrl = (overrides.externalUrl ?? env.EXTERNAL_URL ?? `http://localhost:${port}`).replace(/\/+$/, '');
  try {
    new URL(externalUrl);
  } catch {
    throw new ConfigError(`EXTERNAL_URL is not a URL: "${externalUrl}"`);
  }
  const databasePoolSize = overrides.databasePoolSize ?? integer(env, 'DATABASE_POOL_SIZE', 10, 2, 1000);
  const databaseWritePoolSize =
    overrides.databaseWritePoolSize ?? integer(env, 'DATABASE_WRITE_POOL_SIZE', Math.max(1, Math.floor(databasePoolSize / 3)), 1, 1000);
  if (databaseWritePoolSize >= databasePoolSize) {
    throw new ConfigError(`DATABASE_WRITE_POOL_SIZE must be smaller than DATABASE_POOL_SIZE (${databasePoolSize}), got ${databaseWritePoolSize}`);
  }
  const webConcurrency = overrides.webConcurrency ?? integer(env, 'WEB_CONCURRENCY', 1, 1, 256);
  // PGlite is one database inside one process: a second process could not open it.
  if (webConcurrency > 1 && !databaseUrl) throw new ConfigError('WEB_CONCURRENCY above 1 needs DATABASE_URL: PGlite runs inside one process');
  const headersTimeoutMs = overrides.headersTimeoutMs ?? integer(env, 'HEADERS_TIMEOUT_MS', 60_000, 1, 3_600_000);
  const requestTimeoutMs = overrides.requestTimeoutMs ?? integer(env, 'REQUEST_TIMEOUT_MS', 300_000, 0, 86_400_000);
  // Node refuses a request timeout shorter than the headers' (the headers are part of the request).
  if (requestTimeoutMs > 0 && requestTimeoutMs < headersTimeoutMs) {
    throw new ConfigError(`REQUEST_TIMEOUT_MS (${requestTimeoutMs}) must be 0 or at least HEADERS_TIMEOUT_MS (${headersTimeoutMs})`);
  }
  return {
    port,
    host: overrides.host ?? env.HOST ?? '0.0.0.0',
    dataDir: overrides.dataDir ?? env.DATA_DIR ?? './data',
    databaseUrl,
    pgliteWorker: overrides.pgliteWorker ?? flag(env, 'PGLITE_WORKER', true),
    rootToken: overrides.rootToken ?? (env.GITLAB_ROOT_TOKEN || undefined),
    externalUrl,
    logLevel,
    bodyLimit: overrides.bodyLimit ?? integer(env, 'BODY_LIMIT', 10 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
    commitMaxFileSize: overrides.commitMaxFileSize ?? integer(env, 'COMMIT_MAX_FILE_SIZE', 10 * 1024 * 1024, 1, 1024 * 1024 * 1024),
    snippetMaxSize: overrides.snippetMaxSize ?? integer(env, 'SNIPPET_MAX_SIZE', 50 * 1024 * 1024, 1, 1024 * 1024 * 1024),
    maxAttachmentSize: overrides.maxAttachmentSize ?? integer(env, 'MAX_ATTACHMENT_SIZE', 100 * 1024 * 1024, 1, 1024 * 1024 * 1024),
    epicsEnabled: overrides.epicsEnabled ?? flag(env, 'EPICS_ENABLED', true),
    iterationsEnabled: overrides.iterationsEnabled ?? flag(env, 'ITERATIONS_ENABLED', true),
    experimentsTeamGroup: overrides.experimentsTeamGroup !== undefined ? overrides.experimentsTeamGroup : (env.EXPERIMENTS_TEAM_GROUP ?? 'gitlab-com').trim() || null,
    rateLimitPerMinute: overrides.rateLimitPerMinute ?? integer(env, 'RATE_LIMIT_PER_MINUTE', 6000, 0, 10_000_000),
    shutdownTimeoutMs: overrides.shutdownTimeoutMs ?? integer(env, 'SHUTDOWN_TIMEOUT', 30, 1, 3600) * 1000,
    trustedProxies: overrides.trustedProxies ?? proxies(env.TRUSTED_PROXIES),
    graphqlMaxNodes: overrides.graphqlMaxNodes ?? integer(env, 'GRAPHQL_MAX_NODES', 25_000, 0, 1_000_000_000),
    wsMaxSubscriptions: overrides.wsMaxSubscriptions ?? integer(env, 'GRAPHQL_WS_MAX_SUBSCRIPTIONS', 100, 1, 100_000),
    wsMessagesPerMinute: overrides.wsMessagesPerMinute ?? integer(env, 'GRAPHQL_WS_MESSAGES_PER_MINUTE', 600, 0, 10_000_000),
    databasePoolSize,
    databaseWritePoolSize,
    databasePoolTimeoutMs: overrides.databasePoolTimeoutMs ?? integer(env, 'DATABASE_POOL_TIMEOUT_MS', 5000, 1, 600_000),
    databaseStatementTimeoutMs: overrides.databaseStatementTimeoutMs ?? integer(env, 'DATABASE_STATEMENT_TIMEOUT_MS', 15_000, 1, 3_600_000),
    graphqlTimeoutMs: overrides.graphqlTimeoutMs ?? integer(env, 'GRAPHQL_TIMEOUT_MS', 30_000, 1, 3_600_000),
    restTimeoutMs: overrides.restTimeoutMs ?? integer(env, 'REST_TIMEOUT_MS', 60_000, 1, 3_600_000),
    headersTimeoutMs,
    requestTimeoutMs,
    webConcurrency,
    repositoryStorages: overrides.repositoryStorages ?? repositoryStorages(env.REPOSITORY_STORAGES),
    runner: overrides.runner !== undefined ? overrides.runner : runnerKind(env.RUNNER),
    runnerConcurrency: overrides.runnerConcurrency ?? integer(env, 'RUNNER_CONCURRENCY', 2, 1, 100),
    runnerTags: overrides.runnerTags ?? [...new Set((env.RUNNER_TAGS ?? '').split(',').map((tag) => tag.trim()).filter(Boolean))],
    ciMaxArtifactSize: overrides.ciMaxArtifactSize ?? integer(env, 'CI_MAX_ARTIFACT_SIZE', 100 * 1024 * 1024, 1, 1024 ** 4),
    packageMaxFileSize: overrides.packageMaxFileSize !== undefined ? overrides.packageMaxFileSize : env.PACKAGE_MAX_FILE_SIZE ? integer(env, 'PACKAGE_MAX_FILE_SIZE', 0, 1, 1024 ** 4) : null,
    ciLongPollingMs: overrides.ciLongPollingMs ?? integer(env, 'CI_LONG_POLLING_MS', 50_000, 0, 600_000),
    allowLocalRequestsFromSystemHooks: overrides.allowLocalRequestsFromSystemHooks ?? flag(env, 'ALLOW_LOCAL_REQUESTS_FROM_SYSTEM_HOOKS', true),
    allowLocalRequestsFromWebHooks: overrides.allowLocalRequestsFromWebHooks ?? flag(env, 'ALLOW_LOCAL_REQUESTS_FROM_WEB_HOOKS', false),
    webhookTimeoutMs: overrides.webhookTimeoutMs ?? integer(env, 'WEBHOOK_TIMEOUT_MS', 10_000, 1, 600_000),
    webhookMaxAttempts: overrides.webhookMaxAttempts ?? integer(env, 'WEBHOOK_MAX_ATTEMPTS', 3, 1, 20),
    webhookRetryBaseMs: overrides.webhookRetryBaseMs ?? integer(env, 'WEBHOOK_RETRY_BASE_MS', 10_000, 0, 3_600_000),
  };
}
