/** What the bench's processes share: the token, the project JSON the floors answer with, and process plumbing. */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FEATURE_COLUMNS, defaultFeatureLevels, type ProjectFeatureName } from '../../src/auth/project-features.js';
import { createInterface } from 'node:readline';
import WebSocket from 'ws';
import pg from 'pg';
import { PGlite } from '@electric-sql/pglite';
import { freePort } from '../support/process.js';

export { freePort };

export const ROOT = new URL('../../', import.meta.url).pathname;
export const TOKEN = 'glpat-bench-root-token-0000000000';

/** The columns a project answer needs, as one row: the project, its namespace and the namespace's owner. */
export interface ProjectRow {
  id: number;
  name: string;
  path: string;
  description: string | null;
  fullPath: string;
  defaultBranch: string | null;
  visibility: string;
  archived: boolean;
  creatorId: number | null;
  repositoryStorage: string;
  createdAt: Date;
  updatedAt: Date;
  lastActivityAt: Date;
  ns_id: number;
  ns_name: string;
  ns_path: string;
  ns_kind: string;
  ns_fullPath: string;
  ns_fullName: string;
  ns_parentId: number | null;
  ns_avatarUrl: string | null;
  owner_id: number | null;
  owner_username: string | null;
  owner_name: string | null;
  owner_state: string | null;
  owner_avatarUrl: string | null;
  requestAccessEnabled: boolean;
  ciConfigPath: string | null;
  publicJobs: boolean;
  buildTimeout: number;
  ciDefaultGitDepth: number;
  ciForwardDeploymentEnabled: boolean;
  ciForwardDeploymentRollbackAllowed: boolean;
  ciAllowForkPipelinesToRunInParentProject: boolean;
  ciSeparatedCaches: boolean;
  groupRunnersEnabled: boolean;
  buildAllowGitFetch: boolean;
  keepLatestArtifact: boolean;
  autoCancelPendingPipelines: string;
  restrictUserDefinedVariables: boolean;
  ciPipelineVariablesMinimumOverrideRole: string;
  onlyAllowMergeIfPipelineSucceeds: boolean;
  allowMergeOnSkippedPipeline: boolean;
  mergePipelinesEnabled: boolean;
  mergeTrainsEnabled: boolean;
  mergeTrainsSkipTrainAllowed: boolean;
  onlyAllowMergeIfAllDiscussionsAreResolved: boolean;
  removeSourceBranchAfterMerge: boolean;
  mergeMethod: string;
  squashOption: string;
  suggestionCommitMessage: string | null;
  mergeCommitTemplate: string | null;
  squashCommitTemplate: string | null;
  sharedRunnersEnabled: boolean;
  /** The project's feature levels by column (project_features), null for GitLab's defaults. */
  features: Record<string, string> | null;
  topics: string[];
  emptyRepo: boolean;
  forks_count: number | string;
  star_count: number | string;
  /** Its open issues that are neither confidential nor hidden (Projects::BatchOpenIssuesCountService). */
  open_issues_count: number | string;
  /** Its shares with groups, oldest first (the bench's viewer reads every group). */
  shares: { group_id: number; group_name: string; group_full_path: string; group_access_level: number; expires_at: string | null }[];
}

/** The deprecated booleans of Entities::Project, each from its feature. */
const FEATURE_BOOLEANS: [string, ProjectFeatureName][] = [
  ['issues_enabled', 'issues'], ['merge_requests_enabled', 'merge_requests'], ['wiki_enabled', 'wiki'],
  ['jobs_enabled', 'builds'], ['snippets_enabled', 'snippets'], ['container_registry_enabled', 'container_registry'],
];

/** GitLab's project JSON (without `permissions`), written by hand from one row. */
export function projectJson(p: ProjectRow, external: string) {
  const defaults = defaultFeatureLevels(p.visibility as 'public' | 'internal' | 'private') as Record<string, string>;
  const level = (feature: ProjectFeatureName) => p.features?.[FEATURE_COLUMNS[feature]] ?? defaults[FEATURE_COLUMNS[feature]];
  const links = (id: number) => ({
    self: `${external}/api/v4/projects/${id}`,
    issues: `${external}/api/v4/projects/${id}/issues`,
    merge_requests: `${external}/api/v4/projects/${id}/merge_requests`,
    repo_branches: `${external}/api/v4/projects/${id}/repository/branches`,
    labels: `${external}/api/v4/projects/${id}/labels`,
    events: `${external}/api/v4/projects/${id}/events`,
    members: `${external}/api/v4/projects/${id}/members`,
    cluster_agents: `${external}/api/v4/projects/${id}/cluster_agents`,
  });
  return {
    id: p.id,
    description: p.description,
    name: p.name,
    name_with_namespace: `${p.ns_fullName} / ${p.name}`,
    path: p.path,
    path_with_namespace: p.fullPath,
    created_at: new Date(p.createdAt).toISOString(),
    default_branch: p.defaultBranch,
    tag_list: p.topics,
    topics: p.topics,
    ssh_url_to_repo: `git@${new URL(external).hostname}:${p.fullPath}.git`,
    http_url_to_repo: `${external}/${p.fullPath}.git`,
    web_url: `${external}/${p.fullPath}`,
    readme_url: null,
    forks_count: Number(p.forks_count),
    avatar_url: null,
    star_count: Number(p.star_count),
    last_activity_at: new Date(p.lastActivityAt).toISOString(),
    namespace: {
      id: p.ns_id, name: p.ns_name, path: p.ns_path, kind: p.ns_kind, full_path: p.ns_fullPath, parent_id: p.ns_parentId, avatar_url: p.ns_avatarUrl,
      web_url: `${external}/${p.ns_kind === 'group' ? 'groups/' : ''}${p.ns_fullPath}`,
    },
    visibility: p.visibility,
    ...(p.owner_id !== null
      ? { owner: { id: p.owner_id, username: p.owner_username, name: p.owner_name, state: p.owner_state, locked: false, avatar_url: p.owner_avatarUrl, web_url: `${external}/${p.owner_username}` } }
      : {}),
    creator_id: p.creatorId,
    archived: p.archived,
    empty_repo: p.emptyRepo,
    // The bench's viewers may use every feature that is not disabled.
    ...Object.fromEntries(FEATURE_BOOLEANS.map(([key, feature]) => [key, level(feature) !== 'disabled'])),
    ...(level('issues') !== 'disabled' ? { open_issues_count: Number(p.open_issues_count) } : {}),
    ...Object.fromEntries((Object.keys(FEATURE_COLUMNS) as ProjectFeatureName[]).map((feature) => [`${feature}_access_level`, level(feature)])),
    request_access_enabled: p.requestAccessEnabled,
    ci_config_path: p.ciConfigPath,
    // The CI settings an administrator (the bench's viewer) is shown.
    public_jobs: p.publicJobs,
    build_timeout: p.buildTimeout,
    ci_default_git_depth: p.ciDefaultGitDepth,
    ci_forward_deployment_enabled: p.ciForwardDeploymentEnabled,
    ci_forward_deployment_rollback_allowed: p.ciForwardDeploymentRollbackAllowed,
    ci_allow_fork_pipelines_to_run_in_parent_project: p.ciAllowForkPipelinesToRunInParentProject,
    ci_separated_caches: p.ciSeparatedCaches,
    group_runners_enabled: p.groupRunnersEnabled,
    build_git_strategy: p.buildAllowGitFetch ? 'fetch' : 'clone',
    keep_latest_artifact: p.keepLatestArtifact,
    auto_cancel_pending_pipelines: p.autoCancelPendingPipelines,
    restrict_user_defined_variables: p.restrictUserDefinedVariables,
    ci_pipeline_variables_minimum_override_role: p.ciPipelineVariablesMinimumOverrideRole,
    only_allow_merge_if_pipeline_succeeds: p.onlyAllowMergeIfPipelineSucceeds,
    allow_merge_on_skipped_pipeline: p.allowMergeOnSkippedPipeline,
    only_allow_merge_if_all_discussions_are_resolved: p.onlyAllowMergeIfAllDiscussionsAreResolved,
    remove_source_branch_after_merge: p.removeSourceBranchAfterMerge,
    merge_method: p.mergeMethod,
    squash_option: p.squashOption,
    suggestion_commit_message: p.suggestionCommitMessage,
    merge_commit_template: p.mergeCommitTemplate,
    squash_commit_template: p.squashCommitTemplate,
    merge_pipelines_enabled: p.mergePipelinesEnabled,
    // In effect only with merged results pipelines (EE's ProjectCiCdSetting#merge_trains_enabled?).
    merge_trains_enabled: p.mergeTrainsEnabled && p.mergePipelinesEnabled,
    merge_trains_skip_train_allowed: p.mergeTrainsSkipTrainAllowed && p.mergeTrainsEnabled && p.mergePipelinesEnabled,
    shared_runners_enabled: p.sharedRunnersEnabled,
    updated_at: new Date(p.updatedAt).toISOString(),
    repository_storage: p.repositoryStorage,
    shared_with_groups: p.shares,
    _links: links(p.id),
  };
}


export interface Child {
  process: ChildProcess;
  url: string;
  stop(): Promise<void>;
}

/**
 * Starts a process in the project folder and waits until `readyPath` answers 2xx (or the process exits). `onLine`,
 * when given, hears each line the process writes on stdout (the server's JSON log).
 */
export async function startChild(
  command: string,
  args: string[],
  env: Record<string, string>,
  readyPath: string,
  readyHeaders: Record<string, string> = {},
  onLine?: (line: string) => void,
): Promise<Child> {
  const port = await freePort();
  const child = spawn(command, args, { cwd: ROOT, env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1' }, stdio: ['ignore', onLine ? 'pipe' : 'ignore', 'pipe'] });
  if (onLine && child.stdout) createInterface({ input: child.stdout }).on('line', onLine);
  let stderr = '';
  child.stderr?.on('data', (c: Buffer) => (stderr = (stderr + c.toString()).slice(-4000)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let gone = false;
  void exited.then(() => (gone = true));
  const url = `http://127.0.0.1:${port}`;
  for (;;) {
    if (gone) throw new Error(`${command} ${args.join(' ')} exited before answering:\n${stderr}`);
    const ok = await fetch(`${url}${readyPath}`, { headers: readyHeaders }).then((r) => r.ok, () => false);
    if (ok) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    process: child,
    url,
    async stop() {
      if (!gone) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** `npm start` as a user runs it: on a free port, answered once GET /api/v4/version says 200. */
export interface NpmStart {
  /** npm's pid: the root of the process tree. */
  pid: number;
  port: number;
  /** From spawning npm to the first 200, in ms. */
  ms: number;
  /** SIGTERM to the process group; resolves when npm has exited. */
  stop(): Promise<void>;
}

export async function npmStart(env: Record<string, string>): Promise<NpmStart> {
  const port = await freePort();
  const started = process.hrtime.bigint();
  const child = spawn('npm', ['start'], {
    cwd: ROOT,
    detached: true,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', GITLAB_ROOT_TOKEN: TOKEN, LOG_LEVEL: 'silent', DATABASE_URL: '', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let done = false;
  void exited.then(() => (done = true));
  const stop = async () => {
    if (!done) process.kill(-(child.pid ?? 0), 'SIGTERM');
    await exited;
  };
  for (;;) {
    if (done) throw new Error(`npm start exited: ${stderr}`);
    const ok = await fetch(`http://127.0.0.1:${port}/api/v4/version`, { headers: { 'PRIVATE-TOKEN': TOKEN } }).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) break;
    await new Promise((r) => setTimeout(r, 10));
  }
  return { pid: child.pid ?? 0, port, ms: Number(process.hrtime.bigint() - started) / 1e6, stop };
}

/** A scratch database on the local PostgreSQL server (trust authentication), or DATABASE_URL when set. */
export function scratchPostgres(label: string): { url: string; drop(): void } {
  if (process.env.DATABASE_URL) return { url: process.env.DATABASE_URL, drop: () => {} };
  const name = `${label}_${process.pid}`;
  const psql = (sql: string) => execFileSync('psql', ['-h', '127.0.0.1', '-U', 'postgres', '-d', 'postgres', '-qc', sql]);
  psql(`CREATE DATABASE ${name}`);
  return { url: `postgresql://postgres@127.0.0.1:5432/${name}`, drop: () => psql(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

/** A line on stderr with the time, so a long bench shows where it is. */
export function progress(line: string): void {
  process.stderr.write(`${new Date().toISOString()} ${line}\n`);
}

/** The child's used JS heap after a full garbage collection, through the inspector protocol. */
export async function heapUsed(inspectPort: number): Promise<number> {
  const [target] = (await (await fetch(`http://127.0.0.1:${inspectPort}/json/list`)).json()) as { webSocketDebuggerUrl: string }[];
  const socket = new WebSocket(target.webSocketDebuggerUrl);
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  let next = 0;
  const call = (method: string) =>
    new Promise<any>((resolve) => {
      const id = ++next;
      const onMessage = (raw: Buffer) => {
        const msg = JSON.parse(raw.toString()) as { id?: number; result?: unknown };
        if (msg.id !== id) return;
        socket.off('message', onMessage);
        resolve(msg.result);
      };
      socket.on('message', onMessage);
      socket.send(JSON.stringify({ id, method }));
    });
  await call('HeapProfiler.collectGarbage');
  const usage = (await call('Runtime.getHeapUsage')) as { usedSize: number };
  socket.close();
  return usage.usedSize;
}

/** The p-th percentile (nearest rank). */
/** ms of each of `n` runs of `fn`, one after another. */
export async function timings(n: number, fn: () => Promise<unknown>): Promise<number[]> {
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const start = performance.now();
    await fn();
    ms.push(performance.now() - start);
  }
  return ms;
}

export function pct(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}

/**
 * A production server's environment for a bench part: PGlite in a new scratch folder, or DATABASE_URL's PostgreSQL
 * with the repositories in that folder.
 */
export function serverEnv(label: string): { env: Record<string, string>; dataDir: string; databaseUrl: string | undefined } {
  const databaseUrl = process.env.DATABASE_URL || undefined;
  const dataDir = mkdtempSync(join(tmpdir(), `bench-${label}-`));
  const env = {
    ...(databaseUrl ? { DATABASE_URL: databaseUrl, REPOSITORY_STORAGES: `default=${join(dataDir, 'repositories')}` } : { DATA_DIR: dataDir, DATABASE_URL: '' }),
    NODE_ENV: 'production',
    GITLAB_ROOT_TOKEN: TOKEN,
    RATE_LIMIT_PER_MINUTE: '0',
    LOG_LEVEL: 'warn',
  };
  return { env, dataDir, databaseUrl };
}

/**
 * The insert floor of the ingestion parts: `count` single-row inserts, one per call, on the database the server used
 * (its PostgreSQL, or PGlite on its data folder once it stopped) with that database's own driver; each call's ms.
 */
export async function insertFloor(databaseUrl: string | undefined, dataDir: string, count: number): Promise<number[]> {
  const time = async (run: (sql: string, params: unknown[]) => Promise<unknown>) => {
    await run('CREATE TABLE IF NOT EXISTS bench_floor (id serial PRIMARY KEY, payload jsonb, at timestamptz)', []);
    const ms: number[] = [];
    for (let i = 0; i < count; i++) {
      const started = performance.now();
      await run('INSERT INTO bench_floor (payload, at) VALUES ($1, now())', [JSON.stringify({ i })]);
      ms.push(performance.now() - started);
    }
    await run('DROP TABLE bench_floor', []);
    return ms;
  };
  if (databaseUrl) {
    const pool = new pg.Pool({ connectionString: databaseUrl, max: 1 });
    try {
      return await time((sql, params) => pool.query(sql, params));
    } finally {
      await pool.end();
    }
  }
  const db = await PGlite.create({ dataDir });
  try {
    return await time((sql, params) => db.query(sql, params));
  } finally {
    await db.close();
  }
}

/** One REST call (the root token unless another is given); its JSON, or an error for any status from 300 on. */
export async function call(base: string, method: string, path: string, body?: unknown, token = TOKEN): Promise<any> {
  const res = await fetch(`${base}/api/v4${path}`, { method, headers: { 'PRIVATE-TOKEN': token, 'Content-Type': 'application/json' }, body: body ? JSON.stringify(body) : undefined });
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return res.json();
}

