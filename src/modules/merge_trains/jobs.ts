/**
 * The background work of merge trains: a pass over a train (train.ts) when a car boards or leaves, and when a car's
 * train pipeline finishes (pipelines/processing.ts queues that in the transaction that finishes it, as GitLab's
 * pipeline state machine calls MergeTrains::Car#refresh_train after a train pipeline completes). Each car is handled
 * as its user.
 */
import { userViewer } from '../../auth/viewer.js';
import type { JobHandlers, JobQueue } from '../../jobs/queue.js';
import type { JobEnvironment, Services } from '../module.js';
import { REFRESH_JOB, type ServicesOf } from './train.js';

const TRAIN_PIPELINE_FINISHED_JOB = 'merge_trains.pipeline_finished';

/** A train pipeline finished: its train moves on, once per pipeline and status (the job's key). */
export async function enqueueTrainPipelineFinished(jobs: Pick<JobQueue, 'enqueue'>, pipelineId: number, status: string, tx?: Parameters<JobQueue['enqueue']>[3]): Promise<void> {
  await jobs.enqueue(TRAIN_PIPELINE_FINISHED_JOB, { pipelineId }, { uniqueKey: `${TRAIN_PIPELINE_FINISHED_JOB}:${pipelineId}:${status}` }, tx);
}

export function mergeTrainJobs({ app, contextFor }: JobEnvironment): JobHandlers {
  const system = () => contextFor(null).services.merge_trains;
  const servicesOf = (): ServicesOf => {
    const known = new Map<number, Promise<Services | null>>();
    return (userId) => {
      let services = known.get(userId);
      if (!services) {
        services = userViewer(app.db, userId).then((viewer) => (viewer ? contextFor(viewer).services : null));
        known.set(userId, services);
      }
      return services;
    };
  };
  return {
    [REFRESH_JOB]: (payload) => system().refresh.run(payload, servicesOf()),
    [TRAIN_PIPELINE_FINISHED_JOB]: async (payload) => {
      const trains = system();
      const car = await trains.carOfPipeline((payload as { pipelineId: number }).pipelineId);
      if (!car) return;
      await trains.refresh.run({ projectId: car.targetProjectId, targetBranch: car.targetBranch }, servicesOf());
    },
  };
}
