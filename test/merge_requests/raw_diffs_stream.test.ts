/**
 * `GET …/raw_diffs` streams `git diff` as it comes, as GitLab's Workhorse sends it: a merge request whose diff is
 * larger than any git output the server buffers (64 MB) answers 200 with exactly `git diff --full-index` of its merge
 * base and head (hashed as it arrives, compared with the git CLI's), and the server's memory does not grow with it.
 * The branch is pushed with the git CLI; opening the merge request (its diff version, patch id included) works too.
 */
import { createHash } from 'node:crypto';
import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Gitlab } from '@gitbeaker/rest';
import { beforeAll, describe, expect, it } from 'vitest';
import { suiteServer } from '../support/server.js';
import { createProject, createUser, type TestUser } from '../support/factories.js';
import { cloneUrl, gitSandbox } from '../support/git.js';

const t = suiteServer({ logLevel: 'error' });
const sandbox = gitSandbox();

/** Lines of the big file: ~70 MB of text, past the 64 MB a buffered git run may return. */
const LINES = 600_000;
const LINE = `${'0123456789abcdef'.repeat(7)}`;

let owner: TestUser;
let project: { id: number; path_with_namespace: string };
let repo: string;
let base: string;
let head: string;
let iid: number;

/** A full garbage collection, so that what is measured is what is still held. */
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** The sha256 and length of `git diff --full-index` in the clone, read as a stream. */
function localDiff(): Promise<{ sha: string; bytes: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', ['diff', '--full-index', base, head], { cwd: repo });
    const hash = createHash('sha256');
    let bytes = 0;
    child.stdout.on('data', (chunk: Buffer) => {
      hash.update(chunk);
      bytes += chunk.length;
    });
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve({ sha: hash.digest('hex'), bytes }) : reject(new Error(`git diff ${code}`))));
  });
}

beforeAll(async () => {
  owner = await createUser(t);
  project = await createProject(t, owner.token);
  const dir = sandbox.folder();
  await sandbox.ok(dir, ['clone', '--quiet', cloneUrl(t.url, project.path_with_namespace, owner.token), 'w']);
  repo = join(dir, 'w');
  await new Promise<void>((resolve) => {
    const out = createWriteStream(join(repo, 'README.md'));
    out.end('# Big\n', resolve);
  });
  await sandbox.ok(repo, ['add', '-A']);
  await sandbox.ok(repo, ['commit', '--quiet', '-m', 'Initial']);
  await sandbox.ok(repo, ['push', '--quiet', 'origin', 'HEAD:main']);
  base = (await sandbox.ok(repo, ['rev-parse', 'HEAD'])).trim();
  await sandbox.ok(repo, ['checkout', '--quiet', '-b', 'big']);
  await new Promise<void>((resolve, reject) => {
    const out = createWriteStream(join(repo, 'big.txt'));
    out.on('error', reject);
    let i = 0;
    const write = () => {
      let ok = true;
      while (i < LINES && ok) ok = out.write(`${i++} ${LINE}\n`);
      if (i < LINES) out.once('drain', write);
      else out.end(resolve);
    };
    write();
  });
  await sandbox.ok(repo, ['add', '-A']);
  await sandbox.ok(repo, ['commit', '--quiet', '-m', 'A big file']);
  await sandbox.ok(repo, ['push', '--quiet', 'origin', 'big']);
  head = (await sandbox.ok(repo, ['rev-parse', 'HEAD'])).trim();
  const api = new Gitlab({ host: t.url, token: owner.token });
  iid = (await api.MergeRequests.create(project.id, 'big', 'main', 'A big diff')).iid;
  await t.server.app.jobs.drain(120_000);
}, 180_000);

describe('GET /projects/:id/merge_requests/:iid/raw_diffs of a diff past 64 MB', () => {
  it('streams exactly git diff --full-index of the merge base and head, without holding it in memory', async () => {
    const expected = await localDiff();
    expect(expected.bytes).toBeGreaterThan(64 * 1024 * 1024);

    gc();
    const before = process.memoryUsage();
    const samples: number[] = [];
    const res = await fetch(`${t.url}/api/v4/projects/${project.id}/merge_requests/${iid}/raw_diffs`, { headers: { 'PRIVATE-TOKEN': owner.token } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toBe('inline');
    expect(res.headers.get('cache-control')).toBe('max-age=0, private, must-revalidate, no-store, no-cache');
    const hash = createHash('sha256');
    let bytes = 0;
    let chunks = 0;
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      hash.update(chunk);
      bytes += chunk.length;
      if (++chunks % 64 === 0) {
        gc();
        const now = process.memoryUsage();
        samples.push(now.arrayBuffers - before.arrayBuffers);
      }
    }
    expect(bytes).toBe(expected.bytes);
    expect(hash.digest('hex')).toBe(expected.sha);
    // What this process (server and client) still held while it came: a few chunks in flight, not a growing diff
    // (a buffered answer climbs past 64 MB). Now and then other work's buffers (a test file in another thread
    // of this process) show for a sample: the median tells.
    const sorted = [...samples].sort((a, b) => a - b);
    const mb = (n: number) => (n / 1024 / 1024).toFixed(1);
    const p90 = sorted[Math.floor(sorted.length * 0.9)];
    console.info(`raw_diffs: ${bytes} bytes in ${chunks} chunks; live buffers above the start: median ${mb(sorted[sorted.length >> 1])} MB, p90 ${mb(p90)} MB, max ${mb(sorted.at(-1)!)} MB`);
    expect(samples.length).toBeGreaterThan(10);
    expect(sorted[sorted.length >> 1]).toBeLessThan(4 * 1024 * 1024);
    expect(sorted.at(-1)!).toBeLessThan(expected.bytes / 2);
  }, 120_000);

  it('recorded the merge request diff version with its patch id, and the changes stay within GitLab’s limits', async () => {
    const versions = await t.api('GET', `/projects/${project.id}/merge_requests/${iid}/versions`, { token: owner.token });
    expect(versions.status).toBe(200);
    expect(versions.body).toHaveLength(1);
    expect(versions.body[0]).toMatchObject({ head_commit_sha: head, base_commit_sha: base });
    expect(versions.body[0].patch_id_sha).toMatch(/^[0-9a-f]{40}$/);
    const changes = await t.api('GET', `/projects/${project.id}/merge_requests/${iid}/changes`, { token: owner.token });
    expect(changes.status).toBe(200);
    expect(changes.body.changes).toHaveLength(1);
    expect(changes.body.changes[0]).toMatchObject({ new_path: 'big.txt', too_large: true, diff: '' });
  });
});
