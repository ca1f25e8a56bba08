/**
 * Owns epics (GitLab's Epic), numbered by iid within their group, with their label links and the issues in them
 * (EpicIssue, ordered by GitLab's RelativePositioning): the Epics and Epic Issues APIs, behind the licence switch
 * (EPICS_ENABLED; GitLab's `authorize_epics_feature!` answers 403 once the group is found).
 */
import { issueRowInclude } from '../issues/policy.js';
import { railsDate } from '../../days.js';
import type { Prisma } from '../../db/database.js';
import { atLeastOneOf, badRequest, conflict, forbidden, invalid, invalidArgument, isCoded, notFoundAs, ownWords, recordNotFound } from '../../errors.js';
import { connection, type PageArgs } from '../../graphql/connection.js';
import type { GroupsService } from '../groups/service.js';
import type { IssuesService, IssueRow } from '../issues/service.js';
import type { LabelsService } from '../labels/service.js';
import { issuableConditions } from '../issues/finder.js';
import { ISSUE_UPDATED, type IssueUpdatedMessage } from '../issues/live.js';
import type { ResourceEventsService } from '../resource_events/service.js';
import type { ActivityService } from '../activity/service.js';
import type { NotesService } from '../notes/service.js';
import type { TodosService } from '../todos/service.js';
import type { ProjectRow } from '../projects/service.js';
import { ISSUE } from '../issues/service.js';
import { colorOf } from '../labels/rules.js';
import type { ServiceBase } from '../module.js';
import type { NamespaceRow } from '../namespaces/service.js';
import type { Ref } from '../../graphql/ids.js';
import type { EpicSubject } from './policy.js';
import { positionAtStart, positionBetween, spreadPosition } from '../issues/positions.js';
import { SubscriptionsService } from '../subscriptions/service.js';
import { EpicLinks } from './links.js';
import { RelatedEpics } from './related.js';

export const EPIC = 'Epic';

export type EpicRow = Prisma.EpicGetPayload<object>;
/** An issue as an epic lists it: with its association's id and position. */
export type EpicIssueView = IssueRow & { epicIssueId: number; epicRelativePosition: number | null; epicId: number };

const viewOf = (issue: IssueRow, link: EpicIssueLinkRow): EpicIssueView => ({ ...issue, epicIssueId: link.id, epicRelativePosition: link.relativePosition, epicId: link.epicId });
export type EpicIssueLinkRow = Prisma.EpicIssueGetPayload<object>;

/** What epicTreeReorder moves (EpicTreeNodeFieldsInputType): global IDs of an Epic or EpicIssue, with their class. */
export interface TreeMove {
  id: { type: string; id: number };
  adjacentReferenceId?: { type: string; id: number } | null;
  relativePosition?: 'before' | 'after' | null;
  newParentId?: number | null;
}

/** An epic or epic-issue in an epic tree, with its parent epic. */
interface TreeNode {
  kind: 'Epic' | 'EpicIssue';
  id: number;
  parentId: number | null;
  relativePosition: number | null;
  issueId: number | null;
}

export type EpicOrderBy = 'created_at' | 'updated_at' | 'title';

export interface EpicFilters {
  state?: 'opened' | 'closed' | 'all' | null;
  labels?: readonly string[] | null;
  authorId?: number | null;
  authorUsername?: string | null;
  search?: string | null;
  confidential?: boolean | null;
  createdAfter?: Date | null;
  createdBefore?: Date | null;
  updatedAfter?: Date | null;
  updatedBefore?: Date | null;
  iids?: readonly number[] | null;
  /** Only the children of this epic. */
  parentId?: number | null;
  includeAncestorGroups?: boolean | null;
  includeDescendantGroups?: boolean | null;
  orderBy?: EpicOrderBy | null;
  sort?: 'asc' | 'desc' | null;
}

export interface EpicChanges {
  title?: string | null;
  description?: string | null;
  confidential?: boolean | null;
  color?: string | null;
  startDateFixed?: string | null;
  startDateIsFixed?: boolean | null;
  dueDateFixed?: string | null;
  dueDateIsFixed?: boolean | null;
  parentId?: number | null;
  labels?: readonly string[] | null;
  addLabels?: readonly string[] | null;
  removeLabels?: readonly string[] | null;
  /** Label ids to add and to remove (GraphQL's addLabelIds, removeLabelIds): the group's labels and its ancestors'. */
  addLabelIds?: readonly number[] | null;
  removeLabelIds?: readonly number[] | null;
  stateEvent?: 'close' | 'reopen' | null;
  createdAt?: string | null;
}

/** The labels of a change, by id: a whole new set (or null), and labels to add and to remove. */
interface ResolvedLabels {
  replace: number[] | null;
  add: number[];
  remove: number[];
}

/** The label changes one write asks for: a whole new set, or titles to add and to remove. */
interface LabelChange {
  labels?: readonly string[] | null;
  addLabels?: readonly string[] | null;
  removeLabels?: readonly string[] | null;
  addLabelIds?: readonly number[] | null;
  removeLabelIds?: readonly number[] | null;
}

const NO_MATCHING_ISSUE = 'No matching issue found. Make sure that you are adding a valid issue URL.';
const NO_MATCHING_EPIC = 'No matching epic found. Make sure that you are adding a valid epic URL.';

/** A date as Rails casts a string to one (`YYYY-MM-DD`); anything else is refused as the parameter's invalid value. */
function dateOf(value: string | null | undefined, argument: string): Date | null {
  if (!value) return null;
  const date = railsDate(value);
  if (!date) throw invalidArgument(argument);
  return date;
}

function epicErrors(epic: { title: string; description: string | null }): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  if (!epic.title.trim()) errors.title = ["can't be blank"];
  else if (epic.title.length > 255) errors.title = ['is too long (maximum is 255 characters)'];
  if (epic.description && epic.description.length > 1_048_576) errors.description = ['is too long (maximum is 1048576 characters)'];
  return errors;
}

export class EpicsService {
  /** Child epics (the Epic Links API). */
  readonly links: EpicLinks;
  /** Related epics (the Related Epic Links API). */
  readonly related: RelatedEpics;

  constructor(
    private readonly base: ServiceBase,
    private readonly groups: GroupsService,
    private readonly labels: LabelsService,
    private readonly issues: IssuesService,
    private readonly events: ResourceEventsService,
    private readonly activity: ActivityService,
    private readonly notes: NotesService,
    private readonly todos: TodosService,
  ) {
    this.links = new EpicLinks(base, this);
    this.related = new RelatedEpics(base, this, notes);
  }

  private get db() {
    return this.base.db;
  }

  /** GitLab's `authorize_epics_feature!`: without the licence (EPICS_ENABLED off) every epic call is 403. */
  requireAvailable(): void {
    if (!this.base.app.config.epicsEnabled) throw forbidden();
  }

  get available(): boolean {
    return this.base.app.config.epicsEnabled;
  }

  /** The group an epic call names: `404 Group Not Found` when the viewer may not read it, then 403 without epics. */
  async group(ref: Ref): Promise<NamespaceRow> {
    const group = await this.groups.get(ref);
    this.requireAvailable();
    return group;
  }

  private async groupOf(epic: EpicRow): Promise<NamespaceRow> {
    const group = await this.base.loaders.namespaces.byId.load(epic.groupId);
    if (!group) throw recordNotFound();
    return group;
  }

  subjectOf(group: NamespaceRow, epic: EpicRow): EpicSubject {
    return { inGroup: group, confidential: epic.confidential };
  }

  async subject(epic: EpicRow): Promise<EpicSubject> {
    return this.subjectOf(await this.groupOf(epic), epic);
  }

  /** The group's epic by iid when the viewer may read it; null otherwise. */
  async find(group: NamespaceRow, iid: number): Promise<EpicRow | null> {
    if (!this.available) return null;
    const epic = await this.db.epic.findUnique({ where: { groupId_iid: { groupId: group.id, iid } } });
    if (epic) this.base.loaders.epics.byId.prime(epic.id, epic);
    return epic && (await this.base.access.can('read_epic', this.subjectOf(group, epic))) ? epic : null;
  }

  /**
   * The group's epic by iid for an ability. GitLab's API looks the epic up with `find_by` and asks the ability of
   * what it found, so a missing epic is refused like one the viewer may not act on: 403, not 404.
   */
  async get(group: NamespaceRow, iid: number, ability: 'read_epic' | 'admin_epic' | 'destroy_epic' = 'read_epic'): Promise<EpicRow> {
    this.requireAvailable();
    const epic = await this.db.epic.findUnique({ where: { groupId_iid: { groupId: group.id, iid } } });
    if (!epic || !(await this.base.access.can(ability, this.subjectOf(group, epic)))) throw forbidden();
    return epic;
  }

  /** An epic by id when the viewer may read it (global IDs, notes, an issue's epic); null otherwise. */
  async byId(id: number): Promise<EpicRow | null> {
    if (!this.available) return null;
    const epic = await this.base.loaders.epics.byId.load(id);
    if (!epic) return null;
    const group = await this.base.loaders.namespaces.byId.load(epic.groupId);
    return group && (await this.base.access.can('read_epic', this.subjectOf(group, epic))) ? epic : null;
  }

  /** GitLab's EpicsFinder over the group (its subgroups by default, its ancestors when asked). */
  async list(group: NamespaceRow, filters: EpicFilters, page: PageArgs) {
    this.requireAvailable();
    const groups: Prisma.EpicWhereInput[] = [{ groupId: group.id }];
    if (filters.includeDescendantGroups ?? true) groups.push({ group: { is: { traversalIds: { has: group.id } } } });
    if (filters.includeAncestorGroups) groups.push({ groupId: { in: group.traversalIds } });
    const and: Prisma.EpicWhereInput[] = [{ OR: groups }, await this.base.access.where('read_epic')];
    if (filters.state === 'opened' || filters.state === 'closed') and.push({ state: filters.state });
    if (filters.confidential != null) and.push({ confidential: filters.confidential });
    if (filters.parentId != null) and.push({ parentId: filters.parentId });
    and.push(...(await issuableConditions(this.db, filters)));
    const where: Prisma.EpicWhereInput = { AND: and };
    const sort = filters.sort ?? 'desc';
    const key = filters.orderBy === 'updated_at' ? 'updatedAt' : filters.orderBy === 'title' ? 'title' : 'createdAt';
    const orderBy: Prisma.EpicOrderByWithRelationInput[] = [{ [key]: sort }, { id: sort }];
    return connection(
      page,
      async ({ skip, take }) => {
        const rows = await this.db.epic.findMany({ where, orderBy, skip, take });
        // A listed epic is often another's parent: later look-ups by id find it here.
        for (const row of rows) this.base.loaders.epics.byId.prime(row.id, row);
        return rows;
      },
      () => this.db.epic.count({ where }),
    );
  }


  /** A parent epic for an epic of the group: one of its own or its ancestors' epics the viewer may read. */
  private async parentFor(group: NamespaceRow, parentId: number | null | undefined, child?: EpicRow): Promise<number | null> {
    if (!parentId) return null;
    const parent = await this.db.epic.findUnique({ where: { id: parentId } });
    if (!parent || !group.traversalIds.includes(parent.groupId) || !(await this.byId(parent.id))) throw notFoundAs(NO_MATCHING_EPIC);
    if (child) {
      // An epic may not become its own ancestor.
      for (let at: EpicRow | null = parent; at; at = at.parentId ? await this.db.epic.findUnique({ where: { id: at.parentId } }) : null) {
        if (at.id === child.id) throw badRequest(NO_MATCHING_EPIC);
      }
    }
    return parent.id;
  }

  /**
   * The labels a change names, found (or made, for titles missing from the group and its ancestors: Reporters who
   * change epics may make group labels) before the write's transaction, as the labels service writes on its own.
   */
  private async labelsOf(group: NamespaceRow, change: LabelChange): Promise<ResolvedLabels> {
    const ids = async (titles: readonly string[] | null | undefined, create: boolean) =>
      titles == null ? null : (await this.labels.findOrCreateGroupLabels(group, titles, create)).map((l) => l.id);
    // Ids of labels the group cannot use are dropped, as IssuableBaseService#filter_labels_in_param keeps available ones.
    const byIds = async (wanted: readonly number[] | null | undefined) => (wanted?.length ? (await this.labels.groupLabelsByIds(group, wanted)).map((l) => l.id) : []);
    const [replace, add, remove, addById, removeById] = await Promise.all([
      ids(change.labels, true),
      ids(change.addLabels, true),
      ids(change.removeLabels, false),
      byIds(change.addLabelIds),
      byIds(change.removeLabelIds),
    ]);
    return { replace, add: [...(add ?? []), ...addById], remove: [...(remove ?? []), ...removeById] };
  }

  /**
   * Every label change of an epic, in one place: `replace` sets the labels, `add` and `remove` change them. Returns
   * the label ids added and removed, for whoever records label events.
   */
  private async changeLabels(tx: Prisma.TransactionClient, epic: EpicRow, change: ResolvedLabels): Promise<{ added: number[]; removed: number[] }> {
    if (change.replace === null && !change.add.length && !change.remove.length) return { added: [], removed: [] };
    const current = await tx.labelLink.findMany({ where: { epicId: epic.id }, select: { labelId: true } });
    const have = new Set(current.map((c) => c.labelId));
    const want = new Set(change.replace ?? have);
    for (const id of change.add) want.add(id);
    for (const id of change.remove) want.delete(id);
    const removed = [...have].filter((id) => !want.has(id));
    const added = [...want].filter((id) => !have.has(id));
    if (removed.length) await tx.labelLink.deleteMany({ where: { epicId: epic.id, labelId: { in: removed } } });
    if (added.length) await tx.labelLink.createMany({ data: added.map((labelId) => ({ epicId: epic.id, labelId })), skipDuplicates: true });
    // One resource label event per label added or removed (GitLab's ResourceEvents::ChangeLabelsService).
    const resource = { type: EPIC, id: epic.id, projectId: null, groupId: epic.groupId };
    await this.events.recordLabelChanges(tx, resource, { added, removed }, this.base.access.requireViewer().id);
    return { added, removed };
  }

  /** GitLab's Epics::CreateService: a new epic of the group, numbered next in it. */
  async create(group: NamespaceRow, input: EpicChanges & { title: string }): Promise<EpicRow> {
    this.requireAvailable();
    const viewer = this.base.access.requireViewer();
    await this.base.access.authorize('create_epic', group);
    const draft = { title: input.title.trim(), description: input.description ?? null };
    const errors = epicErrors(draft);
    if (Object.keys(errors).length) throw invalid(errors);
    const parentId = await this.parentFor(group, input.parentId);
    const createdAt = input.createdAt && (await this.base.access.can('set_epic_created_at', group)) ? new Date(input.createdAt) : null;
    if (createdAt && Number.isNaN(createdAt.getTime())) throw invalidArgument('created_at');
    const labels = await this.labelsOf(group, { labels: input.labels, addLabelIds: input.addLabelIds, removeLabelIds: input.removeLabelIds });
    const created = await this.db.$transaction(async (tx) => {
      await tx.$queryRaw`SELECT "id" FROM "namespaces" WHERE "id" = ${group.id} FOR UPDATE`;
      const last = await tx.epic.aggregate({ where: { groupId: group.id }, _max: { iid: true } });
      const now = createdAt ?? new Date();
      const epic = await tx.epic.create({
        data: {
          groupId: group.id,
          iid: (last._max.iid ?? 0) + 1,
          ...draft,
          authorId: viewer.id,
          parentId,
          confidential: input.confidential ?? false,
          color: input.color ? colorOf(input.color) : undefined,
          startDateFixed: dateOf(input.startDateFixed, 'start_date_fixed'),
          startDateIsFixed: input.startDateIsFixed ?? false,
          dueDateFixed: dateOf(input.dueDateFixed, 'due_date_fixed'),
          dueDateIsFixed: input.dueDateIsFixed ?? false,
          createdAt: now,
          updatedAt: now,
        },
      });
      await this.changeLabels(tx, epic, labels);
      return epic;
    });
    await this.todos.epicChanged(group, null, created);
    return created;
  }

  /** GitLab's Epics::UpdateService: fields, dates, parent, labels and `state_event`. */
  async update(group: NamespaceRow, iid: number, changes: EpicChanges): Promise<EpicRow> {
    const epic = await this.get(group, iid, 'admin_epic');
    const given = (Object.keys(changes) as (keyof EpicChanges)[]).filter((k) => changes[k] !== undefined && k !== 'createdAt');
    if (!given.length) {
      throw atLeastOneOf('add_labels', 'color', 'confidential', 'description', 'due_date_fixed', 'due_date_is_fixed', 'labels', 'parent_id', 'remove_labels', 'start_date_fixed', 'start_date_is_fixed', 'state_event', 'title');
    }
    const data: Prisma.EpicUncheckedUpdateInput = {};
    if (changes.title != null) data.title = changes.title.trim();
    if (changes.description !== undefined) data.description = changes.description;
    const errors = epicErrors({ title: (data.title as string | undefined) ?? epic.title, description: (data.description as string | null | undefined) ?? epic.description });
    if (Object.keys(errors).length) throw invalid(errors);
    if (changes.confidential != null) data.confidential = changes.confidential;
    if (changes.color != null) data.color = colorOf(changes.color);
    if (changes.startDateFixed !== undefined) data.startDateFixed = dateOf(changes.startDateFixed, 'start_date_fixed');
    if (changes.startDateIsFixed != null) data.startDateIsFixed = changes.startDateIsFixed;
    if (changes.dueDateFixed !== undefined) data.dueDateFixed = dateOf(changes.dueDateFixed, 'due_date_fixed');
    if (changes.dueDateIsFixed != null) data.dueDateIsFixed = changes.dueDateIsFixed;
    if (changes.parentId !== undefined) data.parentId = await this.parentFor(group, changes.parentId, epic);
    if (changes.stateEvent === 'close' && epic.state === 'opened') Object.assign(data, { state: 'closed', closedAt: new Date(), closedById: this.base.viewer?.id ?? null });
    if (changes.stateEvent === 'reopen' && epic.state === 'closed') Object.assign(data, { state: 'opened', closedAt: null, closedById: null });
    const resolved = await this.labelsOf(group, changes);
    const updated = await this.db.$transaction(async (tx) => {
      const labels = await this.changeLabels(tx, epic, resolved);
      const changed = Object.keys(data).length > 0 || labels.added.length > 0 || labels.removed.length > 0;
      const row = await tx.epic.update({ where: { id: epic.id }, data: { ...data, ...(changed ? { updatedAt: new Date() } : {}) } });
      // Epics::CloseService and ReopenService: a resource state event (ResourceEvents::ChangeStateService).
      if (row.state !== epic.state) {
        const resource = { type: EPIC, id: epic.id, projectId: null, groupId: epic.groupId };
        await this.events.recordStateChange(tx, resource, row.state === 'closed' ? 'closed' : 'reopened', this.base.access.requireViewer().id, row.updatedAt);
      }
      return row;
    });
    await this.todos.epicChanged(group, epic, updated);
    return updated;
  }

  /** Deletes an epic (Owners); its children lose their parent and its issues leave it. */
  async destroy(group: NamespaceRow, iid: number): Promise<EpicRow> {
    const epic = await this.get(group, iid, 'destroy_epic');
    await this.db.$transaction([
      this.db.note.deleteMany({ where: { noteableType: EPIC, noteableId: epic.id } }),
      SubscriptionsService.forget(this.db, EPIC, epic.id),
      this.db.epic.delete({ where: { id: epic.id } }),
    ]);
    return epic;
  }

  /** The issues of the epic the viewer may read, by their position in it (GitLab's `sorted_by_epic_position`). */
  async epicIssues(epic: EpicRow, page: PageArgs) {
    const where: Prisma.EpicIssueWhereInput = { epicId: epic.id, issue: { is: { AND: [await this.base.access.where('read_issue'), { project: { pendingDelete: false } }] } } };
    return connection(
      page,
      async ({ skip, take }) => {
        const links = await this.db.epicIssue.findMany({
          where,
          orderBy: [{ relativePosition: { sort: 'asc', nulls: 'last' } }, { id: 'asc' }],
          skip,
          take,
          include: { issue: { include: issueRowInclude } },
        });
        return links.map((l) => viewOf(l.issue, l));
      },
      () => this.db.epicIssue.count({ where }),
    );
  }

  /**
   * The epic of an epic-issue when the viewer may change the relation (EpicIssuePresenter#group_epic_issue_path:
   * `admin_issue_relation` on the issue and `admin_epic_relation` on the epic); null otherwise.
   */
  async relatableEpic(view: EpicIssueView): Promise<EpicRow | null> {
    const epic = await this.byId(view.epicId);
    if (!epic || !(await this.base.access.can('admin_epic_relation', await this.subject(epic)))) return null;
    return (await this.base.access.can('admin_issue_relation', await this.issues.subject(view))) ? epic : null;
  }

  /** The association of one of the epic's issues, for relating it: 404 unless the viewer may relate that issue too. */
  private async link(epic: EpicRow, epicIssueId: number): Promise<EpicIssueView> {
    const link = await this.db.epicIssue.findFirst({ where: { id: epicIssueId, epicId: epic.id } });
    if (!link) throw recordNotFound();
    const issue = await this.issues.byId(link.issueId);
    if (!issue || !(await this.base.access.can('admin_issue_relation', await this.issues.subject(issue)))) throw forbidden();
    return viewOf(issue, link);
  }

  /**
   * GitLab's EpicIssues::CreateService: puts the issue (by its global id) in the epic, first in its order, moving it
   * out of any other epic. The issue's project must be in the epic's group or below it.
   */
  async addIssue(group: NamespaceRow, iid: number, issueId: number): Promise<EpicIssueView> {
    const epic = await this.get(group, iid);
    const issue = await this.issues.byId(issueId);
    if (!issue) throw recordNotFound();
    if (!(await this.base.access.can('admin_issue_relation', await this.issues.subject(issue)))) throw forbidden();
    if (!(await this.base.access.can('admin_epic_relation', this.subjectOf(group, epic)))) throw notFoundAs(NO_MATCHING_ISSUE);
    const project = await this.base.loaders.projects.byId.load(issue.projectId);
    if (!project || !project.namespace.traversalIds.includes(epic.groupId)) throw notFoundAs(NO_MATCHING_ISSUE);
    return viewOf(issue, await this.assign(epic, issue));
  }

  /** Puts an issue in an epic, first in its order (moving it out of another epic); 409 when it is already there. */
  private async assign(epic: EpicRow, issue: IssueRow): Promise<EpicIssueLinkRow> {
    return this.db.$transaction(async (tx) => {
      await tx.$queryRaw`SELECT "id" FROM "epics" WHERE "id" = ${epic.id} FOR UPDATE`;
      const existing = await tx.epicIssue.findUnique({ where: { issueId: issue.id } });
      if (existing?.epicId === epic.id) throw conflict('Issue(s) already assigned');
      const first = await tx.epicIssue.aggregate({ where: { epicId: epic.id }, _min: { relativePosition: true } });
      const relativePosition = positionAtStart(first._min.relativePosition);
      const link = existing
        ? await tx.epicIssue.update({ where: { id: existing.id }, data: { epicId: epic.id, relativePosition, createdAt: new Date() } })
        : await tx.epicIssue.create({ data: { epicId: epic.id, issueId: issue.id, relativePosition } });
      await this.epicChanged(tx, issue);
      return link;
    });
  }

  /** Tells the issue's `issuableEpicUpdated` subscribers, on commit of `tx`, that its epic changed. */
  private epicChanged(tx: Prisma.TransactionClient, issue: { id: number; projectId: number }): Promise<unknown> {
    const message: IssueUpdatedMessage = { issueId: issue.id, projectId: issue.projectId, parts: ['epic'] };
    return this.base.publish(ISSUE_UPDATED, message, tx);
  }

  /** GitLab's EpicIssues::DestroyService: takes the issue out of the epic; the association as it was. */
  async removeIssue(group: NamespaceRow, iid: number, epicIssueId: number): Promise<EpicIssueView> {
    const epic = await this.get(group, iid);
    const link = await this.link(epic, epicIssueId);
    await this.db.$transaction(async (tx) => {
      const removed = await tx.epicIssue.delete({ where: { id: link.epicIssueId }, select: { issue: { select: { id: true, projectId: true } } } });
      await this.epicChanged(tx, removed.issue);
    });
    return link;
  }

  /**
   * GitLab's EpicIssues::UpdateService: moves the association between `moveBeforeId` (the one to come before it) and
   * `moveAfterId` (the one to come after it), as RelativePositioning places it; 400 when neither names one of the epic's.
   */
  async moveIssue(group: NamespaceRow, iid: number, epicIssueId: number, moveBeforeId: number | null, moveAfterId: number | null): Promise<EpicRow> {
    const epic = await this.get(group, iid);
    const link = await this.link(epic, epicIssueId);
    const moved = await this.db.$transaction(async (tx) => {
      await tx.$queryRaw`SELECT "id" FROM "epics" WHERE "id" = ${epic.id} FOR UPDATE`;
      const others = await tx.epicIssue.findMany({ where: { epicId: epic.id, id: { not: link.epicIssueId } }, orderBy: [{ relativePosition: { sort: 'asc', nulls: 'last' } }, { id: 'asc' }] });
      const before = moveBeforeId === null ? null : others.find((o) => o.id === moveBeforeId);
      const after = moveAfterId === null ? null : others.find((o) => o.id === moveAfterId);
      if (before === undefined || after === undefined || (!before && !after)) return false;
      const index = (row: EpicIssueLinkRow | null) => (row ? others.indexOf(row) : -1);
      // A side not given is the neighbour of the one given, as move_after and move_before find it.
      const low = before ?? (index(after) > 0 ? others[index(after) - 1] : null);
      const high = after ?? (index(before) + 1 < others.length ? others[index(before) + 1] : null);
      const position = positionBetween(low?.relativePosition ?? null, high?.relativePosition ?? null);
      if (position === null) {
        // No room between them: spread the epic's issues out again (RelativePositioning's rebalancing), then place it.
        const order = others.slice();
        const at = low ? order.indexOf(low) + 1 : 0;
        order.splice(at, 0, { id: link.epicIssueId, epicId: epic.id, issueId: link.id, relativePosition: null, createdAt: link.createdAt });
        for (const [i, row] of order.entries()) await tx.epicIssue.update({ where: { id: row.id }, data: { relativePosition: spreadPosition(i, at) } });
        return true;
      }
      await tx.epicIssue.update({ where: { id: link.epicIssueId }, data: { relativePosition: position } });
      return true;
    });
    if (!moved) throw badRequest('Issue could not be moved!');
    return epic;
  }

  /**
   * EE's Epics::TreeReorderService (GraphQL's epicTreeReorder): moves an epic or an epic-issue among its parent's
   * children (epics and epic-issues share one order, EpicTreeSorting), next to `adjacent` (`before`: the adjacent one
   * comes before it; `after`: after it), or first without one; under `newParentId` first when it names another parent.
   * The base epic must be one the viewer may relate to (else GitLab's ResourceNotAvailable); every other refusal is
   * the payload's errors, in GitLab's words.
   */
  async reorderTree(baseEpicId: number, moved: TreeMove): Promise<string[]> {
    this.requireAvailable();
    const base = await this.byId(baseEpicId);
    if (!base || !(await this.base.access.can('admin_epic_relation', await this.subject(base)))) throw forbidden();
    const moving = await this.treeNode(moved.id);
    const adjacent = moved.adjacentReferenceId ? await this.treeNode(moved.adjacentReferenceId) : null;
    if (!moving || (moved.adjacentReferenceId && !adjacent)) return ['Only epics and epic_issues are supported.'];
    const found = moved.newParentId ? await this.db.epic.findUnique({ where: { id: moved.newParentId } }) : null;
    const newParent = found && found.id !== moving.parentId ? found : null;
    if (!(await this.mayReorder(moving, adjacent, found))) return ["You don't have permissions to move the objects."];
    const parentId = newParent?.id ?? moving.parentId;
    // A top-level epic is in no tree to be ordered in.
    if (parentId === null) return ["You don't have permissions to move the objects."];
    if (adjacent) {
      if (moved.relativePosition !== 'before' && moved.relativePosition !== 'after') return ['Relative position is not valid.'];
      if (adjacent.parentId !== parentId) return [`The sibling object's parent must match the ${found ? 'new' : 'current'} parent epic.`];
    }
    if (newParent) {
      const refusal = await this.parentRefusal(moving, newParent);
      if (refusal) return [refusal];
    }
    await this.db.$transaction(async (tx) => {
      await tx.$queryRaw`SELECT "id" FROM "epics" WHERE "id" = ${parentId} FOR UPDATE`;
      if (newParent && moving.kind === 'Epic') await tx.epic.update({ where: { id: moving.id }, data: { parentId: newParent.id } });
      if (newParent && moving.kind === 'EpicIssue') {
        const moved = await tx.epicIssue.update({ where: { id: moving.id }, data: { epicId: newParent.id, createdAt: new Date() }, select: { issue: { select: { id: true, projectId: true } } } });
        await this.epicChanged(tx, moved.issue);
      }
      const same = (a: TreeNode) => (b: TreeNode) => a.kind === b.kind && a.id === b.id;
      const others = (await this.treeChildren(tx, parentId)).filter((n) => !same(moving)(n));
      const index = adjacent ? others.findIndex(same(adjacent)) : -1;
      const at = !adjacent ? 0 : moved.relativePosition === 'before' ? index + 1 : index;
      const low = at > 0 ? others[at - 1] : null;
      const high = at < others.length ? others[at] : null;
      const unplaced = (low !== null && low.relativePosition === null) || (high !== null && high.relativePosition === null);
      let position = unplaced ? null : adjacent ? positionBetween(low?.relativePosition ?? null, high?.relativePosition ?? null) : positionAtStart(high?.relativePosition ?? null);
      if (position !== null && high?.relativePosition != null && position >= high.relativePosition) position = null;
      if (position !== null) return this.placeNode(tx, moving, position);
      // No room there, or siblings never placed: spread the children out again in their order, with it in its place.
      const order = [...others];
      order.splice(at, 0, moving);
      for (const [i, node] of order.entries()) await this.placeNode(tx, node, spreadPosition(i, at));
    });
    return [];
  }

  /** An epic or epic-issue by its EpicTreeSorting global ID, with its parent epic; null when there is none. */
  private async treeNode(ref: { type: string; id: number }): Promise<TreeNode | null> {
    if (ref.type === 'Epic') {
      const epic = await this.db.epic.findUnique({ where: { id: ref.id } });
      return epic && { kind: 'Epic', id: epic.id, parentId: epic.parentId, relativePosition: epic.relativePosition, issueId: null };
    }
    if (ref.type === 'EpicIssue') {
      const link = await this.db.epicIssue.findUnique({ where: { id: ref.id } });
      return link && { kind: 'EpicIssue', id: link.id, parentId: link.epicId, relativePosition: link.relativePosition, issueId: link.issueId };
    }
    return null;
  }

  /** The children of an epic in tree order: its epics and epic-issues by position (unplaced last), then kind and id. */
  private async treeChildren(tx: Prisma.TransactionClient, parentId: number): Promise<TreeNode[]> {
    const [epics, links] = await Promise.all([
      tx.epic.findMany({ where: { parentId }, select: { id: true, relativePosition: true } }),
      tx.epicIssue.findMany({ where: { epicId: parentId }, select: { id: true, relativePosition: true, issueId: true } }),
    ]);
    const nodes: TreeNode[] = [
      ...epics.map((e) => ({ kind: 'Epic' as const, id: e.id, parentId, relativePosition: e.relativePosition, issueId: null })),
      ...links.map((l) => ({ kind: 'EpicIssue' as const, id: l.id, parentId, relativePosition: l.relativePosition, issueId: l.issueId })),
    ];
    const key = (n: TreeNode) => n.relativePosition ?? Number.MAX_SAFE_INTEGER;
    return nodes.sort((a, b) => key(a) - key(b) || a.kind.localeCompare(b.kind) || a.id - b.id);
  }

  private placeNode(tx: Prisma.TransactionClient, node: TreeNode, relativePosition: number) {
    return node.kind === 'Epic'
      ? tx.epic.update({ where: { id: node.id }, data: { relativePosition } })
      : tx.epicIssue.update({ where: { id: node.id }, data: { relativePosition } });
  }

  /**
   * TreeReorderService#authorized?: the moved node (an epic: `admin_epic_tree_relation`, which is admin_epic here; an
   * epic-issue: its issue's `admin_issue_relation` and its epic's `admin_epic_relation`), the adjacent one likewise
   * (its epic by `admin_epic_relation`), and for a new parent, the tree relation on it and the relation on the old.
   */
  private async mayReorder(moving: TreeNode, adjacent: TreeNode | null, newParent: EpicRow | null): Promise<boolean> {
    const epicCan = async (ability: 'admin_epic' | 'admin_epic_relation', id: number | null) => {
      const epic = id === null ? null : await this.byId(id);
      return !!epic && this.base.access.can(ability, await this.subject(epic));
    };
    const nodeCan = async (node: TreeNode, epicAbility: 'admin_epic' | 'admin_epic_relation') => {
      if (node.kind === 'Epic') return epicCan(epicAbility, node.id);
      const issue = await this.issues.byId(node.issueId!);
      return !!issue && (await this.base.access.can('admin_issue_relation', await this.issues.subject(issue))) && epicCan('admin_epic_relation', node.parentId);
    };
    if (!(await nodeCan(moving, 'admin_epic'))) return false;
    if (adjacent && !(await nodeCan(adjacent, 'admin_epic_relation'))) return false;
    if (newParent && !((await epicCan('admin_epic', newParent.id)) && (await epicCan('admin_epic_relation', moving.parentId)))) return false;
    return true;
  }

  /**
   * Why the node cannot go under the new parent (EpicLinks::CreateService, EpicIssues::CreateService): an epic must
   * be of the parent's group or below it and not become its own ancestor; an issue's project must be in the parent's
   * group or below it.
   */
  private async parentRefusal(moving: TreeNode, parent: EpicRow): Promise<string | null> {
    if (moving.kind === 'EpicIssue') {
      const issue = await this.issues.byId(moving.issueId!);
      const project = issue && (await this.base.loaders.projects.byId.load(issue.projectId));
      return project && project.namespace.traversalIds.includes(parent.groupId) ? null : NO_MATCHING_ISSUE;
    }
    const epic = (await this.db.epic.findUnique({ where: { id: moving.id } }))!;
    try {
      await this.parentFor(await this.groupOf(epic), parent.id, epic);
      return null;
    } catch (error) {
      if (isCoded(error)) return ownWords(error);
      throw error;
    }
  }

  /** GitLab's `issueSetEpic` and the Issues API's `epic_id`: puts the issue in the epic (by id), or out of any with null. */
  async setIssueEpic(issue: IssueRow, epicId: number | null): Promise<void> {
    this.requireAvailable();
    if (!(await this.base.access.can('admin_issue_relation', await this.issues.subject(issue)))) throw forbidden();
    if (epicId === null) {
      await this.db.$transaction(async (tx) => {
        if ((await tx.epicIssue.deleteMany({ where: { issueId: issue.id } })).count) await this.epicChanged(tx, issue);
      });
      return;
    }
    const epic = await this.byId(epicId);
    if (!epic) throw notFoundAs(NO_MATCHING_EPIC);
    const group = await this.groupOf(epic);
    const project = await this.base.loaders.projects.byId.load(issue.projectId);
    if (!project || !project.namespace.traversalIds.includes(group.id) || !(await this.base.access.can('admin_epic_relation', this.subjectOf(group, epic)))) {
      throw notFoundAs(NO_MATCHING_ISSUE);
    }
    const existing = await this.db.epicIssue.findUnique({ where: { issueId: issue.id } });
    if (existing?.epicId !== epic.id) await this.assign(epic, issue);
  }

  /** The epic an issue is in, when the viewer may read it. */
  async ofIssue(issueId: number): Promise<EpicRow | null> {
    if (!this.available) return null;
    const link = await this.base.loaders.epics.linkByIssueId.load(issueId);
    return link ? this.byId(link.epicId) : null;
  }

  /** GitLab's EpicPermissions: the viewer's abilities on the epic (EpicPolicy with GroupPolicy's epic abilities). */
  async permissions(epic: EpicRow) {
    const subject = await this.subject(epic);
    const can = (ability: 'read_epic' | 'read_epic_iid' | 'admin_epic' | 'update_epic' | 'destroy_epic' | 'create_epic_in_group' | 'create_epic_note') =>
      this.base.access.can(ability, subject);
    const [readEpic, readEpicIid, adminEpic, updateEpic, destroyEpic, createEpic, createNote] = await Promise.all([
      can('read_epic'),
      can('read_epic_iid'),
      can('admin_epic'),
      can('update_epic'),
      can('destroy_epic'),
      can('create_epic_in_group'),
      can('create_epic_note'),
    ]);
    return { readEpic, readEpicIid, adminEpic, updateEpic, destroyEpic, createEpic, createNote, awardEmoji: createNote };
  }

  /**
   * EpicAncestorsResolver: the epic's parents the viewer may read, from its parent up to the first one they may not
   * (or, without ancestor groups, the first outside the epic's group), the top-level one first.
   */
  async ancestors(epic: EpicRow, includeAncestorGroups: boolean): Promise<EpicRow[]> {
    const found: EpicRow[] = [];
    const seen = new Set([epic.id]);
    for (let id = epic.parentId; id !== null && !seen.has(id); ) {
      seen.add(id);
      const parent = await this.byId(id);
      if (!parent || (!includeAncestorGroups && parent.groupId !== epic.groupId)) break;
      found.push(parent);
      id = parent.parentId;
    }
    return found.reverse();
  }

  /** Whether the viewer may read the epic's internal notes. */
  private readsInternal(epic: EpicRow): Promise<boolean> {
    return this.notes.canReadInternal({ project: null, groupId: epic.groupId });
  }

  /** NoteableInterface's `commenters`: authors of the comments the viewer may read, by user id. */
  async commenters(epic: EpicRow): Promise<number[]> {
    return (await this.notes.commenterIds(EPIC, epic.id, this.readsInternal(epic))).sort((a, b) => a - b);
  }

  /** Epic's participants: its author, then those who commented where the viewer may read, first comment first. */
  async participants(epic: EpicRow): Promise<number[]> {
    const ids = [epic.authorId, ...(await this.notes.commenterIds(EPIC, epic.id, this.readsInternal(epic)))].filter((id): id is number => id !== null);
    return [...new Set(ids)];
  }

  /** `userDiscussionsCount`: threads with a comment the viewer may read. */
  async userDiscussionsCount(epic: EpicRow): Promise<number> {
    return this.notes.userDiscussionsCount(EPIC, epic.id, this.readsInternal(epic));
  }

  /** The epic tree's sums (descendantCounts, descendantWeightSum, healthStatus), as GitLab counts them: every descendant. */
  aggregate(epic: EpicRow) {
    return this.base.loaders.epics.aggregate.load(epic.id);
  }

  /**
   * DefaultProjectForIssueCreationResolver: the project the viewer last created an issue in, when it is in the
   * epic's group or below it and they may still create issues there.
   */
  async defaultProjectForIssueCreation(epic: EpicRow): Promise<ProjectRow | null> {
    const viewer = this.base.viewer;
    if (!viewer) return null;
    const projectId = await this.activity.lastProjectOf(viewer.id, ISSUE, 'created');
    const project = projectId === null ? null : await this.base.loaders.projects.byId.load(projectId);
    if (!project || !project.namespace.traversalIds.includes(epic.groupId)) return null;
    return (await this.base.access.can('create_issue', project)) ? project : null;
  }

  /** Whether the viewer may read the epic and its notes, comment on it, and set a note's creation time. */
  async abilities(epic: EpicRow) {
    const subject = await this.subject(epic);
    const read = await this.base.access.can('read_epic', subject);
    return { read, comment: read && !!this.base.viewer, setCreatedAt: read && (await this.base.access.can('set_epic_created_at', subject.inGroup as NamespaceRow)) };
  }
}
