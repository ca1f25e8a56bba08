/** Background work of projects: removing a project marked for deletion (GitLab's ProjectDestroyWorker). */
import type { JobHandlers } from '../../jobs/queue.js';
import type { JobEnvironment } from '../module.js';
import { DESTROY_JOB, type DestroyPayload } from './deletion.js';

export function projectJobs({ contextFor }: JobEnvironment): JobHandlers {
  return {
    [DESTROY_JOB]: async (payload) => {
      const { projectId } = payload as DestroyPayload;
      await contextFor(null).services.projects.deletion.destroy(projectId);
    },
  };
}
