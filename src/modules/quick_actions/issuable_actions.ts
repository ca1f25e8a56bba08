/**
 * Commands of every issuable, issues, merge requests and epics (GitLab's Gitlab::QuickActions::IssuableActions and
 * IssueAndMergeRequestActions): state, title, labels, to-do items, subscriptions, emoji, confidentiality,
 * assignees, milestones, metadata copies, time tracking and locks, with GitLab's conditions and messages.
 */
import { durationSeconds, humanDuration } from '../issues/durations.js';
import { participant } from '../subscriptions/service.js';
import { normalizeName, unicodeOf } from '../award_emoji/names.js';
import { command, type AnyCommand, type Run } from './engine.js';
import { extractUsers, findIssues, findLabels, findMergeRequests, labelRef, milestoneRef, findMilestone, findMilestones, plural, toSentence, userRef } from './params.js';
import type { LabelRow } from '../labels/service.js';

const ALL = ['Issue', 'MergeRequest', 'Epic'] as const;
const ISSUABLES = ['Issue', 'MergeRequest'] as const;

/** Issuable#open? and #closed? of the target as it is. */
const isOpen = (run: Run) => (run.row as { state: string } | null)?.state === 'opened';
const isClosed = (run: Run) => (run.row as { state: string } | null)?.state === 'closed';

/** Adds ids to an update's list, keeping it unique (`@updates[key] += ids; uniq!`). */
function addTo(run: Run, key: string, ids: readonly number[]): void {
  const list = (run.updates[key] as number[] | undefined) ?? [];
  run.updates[key] = [...new Set([...list, ...ids])];
}

/** run_label_command: the labels' ids under `key`, and its message. */
function labelCommand(run: Run, labels: LabelRow[], name: 'label' | 'relabel', key: string): void {
  if (!labels.length) return;
  addTo(run, key, labels.map((l) => l.id));
  const refs = labels.map(labelRef).join(' ');
  run.messages.set(name, name === 'relabel' ? `Replaced all labels with ${refs} ${plural('label', labels.length)}.` : `Added ${refs} ${plural('label', labels.length)}.`);
}

/** The subscribable the target is, and whether the viewer is subscribed to it. */
async function subscribed(run: Run): Promise<boolean> {
  const row = run.row as ({ id: number; authorId: number | null } & Record<string, unknown>) | null;
  if (!row) return false;
  return run.services.subscriptions.subscribed(run.target.type, row.id, participant(row as Parameters<typeof participant>[0]));
}

/** Whether the viewer has a pending to-do item about the target (TodoService#todo_exist?). */
async function todoExists(run: Run): Promise<boolean> {
  const row = run.row as { id: number } | null;
  return !!row && run.services.todos.pendingAbout({ type: run.target.type, id: row.id });
}

export const issuableActions: AnyCommand[] = [
  command({
    name: 'close',
    types: ALL,
    takes: 'none',
    available: async (run) => run.persisted && isOpen(run) && (await run.canUpdate()),
    execute: (run) => void (run.updates.state_event = 'close'),
    message: (run) => `Closed this ${run.noun}.`,
  }),
  command({
    name: 'reopen',
    types: ALL,
    takes: 'none',
    available: async (run) => run.persisted && isClosed(run) && (await run.canUpdate()),
    execute: (run) => void (run.updates.state_event = 'reopen'),
    message: (run) => `Reopened this ${run.noun}.`,
  }),
  command({
    name: 'title',
    types: ALL,
    takes: 'required',
    available: async (run) => run.persisted && (await run.canUpdate()),
    execute: (run, title) => void (run.updates.title = title),
    message: (_run, title) => `Changed the title to "${title}".`,
  }),
  command<LabelRow[]>({
    name: 'label',
    aliases: ['labels'],
    types: ALL,
    takes: 'required',
    // GitLab's `find_labels.any?`: the project (or group) has labels to add.
    available: async (run) => (await run.canSetMetadata()) && (await run.hasLabelsToUse()),
    parse: (run, arg) => findLabels(run, arg),
    execute: (run, labels) => labelCommand(run, labels ?? [], 'label', 'add_label_ids'),
  }),
  command<LabelRow[] | null>({
    name: 'unlabel',
    aliases: ['remove_label'],
    types: ALL,
    takes: 'optional',
    available: async (run) => run.persisted && (await run.labels()).length > 0 && (await run.canSetMetadata()),
    parse: (run, arg) => findLabels(run, arg),
    execute: (run, labels) => {
      if (labels) {
        if (labels.length) addTo(run, 'remove_label_ids', labels.map((l) => l.id));
        run.messages.set('unlabel', labels.length ? `Removed ${labels.map(labelRef).join(' ')} ${plural('label', labels.length)}.` : 'Removed all labels.');
      } else {
        run.updates.label_ids = [];
        run.messages.set('unlabel', 'Removed all labels.');
      }
    },
  }),
  command<LabelRow[]>({
    name: 'relabel',
    types: ALL,
    takes: 'required',
    available: async (run) => run.persisted && (await run.labels()).length > 0 && (await run.canSetMetadata()),
    parse: (run, arg) => findLabels(run, arg),
    execute: (run, labels) => labelCommand(run, labels ?? [], 'relabel', 'label_ids'),
  }),
  command({
    name: 'todo',
    types: ALL,
    takes: 'none',
    available: async (run) => run.persisted && !(await todoExists(run)),
    execute: (run) => void (run.updates.todo_event = 'add'),
    message: 'Added a to-do item.',
  }),
  command({
    name: 'done',
    types: ALL,
    takes: 'none',
    available: async (run) => run.persisted && (await todoExists(run)),
    execute: (run) => void (run.updates.todo_event = 'done'),
    message: 'Marked to-do item as done.',
  }),
  command({
    name: 'subscribe',
    types: ALL,
    takes: 'none',
    available: async (run) => run.persisted && !(await subscribed(run)),
    execute: (run) => void (run.updates.subscription_event = 'subscribe'),
    message: 'Subscribed to notifications.',
  }),
  command({
    name: 'unsubscribe',
    types: ALL,
    takes: 'none',
    available: async (run) => run.persisted && (await subscribed(run)),
    execute: (run) => void (run.updates.subscription_event = 'unsubscribe'),
    message: 'Unsubscribed from notifications.',
  }),
  command<string | null>({
    name: 'award',
    // GitLab's `command :react, :award`.
    aliases: ['react'],
    types: ALL,
    takes: 'required',
    available: (run) => run.persisted,
    // Banzai's emoji pattern: `:name:` of a known emoji.
    parse: (_run, arg) => {
      const match = /:([a-z0-9_+-]+):/.exec(arg);
      return match && unicodeOf(normalizeName(match[1])) !== null ? match[1] : null;
    },
    execute: (run, name) => {
      if (name) run.updates.emoji_award = name;
    },
    message: (_run, name) => (name ? `Toggled :${name}: emoji reaction.` : null),
  }),
  command({
    name: 'confidential',
    types: ['Issue', 'Epic'],
    takes: 'none',
    available: async (run) => {
      const row = run.row as { confidential: boolean } | null;
      return !!row && !row.confidential && (await run.canSetMetadata());
    },
    execute: (run) => void (run.updates.confidential = true),
    message: (run) => `Made this ${run.noun} confidential.`,
  }),

  // Issues and merge requests (IssueAndMergeRequestActions).
  command<Awaited<ReturnType<typeof extractUsers>>>({
    name: 'assign',
    types: ISSUABLES,
    takes: 'required',
    available: (run) => run.canSetMetadata(),
    parse: (run, arg) => extractUsers(run, arg),
    execute: (run, users) => {
      if (!users?.length) return;
      const current = (run.updates.assignee_ids as number[] | undefined) ?? run.assigneeIds();
      run.updates.assignee_ids = [...new Set([...current, ...users.map((u) => u.id)])];
    },
    message: (_run, users) => (users?.length ? `Assigned ${toSentence(users.map(userRef))}.` : 'Failed to assign a user because no user was found.'),
  }),
  command<Awaited<ReturnType<typeof extractUsers>>>({
    name: 'unassign',
    types: ISSUABLES,
    takes: 'optional',
    available: async (run) => run.persisted && run.assigneeIds().length > 0 && (await run.canSetMetadata()),
    parse: (run, arg) => extractUsers(run, arg),
    execute: async (run, users) => {
      const current = (run.updates.assignee_ids as number[] | undefined) ?? run.assigneeIds();
      const removed = users?.length ? users : await Promise.all(run.assigneeIds().map((id) => run.services.users.get({ id })));
      run.updates.assignee_ids = users?.length ? current.filter((id) => !users.some((u) => u.id === id)) : [];
      run.messages.set('unassign', `Removed ${plural('assignee', removed.length)} ${toSentence(removed.map(userRef))}.`);
    },
  }),
  command<Awaited<ReturnType<typeof findMilestone>>>({
    name: 'milestone',
    types: ISSUABLES,
    takes: 'required',
    available: async (run) => (await run.canSetMetadata()) && (await findMilestones(run)).length > 0,
    parse: (run, arg) => findMilestone(run, arg),
    execute: (run, milestone) => {
      if (milestone) run.updates.milestone_id = milestone.id;
    },
    message: (_run, milestone) => (milestone ? `Set the milestone to ${milestoneRef(milestone)}.` : null),
  }),
  command({
    name: 'remove_milestone',
    types: ISSUABLES,
    takes: 'none',
    available: async (run) => run.persisted && (run.row as { milestoneId: number | null }).milestoneId !== null && (await run.canSetMetadata()),
    execute: async (run) => {
      const id = (run.row as { milestoneId: number }).milestoneId;
      const milestone = await run.loaders.issues.milestoneById.load(id);
      run.updates.milestone_id = null;
      run.messages.set('remove_milestone', `Removed ${milestone ? milestoneRef(milestone) : ''} milestone.`);
    },
  }),
  command<{ reference: string; labelIds: number[]; milestoneId: number | null } | null>({
    name: 'copy_metadata',
    types: ISSUABLES,
    takes: 'required',
    available: (run) => run.canSetMetadata(),
    parse: async (run, arg) => {
      const t = run.target;
      if (t.type === 'Epic') return null;
      const [issue] = await findIssues(run, arg);
      if (issue) {
        if (issue.project.id !== t.project.id) return null;
        const labels = await run.loaders.issues.labels.load(issue.issue.id);
        for (const label of labels) run.labelTitles.set(label.id, label.title);
        return { reference: `#${issue.issue.iid}`, labelIds: labels.map((l) => l.id), milestoneId: issue.issue.milestoneId };
      }
      const [mr] = await findMergeRequests(run, arg);
      if (!mr || mr.project.id !== t.project.id) return null;
      const labels = await run.loaders.merge_requests.labels.load(mr.mergeRequest.id);
      for (const label of labels) run.labelTitles.set(label.id, label.title);
      return { reference: `!${mr.mergeRequest.iid}`, labelIds: labels.map((l) => l.id), milestoneId: mr.mergeRequest.milestoneId };
    },
    execute: (run, source) => {
      if (!source) {
        run.messages.set('copy_metadata', 'Failed to find work item or merge request');
        return;
      }
      run.updates.add_label_ids = source.labelIds;
      if (source.milestoneId !== null) run.updates.milestone_id = source.milestoneId;
      run.messages.set('copy_metadata', `Copied labels and milestone from ${source.reference}.`);
    },
  }),
  command<number | null>({
    name: 'estimate',
    aliases: ['estimate_time'],
    types: ISSUABLES,
    takes: 'required',
    available: (run) => run.canSetMetadata(),
    parse: (_run, arg) => durationOf(arg, false),
    execute: (run, seconds) => {
      if (seconds !== null && seconds !== undefined) run.updates.time_estimate = seconds;
    },
    message: (_run, seconds) => (seconds === 0 ? 'Removed time estimate.' : seconds ? `Set time estimate to ${humanDuration(seconds)}.` : null),
  }),
  command<{ seconds: number; date: string | null } | null>({
    name: 'spend',
    aliases: ['spent', 'spend_time'],
    types: ISSUABLES,
    takes: 'required',
    available: (run) => run.canSetMetadata(),
    // SpendTimeAndDateSeparator: a duration, then an optional `YYYY-MM-DD` not in the future.
    parse: (_run, arg) => {
      const match = /^(.*?)(?:\s+(\d{4}-\d{2}-\d{2}))?$/.exec(arg.trim())!;
      const seconds = durationOf(match[1], true);
      if (seconds === null || seconds === 0) return null;
      if (match[2] && (Number.isNaN(Date.parse(match[2])) || new Date(match[2]) > new Date())) return null;
      return { seconds, date: match[2] ?? null };
    },
    execute: (run, spent) => {
      if (spent) run.updates.spend_time = { duration: spent.seconds, user_id: run.viewerId, spent_at: spent.date };
    },
    message: (_run, spent) => (spent ? `${spent.seconds > 0 ? 'Added' : 'Subtracted'} ${humanDuration(Math.abs(spent.seconds))} spent time.` : null),
  }),
  command({
    name: 'remove_estimate',
    aliases: ['remove_time_estimate'],
    types: ISSUABLES,
    takes: 'none',
    available: async (run) => run.persisted && (await run.canSetMetadata()),
    execute: (run) => void (run.updates.time_estimate = 0),
    message: 'Removed time estimate.',
  }),
  command({
    name: 'remove_time_spent',
    types: ISSUABLES,
    takes: 'none',
    available: async (run) => run.persisted && (await run.canSetMetadata()),
    execute: (run) => void (run.updates.spend_time = { duration: 'reset', user_id: run.viewerId }),
    message: 'Removed spent time.',
  }),
  command({
    name: 'lock',
    types: ISSUABLES,
    takes: 'none',
    available: async (run) => run.persisted && !(run.row as { discussionLocked: boolean | null }).discussionLocked && (await run.canSetMetadata()),
    execute: (run) => void (run.updates.discussion_locked = true),
    message: 'Locked the discussion.',
  }),
  command({
    name: 'unlock',
    types: ISSUABLES,
    takes: 'none',
    available: async (run) => run.persisted && !!(run.row as { discussionLocked: boolean | null }).discussionLocked && (await run.canSetMetadata()),
    execute: (run) => void (run.updates.discussion_locked = false),
    message: 'Unlocked the discussion.',
  }),
];

/** Gitlab::TimeTrackingFormatter.parse: seconds, or null when the text names no duration (or a refused negative one). */
function durationOf(text: string, allowNegative: boolean): number | null {
  const seconds = durationSeconds(text);
  return seconds !== null && (seconds >= 0 || allowNegative) ? seconds : null;
}
