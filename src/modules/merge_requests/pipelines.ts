/**
 * A merge request's pipelines as GitLab's MergeRequests::CreatePipelineService makes them (EE's merged results
 * pipelines included), and its merge ref kept current: the first pipeline of a new merge request in the background
 * (MergeRequests::AfterCreateService's CreatePipelineWorker), a pipeline for each open merge request of a pushed
 * source branch (RefreshService's Refresh::PipelineWorker), and refs/merge-requests/<iid>/merge rewritten for the
 * open merge requests whose source or target branch a push moved (RefreshService marks them unchecked, and
 * MergeabilityCheckService's MergeToRefService writes the ref again).
 */
import { userViewer } from '../../auth/viewer.js';
import type { RawQuerier } from '../../db/database.js';
import type { JobHandlers } from '../../jobs/queue.js';
import type { JobEnvironment, ServiceBase } from '../module.js';
import type { MergedResultRef, PipelineRow, PipelinesService } from '../pipelines/service.js';
import type { ProjectRow } from '../projects/service.js';
import type { MergeRequestRow, MergeRequestsService } from './service.js';

export const AFTER_CREATE_JOB = 'merge_requests.after_create';

interface AfterCreatePayload {
  mergeRequestId: number;
  /** Who created it: the pipeline is theirs. */
  userId: number;
}

/** Open merge requests one push refreshes at most (merge refs, pipelines), oldest first, as MR pipelines on push always were. */
const PUSH_REFRESH_LIMIT = 100;

export class MergeRequestPipelines {
  constructor(
    private readonly base: ServiceBase,
    private readonly mergeRequests: MergeRequestsService,
    private readonly pipelines: PipelinesService,
  ) {}

  /**
   * CreatePipelineService#execute: a merged results pipeline when the project runs them (merge_pipelines_enabled)
   * and the merge ref can be written; otherwise, or when that makes no pipeline, a detached one.
   */
  async create(project: ProjectRow, mr: MergeRequestRow, userId: number): Promise<PipelineRow | null> {
    return this.pipelines.createForMergeRequest(project, mr, userId, false, await this.mergedResult(project, mr));
  }

  /** `POST …/merge_requests/:iid/pipelines` and `mergeRequestCreatePipeline`: the same, as the viewer, answering refusals. */
  async createByViewer(project: ProjectRow, mr: MergeRequestRow): Promise<PipelineRow | null> {
    // Nothing is written, the merge ref included, for whoever may not run the pipeline.
    await this.base.access.authorize('create_pipeline', project);
    return this.pipelines.createForMergeRequestByViewer(project, mr, await this.mergedResult(project, mr));
  }

  /** The merge ref of the merge request's current heads, rewritten when they moved (MergeabilityCheckService with recheck); null when it conflicts. */
  private async mergedResult(project: ProjectRow, mr: MergeRequestRow): Promise<MergedResultRef | null> {
    if (!project.mergePipelinesEnabled) return null;
    return this.mergeRequests.git.writeMergeRef(project, mr);
  }

  /** Queues the new merge request's first pipeline, on commit of `tx` (MergeRequests::AfterCreateService). */
  queueFirst(tx: RawQuerier, mergeRequestId: number, userId: number): Promise<bigint> {
    const payload: AfterCreatePayload = { mergeRequestId, userId };
    return this.base.app.jobs.enqueue(AFTER_CREATE_JOB, payload, { uniqueKey: `${AFTER_CREATE_JOB}:${mergeRequestId}` }, tx);
  }

  /**
   * After a push to a branch (the push job): the merge refs of open merge requests from or into it follow the new
   * head, and each open merge request from it gets a pipeline, on its merge ref with merged results. Deleting a
   * branch refreshes nothing.
   */
  async onPush(project: ProjectRow, push: { userId: number; ref: string; after: string }): Promise<void> {
    if (!push.ref.startsWith('refs/heads/') || /^0+$/.test(push.after)) return;
    const branch = push.ref.slice('refs/heads/'.length);
    const open = await this.base.db.mergeRequest.findMany({
      // From this project's branch (a fork's branch of the same name is not the push's), or into it.
      where: { projectId: project.id, state: 'opened', OR: [{ sourceProjectId: project.id, sourceBranch: branch }, { targetBranch: branch }] },
      orderBy: { id: 'asc' },
      take: PUSH_REFRESH_LIMIT,
      select: { id: true },
    });
    for (const { id } of open) {
      this.mergeRequests.git.forget(id);
      const mr = await this.mergeRequests.byId(id);
      if (!mr) continue;
      const fromBranch = mr.sourceProjectId === project.id && mr.sourceBranch === branch;
      const mergedResult = fromBranch && project.mergePipelinesEnabled;
      // A merge ref once written is kept current; one never asked for is first written by a merged results pipeline.
      const kept = mergedResult || (await this.mergeRequests.git.mergeRefHead(project, mr)) !== null;
      const mergeRef = kept ? await this.mergeRequests.git.writeMergeRef(project, mr) : null;
      if (fromBranch) await this.pipelines.createForMergeRequest(project, mr, push.userId, false, mergedResult ? mergeRef : null);
    }
  }
}

export function mergeRequestPipelineJobs({ app, contextFor }: JobEnvironment): JobHandlers {
  return {
    // As the merge request's author: CreatePipelineWorker runs as the user who created it.
    [AFTER_CREATE_JOB]: async (payload) => {
      const { mergeRequestId, userId } = payload as AfterCreatePayload;
      const viewer = await userViewer(app.db, userId);
      if (!viewer) return;
      const { services } = contextFor(viewer);
      const mr = await services.merge_requests.byId(mergeRequestId);
      // A fork's merge request has no merge request pipeline here (its branch is fetched into the target's head ref).
      if (!mr || mr.state !== 'opened' || mr.sourceProjectId !== mr.projectId) return;
      await services.merge_requests.pipelines.create(await services.merge_requests.projectOf(mr), mr, userId);
    },
  };
}
