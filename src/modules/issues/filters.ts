/**
 * IssuesFinder's issue-only filters (EE's too), as Prisma conditions, for every issue list and count: weight, epic,
 * the viewer's reactions, due dates, the fields a search looks in, and IssuableFinder's negated (`not`) and unioned
 * (`or`) filters. One builder for REST and GraphQL, lists and issues statistics alike.
 */
import type { Prisma, PrismaClient } from '../../db/database.js';
import { addDays, today } from '../../days.js';
import { containsIgnoringCase, equalsIgnoringCase } from '../../db/text.js';
import { argumentError, invalidArgument, mutuallyExclusive } from '../../errors.js';
import { issuableConditions } from './finder.js';
import type { IssueType } from './incidents.js';

/** IssuableFinder's `not` params of issues (NegatedIssueFilterInput, and the Issues API's `not[…]`). */
export interface NegatedIssueFilters {
  labels?: readonly string[] | null;
  milestones?: readonly string[] | null;
  iids?: readonly number[] | null;
  authorId?: number | null;
  authorUsername?: string | null;
  /** A user id (`None` and `Any` negate the wildcard). */
  assigneeId?: string | null;
  assigneeUsernames?: readonly string[] | null;
  myReactionEmoji?: string | null;
  weight?: string | null;
  epicId?: string | null;
  types?: readonly IssueType[] | null;
}

/** IssuableFinder's `or` params (UnionedIssueFilterInput): an issue matches any one of each list. */
export interface UnionedIssueFilters {
  assigneeUsernames?: readonly string[] | null;
  authorUsernames?: readonly string[] | null;
  labelNames?: readonly string[] | null;
}

/** The filters this file adds to IssuesFinder's (service.ts IssueFilters extends them). */
export interface IssueOnlyFilters {
  /** The fields `search` looks in (REST's `in`, GraphQL's `in`); both when none is given. */
  searchIn?: readonly ('title' | 'description')[] | null;
  /** A weight, `None` or `Any`. */
  weight?: string | null;
  /** An epic's id, `None` or `Any`. */
  epicId?: string | null;
  /** An emoji name the viewer reacted with, `None` or `Any`: ignored for anonymous viewers. */
  myReactionEmoji?: string | null;
  /** IssuesFinder's `due_date`: `0`/`none`, `any`, `today`, `tomorrow`, `overdue`, `week`, `month`, `next_month_and_previous_two_weeks`. */
  dueDate?: string | null;
  not?: NegatedIssueFilters | null;
  or?: UnionedIssueFilters | null;
}

const WILDCARD_NONE = /^none$/i;
const WILDCARD_ANY = /^any$/i;

/** A number, `None` or `Any` (Grape's integer_none_any), else a 400 naming the argument. */
function numberOrWildcard(value: string, argument: string): number | 'none' | 'any' {
  const text = value.trim();
  if (WILDCARD_NONE.test(text)) return 'none';
  if (WILDCARD_ANY.test(text)) return 'any';
  if (!/^\d{1,9}$/.test(text)) throw invalidArgument(argument);
  return Number(text);
}

/** The last day of the month `months` after `from`'s. */
function endOfMonth(from: Date, months = 0): Date {
  return new Date(Date.UTC(from.getUTCFullYear(), from.getUTCMonth() + months + 1, 0));
}

/** IssuesFinder#by_due_date: weeks start on Monday, as Rails' beginning_of_week. */
function dueDateConditions(value: string): Prisma.IssueWhereInput[] {
  const on = today();
  const between = (from: Date, to: Date): Prisma.IssueWhereInput[] => [{ dueDate: { gte: from, lte: to } }];
  switch (value.trim().toLowerCase()) {
    case '':
      return [];
    case '0':
    case 'none':
      return [{ dueDate: null }];
    case 'any':
      return [{ dueDate: { not: null } }];
    case 'today':
      return [{ dueDate: on }];
    case 'tomorrow':
      return [{ dueDate: addDays(on, 1) }];
    case 'overdue':
      return [{ dueDate: { lt: on } }];
    case 'week': {
      const monday = addDays(on, -((on.getUTCDay() + 6) % 7));
      return between(monday, addDays(monday, 6));
    }
    case 'month':
      return between(new Date(Date.UTC(on.getUTCFullYear(), on.getUTCMonth(), 1)), endOfMonth(on));
    case 'next_month_and_previous_two_weeks':
      return between(addDays(on, -14), endOfMonth(on, 1));
    default:
      throw invalidArgument('dueDate');
  }
}

/** The user ids of these usernames (ignoring case, as User.find_by_username); an unknown one is -1, matching nobody. */
async function userIds(db: PrismaClient, usernames: readonly string[]): Promise<(name: string) => number> {
  const found = usernames.length ? await db.user.findMany({ where: { OR: usernames.map((u) => ({ username: equalsIgnoringCase(u) })) }, select: { id: true, username: true } }) : [];
  const ids = new Map(found.map((u) => [u.username.toLowerCase(), u.id]));
  return (name) => ids.get(name.toLowerCase()) ?? -1;
}

/** Grape's mutually_exclusive of the Issues API (`author_id`/`author_username`, `assignee_id`/`assignee_username`), under `not[…]` too. */
function exclusive(filters: { authorId?: unknown; authorUsername?: unknown; assigneeId?: unknown; assigneeUsernames?: readonly unknown[] | null }, prefix: string | null): void {
  const given = (v: unknown) => v !== null && v !== undefined && v !== '';
  const pairs: [boolean, string, string][] = [
    [given(filters.authorId) && given(filters.authorUsername), 'author_id', 'author_username'],
    [given(filters.assigneeId) && !!filters.assigneeUsernames?.length, 'assignee_id', 'assignee_username'],
  ];
  for (const [both, a, b] of pairs) {
    if (!both) continue;
    if (prefix === null) throw mutuallyExclusive(a === 'author_id' ? 'authorId' : 'assigneeId', a === 'author_id' ? 'authorUsername' : 'assigneeUsernames');
    throw argumentError(`${prefix}[${a}], ${prefix}[${b}] are mutually exclusive`);
  }
}

/** The epic conditions: `none` (in no epic), `any`, or one epic's id. */
function epicCondition(value: number | 'none' | 'any'): Prisma.IssueWhereInput {
  if (value === 'none') return { epicIssue: { is: null } };
  if (value === 'any') return { epicIssue: { isNot: null } };
  return { epicIssue: { is: { epicId: value } } };
}

function weightCondition(value: number | 'none' | 'any'): Prisma.IssueWhereInput {
  if (value === 'none') return { weight: null };
  if (value === 'any') return { weight: { not: null } };
  return { weight: value };
}

function reactionCondition(value: string, viewerId: number): Prisma.IssueWhereInput {
  const text = value.trim();
  if (WILDCARD_NONE.test(text)) return { awardEmoji: { none: { userId: viewerId } } };
  if (WILDCARD_ANY.test(text)) return { awardEmoji: { some: { userId: viewerId } } };
  return { awardEmoji: { some: { userId: viewerId, name: text } } };
}

/**
 * The conditions of IssuableFinder's shared filters and of the issue-only ones above, for `viewerId` (null when
 * anonymous). `search` looks in `searchIn` when given (GitLab's `in`).
 */
export async function issueFilterConditions(
  db: PrismaClient,
  viewerId: number | null,
  filters: Parameters<typeof issuableConditions>[1] & IssueOnlyFilters,
): Promise<Prisma.IssueWhereInput[]> {
  exclusive(filters, null);
  const fields = filters.searchIn?.length ? [...new Set(filters.searchIn)] : null;
  const and: Prisma.IssueWhereInput[] = await issuableConditions(db, fields && filters.search ? { ...filters, search: null } : filters);
  if (fields && filters.search) and.push({ OR: fields.map((field) => ({ [field]: containsIgnoringCase(filters.search!) })) });
  if (filters.weight?.trim()) and.push(weightCondition(numberOrWildcard(filters.weight, 'weight')));
  if (filters.epicId?.trim()) and.push(epicCondition(numberOrWildcard(filters.epicId, 'epicId')));
  if (filters.myReactionEmoji?.trim() && viewerId !== null) and.push(reactionCondition(filters.myReactionEmoji, viewerId));
  if (filters.dueDate != null) and.push(...dueDateConditions(filters.dueDate));
  if (filters.not) and.push(...(await negatedConditions(db, viewerId, filters.not)));
  if (filters.or) and.push(...(await unionedConditions(db, filters.or)));
  return and;
}

/**
 * IssuableFinder#filter_negated_items and EE's: each negated filter excludes the issues its positive one would find
 * (every label, every assignee apart), keeping those without a milestone, weight or epic where a value is negated.
 */
async function negatedConditions(db: PrismaClient, viewerId: number | null, not: NegatedIssueFilters): Promise<Prisma.IssueWhereInput[]> {
  exclusive(not, 'not');
  const idOf = await userIds(db, [not.authorUsername, ...(not.assigneeUsernames ?? [])].filter((u): u is string => !!u));
  const and: Prisma.IssueWhereInput[] = [];
  for (const title of not.labels ?? []) and.push({ labelLinks: { none: { label: { title } } } });
  const milestones = (not.milestones ?? []).filter((m) => m.trim());
  if (milestones.length) and.push({ OR: [{ milestoneId: null }, { milestone: { is: { title: { notIn: [...milestones] } } } }] });
  if (not.iids?.length) and.push({ iid: { notIn: [...not.iids] } });
  if (not.authorId != null) and.push({ NOT: { authorId: not.authorId } });
  if (not.authorUsername) and.push({ NOT: { authorId: idOf(not.authorUsername) } });
  if (not.assigneeId?.trim()) {
    const assignee = numberOrWildcard(not.assigneeId, 'assigneeId');
    and.push(assignee === 'none' ? { assignees: { some: {} } } : assignee === 'any' ? { assignees: { none: {} } } : { assignees: { none: { userId: assignee } } });
  }
  const assignees = (not.assigneeUsernames ?? []).map(idOf);
  if (assignees.length) and.push({ assignees: { none: { userId: { in: assignees } } } });
  if (not.myReactionEmoji?.trim() && viewerId !== null) and.push({ NOT: reactionCondition(not.myReactionEmoji, viewerId) });
  if (not.weight?.trim()) {
    const weight = numberOrWildcard(not.weight, 'weight');
    and.push(typeof weight === 'number' ? { OR: [{ weight: null }, { weight: { not: weight } }] } : { NOT: weightCondition(weight) });
  }
  if (not.epicId?.trim()) {
    const epic = numberOrWildcard(not.epicId, 'epicId');
    and.push(typeof epic === 'number' ? { OR: [{ epicIssue: { is: null } }, { epicIssue: { is: { epicId: { not: epic } } } }] } : { NOT: epicCondition(epic) });
  }
  if (not.types?.length) and.push({ issueType: { notIn: [...not.types] } });
  return and;
}

/** IssuableFinder's `or`: authored by any of these users, assigned to any of these, carrying any of these labels. */
async function unionedConditions(db: PrismaClient, or: UnionedIssueFilters): Promise<Prisma.IssueWhereInput[]> {
  const idOf = await userIds(db, [...(or.authorUsernames ?? []), ...(or.assigneeUsernames ?? [])]);
  const and: Prisma.IssueWhereInput[] = [];
  if (or.authorUsernames?.length) and.push({ authorId: { in: or.authorUsernames.map(idOf) } });
  if (or.assigneeUsernames?.length) and.push({ assignees: { some: { userId: { in: or.assigneeUsernames.map(idOf) } } } });
  if (or.labelNames?.length) and.push({ labelLinks: { some: { label: { title: { in: [...or.labelNames] } } } } });
  return and;
}
