/**
 * Background work of environments: the recurring stop of environments whose `auto_stop_at` passed (GitLab's
 * Environments::AutoStopCronWorker), the recurring deletion of those whose `auto_delete_at` passed
 * (Environments::AutoDeleteCronWorker), and the drop of deployments a newer running one outdates (forward.ts).
 */
import { userViewer } from '../../auth/viewer.js';
import type { JobHandlers } from '../../jobs/queue.js';
import type { JobEnvironment } from '../module.js';
import { DROP_OLDER_DEPLOYMENTS_JOB } from './forward.js';

export const AUTO_STOP_JOB = 'environments.auto_stop';
/** The recurring deletion of environments whose `auto_delete_at` passed (review apps marked by DELETE /environments/review_apps). */
export const AUTO_DELETE_JOB = 'environments.auto_delete';
/** How often due environments are looked for (GitLab's cron runs hourly; a minute keeps `auto_stop_in` close). */
const AUTO_STOP_EVERY_MS = 60_000;

export function environmentJobs({ app, contextFor }: JobEnvironment): JobHandlers {
  return {
    [DROP_OLDER_DEPLOYMENTS_JOB]: async (payload) => {
      const { deploymentId } = payload as { deploymentId: number };
      await contextFor(null).services.environments.dropOlderDeployments(deploymentId);
    },
    [AUTO_DELETE_JOB]: {
      everyMs: AUTO_STOP_EVERY_MS,
      run: async () => {
        await contextFor(null).services.environments.deleteDueEnvironments(new Date());
      },
    },
    [AUTO_STOP_JOB]: {
      everyMs: AUTO_STOP_EVERY_MS,
      run: async () => {
        const due = await contextFor(null).services.environments.dueForAutoStop(new Date());
        for (const environment of due) {
          // Its stop job runs as the user of its last deployment, as GitLab's worker plays it.
          const viewer = environment.userId === null ? null : await userViewer(app.db, environment.userId);
          await contextFor(viewer).services.environments.autoStop(environment.id);
        }
      },
    },
  };
}
