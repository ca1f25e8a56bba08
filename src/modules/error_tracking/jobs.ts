/** Background work of error tracking: the recurring removal of what is older than the retention period. */
import type { JobHandlers } from '../../jobs/queue.js';
import type { JobEnvironment } from '../module.js';

/** The recurring job's kind. */
export const RETENTION_JOB = 'error_tracking.retention';
/** How often old events are looked for. */
const RETENTION_EVERY_MS = 60 * 60_000;

export function errorTrackingJobs({ contextFor }: JobEnvironment): JobHandlers {
  return {
    [RETENTION_JOB]: {
      everyMs: RETENTION_EVERY_MS,
      run: async () => {
        await contextFor(null).services.error_tracking.enforceRetention(new Date());
      },
    },
  };
}
