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
import { invalid } from '../../errors.js';
import { CREATE_ERRORS } from '../pipelines/create.js';
import { mergeRequestRef } from '../pipelines/predefined.js';
import type { PipelineRow, PipelinesService } from '../pipelines/service.js';
import type { ProjectRow } from '../projects/service.js';
import type { MergeRequestRow, MergeRequestsService } from './service.js';
import { MergeRequestGit } from './git.js';

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
   * MergeRequests::CreatePipelineService#execute as `userId` (the viewer): in the target project, on
   * refs/merge-requests/<iid>/head as fetch_ref! leaves it, when they may create pipelines there and update a branch
   * of the source branch's name there (can_create_pipeline_in_target_project?: a fork's pipeline run in the parent,
   * where the parent allows it);
   * otherwise in the source project on the source branch (a fork's pipeline runs in the fork), when they may create
   * pipelines there. In the target, a merged results pipeline when the project runs them (merge_pipelines_enabled) and
   * the merge ref can be written; otherwise, or when that makes no pipeline, a detached one.
   */
  async create(project: ProjectRow, mr: MergeRequestRow, userId: number, explicit = false): Promise<PipelineRow | null> {
    const { git } = this.mergeRequests;
    if (await this.runsInTarget(project, mr)) {
      const head = await git.fetchRef(project, mr);
      if (!explicit && (await this.hasPipelineAt(mr, head))) return null;
      const mergedResult = head && project.mergePipelinesEnabled ? await git.writeMergeRef(project, mr) : null;
      return this.pipelines.createForMergeRequest(project, mr, userId, explicit, { ref: mergeRequestRef(mr.iid), sha: head, branch: false }, mergedResult);
    }
    const source = await git.sourceProjectOf(mr);
    // Chain::Validate::Abilities: who may not create pipelines in the source project gets none there.
    if (source && !(await this.base.access.can('create_pipeline', source))) {
      if (explicit) throw invalid({ base: [CREATE_ERRORS.insufficientPermissions] });
      return null;
    }
    const head = source ? await git.sourceHead(mr) : null;
    if (!explicit && (await this.hasPipelineAt(mr, head))) return null;
    return this.pipelines.createForMergeRequest(source ?? project, mr, userId, explicit, { ref: mr.sourceBranch, sha: head, branch: true }, null);
  }

  /**
   * Whether the merge request already has a pipeline of this head (its own, or a merged result of it): the first
   * pipeline's job and a push's refresh may both come for one head when the push is handled after the merge request
   * was opened, and the head gets one pipeline. `POST …/pipelines` always makes another.
   */
  private async hasPipelineAt(mr: MergeRequestRow, head: string | null): Promise<boolean> {
    if (head === null) return false;
    const found = await this.base.db.pipeline.findFirst({ where: { mergeRequestId: mr.id, OR: [{ sha: head }, { sourceSha: head }] }, select: { id: true } });
    return found !== null;
  }

  /** `POST …/merge_requests/:iid/pipelines` and `mergeRequestCreatePipeline`: the same, as the viewer, answering refusals. */
  async createByViewer(project: ProjectRow, mr: MergeRequestRow): Promise<PipelineRow | null> {
    // Nothing is written, the merge request's refs included, for whoever may not run pipelines in the target.
    await this.base.access.authorize('create_pipeline', project);
    return this.create(project, mr, this.base.access.requireViewer().id, true);
  }

  /**
   * GitLab's can_create_pipeline_in_target_project?: a fork's only where the target allows fork pipelines to run in it
   * (ci_allow_fork_pipelines_to_run_in_parent_project, on by default); create_pipeline there, and may update the
   * source branch's name there.
   */
  private async runsInTarget(project: ProjectRow, mr: MergeRequestRow): Promise<boolean> {
    if (MergeRequestGit.forFork(mr) && !project.ciAllowForkPipelinesToRunInParentProject) return false;
    if (!(await this.base.access.can('create_pipeline', project))) return false;
    return this.mergeRequests.repositories.canPushToBranch(project, mr.sourceBranch);
  }

  /** Queues the new merge request's first pipeline, on commit of `tx` (MergeRequests::AfterCreateService). */
  queueFirst(tx: RawQuerier, mergeRequestId: number, userId: number): Promise<bigint> {
    const payload: AfterCreatePayload = { mergeRequestId, userId };
    return this.base.app.jobs.enqueue(AFTER_CREATE_JOB, payload, { uniqueKey: `${AFTER_CREATE_JOB}:${mergeRequestId}` }, tx);
  }

  /**
   * After a push to a branch (the push job, as the pusher): the merge refs of open merge requests from or into it
   * follow the new head, and each open merge request from it (a fork's too, the push being to the fork) gets a
   * pipeline (create: in the target when the pusher may run it there, else in the source project). Deleting a branch
   * refreshes nothing.
   */
  async onPush(project: ProjectRow, push: { userId: number; ref: string; after: string }): Promise<void> {
    if (!push.ref.startsWith('refs/heads/') || /^0+$/.test(push.after)) return;
    const branch = push.ref.slice('refs/heads/'.length);
    const open = await this.base.db.mergeRequest.findMany({
      // From this project's branch (into this project or its fork network's), or into this project's branch.
      where: { state: 'opened', OR: [{ sourceProjectId: project.id, sourceBranch: branch }, { projectId: project.id, targetBranch: branch }] },
      orderBy: { id: 'asc' },
      take: PUSH_REFRESH_LIMIT,
      select: { id: true, projectId: true },
    });
    for (const { id, projectId } of open) {
      const target = projectId === project.id ? project : await this.base.loaders.projects.byId.load(projectId);
      if (!target || target.pendingDelete) continue;
      this.mergeRequests.git.forget(id);
      const mr = await this.mergeRequests.byId(id);
      if (!mr) continue;
      // A merge ref once written is kept current; one never asked for is first written by a merged results pipeline.
      if ((await this.mergeRequests.git.mergeRefHead(target, mr)) !== null) await this.mergeRequests.git.writeMergeRef(target, mr);
      if (mr.sourceProjectId === project.id && mr.sourceBranch === branch) await this.create(target, mr, push.userId);
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
      if (!mr || mr.state !== 'opened') return;
      await services.merge_requests.pipelines.create(await services.merge_requests.projectOf(mr), mr, userId);
    },
  };
}
