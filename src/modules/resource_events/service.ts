/**
 * Owns resource events (GitLab's ResourceLabelEvent, ResourceWeightEvent, ResourceMilestoneEvent and
 * ResourceStateEvent): the recorders the issuables' services call inside their own transactions, one per change kind
 * (GitLab's ResourceEvents::Change*Service), and the reads of the resource events APIs. Label, milestone and state
 * events are stored by the resource's class and id, so issues, epics and merge requests record through the same
 * methods; weight events belong to issues only.
 */
import { Prisma } from '../../db/database.js';
import { recordNotFound } from '../../errors.js';
import { connection, type PageArgs } from '../../graphql/connection.js';
import type { ServiceBase } from '../module.js';
import type { Noteable } from '../notes/noteables.js';
import type { NotesService } from '../notes/service.js';
import { IssuableChanges } from './issuables.js';

/** The issuable an event is recorded on: its class (`Issue`, `Epic`, `MergeRequest`), id, and its project or group. */
export interface EventResource {
  type: string;
  id: number;
  projectId: number | null;
  groupId: number | null;
}

export type LabelEventRow = Prisma.ResourceLabelEventGetPayload<{ include: { label: true } }>;
export type WeightEventRow = Prisma.ResourceWeightEventGetPayload<object>;
export type MilestoneEventRow = Prisma.ResourceMilestoneEventGetPayload<{ include: { milestone: true } }>;
export type StateEventRow = Prisma.ResourceStateEventGetPayload<object>;

/** An event a timebox report replays: an issue's timebox added or removed, its state, or its weight. */
export interface TimeboxEvent {
  kind: 'timebox' | 'state' | 'weight';
  issueId: number;
  /** `add` or `remove`, for timebox events. */
  action: string | null;
  /** The timebox id (timebox events) or the weight (weight events). */
  value: number | null;
  /** The state, for state events. */
  state: string | null;
  createdAt: Date;
}

/** Where a timebox report looks: issues of one project, or of a group's projects and its subgroups'. */
export type TimeboxScope = { projectId: number } | { groupId: number } | null;

/** The events a timebox report reads per kind and in all (GitLab's SINGLE_EVENT_COUNT_LIMIT and EVENT_COUNT_LIMIT). */
export const TIMEBOX_EVENTS_PER_KIND = 20_000;
export const TIMEBOX_EVENTS_LIMIT = 50_000;

/** An event id as the APIs take it (Grape's `type: String`, then `find`): anything but digits finds nothing. */
const eventId = (id: string): number | null => (/^\d{1,9}$/.test(id.trim()) ? Number(id) : null);

const ORDER = [{ id: 'asc' }] as const;

export class ResourceEventsService {
  /** What an issue's create, update or time tracking leaves behind: these events and its system notes. */
  readonly issuables: IssuableChanges;

  constructor(
    private readonly base: ServiceBase,
    notes: NotesService,
  ) {
    this.issuables = new IssuableChanges(this, notes);
  }

  private get db() {
    return this.base.db;
  }

  /** GitLab's ChangeLabelsService: one `add` event per label added and one `remove` per label removed, at `at`. */
  async recordLabelChanges(tx: Prisma.TransactionClient, resource: EventResource, change: { added: readonly number[]; removed: readonly number[] }, userId: number, at = new Date()): Promise<void> {
    const row = (labelId: number, action: 'add' | 'remove') => ({
      resourceType: resource.type,
      resourceId: resource.id,
      projectId: resource.projectId,
      groupId: resource.groupId,
      labelId,
      action,
      userId,
      createdAt: at,
    });
    const data = [...change.added.map((id) => row(id, 'add')), ...change.removed.map((id) => row(id, 'remove'))];
    if (data.length) await tx.resourceLabelEvent.createMany({ data });
  }

  /**
   * GitLab's ChangeWeightService: the issue's new weight (null when removed). An issue whose weight was set before
   * any event was kept first gets one for that weight at its previous update (ResourceWeightEvent's first_weight_event?).
   */
  async recordWeightChange(tx: Prisma.TransactionClient, issueId: number, change: { weight: number | null; previous: number | null; previousAt: Date }, userId: number, at = new Date()): Promise<void> {
    const data: Prisma.ResourceWeightEventCreateManyInput[] = [];
    if (change.previous !== null && (await tx.resourceWeightEvent.count({ where: { issueId } })) === 0) data.push({ issueId, weight: change.previous, userId, createdAt: change.previousAt });
    data.push({ issueId, weight: change.weight, userId, createdAt: at });
    await tx.resourceWeightEvent.createMany({ data });
  }

  /**
   * GitLab's ChangeMilestoneService: `add` with the new milestone, or `remove` with the one taken off, and the
   * resource's state at the time. Only resources of projects have milestones.
   */
  async recordMilestoneChange(tx: Prisma.TransactionClient, resource: EventResource, change: { milestoneId: number | null; previousId: number | null; state: string }, userId: number, at = new Date()): Promise<void> {
    const milestoneId = change.milestoneId ?? change.previousId;
    if (milestoneId === null || resource.projectId === null) return;
    await tx.resourceMilestoneEvent.create({
      data: {
        resourceType: resource.type,
        resourceId: resource.id,
        projectId: resource.projectId,
        milestoneId,
        action: change.milestoneId === null ? 'remove' : 'add',
        state: change.state,
        userId,
        createdAt: at,
      },
    });
  }

  /** GitLab's ChangeStateService: `closed`, `reopened` (or `merged`); the source commit or merge request when one did it. */
  async recordStateChange(tx: Prisma.TransactionClient, resource: EventResource, state: string, userId: number, at = new Date()): Promise<void> {
    await tx.resourceStateEvent.create({
      data: { resourceType: resource.type, resourceId: resource.id, projectId: resource.projectId, groupId: resource.groupId, state, userId, createdAt: at },
    });
  }

  /**
   * The events of TimeboxReportService's query, oldest first (by time, then id), at most TIMEBOX_EVENTS_LIMIT + 1: of
   * every issue (in the scope) the timebox was added to until `until`, its timebox, state and weight events until
   * then. Milestones read milestone events of issues, iterations iteration events.
   */
  async timeboxEvents(timebox: { kind: 'milestone' | 'iteration'; id: number }, until: Date, scope: TimeboxScope): Promise<TimeboxEvent[]> {
    const milestone = timebox.kind === 'milestone';
    const table = Prisma.raw(milestone ? '"resource_milestone_events"' : '"resource_iteration_events"');
    const issue = Prisma.raw(milestone ? '"resourceId"' : '"issueId"');
    const timeboxColumn = Prisma.raw(milestone ? '"milestoneId"' : '"iterationId"');
    const ofIssues = milestone ? Prisma.sql`AND "resourceType" = 'Issue'` : Prisma.empty;
    const inScope =
      scope === null
        ? Prisma.empty
        : 'projectId' in scope
          ? Prisma.sql`AND ${issue} IN (SELECT "id" FROM "issues" WHERE "projectId" = ${scope.projectId})`
          : Prisma.sql`AND ${issue} IN (SELECT "i"."id" FROM "issues" "i" JOIN "projects" "p" ON "p"."id" = "i"."projectId" JOIN "namespaces" "n" ON "n"."id" = "p"."namespaceId" WHERE ${scope.groupId} = ANY("n"."traversalIds"))`;
    return this.base.db.$queryRaw<TimeboxEvent[]>`
      WITH "scoped" AS MATERIALIZED (
        SELECT DISTINCT ${issue} AS "id" FROM ${table} WHERE ${timeboxColumn} = ${timebox.id} AND "action" = 'add' AND "createdAt" <= ${until} ${ofIssues} ${inScope}
      )
      SELECT * FROM (
        (SELECT 'timebox' AS "kind", "id", ${issue} AS "issueId", "action", ${timeboxColumn} AS "value", NULL::text AS "state", "createdAt" FROM ${table}
          WHERE ${issue} IN (SELECT "id" FROM "scoped") AND "createdAt" <= ${until} ${ofIssues} ORDER BY "createdAt", "id" LIMIT ${TIMEBOX_EVENTS_PER_KIND})
        UNION ALL
        (SELECT 'state', "id", "resourceId", NULL, NULL, "state", "createdAt" FROM "resource_state_events"
          WHERE "resourceType" = 'Issue' AND "resourceId" IN (SELECT "id" FROM "scoped") AND "createdAt" <= ${until} ORDER BY "createdAt", "id" LIMIT ${TIMEBOX_EVENTS_PER_KIND})
        UNION ALL
        (SELECT 'weight', "id", "issueId", NULL, "weight", NULL, "createdAt" FROM "resource_weight_events"
          WHERE "issueId" IN (SELECT "id" FROM "scoped") AND "createdAt" <= ${until} ORDER BY "createdAt", "id" LIMIT ${TIMEBOX_EVENTS_PER_KIND})
      ) "events" ORDER BY "createdAt", "id" LIMIT ${TIMEBOX_EVENTS_LIMIT + 1}`;
  }

  /** Users' references (`@username`) in the order of their ids, read in the transaction that writes the note naming them. */
  async references(tx: Prisma.TransactionClient, ids: readonly number[]): Promise<string[]> {
    const users = await tx.user.findMany({ where: { id: { in: [...ids] } }, select: { id: true, username: true } });
    const byId = new Map(users.map((u) => [u.id, `@${u.username}`]));
    return ids.flatMap((id) => byId.get(id) ?? []);
  }

  /** Removes the resource's events with it (weight events go with their issue's row). */
  async deleteFor(tx: Prisma.TransactionClient, resource: Pick<EventResource, 'type' | 'id'>): Promise<void> {
    const where = { resourceType: resource.type, resourceId: resource.id };
    await tx.resourceLabelEvent.deleteMany({ where });
    await tx.resourceMilestoneEvent.deleteMany({ where });
    await tx.resourceStateEvent.deleteMany({ where });
  }

  private of(n: Noteable) {
    return { resourceType: n.type, resourceId: n.id ?? -1 };
  }

  /** The label events of a noteable the caller has found readable (notes' `noteable`), oldest first. */
  labelEvents(n: Noteable, page: PageArgs) {
    const where = this.of(n);
    return connection(
      page,
      ({ skip, take }) => this.db.resourceLabelEvent.findMany({ where, include: { label: true }, orderBy: [...ORDER], skip, take }),
      () => this.db.resourceLabelEvent.count({ where }),
    );
  }

  /** One of its label events; ActiveRecord's `404 Not found` for an id it has none by. */
  async labelEvent(n: Noteable, id: string): Promise<LabelEventRow> {
    const found = await this.db.resourceLabelEvent.findFirst({ where: { ...this.of(n), id: eventId(id) ?? -1 }, include: { label: true } });
    if (!found) throw recordNotFound();
    return found;
  }

  /** The weight events of an issue (none for other kinds), oldest first. */
  weightEvents(n: Noteable, page: PageArgs) {
    const where = { issueId: n.type === 'Issue' && n.id !== null ? n.id : -1 };
    return connection(
      page,
      ({ skip, take }) => this.db.resourceWeightEvent.findMany({ where, orderBy: [...ORDER], skip, take }),
      () => this.db.resourceWeightEvent.count({ where }),
    );
  }

  async weightEvent(n: Noteable, id: string): Promise<WeightEventRow> {
    const found = n.type === 'Issue' ? await this.db.resourceWeightEvent.findFirst({ where: { issueId: n.id ?? -1, id: eventId(id) ?? -1 } }) : null;
    if (!found) throw recordNotFound();
    return found;
  }

  milestoneEvents(n: Noteable, page: PageArgs) {
    const where = this.of(n);
    return connection(
      page,
      ({ skip, take }) => this.db.resourceMilestoneEvent.findMany({ where, include: { milestone: true }, orderBy: [...ORDER], skip, take }),
      () => this.db.resourceMilestoneEvent.count({ where }),
    );
  }

  async milestoneEvent(n: Noteable, id: string): Promise<MilestoneEventRow> {
    const found = await this.db.resourceMilestoneEvent.findFirst({ where: { ...this.of(n), id: eventId(id) ?? -1 }, include: { milestone: true } });
    if (!found) throw recordNotFound();
    return found;
  }

  stateEvents(n: Noteable, page: PageArgs) {
    const where = this.of(n);
    return connection(
      page,
      ({ skip, take }) => this.db.resourceStateEvent.findMany({ where, orderBy: [...ORDER], skip, take }),
      () => this.db.resourceStateEvent.count({ where }),
    );
  }

  async stateEvent(n: Noteable, id: string): Promise<StateEventRow> {
    const found = await this.db.resourceStateEvent.findFirst({ where: { ...this.of(n), id: eventId(id) ?? -1 } });
    if (!found) throw recordNotFound();
    return found;
  }
}
