/**
 * Owns activity events (GitLab's Events API records): every module records `opened`, `closed`, `pushed`,
 * `commented on` … through `record`, inside its own transaction when it passes one; the Events API lists them,
 * and `prune` removes those past retention.
 */
import { can, type Actor, type NamespaceSubject, type ProfileSubject, type ProjectSubject } from '../../auth/policy.js';
import { Prisma, type PrismaClient } from '../../db/database.js';
import { liveActor } from '../../auth/memberships.js';
import { perMessage, rowIdSlot, type Announcement } from '../../events/bus.js';
import { connection, type PageArgs } from '../../graphql/connection.js';
import type { ServiceBase, Services } from '../module.js';
import type { ActivityAction, PushData } from './actions.js';
import { hasTargetCheck, visibleByTarget } from './targets.js';

export interface ActivityInput {
  action: ActivityAction;
  authorId: number;
  /** The project the event happened in: subscribers' access to it decides who hears of it. */
  project?: ProjectSubject | null;
  groupId?: number | null;
  /** GitLab's target class name: Issue, Note, Snippet, Milestone, MergeRequest, Project … (TARGET_TYPES) */
  targetType: string | null;
  targetId?: number | null;
  targetIid?: number | null;
  targetTitle?: string | null;
  /** For push events. */
  pushData?: PushData;
  /**
   * The ability on the project, beyond `read_project`, that seeing the event takes (GitLab's Event#visible_to_user?):
   * `download_code` for a comment on a commit. Kept in the event's `data`.
   */
  requires?: 'download_code';
  data?: Prisma.InputJsonValue;
}

/** The filters of GitLab's Events API (EventsFinder). */
export interface EventFilters {
  action?: ActivityAction | null;
  /** A stored class name (TARGET_TYPES). */
  targetType?: string | null;
  /** Events before the start of this day (UTC). */
  createdBefore?: Date | null;
  /** Events after the end of this day (UTC). */
  createdAfter?: Date | null;
  sort?: 'ASC' | 'DESC' | null;
}

/** Events are kept this long; the `activity.prune` job removes older ones (GitLab's event retention). */
export const EVENT_RETENTION_YEARS = 3;

const DAY_MS = 24 * 60 * 60 * 1000;

const ACTIVITY_TOPIC = 'activity.recorded';

export type EventRow = Awaited<ReturnType<PrismaClient['event']['findUniqueOrThrow']>>;

/** What an event's subscribers need to decide, without a query, whether they may hear of it. */
interface RecordedMessage {
  id: number;
  project: ProjectSubject | null;
  /** ActivityInput.requires. */
  requires?: 'download_code' | null;
  /** Its target type, when a check of its target decides who sees it (src/modules/activity/targets.ts). */
  checkedTarget?: string | null;
}

/** The ability an event's `data` says seeing it takes besides reading its project (ActivityInput.requires). */
const requiredAbility = (data: unknown): 'download_code' | null =>
  data !== null && typeof data === 'object' && (data as { requires?: unknown }).requires === 'download_code' ? 'download_code' : null;

/** The event a message names, with its author: loaded once per message for every subscriber of this process. */
const recordedEvent = perMessage((message: RecordedMessage, db: PrismaClient) =>
  db.event.findUnique({ where: { id: message.id }, include: { author: true } }),
);

function accessSubject(project: Omit<ProjectSubject, 'id'>, id: number | string): Omit<ProjectSubject, 'id'> & { id: number | string } {
  const { id: namespaceId, kind, visibility, ownerId, traversalIds }: NamespaceSubject = project.namespace;
  return { id, visibility: project.visibility, namespace: { id: namespaceId, kind, visibility, ownerId, traversalIds } };
}

export class ActivityService {
  constructor(private readonly base: ServiceBase) {}

  /** Records one event; with `tx` it commits or rolls back with the change it describes. */
  async record(input: ActivityInput, tx?: Prisma.TransactionClient): Promise<void> {
    const { insert, announcement } = this.recording(input, 'inserted');
    await this.base.announce([announcement], (notify) => (tx ?? this.base.db).$executeRaw`WITH inserted AS (${insert}) SELECT FROM inserted CROSS JOIN LATERAL ${notify}`);
  }

  /**
   * The project of the user's newest event of an action on a target type (EventsFinder with `source: user`, newest
   * first), e.g. where they last created an issue; null when they have none.
   */
  async lastProjectOf(userId: number, targetType: string, action: string): Promise<number | null> {
    const event = await this.base.db.event.findFirst({ where: { authorId: userId, targetType, action, projectId: { not: null } }, orderBy: { id: 'desc' }, select: { projectId: true } });
    return event?.projectId ?? null;
  }

  /**
   * One event as parts of the caller's statement (ServiceBase.announce): `insert`, an `INSERT … RETURNING "id"` for
   * the CTE the caller names `as`, and the announcement of it. `newProject` is the project of the event when the same
   * statement makes it: the SQL expression of its id, and what deciding access to it reads besides.
   */
  recording(input: ActivityInput, as: string, newProject?: { id: Prisma.Sql; subject: Omit<ProjectSubject, 'id'> }): { insert: Prisma.Sql; announcement: Announcement } {
    const json = (value: unknown) => (value == null ? null : JSON.stringify(value));
    const projectId = newProject?.id ?? Prisma.sql`${input.project?.id ?? null}::int`;
    const insert = Prisma.sql`
      INSERT INTO "events" ("action", "authorId", "projectId", "groupId", "targetType", "targetId", "targetIid", "targetTitle", "pushData", "data")
      VALUES (${input.action}, ${input.authorId}::int, ${projectId}, ${input.groupId ?? null}::int, ${input.targetType}, ${input.targetId ?? null}::int,
              ${input.targetIid ?? null}::int, ${input.targetTitle ?? null}, ${json(input.pushData)}::jsonb, ${json(input.requires ? { ...(input.data as object | undefined), requires: input.requires } : input.data)}::jsonb)
      RETURNING "id"`;
    // RecordedMessage: the event's id and the project's access subject, ids the statement makes put in by it.
    const payload = {
      id: rowIdSlot(as),
      project: newProject ? accessSubject(newProject.subject, rowIdSlot('project')) : input.project ? accessSubject(input.project, input.project.id) : null,
      requires: input.requires ?? null,
      checkedTarget: hasTargetCheck(input.targetType) ? input.targetType : null,
    };
    const ids = { [as]: Prisma.sql`${Prisma.raw(`"${as}"`)}."id"`, ...(newProject ? { project: newProject.id } : {}) };
    return { insert, announcement: { topic: ACTIVITY_TOPIC, payload, ids } };
  }

  /**
   * Events a user authored, in projects the viewer can read; none when the user's profile is private to the viewer
   * (GitLab's EventsFinder). `scope: 'all'` on the viewer's own user lists every event of the projects the viewer
   * is a member of (GitLab's authorized projects), whoever authored them.
   */
  async listForUser(services: Services, user: ProfileSubject, filters: EventFilters & { scope?: string | null }, page: PageArgs) {
    const { access, viewer } = this.base;
    if (!(await access.can('read_user_profile', user))) return connection(page, async () => [], async () => 0);
    const source: Prisma.EventWhereInput =
      filters.scope === 'all' && viewer?.id === user.id ? { project: { is: await access.memberProjectsWhere() } } : { authorId: user.id };
    return this.list(services, source, filters, page);
  }

  /** Events of a project the caller has already looked up as readable. */
  listForProject(services: Services, project: ProjectSubject, filters: EventFilters, page: PageArgs) {
    return this.list(services, { projectId: project.id }, filters, page);
  }

  /** One query per page, one to count; readability is part of the filter, never decided row by row. */
  private async list(services: Services, source: Prisma.EventWhereInput, filters: EventFilters, page: PageArgs) {
    const { db, access } = this.base;
    const createdAt: Prisma.DateTimeFilter = {};
    if (filters.createdBefore) createdAt.lt = filters.createdBefore;
    // GitLab compares with the end of that day: the first instant after it is the next day's start.
    if (filters.createdAfter) createdAt.gte = new Date(filters.createdAfter.getTime() + DAY_MS);
    const where: Prisma.EventWhereInput = {
      AND: [
        source,
        // Only project events (GitLab joins the project), of projects the viewer can read; a push only for those
        // who may download the code (Event#visible_to_user?).
        { project: { is: await access.where('read_project') } },
        { OR: [{ action: { not: 'pushed' } }, { project: { is: await access.where('download_code') } }] },
        ...(filters.action ? [{ action: filters.action }] : []),
        ...(filters.targetType ? [{ targetType: filters.targetType }] : []),
        ...(filters.createdBefore || filters.createdAfter ? [{ createdAt }] : []),
      ],
    };
    const direction = filters.sort === 'ASC' ? 'asc' : 'desc';
    return connection(
      page,
      async ({ skip, take }) => this.visible(services, await db.event.findMany({ where, orderBy: { id: direction }, skip, take })),
      () => db.event.count({ where }),
    );
  }

  /**
   * The page's events the viewer may see, as GitLab drops them after paging (Event#visible_to_user?): those whose
   * `data` requires more than reading the project (a comment on a commit needs its code) only for those who may,
   * and those whose target has a check (a confidential issue, a comment on it) only for those it allows.
   */
  private async visible(services: Services, events: EventRow[]): Promise<EventRow[]> {
    const ids = [...new Set(events.filter((e) => e.projectId !== null && requiredAbility(e.data)).map((e) => e.projectId!))];
    const allowed = new Set<number>();
    if (ids.length > 0) {
      const { db, access } = this.base;
      const projects = await db.project.findMany({ where: { id: { in: ids } }, include: { namespace: true, features: true } });
      for (const p of projects) if (await access.can('download_code', p)) allowed.add(p.id);
    }
    const byTarget = await visibleByTarget(services, events);
    return events.filter((e) => byTarget.has(e.id) && (!requiredAbility(e.data) || (e.projectId !== null && allowed.has(e.projectId))));
  }

  /**
   * Removes events older than the retention period, `batchSize` rows per statement so no statement holds many
   * locks or runs long; returns how many went.
   */
  static async prune(db: PrismaClient, now: Date, batchSize: number): Promise<number> {
    const cutoff = new Date(now);
    cutoff.setUTCFullYear(cutoff.getUTCFullYear() - EVENT_RETENTION_YEARS);
    let removed = 0;
    for (;;) {
      const batch = await db.$executeRaw`
        DELETE FROM "events" WHERE "id" IN (
          SELECT "id" FROM "events" WHERE "createdAt" < ${cutoff}::timestamptz ORDER BY "createdAt" LIMIT ${batchSize}::int
        )`;
      removed += batch;
      if (batch < batchSize) return removed;
    }
  }

  /**
   * Project events as they are recorded on any replica: of one readable project, or of every project the
   * subscriber can read. Readability is decided on the event's own project subject with the viewer's remembered
   * memberships (src/auth/memberships.ts), reloaded first when a change was announced before the event.
   */
  async *recorded(services: Services, project: ProjectSubject | null): AsyncGenerator<{ activityEventRecorded: EventRow }> {
    const { app, db, viewer } = this.base;
    const wanted = (m: RecordedMessage, actor: Actor) =>
      m.project !== null && (project === null || m.project.id === project.id) && can(actor, 'read_project', m.project) && (!m.requires || can(actor, m.requires, m.project));
    const actor = liveActor(app.memberships, viewer);
    // Decided as the message arrives while the memberships are current (most messages: nothing wakes up).
    const events = app.bus.iterate<RecordedMessage>(ACTIVITY_TOPIC, (m) => {
      const now = actor.now();
      return now === undefined || wanted(m, now);
    });
    try {
      for await (const message of events) {
        if (!wanted(message, await actor.get())) continue;
        // One row per message for every subscriber, its author with it (Event.author reads it: no query of its own).
        const event = await recordedEvent(message, db);
        if (!event) continue;
        // Its target's check, for this subscriber, as the Events API asks it (a confidential issue's events).
        if (message.checkedTarget && !(await visibleByTarget(services, [event])).has(event.id)) continue;
        await app.bus.turn();
        yield { activityEventRecorded: event };
      }
    } finally {
      await events.return?.();
    }
  }
}
