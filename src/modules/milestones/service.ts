/**
 * Owns milestones of projects and groups (GitLab's Milestone), numbered by iid within their parent: the milestones
 * APIs, closing and reopening, promotion of a project milestone to its group, and their activity events.
 */
import { railsDate } from '../../days.js';
import type { Prisma } from '../../db/database.js';
import { atLeastOneOf, badRequest, invalid, invalidArgument, notFoundAs, recordNotFound } from '../../errors.js';
import { connection, type PageArgs } from '../../graphql/connection.js';
import { containsIgnoringCase } from '../../db/text.js';
import type { ActivityService } from '../activity/service.js';
import { parentSubject, type TimeboxParent } from '../labels/service.js';
import type { ServiceBase, Services } from '../module.js';
import type { GroupsService } from '../groups/service.js';
import type { ProjectsService } from '../projects/service.js';
import type { ResourceEventsService, TimeboxScope } from '../resource_events/service.js';
import { replayTimebox, reportEnd, reportRefusal, type Timebox, type TimeboxReport } from './report.js';

/** GitLab's ResourceNotAvailable, for a report scope that is missing or hidden. */
const RESOURCE_NOT_AVAILABLE = "The resource that you are attempting to access does not exist or you don't have permission to perform this action";

export type MilestoneRow = Prisma.MilestoneGetPayload<object>;

export interface MilestoneFilters {
  state?: 'active' | 'closed' | null;
  iids?: readonly number[] | null;
  title?: string | null;
  search?: string | null;
  includeAncestors?: boolean | null;
  includeDescendants?: boolean | null;
  updatedBefore?: Date | null;
  updatedAfter?: Date | null;
}

export interface MilestoneInput {
  title: string;
  description?: string | null;
  dueDate?: string | null;
  startDate?: string | null;
}

export interface MilestoneChanges {
  title?: string | null;
  description?: string | null;
  dueDate?: string | null;
  startDate?: string | null;
  stateEvent?: string | null;
}

const PROMOTE_NO_GROUP = 'Promotion failed - Project does not belong to a group.';

const dateOf = railsDate;

/** Timebox's validations, in Rails' words by field. */
function milestoneErrors(m: { title: string; startDate: Date | null; dueDate: Date | null }): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  if (!m.title.trim()) errors.title = ["can't be blank"];
  else if (m.title.length > 255) errors.title = ['is too long (maximum is 255 characters)'];
  if (m.startDate && m.dueDate && m.dueDate <= m.startDate) errors.dueDate = ['must be greater than start date'];
  return errors;
}

export class MilestonesService {
  constructor(
    private readonly base: ServiceBase,
    private readonly activity: ActivityService,
    private readonly groups: GroupsService,
    private readonly projects: ProjectsService,
    private readonly events: ResourceEventsService,
  ) {}

  private get db() {
    return this.base.db;
  }

  private owner(parent: TimeboxParent): { projectId: number } | { groupId: number } {
    return 'project' in parent ? { projectId: parent.project.id } : { groupId: parent.group.id };
  }

  /** The parent's milestones with GitLab's filters (MilestonesFinder), soonest due first. */
  async list(parent: TimeboxParent, filters: MilestoneFilters, page: PageArgs) {
    await this.base.access.authorize('read_milestone', parentSubject(parent));
    const scope: Prisma.MilestoneWhereInput[] = [];
    if ('project' in parent) {
      scope.push({ projectId: parent.project.id });
      const ns = parent.project.namespace;
      if (filters.includeAncestors && ns.kind === 'group') scope.push({ groupId: { in: ns.traversalIds } });
    } else {
      const group = parent.group;
      const readable = await this.base.access.where('read_group');
      const groups: Prisma.NamespaceWhereInput[] = [];
      if (filters.includeAncestors) groups.push({ id: { in: group.traversalIds } });
      if (filters.includeDescendants) groups.push({ traversalIds: { has: group.id } });
      scope.push(groups.length ? { group: { AND: [{ OR: groups }, readable] } } : { groupId: group.id });
      if (filters.includeDescendants) {
        scope.push({ project: { AND: [{ namespace: { traversalIds: { has: group.id } }, pendingDelete: false }, await this.base.access.where('read_project')] } });
      }
    }
    const where: Prisma.MilestoneWhereInput = {
      AND: [
        { OR: scope },
        filters.state ? { state: filters.state } : {},
        filters.iids?.length ? { iid: { in: [...filters.iids] } } : {},
        filters.title != null ? { title: filters.title } : {},
        filters.search ? { OR: [{ title: containsIgnoringCase(filters.search) }, { description: containsIgnoringCase(filters.search) }] } : {},
        filters.updatedBefore ? { updatedAt: { lt: filters.updatedBefore } } : {},
        filters.updatedAfter ? { updatedAt: { gt: filters.updatedAfter } } : {},
      ],
    };
    return connection(
      page,
      ({ skip, take }) => this.db.milestone.findMany({ where, orderBy: [{ dueDate: { sort: 'asc', nulls: 'last' } }, { id: 'desc' }], skip, take }),
      () => this.db.milestone.count({ where }),
    );
  }

  /** One of the parent's milestones by ID; GitLab's `milestones.find` answers `404 Not found` otherwise. */
  async get(parent: TimeboxParent, id: number): Promise<MilestoneRow> {
    await this.base.access.authorize('read_milestone', parentSubject(parent));
    const milestone = await this.db.milestone.findFirst({ where: { id, ...this.owner(parent) } });
    if (!milestone) throw recordNotFound();
    return milestone;
  }

  /** A milestone by ID when the viewer may read its project's or group's milestones (GitLab's `Query.milestone`); null otherwise. */
  async find(services: Services, id: number): Promise<MilestoneRow | null> {
    const milestone = await this.db.milestone.findUnique({ where: { id } });
    if (!milestone) return null;
    const project = milestone.projectId != null ? await services.projects.find({ id: milestone.projectId }) : null;
    const group = milestone.groupId != null ? await services.groups.find({ id: milestone.groupId }) : null;
    const parent: TimeboxParent | null = project ? { project } : group ? { group } : null;
    return parent && (await this.base.access.can('read_milestone', parentSubject(parent))) ? milestone : null;
  }

  /** A title no milestone of the parent's hierarchy holds (GitLab's uniqueness_of_title). */
  private async titleTaken(tx: Prisma.TransactionClient, parent: TimeboxParent, title: string, except?: number): Promise<boolean> {
    const scope: Prisma.MilestoneWhereInput[] =
      'project' in parent
        ? [{ projectId: parent.project.id }, ...(parent.project.namespace.kind === 'group' ? [{ groupId: parent.project.namespace.id }] : [])]
        : [{ groupId: parent.group.id }, { project: { namespaceId: parent.group.id } }];
    return (await tx.milestone.count({ where: { OR: scope, title, ...(except ? { id: { not: except } } : {}) } })) > 0;
  }

  /** Locks the parent's row, so iids and titles are decided one milestone at a time. */
  private async lock(tx: Prisma.TransactionClient, owner: { projectId: number } | { groupId: number }): Promise<void> {
    if ('projectId' in owner) await tx.$queryRaw`SELECT "id" FROM "projects" WHERE "id" = ${owner.projectId} FOR UPDATE`;
    else await tx.$queryRaw`SELECT "id" FROM "namespaces" WHERE "id" = ${owner.groupId} FOR UPDATE`;
  }

  private async nextIid(tx: Prisma.TransactionClient, owner: { projectId: number } | { groupId: number }): Promise<number> {
    const { _max } = await tx.milestone.aggregate({ where: owner, _max: { iid: true } });
    return (_max.iid ?? 0) + 1;
  }

  private event(parent: TimeboxParent, milestone: MilestoneRow, action: 'created' | 'closed' | 'reopened' | 'destroyed', tx: Prisma.TransactionClient) {
    const viewer = this.base.access.requireViewer();
    return this.activity.record(
      {
        action,
        authorId: viewer.id,
        project: 'project' in parent ? parent.project : null,
        groupId: 'group' in parent ? parent.group.id : null,
        targetType: 'Milestone',
        targetId: milestone.id,
        targetIid: milestone.iid,
        targetTitle: milestone.title,
      },
      tx,
    );
  }

  async create(parent: TimeboxParent, input: MilestoneInput): Promise<MilestoneRow> {
    await this.base.access.authorize('admin_milestone', parentSubject(parent));
    const draft = { title: input.title.trim(), description: input.description ?? null, startDate: dateOf(input.startDate), dueDate: dateOf(input.dueDate) };
    const owner = this.owner(parent);
    return this.db.$transaction(async (tx) => {
      await this.lock(tx, owner);
      const errors = milestoneErrors(draft);
      if (!errors.title && (await this.titleTaken(tx, parent, draft.title))) errors.title = ['already being used for another group or project milestone.'];
      if (Object.keys(errors).length) throw invalid(errors, { failure: 'Failed to create milestone' });
      const milestone = await tx.milestone.create({ data: { ...draft, ...owner, iid: await this.nextIid(tx, owner) } });
      await this.event(parent, milestone, 'created', tx);
      return milestone;
    });
  }

  async update(parent: TimeboxParent, id: number, changes: MilestoneChanges): Promise<MilestoneRow> {
    await this.base.access.authorize('admin_milestone', parentSubject(parent));
    const given = [changes.title, changes.description, changes.startDate, changes.dueDate, changes.stateEvent].some((v) => v !== undefined && v !== null);
    if (!given) throw atLeastOneOf('title', 'description', 'startDate', 'dueDate', 'stateEvent');
    if (changes.stateEvent != null && changes.stateEvent !== 'close' && changes.stateEvent !== 'activate') throw invalidArgument('stateEvent');
    const milestone = await this.get(parent, id);
    const data: Prisma.MilestoneUpdateInput = {};
    if (changes.title != null) data.title = changes.title.trim();
    if (changes.description !== undefined) data.description = changes.description;
    if (changes.startDate !== undefined) data.startDate = dateOf(changes.startDate);
    if (changes.dueDate !== undefined) data.dueDate = dateOf(changes.dueDate);
    const state = changes.stateEvent === 'close' ? 'closed' : changes.stateEvent === 'activate' ? 'active' : milestone.state;
    if (state !== milestone.state) data.state = state;
    return this.db.$transaction(async (tx) => {
      const merged = { ...milestone, ...(data as Partial<MilestoneRow>) };
      const errors = milestoneErrors(merged);
      if (!errors.title && merged.title !== milestone.title && (await this.titleTaken(tx, parent, merged.title, milestone.id))) {
        errors.title = ['already being used for another group or project milestone.'];
      }
      if (Object.keys(errors).length) throw invalid(errors, { failure: 'Failed to update milestone' });
      const updated = await tx.milestone.update({ where: { id: milestone.id }, data });
      if (data.state) await this.event(parent, updated, state === 'closed' ? 'closed' : 'reopened', tx);
      return updated;
    });
  }

  async destroy(parent: TimeboxParent, id: number): Promise<MilestoneRow> {
    await this.base.access.authorize('admin_milestone', parentSubject(parent));
    const milestone = await this.get(parent, id);
    return this.db.$transaction(async (tx) => {
      // Issues and merge requests will lose the milestone with it (their foreign keys set it null).
      await tx.milestone.delete({ where: { id: milestone.id } });
      await this.event(parent, milestone, 'destroyed', tx);
      return milestone;
    });
  }

  /**
   * GitLab's Milestones::PromoteService: a group milestone of the project milestone's title, dates and description
   * takes the place of every milestone of that title in the group's projects, which are deleted.
   */
  async promote(parent: TimeboxParent, id: number): Promise<MilestoneRow> {
    if (!('project' in parent)) throw badRequest(PROMOTE_NO_GROUP);
    await this.base.access.authorize('admin_milestone', parentSubject(parent));
    const group = parent.project.namespace;
    if (group.kind !== 'group') throw badRequest(PROMOTE_NO_GROUP);
    await this.base.access.authorize('admin_milestone', { group });
    const milestone = await this.get(parent, id);
    return this.db.$transaction(async (tx) => {
      await this.lock(tx, { groupId: group.id });
      if (await tx.milestone.count({ where: { groupId: group.id, title: milestone.title } })) {
        throw badRequest('Promotion failed - A group milestone with this title already exists.');
      }
      await tx.milestone.deleteMany({ where: { title: milestone.title, project: { namespaceId: group.id } } });
      const owner = { groupId: group.id };
      const { title, description, startDate, dueDate, state } = milestone;
      return tx.milestone.create({ data: { title, description, startDate, dueDate, state, ...owner, iid: await this.nextIid(tx, owner) } });
    });
  }

  /**
   * TimeboxReportResolver's scope: the group (read by the viewer) and its subgroups' projects, or the project whose
   * issues the viewer reads, named by full path; none without one. Anything else is GitLab's ResourceNotAvailable.
   */
  async reportScope(fullPath: string | null | undefined): Promise<TimeboxScope> {
    if (!fullPath) return null;
    const group = await this.groups.find({ path: fullPath });
    if (group) return { groupId: group.id };
    const project = await this.projects.find({ path: fullPath }, { followRedirects: false });
    if (project && (await this.base.access.can('read_project_issues', project))) return { projectId: project.id };
    throw notFoundAs(RESOURCE_NOT_AVAILABLE);
  }

  /** A timebox's report (TimeboxReportService), its issues' events replayed; milestones and iterations alike. */
  async timeboxReport(timebox: Timebox & { kind: 'milestone' | 'iteration' }, fullPath: string | null | undefined): Promise<TimeboxReport> {
    const scope = await this.reportScope(fullPath);
    const refusal = reportRefusal(timebox, timebox.kind === 'milestone' ? 'Milestone' : 'Iteration');
    if (refusal) return refusal;
    return replayTimebox(timebox, await this.events.timeboxEvents(timebox, reportEnd(timebox)!, scope));
  }

  /** Milestone.report. */
  report(milestone: MilestoneRow, fullPath: string | null | undefined): Promise<TimeboxReport> {
    return this.timeboxReport({ kind: 'milestone', id: milestone.id, startDate: milestone.startDate, dueDate: milestone.dueDate }, fullPath);
  }
}

