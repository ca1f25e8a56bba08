/**
 * CLI entry: `npm start`. Reads the environment, starts the server, prints a generated root token once, and stops
 * cleanly: on SIGTERM or SIGINT (to this process, or to its whole process group, repeated or not) and when the
 * process that started it goes away, it stops accepting, finishes in-flight requests, closes subscriptions, exits.
 */
import { ConfigError, loadConfig } from './config.js';
import { createLogger } from './logger.js';

// Before graphql is loaded: its development-mode checks cost a tenth of a request's execution time.
process.env.NODE_ENV ??= 'production';
const { startServer } = await import('./server.js');

/** How often to check that the parent process (npm, a shell, a supervisor) is still there. */
const PARENT_CHECK_MS = 1000;

try {
  const config = loadConfig();
  const logger = createLogger(config.logLevel);
  const server = await startServer(config, { logger });
  logger.info({ url: `http://${config.host}:${server.port}`, externalUrl: config.externalUrl, database: server.database.kind }, 'listening');
  if (server.generatedRootToken) {
    process.stdout.write(`\nCreated the root administrator. Its personal access token (shown once):\n\n  ${server.generatedRootToken}\n\n`);
  }
  let stopping = false;
  const stop = (reason: string) => {
    // A signal sent to the process group reaches npm too, which forwards it again: one drain is enough.
    if (stopping) return;
    stopping = true;
    logger.info({ reason }, 'shutting down');
    server.close().then(
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
  throw err;
}
