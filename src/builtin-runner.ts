/**
 * RUNNER=shell: the server runs the built-in shell runner beside itself. The runner is an instance runner of this
 * server, created once; its token is kept in `<DATA_DIR>/shell-runner.json` (readable by this user only), so later
 * starts reuse it (with DATA_DIR=memory, each start has a new database and a new runner). The runner is a child
 * process in the server's process group, speaking only HTTP to the server's loopback address, with none of the
 * server's environment besides what a job needs (PATH, HOME, …); it stops when the server stops, or dies.
 */
import { spawn } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { RUNNING_TYPESCRIPT, codeFile } from './paths.js';
import type { Config } from './config.js';
import { createContext, type App } from './context.js';
import type { Logger } from './logger.js';

/** What the runner inherits of the server's environment. */
const INHERITED = ['PATH', 'HOME', 'LANG', 'LC_ALL', 'TMPDIR', 'USER', 'SHELL'];
/** How long a stopping runner may take past SHUTDOWN_TIMEOUT to report its ended jobs before it is killed. */
const STOP_TIMEOUT_MS = 10_000;

async function storedToken(file: string | null): Promise<string | null> {
  if (!file) return null;
  try {
    const { token } = JSON.parse(await readFile(file, 'utf8')) as { token?: unknown };
    return typeof token === 'string' ? token : null;
  } catch {
    return null;
  }
}

export async function startBuiltInRunner(app: App, config: Config, port: number, logger: Logger): Promise<{ stop(): Promise<void> }> {
  const file = config.dataDir === 'memory' ? null : resolve(config.dataDir, 'shell-runner.json');
  const stored = await storedToken(file);
  const token = await createContext(app, null).services.runners.builtInRunner(stored, config.runnerTags);
  if (file && token !== stored) {
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, `${JSON.stringify({ token })}\n`, { mode: 0o600 });
  }
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  // Compiled (dist/runner/main.js), or the TypeScript source under tsx.
  const entry = codeFile('runner/main');
  const env: Record<string, string> = { RUNNER_TOKEN: token };
  for (const key of INHERITED) if (process.env[key] !== undefined) env[key] = process.env[key] as string;
  const child = spawn(process.execPath, [...(RUNNING_TYPESCRIPT ? ['--import', 'tsx'] : []), entry, '--url', url, '--clone-url', url,
    '--concurrency', String(config.runnerConcurrency),
    '--shutdown-timeout', String(config.shutdownTimeoutMs / 1000),
    // gitlab-runner's local cache, kept with the server's data (a temporary folder with DATA_DIR=memory).
    ...(config.dataDir === 'memory' ? [] : ['--cache-dir', resolve(config.dataDir, 'runner-cache')])], {
    env,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  child.once('exit', (code, signal) => logger.info({ code, signal }, 'built-in runner exited'));
  logger.info({ pid: child.pid, url }, 'built-in runner started');
  return {
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), config.shutdownTimeoutMs + STOP_TIMEOUT_MS);
      await exited;
      clearTimeout(timer);
    },
  };
}
