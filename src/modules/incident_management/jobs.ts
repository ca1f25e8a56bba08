/** Background work of incident management: the recurring check of SLAs past due (GitLab's cron, every 2 minutes). */
import type { JobHandlers } from '../../jobs/queue.js';
import type { JobEnvironment } from '../module.js';

/** The recurring job's kind. */
export const SLA_EXCEEDED_CHECK_JOB = 'incident_management.sla_exceeded_check';
/** IncidentSlaExceededCheckWorker's cron schedule: every 2 minutes. */
const CHECK_EVERY_MS = 2 * 60_000;

export function incidentManagementJobs({ contextFor }: JobEnvironment): JobHandlers {
  return {
    [SLA_EXCEEDED_CHECK_JOB]: {
      everyMs: CHECK_EVERY_MS,
      run: async () => {
        await contextFor(null).services.incident_management.applyExceededSlaLabels(new Date());
      },
    },
  };
}
