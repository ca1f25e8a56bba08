/**
 * WEB_CONCURRENCY above 1 (PostgreSQL only): this process supervises and serves nothing; each worker runs the whole
 * server on the shared port (node:cluster hands them the connections in turn). The workers migrate and seed as
 * replicas do: the schema engine's lock lets one apply a pending migration, and one of them creates root and prints
 * its token. Kept small on purpose: it loads neither Prisma nor GraphQL.
 */
import cluster, { type Worker } from 'node:cluster';
import type { Config } from './config.js';
import type { Logger } from './logger.js';

export interface Supervisor {
  /** Asks every worker to drain (SIGTERM) and resolves when all have exited. */
  close(): Promise<void>;
}

export function superviseWorkers(config: Config, logger: Logger): Supervisor {
  let stopping = false;
  const exited = new Map<Worker, Promise<void>>();
  const fork = () => {
    const worker = cluster.fork();
    let listened = false;
    worker.once('listening', () => (listened = true));
    exited.set(
      worker,
      new Promise((resolve) =>
        worker.once('exit', (code, signal) => {
          exited.delete(worker);
          resolve();
          if (stopping) return;
          if (!listened) {
            // A worker that cannot start (database unreachable, port taken) would fail again: give up, not loop.
            logger.error({ pid: worker.process.pid, code, signal }, 'worker failed to start');
            void close().then(() => process.exit(1));
            return;
          }
          logger.warn({ pid: worker.process.pid, code, signal }, 'worker exited; starting another');
          fork();
        }),
      ),
    );
  };
  const close = async () => {
    stopping = true;
    for (const worker of exited.keys()) worker.process.kill('SIGTERM');
    await Promise.all(exited.values());
  };
  for (let i = 0; i < config.webConcurrency; i++) fork();
  logger.info({ workers: config.webConcurrency }, 'supervising workers');
  return { close };
}
