/**
 * A merge request over a 10,000-file change (BENCH_MR_FILES): the first `GET …/diffs` page (20 files) and the capped
 * `GET …/changes` (1,000 files, overflow), their p50/p99 over BENCH_MR_REQUESTS requests and the server's peak RSS
 * (VmHWM of its node process, before and after), against floors run in the same run on the same change: `git diff
 * --stat` of the whole change and `git diff` of the page's 20 paths, in a local clone of the pushed branches. The
 * server runs as `npm start` runs it, in its own process. `DATABASE_URL` runs it on PostgreSQL.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { TOKEN, call, pct, serverEnv, startChild, timings } from './shared.js';

const run = promisify(execFile);
const FILES = Number(process.env.BENCH_MR_FILES ?? 10_000);
const REQUESTS = Number(process.env.BENCH_MR_REQUESTS ?? 20);
const PAGE = 20;
const { env, dataDir, databaseUrl } = serverEnv('mr-diffs');

const gitEnv = {
  PATH: process.env.PATH ?? '/usr/bin:/bin',
  HOME: dataDir,
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_TERMINAL_PROMPT: '0',
  GIT_AUTHOR_NAME: 'Bench',
  GIT_AUTHOR_EMAIL: 'bench@example.com',
  GIT_COMMITTER_NAME: 'Bench',
  GIT_COMMITTER_EMAIL: 'bench@example.com',
};
const git = async (cwd: string, args: string[]) => (await run('git', args, { cwd, env: gitEnv, maxBuffer: 256 * 1024 * 1024 })).stdout;

/** The node process under `npm start` (npm → sh → node, or npm → node). */
function serverPid(root: number): number {
  let pid = root;
  for (let depth = 0; depth < 4; depth++) {
    const comm = readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
    if (comm === 'node' && pid !== root) return pid;
    const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
    if (children.length === 0) return pid;
    pid = children[0];
  }
  return pid;
}

function peakRssMb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('VmHWM:'));
  return Number(/(\d+)/.exec(line ?? '')?.[1] ?? NaN) / 1024;
}

try {
  const work = join(dataDir, 'work');
  mkdirSync(work, { recursive: true });
  await git(work, ['init', '--quiet', '-b', 'main']);
  writeFileSync(join(work, 'README.md'), '# Bench\n');
  await git(work, ['add', '-A']);
  await git(work, ['commit', '--quiet', '-m', 'Initial']);
  await git(work, ['checkout', '--quiet', '-b', 'wide']);
  for (let d = 0; d < Math.ceil(FILES / 1000); d++) mkdirSync(join(work, `d${d}`), { recursive: true });
  for (let i = 0; i < FILES; i++) {
    const lines = Array.from({ length: 8 }, (_, j) => `line ${j} of file ${i}: some text to diff`).join('\n');
    writeFileSync(join(work, `d${Math.floor(i / 1000)}`, `f${String(i).padStart(5, '0')}.txt`), `${lines}\n`);
  }
  await git(work, ['add', '-A']);
  await git(work, ['commit', '--quiet', '-m', `${FILES} files`]);
  const pagePaths = (await git(work, ['diff', '--name-only', 'main', 'wide'])).split('\n').filter(Boolean).slice(0, PAGE);

  const server = await startChild('npm', ['start', '--silent'], env, '/api/v4/version', { 'PRIVATE-TOKEN': TOKEN });
  try {
    const pid = serverPid(server.process.pid ?? 0);
    const project = await call(server.url, 'POST', '/projects', { name: `mr-diffs-${Date.now()}` });
    const remote = new URL(`${server.url}/${project.path_with_namespace}.git`);
    remote.username = 'oauth2';
    remote.password = TOKEN;
    await git(work, ['push', '--quiet', remote.toString(), 'main', 'wide']);
    const mr = await call(server.url, 'POST', `/projects/${project.id}/merge_requests`, { source_branch: 'wide', target_branch: 'main', title: 'Wide' });
    const get = async (path: string) => {
      const res = await fetch(`${server.url}/api/v4/projects/${project.id}/merge_requests/${mr.iid}${path}`, { headers: { 'PRIVATE-TOKEN': TOKEN } });
      if (res.status !== 200) throw new Error(`${path}: ${res.status} ${await res.text()}`);
      return { body: (await res.json()) as any, total: res.headers.get('x-total') };
    };
    const first = await get(`/diffs?per_page=${PAGE}`);
    if (first.body.length !== PAGE || first.total !== '1000') throw new Error(`first page: ${first.body.length} diffs, X-Total ${first.total}`);
    const rssBefore = peakRssMb(pid);
    const diffsMs = await timings(REQUESTS, () => get(`/diffs?per_page=${PAGE}`));
    const rssDiffs = peakRssMb(pid);
    const changes = await get('/changes');
    if (changes.body.changes.length !== 1000 || changes.body.overflow !== true) throw new Error(`changes: ${changes.body.changes.length}, overflow ${changes.body.overflow}`);
    const changesMs = await timings(Math.max(3, Math.ceil(REQUESTS / 4)), () => get('/changes'));
    const rssChanges = peakRssMb(pid);

    const statMs = await timings(REQUESTS, () => git(work, ['diff', '--stat', 'main', 'wide']));
    const pageMs = await timings(REQUESTS, () => git(work, ['diff', 'main', 'wide', '--', ...pagePaths]));
    const fmt = (n: number) => n.toFixed(1);
    console.log(`\nMerge request over ${FILES} changed files (${databaseUrl ? 'PostgreSQL' : 'PGlite'}; ${REQUESTS} requests each, one after another)\n`);
    console.log('| case | p50 ms | p99 ms | p50 / git diff --stat | p50 / git diff of the page |\n|---|---|---|---|---|');
    const row = (name: string, ms: number[]) =>
      console.log(`| ${name} | ${fmt(pct(ms, 50))} | ${fmt(pct(ms, 99))} | ${(pct(ms, 50) / pct(statMs, 50)).toFixed(2)} | ${(pct(ms, 50) / pct(pageMs, 50)).toFixed(2)} |`);
    row(`GET …/diffs?per_page=${PAGE} (first page, X-Total 1000)`, diffsMs);
    row('GET …/changes (1,000 files, overflow)', changesMs);
    row('git diff --stat (whole change)', statMs);
    row(`git diff of the page's ${PAGE} paths`, pageMs);
    console.log(`\n| server peak RSS (VmHWM) | MB |\n|---|---|\n| after push and MR creation | ${fmt(rssBefore)} |\n| after the /diffs pages | ${fmt(rssDiffs)} |\n| after /changes | ${fmt(rssChanges)} |\n`);
  } finally {
    await server.stop();
  }
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
