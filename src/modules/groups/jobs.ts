/** Background work of groups: removing a group whose deletion was asked for (GitLab's GroupDestroyWorker). */
import type { JobHandlers } from '../../jobs/queue.js';
import type { JobEnvironment } from '../module.js';
import { GROUP_DESTROY_JOB, type GroupDestroyPayload } from './deletion.js';

export function groupJobs({ contextFor }: JobEnvironment): JobHandlers {
  return {
    [GROUP_DESTROY_JOB]: async (payload) => {
      const { groupId } = payload as GroupDestroyPayload;
      await contextFor(null).services.groups.deletion.destroy(groupId);
    },
  };
}
