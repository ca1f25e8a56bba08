/** Batched reads of what a listed label shows per parent: its priority in a project, a user's subscription to it. */
import DataLoader from 'dataloader';
import type { PrismaClient } from '../../db/database.js';
import { labelIssueCounts } from '../issues/loaders.js';

export interface LabelInProject {
  labelId: number;
  projectId: number;
}

export interface LabelSubscriber {
  labelId: number;
  userId: number;
  /** The project the subscription is in; null for a group label subscribed to in its group. */
  projectId: number | null;
}

/** How many issues and merge requests carry a label (GitLab's `open_issues_count` and the others). */
export interface LabelCounts {
  openIssuesCount: number;
  closedIssuesCount: number;
  openMergeRequestsCount: number;
}

const key = (...parts: (number | null)[]) => parts.join(':');

export function createLabelLoaders(db: PrismaClient) {
  return {
    /** A label's priority in a project; null when it has none there. */
    priority: new DataLoader<LabelInProject, number | null, string>(
      async (keys) => {
        const rows = await db.labelPriority.findMany({ where: { OR: keys.map((k) => ({ labelId: k.labelId, projectId: k.projectId })) } });
        const found = new Map(rows.map((r) => [key(r.labelId, r.projectId), r.priority]));
        return keys.map((k) => found.get(key(k.labelId, k.projectId)) ?? null);
      },
      { cacheKeyFn: (k) => key(k.labelId, k.projectId) },
    ),
    /** Whether the user is subscribed to the label in that project (or group). */
    subscribed: new DataLoader<LabelSubscriber, boolean, string>(
      async (keys) => {
        const rows = await db.labelSubscription.findMany({ where: { OR: keys.map((k) => ({ labelId: k.labelId, userId: k.userId, projectId: k.projectId })) } });
        const found = new Set(rows.map((r) => key(r.labelId, r.userId, r.projectId)));
        return keys.map((k) => found.has(key(k.labelId, k.userId, k.projectId)));
      },
      { cacheKeyFn: (k) => key(k.labelId, k.userId, k.projectId) },
    ),
    /** How many open and closed issues carry each label, from the issues module's label links. */
    counts: new DataLoader<number, LabelCounts>((labelIds) => labelIssueCounts(db, labelIds)),
  };
}

export type LabelLoaders = ReturnType<typeof createLabelLoaders>;
