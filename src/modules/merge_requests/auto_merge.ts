/**
 * Auto-merge (GitLab's AutoMergeService with MergeWhenPipelineSucceedsService / MergeWhenChecksPassService): a merge
 * asked for while the head pipeline runs is kept with its options and its user, done by a background job when the
 * pipeline succeeds, and cancelled when it fails or is canceled, or through `cancel_merge_when_pipeline_succeeds`.
 */
import { userViewer } from '../../auth/viewer.js';
import { refused } from '../../errors.js';
import type { JobHandlers, JobQueue } from '../../jobs/queue.js';
import type { JobEnvironment } from '../module.js';
import { ADD_TO_MERGE_TRAIN } from '../merge_trains/service.js';
import type { ProjectRow } from '../projects/service.js';
import type { MergeOptions } from './git.js';
import type { MergeRequestRow, MergeRequestsService } from './service.js';

export const AUTO_MERGE_JOB = 'merge_requests.auto_merge';
export const AUTO_MERGE_STRATEGIES = ['merge_when_pipeline_succeeds', 'merge_when_checks_pass'] as const;
const ACTIVE = ['created', 'waiting_for_resource', 'preparing', 'waiting_for_callback', 'pending', 'running', 'scheduled'];

/** A finished pipeline's auto-merges are looked at once per status (idempotent: the job's key). */
export async function enqueueAutoMerge(jobs: Pick<JobQueue, 'enqueue'>, pipelineId: number, status: string, tx?: Parameters<JobQueue['enqueue']>[3]): Promise<void> {
  await jobs.enqueue(AUTO_MERGE_JOB, { pipelineId, status }, { uniqueKey: `${AUTO_MERGE_JOB}:${pipelineId}:${status}` }, tx);
}

/** Whether the head pipeline is still running (what MergeWhenPipelineSucceedsService#available_for? asks). */
export function pipelineActive(status: string | null | undefined): boolean {
  return !!status && ACTIVE.includes(status);
}

/**
 * `PUT …/merge` with `merge_when_pipeline_succeeds` / `auto_merge`: while the head pipeline runs, the merge request is
 * set to merge when it succeeds (answered 200 with the merge request); otherwise null (the caller merges at once, or
 * refuses). A broken merge request (no commits, a branch missing, conflicts) is never set to auto-merge, as
 * AutoMerge::BaseService#available_for? asks `!broken?`.
 */
export async function setAutoMerge(service: MergeRequestsService, project: ProjectRow, mr: MergeRequestRow, headStatus: string | null, strategy: string, options: MergeOptions): Promise<MergeRequestRow | null> {
  if (!pipelineActive(headStatus) || (await service.git.broken(mr))) return null;
  return service.recordAutoMerge(project, mr, strategy, { ...options });
}

export function autoMergeJobs({ app, contextFor }: JobEnvironment): JobHandlers {
  return {
    [AUTO_MERGE_JOB]: async (payload) => {
      const { pipelineId, status } = payload as { pipelineId: number; status: string };
      const pipeline = await app.db.pipeline.findUnique({ where: { id: pipelineId }, select: { projectId: true, mergeRequestId: true, ref: true, sha: true } });
      if (!pipeline) return;
      if (status === 'failed') await buildFailed({ app, contextFor }, pipelineId, pipeline);
      // The merge requests whose head pipeline this is: its own, or those of its branch at its commit.
      const candidates = await app.db.mergeRequest.findMany({
        where: {
          state: 'opened',
          autoMergeEnabled: true,
          // A train's strategies are the merge train's (merge_trains/): only waiting to board is decided here.
          autoMergeStrategy: { in: [...AUTO_MERGE_STRATEGIES, ADD_TO_MERGE_TRAIN] },
          // A fork's merge request pipelines and branch pipelines run in the fork, its source project.
          OR: [...(pipeline.mergeRequestId ? [{ id: pipeline.mergeRequestId }] : []), { sourceProjectId: pipeline.projectId, sourceBranch: pipeline.ref }],
        },
        select: { id: true, iid: true, projectId: true, mergeUserId: true, autoMergeStrategy: true },
        take: 100,
      });
      for (const candidate of candidates) {
        const viewer = candidate.mergeUserId === null ? null : await userViewer(app.db, candidate.mergeUserId);
        const { services } = contextFor(viewer);
        const project = await services.projects.find({ id: candidate.projectId });
        const mr = project && (await services.merge_requests.find(project, candidate.iid));
        if (!project || !mr) continue;
        const head = await services.pipelines.headForMergeRequest(mr);
        if (!head || head.id !== pipelineId) continue;
        if (candidate.autoMergeStrategy === ADD_TO_MERGE_TRAIN) {
          if (viewer) await services.merge_trains.pipelineFinished(project, mr, status);
          continue;
        }
        if (status === 'success' && viewer) {
          try {
            await services.merge_requests.git.merge(project, mr.iid, { ...((mr.mergeParams ?? {}) as MergeOptions), sha: null });
          } catch {
            // GitLab's abort: a merge that cannot happen any more cancels the auto-merge.
            await services.merge_requests.cancelAutoMerge(project, mr);
          }
        } else if (status !== 'success') {
          await services.merge_requests.cancelAutoMerge(project, mr);
        }
      }
    },
  };
}

/**
 * MergeRequests::AddTodoWhenBuildFailsService: each open merge request whose head pipeline this failed one is gives
 * its author (and the user who set it to auto-merge) a `build_failed` to-do item; run as the author, whose head
 * pipeline it is when they may read it.
 */
async function buildFailed({ app, contextFor }: JobEnvironment, pipelineId: number, pipeline: { projectId: number; mergeRequestId: number | null; ref: string }): Promise<void> {
  const open = await app.db.mergeRequest.findMany({
    where: { state: 'opened', OR: [...(pipeline.mergeRequestId ? [{ id: pipeline.mergeRequestId }] : []), { sourceProjectId: pipeline.projectId, sourceBranch: pipeline.ref }] },
    select: { id: true, iid: true, projectId: true, authorId: true },
    take: 100,
  });
  for (const candidate of open) {
    const viewer = candidate.authorId === null ? null : await userViewer(app.db, candidate.authorId);
    if (!viewer) continue;
    const { services } = contextFor(viewer);
    const project = await services.projects.find({ id: candidate.projectId });
    const mr = project && (await services.merge_requests.find(project, candidate.iid));
    if (!project || !mr) continue;
    const head = await services.pipelines.headForMergeRequest(mr);
    if (head?.id === pipelineId) await services.todos.mergeRequestBuildFailed(mr);
  }
}

/** GitLab's `Can't cancel the automatic merge` (AutoMergeService#cancel without a strategy). */
export const cannotCancel = () => refused("Can't cancel the automatic merge");
