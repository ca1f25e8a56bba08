/**
 * Merge request approvals as GitLab Free has them (Approvable, MergeRequests::ApprovalService and
 * RemoveApprovalService, lib/api/merge_request_approvals.rb): any number of users who may `approve_merge_request`
 * approve it, each once; none are required (approvals_required 0), so an approval never blocks a merge. Approving
 * leaves the system note `approved this merge request` and an `approved` event; unapproving the note
 * `unapproved this merge request`. Pushing to the source branch leaves approvals as they are: GitLab resets them on push
 * only where `reset_approvals_on_push` is a licensed feature (merge_request_approvers, Premium). Only bots (project and group access token users) may reset all approvals.
 */
import DataLoader from 'dataloader';
import { conflict, forbidden, recordNotFound, unauthenticated } from '../../errors.js';
import type { ServiceBase } from '../module.js';
import type { NotesService } from '../notes/service.js';
import type { ProjectRow } from '../projects/service.js';
import { mergeRequestSubject, MERGE_REQUEST, type MergeRequestRow, type MergeRequestsService } from './service.js';

export class MergeRequestApprovals {
  /** Approvers' user ids by merge request, in the order they approved; batched per request. */
  private approvers = new DataLoader<number, number[]>(async (ids) => {
    const rows = await this.base.db.mergeRequestApproval.findMany({
      where: { mergeRequestId: { in: [...ids] } },
      orderBy: [{ createdAt: 'asc' }, { userId: 'asc' }],
      select: { mergeRequestId: true, userId: true },
    });
    return ids.map((id) => rows.filter((r) => r.mergeRequestId === id).map((r) => r.userId));
  });

  constructor(
    private readonly base: ServiceBase,
    private readonly mergeRequests: MergeRequestsService,
    private readonly notes: NotesService,
  ) {}

  /** The users who approved it (ids), first approver first. */
  approvedBy(mr: MergeRequestRow): Promise<number[]> {
    return this.approvers.load(mr.id);
  }

  /** Approvable#approved_by? for the viewer. */
  async viewerHasApproved(mr: MergeRequestRow): Promise<boolean> {
    const viewer = this.base.access.viewer;
    return !!viewer && (await this.approvedBy(mr)).includes(viewer.id);
  }

  /** Whether the viewer holds `approve_merge_request` on it. */
  private async mayApprove(project: ProjectRow, mr: MergeRequestRow): Promise<boolean> {
    return !!this.base.access.viewer && (await this.base.access.can('approve_merge_request', mergeRequestSubject(project, mr)));
  }

  /** Approvable#eligible_for_approval_by? for the viewer: signed in, not yet approved, and allowed to approve. */
  async viewerCanApprove(mr: MergeRequestRow): Promise<boolean> {
    if (!this.base.access.viewer || (await this.viewerHasApproved(mr))) return false;
    return this.mayApprove(await this.mergeRequests.projectOf(mr), mr);
  }

  /**
   * `POST …/approve`: 403 without `approve_merge_request`, 409 when `sha` is not the source head (GitLab's
   * check_sha_param!, naming the head), 401 when the viewer already approved it (ApprovalService answers nothing).
   */
  async approve(project: ProjectRow, iid: number, sha?: string | null): Promise<MergeRequestRow> {
    const viewer = this.base.access.requireViewer();
    const mr = await this.mergeRequests.get(project, iid);
    if (!(await this.mayApprove(project, mr))) throw forbidden();
    if (sha) {
      // check_sha_param!: the merge request's diff_head_sha, its newest version's head.
      const head = (await this.mergeRequests.git.diffRefs(mr)).headSha;
      if (sha !== head) throw conflict(`SHA does not match HEAD of source branch: ${head}`);
    }
    if (await this.viewerHasApproved(mr)) throw unauthenticated();
    const created = await this.base.db.$transaction(async (tx) => {
      const at = new Date();
      const inserted = await tx.mergeRequestApproval.createMany({ data: [{ mergeRequestId: mr.id, userId: viewer.id, createdAt: at }], skipDuplicates: true });
      if (inserted.count === 0) return false;
      await this.notes.createSystemNote(tx, { type: MERGE_REQUEST, id: mr.id, projectId: mr.projectId, groupId: null }, viewer.id, 'approved this merge request', at);
      // MergeRequests::ApprovedEvent marks an approving reviewer as having reviewed it (SetReviewerReviewedWorker).
      await this.mergeRequests.markReviewed(tx, mr);
      await this.mergeRequests.event(project, mr, 'approved', tx);
      // MergeRequests::ApprovalService#execute_approval_hooks: `approved` once no approval is left to give (always, in Free).
      await this.mergeRequests.executeHooks(tx, project, mr.id, 'approved');
      await this.mergeRequests.announce(tx, mr, ['approvalState']);
      return true;
    });
    if (!created) throw unauthenticated();
    this.approvers.clear(mr.id);
    return mr;
  }

  /** `POST …/unapprove`: 403 without `approve_merge_request`, `404 Not found` when the viewer had not approved it. */
  async unapprove(project: ProjectRow, iid: number): Promise<MergeRequestRow> {
    const viewer = this.base.access.requireViewer();
    const mr = await this.mergeRequests.get(project, iid);
    if (!(await this.mayApprove(project, mr))) throw forbidden();
    const removed = await this.base.db.$transaction(async (tx) => {
      const deleted = await tx.mergeRequestApproval.deleteMany({ where: { mergeRequestId: mr.id, userId: viewer.id } });
      if (deleted.count === 0) return false;
      await this.notes.createSystemNote(tx, { type: MERGE_REQUEST, id: mr.id, projectId: mr.projectId, groupId: null }, viewer.id, 'unapproved this merge request', new Date());
      await this.mergeRequests.executeHooks(tx, project, mr.id, 'unapproved');
      await this.mergeRequests.announce(tx, mr, ['approvalState']);
      return true;
    });
    if (!removed) throw recordNotFound();
    this.approvers.clear(mr.id);
    return mr;
  }

  /**
   * `PUT …/reset_approvals`: every approval removed, by a bot (project or group access token user) that may approve
   * it (`reset_merge_request_approvals`) and only while it is not merged; 401 otherwise.
   */
  async reset(project: ProjectRow, iid: number): Promise<MergeRequestRow> {
    const viewer = this.base.access.requireViewer();
    const mr = await this.mergeRequests.get(project, iid);
    const user = await this.base.loaders.users.byId.load(viewer.id);
    if (!user?.bot || mr.state === 'merged' || !(await this.mayApprove(project, mr))) throw unauthenticated();
    await this.base.db.$transaction(async (tx) => {
      await tx.mergeRequestApproval.deleteMany({ where: { mergeRequestId: mr.id } });
      await this.mergeRequests.announce(tx, mr, ['approvalState']);
    });
    this.approvers.clear(mr.id);
    return mr;
  }
}
