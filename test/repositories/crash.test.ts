/**
 * A server killed in the middle of writes (SIGKILL to its whole process group, git children included, as an OOM
 * kill or a pulled plug does) leaves every repository sound: no corruption git can find, every commit the API
 * acknowledged still there, and no stale lock that would refuse the next write once the server is back.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { hashedPath } from '../../src/git/storages.js';
import { freshDatabase } from '../support/db.js';
import { startProcess, type Started } from '../support/process.js';

const TOKEN = 'glpat-crash-test-root-token';

/** `npm start` as a user runs it, in a process group of its own, over a data folder that outlives it. */
const npmStart = (env: Record<string, string>) => startProcess('npm', ['start', '--silent'], { GITLAB_ROOT_TOKEN: TOKEN, RATE_LIMIT_PER_MINUTE: '0', ...env }, { detached: true });

function api(server: Started, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  return fetch(`http://127.0.0.1:${server.port}/api/v4${path}`, {
    method,
    headers: { 'PRIVATE-TOKEN': TOKEN, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  }).then(async (res) => ({ status: res.status, body: await res.json().catch(() => null) }));
}

/** SIGKILL to the process group `npm start` leads: npm, the server and whatever git it runs at the time. */
function killGroup(server: Started): void {
  try {
    process.kill(-(server.child.pid ?? 0), 'SIGKILL');
  } catch {
    // already gone
  }
}

const git = (dir: string, ...args: string[]) => execFileSync('git', args, { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

describe('a killed server', () => {
  it('leaves sound repositories: acknowledged commits kept, git fsck clean, the next writes accepted', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'crash-'));
    // On PostgreSQL a scratch database; on PGlite the data folder holds the database too, and is killed with it.
    const db = await freshDatabase('crash');
    const env = { DATA_DIR: dataDir, ...(db.databaseUrl ? { DATABASE_URL: db.databaseUrl } : {}) };
    let server = await npmStart(env);
    // Even when the test times out: nothing outlives it.
    onTestFinished(async () => {
      killGroup(server);
      await server.exited;
      await db.cleanup();
      await rm(dataDir, { recursive: true, force: true });
    });
    const project = await api(server, 'POST', '/projects', { name: 'crash' });
    expect(project.status).toBe(201);
    const id = project.body.id as number;
    const initial = await api(server, 'POST', `/projects/${id}/repository/commits`, { branch: 'main', commit_message: 'Initial commit', actions: [{ action: 'create', file_path: 'README.md', content: '# crash\n' }] });
    expect(initial.status).toBe(201);
    const repo = join(dataDir, 'repositories', hashedPath(id));

    // Commits on many branches at once, each a few files, while the whole process group is killed.
    const acknowledged: { branch: string; sha: string }[] = [];
    const writes = Array.from({ length: 12 }, async (_, i) => {
      const branch = `b${i}`;
      const files = Array.from({ length: 5 }, (_, f) => ({ action: 'create', file_path: `dir${i}/f${f}.txt`, content: `${i}-${f}\n`.repeat(200) }));
      const res = await api(server, 'POST', `/projects/${id}/repository/commits`, { branch, start_branch: 'main', commit_message: `commit ${i}`, actions: files }).catch(() => null);
      if (res?.status === 201) acknowledged.push({ branch, sha: res.body.id });
    });
    const killed = new Promise<void>((resolve) => {
      const check = setInterval(() => {
        if (acknowledged.length < 2) return;
        clearInterval(check);
        killGroup(server);
        resolve();
      }, 5);
    });
    await killed;
    await Promise.all(writes);
    await server.exited;
    expect(acknowledged.length).toBeGreaterThanOrEqual(2);

    // git itself finds nothing wrong with what the kill left.
    expect(() => git(repo, 'fsck', '--full', '--no-dangling')).not.toThrow();

    server = await npmStart(env);
    // Every commit the API answered 201 for is on its branch.
    for (const { branch, sha } of acknowledged) {
      const found = await api(server, 'GET', `/projects/${id}/repository/branches/${branch}`);
      expect(found.status).toBe(200);
      expect(found.body.commit.id).toBe(sha);
    }
    // No lock left behind refuses a write: every branch the writes touched, acknowledged or not, takes a new commit.
    const branches = await api(server, 'GET', `/projects/${id}/repository/branches?per_page=100`);
    expect(branches.status).toBe(200);
    for (const { name } of branches.body as { name: string }[]) {
      const next = await api(server, 'POST', `/projects/${id}/repository/commits`, { branch: name, commit_message: 'after the crash', actions: [{ action: 'create', file_path: `after-${name}.txt`, content: 'x' }] });
      expect(next.status, JSON.stringify(next.body)).toBe(201);
    }
    const fresh = await api(server, 'POST', `/projects/${id}/repository/commits`, { branch: 'b-new', start_branch: 'main', commit_message: 'new branch', actions: [{ action: 'create', file_path: 'new.txt', content: 'x' }] });
    expect(fresh.status, JSON.stringify(fresh.body)).toBe(201);
    expect(() => git(repo, 'fsck', '--full', '--no-dangling')).not.toThrow();
  }, 240_000);
});
