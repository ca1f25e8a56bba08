/**
 * Commits per second through `POST /projects/:id/repository/commits` (one small file per commit, one after another,
 * then BENCH_COMMIT_CONNECTIONS clients each on its own branch), against a floor: the same git plumbing the server
 * runs (read-tree into a temporary index, hash-object, update-index, write-tree, commit-tree, update-ref with the
 * old value) run directly on a bare repository of the same disk, with no HTTP, database or events. The server runs
 * as `npm start` runs it, in its own process. `DATABASE_URL` runs it on PostgreSQL; `BENCH_COMMITS` sets the count.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { TOKEN, call, serverEnv, startChild } from './shared.js';

const run = promisify(execFile);
const COMMITS = Number(process.env.BENCH_COMMITS ?? 200);
const CONNECTIONS = Number(process.env.BENCH_COMMIT_CONNECTIONS ?? 4);
const { env, dataDir, databaseUrl } = serverEnv('commits');


/** Runs `count` commits on each of `lanes` branches at once; commits per second overall. */
async function timed(lanes: number, count: number, commit: (lane: number, i: number) => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await Promise.all(Array.from({ length: lanes }, async (_, lane) => {
    for (let i = 0; i < count; i++) await commit(lane, i);
  }));
  return (lanes * count) / ((performance.now() - start) / 1000);
}

async function serverRates(): Promise<[number, number]> {
  const server = await startChild('npm', ['start', '--silent'], env, '/api/v4/version', { 'PRIVATE-TOKEN': TOKEN });
  try {
    const project = await call(server.url, 'POST', '/projects', { name: `bench-${Date.now()}` });
    const commit = (branch: string, i: number, start?: string) =>
      call(server.url, 'POST', `/projects/${project.id}/repository/commits`, {
        branch,
        start_branch: start,
        commit_message: `Commit ${i}`,
        actions: [{ action: 'create', file_path: `f/${branch}-${i}.txt`, content: `content ${i}\n` }],
      });
    await commit('main', -1);
    for (let lane = 0; lane < CONNECTIONS; lane++) await commit(`lane-${lane}`, -1, 'main');
    const sequential = await timed(1, COMMITS, (_, i) => commit('main', i));
    const parallel = await timed(CONNECTIONS, Math.ceil(COMMITS / CONNECTIONS), (lane, i) => commit(`lane-${lane}`, i));
    return [sequential, parallel];
  } finally {
    await server.stop();
  }
}

/** The floor: the server's plumbing for one commit, run directly. */
async function floorRates(): Promise<[number, number]> {
  const dir = join(dataDir, 'floor.git');
  await run('git', ['init', '--bare', '--quiet', dir]);
  const gitEnv = { PATH: process.env.PATH ?? '', GIT_DIR: dir, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', GIT_AUTHOR_NAME: 'A', GIT_AUTHOR_EMAIL: 'a@example.com', GIT_COMMITTER_NAME: 'A', GIT_COMMITTER_EMAIL: 'a@example.com' };
  const git = async (args: string[], input?: string, extra: Record<string, string> = {}) => {
    const child = execFile('git', args, { env: { ...gitEnv, ...extra } });
    const out = new Promise<string>((resolve, reject) => {
      let text = '';
      child.stdout?.on('data', (c) => (text += c));
      child.on('close', (code) => (code === 0 ? resolve(text.trim()) : reject(new Error(`git ${args[0]} exited ${code}`))));
    });
    // git may exit before reading its input (rev-parse reads none): its answer, not a failure of the floor.
    child.stdin?.on('error', () => {});
    child.stdin?.end(input ?? '');
    return out;
  };
  const commit = async (branch: string, i: number) => {
    const ref = `refs/heads/${branch}`;
    const parent = await git(['rev-parse', '--verify', '--quiet', ref]).catch(() => '');
    const indexDir = mkdtempSync(join(tmpdir(), 'floor-index-'));
    const index = { GIT_INDEX_FILE: join(indexDir, 'index') };
    try {
      await git(parent ? ['read-tree', parent] : ['read-tree', '--empty'], undefined, index);
      const blob = await git(['hash-object', '-w', '--stdin'], `content ${i}\n`);
      await git(['update-index', '-z', '--index-info'], `100644 ${blob}\tf/${branch}-${i}.txt\0`, index);
      const tree = await git(['write-tree'], undefined, index);
      const sha = await git(['commit-tree', tree, ...(parent ? ['-p', parent] : [])], `Commit ${i}`);
      await git(['update-ref', ref, sha, parent || '0'.repeat(40)]);
    } finally {
      rmSync(indexDir, { recursive: true, force: true });
    }
  };
  await commit('main', -1);
  const sequential = await timed(1, COMMITS, (_, i) => commit('main', i));
  const parallel = await timed(CONNECTIONS, Math.ceil(COMMITS / CONNECTIONS), (lane, i) => commit(`lane-${lane}`, i));
  return [sequential, parallel];
}

try {
  const [floorSeq, floorPar] = await floorRates();
  const [apiSeq, apiPar] = await serverRates();
  const fmt = (n: number) => n.toFixed(1);
  console.log(`\nCommits through POST /repository/commits (one small file each; ${COMMITS} commits; ${databaseUrl ? 'PostgreSQL' : 'PGlite'})\n`);
  console.log('| case | API commits/s | git plumbing commits/s | API / plumbing |\n|---|---|---|---|');
  console.log(`| one branch, sequential | ${fmt(apiSeq)} | ${fmt(floorSeq)} | ${(apiSeq / floorSeq).toFixed(2)} |`);
  console.log(`| ${CONNECTIONS} branches at once | ${fmt(apiPar)} | ${fmt(floorPar)} | ${(apiPar / floorPar).toFixed(2)} |\n`);
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
