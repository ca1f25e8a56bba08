/** The background job that counts a finished job's minutes (GitLab's Ci::Minutes::UpdateProjectAndNamespaceUsageWorker). */
import type { JobHandlers } from '../../jobs/queue.js';
import type { JobEnvironment } from '../module.js';
import { CiMinutesService, TRACK_BUILD_MINUTES_JOB } from './service.js';

export function ciMinutesJobs({ app }: JobEnvironment): JobHandlers {
  return {
    [TRACK_BUILD_MINUTES_JOB]: async (payload) => CiMinutesService.track(app.db, (payload as { jobId: number }).jobId),
  };
}
