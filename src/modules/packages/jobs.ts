/** `packages.destroy`: removes a package (or one file) marked pending_destruction, rows and bytes; idempotent. */
import type { JobHandlers } from '../../jobs/queue.js';
import type { JobEnvironment } from '../module.js';
import { NPM_PROCESS_JOB } from './npm/service.js';
import { DESTROY_JOB } from './service.js';

export const packageJobs = ({ contextFor }: JobEnvironment): JobHandlers => ({
  [DESTROY_JOB]: async (payload) => {
    await contextFor(null).services.packages.purge(payload as { packageId?: number; packageFileId?: number });
  },
  [NPM_PROCESS_JOB]: async (payload) => {
    await contextFor(null).services.packages.npm.process((payload as { packageFileId: number }).packageFileId);
  },
});
