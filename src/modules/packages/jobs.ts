/** `packages.destroy`: removes a package (or one file) marked pending_destruction, rows and bytes; idempotent. */
import type { JobHandlers } from '../../jobs/queue.js';
import type { JobEnvironment } from '../module.js';
import { DESTROY_JOB } from './service.js';

export const packageJobs = ({ contextFor }: JobEnvironment): JobHandlers => ({
  [DESTROY_JOB]: async (payload) => {
    await contextFor(null).services.packages.purge(payload as { packageId?: number; packageFileId?: number });
  },
});
