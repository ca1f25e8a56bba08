/** `npm start` as a user runs it, for the benchmarks: on a free port, answered once GET /api/v4/version says 200. */
import { execFileSync, spawn } from 'node:child_process';
import { createServer } from 'node:net';

const ROOT = new URL('../../', import.meta.url).pathname;
export const TOKEN = 'glpat-bench-start-token';

export interface NpmStart {
  /** npm's pid: the root of the process tree. */
  pid: number;
  port: number;
  /** From spawning npm to the first 200, in ms. */
  ms: number;
  /** SIGTERM to the process group; resolves when npm has exited. */
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

export async function npmStart(env: Record<string, string>): Promise<NpmStart> {
  const port = await freePort();
  const started = process.hrtime.bigint();
  const child = spawn('npm', ['start'], {
    cwd: ROOT,
    detached: true,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', GITLAB_ROOT_TOKEN: TOKEN, LOG_LEVEL: 'silent', DATABASE_URL: '', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let done = false;
  void exited.then(() => (done = true));
  const stop = async () => {
    if (!done) process.kill(-(child.pid ?? 0), 'SIGTERM');
    await exited;
  };
  for (;;) {
    if (done) throw new Error(`npm start exited: ${stderr}`);
    const ok = await fetch(`http://127.0.0.1:${port}/api/v4/version`, { headers: { 'PRIVATE-TOKEN': TOKEN } }).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) break;
    await new Promise((r) => setTimeout(r, 10));
  }
  return { pid: child.pid ?? 0, port, ms: Number(process.hrtime.bigint() - started) / 1e6, stop };
}

/** A scratch database on the local PostgreSQL server (trust authentication), or DATABASE_URL when set. */
export function scratchPostgres(label: string): { url: string; drop(): void } {
  if (process.env.DATABASE_URL) return { url: process.env.DATABASE_URL, drop: () => {} };
  const name = `${label}_${process.pid}`;
  const psql = (sql: string) => execFileSync('psql', ['-h', '127.0.0.1', '-U', 'postgres', '-d', 'postgres', '-qc', sql]);
  psql(`CREATE DATABASE ${name}`);
  return { url: `postgresql://postgres@127.0.0.1:5432/${name}`, drop: () => psql(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}
