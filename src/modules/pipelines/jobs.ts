/** Background work of pipelines: a push's pipeline (GitLab's PostReceive → CreatePipelineService), delayed jobs falling due. */
import { userViewer } from '../../auth/viewer.js';
import type { JobHandlers } from '../../jobs/queue.js';
import type { JobEnvironment } from '../module.js';
import { PUSH_JOB, type PushedMessage } from '../repositories/service.js';

/** How often delayed (`when: delayed`) jobs are looked at; GitLab's own scheduling has minute granularity. */
const DELAYED_JOBS_EVERY_MS = 5_000;

export function pipelineJobs({ app, contextFor }: JobEnvironment): JobHandlers {
  return {
    [PUSH_JOB]: async (payload) => {
      const push = payload as PushedMessage;
      const viewer = await userViewer(app.db, push.userId);
      if (!viewer) return;
      const { services } = contextFor(viewer);
      const project = await services.projects.find({ id: push.projectId });
      if (!project) return;
      await services.pipelines.createForPush(project, push);
    },
    'pipelines.delayed_jobs': {
      everyMs: DELAYED_JOBS_EVERY_MS,
      run: async () => {
        const { services } = contextFor(null);
        await services.pipelines.startDueJobs(new Date());
      },
    },
  };
}
