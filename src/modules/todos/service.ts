/**
 * Owns to-do items (GitLab's Todo): TodosFinder's list of the viewer's own to-do items with its filters, shown only
 * while their target stays readable (through the target's own policy, in the list's SQL), marking done and restoring
 * (TodoPolicy: one's own items about a readable target), and creating them as GitLab's TodoService does: `assigned`
 * for new assignees of an issue (not for assigning oneself), `directly_addressed`/`mentioned` for users an issue's or
 * epic's description or a note names who may read it, `marked` when a user adds one, and the closer's pending ones
 * resolved when an issue closes. Merge requests get theirs as GitLab's do: `assigned`, `review_requested` and
 * mentions on create and update, mentions in their notes, `build_failed` when their head pipeline fails, and the
 * merger's or closer's pending ones resolved (16.3's `review_submitted` comes only from EE's AI review summaries: not
 * made). Items whose target a user lost are deleted where GitLab deletes them (Todos::Destroy::EntityLeaveService on
 * leaving a project or group, ConfidentialIssueService when an issue turns confidential).
 */
import DataLoader from 'dataloader';
import type { Prisma } from '../../db/database.js';
import { allowedWhere, can, type SubjectAbility } from '../../auth/policy.js';
import type { Actor } from '../../auth/rules.js';
import { equalsIgnoringCase } from '../../db/text.js';
import { userViewer } from '../../auth/viewer.js';
import { notFound, notModified, recordNotFound } from '../../errors.js';
import { connection, listConnection, type PageArgs } from '../../graphql/connection.js';
import { referencedIn } from '../../markdown.js';
import type { ServiceBase } from '../module.js';
import type { Noteable } from '../notes/noteables.js';
import type { NoteRow } from '../notes/service.js';
import type { ProjectRow } from '../projects/service.js';
import type { AlertRow } from '../alert_management/service.js';
import type { IssueRow } from '../issues/service.js';
import { issueRowInclude, issueSubjectOf, type IssueSubject } from '../issues/policy.js';
import type { EpicRow } from '../epics/service.js';
import type { EpicSubject } from '../epics/policy.js';
import type { NamespaceRow } from '../namespaces/service.js';
import { mergeRequestSubject, type MergeRequestRow } from '../merge_requests/service.js';
import type { MergeRequestSubject } from '../merge_requests/policy.js';

export const TODO_ISSUE = 'Issue';
export const TODO_ALERT = 'AlertManagement::Alert';
export const TODO_MERGE_REQUEST = 'MergeRequest';
export const TODO_EPIC = 'Epic';

/** GitLab's Todo::ACTION_NAMES, in its order. */
export const TODO_ACTIONS = [
  'assigned',
  'mentioned',
  'build_failed',
  'marked',
  'approval_required',
  'unmergeable',
  'directly_addressed',
  'merge_train_removed',
  'review_requested',
  'member_access_requested',
  'review_submitted',
  'okr_checkin_requested',
  'added_approver',
  'ssh_key_expired',
  'ssh_key_expiring_soon',
] as const;
export type TodoAction = (typeof TODO_ACTIONS)[number];

const withTarget = {
  issue: { include: issueRowInclude },
  alert: true,
  mergeRequest: { select: { id: true, iid: true, title: true } },
  epic: { select: { id: true, iid: true, title: true, groupId: true } },
  note: { select: { id: true, note: true } },
} as const;

export type TodoRow = Prisma.TodoGetPayload<{ include: typeof withTarget }>;

/** TodosFinder's filters (REST's parameters, GraphQL's arguments); each a list, any of whose values matches. */
export interface TodoFilters {
  action?: readonly string[] | null;
  authorId?: readonly number[] | null;
  projectId?: readonly number[] | null;
  groupId?: readonly number[] | null;
  state?: readonly string[] | null;
  type?: readonly string[] | null;
}

/** What a new to-do item is about: in a project, or (an epic) in a group. */
interface Target {
  type: string;
  id: number;
  projectId: number | null;
  groupId?: number | null;
}

const targetColumns = (target: Target) => ({
  targetType: target.type,
  targetId: target.id,
  issueId: target.type === TODO_ISSUE ? target.id : null,
  alertId: target.type === TODO_ALERT ? target.id : null,
  mergeRequestId: target.type === TODO_MERGE_REQUEST ? target.id : null,
  epicId: target.type === TODO_EPIC ? target.id : null,
});

/** The lines' leading mentions (GitLab's directly addressed users): `@a @b text` at the start of a line addresses a and b. */
export function directlyAddressed(text: string): string[] {
  const names = new Set<string>();
  for (const line of text.split('\n')) {
    const lead = /^\s*((?:@[A-Za-z0-9_](?:[A-Za-z0-9_.-]*[A-Za-z0-9_-])?[\s,]*)+)/.exec(line);
    if (lead) for (const name of referencedIn(lead[1], []).usernames) names.add(name);
  }
  return [...names];
}

export class TodosService {
  constructor(private readonly base: ServiceBase) {}

  private get db() {
    return this.base.db;
  }

  /** The viewer's to-do items whose target the viewer may still read (TodosFinder), with the filters. */
  private async where(filters: TodoFilters): Promise<Prisma.TodoWhereInput> {
    const viewer = this.base.access.requireViewer();
    const and: Prisma.TodoWhereInput[] = [{ userId: viewer.id }];
    and.push({ state: { in: filters.state?.length ? [...filters.state] : ['pending'] } });
    if (filters.action?.length) and.push({ action: { in: [...filters.action] } });
    if (filters.authorId?.length) and.push({ authorId: { in: [...filters.authorId] } });
    if (filters.projectId?.length) and.push({ projectId: { in: [...filters.projectId] } });
    if (filters.groupId?.length) {
      // Todo.for_group_ids_and_descendants: in the groups' projects (their subgroups' too), or about the groups.
      const inGroups = filters.groupId.map((id) => ({ project: { is: { namespace: { traversalIds: { has: id } } } } }));
      and.push({ OR: [...inGroups, { groupId: { in: [...filters.groupId] } }] });
    }
    if (filters.type?.length) and.push({ targetType: { in: [...filters.type] } });
    and.push(await this.readableTargets());
    return { AND: and };
  }

  /**
   * Items whose target the actor (the viewer unless given) may read, each through its own policy's list filter
   * (IssuePolicy's read_issue, MergeRequestPolicy's read_merge_request, ProjectPolicy's alert reading, EpicPolicy's
   * read_epic while epics are available): GitLab's Todos::AllowedTargetFilterService, in the list's SQL.
   */
  private async readableTargets(actor?: Actor): Promise<Prisma.TodoWhereInput> {
    const where = <A extends SubjectAbility>(ability: A) => (actor ? allowedWhere(actor, ability) : this.base.access.where(ability));
    const issues = await where('read_issue');
    const alertProjects = await where('read_alert_management_alert');
    const mergeRequests = await where('read_merge_request');
    const targets: Prisma.TodoWhereInput[] = [
      { targetType: TODO_ISSUE, issue: { is: { AND: [issues, { project: { pendingDelete: false } }] } } },
      { targetType: TODO_ALERT, alert: { is: { project: { AND: [alertProjects, { pendingDelete: false }] } } } },
      { targetType: TODO_MERGE_REQUEST, mergeRequest: { is: { AND: [mergeRequests, { project: { pendingDelete: false } }] } } },
    ];
    if (this.base.app.config.epicsEnabled) targets.push({ targetType: TODO_EPIC, epic: { is: await where('read_epic') } });
    return { OR: targets };
  }

  /** Another user as a policy actor (memberships, and the ancestors some rules read), as a request of theirs would be. */
  private async actorOf(userId: number): Promise<Actor | null> {
    const viewer = await userViewer(this.db, userId);
    if (!viewer) return null;
    const [memberships, own, shared] = await Promise.all([
      this.base.app.memberships.of(userId, 'write'),
      this.base.loaders.members.ancestorsOf.load(userId),
      this.base.loaders.sharing.ancestorsOf.load(userId),
    ]);
    return { viewer, memberships, ancestors: shared.size ? new Set([...own, ...shared]) : own };
  }

  /**
   * Todos::Destroy::EntityLeaveService: the user left (or was removed from) a project or a group; their items about
   * what they may no longer read there (the group's subgroups' projects and epics too) are deleted. Called once the
   * removal is settled, so the user's memberships are read as they are now.
   */
  async entityLeft(userId: number, entity: { projectId: number } | { groupId: number }): Promise<void> {
    const actor = await this.actorOf(userId);
    if (!actor) return;
    const inEntity: Prisma.TodoWhereInput =
      'projectId' in entity
        ? { projectId: entity.projectId }
        : {
            OR: [
              { project: { is: { namespace: { traversalIds: { has: entity.groupId } } } } },
              { epic: { is: { group: { traversalIds: { has: entity.groupId } } } } },
            ],
          };
    // Without the epics licence their items are neither shown nor judged: they stay.
    const judged: Prisma.TodoWhereInput = this.base.app.config.epicsEnabled ? {} : { targetType: { not: TODO_EPIC } };
    await this.db.todo.deleteMany({ where: { userId, AND: [inEntity, judged, { NOT: await this.readableTargets(actor) }] } });
  }

  /**
   * Todos::Destroy::ConfidentialIssueService (and EE's epic counterpart): a target turned confidential; the items
   * about it of users who may no longer read it are deleted.
   */
  private async confidentialTarget(target: Target, readable: (actor: Actor) => boolean): Promise<void> {
    const holders = (await this.db.todo.findMany({ where: { targetType: target.type, targetId: target.id }, select: { userId: true }, distinct: ['userId'] })).map((h) => h.userId);
    const readers = new Set(await this.usersWho(holders, readable));
    const lost = holders.filter((id) => !readers.has(id));
    if (lost.length) await this.db.todo.deleteMany({ where: { targetType: target.type, targetId: target.id, userId: { in: lost } } });
  }

  /** GET /todos and `currentUser.todos`: newest first. */
  async list(filters: TodoFilters, page: PageArgs) {
    const where = await this.where(filters);
    return connection(
      page,
      ({ skip, take }) => this.db.todo.findMany({ where, orderBy: [{ id: 'desc' }], skip, take, include: withTarget }),
      () => this.db.todo.count({ where }),
    );
  }

  /**
   * One of the viewer's own to-do items about a target they may read (TodoPolicy's read_todo: `own_todo &
   * can_read_target`); null for anyone else's, one about a target they lost, or for anonymous callers.
   */
  async find(id: number): Promise<TodoRow | null> {
    if (!this.base.viewer) return null;
    return this.db.todo.findFirst({ where: { AND: [{ id }, await this.where({ state: ['pending', 'done'] })] }, include: withTarget });
  }

  /** TodoPolicy's update_todo (read_todo's own item about a readable target): GitLab's not found otherwise. */
  private async own(id: number): Promise<TodoRow> {
    this.base.access.requireViewer();
    const todo = await this.find(id);
    if (!todo) throw recordNotFound();
    return todo;
  }

  private async setState(id: number, state: 'done' | 'pending'): Promise<TodoRow> {
    const todo = await this.own(id);
    if (todo.state === state) return todo;
    return this.db.todo.update({ where: { id: todo.id }, data: { state, updatedAt: new Date() }, include: withTarget });
  }

  /** POST /todos/:id/mark_as_done, todoMarkDone. */
  markDone(id: number): Promise<TodoRow> {
    return this.setState(id, 'done');
  }

  /** todoRestore: back to pending. */
  restore(id: number): Promise<TodoRow> {
    return this.setState(id, 'pending');
  }

  /** POST /todos/mark_as_done, todosMarkAllDone: every pending item the finder shows (about one target when given); the ids changed. */
  async markAllDone(target?: { type: string; id: number } | null): Promise<number[]> {
    const where = await this.where({});
    const about = target ? { targetType: target.type, targetId: target.id } : {};
    const rows = await this.db.todo.findMany({ where: { AND: [where, about] }, select: { id: true } });
    const ids = rows.map((r) => r.id);
    if (ids.length) await this.db.todo.updateMany({ where: { id: { in: ids }, state: 'pending' }, data: { state: 'done', updatedAt: new Date() } });
    return ids;
  }

  /**
   * CurrentUserTodos#current_user_todos: the viewer's items about one target, newest first, `pending` and `done` unless
   * a state is asked for; none for an anonymous caller.
   */
  async about(target: { type: string; id: number }, state: 'pending' | 'done' | null | undefined, page: PageArgs) {
    if (!this.base.access.viewer) return listConnection(page, []);
    const all = await this.aboutTargets.load(`${target.type}:${target.id}`);
    return listConnection(page, state ? all.filter((todo) => todo.state === state) : all);
  }

  /** The viewer's items, pending and done, about each target (`type:id`), newest first: one query for a page of targets. */
  private aboutTargets = new DataLoader<string, TodoRow[]>(async (keys) => {
    const targets = keys.map((key) => ({ type: key.slice(0, key.lastIndexOf(':')), id: Number(key.slice(key.lastIndexOf(':') + 1)) }));
    const rows = await this.db.todo.findMany({
      where: { AND: [await this.where({ state: ['pending', 'done'] }), { OR: targets.map((t) => ({ targetType: t.type, targetId: t.id })) }] },
      orderBy: [{ id: 'desc' }],
      include: withTarget,
    });
    return targets.map((t) => rows.filter((r) => r.targetType === t.type && r.targetId === t.id));
  });

  /**
   * TodoService#create_request_review_todo: a `review_requested` item for the reviewer about the merge request, by
   * the viewer (unless the reviewer has one pending about it).
   */
  async reviewRequested(mergeRequest: { id: number; projectId: number }, reviewerId: number): Promise<void> {
    const viewer = this.base.access.requireViewer();
    await this.createFor([reviewerId], { type: TODO_MERGE_REQUEST, id: mergeRequest.id, projectId: mergeRequest.projectId }, viewer.id, 'review_requested');
  }

  /** TodoService#todo_exist?: whether the viewer has a pending item about the target. */
  async pendingAbout(target: { type: string; id: number }): Promise<boolean> {
    const viewer = this.base.access.requireViewer();
    return (await this.db.todo.count({ where: { userId: viewer.id, state: 'pending', targetType: target.type, targetId: target.id } })) > 0;
  }

  /** To-do items by id, as they are now, in the order given. */
  async byIds(ids: readonly number[]): Promise<TodoRow[]> {
    const rows = await this.db.todo.findMany({ where: { id: { in: [...ids] } }, include: withTarget });
    const found = new Map(rows.map((r) => [r.id, r]));
    return ids.map((id) => found.get(id)).filter((r): r is TodoRow => !!r);
  }

  /**
   * TodoService#mark_todo: a `marked` item for the viewer about a target the caller already found and authorised,
   * unless the viewer has one pending about it (null then).
   */
  async mark(target: Target): Promise<TodoRow | null> {
    const viewer = this.base.access.requireViewer();
    const created = await this.createFor([viewer.id], target, viewer.id, 'marked');
    return created[0] ?? null;
  }

  /**
   * POST /projects/:id/issues/:issue_iid/todo, …/merge_requests/:merge_request_iid/todo and
   * /groups/:id/epics/:epic_iid/todo (the caller found and authorised the target): the new item, or GitLab's 304
   * when one is pending.
   */
  async markOrNotModified(target: Target): Promise<TodoRow> {
    const todo = await this.mark(target);
    if (!todo) throw notModified();
    return todo;
  }

  /**
   * AlertManagement::Alerts::Todo::CreateService: Developers (`update_alert_management_alert`) add a `marked` item
   * about an alert; one already pending is GitLab's error, with the alert still in the payload.
   */
  async markAlert(project: ProjectRow, alert: AlertRow): Promise<{ alert: AlertRow; todo: TodoRow | null; errors: string[] }> {
    await this.base.access.authorize('update_alert_management_alert', project);
    const todo = await this.mark({ type: TODO_ALERT, id: alert.id, projectId: project.id });
    return todo ? { alert, todo, errors: [] } : { alert, todo: null, errors: ['You already have pending todo for this alert'] };
  }

  /**
   * TodoService#reassigned_assignable for an alert (AlertManagement::Alerts::UpdateService on new assignees): each user
   * newly assigned, the viewer too, gets an `assigned` item unless one is pending. The items made.
   */
  alertAssigned(alert: AlertRow, userIds: readonly number[]): Promise<TodoRow[]> {
    const viewer = this.base.access.requireViewer();
    return this.createFor(userIds, { type: TODO_ALERT, id: alert.id, projectId: alert.projectId }, viewer.id, 'assigned');
  }

  /**
   * TodoService#resolve_todos_for_target for an alert the viewer resolved (AlertManagement::Alerts::UpdateService): their
   * pending items about it become done. The newest of them, as it is now, or null when they had none.
   */
  async alertResolved(alert: AlertRow): Promise<TodoRow | null> {
    const viewer = this.base.access.requireViewer();
    const pending = await this.db.todo.findMany({ where: { userId: viewer.id, state: 'pending', targetType: TODO_ALERT, targetId: alert.id }, select: { id: true }, orderBy: { id: 'desc' } });
    if (!pending.length) return null;
    await this.resolveFor(viewer.id, { type: TODO_ALERT, id: alert.id, projectId: alert.projectId });
    const [newest] = await this.byIds([pending[0]!.id]);
    return newest ?? null;
  }

  /**
   * TodoService#create_todos: one item per user who has none pending about the target (GitLab's single to-do per
   * target), all made at once.
   */
  private async createFor(userIds: readonly number[], target: Target, authorId: number, action: TodoAction, noteId: number | null = null): Promise<TodoRow[]> {
    const wanted = [...new Set(userIds)];
    if (!wanted.length) return [];
    const pending = await this.db.todo.findMany({
      where: { userId: { in: wanted }, state: 'pending', targetType: target.type, targetId: target.id },
      select: { userId: true },
    });
    const skip = new Set(pending.map((p) => p.userId));
    const users = wanted.filter((id) => !skip.has(id));
    if (!users.length) return [];
    const at = new Date();
    const made = await this.db.todo.createManyAndReturn({
      data: users.map((userId) => ({ userId, authorId, projectId: target.projectId, groupId: target.groupId ?? null, ...targetColumns(target), noteId, action, createdAt: at, updatedAt: at })),
      select: { id: true },
    });
    return this.byIds(made.map((m) => m.id));
  }

  /** Of these users, those the check allows, each asked as a policy actor of their own. */
  private async usersWho(userIds: readonly number[], may: (actor: Actor) => boolean): Promise<number[]> {
    const allowed: number[] = [];
    for (const id of new Set(userIds)) {
      const actor = await this.actorOf(id);
      if (actor && may(actor)) allowed.push(id);
    }
    return allowed;
  }

  /**
   * Who may read the issue (IssuePolicy's read_issue) and, for an internal note, its internal notes (Note#mentioned_users'
   * users_that_can_read_internal_notes).
   */
  private readsIssue(subject: IssueSubject, internal = false): (actor: Actor) => boolean {
    return (actor) => can(actor, 'read_issue', subject) && (!internal || can(actor, 'read_internal_note', subject.inProject));
  }

  /** Who may read the epic (EpicPolicy's read_epic). */
  private readsEpic(subject: EpicSubject): (actor: Actor) => boolean {
    return (actor) => can(actor, 'read_epic', subject);
  }

  /** Users by the usernames a text mentions (GitLab's Mentionable#mentioned_users, directly addressed first). */
  private async mentions(text: string | null): Promise<{ direct: number[]; mentioned: number[] }> {
    if (!text) return { direct: [], mentioned: [] };
    const all = referencedIn(text, []).usernames;
    if (!all.length) return { direct: [], mentioned: [] };
    const users = await this.db.user.findMany({ where: { OR: all.map((name) => ({ username: equalsIgnoringCase(name) })) }, select: { id: true, username: true } });
    const direct = new Set(directlyAddressed(text));
    return {
      direct: users.filter((u) => direct.has(u.username.toLowerCase())).map((u) => u.id),
      mentioned: users.filter((u) => !direct.has(u.username.toLowerCase())).map((u) => u.id),
    };
  }

  /** TodoService#create_mention_todos: directly addressed users first, then the others mentioned, each needing to read the target. */
  private async mentionTodos(readers: (userIds: number[]) => Promise<number[]>, target: Target, text: string | null, skip: ReadonlySet<number>, noteId: number | null): Promise<void> {
    const authorId = this.base.access.requireViewer().id;
    const { direct, mentioned } = await this.mentions(text);
    await this.createFor(await readers(direct.filter((id) => !skip.has(id))), target, authorId, 'directly_addressed', noteId);
    await this.createFor(await readers(mentioned.filter((id) => !skip.has(id))), target, authorId, 'mentioned', noteId);
  }

  /** Users mentioned before, whose mentions in the new text make no new items (TodoService#update_issuable's `skip_users`). */
  private async alreadyMentioned(before: string | null | undefined): Promise<Set<number>> {
    const already = await this.mentions(before ?? null);
    return new Set([...already.direct, ...already.mentioned]);
  }

  /**
   * TodoService#new_issue, #update_issue, #reassigned_assignable and #close_issue in one: `before` is the issue as it
   * was (null for a new one). New assignees other than the viewer get `assigned`; users newly mentioned in the
   * description get theirs; closing resolves the viewer's pending items about it.
   */
  async issueChanged(project: ProjectRow, before: IssueRow | null, issue: IssueRow): Promise<void> {
    const viewer = this.base.access.requireViewer();
    const subject = issueSubjectOf(project, issue);
    const target = { type: TODO_ISSUE, id: issue.id, projectId: project.id };
    const old = new Set(before?.assignees.map((a) => a.userId) ?? []);
    const assignees = subject.assigneeIds.filter((id) => !old.has(id) && id !== viewer.id);
    await this.createFor(assignees, target, viewer.id, 'assigned');
    if (!before || before.description !== issue.description) {
      await this.mentionTodos((ids) => this.usersWho(ids, this.readsIssue(subject)), target, issue.description, await this.alreadyMentioned(before?.description), null);
    }
    if (before && before.state !== 'closed' && issue.state === 'closed') await this.resolveFor(viewer.id, target);
    if (before && !before.confidential && issue.confidential) {
      await this.confidentialTarget(target, this.readsIssue(subject));
    }
  }

  /**
   * TodoService#new_epic and #update_epic (EE): users newly mentioned in an epic's description who may read the epic
   * get their items; an epic turned confidential loses the items of those who no longer may.
   */
  async epicChanged(group: NamespaceRow, before: EpicRow | null, epic: EpicRow): Promise<void> {
    const subject: EpicSubject = { inGroup: group, confidential: epic.confidential };
    const target: Target = { type: TODO_EPIC, id: epic.id, projectId: null, groupId: group.id };
    if (!before || before.description !== epic.description) {
      await this.mentionTodos((ids) => this.usersWho(ids, this.readsEpic(subject)), target, epic.description, await this.alreadyMentioned(before?.description), null);
    }
    if (before && !before.confidential && epic.confidential) await this.confidentialTarget(target, this.readsEpic(subject));
  }

  /** Who may read the merge request (MergeRequestPolicy's read_merge_request) and, for an internal note, its internal notes. */
  private readsMergeRequest(subject: MergeRequestSubject, internal = false): (actor: Actor) => boolean {
    return (actor) => can(actor, 'read_merge_request', subject) && (!internal || can(actor, 'read_internal_note', subject.inProject));
  }

  /**
   * TodoService#new_merge_request, #update_merge_request, #reassigned_assignable, #reassigned_reviewable,
   * #close_merge_request and #merge_merge_request in one: `before` is the merge request as it was (null for a new
   * one). New assignees other than the viewer get `assigned`, new reviewers `review_requested`; users newly mentioned in the description who may read it get theirs; closing or
   * merging resolves the viewer's pending items about it (GitLab resolves the acting user's alone).
   */
  async mergeRequestChanged(project: ProjectRow, before: MergeRequestRow | null, mr: MergeRequestRow): Promise<void> {
    const viewer = this.base.access.requireViewer();
    const subject = mergeRequestSubject(project, mr);
    const target: Target = { type: TODO_MERGE_REQUEST, id: mr.id, projectId: project.id };
    const old = new Set(before?.assignees.map((a) => a.userId) ?? []);
    await this.createFor(subject.assigneeIds.filter((id) => !old.has(id) && id !== viewer.id), target, viewer.id, 'assigned');
    // TodoService#create_reviewer_todo (new_issuable, reassigned_reviewable): each new reviewer, whoever asked.
    const oldReviewers = new Set(before?.reviewers.map((r) => r.userId) ?? []);
    await this.createFor(mr.reviewers.map((r) => r.userId).filter((id) => !oldReviewers.has(id)), target, viewer.id, 'review_requested');
    if (!before || before.description !== mr.description) {
      await this.mentionTodos((ids) => this.usersWho(ids, this.readsMergeRequest(subject)), target, mr.description, await this.alreadyMentioned(before?.description), null);
    }
    if (before && before.state === 'opened' && (mr.state === 'closed' || mr.state === 'merged')) await this.resolveFor(viewer.id, target);
  }

  /**
   * TodoService#merge_request_build_failed (MergeRequests::AddTodoWhenBuildFailsService): the merge request's head
   * pipeline failed; its author gets a `build_failed` item, authored by themselves, and so does the user who set it to
   * merge when the pipeline succeeds. Run by a job, so no viewer is asked.
   */
  async mergeRequestBuildFailed(mr: Pick<MergeRequestRow, 'id' | 'projectId' | 'authorId' | 'autoMergeEnabled' | 'mergeUserId'>): Promise<void> {
    const target: Target = { type: TODO_MERGE_REQUEST, id: mr.id, projectId: mr.projectId };
    if (mr.authorId !== null) await this.createFor([mr.authorId], target, mr.authorId, 'build_failed');
    if (mr.autoMergeEnabled && mr.mergeUserId !== null) await this.createFor([mr.mergeUserId], target, mr.mergeUserId, 'build_failed');
  }

  /**
   * TodoService#new_note on an issue, a merge request or an epic: the author's pending items about it are resolved,
   * and those the note addresses or mentions who may read it get theirs (and, for an internal note, its internal
   * notes). Other noteables make none yet.
   */
  async noteCreated(n: Noteable, note: NoteRow): Promise<void> {
    if (n.id === null || note.system) return;
    if (n.type === TODO_EPIC) {
      const epic = (n as Noteable & { epic?: EpicRow }).epic;
      const group = epic && (await this.base.loaders.namespaces.byId.load(epic.groupId));
      if (!epic || !group) return;
      const subject: EpicSubject = { inGroup: group, confidential: epic.confidential };
      const target: Target = { type: TODO_EPIC, id: epic.id, projectId: null, groupId: group.id };
      await this.resolveFor(note.authorId, target);
      await this.mentionTodos((ids) => this.usersWho(ids, this.readsEpic(subject)), target, note.note, new Set(), note.id);
      return;
    }
    if (n.type === TODO_MERGE_REQUEST && n.project) {
      const mr = (n as Noteable & { mergeRequest?: MergeRequestRow }).mergeRequest;
      if (!mr) return;
      const subject = mergeRequestSubject(n.project, mr);
      const target: Target = { type: TODO_MERGE_REQUEST, id: mr.id, projectId: n.project.id };
      await this.resolveFor(note.authorId, target);
      await this.mentionTodos((ids) => this.usersWho(ids, this.readsMergeRequest(subject, note.internal)), target, note.note, new Set(), note.id);
      return;
    }
    if (n.type !== TODO_ISSUE || !n.project) return;
    const issue = (n as Noteable & { issue?: IssueRow }).issue;
    if (!issue) return;
    const subject = issueSubjectOf(n.project, issue);
    const target = { type: TODO_ISSUE, id: issue.id, projectId: n.project.id };
    await this.resolveFor(note.authorId, target);
    await this.mentionTodos((ids) => this.usersWho(ids, this.readsIssue(subject, note.internal)), target, note.note, new Set(), note.id);
  }

  /** TodoService#resolve_todos_for_target: the user's pending items about the target become done. */
  private async resolveFor(userId: number, target: Target): Promise<void> {
    await this.db.todo.updateMany({ where: { userId, state: 'pending', targetType: target.type, targetId: target.id }, data: { state: 'done', updatedAt: new Date() } });
  }

  /** The project of an item (null for group items), through the projects loader. */
  async projectOf(todo: TodoRow): Promise<ProjectRow | null> {
    if (todo.projectId === null) return null;
    const project = await this.base.loaders.projects.byId.load(todo.projectId);
    if (!project) throw notFound('Project');
    return project;
  }
}
