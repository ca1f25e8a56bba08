import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { freshDatabase } from '../support/db.js';
import { startProcess } from '../support/process.js';

// `npm start` as users and supervisors run it, stopped the three ways they stop it: SIGTERM to the whole process
// group (Ctrl-C, systemd), to npm alone (a supervisor that knows only its child), or to the server alone. Every
// request the server accepted gets its answer, and no process outlives the stop.
const TOKEN = 'glpat-shutdown-test-token';

interface Tree {
  npm: number;
  server: number;
  /** The cluster's workers on PostgreSQL; none on PGlite, where the server serves alone. */
  workers: number[];
  port: number;
  exited: Promise<number | null>;
}

async function npmStart(databaseUrl: string | undefined): Promise<Tree> {
  // On PostgreSQL two workers, whatever the machine's CPU count: a stop must drain every one of them.
  const env = { DATA_DIR: 'memory', DATABASE_URL: databaseUrl ?? '', WEB_CONCURRENCY: databaseUrl ? '2' : '1', GITLAB_ROOT_TOKEN: TOKEN, RATE_LIMIT_PER_MINUTE: '0' };
  const started = await startProcess('npm', ['start', '--silent'], env, { detached: true }); // a process group of its own, as a terminal gives it
  const npm = started.child.pid ?? 0;
  const children = (pid: number) => execFileSync('pgrep', ['-P', String(pid)]).toString().trim().split('\n').map(Number);
  const server = children(npm)[0];
  const workers = databaseUrl ? children(server) : [];
  return { npm, server, workers, port: started.port, exited: started.exited };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function gone(pids: number[], timeoutMs = 20_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (pids.every((p) => !alive(p))) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}

/** A request's status, or the network error that ended it. */
function outcome(answer: Promise<Response>): Promise<string> {
  return answer.then(
    (res) => String(res.status),
    (err: Error & { cause?: { code?: string } }) => err.cause?.code ?? err.message,
  );
}

/** A burst of reads and writes; each ends as a status, or as the network error that ended it. */
function burst(port: number, n: number): Promise<string>[] {
  const base = `http://127.0.0.1:${port}/api/v4`;
  const headers = { 'PRIVATE-TOKEN': TOKEN, 'content-type': 'application/json' };
  return Array.from({ length: n }, (_, i) =>
    outcome(fetch(i % 2 ? `${base}/projects?per_page=100` : `${base}/projects`, i % 2 ? { headers } : { method: 'POST', headers, body: JSON.stringify({ name: `p-${process.pid}-${Date.now()}-${i}` }) })),
  );
}

/** `npm start`, warmed up so what `run` does meets a running server; whatever is left is killed afterwards. */
async function withNpmStart(run: (tree: Tree) => Promise<void>): Promise<void> {
  // On PostgreSQL the server gets a scratch database of its own; on PGlite it keeps one in memory.
  const db = await freshDatabase('shutdown');
  const tree = await npmStart(db.databaseUrl);
  try {
    expect((await Promise.all(burst(tree.port, 2))).every((s) => s === '200' || s === '201')).toBe(true);
    await run(tree);
  } finally {
    for (const pid of [...tree.workers, tree.server, tree.npm]) if (alive(pid)) process.kill(pid, 'SIGKILL');
    await db.cleanup();
  }
}

describe('npm start stops cleanly', () => {
  const ways: [string, (t: Tree) => void][] = [
    ['SIGTERM to the process group', (t) => process.kill(-t.npm, 'SIGTERM')],
    ['SIGTERM to npm alone', (t) => process.kill(t.npm, 'SIGTERM')],
    ['SIGTERM to the server alone', (t) => process.kill(t.server, 'SIGTERM')],
    ['SIGKILL to npm (the parent dies without passing anything on)', (t) => process.kill(t.npm, 'SIGKILL')],
  ];
  for (const [way, signal] of ways) {
    it(`answers every accepted request and leaves no process behind after ${way}`, () =>
      withNpmStart(async (tree) => {
        // Stop it while a burst is in flight.
        const answers = burst(tree.port, 20);
        await new Promise((r) => setTimeout(r, 20));
        signal(tree);
        const outcomes = await Promise.all(answers);
        // A request either got its answer, or was refused before the server accepted it; never reset, never 5xx.
        expect(outcomes.filter((o) => !['200', '201', 'ECONNREFUSED'].includes(o))).toEqual([]);
        expect(outcomes.filter((o) => o === '200' || o === '201').length).toBeGreaterThan(0);
        expect(await gone([tree.npm, tree.server, ...tree.workers])).toBe(true);
      }), 60_000);
  }

  it('answers requests express answers at once (/-/health, 404, 410) while it drains, and exits 0 with the in-flight writes answered', () =>
    withNpmStart(async (tree) => {
      const inFlight = burst(tree.port, 10);
      await new Promise((r) => setTimeout(r, 20));
      process.kill(tree.server, 'SIGTERM');
      // Each answered synchronously by express, on kept-alive connections and new ones, during the drain's accept grace.
      const paths = ['/-/health', '/no/such/path', '/api/v3/projects'];
      const quick = await Promise.all(
        Array.from({ length: 10 }, (_, i) => new Promise((r) => setTimeout(r, i * 25)).then(() => outcome(fetch(`http://127.0.0.1:${tree.port}${paths[i % 3]}`)))),
      );
      expect(quick.filter((o) => !['200', '404', '410', 'ECONNREFUSED'].includes(o))).toEqual([]);
      expect(quick.filter((o) => o !== 'ECONNREFUSED').length).toBeGreaterThan(0);
      const outcomes = await Promise.all(inFlight);
      expect(outcomes.filter((o) => !['200', '201', 'ECONNREFUSED'].includes(o))).toEqual([]);
      expect(outcomes.filter((o) => o === '201').length).toBeGreaterThan(0);
      expect(await tree.exited).toBe(0);
    }), 60_000);
});
