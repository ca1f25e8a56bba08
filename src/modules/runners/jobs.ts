/** Background work of runners: jobs no runner will finish (GitLab's StuckCiJobsWorker), expired artifacts (ExpireBuildArtifactsWorker). */
import type { JobHandlers } from '../../jobs/queue.js';
import type { JobEnvironment } from '../module.js';

/** How often stuck and timed-out jobs are looked for. */
const STUCK_JOBS_EVERY_MS = 60_000;
/** How often expired artifacts are removed. */
const EXPIRED_ARTIFACTS_EVERY_MS = 10 * 60_000;

export function runnerJobs({ contextFor }: JobEnvironment): JobHandlers {
  return {
    'runners.stuck_jobs': {
      everyMs: STUCK_JOBS_EVERY_MS,
      run: async () => {
        await contextFor(null).services.runners.failStuckJobs(new Date());
      },
    },
    'runners.expired_artifacts': {
      everyMs: EXPIRED_ARTIFACTS_EVERY_MS,
      run: async () => {
        await contextFor(null).services.runners.removeExpiredArtifacts(new Date());
      },
    },
  };
}
