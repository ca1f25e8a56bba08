/**
 * Background work of pipeline schedules: the recurring look for due schedules (GitLab's PipelineScheduleWorker),
 * and one schedule's run (GitLab's RunPipelineScheduleWorker), queued by it or by a play.
 */
import { userViewer } from '../../auth/viewer.js';
import type { JobHandlers } from '../../jobs/queue.js';
import type { JobEnvironment } from '../module.js';
import { RUN_JOB, type RunPayload } from './service.js';

/** The recurring job's kind. */
export const DUE_JOB = 'pipeline_schedules.due';
/** How often due schedules are looked for: cron's own granularity. */
const DUE_EVERY_MS = 60_000;

export function pipelineScheduleJobs({ app, contextFor }: JobEnvironment): JobHandlers {
  return {
    [DUE_JOB]: {
      everyMs: DUE_EVERY_MS,
      run: async () => {
        const { services } = contextFor(null);
        const now = new Date();
        while ((await services.pipeline_schedules.enqueueDue(now)) > 0);
      },
    },
    [RUN_JOB]: async (payload) => {
      const run = payload as RunPayload;
      // A blocked or deleted user runs nothing (GitLab's worker returns without a pipeline).
      const viewer = await userViewer(app.db, run.userId);
      if (!viewer) return;
      await contextFor(viewer).services.pipeline_schedules.run(run.scheduleId);
    },
  };
}
