/**
 * What a change to an issue leaves behind, as GitLab's Issuable::CommonSystemNotesService and Issues::UpdateService
 * decide it: labels, milestone, state and weight become resource events; title, description, assignees, due date,
 * confidentiality, discussion lock and time tracking become system notes (SystemNotes::IssuablesService and
 * TimeTrackingService, in their words). Everything is written in the caller's transaction, at the change's time.
 */
import type { Prisma } from '../../db/database.js';
import type { NotesService } from '../notes/service.js';
import { humanDuration } from '../issues/durations.js';
import { SEVERITY_LABELS, type Severity } from '../issues/incidents.js';
import type { EventResource, ResourceEventsService } from './service.js';
import { markTitleChange } from './titles.js';

/** An issue's fields whose changes are recorded. */
export interface IssueSnapshot {
  id: number;
  projectId: number;
  title: string;
  description: string | null;
  state: string;
  confidential: boolean;
  discussionLocked: boolean | null;
  dueDate: Date | null;
  weight: number | null;
  milestoneId: number | null;
  timeEstimate: number;
  createdAt: Date;
  updatedAt: Date;
  assignees: readonly { userId: number }[];
  issueType: string;
  severity: string | null;
  escalationStatus: string | null;
  healthStatus: string | null;
}

/** A merge request's fields whose changes become system notes (its labels, milestone and state are events). */
export interface MergeRequestSnapshot {
  id: number;
  projectId: number;
  title: string;
  description: string | null;
  draft: boolean;
  discussionLocked: boolean | null;
  timeEstimate: number;
  updatedAt: Date;
  assignees: readonly { userId: number }[];
  targetBranch: string;
  reviewers: readonly { userId: number }[];
}

type Tx = Prisma.TransactionClient;
type Resource = Pick<IssueSnapshot, 'id' | 'projectId'>;

/** Rails' Array#to_sentence: `a`, `a and b`, `a, b, and c`. */
export function toSentence(words: readonly string[]): string {
  if (words.length < 3) return words.join(' and ');
  return `${words.slice(0, -1).join(', ')}, and ${words[words.length - 1]}`;
}

/** Date#to_fs(:long): `September 20, 2018`. */
function longDate(date: Date): string {
  return `${date.toLocaleString('en-US', { month: 'long', timeZone: 'UTC' })} ${date.getUTCDate()}, ${date.getUTCFullYear()}`;
}

/** SystemNotes::TimeTrackingService#change_time_estimate's words for a new estimate; null when it did not change. */
function estimateNote(before: number, after: number): string | null {
  if (before === after) return null;
  const [now, was] = [humanDuration(after), humanDuration(before)];
  return !before ? `added time estimate of ${now}` : !after ? `removed time estimate of ${was}` : `changed time estimate to ${now} from ${was}`;
}

const sameDay = (a: Date | null, b: Date | null) => (a?.getTime() ?? null) === (b?.getTime() ?? null);

export class IssuableChanges {
  constructor(
    private readonly events: ResourceEventsService,
    private readonly notes: NotesService,
  ) {}

  private resource(issue: Resource, type = 'Issue'): EventResource {
    return { type, id: issue.id, projectId: issue.projectId, groupId: null };
  }

  /** A system note on the resource, in the caller's transaction (SystemNoteService). */
  note(tx: Tx, issue: Resource, userId: number, body: string, at: Date, type = 'Issue') {
    return this.notes.createSystemNote(tx, this.resource(issue, type), userId, body, at);
  }

  /**
   * A merge request's update (Issuable::CommonSystemNotesService): a draft status change (`marked this merge request
   * as **draft**` or `**ready**`), then a title change apart from the draft prefix, the description, the discussion
   * lock and the assignees, each as a system note. `draftless` strips a title's draft prefixes.
   */
  async mergeRequestUpdated(tx: Tx, before: MergeRequestSnapshot, after: MergeRequestSnapshot, draftless: (title: string) => string, userId: number): Promise<void> {
    const at = after.updatedAt;
    const note = (body: string) => this.note(tx, after, userId, body, at, 'MergeRequest');
    if (before.title !== after.title) {
      if (before.draft !== after.draft) await note(`marked this merge request as **${after.draft ? 'draft' : 'ready'}**`);
      if (draftless(before.title) !== draftless(after.title)) {
        const [from, to] = markTitleChange(before.title, after.title);
        await note(`changed title from **${from}** to **${to}**`);
      }
    }
    if (before.description !== after.description) await note('changed the description');
    if (!!before.discussionLocked !== !!after.discussionLocked) await note(`${after.discussionLocked ? 'locked' : 'unlocked'} the discussion in this merge request`);
    // MergeRequests::UpdateService#handle_changes: the target branch (SystemNotes::MergeRequestsService#change_branch), assignees, reviewers.
    if (before.targetBranch !== after.targetBranch) await note(`changed target branch from \`${before.targetBranch}\` to \`${after.targetBranch}\``);
    const estimate = estimateNote(before.timeEstimate, after.timeEstimate);
    if (estimate) await note(estimate);
    await this.assigneesChanged(tx, before, after, userId, at, 'MergeRequest');
    await this.reviewersChanged(tx, before, after, userId, at);
  }

  /** SystemNotes::IssuablesService#change_issuable_reviewers: `requested review from @a and removed review request for @b`. */
  private async reviewersChanged(tx: Tx, before: Pick<MergeRequestSnapshot, 'reviewers'>, after: MergeRequestSnapshot, userId: number, at: Date): Promise<void> {
    const old = before.reviewers.map((r) => r.userId);
    const now = after.reviewers.map((r) => r.userId);
    const added = now.filter((id) => !old.includes(id));
    const removed = old.filter((id) => !now.includes(id));
    if (!added.length && !removed.length) return;
    const parts: string[] = [];
    if (added.length) parts.push(`requested review from ${toSentence(await this.events.references(tx, added))}`);
    if (removed.length) parts.push(`removed review request for ${toSentence(await this.events.references(tx, removed))}`);
    await this.note(tx, after, userId, parts.join(' and '), at, 'MergeRequest');
  }

  /** A new issue (`is_update: false`): its labels, milestone and weight as events, its due date as a note. */
  async created(tx: Tx, issue: IssueSnapshot, labelIds: readonly number[], userId: number): Promise<void> {
    const at = issue.createdAt;
    if (issue.dueDate) await this.note(tx, issue, userId, `changed due date to ${longDate(issue.dueDate)}`, at);
    if (issue.milestoneId !== null) await this.events.recordMilestoneChange(tx, this.resource(issue), { milestoneId: issue.milestoneId, previousId: null, state: issue.state }, userId, at);
    await this.events.recordLabelChanges(tx, this.resource(issue), { added: labelIds, removed: [] }, userId, at);
    if (issue.weight !== null) await this.events.recordWeightChange(tx, issue.id, { weight: issue.weight, previous: null, previousAt: at }, userId, at);
  }

  /** An update: each changed field recorded once, in GitLab's order. */
  async updated(tx: Tx, before: IssueSnapshot, after: IssueSnapshot, labels: { added: readonly number[]; removed: readonly number[] }, userId: number): Promise<void> {
    const at = after.updatedAt;
    const resource = this.resource(after);
    if (before.title !== after.title) {
      const [from, to] = markTitleChange(before.title, after.title);
      await this.note(tx, after, userId, `changed title from **${from}** to **${to}**`, at);
    }
    if (before.description !== after.description) await this.note(tx, after, userId, 'changed the description', at);
    if (before.discussionLocked !== after.discussionLocked) await this.note(tx, after, userId, `${after.discussionLocked ? 'locked' : 'unlocked'} the discussion in this issue`, at);
    if (!sameDay(before.dueDate, after.dueDate)) {
      const body = after.dueDate ? `changed due date to ${longDate(after.dueDate)}` : `removed due date ${longDate(before.dueDate!)}`;
      await this.note(tx, after, userId, body, at);
    }
    if (before.milestoneId !== after.milestoneId) {
      await this.events.recordMilestoneChange(tx, resource, { milestoneId: after.milestoneId, previousId: before.milestoneId, state: after.state }, userId, at);
    }
    await this.events.recordLabelChanges(tx, resource, labels, userId, at);
    if (before.weight !== after.weight) await this.events.recordWeightChange(tx, after.id, { weight: after.weight, previous: before.weight, previousAt: before.updatedAt }, userId, at);
    await this.assigneesChanged(tx, before, after, userId, at);
    if (before.confidential !== after.confidential) await this.note(tx, after, userId, after.confidential ? 'made the issue confidential' : 'made the issue visible to everyone', at);
    if (before.issueType !== after.issueType) await this.note(tx, after, userId, `changed type from ${before.issueType} to ${after.issueType}`, at);
    // SystemNotes::IncidentService#change_incident_severity and EE's change_health_status_note.
    if (before.severity !== after.severity && after.severity) await this.note(tx, after, userId, `changed the severity to **${SEVERITY_LABELS[after.severity as Severity]}**`, at);
    if (before.healthStatus !== after.healthStatus) {
      await this.note(tx, after, userId, after.healthStatus ? `changed health status to **${after.healthStatus.replace(/_/g, ' ')}**` : 'removed the health status', at);
    }
    if (before.state !== after.state) await this.events.recordStateChange(tx, resource, after.state === 'closed' ? 'closed' : 'reopened', userId, at);
    // SystemNotes::IncidentService#change_incident_status, after the close that resolved it (Issues::CloseService);
    // an escalation status given to a new incident (CreateService) is not noted.
    if (before.escalationStatus !== after.escalationStatus && after.escalationStatus && (before.escalationStatus || after.escalationStatus !== 'triggered')) {
      const status = after.escalationStatus.charAt(0).toUpperCase() + after.escalationStatus.slice(1);
      const reason = after.state === 'closed' && before.state !== 'closed' && after.escalationStatus === 'resolved' ? ' by closing the incident' : '';
      await this.note(tx, after, userId, `changed the incident status to **${status}**${reason}`, at);
    }
  }

  /** SystemNotes::IssuablesService#change_issuable_assignees: `assigned to @a and @b and unassigned @c`. */
  private async assigneesChanged(tx: Tx, before: Pick<IssueSnapshot, 'assignees'>, after: Resource & Pick<IssueSnapshot, 'assignees'>, userId: number, at: Date, type = 'Issue'): Promise<void> {
    const old = before.assignees.map((a) => a.userId);
    const now = after.assignees.map((a) => a.userId);
    const added = now.filter((id) => !old.includes(id));
    const removed = old.filter((id) => !now.includes(id));
    if (!added.length && !removed.length) return;
    const parts: string[] = [];
    if (added.length) parts.push(`assigned to ${toSentence(await this.events.references(tx, added))}`);
    if (removed.length) parts.push(`unassigned ${toSentence(await this.events.references(tx, removed))}`);
    await this.note(tx, after, userId, parts.join(' and '), at, type);
  }

  /**
   * Time tracking (TimeTrackingService): a new estimate (`added time estimate of 1h`, `changed time estimate to 2h
   * from 1h`, `removed time estimate of 1h`), or spent time added, subtracted or reset (`spent` null).
   */
  async timeTracked(tx: Tx, before: IssueSnapshot, after: IssueSnapshot, spent: number | null | undefined, userId: number): Promise<void> {
    const at = after.updatedAt;
    if (spent === undefined) {
      const body = estimateNote(before.timeEstimate, after.timeEstimate);
      if (body) await this.note(tx, after, userId, body, at);
    } else if (spent === null) {
      await this.note(tx, after, userId, 'removed time spent', at);
    } else if (spent !== 0) {
      await this.note(tx, after, userId, `${spent > 0 ? 'added' : 'subtracted'} ${humanDuration(Math.abs(spent))} of time spent`, at);
    }
  }
}
