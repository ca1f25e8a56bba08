/**
 * Subscriptions to issues, merge requests and epics (GitLab's Subscribable): a user's own choice, kept in
 * `subscriptions`, wins; without one, a participant of the issuable is subscribed. The issuable modules find and
 * read-check their subject, then ask here; REST's subscribe and unsubscribe answer 304 when nothing would change.
 */
import type { Prisma } from '../../db/database.js';
import { notModified } from '../../errors.js';
import type { ServiceBase } from '../module.js';

/** GitLab's subscribable classes this server has (labels keep their own table: labels/service.ts). */
export type SubscribableType = 'Issue' | 'MergeRequest' | 'Epic';

/** What a subscription is about, and the project (or an epic's group) it goes with. */
export interface Subscribable {
  type: SubscribableType;
  id: number;
  projectId: number | null;
  groupId: number | null;
}

/**
 * Issuable#participant? as far as this server keeps it, for those who made no choice: the author, an assignee and,
 * on merge requests, a reviewer.
 */
export const participant =
  (row: { authorId: number | null; assignees?: readonly { userId: number }[]; reviewers?: readonly { userId: number }[] }) =>
  (userId: number): boolean =>
    row.authorId === userId || !!row.assignees?.some((a) => a.userId === userId) || !!row.reviewers?.some((r) => r.userId === userId);

/** The loader's key: one user's choice about one subscribable. */
export const subscriptionKey = (type: SubscribableType, id: number, userId: number) => `${type}:${id}:${userId}`;

export class SubscriptionsService {
  constructor(private readonly base: ServiceBase) {}

  /**
   * Subscribable#subscribed? for the viewer: their own choice, else `participant`; false for anonymous callers.
   */
  async subscribed(type: SubscribableType, id: number, participant: (userId: number) => boolean): Promise<boolean> {
    const viewer = this.base.viewer;
    if (!viewer) return false;
    const chosen = await this.base.loaders.subscriptions.choice.load(subscriptionKey(type, id, viewer.id));
    return chosen ?? participant(viewer.id);
  }

  /**
   * Subscribable#set_subscription for the viewer, who must be signed in (GitLab's `update_subscription`: signed in
   * and able to read it, which the caller has checked in finding it). Over REST, 304 when they already are (or are
   * not) subscribed, as GitLab's subscriptions API answers.
   */
  async set(subject: Subscribable, subscribed: boolean, participant: (userId: number) => boolean): Promise<void> {
    const viewer = this.base.access.requireViewer();
    if (this.base.rest && (await this.subscribed(subject.type, subject.id, participant)) === subscribed) throw notModified();
    const key = { subscribableType: subject.type, subscribableId: subject.id, userId: viewer.id };
    await this.base.db.subscription.upsert({
      where: { subscribableType_subscribableId_userId: key },
      create: { ...key, projectId: subject.projectId, groupId: subject.groupId, subscribed },
      update: { subscribed },
    });
    this.base.loaders.subscriptions.choice.clear(subscriptionKey(subject.type, subject.id, viewer.id));
  }

  /** Forgets every choice about a subscribable that is being deleted: a statement for its deletion's transaction. */
  static forget(db: Prisma.TransactionClient, type: SubscribableType, id: number) {
    return db.subscription.deleteMany({ where: { subscribableType: type, subscribableId: id } });
  }
}
