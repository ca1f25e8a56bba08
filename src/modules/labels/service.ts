/**
 * Owns labels (GitLab's ProjectLabel and GroupLabel), their per-project priorities and users' subscriptions to them:
 * the labels APIs of projects and groups, promotion of a project label to its group, and lookups issues will use.
 */
import type { Prisma } from '../../db/database.js';
import { atLeastOneOf, conflict, invalid, badRequest, notFound, notModified } from '../../errors.js';
import { connection, type PageArgs } from '../../graphql/connection.js';
import { containsIgnoringCase } from '../../db/text.js';
import type { ServiceBase } from '../module.js';
import type { NamespaceRow } from '../namespaces/service.js';
import type { ProjectRow } from '../projects/service.js';
import type { TimeboxParentSubject } from './policy.js';
import { colorOf, labelErrors } from './rules.js';

export type LabelRow = Prisma.LabelGetPayload<object>;

/** A project or a group, as labels and milestones belong to them. */
export type TimeboxParent = { project: ProjectRow } | { group: NamespaceRow };

/** A label as reached through a parent: its priority and the viewer's subscription are the parent's (GitLab's `parent:`). */
export type LabelView = LabelRow & { parent: TimeboxParent };

export interface LabelFilters {
  includeAncestorGroups?: boolean | null;
  includeDescendantGroups?: boolean | null;
  onlyGroupLabels?: boolean | null;
  search?: string | null;
  title?: string | null;
}

export interface LabelInput {
  title: string;
  color?: string | null;
  description?: string | null;
  priority?: number | null;
}

export interface LabelChanges {
  newName?: string | null;
  color?: string | null;
  description?: string | null;
  /** Present with null: the priority is removed. */
  priority?: number | null;
}

/** GraphQL's labelCreate colour when none is given (GitLab's Label::DEFAULT_COLOR). */
const DEFAULT_COLOR = '#6699cc';
const PROMOTE_FAILED = 'Failed to promote project label to group label';

export const parentSubject = (parent: TimeboxParent): TimeboxParentSubject => ('project' in parent ? { project: parent.project } : { group: parent.group });

export class LabelsService {
  constructor(private readonly base: ServiceBase) {}

  private get db() {
    return this.base.db;
  }

  /** The parent's labels as its list shows them (GitLab's LabelsFinder), as a filter. */
  private async available(parent: TimeboxParent, filters: LabelFilters): Promise<Prisma.LabelWhereInput> {
    const includeAncestors = filters.includeAncestorGroups ?? true;
    const text: Prisma.LabelWhereInput[] = [];
    if (filters.search) text.push({ OR: [{ title: containsIgnoringCase(filters.search) }, { description: containsIgnoringCase(filters.search) }] });
    if (filters.title != null) text.push({ title: filters.title });
    if ('project' in parent) {
      const ns = parent.project.namespace;
      const groupIds = ns.kind === 'group' ? (includeAncestors ? ns.traversalIds : [ns.id]) : [];
      return { AND: [{ OR: [{ projectId: parent.project.id }, { groupId: { in: groupIds } }] }, ...text] };
    }
    const group = parent.group;
    const readableGroups = await this.base.access.where('read_group');
    const groups: Prisma.LabelWhereInput[] = [{ groupId: { in: includeAncestors ? group.traversalIds : [group.id] } }];
    if (filters.includeDescendantGroups) groups.push({ group: { AND: [{ traversalIds: { has: group.id } }, readableGroups] } });
    if (filters.onlyGroupLabels === false) {
      const projects = await this.base.access.where('read_project');
      const namespaces = filters.includeDescendantGroups ? { traversalIds: { has: group.id } } : { id: group.id };
      groups.push({ project: { AND: [{ namespace: namespaces, pendingDelete: false }, projects] } });
    }
    return { AND: [{ OR: groups }, ...text] };
  }

  private async authorizeRead(parent: TimeboxParent): Promise<void> {
    await this.base.access.authorize('read_label', parentSubject(parent));
  }

  /** The parent's labels, by title. */
  async list(parent: TimeboxParent, filters: LabelFilters, page: PageArgs) {
    await this.authorizeRead(parent);
    const where = await this.available(parent, filters);
    const view = (rows: LabelRow[]): LabelView[] => rows.map((row) => ({ ...row, parent }));
    return connection(
      page,
      async ({ skip, take }) => view(await this.db.label.findMany({ where, orderBy: [{ title: 'asc' }, { id: 'asc' }], skip, take })),
      () => this.db.label.count({ where }),
    );
  }

  /** One of the parent's labels by ID or else title (GitLab's find_label); `404 Label Not Found` otherwise. */
  async get(parent: TimeboxParent, idOrTitle: string, filters: LabelFilters = {}): Promise<LabelView> {
    await this.authorizeRead(parent);
    const label = await this.find(parent, idOrTitle, filters);
    if (!label) throw notFound('Label');
    return label;
  }

  /** A label by title as GraphQL's `label(title:)` finds it; null when there is none. */
  async byTitle(parent: TimeboxParent, title: string): Promise<LabelView | null> {
    await this.authorizeRead(parent);
    const [label] = await this.db.label.findMany({ where: await this.available(parent, { title }), orderBy: { id: 'asc' }, take: 1 });
    return label ? { ...label, parent } : null;
  }

  private async find(parent: TimeboxParent, idOrTitle: string, filters: LabelFilters): Promise<LabelView | null> {
    const where = await this.available(parent, filters);
    const id = /^\d{1,9}$/.test(idOrTitle) ? Number(idOrTitle) : null;
    const byId = id === null ? null : await this.db.label.findFirst({ where: { AND: [where, { id }] } });
    const label = byId ?? (await this.db.label.findFirst({ where: { AND: [where, { title: idOrTitle }] }, orderBy: { id: 'asc' } }));
    return label && { ...label, parent };
  }

  /**
   * The project's labels (its own and its groups') by title, for issues: missing titles become project labels when
   * `create` (GitLab's Labels::FindOrCreateService, as an issue's `labels` does for those who may set metadata).
   */
  async findOrCreateByTitles(project: ProjectRow, titles: readonly string[], create: boolean): Promise<LabelRow[]> {
    const wanted = [...new Set(titles.map((t) => t.trim()).filter(Boolean))];
    if (!wanted.length) return [];
    const parent = { project };
    const found = await this.db.label.findMany({ where: { AND: [await this.available(parent, {}), { title: { in: wanted } }] }, orderBy: { id: 'asc' } });
    const byTitle = new Map<string, LabelRow>();
    for (const label of found) if (!byTitle.has(label.title)) byTitle.set(label.title, label);
    for (const title of wanted) {
      if (byTitle.has(title) || !create) continue;
      const draft = { title, color: colorOf(DEFAULT_COLOR), description: null };
      const errors = labelErrors(draft);
      if (Object.keys(errors).length) throw invalid(errors);
      const made = await this.db.label.upsert({ where: { projectId_title: { projectId: project.id, title } }, create: { ...draft, projectId: project.id }, update: {} });
      byTitle.set(title, made);
    }
    return wanted.flatMap((t) => byTitle.get(t) ?? []);
  }

  /**
   * The group's labels (its own and its ancestors') by title, for epics: missing titles become labels of the group
   * when `create` (Labels::FindOrCreateService with a group as parent).
   */
  async findOrCreateGroupLabels(group: NamespaceRow, titles: readonly string[], create: boolean): Promise<LabelRow[]> {
    const wanted = [...new Set(titles.map((t) => t.trim()).filter(Boolean))];
    if (!wanted.length) return [];
    const found = await this.db.label.findMany({ where: { groupId: { in: group.traversalIds }, title: { in: wanted } }, orderBy: { id: 'asc' } });
    const byTitle = new Map<string, LabelRow>();
    for (const label of found) if (!byTitle.has(label.title)) byTitle.set(label.title, label);
    for (const title of wanted) {
      if (byTitle.has(title) || !create) continue;
      const draft = { title, color: colorOf(DEFAULT_COLOR), description: null };
      const errors = labelErrors(draft);
      if (Object.keys(errors).length) throw invalid(errors);
      byTitle.set(title, await this.db.label.upsert({ where: { groupId_title: { groupId: group.id, title } }, create: { ...draft, groupId: group.id }, update: {} }));
    }
    return wanted.flatMap((t) => byTitle.get(t) ?? []);
  }

  /** The labels among `ids` a group's records may use: its own and its ancestors' labels. */
  async groupLabelsByIds(group: NamespaceRow, ids: readonly number[]): Promise<LabelRow[]> {
    if (!ids.length) return [];
    return this.db.label.findMany({ where: { groupId: { in: group.traversalIds }, id: { in: [...ids] } }, orderBy: { id: 'asc' } });
  }

  /** The labels among `ids` the project may use (its own and its groups'). */
  async availableByIds(project: ProjectRow, ids: readonly number[]): Promise<LabelRow[]> {
    if (!ids.length) return [];
    return this.db.label.findMany({ where: { AND: [await this.available({ project }, {}), { id: { in: [...ids] } }] } });
  }

  /** The parent a label belongs to, for asking abilities of it. */
  private async ownParent(label: LabelRow, through: TimeboxParent): Promise<TimeboxParentSubject> {
    if (label.projectId !== null) return 'project' in through && through.project.id === label.projectId ? { project: through.project } : { project: await this.projectOf(label.projectId) };
    if ('group' in through && through.group.id === label.groupId) return { group: through.group };
    const group = await this.db.namespace.findUniqueOrThrow({ where: { id: label.groupId ?? -1 } });
    return { group };
  }

  private async projectOf(id: number): Promise<ProjectRow> {
    const project = await this.base.loaders.projects.byId.load(id);
    if (!project) throw notFound('Project');
    return project;
  }

  /**
   * A new label of the parent. REST refuses a title any of the parent's labels (its groups' included) has with
   * `409 Label already exists`, as GitLab's API does before creating; a duplicate of the parent's own is a
   * validation failure, as GitLab's GraphQL reports it.
   */
  async create(parent: TimeboxParent, input: LabelInput): Promise<LabelView> {
    await this.base.access.authorize('admin_label', parentSubject(parent));
    if (this.base.rest && (await this.find(parent, input.title, {}))?.title === input.title) throw conflict('Label already exists');
    const draft = { title: input.title.trim(), color: colorOf(input.color ?? DEFAULT_COLOR), description: input.description ?? null };
    const errors = labelErrors(draft);
    const owner = 'project' in parent ? { projectId: parent.project.id } : { groupId: parent.group.id };
    if (!errors.title && (await this.db.label.count({ where: { ...owner, title: draft.title } }))) errors.title = ['has already been taken'];
    if (Object.keys(errors).length) throw invalid(errors);
    const label = await this.db.$transaction(async (tx) => {
      const created = await tx.label.create({ data: { ...draft, ...owner } });
      if ('project' in parent && input.priority != null) {
        await tx.labelPriority.create({ data: { projectId: parent.project.id, labelId: created.id, priority: input.priority } });
      }
      return created;
    });
    return { ...label, parent };
  }

  /**
   * Changes one of the parent's labels (its own, or for a project its group's); the priority is the project's.
   * GitLab's `find_label(…, include_ancestor_groups: false)`, then `update_label` asked of the label's own parent.
   */
  async update(parent: TimeboxParent, idOrTitle: string, changes: LabelChanges): Promise<LabelView> {
    await this.base.access.authorize('admin_label', parentSubject(parent));
    if (changes.newName == null && changes.color == null && changes.description === undefined && changes.priority === undefined) {
      throw atLeastOneOf('newName', 'color', 'description', ...('project' in parent ? ['priority'] : []));
    }
    const label = await this.find(parent, idOrTitle, { includeAncestorGroups: false });
    if (!label) throw notFound('Label');
    const data: Prisma.LabelUpdateInput = {};
    if (changes.newName != null) data.title = changes.newName.trim();
    if (changes.color != null) data.color = colorOf(changes.color);
    if (changes.description !== undefined) data.description = changes.description;
    if (Object.keys(data).length) {
      await this.base.access.authorize('admin_label', await this.ownParent(label, parent));
      const draft = { title: (data.title as string | undefined) ?? label.title, color: (data.color as string | undefined) ?? label.color, description: label.description };
      const errors = labelErrors(draft);
      const owner = label.projectId !== null ? { projectId: label.projectId } : { groupId: label.groupId };
      if (!errors.title && draft.title !== label.title && (await this.db.label.count({ where: { ...owner, title: draft.title, id: { not: label.id } } }))) {
        errors.title = ['has already been taken'];
      }
      if (Object.keys(errors).length) throw invalid(errors);
    }
    const updated = await this.db.$transaction(async (tx) => {
      const row = Object.keys(data).length ? await tx.label.update({ where: { id: label.id }, data }) : label;
      if ('project' in parent && changes.priority !== undefined) {
        const key = { projectId_labelId: { projectId: parent.project.id, labelId: label.id } };
        if (changes.priority === null) await tx.labelPriority.deleteMany({ where: { projectId: parent.project.id, labelId: label.id } });
        else await tx.labelPriority.upsert({ where: key, create: { projectId: parent.project.id, labelId: label.id, priority: changes.priority }, update: { priority: changes.priority } });
      }
      return row;
    });
    return { ...updated, parent };
  }

  /** Deletes one of the parent's labels (as `update` finds it), asked of the label's own parent. */
  async destroy(parent: TimeboxParent, idOrTitle: string): Promise<LabelView> {
    await this.authorizeRead(parent);
    const label = await this.find(parent, idOrTitle, { includeAncestorGroups: false });
    if (!label) throw notFound('Label');
    await this.base.access.authorize('admin_label', await this.ownParent(label, parent));
    // Issue and merge request label links will go with the label (their foreign keys cascade).
    await this.db.label.delete({ where: { id: label.id } });
    return label;
  }

  /**
   * GitLab's Labels::PromoteService: the project's label becomes a label of the project's group (the group's label
   * of that title if it has one), and every project label of that title in the group's projects is merged into it:
   * their priorities and subscriptions move to it and they are deleted. Issue label links will move the same way.
   */
  async promote(project: ProjectRow, idOrTitle: string): Promise<LabelView> {
    const group = project.namespace;
    if (group.kind !== 'group') throw badRequest(PROMOTE_FAILED);
    await this.base.access.authorize('admin_label', { group });
    const label = await this.find({ project }, idOrTitle, { includeAncestorGroups: false });
    if (!label) throw notFound('Label');
    if (label.projectId === null) throw badRequest(PROMOTE_FAILED);
    const promoted = await this.db.$transaction(async (tx) => {
      const groupLabel =
        (await tx.label.findFirst({ where: { groupId: group.id, title: label.title } })) ??
        (await tx.label.create({ data: { title: label.title, color: label.color, description: label.description, groupId: group.id } }));
      const merged = await tx.label.findMany({ where: { title: label.title, project: { namespaceId: group.id } }, select: { id: true } });
      const ids = merged.map((m) => m.id);
      const priorities = await tx.labelPriority.findMany({ where: { labelId: { in: ids } } });
      const subscriptions = await tx.labelSubscription.findMany({ where: { labelId: { in: ids } } });
      await tx.label.deleteMany({ where: { id: { in: ids } } });
      if (priorities.length) {
        await tx.labelPriority.createMany({ data: priorities.map((p) => ({ projectId: p.projectId, labelId: groupLabel.id, priority: p.priority })), skipDuplicates: true });
      }
      if (subscriptions.length) {
        await tx.labelSubscription.createMany({ data: subscriptions.map((s) => ({ userId: s.userId, projectId: s.projectId, labelId: groupLabel.id })), skipDuplicates: true });
      }
      return groupLabel;
    });
    return { ...promoted, parent: { group } };
  }

  /** Subscribes the viewer to a label in the parent; 304 when they already are (GitLab's subscriptions API). */
  async subscribe(parent: TimeboxParent, idOrTitle: string): Promise<LabelView> {
    const viewer = this.base.access.requireViewer();
    const label = await this.get(parent, idOrTitle);
    const projectId = 'project' in parent ? parent.project.id : null;
    if (await this.db.labelSubscription.findFirst({ where: { userId: viewer.id, labelId: label.id, projectId } })) throw notModified();
    await this.db.labelSubscription.createMany({ data: [{ userId: viewer.id, labelId: label.id, projectId }], skipDuplicates: true });
    return label;
  }

  /** Ends the viewer's subscription to a label in the parent; 304 when there is none. */
  async unsubscribe(parent: TimeboxParent, idOrTitle: string): Promise<LabelView> {
    const viewer = this.base.access.requireViewer();
    const label = await this.get(parent, idOrTitle);
    const projectId = 'project' in parent ? parent.project.id : null;
    const { count } = await this.db.labelSubscription.deleteMany({ where: { userId: viewer.id, labelId: label.id, projectId } });
    if (!count) throw notModified();
    return label;
  }
}

/**
 * IssuableFinder's label filter (`labels=a,b`: every one of them; `None`: no label; `Any`: at least one) as conditions
 * on an issuable's label links, the same for issues, merge requests and epics: filtered in SQL, never by lists of ids.
 */
export function labelConditions(titles: readonly string[] | null | undefined): { labelLinks: { some: object } | { none: object } }[] {
  const labels = titles ?? [];
  if (labels.length === 1 && /^none$/i.test(labels[0])) return [{ labelLinks: { none: {} } }];
  if (labels.length === 1 && /^any$/i.test(labels[0])) return [{ labelLinks: { some: {} } }];
  return labels.map((title) => ({ labelLinks: { some: { label: { title } } } }));
}
