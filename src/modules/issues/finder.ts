/**
 * GitLab's IssuableFinder: the list filters issues, merge requests and epics share (IssuesFinder, MergeRequestsFinder
 * and EpicsFinder build on it), as conditions on the issuable's own columns and relations, filtered in SQL. Each
 * finder adds what only it has (states, scopes, branches, parents) and its order.
 */
import type { Prisma, PrismaClient } from '../../db/database.js';
import { containsIgnoringCase, equalsIgnoringCase } from '../../db/text.js';
import { invalidArgument } from '../../errors.js';
import { labelConditions } from '../labels/service.js';

/**
 * A condition each issuable kind's where-input takes. Epics take none on assignees, reviewers or milestones, which
 * they lack; issues none on reviewers: EpicFilters and IssueFilters have no such filter.
 */
type IssuableWhere = Prisma.IssueWhereInput & Prisma.MergeRequestWhereInput & Prisma.EpicWhereInput;

/** The filters of every issuable list (IssuableFinder's params); epics have no assignees, reviewers or milestones. */
export interface IssuableFilters {
  iids?: readonly number[] | null;
  authorId?: number | null;
  authorUsername?: string | null;
  /** In the title or the description, ignoring case. */
  search?: string | null;
  createdAfter?: Date | null;
  createdBefore?: Date | null;
  updatedAfter?: Date | null;
  updatedBefore?: Date | null;
  /** Label titles each must carry; `None` for none, `Any` for at least one. */
  labels?: readonly string[] | null;
  /** A milestone title; `None`, `Any`, `Upcoming` (due after today) or `Started` (started by today). */
  milestone?: string | null;
  /** A user id, `None` (nobody) or `Any` (somebody). */
  assigneeId?: string | null;
  /** Users each of whom must be an assignee. */
  assigneeUsernames?: readonly string[] | null;
  /** A user id, `None` or `Any`. */
  reviewerId?: string | null;
  reviewerUsernames?: readonly string[] | null;
}

/**
 * IssuableFinder's shared filters as conditions. Usernames are found first, in one query, ignoring case as GitLab's
 * User.find_by_username does; an unknown one matches nothing. A malformed `assignee_id`/`reviewer_id` is a 400.
 */
export async function issuableConditions(db: PrismaClient, filters: IssuableFilters): Promise<IssuableWhere[]> {
  const usernames = [filters.authorUsername, ...(filters.assigneeUsernames ?? []), ...(filters.reviewerUsernames ?? [])].filter((u): u is string => !!u);
  const found = usernames.length
    ? await db.user.findMany({ where: { OR: usernames.map((u) => ({ username: equalsIgnoringCase(u) })) }, select: { id: true, username: true } })
    : [];
  const ids = new Map(found.map((u) => [u.username.toLowerCase(), u.id]));
  const idOf = (username: string) => ids.get(username.toLowerCase()) ?? -1;

  const and: IssuableWhere[] = [];
  if (filters.iids?.length) and.push({ iid: { in: [...filters.iids] } });
  if (filters.authorId != null) and.push({ authorId: filters.authorId });
  if (filters.authorUsername) and.push({ authorId: idOf(filters.authorUsername) });
  if (filters.search) and.push({ OR: [{ title: containsIgnoringCase(filters.search) }, { description: containsIgnoringCase(filters.search) }] });
  if (filters.createdAfter) and.push({ createdAt: { gte: filters.createdAfter } });
  if (filters.createdBefore) and.push({ createdAt: { lte: filters.createdBefore } });
  if (filters.updatedAfter) and.push({ updatedAt: { gte: filters.updatedAfter } });
  if (filters.updatedBefore) and.push({ updatedAt: { lte: filters.updatedBefore } });
  and.push(...labelConditions(filters.labels));
  and.push(...milestoneConditions(filters.milestone));
  for (const [relation, id, names, argument] of [
    ['assignees', filters.assigneeId, filters.assigneeUsernames, 'assigneeId'],
    ['reviewers', filters.reviewerId, filters.reviewerUsernames, 'reviewerId'],
  ] as const) {
    const value = id?.trim();
    if (value) {
      if (/^none$/i.test(value)) and.push({ [relation]: { none: {} } });
      else if (/^any$/i.test(value)) and.push({ [relation]: { some: {} } });
      else if (/^\d{1,9}$/.test(value)) and.push({ [relation]: { some: { userId: Number(value) } } });
      else throw invalidArgument(argument);
    }
    for (const username of names ?? []) and.push({ [relation]: { some: { userId: idOf(username) } } });
  }
  return and;
}

function milestoneConditions(milestone: string | null | undefined): IssuableWhere[] {
  const value = milestone?.trim();
  if (!value) return [];
  const today = new Date(new Date().toISOString().slice(0, 10));
  if (/^none$/i.test(value)) return [{ milestoneId: null }];
  if (/^any$/i.test(value)) return [{ milestoneId: { not: null } }];
  if (/^upcoming$/i.test(value)) return [{ milestone: { is: { state: 'active', dueDate: { gt: today } } } }];
  if (/^started$/i.test(value)) return [{ milestone: { is: { state: 'active', startDate: { lte: today } } } }];
  return [{ milestone: { is: { title: value } } }];
}
