/**
 * `npm run runner -- --url <server> --token glrt-…`: the built-in shell runner as a process of its own (the server
 * starts the same one with RUNNER=shell). Options: `--concurrency <n>` (1), `--clone-url <url>` (where to fetch
 * repositories when the server's external URL does not reach it), `--builds-dir <folder>`, `--check-interval <s>`
 * (3), `--cache-dir <folder>` (the local cache; `cache` beside the builds), `--shutdown-timeout <s>` (0: how long a
 * stop lets running jobs finish before ending them). The token may come from RUNNER_TOKEN instead of the command line. Stops on SIGTERM or SIGINT, and when the
 * process that started it goes away, ending its running jobs.
 */
import { parseArgs } from 'node:util';
import { ShellRunner } from './runner.js';

/** How often to check that the parent process is still there. */
const PARENT_CHECK_MS = 1000;

function log(level: 'info' | 'warn' | 'error', msg: string, fields: object = {}): void {
  process.stdout.write(`${JSON.stringify({ time: new Date().toISOString(), level, component: 'runner', ...fields, msg })}\n`);
}

function fail(message: string): never {
  process.stderr.write(`runner: ${message}\n`);
  process.exit(2);
}

const { values } = parseArgs({
  options: {
    url: { type: 'string' },
    token: { type: 'string' },
    concurrency: { type: 'string', default: '1' },
    'clone-url': { type: 'string' },
    'builds-dir': { type: 'string' },
    'check-interval': { type: 'string', default: '3' },
    'cache-dir': { type: 'string' },
    'shutdown-timeout': { type: 'string', default: '0' },
  },
  strict: true,
});

const url = values.url ?? fail('--url is required');
const token = values.token ?? process.env.RUNNER_TOKEN ?? fail('--token (or RUNNER_TOKEN) is required');
const concurrency = Number(values.concurrency);
if (!Number.isInteger(concurrency) || concurrency < 1) fail('--concurrency must be a positive integer');
const checkInterval = Number(values['check-interval']);
if (!Number.isFinite(checkInterval) || checkInterval < 0) fail('--check-interval must be a number of seconds');
const shutdownTimeout = Number(values['shutdown-timeout']);
if (!Number.isFinite(shutdownTimeout) || shutdownTimeout < 0) fail('--shutdown-timeout must be a number of seconds');

const runner = new ShellRunner({ url, token, concurrency, cloneUrl: values['clone-url'] ?? null, buildsDir: values['builds-dir'], cacheDir: values['cache-dir'], shutdownTimeoutMs: shutdownTimeout * 1000, checkIntervalMs: checkInterval * 1000, log });
if (!(await runner.verify().catch((error: Error) => fail(`cannot reach ${url}: ${error.message}`)))) fail('the server does not know this runner token');
runner.start();
log('info', 'runner started', { url, concurrency });

let stopping = false;
const stop = (reason: string) => {
  if (stopping) return;
  stopping = true;
  log('info', 'runner stopping', { reason });
  runner.stop().then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.on('SIGTERM', () => stop('SIGTERM'));
process.on('SIGINT', () => stop('SIGINT'));
const parent = process.ppid;
setInterval(() => process.ppid !== parent && stop('parent exited'), PARENT_CHECK_MS).unref();
