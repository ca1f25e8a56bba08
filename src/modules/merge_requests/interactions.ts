/**
 * GitLab's UserMergeRequestInteraction: what is between one user and one merge request, shown on the merge request's
 * author, assignees, reviewers and participants (MergeRequestAuthor, MergeRequestAssignee, MergeRequestReviewer,
 * MergeRequestParticipant, which are UserCore's fields with `mergeRequestInteraction`):
 * - canMerge: MergeRequest#can_be_merged_by?, UserAccess#can_update_branch? on the target branch (push or merge to it);
 * - canUpdate: `update_merge_request` asked as that user;
 * - reviewState and reviewed: the user's reviewer row (null and false for a user who is no reviewer);
 * - approved: whether the user approved it.
 * Abilities are asked as each user, with their memberships: the users of a page of merge requests are loaded together
 * (one query for the users, one for the memberships and one for the shares of those not remembered), never per user.
 */
import DataLoader from 'dataloader';
import { can, type Actor } from '../../auth/policy.js';
import { userViewers } from '../../auth/viewer.js';
import type { ServiceBase } from '../module.js';
import type { MergeRequestRow, MergeRequestsService } from './service.js';
import { mergeRequestSubject } from './service.js';

/** Which merge request a user object of one of its user types belongs to. */
export const INTERACTING_WITH = Symbol('mergeRequest');

/** A user row shown as one of a merge request's users: UserCore's parent, with the merge request beside it. */
export type MergeRequestUser<U> = U & { [INTERACTING_WITH]: MergeRequestRow };

export function asMergeRequestUser<U extends object>(user: U, mr: MergeRequestRow): MergeRequestUser<U> {
  return { ...user, [INTERACTING_WITH]: mr };
}

/** The parent of UserMergeRequestInteraction's fields. */
export interface Interaction {
  userId: number;
  mergeRequest: MergeRequestRow;
}

export class MergeRequestInteractions {
  /** Each user acting as themselves (an active user with their memberships); null for a blocked or deleted one. */
  private readonly actors = new DataLoader<number, Actor | null>(async (ids) => {
    const [viewers, memberships] = await Promise.all([userViewers(this.base.db, ids), this.base.app.memberships.ofMany(ids)]);
    return ids.map((id, i) => {
      const viewer = viewers.get(id);
      return viewer ? { viewer, memberships: memberships[i] } : null;
    });
  });

  constructor(
    private readonly base: ServiceBase,
    private readonly mergeRequests: MergeRequestsService,
  ) {}

  /** UserMergeRequestInteraction#can_merge. */
  async canMerge({ userId, mergeRequest: mr }: Interaction): Promise<boolean> {
    const actor = await this.actors.load(userId);
    if (!actor) return false;
    const project = await this.mergeRequests.projectOf(mr);
    return this.mergeRequests.repositories.canUpdateBranchAs(actor, project, mr.targetBranch);
  }

  /** UserMergeRequestInteraction#can_update: `update_merge_request` as that user. */
  async canUpdate({ userId, mergeRequest: mr }: Interaction): Promise<boolean> {
    const actor = await this.actors.load(userId);
    if (!actor) return false;
    return can(actor, 'update_merge_request', mergeRequestSubject(await this.mergeRequests.projectOf(mr), mr));
  }

  /** The user's reviewer state (`unreviewed`, `reviewed`), or null when they are no reviewer of it. */
  reviewState({ userId, mergeRequest: mr }: Interaction): string | null {
    return mr.reviewers.find((r) => r.userId === userId)?.state ?? null;
  }

  async approved({ userId, mergeRequest: mr }: Interaction): Promise<boolean> {
    return (await this.mergeRequests.approvals.approvedBy(mr)).includes(userId);
  }
}
