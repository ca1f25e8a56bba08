/**
 * WEB_CONCURRENCY above 1 (PostgreSQL only): this process supervises and serves nothing; each worker runs the whole
 * server on the shared port (node:cluster hands them the connections in turn). The first worker starts alone: it
 * applies pending migrations and creates root (printing a generated token), and answers as soon as a single process
 * would, without the others competing for the CPU; the rest start once it listens and find nothing left to do.
 * Kept small on purpose: it loads neither Prisma nor GraphQL.
 */
import cluster, { type Worker } from 'node:cluster';
import type { Config } from './config.js';
import type { Logger } from './logger.js';

/** Set in the environment of the one worker that runs the built-in runner (RUNNER=shell), and of its replacement. */
export const RUNNER_HOST_ENV = 'GITLAB_BUILTIN_RUNNER_HOST';

export interface Supervisor {
  /** Asks every worker to drain (SIGTERM) and resolves when all have exited. */
  close(): Promise<void>;
}

export function superviseWorkers(config: Config, logger: Logger): Supervisor {
  let stopping = false;
  const exited = new Map<Worker, Promise<void>>();
  const fork = (then?: () => void, hostsRunner = false) => {
    const worker = cluster.fork(hostsRunner ? { [RUNNER_HOST_ENV]: '1' } : {});
    let listened = false;
    worker.once('listening', () => {
      listened = true;
      then?.();
    });
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
          fork(undefined, hostsRunner);
        }),
      ),
    );
  };
  const close = async () => {
    stopping = true;
    for (const worker of exited.keys()) worker.process.kill('SIGTERM');
    await Promise.all(exited.values());
  };
  fork(() => {
    for (let i = 1; i < config.webConcurrency && !stopping; i++) fork();
  }, config.runner !== null);
  logger.info({ workers: config.webConcurrency }, 'supervising workers');
  return { close };
}
