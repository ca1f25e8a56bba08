/**
 * CLI entry: `npm start` (compiled to dist/main.js). Reads the environment, starts the server (or, with
 * WEB_CONCURRENCY above 1, workers that each run it), prints a generated root token once, and stops cleanly: on
 * SIGTERM or SIGINT (to this process, or to its whole process group, repeated or not) and when the process that
 * started it goes away, it stops accepting, finishes in-flight requests, closes subscriptions, exits.
 */
import cluster from 'node:cluster';
import { setFlagsFromString } from 'node:v8';
import { ConfigError, loadConfig, type Config } from './config.js';
import { createLogger, type Logger } from './logger.js';
import { RUNNER_HOST_ENV, superviseWorkers } from './cluster.js';

// Before graphql is loaded: its development-mode checks cost a tenth of a request's execution time.
process.env.NODE_ENV ??= 'production';

/** How often to check that the parent process (npm, a shell, a supervisor, the cluster's primary) is still there. */
const PARENT_CHECK_MS = 1000;

async function serve(config: Config, logger: Logger): Promise<{ close(): Promise<void> }> {
  // On PostgreSQL the only WebAssembly is Prisma's query compiler, whose plans are cached: optimising it saves
  // nothing per request, and its optimised code is about 45 MB that stays resident. (PGlite's WebAssembly is the
  // database itself, which runs every query: it keeps the optimising compiler.)
  if (config.databaseUrl) setFlagsFromString('--liftoff-only');
  // PGlite boots in its worker while this thread loads the server's code (which does not need the database yet).
  if (!config.databaseUrl && config.pgliteWorker) {
    const { PgliteThread, pgliteFolder } = await import('./db/pglite-thread.js');
    PgliteThread.startAhead(pgliteFolder(config.dataDir));
  }
  const { startServer } = await import('./server.js');
  const server = await startServer(config, { logger });
  logger.info({ url: `http://${config.host}:${server.port}`, externalUrl: config.externalUrl, database: server.database.kind }, 'listening');
  const kept = server.initialRootTokenFile ? `It is also kept in ${server.initialRootTokenFile} until it is first used, or for 24 hours.\n\n` : '';
  if (server.generatedRootToken) {
    process.stdout.write(`\nCreated the root administrator. Its personal access token (shown once):\n\n  ${server.generatedRootToken}\n\n${kept}`);
  } else if (kept) {
    // Made by an earlier start that never got to say so (it could not listen, say), and not used since.
    process.stdout.write(`\nThe root administrator's first personal access token is in ${server.initialRootTokenFile} until it is first used, or for 24 hours.\n\n`);
  }
  // RUNNER=shell: one process runs the built-in runner (of several workers, the one the supervisor chose).
  if (config.runner === 'shell' && (cluster.isPrimary || process.env[RUNNER_HOST_ENV] === '1')) {
    // Started beside the server rather than before answering: a stop may come at any time, and stops both.
    const runner = import('./builtin-runner.js')
      .then(({ startBuiltInRunner }) => startBuiltInRunner(server.app, config, server.port, logger))
      .catch((err: unknown) => {
        logger.error({ err: String(err) }, 'built-in runner failed to start');
        return null;
      });
    return {
      close: async () => {
        await (await runner)?.stop();
        await server.close();
      },
    };
  }
  return server;
}

try {
  const config = loadConfig();
  const logger = createLogger(config.logLevel);
  const running = cluster.isPrimary && config.webConcurrency > 1 ? superviseWorkers(config, logger) : await serve(config, logger);
  let stopping = false;
  const stop = (reason: string) => {
    // A signal sent to the process group reaches npm (and the cluster's primary) too, which pass it on: one drain.
    if (stopping) return;
    stopping = true;
    logger.info({ reason }, 'shutting down');
    running.close().then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error({ err: String(err) }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  // Whoever started us died without passing a signal on (a supervisor that killed only its child): no orphan.
  const parent = process.ppid;
  setInterval(() => process.ppid !== parent && stop('parent exited'), PARENT_CHECK_MS).unref();
} catch (err) {
  if (err instanceof ConfigError) {
    process.stderr.write(`configuration error: ${err.message}\n`);
    process.exit(2);
  }
  // A port that cannot be had is the user's to fix: said plainly, without a stack trace.
  const listen = err as NodeJS.ErrnoException & { address?: string; port?: number };
  if (listen.syscall === 'listen' && (listen.code === 'EADDRINUSE' || listen.code === 'EACCES' || listen.code === 'EADDRNOTAVAIL')) {
    const reason = { EADDRINUSE: 'the address is already in use', EACCES: 'permission denied', EADDRNOTAVAIL: 'no such address on this machine' }[listen.code];
    process.stderr.write(`cannot listen on ${listen.address}:${listen.port}: ${reason} (set PORT or HOST)\n`);
    process.exit(1);
  }
  throw err;
}
