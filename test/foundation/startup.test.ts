import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { describe, expect, it, onTestFinished } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { PrismaClient } from '../../src/generated/prisma/client.js';
import { committedMigrations, pendingMigrations } from '../../src/db/migrations.js';
import { freshDatabase } from '../support/db.js';
import { startProcess, type Started } from '../support/process.js';

// `npm start` runs the compiled server (dist/, rebuilt by prestart when a source is newer).
const TOKEN = 'glpat-startup-test-token';
const npmStart = (env: Record<string, string>) => startProcess('npm', ['start', '--silent'], { GITLAB_ROOT_TOKEN: TOKEN, RATE_LIMIT_PER_MINUTE: '0', ...env }, { detached: true });

async function stop(started: Started): Promise<number | null> {
  process.kill(-(started.child.pid ?? 0), 'SIGTERM');
  return started.exited;
}

/** Resolves once the output has a JSON line with this message, and returns it. */
function logLine(started: Started, msg: string, after = 0): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const check = () => {
      const line = started.output().slice(after).split('\n').find((l) => l.includes(`"msg":"${msg}"`));
      if (line) return resolve(JSON.parse(line) as Record<string, unknown>);
      started.child.stdout?.once('data', check);
    };
    void started.exited.then(() => reject(new Error(`exited before "${msg}": ${started.output()}`)));
    check();
  });
}

describe('WEB_CONCURRENCY', () => {
  it('defaults to one process (a second did not pay on a 2-core machine shared with PostgreSQL); PGlite cannot have more', () => {
    expect(loadConfig({ DATABASE_URL: 'postgresql://db/x' }).webConcurrency).toBe(1);
    expect(loadConfig({}).webConcurrency).toBe(1);
    expect(() => loadConfig({ WEB_CONCURRENCY: '2' })).toThrow(ConfigError);
    expect(loadConfig({ DATABASE_URL: 'postgresql://db/x', WEB_CONCURRENCY: '3' }).webConcurrency).toBe(3);
  });
});

describe('pending migrations', () => {
  it('are every committed migration on an empty database, and none once it is migrated', async () => {
    const pglite = await PGlite.create();
    const prisma = new PrismaClient({ adapter: new PrismaPGlite(pglite) });
    try {
      expect(await pendingMigrations(prisma)).toEqual(await committedMigrations());
    } finally {
      await prisma.$disconnect();
      await pglite.close();
    }
    const migrated = await freshDatabase('pending');
    try {
      expect(await pendingMigrations(migrated.db.prisma)).toEqual([]);
    } finally {
      await migrated.cleanup();
    }
  });
});

describe('npm start (compiled)', () => {
  it('answers on a new PGlite folder, and starts again on it without applying anything', async () => {
    const dataDir = join(await mkdtemp(join(tmpdir(), 'gitlab-api-startup-')), 'data');
    onTestFinished(() => rm(dirname(dataDir), { recursive: true, force: true }));
    for (let i = 0; i < 2; i++) {
      const started = await npmStart({ DATA_DIR: dataDir, LOG_LEVEL: 'debug' });
      try {
        const version = await fetch(`http://127.0.0.1:${started.port}/api/v4/version`, { headers: { 'PRIVATE-TOKEN': TOKEN } });
        expect(version.status).toBe(200);
        // A new folder starts from the build's migrated template; either way nothing is left to apply, so the
        // schema engine is never loaded.
        expect(await logLine(started, 'migrations checked')).toMatchObject({ pending: [], applied: [] });
      } finally {
        expect(await stop(started)).toBe(0);
      }
    }
  }, 60_000);
});

describe('a port already in use', () => {
  it('is said in one line, without a stack trace, and exits 1', async () => {
    const first = await npmStart({ DATA_DIR: 'memory' });
    try {
      const second = npmStart({ DATA_DIR: 'memory', PORT: String(first.port) });
      const failure = await second.then(
        () => 'listening',
        (error: Error) => error.message,
      );
      expect(failure).toMatch(/^exited with 1: /);
      expect(failure).toContain(`cannot listen on 127.0.0.1:${first.port}: the address is already in use (set PORT or HOST)`);
      expect(failure).not.toMatch(/\n\s+at /);
    } finally {
      expect(await stop(first)).toBe(0);
    }
  }, 60_000);
});

describe('workers on PostgreSQL (WEB_CONCURRENCY=2)', () => {
  it('serve one port, share events across workers, replace a worker that dies, and all stop on SIGTERM', async (ctx) => {
    if (!process.env.TEST_DATABASE_URL) return ctx.skip();
    const db = await freshDatabase('workers');
    const started = await npmStart({ DATABASE_URL: db.databaseUrl ?? '', WEB_CONCURRENCY: '2', LOG_LEVEL: 'info' });
    const base = `http://127.0.0.1:${started.port}`;
    const client = createClient({ url: `ws://127.0.0.1:${started.port}/api/graphql`, webSocketImpl: WebSocket, connectionParams: { 'PRIVATE-TOKEN': TOKEN } });
    try {
      const primary = Number(execFileSync('pgrep', ['-P', String(started.child.pid)]).toString().trim());
      const workers = () => execFileSync('pgrep', ['-P', String(primary)]).toString().trim().split('\n').map(Number);
      await logLine(started, 'listening', started.output().indexOf('"msg":"listening"') + 1); // the second worker
      expect(workers()).toHaveLength(2);

      // The subscription lives on one worker; the cluster hands new connections to the workers in turn, so of
      // projects created each on a connection of its own, some are served by the other worker. It hears them all.
      const heard = new Set<number>();
      const subscribed = new Promise<void>((resolve, reject) => {
        client.on('connected', () => resolve());
        client.subscribe<{ activityEventRecorded: { projectId: number } }>(
          { query: 'subscription { activityEventRecorded { projectId } }' },
          { next: (msg) => msg.data && heard.add(msg.data.activityEventRecorded.projectId), error: reject, complete: () => {} },
        );
      });
      await subscribed;
      const create = async (name: string) => {
        const res = await fetch(`${base}/api/v4/projects`, {
          method: 'POST',
          headers: { 'PRIVATE-TOKEN': TOKEN, 'content-type': 'application/json', connection: 'close' },
          body: JSON.stringify({ name }),
        });
        expect(res.status).toBe(201);
        return ((await res.json()) as { id: number }).id;
      };
      // graphql-ws does not acknowledge a subscription: create until the first event shows it is listening.
      let probe = 0;
      while (!heard.size) await Promise.race([create(`probe-${probe++}`), new Promise((r) => setTimeout(r, 100))]);
      const created: number[] = [];
      for (let i = 0; i < 6; i++) created.push(await create(`across-${i}`));
      await expect.poll(() => created.filter((id) => !heard.has(id)), { timeout: 10_000, interval: 50 }).toEqual([]);

      // A worker killed outright is replaced, and the port keeps answering.
      const before = started.output().length;
      process.kill(workers()[0], 'SIGKILL');
      await logLine(started, 'listening', before);
      expect(workers()).toHaveLength(2);
      expect((await fetch(`${base}/api/v4/version`, { headers: { 'PRIVATE-TOKEN': TOKEN } })).status).toBe(200);

      const pids = workers();
      await client.dispose();
      process.kill(primary, 'SIGTERM');
      expect(await started.exited).toBe(0);
      for (const pid of pids) expect(() => process.kill(pid, 0)).toThrow();
      // The root token came from GITLAB_ROOT_TOKEN: nothing printed; a generated one would be printed by one worker.
      expect(started.output()).not.toMatch(/shown once/);
    } finally {
      await client.dispose();
      if (started.child.exitCode === null) process.kill(-(started.child.pid ?? 0), 'SIGKILL');
      await db.cleanup();
    }
  }, 60_000);
});
