/**
 * Owns timelogs (GitLab's Timelog and TimeTrackable): time spent on an issue or a merge request, one row per
 * `/spend`, `add_spent_time`, reset or timelogCreate, whose sum is the issuable's total time spent (kept in its
 * totalTimeSpent column by the issuable's own service in the same transaction). Lists follow TimelogResolver:
 * filters by project, group, user and time range, GitLab's sorts, and only timelogs of issuables the viewer may read.
 */
import type { Prisma } from '../../db/database.js';
import { argumentError, badRequest, invalid, notFound } from '../../errors.js';
import { connection, type PageArgs } from '../../graphql/connection.js';
import type { ServiceBase } from '../module.js';
import type { NamespaceRow } from '../namespaces/service.js';
import type { ProjectRow } from '../projects/service.js';
import type { ResourceEventsService } from '../resource_events/service.js';
import { humanDuration } from './durations.js';
import { issueSubjectOf } from './policy.js';

type Tx = Prisma.TransactionClient;

export type TimelogRow = Prisma.TimelogGetPayload<object>;

/** The issue or merge request time is logged on. */
export interface TimeTracked {
  type: 'Issue' | 'MergeRequest';
  id: number;
  projectId: number;
}

/** An issue or a merge request, as read by their services. */
export type Issuable =
  | { type: 'Issue'; row: { id: number; projectId: number; authorId: number | null; confidential: boolean; assignees: readonly { userId: number }[]; author: { state: string } | null } }
  | { type: 'MergeRequest'; row: { id: number; projectId: number; authorId: number | null; assignees: readonly { userId: number }[] } };

/** What one spend logs: seconds (negative subtracts) or null to reset, and optionally when, why and from which note. */
export interface Spend {
  seconds: number | null;
  spentAt?: Date | null;
  summary?: string | null;
  noteId?: number | null;
}

export type TimelogSort = 'spent_at_asc' | 'spent_at_desc' | 'created_asc' | 'created_desc' | 'updated_asc' | 'updated_desc' | 'time_spent_asc' | 'time_spent_desc';

/** TimelogResolver's arguments. */
export interface TimelogFilters {
  startDate?: Date | null;
  endDate?: Date | null;
  startTime?: Date | null;
  endTime?: Date | null;
  projectId?: number | null;
  groupId?: number | null;
  username?: string | null;
  sort?: TimelogSort | null;
}

const ORDERS: Record<TimelogSort, Prisma.TimelogOrderByWithRelationInput[]> = {
  spent_at_asc: [{ spentAt: 'asc' }, { id: 'asc' }],
  spent_at_desc: [{ spentAt: 'desc' }, { id: 'desc' }],
  created_asc: [{ createdAt: 'asc' }, { id: 'asc' }],
  created_desc: [{ createdAt: 'desc' }, { id: 'desc' }],
  updated_asc: [{ updatedAt: 'asc' }, { id: 'asc' }],
  updated_desc: [{ updatedAt: 'desc' }, { id: 'desc' }],
  time_spent_asc: [{ timeSpent: 'asc' }, { id: 'asc' }],
  time_spent_desc: [{ timeSpent: 'desc' }, { id: 'desc' }],
};

const ownerOf = (target: TimeTracked): Prisma.TimelogWhereInput => (target.type === 'Issue' ? { issueId: target.id } : { mergeRequestId: target.id });

/** Date#to_s of the day a time falls on (UTC, Rails' default zone). */
const day = (at: Date) => at.toISOString().slice(0, 10);

/**
 * SystemNotes::TimeTrackingService's words for logged time (`change_time_spent`, `created_timelog`): `added 1h of time
 * spent`, `subtracted 30m of time spent`, with `at 2026-11-01` when it was spent on another day than today.
 */
export function spentNote(seconds: number, spentAt: Date | null | undefined): string {
  const parts = [`${seconds > 0 ? 'added' : 'subtracted'} ${humanDuration(Math.abs(seconds))} of time spent`];
  if (spentAt && day(spentAt) !== day(new Date())) parts.push(`at ${day(spentAt)}`);
  return parts.join(' ');
}

/**
 * TimeTrackable#spend_time in the caller's transaction: a timelog of the time (a reset logs minus the total), its
 * system note, and the new total, which the caller writes to its issuable. Subtracting more than the total is
 * refused in GitLab's words (check_negative_time_spent).
 */
export async function logTime(tx: Tx, events: ResourceEventsService, target: TimeTracked, userId: number, spend: Spend): Promise<number> {
  const total = await totalOf(tx, target);
  if (spend.seconds === 0) return total;
  if (spend.seconds !== null && spend.seconds < 0 && -spend.seconds > total) throw invalid({ base: ['Time to subtract exceeds the total time spent'] });
  const timeSpent = spend.seconds ?? -total;
  await tx.timelog.create({
    data: {
      timeSpent,
      userId,
      projectId: target.projectId,
      ...(target.type === 'Issue' ? { issueId: target.id } : { mergeRequestId: target.id }),
      ...(spend.seconds !== null && spend.spentAt ? { spentAt: spend.spentAt } : {}),
      summary: spend.summary ?? null,
      noteId: spend.noteId ?? null,
    },
  });
  const body = spend.seconds === null ? 'removed time spent' : spentNote(spend.seconds, spend.spentAt);
  await events.issuables.note(tx, target, userId, body, new Date(), target.type);
  return total + timeSpent;
}

/** The connection of timelogs GitLab's TimelogConnection is: a page, its count, and the sum of every matching timelog. */
export function timelogConnection(db: ServiceBase['db'], where: Prisma.TimelogWhereInput, orderBy: Prisma.TimelogOrderByWithRelationInput[], page: PageArgs) {
  return Object.assign(
    connection(
      page,
      ({ skip, take }) => db.timelog.findMany({ where, orderBy, skip, take }),
      () => db.timelog.count({ where }),
    ),
    {
      get totalSpentTime() {
        return db.timelog.aggregate({ where, _sum: { timeSpent: true } }).then((r) => r._sum.timeSpent ?? 0);
      },
    },
  );
}

export class TimelogsService {
  constructor(
    private readonly base: ServiceBase,
    private readonly events: ResourceEventsService,
  ) {}

  private get db() {
    return this.base.db;
  }

  /** Timelogs the viewer may see: those of issues (read_issue) and merge requests (read_merge_request) they may read. */
  private async readable(): Promise<Prisma.TimelogWhereInput> {
    const [issues, mergeRequests] = await Promise.all([this.base.access.where('read_issue'), this.base.access.where('read_merge_request')]);
    return { OR: [{ issue: { is: issues } }, { mergeRequest: { is: mergeRequests } }], project: { pendingDelete: false } };
  }

  /**
   * An issuable's timelogs (Issue.timelogs, MergeRequest.timelogs), oldest first; the caller has read the issuable.
   * A first page, its count and its sum are batched with the other issuables' of a list.
   */
  of(target: TimeTracked, page: PageArgs) {
    if (page.after) return timelogConnection(this.db, ownerOf(target), [{ id: 'asc' }], page);
    const { timelogs } = this.base.loaders.issues;
    const parent = { column: target.type === 'Issue' ? ('issueId' as const) : ('mergeRequestId' as const), id: target.id };
    return Object.assign(
      connection(
        page,
        ({ take }) => timelogs.firstPage.load({ ...parent, take }),
        async () => (await timelogs.totals.load(parent)).count,
      ),
      {
        get totalSpentTime() {
          return timelogs.totals.load(parent).then((t) => t.sum);
        },
      },
    );
  }

  /**
   * TimelogResolver: Query.timelogs (no parent: a group, a project or the viewer's own username unless an
   * administrator), Project.timelogs and Group.timelogs.
   */
  async list(parent: { project: ProjectRow } | { group: NamespaceRow } | null, filters: TimelogFilters, page: PageArgs) {
    const viewer = this.base.viewer;
    const named = !!filters.groupId || !!filters.projectId || (!!filters.username && filters.username === viewer?.username);
    if (!parent && !named && !this.base.access.allowed('read_all_timelogs')) {
      throw argumentError('Non-admin users must provide a group_id, project_id, or current username');
    }
    if (filters.startTime && filters.startDate) throw argumentError('Provide either a start date or time, but not both');
    if (filters.endTime && filters.endDate) throw argumentError('Provide either an end date or time, but not both');
    const start = filters.startTime ?? (filters.startDate ? startOfDay(filters.startDate) : null);
    const end = filters.endTime ?? (filters.endDate ? endOfDay(filters.endDate) : null);
    if (filters.startTime && filters.endTime && filters.endTime < filters.startTime) throw argumentError('Start argument must be before End argument');
    const and: Prisma.TimelogWhereInput[] = [await this.readable()];
    if (parent && 'project' in parent) and.push({ projectId: parent.project.id });
    if (parent && 'group' in parent) and.push({ project: { namespace: { traversalIds: { has: parent.group.id } } } });
    if (filters.username) {
      const user = await this.db.user.findFirst({ where: { username: filters.username }, select: { id: true } });
      and.push({ userId: user?.id ?? -1 });
    }
    if (filters.projectId) and.push({ projectId: filters.projectId });
    if (filters.groupId) and.push({ project: { namespace: { traversalIds: { has: filters.groupId } } } });
    if (start) and.push({ spentAt: { gte: start } });
    if (end) and.push({ spentAt: { lte: end } });
    return timelogConnection(this.db, { AND: and }, ORDERS[filters.sort ?? 'spent_at_asc'], page);
  }

  /** A timelog by id, when the viewer may read its issuable; null otherwise. */
  async byId(id: number): Promise<TimelogRow | null> {
    return this.db.timelog.findFirst({ where: { AND: [{ id }, await this.readable()] } });
  }

  /**
   * Timelogs::CreateService (timelogCreate) on an issuable the caller found readable, where the viewer may
   * `create_timelog` (IssuablePolicy: Reporter access, what admin_issue and admin_merge_request ask on an unarchived
   * project): spent at a time not in the future, not zero. `parsed` is the duration's seconds, null when it names none.
   */
  async create(issuable: Issuable, parsed: number | null, spentAt: Date, summary: string): Promise<TimelogRow> {
    const viewer = this.base.access.requireViewer();
    if (parsed === null) throw badRequest('Time spent must be formatted correctly. For example: 1h 30m.');
    const project = await this.base.loaders.projects.byId.load(issuable.row.projectId);
    if (!project) throw notFound('Project');
    const may =
      issuable.type === 'Issue'
        ? this.base.access.can('admin_issue', issueSubjectOf(project, issuable.row))
        : this.base.access.can('admin_merge_request', { inProject: project, authorId: issuable.row.authorId, assigneeIds: issuable.row.assignees.map((a) => a.userId) });
    if (!(await may)) throw notFound(issuable.type === 'Issue' ? 'Issue' : 'Merge Request');
    if (spentAt > new Date()) throw badRequest("Spent at can't be a future date and time.");
    if (parsed === 0) throw badRequest("Time spent can't be zero.");
    const target: TimeTracked = { type: issuable.type, id: issuable.row.id, projectId: project.id };
    return this.db.$transaction(async (tx) => {
      const timelog = await tx.timelog.create({
        data: { timeSpent: parsed, spentAt, summary, userId: viewer.id, projectId: target.projectId, ...(target.type === 'Issue' ? { issueId: target.id } : { mergeRequestId: target.id }) },
      });
      await this.events.issuables.note(tx, target, viewer.id, spentNote(parsed, spentAt), timelog.createdAt, target.type);
      await writeTotal(tx, target);
      return timelog;
    });
  }

  /**
   * Timelogs::DeleteService (timelogDelete): the timelog's author, or a Maintainer of its project (TimelogPolicy's
   * admin_timelog), removes it with a system note; the total drops by what it logged.
   */
  async destroy(timelog: TimelogRow): Promise<TimelogRow> {
    const viewer = this.base.access.requireViewer();
    if (!(await this.mayAdmin(timelog))) throw notFound('Timelog');
    const target = targetOf(timelog);
    return this.db.$transaction(async (tx) => {
      await tx.timelog.delete({ where: { id: timelog.id } });
      if (target) {
        const body = `deleted ${humanDuration(timelog.timeSpent) ?? '0m'} of spent time from ${day(timelog.spentAt)}`;
        await this.events.issuables.note(tx, target, viewer.id, body, new Date(), target.type);
        await writeTotal(tx, target);
      }
      return timelog;
    });
  }

  /** TimelogPolicy's admin_timelog: its author, or a Maintainer of its project (the timelog is one the viewer reads). */
  async mayAdmin(timelog: TimelogRow): Promise<boolean> {
    const viewer = this.base.viewer;
    if (!viewer) return false;
    if (timelog.userId === viewer.id) return true;
    const project = await this.base.loaders.projects.byId.load(timelog.projectId);
    return !!project && (await this.base.access.can('admin_timelog', { inProject: project }));
  }
}

/** The issuable a timelog logs time on. */
export function targetOf(timelog: TimelogRow): TimeTracked | null {
  if (timelog.issueId !== null) return { type: 'Issue', id: timelog.issueId, projectId: timelog.projectId };
  if (timelog.mergeRequestId !== null) return { type: 'MergeRequest', id: timelog.mergeRequestId, projectId: timelog.projectId };
  return null;
}

/**
 * An issuable's totalTimeSpent after its timelogs changed other than through its own service (timelogCreate,
 * timelogDelete): the column is a cache of the sum this module owns.
 */
async function writeTotal(tx: Tx, target: TimeTracked): Promise<void> {
  const totalTimeSpent = await totalOf(tx, target);
  if (target.type === 'Issue') await tx.issue.update({ where: { id: target.id }, data: { totalTimeSpent } });
  else await tx.mergeRequest.update({ where: { id: target.id }, data: { totalTimeSpent } });
}

async function totalOf(tx: Tx, target: TimeTracked): Promise<number> {
  const sum = await tx.timelog.aggregate({ where: ownerOf(target), _sum: { timeSpent: true } });
  return sum._sum.timeSpent ?? 0;
}

function startOfDay(at: Date): Date {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate()));
}

function endOfDay(at: Date): Date {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate(), 23, 59, 59, 999));
}
