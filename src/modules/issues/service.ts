/**
 * Owns issues (GitLab's Issue), numbered by iid within their project, with their assignees and label links: the
 * Issues API of projects, groups and the instance (IssuesFinder's filters and orders), create, update with state
 * events and label changes, delete, and their activity events.
 */
import { byKeyLoader } from '../../db/loader.js';
import { railsDate } from '../../days.js';
import type { Prisma } from '../../db/database.js';
import { atLeastOneOf, badRequest, conflict, forbidden, invalid, invalidArgument, notFound, recordNotFound, serviceError } from '../../errors.js';
import { connection, type PageArgs } from '../../graphql/connection.js';
import type { ActivityService } from '../activity/service.js';
import { can } from '../../auth/policy.js';
import { liveActor } from '../../auth/memberships.js';
import { enqueueHookEvent, hookHeard } from '../hooks/events.js';
import { issueData, issueHookAttrs, type HookIssue, type IssueHookAction } from '../hooks/payloads.js';
import { hookProjectOf } from '../hooks/samples.js';
import { ISSUE_UPDATED, issueOfMessage, type IssuablePart, type IssueUpdatedMessage } from './live.js';
import { labelCountLoader, type LabelInParent } from '../labels/loaders.js';
import type { LabelsService } from '../labels/service.js';
import { issueIterationConditions, type IssueIterationFilters } from '../iterations/filters.js';
import { issueFilterConditions, type IssueOnlyFilters } from './filters.js';
import { markIssuableSlaClosed, startIssuableSla } from '../incident_management/sla.js';
import { resolveIncidentAlerts } from '../alert_management/incidents.js';
import type { EscalationStatus, HealthStatus, IssueType, Severity } from './incidents.js';
import type { ServiceBase } from '../module.js';
import type { NamespaceRow } from '../namespaces/service.js';
import type { ProjectRow } from '../projects/service.js';
import type { TodosService } from '../todos/service.js';
import type { ResourceEventsService } from '../resource_events/service.js';
import type { NotesService } from '../notes/service.js';
import { issueRowInclude, issueSubjectOf, type IssueSubject } from './policy.js';

export { issueRowInclude };
import { SubscriptionsService } from '../subscriptions/service.js';
import { existingUsers, lockForIid, usableMilestone } from './issuable.js';
import { IssueMoves, referenceBase } from './move.js';
import { logTime, TimelogsService, type Spend } from './timelogs.js';
import { positionAtStart, positionBetween, spreadPosition } from './positions.js';

export const ISSUE = 'Issue';

export type IssueRow = Prisma.IssueGetPayload<{ include: typeof issueRowInclude }>;


/** Where a list looks: one project, a group's projects (its subgroups' too), or every project the viewer may read. */
export type IssueScope = { project: ProjectRow } | { group: NamespaceRow } | { all: true };

export type IssueOrderBy =
  | 'created_at'
  | 'updated_at'
  | 'closed_at'
  | 'priority'
  | 'due_date'
  | 'relative_position'
  | 'label_priority'
  | 'milestone_due'
  | 'popularity'
  | 'weight'
  | 'title'
  | 'severity'
  | 'escalation_status'
  | 'blocking_issues'
  | 'health_status'
  | 'sla_due_at'
  | 'published';

/** IssuesFinder's filters, as the Issues API names them (REST) and GraphQL's `issues` arguments fill them. */
export interface IssueFilters extends IssueOnlyFilters {
  state?: 'opened' | 'closed' | 'all' | 'locked' | null;
  /** Label titles every issue must carry; `None` for none, `Any` for at least one. */
  labels?: readonly string[] | null;
  /** A milestone title; `None`, `Any`, `Upcoming`, `Started`. */
  milestone?: string | null;
  /** A user id, `None` or `Any`. */
  assigneeId?: string | null;
  assigneeUsernames?: readonly string[] | null;
  authorId?: number | null;
  authorUsername?: string | null;
  search?: string | null;
  scope?: 'created_by_me' | 'assigned_to_me' | 'all' | null;
  createdAfter?: Date | null;
  createdBefore?: Date | null;
  updatedAfter?: Date | null;
  updatedBefore?: Date | null;
  iids?: readonly number[] | null;
  confidential?: boolean | null;
  /** EE's health_status filter: `none`, `any` or one status. */
  healthStatus?: HealthStatus | 'none' | 'any' | null;
  /** IssuesFinder's `issue_types`: issues of these types (an empty list: none). */
  types?: readonly IssueType[] | null;
  /** Issuables::CrmContactFilter and CrmOrganizationFilter: a contact's id, or an organization's its contacts carry. */
  crmContactId?: string | null;
  crmOrganizationId?: string | null;
  /** EE's iteration filters (`iteration_id`, `iteration_title`, wildcards, cadences): the iterations module's conditions. */
  iteration?: IssueIterationFilters | null;
  orderBy?: IssueOrderBy | null;
  sort?: 'asc' | 'desc' | null;
}

export interface IssueInput {
  title: string;
  description?: string | null;
  labels?: readonly string[] | null;
  labelIds?: readonly number[] | null;
  assigneeIds?: readonly number[] | null;
  milestoneId?: number | null;
  confidential?: boolean | null;
  dueDate?: string | null;
  weight?: number | null;
  createdAt?: string | null;
  discussionLocked?: boolean | null;
  /** `incident` where the user may create incidents (`create_incident`); an issue otherwise. */
  issueType?: IssueType | null;
  healthStatus?: HealthStatus | null;
  /** The iid to take (`set_issue_iid`: administrators and Owners; silently the next one for others). */
  iid?: number | null;
  /** Issues of the project to place the new one after (`before`) and before (`after`): createIssue's moveBeforeId/moveAfterId. */
  moveBetween?: { before: number | null; after: number | null } | null;
}

export interface IssueChanges {
  title?: string | null;
  description?: string | null;
  labels?: readonly string[] | null;
  addLabels?: readonly string[] | null;
  removeLabels?: readonly string[] | null;
  labelIds?: readonly number[] | null;
  addLabelIds?: readonly number[] | null;
  removeLabelIds?: readonly number[] | null;
  assigneeIds?: readonly number[] | null;
  /** Present with null or 0: the milestone is removed. */
  milestoneId?: number | null;
  stateEvent?: string | null;
  confidential?: boolean | null;
  weight?: number | null;
  dueDate?: string | null;
  discussionLocked?: boolean | null;
  updatedAt?: string | null;
  issueType?: IssueType | null;
  /** Present with null: the health status is removed. */
  healthStatus?: HealthStatus | null;
  /** An incident's severity (issueSetSeverity); ignored for other issues, as Issues::UpdateService#filter_severity. */
  severity?: Severity | null;
  /** An incident's escalation status (issueSetEscalationStatus). */
  escalationStatus?: EscalationStatus | null;
  /** Time estimate in seconds (updateIssue's `timeEstimate`; 0 removes it). */
  timeEstimate?: number | null;
}

/** The comma-separated lists REST gives (`labels=a,b` or `labels[]=a&labels[]=b`), as one list of names. */
export function splitNames(values: readonly string[] | null | undefined): string[] | null {
  if (values == null) return null;
  return values.flatMap((v) => v.split(',')).map((v) => v.trim()).filter(Boolean);
}

/**
 * The REST API's deprecated `assignee_id` (API::Helpers::CommonHelpers#convert_parameters_from_legacy_format): when
 * given it replaces `assignee_ids` with itself, `0` meaning none; otherwise `assignee_ids` stands as given.
 */
export function legacyAssignees<T extends readonly number[] | null | undefined>(assigneeId: number | null | undefined, assigneeIds: T): number[] | T {
  if (assigneeId == null) return assigneeIds;
  return assigneeId > 0 ? [assigneeId] : [];
}

const dateOf = railsDate;

/** The types an issue may be given without a licence (`create_issue_type_allowed?`): an incident only by those who may create incidents. */
const CREATABLE_TYPES: readonly IssueType[] = ['issue', 'incident'];

function timeOf(value: string | null | undefined, argument: string): Date | null {
  if (!value) return null;
  const time = new Date(value);
  if (Number.isNaN(time.getTime())) throw invalidArgument(argument);
  return time;
}

/** Issue's validations, in Rails' words by field. */
function issueErrors(issue: { title: string; weight: number | null; description: string | null }): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  if (!issue.title.trim()) errors.title = ["can't be blank"];
  else if (issue.title.length > 255) errors.title = ['is too long (maximum is 255 characters)'];
  if (issue.description && issue.description.length > 1_048_576) errors.description = ['is too long (maximum is 1048576 characters)'];
  if (issue.weight !== null && issue.weight < 0) errors.weight = ['must be greater than or equal to 0'];
  return errors;
}

export const issueSubject = (project: ProjectRow, issue: IssueRow): IssueSubject => issueSubjectOf(project, issue);

/** The parts of an issue that differ between two readings (what its subscriptions hear). */
function changedParts(before: HookIssue, after: HookIssue): IssuablePart[] {
  const ids = (rows: readonly { id: number }[]) => rows.map((r) => r.id).join(',');
  const differs: Record<IssuablePart, boolean> = {
    title: before.title !== after.title,
    description: before.description !== after.description,
    labels: ids(before.labels) !== ids(after.labels),
    assignees: ids(before.assignees) !== ids(after.assignees),
    dates: before.dueDate?.getTime() !== after.dueDate?.getTime(),
    milestone: before.milestoneId !== after.milestoneId,
    weight: before.weight !== after.weight,
    healthStatus: before.healthStatus !== after.healthStatus,
    // Issue updates never change the epic themselves: the epics module announces its own.
    epic: false,
    state: before.state !== after.state,
    confidential: before.confidential !== after.confidential,
    timeTracking: before.timeEstimate !== after.timeEstimate || before.totalTimeSpent !== after.totalTimeSpent,
    // Issue updates never change contacts: issueSetCrmContacts announces its own.
    crmContacts: false,
  };
  return (Object.keys(differs) as IssuablePart[]).filter((part) => differs[part]);
}

export class IssuesService {
  constructor(
    private readonly base: ServiceBase,
    private readonly labels: LabelsService,
    private readonly activity: ActivityService,
    private readonly todos: TodosService,
    private readonly events: ResourceEventsService,
    private readonly notes: NotesService,
  ) {}

  private get db() {
    return this.base.db;
  }

  private countsByLabel?: ReturnType<typeof labelCountLoader<'opened' | 'closed'>>;

  /** How many open and closed issues the viewer may read carry a label where it is listed (Label#open_issues_count). */
  labelCounts(label: LabelInParent): Promise<{ opened: number; closed: number }> {
    this.countsByLabel ??= labelCountLoader(this.db, 'issue', ['opened', 'closed'], () => this.base.access.where('read_issue'));
    return this.countsByLabel.load(label);
  }

  private async projectOf(issue: IssueRow): Promise<ProjectRow> {
    const project = await this.base.loaders.projects.byId.load(issue.projectId);
    if (!project) throw notFound('Project');
    return project;
  }

  /** The subject an issue's abilities are asked of. */
  async subject(issue: IssueRow): Promise<IssueSubject> {
    return issueSubject(await this.projectOf(issue), issue);
  }

  /** Whether the viewer may read the issue (GitLab's `read_issue`). */
  async canRead(issue: IssueRow): Promise<boolean> {
    return this.base.access.can('read_issue', await this.subject(issue));
  }

  /** One of the project's issues by iid, as the viewer may read it; `404 Issue Not Found` otherwise. */
  async get(project: ProjectRow, iid: number): Promise<IssueRow> {
    const issue = await this.find(project, iid);
    if (!issue) throw notFound('Issue');
    return issue;
  }

  /** The project's issue by iid when the viewer may read it; null otherwise. */
  async find(project: ProjectRow, iid: number): Promise<IssueRow | null> {
    const issue = await this.db.issue.findUnique({ where: { projectId_iid: { projectId: project.id, iid } }, include: issueRowInclude });
    if (!issue || !(await this.base.access.can('read_issue', issueSubject(project, issue)))) return null;
    return issue;
  }

  /** Of the project's issues with these iids, those the viewer may read (`#12` references). */
  async readableByIids(project: ProjectRow, iids: readonly number[]): Promise<IssueRow[]> {
    const issues = (await this.byProjectIid.loadMany(iids.map((iid) => `${project.id}:${iid}`))).filter((issue): issue is IssueRow => issue !== null && !(issue instanceof Error));
    const readable = await Promise.all(issues.map((issue) => this.base.access.can('read_issue', issueSubject(project, issue))));
    return issues.filter((_, i) => readable[i]);
  }

  /** Issues by `projectId:iid`, batched: the references of a page of texts (every descriptionHtml of a list) in one query. */
  private readonly byProjectIid = byKeyLoader<string, IssueRow>(
    (keys: readonly string[]) =>
      this.db.issue.findMany({ where: { OR: keys.map((k) => ({ projectId: Number(k.split(':')[0]), iid: Number(k.split(':')[1]) })) }, include: issueRowInclude }),
    (issue) => `${issue.projectId}:${issue.iid}`,
  );

  /** An issue by its id when the viewer may read it (GraphQL's global IDs); null otherwise. */
  async byId(id: number): Promise<IssueRow | null> {
    const issue = await this.db.issue.findUnique({ where: { id }, include: issueRowInclude });
    if (!issue) return null;
    const project = await this.base.loaders.projects.byId.load(issue.projectId);
    if (!project || project.pendingDelete || !(await this.base.access.can('read_issue', issueSubject(project, issue)))) return null;
    return issue;
  }

  /** Of these issue ids, those the viewer may read (`read_issue`), in one query: their activity events' check. */
  async readableIds(ids: readonly number[]): Promise<Set<number>> {
    const rows = await this.db.issue.findMany({
      where: { AND: [{ id: { in: [...ids] } }, await this.base.access.where('read_issue'), { project: { pendingDelete: false } }] },
      select: { id: true },
    });
    return new Set(rows.map((r) => r.id));
  }

  /** The issues a merge request closes (its closing references) that the viewer may read, oldest first. */
  async referencedBy(mergeRequestId: number, page: PageArgs, closingOnly = true) {
    const reference: Prisma.IssueWhereInput = { mergeRequestReferences: { some: closingOnly ? { mergeRequestId, closes: true } : { mergeRequestId } } };
    const where: Prisma.IssueWhereInput = {
      AND: [await this.base.access.where('read_issue'), { project: { pendingDelete: false } }, reference],
    };
    return connection(
      page,
      ({ skip, take }) => this.db.issue.findMany({ where, orderBy: [{ id: 'asc' }], skip, take, include: issueRowInclude }),
      () => this.db.issue.count({ where }),
    );
  }

  /**
   * IssuesFinder's conditions for the scope and filters: what the viewer may read, in the scope (`scope` defaults to
   * `created_by_me` across the instance, `all` in a project or group), then the filters; `state` left to the caller.
   */
  private async where(scope: IssueScope, filters: IssueFilters): Promise<Prisma.IssueWhereInput[]> {
    const viewer = this.base.viewer;
    const listScope = filters.scope ?? ('all' in scope ? 'created_by_me' : 'all');
    if ('all' in scope && listScope !== 'all') this.base.access.requireViewer();
    const and: Prisma.IssueWhereInput[] = [await this.base.access.where('read_issue'), { project: { pendingDelete: false } }];
    if ('project' in scope) and.push({ projectId: scope.project.id });
    if ('group' in scope) and.push({ project: { namespace: { traversalIds: { has: scope.group.id } } } });
    if (listScope === 'created_by_me' && viewer) and.push({ authorId: viewer.id });
    if (listScope === 'assigned_to_me' && viewer) and.push({ assignees: { some: { userId: viewer.id } } });
    if (filters.confidential != null) and.push({ confidential: filters.confidential });
    if (filters.types) and.push({ issueType: { in: [...filters.types] } });
    if (filters.healthStatus === 'none') and.push({ healthStatus: null });
    else if (filters.healthStatus === 'any') and.push({ healthStatus: { not: null } });
    else if (filters.healthStatus) and.push({ healthStatus: filters.healthStatus });
    // An id that is no number names no contact (ActiveRecord casts it to nothing).
    const crmId = (id: string) => (/^\d{1,9}$/.test(id.trim()) ? Number(id) : -1);
    if (filters.crmContactId) and.push({ crmContacts: { some: { contactId: crmId(filters.crmContactId) } } });
    if (filters.crmOrganizationId) and.push({ crmContacts: { some: { contact: { organizationId: crmId(filters.crmOrganizationId) } } } });
    if (filters.iteration) and.push(...issueIterationConditions(filters.iteration));
    and.push(...(await issueFilterConditions(this.db, viewer?.id ?? null, filters)));
    return and;
  }

  /** The issues of the scope with IssuesFinder's filters and order. */
  async list(scope: IssueScope, filters: IssueFilters, page: PageArgs) {
    const and = await this.where(scope, filters);
    if (filters.state === 'opened' || filters.state === 'closed') and.push({ state: filters.state });
    if (filters.state === 'locked') and.push({ discussionLocked: true });
    // EE's sort_by_attribute sorts by SLA `with_feature(:sla)`: incidents only.
    if (filters.orderBy === 'sla_due_at') and.push({ issueType: 'incident' });
    const where: Prisma.IssueWhereInput = { AND: and };
    const orderBy = this.order(filters.orderBy ?? 'created_at', filters.sort ?? 'desc');
    return connection(
      page,
      ({ skip, take }) =>
        filters.orderBy === 'sla_due_at' ? this.bySlaDueAt(where, filters.sort ?? 'desc', skip, take) : this.db.issue.findMany({ where, orderBy, skip, take, include: issueRowInclude }),
      () => this.db.issue.count({ where }),
    );
  }

  /**
   * Gitlab::IssuablesCountForState over IssuesFinder (the Issues API's issues statistics, Project.issueStatusCounts):
   * how many issues the viewer may read match the filters, by state, whatever `state` says; counted in one query.
   */
  async statusCounts(scope: IssueScope, filters: IssueFilters): Promise<{ all: number; opened: number; closed: number }> {
    const where: Prisma.IssueWhereInput = { AND: await this.where(scope, filters) };
    const rows = await this.db.issue.groupBy({ by: ['state'], where, _count: { _all: true } });
    const of = (state: string) => rows.find((r) => r.state === state)?._count._all ?? 0;
    return { all: rows.reduce((sum, r) => sum + r._count._all, 0), opened: of('opened'), closed: of('closed') };
  }

  /**
   * The Issues API's `GET /issues/:id` (administrators only, `authenticated_as_admin!`): any issue by its id, whatever
   * its project; `Issue.find`'s `404 Not found` when there is none.
   */
  async adminById(id: number): Promise<IssueRow> {
    this.base.access.requireViewer();
    if (!this.base.access.allowed('admin_all_resources')) throw forbidden();
    const issue = await this.db.issue.findUnique({ where: { id }, include: issueRowInclude });
    if (!issue) throw recordNotFound();
    return issue;
  }

  /**
   * EE's order_sla_due_at_asc/desc: by the SLA's due time, `NULLS LAST` either way, ties newest first. Prisma cannot
   * put a missing relation row last when descending, so the page is read from the incidents with an SLA first and
   * continues into those without one.
   */
  private async bySlaDueAt(where: Prisma.IssueWhereInput, sort: 'asc' | 'desc', skip: number, take: number): Promise<IssueRow[]> {
    const withSla: Prisma.IssueWhereInput = { AND: [where, { issuableSla: { isNot: null } }] };
    const first = await this.db.issue.findMany({ where: withSla, orderBy: [{ issuableSla: { dueAt: sort } }, { id: 'desc' }], skip, take, include: issueRowInclude });
    if (first.length === take) return first;
    // The page reaches past the incidents with an SLA: it goes on from the first without one, or from where the
    // page starts among them.
    const offset = first.length ? 0 : Math.max(0, skip - (await this.db.issue.count({ where: withSla })));
    const rest = await this.db.issue.findMany({
      where: { AND: [where, { issuableSla: { is: null } }] },
      orderBy: [{ id: 'desc' }],
      skip: offset,
      take: take - first.length,
      include: issueRowInclude,
    });
    return [...first, ...rest];
  }


  private order(orderBy: IssueOrderBy, sort: 'asc' | 'desc'): Prisma.IssueOrderByWithRelationInput[] {
    const id = { id: sort } as const;
    switch (orderBy) {
      case 'updated_at':
        return [{ updatedAt: sort }, id];
      case 'title':
        return [{ title: sort }, id];
      case 'closed_at':
        return [{ closedAt: { sort, nulls: 'last' } }, id];
      case 'due_date':
        return [{ dueDate: { sort, nulls: 'last' } }, id];
      case 'weight':
        return [{ weight: { sort, nulls: 'last' } }, id];
      case 'priority':
      case 'label_priority':
      case 'milestone_due':
        // Soonest milestone first (GitLab's priority and milestone_due orders), then the newest.
        return [{ milestone: { dueDate: { sort: 'asc', nulls: 'last' } } }, { createdAt: sort }, id];
      case 'relative_position':
        // Issue.order_relative_position_asc: placed issues by position, the unplaced last, then by id.
        return [{ relativePosition: { sort: 'asc', nulls: 'last' } }, { id: 'asc' }];
      // Issue.order_severity_asc/desc: by the incident's severity, those without one first ascending and last
      // descending; order_escalation_status_*, EE's order_health_status_* and order_blocking_issues_*: nulls last.
      // Ties go newest first, as GitLab's with_order_id_desc.
      case 'severity':
        return [{ severity: { sort, nulls: sort === 'asc' ? 'first' : 'last' } }, { id: 'desc' }];
      case 'escalation_status':
        return [{ escalationStatus: { sort, nulls: 'last' } }, { id: 'desc' }];
      case 'health_status':
        return [{ healthStatus: { sort, nulls: 'last' } }, { id: 'desc' }];
      case 'blocking_issues':
        return [{ blockingIssuesCount: sort }, { id: 'desc' }];
      // EE's order_status_page_published_last/first: by the incident's status page publication (its id ascending, nulls
      // last, for published first; descending, nulls first, for published last), ties newest first. No issue is
      // published here (there is no status page), so every publication is null and the tie-breaker is the order.
      case 'published':
        return [{ id: 'desc' }];
      case 'popularity':
      case 'created_at':
      default:
        return [{ createdAt: sort }, id];
    }
  }

  private async labelIdsFor(project: ProjectRow, titles: readonly string[] | null | undefined, ids: readonly number[] | null | undefined): Promise<number[]> {
    const byTitle = titles?.length ? await this.labels.findOrCreateByTitles(project, titles, true) : [];
    const byId = ids?.length ? await this.labels.availableByIds(project, ids) : [];
    return [...new Set([...byTitle, ...byId].map((l) => l.id))];
  }

  /** Records the issue's event; who sees it is its readers (activity.ts), so a confidential issue's are recorded too. */
  private event(project: ProjectRow, issue: { id: number; iid: number; title: string }, action: 'created' | 'closed' | 'reopened', tx: Prisma.TransactionClient, authorId?: number) {
    return this.activity.record(
      { action, authorId: authorId ?? this.base.access.requireViewer().id, project, targetType: ISSUE, targetId: issue.id, targetIid: issue.iid, targetTitle: issue.title },
      tx,
    );
  }

  async create(project: ProjectRow, input: IssueInput): Promise<IssueRow> {
    const viewer = this.base.access.requireViewer();
    await this.base.access.authorize('create_issue', project);
    const metadata = await this.base.access.can('set_issue_metadata', project);
    const createdAt = input.createdAt && (await this.base.access.can('set_issue_created_at', project)) ? timeOf(input.createdAt, 'createdAt') : null;
    const issueType: IssueType = input.issueType === 'incident' && (await this.base.access.can('create_incident', project)) ? 'incident' : 'issue';
    const draft = {
      issueType,
      // An incident starts triggered (IncidentManagement::IssuableEscalationStatuses::CreateService).
      escalationStatus: issueType === 'incident' ? ('triggered' as const) : null,
      healthStatus: metadata ? (input.healthStatus ?? null) : null,
      title: input.title.trim(),
      description: input.description ?? null,
      confidential: input.confidential ?? false,
      discussionLocked: input.discussionLocked ?? null,
      weight: metadata ? (input.weight ?? null) : null,
      dueDate: metadata ? dateOf(input.dueDate) : null,
    };
    const errors = issueErrors(draft);
    if (Object.keys(errors).length) throw invalid(errors);
    const milestoneId = metadata ? await usableMilestone(this.db, project, input.milestoneId) : null;
    const assigneeIds = metadata && input.assigneeIds ? await existingUsers(this.db, input.assigneeIds) : [];
    const labelIds = metadata ? await this.labelIdsFor(project, input.labels, input.labelIds) : [];
    const iid = input.iid != null && (await this.base.access.can('set_issue_iid', project)) ? input.iid : null;
    if (iid !== null && iid < 1) throw invalid({ iid: ['must be greater than 0'] });
    const created = await this.db.$transaction(async (tx) => {
      await lockForIid(tx, project.id);
      if (iid !== null && (await tx.issue.count({ where: { projectId: project.id, iid } }))) throw conflict('Duplicated issue');
      const { _max } = iid === null ? await tx.issue.aggregate({ where: { projectId: project.id }, _max: { iid: true } }) : { _max: { iid: iid - 1 } };
      const at = createdAt ?? new Date();
      const relativePosition = input.moveBetween ? await this.placeBetween(tx, project, input.moveBetween) : null;
      const issue = await tx.issue.create({
        data: {
          ...draft,
          projectId: project.id,
          iid: (_max.iid ?? 0) + 1,
          relativePosition,
          authorId: viewer.id,
          milestoneId,
          createdAt: at,
          updatedAt: at,
          assignees: { create: assigneeIds.map((userId) => ({ userId })) },
        },
        include: issueRowInclude,
      });
      if (labelIds.length) await tx.labelLink.createMany({ data: labelIds.map((labelId) => ({ labelId, issueId: issue.id })) });
      await startIssuableSla(tx, issue);
      await this.events.issuables.created(tx, issue, labelIds, viewer.id);
      await this.event(project, issue, 'created', tx);
      await this.announce(tx, project, null, issue.id, 'open');
      return issue;
    });
    await this.todos.issueChanged(project, null, created);
    return created;
  }

  /**
   * Issues::BaseService#handle_move_between_ids on a new issue: the position between the project's issues `before`
   * and `after` (ids; one missing from the project counts as none), as RelativePositioning#move_between. A neighbour
   * not yet placed is placed first at the end of the project's issues, as Issues::PlacementWorker would have; no room
   * left between the two spreads the project's placed issues out again (rebalancing) first. Null when neither is found.
   */
  private async placeBetween(tx: Prisma.TransactionClient, project: ProjectRow, ids: { before: number | null; after: number | null }): Promise<number | null> {
    const wanted = [ids.before, ids.after].filter((id): id is number => id !== null);
    const found = wanted.length ? await tx.issue.findMany({ where: { projectId: project.id, id: { in: wanted } }, select: { id: true, relativePosition: true } }) : [];
    const placed = async (id: number | null): Promise<number | null> => {
      const row = found.find((r) => r.id === id);
      if (!row) return null;
      if (row.relativePosition !== null) return row.relativePosition;
      const { _max } = await tx.issue.aggregate({ where: { projectId: project.id }, _max: { relativePosition: true } });
      const position = _max.relativePosition === null ? positionAtStart(null) : (positionBetween(_max.relativePosition, null) ?? _max.relativePosition);
      await tx.issue.update({ where: { id: row.id }, data: { relativePosition: position } });
      row.relativePosition = position;
      return position;
    };
    const before = await placed(ids.before);
    const after = await placed(ids.after);
    if (before === null && after === null) return null;
    // move_between sorts the two neighbours by position: the new issue goes between them whichever way they came.
    const [low, high] = before !== null && after !== null && before > after ? [after, before] : [before, after];
    const between = positionBetween(low, high);
    if (between !== null) return between;
    await this.rebalance(tx, project);
    return this.placeBetween(tx, project, ids);
  }

  /**
   * Issues::ReorderService (`PUT …/issues/:issue_iid/reorder`, `update_issue`): the issue placed after the issue
   * `moveBeforeId` and before `moveAfterId` (ids of the project's issues; RelativePositioning#move_between). Neither
   * given is Grape's missing parameters; none of them found, or none positive, GitLab's 422 `Unprocessable Entity`.
   */
  async reorder(project: ProjectRow, iid: number, moveBeforeId: number | null, moveAfterId: number | null): Promise<IssueRow> {
    if (moveBeforeId === null && moveAfterId === null) throw atLeastOneOf('moveAfterId', 'moveBeforeId');
    const issue = await this.get(project, iid);
    await this.base.access.authorize('update_issue', issueSubject(project, issue));
    const positive = (id: number | null) => (id !== null && id > 0 && id !== issue.id ? id : null);
    const between = { before: positive(moveBeforeId), after: positive(moveAfterId) };
    return this.db.$transaction(async (tx) => {
      const position = between.before === null && between.after === null ? null : await this.placeBetween(tx, project, between);
      if (position === null) throw serviceError('Unprocessable Entity', 422);
      return tx.issue.update({ where: { id: issue.id }, data: { relativePosition: position }, include: issueRowInclude });
    });
  }

  /** RelativePositioning's rebalancing of a project's placed issues: the same order, IDEAL_DISTANCE apart around the middle. */
  private async rebalance(tx: Prisma.TransactionClient, project: ProjectRow): Promise<void> {
    const rows = await tx.issue.findMany({ where: { projectId: project.id, relativePosition: { not: null } }, orderBy: [{ relativePosition: 'asc' }, { id: 'asc' }], select: { id: true } });
    const anchor = Math.floor(rows.length / 2);
    for (const [index, row] of rows.entries()) await tx.issue.update({ where: { id: row.id }, data: { relativePosition: spreadPosition(index, anchor) } });
  }

  async update(project: ProjectRow, iid: number, changes: IssueChanges, requireSome = true): Promise<IssueRow> {
    const issue = await this.get(project, iid);
    // Grape's at_least_one_of counts a parameter given as null (`due_date: null` clears the date).
    const given = Object.values(changes).some((v) => v !== undefined);
    if (requireSome && !given) {
      throw atLeastOneOf('title', 'description', 'labels', 'addLabels', 'removeLabels', 'assigneeIds', 'milestoneId', 'stateEvent', 'confidential', 'weight', 'dueDate', 'discussionLocked');
    }
    const subject = issueSubject(project, issue);
    await this.base.access.authorize('update_issue', subject);
    const metadata = await this.base.access.can('admin_issue', subject);
    if (changes.stateEvent != null && changes.stateEvent !== 'close' && changes.stateEvent !== 'reopen') throw invalidArgument('stateEvent');
    const data: Prisma.IssueUncheckedUpdateInput = {};
    if (changes.title != null) data.title = changes.title.trim();
    if (changes.description != null) data.description = changes.description;
    if (changes.confidential != null && metadata) data.confidential = changes.confidential;
    if (changes.discussionLocked != null && metadata) data.discussionLocked = changes.discussionLocked;
    if (metadata && changes.weight !== undefined) data.weight = changes.weight;
    if (metadata && changes.dueDate !== undefined) data.dueDate = dateOf(changes.dueDate);
    if (metadata && changes.milestoneId !== undefined) data.milestoneId = await usableMilestone(this.db, project, changes.milestoneId);
    if (metadata && changes.healthStatus !== undefined) data.healthStatus = changes.healthStatus;
    if (metadata && changes.timeEstimate !== undefined && (changes.timeEstimate ?? 0) !== issue.timeEstimate) data.timeEstimate = changes.timeEstimate ?? 0;
    // Issues::BaseService#filter_params drops a type the user may not create: a licensed one (requirement, test case).
    const issueType = metadata && changes.issueType != null && CREATABLE_TYPES.includes(changes.issueType) ? changes.issueType : (issue.issueType as IssueType);
    if (issueType !== issue.issueType) data.issueType = issueType;
    const incident = issueType === 'incident';
    // Becoming an incident gives it an escalation status (CreateService); an incident's severity needs admin_issue.
    let escalation = (issue.escalationStatus as EscalationStatus | null) ?? (incident ? 'triggered' : null);
    if (incident && changes.escalationStatus != null) {
      await this.base.access.authorize('update_escalation_status', subject);
      escalation = changes.escalationStatus;
    }
    if (incident && metadata && changes.severity != null && changes.severity !== (issue.severity ?? 'unknown')) data.severity = changes.severity;
    const merged = { title: (data.title as string | undefined) ?? issue.title, description: issue.description, weight: data.weight === undefined ? issue.weight : (data.weight as number | null) };
    const errors = issueErrors(merged);
    if (Object.keys(errors).length) throw invalid(errors);
    const viewer = this.base.access.requireViewer();
    const state = changes.stateEvent === 'close' ? 'closed' : changes.stateEvent === 'reopen' ? 'opened' : issue.state;
    if (state !== issue.state) {
      data.state = state;
      data.closedAt = state === 'closed' ? new Date() : null;
      data.closedById = state === 'closed' ? viewer.id : null;
      // Issues::CloseService#resolve_incident: closing an incident resolves it.
      if (state === 'closed' && incident) escalation = 'resolved';
    }
    if (escalation !== issue.escalationStatus) data.escalationStatus = escalation;
    const assigneeIds = metadata && changes.assigneeIds != null ? await existingUsers(this.db, changes.assigneeIds) : null;
    let labelIds: number[] | null = null;
    const labelChange = { added: [] as number[], removed: [] as number[] };
    if (metadata) {
      const current = (await this.db.labelLink.findMany({ where: { issueId: issue.id }, select: { labelId: true } })).map((l) => l.labelId);
      const replace = changes.labels != null || changes.labelIds != null;
      let next = replace ? await this.labelIdsFor(project, changes.labels ?? [], changes.labelIds ?? []) : current;
      const add = await this.labelIdsFor(project, changes.addLabels, changes.addLabelIds);
      const removeTitles = changes.removeLabels?.length ? await this.labels.findOrCreateByTitles(project, changes.removeLabels, false) : [];
      const removeIds = changes.removeLabelIds?.length ? await this.labels.availableByIds(project, changes.removeLabelIds) : [];
      const remove = new Set([...removeTitles, ...removeIds].map((l) => l.id));
      next = [...new Set([...next, ...add])].filter((id) => !remove.has(id));
      const same = next.length === current.length && next.every((id) => current.includes(id));
      if (!same) labelIds = next;
      labelChange.added = next.filter((id) => !current.includes(id));
      labelChange.removed = current.filter((id) => !next.includes(id));
    }
    const updated = await this.db.$transaction(async (tx) => {
      const before = await this.hookIssue(tx, issue.id);
      const changed = Object.keys(data).length > 0 || assigneeIds !== null || labelIds !== null;
      // IssuableBaseService#update: a change touches the issue and names who made it (`updated_by`).
      if (changed) {
        data.updatedAt = new Date();
        data.updatedById = viewer.id;
      }
      if (labelIds !== null) {
        await tx.labelLink.deleteMany({ where: { issueId: issue.id, labelId: { notIn: labelIds } } });
        await tx.labelLink.createMany({ data: labelIds.map((labelId) => ({ labelId, issueId: issue.id })), skipDuplicates: true });
      }
      if (assigneeIds !== null) {
        await tx.issueAssignee.deleteMany({ where: { issueId: issue.id, userId: { notIn: assigneeIds } } });
        await tx.issueAssignee.createMany({ data: assigneeIds.map((userId) => ({ issueId: issue.id, userId })), skipDuplicates: true });
      }
      const updated = await tx.issue.update({ where: { id: issue.id }, data, include: issueRowInclude });
      if (data.issueType) await startIssuableSla(tx, updated);
      if (data.state) await markIssuableSlaClosed(tx, issue.id, state === 'closed');
      if (data.state === 'closed') await resolveIncidentAlerts(tx, this.base, issue.id);
      await this.events.issuables.updated(tx, issue, updated, labelChange, viewer.id);
      if (data.timeEstimate !== undefined) await this.events.issuables.timeTracked(tx, issue, updated, undefined, viewer.id);
      if (data.state) {
        await this.event(project, updated, state === 'closed' ? 'closed' : 'reopened', tx);
      }
      await this.announce(tx, project, before, issue.id, data.state ? (state === 'closed' ? 'close' : 'reopen') : 'update');
      return updated;
    });
    await this.todos.issueChanged(project, issue, updated);
    return updated;
  }

  /**
   * An incident made for an alert (IncidentManagement::Incidents::CreateService given an alert), written by `authorId`:
   * the user who asked (the caller checked they may create issues) or the alert bot. `title` gets the new iid (GitLab
   * renames an untitled alert's incident `New: Incident <iid>`); `link` runs in the issue's transaction.
   */
  async createIncident(
    project: ProjectRow,
    fields: { title: (iid: number) => string; description: string; severity: Severity },
    authorId: number,
    link: (tx: Prisma.TransactionClient, issue: IssueRow) => Promise<void>,
  ): Promise<IssueRow> {
    const created = await this.db.$transaction(async (tx) => {
      await lockForIid(tx, project.id);
      const { _max } = await tx.issue.aggregate({ where: { projectId: project.id }, _max: { iid: true } });
      const iid = (_max.iid ?? 0) + 1;
      const draft = { title: fields.title(iid).trim(), description: fields.description, weight: null };
      const errors = issueErrors(draft);
      if (Object.keys(errors).length) throw invalid(errors);
      const at = new Date();
      const issue = await tx.issue.create({
        data: {
          ...draft,
          issueType: 'incident',
          escalationStatus: 'triggered',
          severity: fields.severity,
          projectId: project.id,
          iid,
          authorId,
          createdAt: at,
          updatedAt: at,
        },
        include: issueRowInclude,
      });
      await startIssuableSla(tx, issue);
      await this.events.issuables.created(tx, issue, [], authorId);
      await this.event(project, issue, 'created', tx, authorId);
      await link(tx, issue);
      await this.announce(tx, project, null, issue.id, 'open', authorId);
      return issue;
    });
    // Mentions in the description are the asking user's; the alert bot makes no to-do items.
    if (this.base.viewer?.id === authorId) await this.todos.issueChanged(project, null, created);
    return created;
  }

  /**
   * Closes an incident whose alert the integration resolved (IncidentManagement::CloseIncidentWorker, as the alert bot
   * `userId`), with its close event and GitLab's note `automatically closed this incident because the alert resolved`.
   * Nothing when it is no longer an open incident. In the caller's transaction.
   */
  async closeResolvedIncident(tx: Prisma.TransactionClient, issueId: number, userId: number): Promise<void> {
    const issue = await tx.issue.findUnique({ where: { id: issueId }, include: issueRowInclude });
    if (!issue || issue.state !== 'opened' || issue.issueType !== 'incident') return;
    const project = await this.base.loaders.projects.byId.load(issue.projectId);
    if (!project) return;
    const before = await this.hookIssue(tx, issue.id);
    const at = new Date();
    const closed = await tx.issue.update({
      where: { id: issue.id },
      data: { state: 'closed', closedAt: at, closedById: userId, escalationStatus: 'resolved', updatedAt: at },
      include: issueRowInclude,
    });
    await markIssuableSlaClosed(tx, issue.id, true);
    await resolveIncidentAlerts(tx, this.base, issue.id);
    await this.events.recordStateChange(tx, { type: ISSUE, id: issue.id, projectId: issue.projectId, groupId: null }, 'closed', userId, at);
    await this.events.issuables.note(tx, closed, userId, 'automatically closed this incident because the alert resolved', at);
    await this.event(project, closed, 'closed', tx, userId);
    await this.announce(tx, project, before, issue.id, 'close', userId);
  }

  /** Time logged on issues and merge requests (timelogs.ts). */
  get timelogs(): TimelogsService {
    return (this.timelogService ??= new TimelogsService(this.base, this.events));
  }

  private timelogService?: TimelogsService;

  /** Moving and cloning issues to other projects (move.ts), announced as this service announces issues. */
  get moves(): IssueMoves {
    return (this.issueMoves ??= new IssueMoves(this.base, this.labels, this.events, {
      created: async (tx, project, issue) => {
        await startIssuableSla(tx, issue);
        await this.event(project, issue, 'created', tx);
        await this.announce(tx, project, null, issue.id, 'open');
      },
      close: async (tx, project, issue, data) => {
        const before = await this.hookIssue(tx, issue.id);
        const closed = await tx.issue.update({
          where: { id: issue.id },
          data: { ...data, state: 'closed', closedAt: new Date(), closedById: this.base.access.requireViewer().id, updatedAt: new Date() },
          include: issueRowInclude,
        });
        await markIssuableSlaClosed(tx, issue.id, true);
        await this.events.issuables.updated(tx, issue, closed, { added: [], removed: [] }, this.base.access.requireViewer().id);
        await this.event(project, closed, 'closed', tx);
        await this.announce(tx, project, before, issue.id, 'close');
        return closed;
      },
      committed: (project, before, after) => this.todos.issueChanged(project, before, after),
    }));
  }

  private issueMoves?: IssueMoves;

  /** Sets the issue's weight (GraphQL's issueSetWeight); null removes it. */
  setWeight(project: ProjectRow, iid: number, weight: number | null): Promise<IssueRow> {
    return this.update(project, iid, { weight }, false);
  }

  /**
   * Sets, adds or removes the issue's assignees by username (GraphQL's issueSetAssignees, operationMode REPLACE,
   * APPEND or REMOVE).
   */
  async setAssignees(project: ProjectRow, iid: number, usernames: readonly string[], mode: 'REPLACE' | 'APPEND' | 'REMOVE'): Promise<IssueRow> {
    const issue = await this.get(project, iid);
    await this.base.access.authorize('admin_issue', issueSubject(project, issue));
    const users = usernames.length ? await this.db.user.findMany({ where: { username: { in: [...usernames] } }, select: { id: true } }) : [];
    const named = users.map((u) => u.id);
    const current = issue.assignees.map((a) => a.userId);
    const next = mode === 'REPLACE' ? named : mode === 'APPEND' ? [...current, ...named] : current.filter((id) => !named.includes(id));
    return this.update(project, iid, { assigneeIds: next }, false);
  }

  async destroy(project: ProjectRow, iid: number): Promise<IssueRow> {
    const issue = await this.get(project, iid);
    await this.base.access.authorize('destroy_issue', issueSubject(project, issue));
    return this.db.$transaction(async (tx) => {
      await tx.note.deleteMany({ where: { noteableType: ISSUE, noteableId: issue.id } });
      await SubscriptionsService.forget(tx, ISSUE, issue.id);
      await this.events.deleteFor(tx, { type: ISSUE, id: issue.id });
      await tx.issue.delete({ where: { id: issue.id } });
      return issue;
    });
  }

  /**
   * Issues::DuplicateService for the issue at `iid` and its canonical issue (read by the caller): where the viewer may
   * update it, a system note (`marked this issue as a duplicate of #2`), its closing and `duplicated_to_id`; where they
   * may comment on the canonical one, a note there (`marked #1 as a duplicate of this issue`). Relating the two is the
   * caller's (the issue links service).
   */
  async markDuplicate(project: ProjectRow, iid: number, canonical: IssueRow): Promise<void> {
    const issue = await this.get(project, iid);
    if (issue.id === canonical.id) return;
    const viewer = this.base.access.requireViewer();
    const canonicalProject = await this.projectOf(canonical);
    if (await this.base.access.can('update_issue', issueSubject(project, issue))) {
      await this.db.$transaction((tx) =>
        this.events.issuables.note(tx, issue, viewer.id, `marked this issue as a duplicate of ${referenceBase(canonicalProject, project)}#${canonical.iid}`, new Date()),
      );
      if (issue.state !== 'closed') await this.update(project, iid, { stateEvent: 'close' }, false);
      await this.db.issue.update({ where: { id: issue.id }, data: { duplicatedToId: canonical.id } });
    }
    if (await this.mayComment(canonical)) {
      await this.db.$transaction((tx) =>
        this.events.issuables.note(tx, canonical, viewer.id, `marked ${referenceBase(project, canonicalProject)}#${issue.iid} as a duplicate of this issue`, new Date()),
      );
    }
  }

  /**
   * IssuePolicy's create_note on an issue: ProjectPolicy's create_note and read_issue, except on a locked discussion,
   * where only the project's members comment (IssuablePolicy's `locked & ~is_project_member`).
   */
  async mayComment(issue: IssueRow): Promise<boolean> {
    const project = await this.projectOf(issue);
    const subject = issueSubject(project, issue);
    if (!(await this.base.access.can('create_note', project)) || !(await this.base.access.can('read_issue', subject))) return false;
    return !issue.discussionLocked || this.base.access.can('issue_project_member', subject);
  }

  /**
   * The viewer's IssuePermissions: IssuePolicy's abilities on the issue. Designs need design management (LFS-backed
   * design repositories), which this server does not have, so GitLab's design abilities are all off; a locked
   * discussion prevents reopening (`locked` prevents reopen_issue).
   */
  async permissions(issue: IssueRow) {
    const subject = await this.subject(issue);
    const [readIssue, updateIssue, adminIssue, createNote] = await Promise.all([
      this.base.access.can('read_issue', subject),
      this.base.access.can('update_issue', subject),
      this.base.access.can('admin_issue', subject),
      this.mayComment(issue),
    ]);
    const design = false;
    return {
      readIssue,
      updateIssue,
      adminIssue,
      createNote,
      reopenIssue: updateIssue && !issue.discussionLocked,
      readDesign: design,
      createDesign: design,
      updateDesign: design,
      destroyDesign: design,
    };
  }

  /**
   * Noteable#commenters: authors of the issue's comments, by id; those whose every comment is internal only for those
   * who may read internal notes.
   */
  async commenters(issue: IssueRow): Promise<number[]> {
    const internal = this.projectOf(issue).then((project) => this.base.access.can('read_internal_note', project));
    return (await this.notes.commenterIds(ISSUE, issue.id, internal)).sort((a, b) => a - b);
  }

  /**
   * Project#emails_enabled? (Issue.emailsEnabled): projects keep no setting of their own here, so it is their
   * namespace's, off when the namespace or any group above it turned emails off (Namespace#emails_enabled?).
   */
  async emailsEnabled(issue: IssueRow): Promise<boolean> {
    const project = await this.projectOf(issue);
    const namespaces = await this.base.loaders.namespaces.byId.loadMany(project.namespace.traversalIds);
    return namespaces.every((n) => !n || n instanceof Error || n.emailsEnabled !== false);
  }

  /** Time tracking: the estimate in seconds (GitLab's `time_estimate`), 0 to reset. */
  async setTimeEstimate(project: ProjectRow, iid: number, seconds: number): Promise<IssueRow> {
    const issue = await this.get(project, iid);
    await this.base.access.authorize('admin_issue', issueSubject(project, issue));
    if (seconds < 0) throw badRequest('400 Bad request - Time estimate must have a valid format and be greater than or equal to zero.');
    return this.changeTracking(project, issue, async () => ({ timeEstimate: seconds }));
  }

  /**
   * Logs spent time as a timelog (negative subtracts, never below zero; `seconds` null resets it), with an optional
   * day it was spent on (`/spend 1h 2026-11-01`) and the note whose command logged it.
   */
  async addSpentTime(project: ProjectRow, iid: number, seconds: number | null, spend: Omit<Spend, 'seconds'> = {}): Promise<IssueRow> {
    const issue = await this.get(project, iid);
    await this.base.access.authorize('admin_issue', issueSubject(project, issue));
    const viewer = this.base.access.requireViewer();
    return this.changeTracking(project, issue, async (tx) => ({
      totalTimeSpent: await logTime(tx, this.events, { type: 'Issue', id: issue.id, projectId: project.id }, viewer.id, { ...spend, seconds }),
    }));
  }

  /** Writes a time tracking change and its announcement (an estimate's system note here, spent time's by logTime). */
  private changeTracking(project: ProjectRow, issue: IssueRow, change: (tx: Prisma.TransactionClient) => Promise<{ timeEstimate?: number; totalTimeSpent?: number }>): Promise<IssueRow> {
    const viewer = this.base.access.requireViewer();
    return this.db.$transaction(async (tx) => {
      const before = await this.hookIssue(tx, issue.id);
      const data = await change(tx);
      const updated = await tx.issue.update({ where: { id: issue.id }, data, include: issueRowInclude });
      if (data.timeEstimate !== undefined) await this.events.issuables.timeTracked(tx, issue, updated, undefined, viewer.id);
      await this.announce(tx, project, before, issue.id, 'update');
      return updated;
    });
  }

  /**
   * The sample of a project hook's test of issue events (TestHooks::ProjectService#issues_events_data): the newest
   * issue the viewer may read, as an `open` Issue Hook; null when there is none.
   */
  async hookSample(project: ProjectRow): Promise<unknown> {
    const { nodes } = await this.list({ project }, { state: 'all' }, { first: 1 });
    const [issue] = await nodes;
    if (!issue) return null;
    const viewer = this.base.access.requireViewer();
    const user = await this.db.user.findUniqueOrThrow({ where: { id: viewer.id }, select: { id: true, name: true, username: true, email: true } });
    const { externalUrl } = this.base.app.config;
    return issueData({ issue: await this.hookIssue(this.db, issue.id), before: null, action: 'open', project: hookProjectOf(project), user, externalUrl, sample: true });
  }

  /** The issue as hooks embed it (Issue#hook_attrs, Gitlab::HookData::IssueBuilder): a note hook's `issue`. */
  async hookAttrs(project: ProjectRow, issue: IssueRow, externalUrl: string) {
    return issueHookAttrs(await this.hookIssue(this.db, issue.id), project, externalUrl);
  }

  /** An issue as its hook data and change comparisons read it: its labels by title, its assignees in assignment order. */
  private async hookIssue(tx: Prisma.TransactionClient, id: number): Promise<HookIssue> {
    const user = { select: { id: true, name: true, username: true, email: true } } as const;
    const [row, links] = await Promise.all([
      tx.issue.findUniqueOrThrow({ where: { id }, include: { assignees: { include: { user }, orderBy: { createdAt: 'asc' } } } }),
      tx.labelLink.findMany({ where: { issueId: id }, include: { label: true } }),
    ]);
    const labels = links.map((l) => l.label).sort((a, b) => (a.title < b.title ? -1 : a.title > b.title ? 1 : a.id - b.id));
    return { ...row, labels, assignees: row.assignees.map((a) => a.user) };
  }

  /**
   * The one announcement of an issue's change, in its transaction (GitLab's Issues::BaseService#execute_hooks and
   * its GraphQL triggers): on commit, the bus message naming the parts that changed, which the issuable subscriptions
   * hear; and the Issue Hook (`confidential_issue_hooks` for a confidential issue) for the project's hooks that hear
   * it, with `changes` from `before` (null: the issue was just opened). Nothing when nothing changed.
   */
  private async announce(tx: Prisma.TransactionClient, project: ProjectRow, before: HookIssue | null, id: number, action: IssueHookAction, actorId?: number): Promise<void> {
    const after = await this.hookIssue(tx, id);
    const parts = before ? changedParts(before, after) : [];
    const incidentFields = (i: HookIssue) => [i.discussionLocked, i.issueType, i.severity, i.escalationStatus, i.healthStatus].join();
    if (before && !parts.length && incidentFields(before) === incidentFields(after)) return;
    if (parts.length) await this.base.publish(ISSUE_UPDATED, { issueId: id, projectId: project.id, parts } satisfies IssueUpdatedMessage, tx);
    const trigger = after.confidential ? 'confidential_issue_hooks' : 'issue_hooks';
    if (!(await hookHeard(tx, trigger, project.id))) return;
    const user = await tx.user.findUniqueOrThrow({ where: { id: actorId ?? this.base.access.requireViewer().id }, select: { id: true, name: true, username: true, email: true } });
    const data = issueData({ issue: after, before, action, project: hookProjectOf(project), user, externalUrl: this.base.app.config.externalUrl });
    await enqueueHookEvent(this.base.app.jobs, { trigger, projectId: project.id, branch: null, data }, tx);
  }

  /**
   * One of GitLab's issuable subscriptions (Subscriptions::IssuableUpdated) on an issue: the issue each time `part`
   * of it changes. The viewer must read the issue to subscribe (else null, which the resolver answers as GitLab's
   * error), and each message is checked again, against their memberships and the project as the App remembers them
   * and the issue as it is now: a subscriber who may no longer read it hears nothing more, and the subscription ends.
   */
  async watch(issueId: number, part: IssuablePart, field: string): Promise<AsyncGenerator<Record<string, IssueRow>> | null> {
    const issue = await this.byId(issueId);
    if (!issue) return null;
    const { app, db, viewer } = this.base;
    const actor = liveActor(app.memberships, viewer);
    const messages = app.bus.iterate<IssueUpdatedMessage>(ISSUE_UPDATED, (m) => m.issueId === issue.id && m.parts.includes(part));
    return (async function* () {
      try {
        for await (const message of messages) {
          const [project, row] = await Promise.all([app.projectSubjects.of(message.projectId), issueOfMessage(message, db).catch(() => null)]);
          if (!project || !row) return;
          const subject = issueSubjectOf(project, row);
          if (!can(await actor.get(), 'read_issue', subject)) return;
          await app.bus.turn();
          yield { [field]: row };
        }
      } finally {
        await messages.return?.();
      }
    })();
  }

  /**
   * GitLab's participants of an issue: its author, its assignees and those who commented on it, each once, in that
   * order; authors of internal notes only to those who may read them (Participable keeps what the viewer can read).
   */
  async participants(issue: IssueRow): Promise<number[]> {
    const project = await this.base.loaders.projects.byId.load(issue.projectId);
    const internal = !!project && (await this.base.access.can('read_internal_note', project));
    const commenters = await this.notes.commenterIds(ISSUE, issue.id, internal);
    const ids = [issue.authorId, ...issue.assignees.map((a) => a.userId), ...commenters].filter((id): id is number => id !== null);
    return [...new Set(ids)];
  }

  /** The iid of an issue by id (a note's `noteable_iid`), batched. */
  iidOf(id: number): Promise<number | undefined> {
    return this.base.loaders.issues.iidById.load(id);
  }

  /** Title-ordered labels on each issue (batched by the loaders). */
  labelsOf(issueIds: readonly number[]) {
    return this.db.labelLink.findMany({ where: { issueId: { in: [...issueIds] } }, include: { label: true } });
  }
}
