/** Batched reads of what a listed label shows per parent: its priority in a project, a user's subscription to it. */
import DataLoader from 'dataloader';
import type { PrismaClient } from '../../db/database.js';
import type { LabelRow } from './service.js';

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
  };
}

export type LabelLoaders = ReturnType<typeof createLabelLoaders>;

/** Which issuable a label link names: one foreign key per kind (`label_links`). */
export type LabelTarget = 'issueId' | 'mergeRequestId' | 'epicId';

/** A loader of each issuable's labels, sorted by title, for one kind of issuable: issues', merge requests' and epics' `labels`. */
export function labelsOfLoader(db: PrismaClient, target: LabelTarget) {
  return new DataLoader<number, LabelRow[]>(async (ids) => {
    const links = await db.labelLink.findMany({ where: { [target]: { in: [...ids] } }, include: { label: true } });
    const byTarget = new Map(ids.map((id) => [id, [] as LabelRow[]]));
    for (const link of links) byTarget.get(link[target]!)?.push(link.label);
    for (const labels of byTarget.values()) labels.sort((a, b) => (a.title < b.title ? -1 : a.title > b.title ? 1 : a.id - b.id));
    return ids.map((id) => byTarget.get(id) ?? []);
  });
}


/** A label as its counts see it: where it is listed (its project, or a group: the group's own projects). */
export interface LabelInParent {
  labelId: number;
  parent: { projectId: number } | { groupId: number };
}

/**
 * A loader of how many issuables of one kind carry each label, by state, within the label's parent and among those
 * `readable` lets the viewer see: GitLab's Label#open_issues_count, closed_issues_count and open_merge_requests_count,
 * which count through IssuesFinder and MergeRequestsFinder as the current user. One query per parent and state.
 */
export function labelCountLoader<State extends string>(db: PrismaClient, relation: 'issue' | 'mergeRequest', states: readonly State[], readable: () => Promise<object>) {
  const parentKey = (k: LabelInParent) => ('projectId' in k.parent ? `p${k.parent.projectId}` : `g${k.parent.groupId}`);
  return new DataLoader<LabelInParent, Record<State, number>, string>(
    async (keys) => {
      const read = await readable();
      const byParent = new Map<string, LabelInParent[]>();
      for (const k of keys) byParent.set(parentKey(k), [...(byParent.get(parentKey(k)) ?? []), k]);
      const counts = new Map<string, number>();
      await Promise.all(
        [...byParent.values()].flatMap((group) => {
          const { parent } = group[0];
          const inParent = 'projectId' in parent ? { projectId: parent.projectId } : { project: { namespaceId: parent.groupId } };
          return states.map(async (state) => {
            const rows = await db.labelLink.groupBy({
              by: ['labelId'],
              where: { labelId: { in: group.map((k) => k.labelId) }, [relation]: { is: { AND: [read, inParent, { state }, { project: { pendingDelete: false } }] } } },
              _count: { _all: true },
            });
            for (const row of rows) counts.set(`${parentKey(group[0])}:${row.labelId}:${state}`, row._count._all);
          });
        }),
      );
      return keys.map((k) => Object.fromEntries(states.map((state) => [state, counts.get(`${parentKey(k)}:${k.labelId}:${state}`) ?? 0])) as Record<State, number>);
    },
    { cacheKeyFn: (k) => `${parentKey(k)}:${k.labelId}` },
  );
}

/** The parent a listed label's counts cover. */
export function labelInParent(label: { id: number; parent: { project: { id: number } } | { group: { id: number } } }): LabelInParent {
  return { labelId: label.id, parent: 'project' in label.parent ? { projectId: label.parent.project.id } : { groupId: label.parent.group.id } };
}
