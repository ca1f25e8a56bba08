/**
 * Quick actions (GitLab's QuickActions::InterpretService, Notes::QuickActionsService and IssuableBaseService's
 * handle_quick_actions): the commands of a note or of an issue's, merge request's or epic's description, interpreted
 * with the definitions of this folder and applied through the owning modules' services, so every change asks the
 * ability, writes the system notes and events and announces itself exactly as the direct change (REST or GraphQL)
 * does. Nothing here writes a table.
 */
import type { EpicChanges, EpicRow } from '../epics/service.js';
import type { IssueChanges, IssueInput, IssueRow } from '../issues/service.js';
import type { HealthStatus, IssueType, Severity } from '../issues/incidents.js';
import type { MergeRequestChanges, MergeRequestInput, MergeRequestRow } from '../merge_requests/service.js';
import type { ServiceBase, Services } from '../module.js';
import type { NamespaceRow } from '../namespaces/service.js';
import type { Noteable } from '../notes/noteables.js';
import type { ProjectRow } from '../projects/service.js';
import { participant } from '../subscriptions/service.js';
import { interpret, Run, type AnyCommand, type Interpretation, type QuickActionParams, type Target, type Updates } from './engine.js';
import { epicActions } from './epic_actions.js';
import { issuableActions } from './issuable_actions.js';
import { issueActions } from './issue_actions.js';
import { mergeRequestActions } from './merge_request_actions.js';

/** Every command, in GitLab's order of definition. */
const DEFINITIONS: readonly AnyCommand[] = [...issuableActions, ...issueActions, ...mergeRequestActions, ...epicActions];

/** What a note's commands did (Note#commands_changes and the errors Notes::CreateService adds). */
export interface NoteCommands {
  /** The updates applied, by GitLab's parameter names (REST's `commands_changes`). */
  changes: Updates;
  /** The commands' messages, joined (REST's `summary` holds it as its one element); empty when none spoke. */
  message: string;
  /** The commands' names, as written. */
  commandNames: string[];
  /** The note held nothing but commands: no note is made. */
  only: boolean;
}

/** A note's commands, interpreted before the note is saved and applied once it is (Notes::CreateService). */
export interface PendingNoteCommands {
  /** The note's text without its commands. */
  content: string;
  /** The note held nothing but commands. */
  only: boolean;
  /** Applies the commands' updates (`noteId`: the saved note holding them, which logged time points at); what they did. */
  apply(noteId?: number): Promise<NoteCommands>;
}

const ids = (value: unknown) => value as number[] | undefined;

/** The titles of labels commands named, by id (merge requests and epics take labels by title). */
const titlesOf = (run: Run, list: number[] | undefined) => list?.map((id) => run.labelTitles.get(id)).filter((x): x is string => !!x);

/** What commands set that an issue takes as attributes alike on create and on update. */
function issueAttributes(u: Updates): Pick<IssueChanges, 'assigneeIds' | 'milestoneId' | 'dueDate' | 'weight' | 'confidential' | 'issueType'> {
  const attributes: Pick<IssueChanges, 'assigneeIds' | 'milestoneId' | 'dueDate' | 'weight' | 'confidential' | 'issueType'> = {};
  if (u.assignee_ids !== undefined) attributes.assigneeIds = ids(u.assignee_ids);
  if (u.milestone_id !== undefined) attributes.milestoneId = u.milestone_id as number | null;
  if (u.due_date !== undefined) attributes.dueDate = u.due_date as string | null;
  if (u.weight !== undefined) attributes.weight = u.weight as number | null;
  if (u.confidential !== undefined) attributes.confidential = u.confidential as boolean;
  if (u.issue_type !== undefined) attributes.issueType = u.issue_type as IssueType;
  return attributes;
}

export class QuickActionsService {
  constructor(private readonly base: ServiceBase) {}

  private run(services: Services, target: Target): Run {
    return new Run(target, services, this.base.access, this.base.loaders, this.base.access.requireViewer().id);
  }

  /** InterpretService#execute: the text's commands run against the target (nothing applied yet). */
  private interpret(services: Services, target: Target, text: string, params: QuickActionParams = {}): Promise<{ run: Run; result: Interpretation }> {
    const run = this.run(services, target);
    run.params = params;
    return interpret(DEFINITIONS, run, text).then((result) => ({ run, result }));
  }

  /** The target a noteable is, for the kinds whose notes run commands (issues, merge requests, epics); null otherwise. */
  private async targetOfNoteable(services: Services, n: Noteable): Promise<Target | null> {
    const row = n as Noteable & { issue?: IssueRow; mergeRequest?: MergeRequestRow; epic?: EpicRow };
    if (n.type === 'Issue' && n.project && row.issue) return { type: 'Issue', project: n.project, issue: row.issue };
    if (n.type === 'MergeRequest' && n.project && row.mergeRequest) return { type: 'MergeRequest', project: n.project, mergeRequest: row.mergeRequest };
    if (n.type === 'Epic' && row.epic) return { type: 'Epic', group: await services.epics.group({ id: row.epic.groupId }), epic: row.epic };
    return null;
  }

  /**
   * A note's commands (Notes::QuickActionsService#execute), or null for noteables whose notes run none (commits,
   * snippets) or texts with no command. Signed-in users only, as every note's author is.
   */
  async forNote(services: Services, n: Noteable, text: string, params: QuickActionParams = {}): Promise<PendingNoteCommands | null> {
    // No line starts with `/`: no command, nothing to look up.
    if (!/^\//m.test(text)) return null;
    const target = await this.targetOfNoteable(services, n);
    if (!target) return null;
    const { run, result } = await this.interpret(services, target, text, params);
    if (!result.count) return null;
    const only = result.content.trim() === '';
    return {
      content: result.content,
      only,
      apply: async (noteId?: number) => {
        // Notes::QuickActionsService#execute: time spent from a saved note names it (the timelog's note_id).
        if (noteId !== undefined && run.updates.spend_time) run.updates.spend_time = { ...(run.updates.spend_time as object), note_id: noteId };
        await this.apply(run.services, run, {});
        return { changes: result.updates, message: result.message, commandNames: result.commandNames, only };
      },
    };
  }

  /**
   * Issues::CreateService with quick actions in the description: the description without them, and what they set
   * merged into the new issue's attributes (GitLab drops a `state_event` on create); what a new issue cannot take as
   * an attribute (an epic, an estimate) follows once it exists, as GitLab's after_create does.
   */
  async createIssue(services: Services, project: ProjectRow, input: IssueInput): Promise<IssueRow> {
    const taken = ['label_ids', 'add_label_ids', 'assignee_ids', 'milestone_id', 'due_date', 'weight', 'confidential', 'issue_type', 'state_event'];
    const { row: issue, run } = await this.creating(services, input, { type: 'Issue', project, issue: null }, (merged) => services.issues.create(project, merged), (u, merged) => {
      const labelIds = [...(input.labelIds ?? []), ...(ids(u.label_ids) ?? []), ...(ids(u.add_label_ids) ?? [])];
      if (labelIds.length) merged.labelIds = labelIds;
      Object.assign(merged, issueAttributes(u));
    });
    const rest = Object.entries(run?.updates ?? {}).filter(([key]) => !taken.includes(key));
    if (!rest.length) return issue;
    const after = this.run(services, { type: 'Issue', project, issue });
    Object.assign(after.updates, Object.fromEntries(rest));
    return (await this.apply(services, after, {})) as IssueRow;
  }

  /**
   * A creation whose description may hold commands: without any, the plain creation; with some, the description
   * without them and what they set merged into the input (`merge` writes into the copy it is given).
   */
  private async creating<I extends { description?: string | null }, T>(
    services: Services,
    input: I,
    target: Target,
    create: (input: I) => Promise<T>,
    merge: (updates: Updates, merged: I, run: Run) => void,
  ): Promise<{ row: T; run: Run | null }> {
    if (!input.description) return { row: await create(input), run: null };
    const { run, result } = await this.interpret(services, target, input.description);
    if (!result.count) return { row: await create(input), run: null };
    const merged = { ...input, description: result.content };
    merge(result.updates, merged, run);
    return { row: await create(merged), run };
  }

  /** Issues::UpdateService with quick actions in a new description: one update of what was asked and what they set. */
  updateIssue(services: Services, project: ProjectRow, iid: number, changes: IssueChanges, requireSome: boolean): Promise<IssueRow> {
    return this.updating(services, changes, async () => ({ type: 'Issue', project, issue: await services.issues.get(project, iid) }), () => services.issues.update(project, iid, changes, requireSome));
  }

  /**
   * An update whose new description may hold commands (IssuableBaseService#update's handle_quick_actions): without
   * any, the plain update; with some, the description without them and what they set, in one update of the target.
   */
  private async updating<T>(services: Services, changes: { description?: string | null }, target: () => Promise<Target>, plain: () => Promise<T>): Promise<T> {
    if (!changes.description) return plain();
    const { run, result } = await this.interpret(services, await target(), changes.description);
    if (!result.count) return plain();
    return (await this.apply(services, run, { ...changes, description: result.content })) as T;
  }

  /** MergeRequests::CreateService with quick actions in the description. */
  async createMergeRequest(services: Services, project: ProjectRow, input: MergeRequestInput): Promise<MergeRequestRow> {
    const target: Target = { type: 'MergeRequest', project, mergeRequest: null };
    const { row } = await this.creating(services, input, target, (merged) => services.merge_requests.create(project, merged), (u, merged, run) => {
      const added = titlesOf(run, [...(ids(u.label_ids) ?? []), ...(ids(u.add_label_ids) ?? [])]);
      if (added?.length) merged.labels = [...(input.labels ?? []), ...added];
      if (u.assignee_ids !== undefined) merged.assigneeIds = ids(u.assignee_ids);
      if (u.reviewer_ids !== undefined) merged.reviewerIds = ids(u.reviewer_ids);
      if (u.milestone_id !== undefined) merged.milestoneId = u.milestone_id as number | null;
      if (u.wip_event !== undefined) merged.draft = u.wip_event === 'draft';
    });
    return row;
  }

  /** MergeRequests::UpdateService with quick actions in a new description. */
  updateMergeRequest(services: Services, project: ProjectRow, iid: number, changes: MergeRequestChanges, requireSome: boolean): Promise<MergeRequestRow> {
    return this.updating(
      services,
      changes,
      async () => ({ type: 'MergeRequest', project, mergeRequest: await services.merge_requests.get(project, iid) }),
      () => services.merge_requests.update(project, iid, changes, requireSome),
    );
  }

  /** Epics::CreateService with quick actions in the description. */
  async createEpic(services: Services, group: NamespaceRow, input: EpicChanges & { title: string }): Promise<EpicRow> {
    const { row } = await this.creating(services, input, { type: 'Epic', group, epic: null }, (merged) => services.epics.create(group, merged), (u, merged, run) => {
      const added = titlesOf(run, [...(ids(u.label_ids) ?? []), ...(ids(u.add_label_ids) ?? [])]);
      if (added?.length) merged.labels = [...(input.labels ?? []), ...added];
      if (u.confidential !== undefined) merged.confidential = u.confidential as boolean;
    });
    return row;
  }

  /** Epics::UpdateService with quick actions in a new description. */
  updateEpic(services: Services, group: NamespaceRow, iid: number, changes: EpicChanges): Promise<EpicRow> {
    return this.updating(services, changes, async () => ({ type: 'Epic', group, epic: await services.epics.get(group, iid) }), () => services.epics.update(group, iid, changes));
  }

  /**
   * Applies a run's updates (QuickActionsService#apply_updates, the issuable's UpdateService): one update through the
   * target's own service with `changes` (what the caller changes besides), then what that service does not take
   * (time tracking, to-do items, subscriptions, emoji, epics, links, contacts, merging, approvals, rebases, child
   * epics), then a move or clone. Answers the target as it is after the update.
   */
  private async apply(services: Services, run: Run, changes: object): Promise<unknown> {
    const t = run.target;
    const u = run.updates;
    if (t.type === 'Issue') {
      const issue = t.issue!;
      const update: IssueChanges = { ...(changes as IssueChanges) };
      if (u.state_event !== undefined) update.stateEvent = u.state_event as string;
      if (u.title !== undefined) update.title = u.title as string;
      if (u.label_ids !== undefined) update.labelIds = ids(u.label_ids);
      if (u.add_label_ids !== undefined) update.addLabelIds = ids(u.add_label_ids);
      if (u.remove_label_ids !== undefined) update.removeLabelIds = ids(u.remove_label_ids);
      Object.assign(update, issueAttributes(u));
      if (u.discussion_locked !== undefined) update.discussionLocked = u.discussion_locked as boolean;
      if (u.health_status !== undefined) update.healthStatus = u.health_status as HealthStatus | null;
      if (u.severity !== undefined) update.severity = u.severity as Severity;
      let current = Object.values(update).some((v) => v !== undefined) ? await services.issues.update(t.project, issue.iid, update, false) : issue;
      if (u.time_estimate !== undefined) current = await services.issues.setTimeEstimate(t.project, issue.iid, u.time_estimate as number);
      const spend = spentTime(u);
      if (spend) current = await services.issues.addSpentTime(t.project, issue.iid, spend.seconds, spend);
      await this.subscriptionAndAward(services, run, { type: 'Issue', id: issue.id, projectId: issue.projectId, groupId: null }, current);
      if (u.epic !== undefined) await services.epics.setIssueEpic(current, u.epic as number | null);
      if (u.iteration !== undefined) current = await services.iterations.setIssueIteration(current, u.iteration === null ? null : { iterationId: u.iteration as number });
      for (const link of (u.links as { project_id: number; issue_iid: number; link_type: 'relates_to' | 'blocks' | 'is_blocked_by' }[] | undefined) ?? []) {
        await services.issue_links.create(t.project, issue.iid, { id: link.project_id }, link.issue_iid, link.link_type);
      }
      if (u.remove_link !== undefined) await services.issue_links.destroy(t.project, issue.iid, u.remove_link as number);
      if (u.canonical_issue_id !== undefined) await this.duplicate(services, t.project, issue, u.canonical_issue_id as number);
      if (u.add_contacts) current = await services.crm.setIssueContactsByEmail(t.project, issue.iid, u.add_contacts as string[], 'APPEND');
      if (u.remove_contacts) current = await services.crm.setIssueContactsByEmail(t.project, issue.iid, u.remove_contacts as string[], 'REMOVE');
      if (u.target_project !== undefined) {
        const target = await services.issues.moves.target({ id: u.target_project as number });
        await services.issues.moves.move(t.project, (await services.issues.byId(issue.id)) ?? current, target);
      } else if (u.target_clone_project !== undefined) {
        const target = await services.issues.moves.target({ id: u.target_clone_project as number });
        await services.issues.moves.clone(t.project, (await services.issues.byId(issue.id)) ?? current, target, u.clone_with_notes === true);
      }
      return (await services.issues.byId(issue.id)) ?? current;
    }
    if (t.type === 'MergeRequest') {
      const mr = t.mergeRequest!;
      const update: MergeRequestChanges = { ...(changes as MergeRequestChanges) };
      if (u.state_event !== undefined) update.stateEvent = u.state_event as string;
      if (u.title !== undefined) update.title = u.title as string;
      if (u.label_ids !== undefined || u.add_label_ids !== undefined || u.remove_label_ids !== undefined) {
        const current = (await run.labels()).map((l) => l.id);
        const remove = new Set(ids(u.remove_label_ids) ?? []);
        update.labelIds = [...new Set([...(ids(u.label_ids) ?? current), ...(ids(u.add_label_ids) ?? [])])].filter((id) => !remove.has(id));
      }
      if (u.assignee_ids !== undefined) update.assigneeIds = ids(u.assignee_ids);
      if (u.reviewer_ids !== undefined) update.reviewerIds = ids(u.reviewer_ids);
      if (u.milestone_id !== undefined) update.milestoneId = u.milestone_id as number | null;
      if (u.discussion_locked !== undefined) update.discussionLocked = u.discussion_locked as boolean;
      if (u.target_branch !== undefined) update.targetBranch = u.target_branch as string;
      if (u.wip_event !== undefined) update.draft = u.wip_event === 'draft';
      let current = Object.values(update).some((v) => v !== undefined) ? await services.merge_requests.update(t.project, mr.iid, update, false) : mr;
      if (u.time_estimate !== undefined) current = await services.merge_requests.setTimeEstimate(t.project, mr.iid, u.time_estimate as number);
      const spend = spentTime(u);
      if (spend) current = await services.merge_requests.addSpentTime(t.project, mr.iid, spend.seconds, spend);
      await this.subscriptionAndAward(services, run, { type: 'MergeRequest', id: mr.id, projectId: mr.projectId, groupId: null }, current);
      if (u.approve) current = await services.merge_requests.approvals.approve(t.project, mr.iid);
      if (u.unapprove) current = await services.merge_requests.approvals.unapprove(t.project, mr.iid);
      if (u.rebase) current = await services.merge_requests.git.requestRebase(t.project, mr.iid, false);
      if (u.merge !== undefined) current = await services.merge_requests.git.merge(t.project, mr.iid, { sha: u.merge as string | null });
      return (await services.merge_requests.byId(mr.id)) ?? current;
    }
    const epic = t.epic!;
    const update: EpicChanges = { ...(changes as EpicChanges) };
    if (u.state_event !== undefined) update.stateEvent = u.state_event as 'close' | 'reopen';
    if (u.title !== undefined) update.title = u.title as string;
    if (u.label_ids !== undefined) update.labels = titlesOf(run, ids(u.label_ids));
    if (u.add_label_ids !== undefined) update.addLabels = titlesOf(run, ids(u.add_label_ids));
    if (u.remove_label_ids !== undefined) update.removeLabels = titlesOf(run, ids(u.remove_label_ids));
    if (u.confidential !== undefined) update.confidential = u.confidential as boolean;
    if (u.parent_id !== undefined) update.parentId = u.parent_id as number | null;
    let current = Object.values(update).some((v) => v !== undefined) ? await services.epics.update(t.group, epic.iid, update) : epic;
    for (const [key, parentId] of [['child_epic_ids', epic.id], ['remove_child_epic_ids', null]] as const) {
      for (const childId of ids(u[key]) ?? []) {
        const child = await services.epics.byId(childId);
        const group = child && (await services.groups.find({ id: child.groupId }));
        if (child && group) await services.epics.update(group, child.iid, { parentId });
      }
    }
    await this.subscriptionAndAward(services, run, { type: 'Epic', id: epic.id, projectId: null, groupId: t.group.id }, current);
    current = (await services.epics.byId(epic.id)) ?? current;
    return current;
  }

  /**
   * Issues::DuplicateService: the issue closed as a duplicate of the canonical one (system notes on both, as the
   * issues service decides), then the two related (IssueLinks::CreateService) unless they already are.
   */
  private async duplicate(services: Services, project: ProjectRow, issue: IssueRow, canonicalId: number): Promise<void> {
    const canonical = await services.issues.byId(canonicalId);
    if (!canonical || canonical.id === issue.id) return;
    await services.issues.markDuplicate(project, issue.iid, canonical);
    const related = await services.issue_links.related(issue);
    if (related.some((l) => l.issue.id === canonical.id)) return;
    const canonicalProject = await services.projects.find({ id: canonical.projectId });
    if (canonicalProject) await services.issue_links.create(project, issue.iid, { id: canonicalProject.id }, canonical.iid, 'relates_to');
  }

  /** `todo_event`, `subscription_event` and `emoji_award` (IssuableBaseService#handle_changes' to-do and subscription, ToggleAwardEmoji). */
  private async subscriptionAndAward(
    services: Services,
    run: Run,
    subject: { type: 'Issue' | 'MergeRequest' | 'Epic'; id: number; projectId: number | null; groupId: number | null },
    row: IssueRow | MergeRequestRow | EpicRow,
  ): Promise<void> {
    const u = run.updates;
    // `/todo` and `/done`: TodoService#mark_todo, and #resolve_todos_for_target as the viewer.
    if (u.todo_event === 'add') await services.todos.mark(subject);
    if (u.todo_event === 'done') await services.todos.markAllDone({ type: subject.type, id: subject.id });
    if (u.subscription_event !== undefined) {
      await services.subscriptions.set(subject, u.subscription_event === 'subscribe', participant(row as Parameters<typeof participant>[0]));
    }
    if (u.emoji_award !== undefined) {
      const awardable = await services.award_emoji.byGlobalId(services, subject.type, subject.id);
      await services.award_emoji.toggle(services, awardable, u.emoji_award as string);
    }
  }
}

/** `spend_time` of a run (TimeTrackable#spend_time's options): seconds or null for a reset, the day given with it, and its note. */
function spentTime(u: Updates): { seconds: number | null; spentAt: Date | null; noteId: number | null } | null {
  const spend = u.spend_time as { duration: number | 'reset'; spent_at?: string | null; note_id?: number } | undefined;
  if (!spend) return null;
  return { seconds: spend.duration === 'reset' ? null : spend.duration, spentAt: spend.spent_at ? new Date(`${spend.spent_at}T00:00:00Z`) : null, noteId: spend.note_id ?? null };
}
