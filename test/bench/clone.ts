/**
 * `BENCH_PARTS=clone npm run bench`: `git clone` over HTTP from the server (`npm start`, its own process) against
 * `git clone` of the same bare repository from the local disk (`file://`, git's own transport, no hardlinks), on a
 * repository of 1,000 files and 100 commits pushed over HTTP first. Median of CLONE_RUNS (default 5) runs each,
 * alternating, and their ratio.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hashedPath } from '../../src/git/storages.js';
import { TOKEN, startChild } from './shared.js';

const RUNS = Number(process.env.CLONE_RUNS ?? 5);
const FILES = 1000;
const COMMITS = 100;
const root = mkdtempSync(join(tmpdir(), 'bench-clone-'));
const storage = join(root, 'repositories');
const gitEnv = {
  PATH: process.env.PATH ?? '/usr/bin:/bin',
  HOME: root,
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_TERMINAL_PROMPT: '0',
  GIT_AUTHOR_NAME: 'Bench',
  GIT_AUTHOR_EMAIL: 'bench@example.com',
  GIT_COMMITTER_NAME: 'Bench',
  GIT_COMMITTER_EMAIL: 'bench@example.com',
};

function git(cwd: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) =>
    execFile('git', args, { cwd, env: gitEnv, maxBuffer: 64 * 1024 * 1024 }, (error, _out, stderr) => (error ? reject(new Error(`git ${args.join(' ')}: ${stderr}`)) : resolve())),
  );
}

async function timed(action: () => Promise<void>): Promise<number> {
  const start = process.hrtime.bigint();
  await action();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const env = { DATA_DIR: join(root, 'data'), DATABASE_URL: process.env.DATABASE_URL ?? '', REPOSITORY_STORAGES: `default=${storage}`, NODE_ENV: 'production', GITLAB_ROOT_TOKEN: TOKEN, RATE_LIMIT_PER_MINUTE: '0', LOG_LEVEL: 'warn' };
const server = await startChild('npm', ['start', '--silent'], env, '/api/v4/version', { 'PRIVATE-TOKEN': TOKEN });
try {
  const res = await fetch(`${server.url}/api/v4/projects`, { method: 'POST', headers: { 'PRIVATE-TOKEN': TOKEN, 'Content-Type': 'application/json' }, body: JSON.stringify({ name: `clone-bench-${Date.now()}` }) });
  const project = (await res.json()) as { id: number; path_with_namespace: string };
  const url = new URL(`${server.url}/${project.path_with_namespace}.git`);
  url.username = 'root';
  url.password = TOKEN;

  // 1,000 files in the first commit, then 99 commits changing 10 files each.
  const work = join(root, 'work');
  mkdirSync(work);
  await git(work, ['init', '--quiet', '--initial-branch=main']);
  for (let i = 0; i < FILES; i++) {
    mkdirSync(join(work, `dir${i % 20}`), { recursive: true });
    writeFileSync(join(work, `dir${i % 20}`, `file${i}.txt`), `file ${i}\n${'content line\n'.repeat(20)}`);
  }
  await git(work, ['add', '.']);
  await git(work, ['commit', '--quiet', '-m', 'Commit 1']);
  for (let c = 2; c <= COMMITS; c++) {
    for (let k = 0; k < 10; k++) {
      const i = (c * 10 + k) % FILES;
      writeFileSync(join(work, `dir${i % 20}`, `file${i}.txt`), `file ${i} at commit ${c}\n${'content line\n'.repeat(20)}`);
    }
    await git(work, ['commit', '--quiet', '-a', '-m', `Commit ${c}`]);
  }
  await git(work, ['push', '--quiet', url.toString(), 'main']);
  const bare = join(storage, hashedPath(project.id));

  const http: number[] = [];
  const local: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const a = join(root, `http-${run}`);
    const b = join(root, `local-${run}`);
    http.push(await timed(() => git(root, ['clone', '--quiet', url.toString(), a])));
    local.push(await timed(() => git(root, ['clone', '--quiet', `file://${bare}`, b])));
    rmSync(a, { recursive: true, force: true });
    rmSync(b, { recursive: true, force: true });
  }
  const [h, l] = [median(http), median(local)];
  console.log(`\n| git clone (${FILES} files, ${COMMITS} commits, median of ${RUNS}) | ms |\n|---|---|`);
  console.log(`| over HTTP from the server | ${h.toFixed(0)} |`);
  console.log(`| file:// from the local disk | ${l.toFixed(0)} |`);
  console.log(`| ratio HTTP / local | ${(h / l).toFixed(2)} |\n`);
} finally {
  await server.stop();
  rmSync(root, { recursive: true, force: true });
}
