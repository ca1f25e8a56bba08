/** Background work of pipelines: a push's pipeline (GitLab's PostReceive → CreatePipelineService), delayed jobs falling due. */
import { userViewer } from '../../auth/viewer.js';
import type { JobHandlers } from '../../jobs/queue.js';
import type { JobEnvironment } from '../module.js';
import { PUSH_JOB, type PushJobPayload } from '../repositories/service.js';
import { BRIDGE_STATUS_JOB, DOWNSTREAM_JOB } from './processing.js';
import { ASSIGN_RESOURCE_JOB } from './resource_groups.js';
import { CANCEL_ON_JOB_FAILURE_JOB } from './service.js';

/** How often delayed (`when: delayed`) jobs are looked at; GitLab's own scheduling has minute granularity. */
const DELAYED_JOBS_EVERY_MS = 5_000;

export function pipelineJobs({ app, contextFor }: JobEnvironment): JobHandlers {
  return {
    [PUSH_JOB]: async (payload) => {
      const push = payload as PushJobPayload;
      const viewer = await userViewer(app.db, push.userId);
      if (!viewer) return;
      const { services } = contextFor(viewer);
      const project = await services.projects.find({ id: push.projectId });
      if (!project) return;
      await services.pipelines.createForPush(project, push);
      // Open merge requests from or into the pushed branch get their merge refs and pipelines (MergeRequests::RefreshService).
      await services.merge_requests.pipelines.onPush(project, push);
      // Their Merge Request Hooks say the source branch moved (`update` with `oldrev`).
      await services.merge_requests.refreshOnPush(project, push);
      // A train of the pushed branch is rebuilt on its new head (merge_trains/train.ts; its own merges land here too).
      await services.merge_trains.onPush(project, push);
    },
    // As the bridge's user: the downstream pipeline is theirs, and their permissions decide whether it may exist.
    [DOWNSTREAM_JOB]: async (payload) => {
      const { bridgeId } = payload as { bridgeId: number };
      const bridge = await app.db.ciJob.findUnique({ where: { id: bridgeId }, select: { userId: true } });
      if (!bridge) return;
      const viewer = bridge.userId === null ? null : await userViewer(app.db, bridge.userId);
      await contextFor(viewer).services.pipelines.downstream.create(bridgeId);
    },
    [BRIDGE_STATUS_JOB]: async (payload) => {
      const { pipelineId } = payload as { pipelineId: number };
      await contextFor(null).services.pipelines.downstream.inherit(pipelineId);
    },
    [ASSIGN_RESOURCE_JOB]: async (payload) => {
      const { resourceGroupId } = payload as { resourceGroupId: number };
      await contextFor(null).services.pipelines.resourceGroups.assign(resourceGroupId);
    },
    [CANCEL_ON_JOB_FAILURE_JOB]: async (payload) => {
      const { pipelineId, jobId } = payload as { pipelineId: number; jobId: number };
      await contextFor(null).services.pipelines.cancelOnJobFailure(pipelineId, jobId);
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
