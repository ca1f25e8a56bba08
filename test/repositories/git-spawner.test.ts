/**
 * The git spawner (src/git/spawner.ts): git runs started by a small process of the server's, with git's streams
 * and exit carried back as child_process gives them. Real git, real repositories.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { GitError, git, spawnGit } from '../../src/git/run.js';
import { spawner } from '../../src/git/spawner.js';

const folder = mkdtempSync(join(tmpdir(), 'spawner-test-'));
const repo = join(folder, 'r.git');
execFileSync('git', ['init', '-q', '--bare', repo]);
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** A run's whole output, read slowly: each chunk waits a turn of the event loop with the stream paused. */
async function readSlowly(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) {
    chunks.push(chunk as Buffer);
    await new Promise((resolve) => setImmediate(resolve));
  }
  return Buffer.concat(chunks);
}

describe('git runs through the spawner', () => {
  it('writes input and reads output, byte for byte, however big', async () => {
    // 8 MB of bytes that are not text (NULs, every byte value), through standard input and back out.
    const blob = Buffer.alloc(8 * 1024 * 1024);
    for (let i = 0; i < blob.length; i++) blob[i] = (i * 7919) & 0xff;
    const id = (await git(repo, ['hash-object', '-w', '--stdin'], { input: blob })).stdout.toString().trim();
    expect(id).toMatch(/^[0-9a-f]{40}$/);
    const back = await git(repo, ['cat-file', 'blob', id]);
    expect(back.stdout.equals(blob)).toBe(true);
    // A reader slower than git: the output waits (backpressure through the spawner), nothing is lost.
    const child = spawnGit(repo, ['cat-file', 'blob', id]);
    const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
    child.stdin.end();
    expect((await readSlowly(child.stdout)).equals(blob)).toBe(true);
    expect(await closed).toBe(0);
  });

  it('reports git\'s exit code and what it said, and takes the codes a caller counts as answers', async () => {
    const error = await git(repo, ['cat-file', '-p', 'no-such-object']).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GitError);
    expect(error).toMatchObject({ code: 128 });
    expect((error as GitError).stderr).toMatch(/Not a valid object name no-such-object/);
    const answer = await git(repo, ['rev-parse', '--verify', '--quiet', 'refs/heads/none'], { okCodes: [1] });
    expect(answer.code).toBe(1);
  });

  it('kills a run on request; output past a bound stops the run', async () => {
    const child = spawnGit(repo, ['cat-file', '--batch']);
    const closed = new Promise<[number | null, string | null]>((resolve) => child.on('close', (code, signal) => resolve([code, signal])));
    child.stdout.resume();
    expect(child.kill('SIGKILL')).toBe(true);
    expect(await closed).toEqual([null, 'SIGKILL']);
    const big = Buffer.alloc(1024 * 1024, 1);
    const id = (await git(repo, ['hash-object', '-w', '--stdin'], { input: big })).stdout.toString().trim();
    await expect(git(repo, ['cat-file', 'blob', id], { maxOutput: 1000 })).rejects.toThrow(/output exceeds 1000 bytes/);
  });

  it('runs many at once, each with its own input and output', async () => {
    const inputs = Array.from({ length: 40 }, (_, i) => `content ${i}\n`.repeat(i + 1));
    const ids = await Promise.all(inputs.map((input) => git(repo, ['hash-object', '-w', '--stdin'], { input })));
    const back = await Promise.all(ids.map((r) => git(repo, ['cat-file', 'blob', r.stdout.toString().trim()])));
    expect(back.map((r) => r.stdout.toString())).toEqual(inputs);
  });

  it('fails the runs in flight when the spawner dies, and starts a new spawner for the next', async () => {
    await git(repo, ['rev-parse', '--git-dir']);
    const pid = spawner.pid!;
    expect(pid).toBeGreaterThan(0);
    // A run that waits on its input until the spawner is gone.
    const child = spawnGit(repo, ['hash-object', '--stdin']);
    const failed = new Promise<Error>((resolve) => child.on('error', resolve));
    child.stdout.resume();
    await new Promise((resolve) => setTimeout(resolve, 0));
    process.kill(pid, 'SIGKILL');
    expect((await failed).message).toMatch(/git did not run: the git spawner went away/);
    const after = await git(repo, ['rev-parse', '--git-dir']);
    expect(after.stdout.toString().trim()).toBe(repo);
    expect(spawner.pid).not.toBe(pid);
  });
});
