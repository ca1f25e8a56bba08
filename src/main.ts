/** CLI entry: `npm start`. Reads the environment, starts the server, prints a generated root token once, stops cleanly on SIGTERM. */
import { ConfigError, loadConfig } from './config.js';
import { createLogger } from './logger.js';

// Before graphql is loaded: its development-mode checks cost a tenth of a request's execution time.
process.env.NODE_ENV ??= 'production';
const { startServer } = await import('./server.js');

try {
  const config = loadConfig();
  const logger = createLogger(config.logLevel);
  const server = await startServer(config, { logger });
  logger.info({ url: `http://${config.host}:${server.port}`, externalUrl: config.externalUrl, database: server.database.kind }, 'listening');
  if (server.generatedRootToken) {
    process.stdout.write(`\nCreated the root administrator. Its personal access token (shown once):\n\n  ${server.generatedRootToken}\n\n`);
  }
  const stop = (signal: string) => {
    logger.info({ signal }, 'shutting down');
    server.close().then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error({ err: String(err) }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
} catch (err) {
  if (err instanceof ConfigError) {
    process.stderr.write(`configuration error: ${err.message}\n`);
    process.exit(2);
  }
  throw err;
}
