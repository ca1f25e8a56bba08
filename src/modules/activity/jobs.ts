/** Background work of activity events: removing those past retention, on one replica at a time. */
import type { JobHandlers } from '../../jobs/queue.js';
import { ActivityService } from './service.js';

/** Rows removed per statement. */
export const PRUNE_BATCH_SIZE = 1000;

export const activityJobs: JobHandlers = {
  // GitLab prunes old events several times a day (PruneOldEventsWorker).
  'activity.prune': {
    everyMs: 6 * 60 * 60 * 1000,
    run: async (_payload, _job, db) => {
      await ActivityService.prune(db, new Date(), PRUNE_BATCH_SIZE);
    },
  },
};
