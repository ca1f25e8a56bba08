/** Batched reads of what a listed issue shows: its labels, milestone, user notes count, and labels' issue counts. */
import DataLoader from 'dataloader';
import { Prisma, type PrismaClient } from '../../db/database.js';
import { byKeyLoader } from '../../db/loader.js';
import type { LabelRow } from '../labels/service.js';

const ISSUE = 'Issue';

export function createIssueLoaders(db: PrismaClient) {
  return {
    /** Each issue's labels, by title. */
    labels: new DataLoader<number, LabelRow[]>(async (ids) => {
      const links = await db.labelLink.findMany({ where: { targetType: ISSUE, targetId: { in: [...ids] } }, include: { label: true } });
      const byIssue = new Map(ids.map((id) => [id, [] as LabelRow[]]));
      for (const link of links) byIssue.get(link.targetId)?.push(link.label);
      for (const labels of byIssue.values()) labels.sort((a, b) => (a.title < b.title ? -1 : a.title > b.title ? 1 : a.id - b.id));
      return ids.map((id) => byIssue.get(id) ?? []);
    }),
    /** Issues' iids by id, for the notes on them. */
    iidById: new DataLoader<number, number | undefined>(async (ids) => {
      const rows = await db.issue.findMany({ where: { id: { in: [...ids] } }, select: { id: true, iid: true } });
      const found = new Map(rows.map((r) => [r.id, r.iid]));
      return ids.map((id) => found.get(id));
    }),
    milestoneById: byKeyLoader((ids: readonly number[]) => db.milestone.findMany({ where: { id: { in: [...ids] } } }), (m) => m.id),
    /** Comments by users (not system notes) on each issue (GitLab's `user_notes_count`). */
    userNotesCount: new DataLoader<number, number>(async (ids) => {
      const rows = await db.note.groupBy({ by: ['noteableId'], where: { noteableType: ISSUE, noteableId: { in: [...ids] }, system: false }, _count: { _all: true } });
      const found = new Map(rows.map((r) => [r.noteableId, r._count._all]));
      return ids.map((id) => found.get(id) ?? 0);
    }),
  };
}

/**
 * How many open and closed issues carry each label (GitLab's `open_issues_count`, `closed_issues_count`): the labels
 * module's counts seam, answered from label links. Counted over issues of projects not being deleted; merge
 * requests do not exist yet, so theirs stays zero.
 */
export async function labelIssueCounts(db: PrismaClient, labelIds: readonly number[]) {
  const rows = await db.$queryRaw<{ labelId: number; state: string; count: bigint }[]>`
    SELECT l."labelId", i."state", COUNT(*)::bigint AS "count"
    FROM "label_links" l JOIN "issues" i ON i."id" = l."targetId" JOIN "projects" p ON p."id" = i."projectId"
    WHERE l."targetType" = ${ISSUE} AND l."labelId" IN (${Prisma.join([...labelIds])}) AND NOT p."pendingDelete"
    GROUP BY l."labelId", i."state"`;
  const counts = new Map(labelIds.map((id) => [id, { openIssuesCount: 0, closedIssuesCount: 0, openMergeRequestsCount: 0 }]));
  for (const row of rows) {
    const entry = counts.get(row.labelId);
    if (!entry) continue;
    if (row.state === 'opened') entry.openIssuesCount = Number(row.count);
    else if (row.state === 'closed') entry.closedIssuesCount = Number(row.count);
  }
  return labelIds.map((id) => counts.get(id)!);
}

export type IssueLoaders = ReturnType<typeof createIssueLoaders>;
