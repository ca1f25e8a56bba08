import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, startProcess } from '../support/process.js';

/** Runs `src/main.ts` the way `npm start` does. */
const start = (env: Record<string, string>) => startProcess(process.execPath, ['--import', 'tsx', 'src/main.ts'], env);

describe('npm start', () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'gitlab-api-cli-'));
  });
  afterAll(() => rm(dataDir, { recursive: true, force: true }));

  it('creates root on first start, prints its token once, persists data, and stops cleanly on SIGTERM', async () => {
    const first = await start({ DATA_DIR: dataDir });
    const token = /glpat-[A-Za-z0-9_-]+/.exec(first.output())?.[0];
    expect(token).toBeDefined();
    const base = `http://127.0.0.1:${first.port}/api/v4`;
    const me = await fetch(`${base}/user`, { headers: { 'PRIVATE-TOKEN': token ?? '' } });
    expect(me.status).toBe(200);
    expect(((await me.json()) as { username: string }).username).toBe('root');
    const created = await fetch(`${base}/groups`, { method: 'POST', headers: { 'PRIVATE-TOKEN': token ?? '', 'content-type': 'application/json' }, body: JSON.stringify({ name: 'kept', path: 'kept' }) });
    expect(created.status).toBe(201);

    // A request in flight when SIGTERM arrives still gets its answer.
    const inFlight = fetch(`${base}/projects`, { headers: { 'PRIVATE-TOKEN': token ?? '' } });
    await new Promise((r) => setTimeout(r, 5));
    first.child.kill('SIGTERM');
    expect((await inFlight).status).toBe(200);
    expect(await first.exited).toBe(0);
    const logLine = first.output().split('\n').find((l) => l.includes('"route":"/api/v4/user"'));
    expect(JSON.parse(logLine ?? '{}')).toMatchObject({ method: 'GET', route: '/api/v4/user', status: 200, durationMs: expect.any(Number) });

    const second = await start({ DATA_DIR: dataDir });
    expect(second.output()).not.toMatch(/glpat-/);
    const group = await fetch(`http://127.0.0.1:${second.port}/api/v4/groups/kept`, { headers: { 'PRIVATE-TOKEN': token ?? '' } });
    expect(group.status).toBe(200);
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
  });

  it('uses GITLAB_ROOT_TOKEN and refuses a bad configuration with a clear message', async () => {
    const s = await start({ DATA_DIR: 'memory', GITLAB_ROOT_TOKEN: 'glpat-configured-token' });
    expect(s.output()).not.toMatch(/shown once/);
    const me = await fetch(`http://127.0.0.1:${s.port}/api/v4/user`, { headers: { 'PRIVATE-TOKEN': 'glpat-configured-token' } });
    expect(me.status).toBe(200);
    s.child.kill('SIGTERM');
    expect(await s.exited).toBe(0);

    const bad = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], { cwd: ROOT, env: { ...process.env, PORT: 'eighty' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    bad.stderr?.on('data', (c: Buffer) => (err += c.toString()));
    const code = await new Promise<number | null>((resolve) => bad.once('exit', resolve));
    expect(code).toBe(2);
    expect(err).toContain('PORT must be an integer');
  });
});
