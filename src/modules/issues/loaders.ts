/** Batched reads of what a listed issue shows: its labels, milestone and user notes count. */
import { NOT_HIDDEN_WHERE, issueRowInclude } from './policy.js';
import DataLoader from 'dataloader';
import { Prisma, type PrismaClient } from '../../db/database.js';
import { byKeyLoader } from '../../db/loader.js';
import { labelsOfLoader } from '../labels/loaders.js';

const ISSUE = 'Issue';

export function createIssueLoaders(db: PrismaClient) {
  return {
    /** Timelogs of the issues and merge requests a list shows. */
    timelogs: createTimelogLoaders(db),
    /** Each issue's labels, by title. */
    labels: labelsOfLoader(db, 'issueId'),
    /** Issues' iids by id, for the notes on them. */
    iidById: new DataLoader<number, number | undefined>(async (ids) => {
      const rows = await db.issue.findMany({ where: { id: { in: [...ids] } }, select: { id: true, iid: true } });
      const found = new Map(rows.map((r) => [r.id, r.iid]));
      return ids.map((id) => found.get(id));
    }),
    /** Issues by id, with their assignees, unchecked: an issue another one was moved to, checked by its reader. */
    byId: byKeyLoader(
      (ids: readonly number[]) => db.issue.findMany({ where: { id: { in: [...ids] } }, include: issueRowInclude }),
      (i) => i.id,
    ),
    milestoneById: byKeyLoader((ids: readonly number[]) => db.milestone.findMany({ where: { id: { in: [...ids] } } }), (m) => m.id),
    /** Each milestone's issues, all and closed (GitLab's MilestoneWithStats `issue_stats`). */
    statsByMilestone: new DataLoader<number, { total: number; closed: number }>(async (ids) => {
      const rows = await db.issue.groupBy({ by: ['milestoneId', 'state'], where: { milestoneId: { in: [...ids] } }, _count: { _all: true } });
      const stats = new Map(ids.map((id) => [id, { total: 0, closed: 0 }]));
      for (const r of rows) {
        const entry = stats.get(r.milestoneId ?? -1);
        if (!entry) continue;
        entry.total += r._count._all;
        if (r.state === 'closed') entry.closed += r._count._all;
      }
      return ids.map((id) => stats.get(id) ?? { total: 0, closed: 0 });
    }),
    /**
     * Each project's open issues as everyone may see them: not confidential, not hidden (their author is not banned),
     * as Projects::BatchOpenIssuesCountService counts them for the API's `open_issues_count`.
     */
    openCountByProject: new DataLoader<number, number>(async (ids) => {
      const rows = await db.issue.groupBy({
        by: ['projectId'],
        where: { projectId: { in: [...ids] }, state: 'opened', confidential: false, ...NOT_HIDDEN_WHERE },
        _count: { _all: true },
      });
      const found = new Map(rows.map((r) => [r.projectId, r._count._all]));
      return ids.map((id) => found.get(id) ?? 0);
    }),
    /** Comments by users (not system notes) on each issue (GitLab's `user_notes_count`). */
    userNotesCount: new DataLoader<number, number>(async (ids) => {
      const rows = await db.note.groupBy({ by: ['noteableId'], where: { noteableType: ISSUE, noteableId: { in: [...ids] }, system: false }, _count: { _all: true } });
      const found = new Map(rows.map((r) => [r.noteableId, r._count._all]));
      return ids.map((id) => found.get(id) ?? 0);
    }),
  };
}


export type IssueLoaders = ReturnType<typeof createIssueLoaders>;

/** An issuable's timelogs: the issue's or the merge request's, and how many of the first of them a page wants. */
export interface TimelogsOf {
  column: 'issueId' | 'mergeRequestId';
  id: number;
  take: number;
}

/**
 * The first page of each issuable's timelogs (oldest first), and each one's count and sum, in one query per kind for
 * every issuable a list shows (Issue.timelogs, MergeRequest.timelogs).
 */
export function createTimelogLoaders(db: PrismaClient) {
  return {
    firstPage: new DataLoader<TimelogsOf, Prisma.TimelogGetPayload<object>[], string>(
      async (keys) => {
        const rows: Prisma.TimelogGetPayload<object>[] = [];
        for (const column of ['issueId', 'mergeRequestId'] as const) {
          const of = keys.filter((k) => k.column === column);
          if (!of.length) continue;
          const take = Math.max(...of.map((k) => k.take));
          const ids = await db.$queryRaw<{ id: number }[]>`
            SELECT "id" FROM (
              SELECT "id", row_number() OVER (PARTITION BY ${Prisma.raw(`"${column}"`)} ORDER BY "id") AS n FROM "timelogs"
              WHERE ${Prisma.raw(`"${column}"`)} = ANY(${of.map((k) => k.id)}::int[])
            ) AS t WHERE n <= ${take}`;
          if (ids.length) rows.push(...(await db.timelog.findMany({ where: { id: { in: ids.map((r) => r.id) } }, orderBy: { id: 'asc' } })));
        }
        return keys.map((k) => rows.filter((r) => r[k.column] === k.id).slice(0, k.take));
      },
      { cacheKeyFn: (k) => `${k.column}:${k.id}:${k.take}` },
    ),
    totals: new DataLoader<Omit<TimelogsOf, 'take'>, { count: number; sum: number }, string>(
      async (keys) => {
        const found = new Map<string, { count: number; sum: number }>();
        for (const column of ['issueId', 'mergeRequestId'] as const) {
          const ids = keys.filter((k) => k.column === column).map((k) => k.id);
          if (!ids.length) continue;
          const rows = await db.timelog.groupBy({ by: [column], where: { [column]: { in: ids } }, _count: { _all: true }, _sum: { timeSpent: true } });
          for (const r of rows) found.set(`${column}:${r[column]}`, { count: r._count._all, sum: r._sum.timeSpent ?? 0 });
        }
        return keys.map((k) => found.get(`${k.column}:${k.id}`) ?? { count: 0, sum: 0 });
      },
      { cacheKeyFn: (k) => `${k.column}:${k.id}` },
    ),
  };
}

/**
 * The issues of each milestone as a release's evidence summarizes them (Evidences::IssueEntity): the issues module's
 * seam for the releases module, read in the caller's transaction.
 */
export async function evidenceIssues(db: Pick<PrismaClient, 'issue'>, milestoneIds: readonly number[]) {
  const byMilestone = new Map<number, object[]>();
  if (milestoneIds.length === 0) return byMilestone;
  const rows = await db.issue.findMany({ where: { milestoneId: { in: [...milestoneIds] } }, include: { author: { select: { id: true, name: true, email: true } } }, orderBy: { id: 'asc' } });
  for (const i of rows) {
    const list = byMilestone.get(i.milestoneId ?? -1) ?? [];
    list.push({
      id: i.id,
      title: i.title,
      description: i.description,
      author: i.author && { id: i.author.id, name: i.author.name, email: i.author.email },
      state: i.state,
      iid: i.iid,
      confidential: i.confidential,
      created_at: i.createdAt.toISOString(),
      due_date: i.dueDate ? i.dueDate.toISOString().slice(0, 10) : null,
    });
    byMilestone.set(i.milestoneId ?? -1, list);
  }
  return byMilestone;
}
