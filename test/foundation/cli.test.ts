import { spawn } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, startProcess } from '../support/process.js';

/** Runs `src/main.ts` the way `npm start` does. */
const start = (env: Record<string, string>) => startProcess(process.execPath, ['--import', 'tsx', 'src/main.ts'], env);

// Each test starts the server as a child process (through tsx), some twice: on a loaded 2-core machine a start alone
// can take most of the suite's default 30 s, so they share the longer bound the port test already had.
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
  }, 120_000);

  it('keeps the first token in <DATA_DIR>/initial_root_token until it is used, and seeds nothing when the port is taken', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'gitlab-api-root-'));
    const file = join(dir, 'initial_root_token');
    const blocker = createNetServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    try {
      const taken = (blocker.address() as AddressInfo).port;
      await expect(start({ DATA_DIR: dir, PORT: String(taken) })).rejects.toThrow(/^exited with 1: /);
      expect(existsSync(file)).toBe(false);
      await new Promise((resolve) => blocker.close(resolve));

      const first = await start({ DATA_DIR: dir });
      const token = /glpat-[A-Za-z0-9_-]+/.exec(first.output())?.[0] ?? '';
      expect(first.output()).toContain(`It is also kept in ${file} until it is first used, or for 24 hours.`);
      expect(readFileSync(file, 'utf8')).toContain(`Token: ${token}`);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      first.child.kill('SIGTERM');
      expect(await first.exited).toBe(0);

      // Not used yet: the next start says where it is.
      const second = await start({ DATA_DIR: dir });
      expect(second.output()).toContain(`first personal access token is in ${file}`);
      expect(second.output()).not.toContain(token);
      expect((await fetch(`http://127.0.0.1:${second.port}/api/v4/user`, { headers: { 'PRIVATE-TOKEN': token } })).status).toBe(200);
      second.child.kill('SIGTERM');
      expect(await second.exited).toBe(0);

      // Used: the file is gone, and nothing is said.
      const third = await start({ DATA_DIR: dir });
      expect(existsSync(file)).toBe(false);
      expect(third.output()).not.toContain('initial_root_token');
      third.child.kill('SIGTERM');
      expect(await third.exited).toBe(0);
    } finally {
      blocker.close();
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);

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
  }, 120_000);
});
