/**
 * Commands of issues only (GitLab's IssueActions, RelateActions and EE's issue actions): due dates, weight, health
 * status, epics, moves and clones, links, CRM contacts, severity and incident promotion.
 */
import type { ProjectRow } from '../projects/service.js';
import type { HealthStatus, Severity } from '../issues/incidents.js';
import { command, type AnyCommand, type Run } from './engine.js';
import { extractUsers, findEpics, findIssues, parseDueDate, shortDate, toSentence, userRef } from './params.js';
import type { IssueRow } from '../issues/service.js';
import type { IterationRow } from '../iterations/service.js';

const ISSUE = ['Issue'] as const;

const issueOf = (run: Run): IssueRow | null => (run.target.type === 'Issue' ? run.target.issue : null);
const projectOf = (run: Run): ProjectRow => (run.target as Extract<Run['target'], { type: 'Issue' }>).project;

/** IssuableSeverity::SEVERITY_QUICK_ACTION_PARAMS: each severity and the words naming it. */
const SEVERITY_WORDS: Record<Severity, string[]> = {
  unknown: ['unknown', 's5', '5'],
  low: ['low', 's4', '4'],
  medium: ['medium', 's3', '3'],
  high: ['high', 's2', '2'],
  critical: ['critical', 's1', '1'],
};

/** Issue#to_reference from the target: `#12`, or `group/project#12` in another project. */
function issueReference(run: Run, found: { project: ProjectRow; issue: IssueRow }): string {
  const t = run.target;
  return t.type === 'Issue' && t.project.id === found.project.id ? `#${found.issue.iid}` : `${found.project.fullPath}#${found.issue.iid}`;
}

/** `admin_issue_link` on the target: those who may relate it (the issue links service asks it again). */
const canLink = async (run: Run) => {
  const issue = issueOf(run);
  return !!issue && run.access.can('admin_issue_relation', await run.services.issues.subject(issue));
};

export const issueActions: AnyCommand[] = [
  command<Date | null>({
    name: 'due',
    types: ISSUE,
    takes: 'required',
    available: (run) => run.canSetMetadata(),
    parse: (_run, arg) => parseDueDate(arg),
    execute: (run, date) => {
      if (date) run.updates.due_date = date.toISOString().slice(0, 10);
      else run.messages.set('due', 'Failed to set due date because the date format is invalid.');
    },
    message: (_run, date) => (date ? `Set the due date to ${shortDate(date)}.` : null),
  }),
  command({
    name: 'remove_due_date',
    types: ISSUE,
    takes: 'none',
    available: async (run) => !!issueOf(run)?.dueDate && (await run.canSetMetadata()),
    execute: (run) => void (run.updates.due_date = null),
    message: 'Removed the due date.',
  }),
  command<number | null>({
    name: 'weight',
    types: ISSUE,
    takes: 'required',
    available: (run) => run.canSetMetadata(),
    parse: (_run, arg) => (/^\d+$/.test(arg.trim()) ? Number(arg.trim()) : null),
    execute: (run, weight) => {
      if (weight !== null && weight !== undefined) run.updates.weight = weight;
    },
    message: (_run, weight) => (weight !== null && weight !== undefined ? `Set weight to ${weight}.` : null),
  }),
  command({
    name: 'clear_weight',
    types: ISSUE,
    takes: 'none',
    available: async (run) => issueOf(run)?.weight != null && (await run.canSetMetadata()),
    execute: (run) => void (run.updates.weight = null),
    message: 'Cleared weight.',
  }),
  command<HealthStatus | null>({
    name: 'health_status',
    types: ISSUE,
    takes: 'required',
    available: async (run) => run.persisted && (await run.canSetMetadata()),
    parse: (_run, arg) => {
      const value = arg.trim().toLowerCase();
      return (['on_track', 'needs_attention', 'at_risk'] as const).find((s) => s === value) ?? null;
    },
    execute: (run, status) => {
      if (status) run.updates.health_status = status;
    },
    message: (_run, status) => (status ? `Set health status to ${status}.` : null),
  }),
  command({
    name: 'clear_health_status',
    types: ISSUE,
    takes: 'none',
    available: async (run) => !!issueOf(run)?.healthStatus && (await run.canSetMetadata()),
    execute: (run) => void (run.updates.health_status = null),
    message: 'Cleared health status.',
  }),
  command<Awaited<ReturnType<typeof findEpics>>>({
    name: 'epic',
    aliases: ['set_parent'],
    types: ISSUE,
    takes: 'required',
    available: async (run) => run.services.epics.available && (await run.canSetMetadata()),
    parse: (run, arg) => findEpics(run, arg),
    execute: (run, epics) => {
      if (epics?.length) run.updates.epic = epics[0].id;
    },
    message: (_run, epics) => (epics?.length ? 'Added an issue to an epic.' : "This epic does not exist or you don't have sufficient permission."),
  }),
  command({
    name: 'remove_epic',
    types: ISSUE,
    takes: 'none',
    available: async (run) => {
      const issue = issueOf(run);
      return !!issue && run.services.epics.available && (await run.canSetMetadata()) && (await run.services.epics.ofIssue(issue.id)) !== null;
    },
    execute: (run) => void (run.updates.epic = null),
    message: 'Removed an issue from an epic.',
  }),
  command<IterationRow | null>({
    name: 'iteration',
    types: ISSUE,
    takes: 'required',
    // EE's condition: iterations licensed, the project in a group with an open iteration, and admin_issue.
    available: async (run) => (await run.services.iterations.opened(projectOf(run))) !== null && (await run.canSetMetadata()),
    parse: (run, arg) => {
      const ref = iterationReference(arg);
      return ref ? run.services.iterations.opened(projectOf(run), ref) : null;
    },
    execute: (run, iteration) => {
      if (iteration) run.updates.iteration = iteration.id;
    },
    message: (_run, iteration) => (iteration ? `Set the iteration to *iteration:${iteration.id}.` : null),
  }),
  command({
    name: 'remove_iteration',
    types: ISSUE,
    takes: 'none',
    available: async (run) => !!issueOf(run)?.sprintId && run.services.iterations.available && (await run.canSetMetadata()),
    execute: async (run) => {
      run.updates.iteration = null;
      const iteration = await run.services.iterations.byId(issueOf(run)!.sprintId!);
      // Iteration#to_reference(format: :name), or by id for an iteration without a title.
      const ref = iteration?.title ? `*iteration:"${iteration.title}"` : `*iteration:${issueOf(run)!.sprintId}`;
      run.messages.set('remove_iteration', `Removed ${ref} iteration.`);
    },
  }),
  command<Awaited<ReturnType<typeof extractUsers>>>({
    name: 'reassign',
    types: ['Issue', 'MergeRequest'],
    takes: 'required',
    available: async (run) => run.persisted && (await run.canSetMetadata()),
    parse: (run, arg) => extractUsers(run, arg),
    execute: (run, users) => {
      if (users?.length) run.updates.assignee_ids = users.map((u) => u.id);
    },
    message: (_run, users) => (users?.length ? `Reassigned ${toSentence(users.map(userRef))}.` : null),
  }),
  command<string>({
    name: 'move',
    types: ISSUE,
    takes: 'required',
    available: async (run) => !!issueOf(run) && (await run.canUpdate()),
    execute: async (run, path) => {
      const target = path ? await run.services.projects.find({ path: path.trim() }) : null;
      if (!target) {
        run.messages.set('move', "Failed to move this issue because target project doesn't exist.");
        return;
      }
      run.updates.target_project = target.id;
      run.messages.set('move', `Moved this issue to ${path!.trim()}.`);
    },
  }),
  command<string | undefined>({
    name: 'clone',
    types: ISSUE,
    takes: 'optional',
    available: async (run) => !!issueOf(run) && (await run.canUpdate()),
    execute: async (run, arg) => {
      const words = (arg ?? '').split(' ').filter(Boolean);
      const withNotes = words.includes('--with_notes');
      const rest = words.filter((w) => w !== '--with_notes');
      if (rest.length > 1) {
        run.messages.set('clone', 'Failed to clone this issue: wrong parameters.');
        return;
      }
      const t = run.target as Extract<Run['target'], { type: 'Issue' }>;
      const target = rest.length ? await run.services.projects.find({ path: rest[0] }) : t.project;
      if (!target) {
        run.messages.set('clone', "Failed to clone this issue because target project doesn't exist.");
        return;
      }
      run.updates.target_clone_project = target.id;
      run.updates.clone_with_notes = withNotes;
      run.messages.set('clone', `Cloned this issue to ${rest[0] ?? target.fullPath}.`);
    },
  }),
  command<{ canonical: { project: ProjectRow; issue: IssueRow } | undefined; written: string }>({
    name: 'duplicate',
    types: ISSUE,
    takes: 'required',
    available: async (run) => !!issueOf(run) && (await run.canUpdate()),
    parse: async (run, arg) => ({ canonical: (await findIssues(run, arg))[0], written: arg.trim() }),
    // Issues::UpdateService hands `canonical_issue_id` to Issues::DuplicateService once the other changes are made.
    execute: (run, found) => {
      if (found?.canonical) run.updates.canonical_issue_id = found.canonical.issue.id;
      run.messages.set(
        'duplicate',
        found?.canonical
          ? `Closed this issue. Marked as related to, and a duplicate of, ${found.written}.`
          : 'Failed to mark this issue as a duplicate because referenced issue was not found.',
      );
    },
  }),
  linkCommand('relate', 'relates_to', (refs) => `Marked ${refs} as related to this issue.`),
  linkCommand('blocks', 'blocks', (refs) => `Marked ${refs} as blocked by this issue.`),
  linkCommand('blocked_by', 'is_blocked_by', (refs) => `Marked this issue as blocked by ${refs}.`),
  command<Awaited<ReturnType<typeof findIssues>>>({
    name: 'unlink',
    types: ISSUE,
    takes: 'required',
    available: async (run) => !!issueOf(run) && (await canLink(run)),
    parse: (run, arg) => findIssues(run, arg),
    execute: async (run, issues) => {
      const other = issues?.[0];
      const links = other ? await run.services.issue_links.related(issueOf(run)!) : [];
      const link = other && links.find((l) => l.issue.id === other.issue.id);
      if (!other || !link) {
        run.messages.set('unlink', 'No linked issue matches the provided parameter.');
        return;
      }
      run.updates.remove_link = link.link.id;
      run.messages.set('unlink', `Removed link with ${issueReference(run, other)}.`);
    },
  }),
  contactsCommand('add_contacts', 'One or more contacts were successfully added.'),
  contactsCommand('remove_contacts', 'One or more contacts were successfully removed.'),
  command<Severity | null>({
    name: 'severity',
    types: ISSUE,
    takes: 'required',
    // Issue#supports_severity?: incidents only.
    available: (run) => !issueOf(run) || issueOf(run)!.issueType === 'incident',
    parse: (_run, arg) => (Object.keys(SEVERITY_WORDS) as Severity[]).find((s) => SEVERITY_WORDS[s].includes(arg.trim().toLowerCase())) ?? null,
    execute: (run, severity) => {
      if (severity) {
        run.updates.severity = severity;
        run.messages.set('severity', `Severity updated to ${severity[0].toUpperCase()}${severity.slice(1)}.`);
      } else run.messages.set('severity', 'No severity matches the provided parameter');
    },
  }),
  command({
    name: 'promote_to_incident',
    types: ISSUE,
    takes: 'none',
    available: async (run) => {
      const t = run.target as Extract<Run['target'], { type: 'Issue' }>;
      return t.issue?.issueType !== 'incident' && (await run.access.can('create_incident', t.project)) && (await run.canSetMetadata());
    },
    execute: (run) => void (run.updates.issue_type = 'incident'),
    message: 'Issue has been promoted to incident',
  }),
];

/** An iteration reference (`*iteration:12`, `*iteration:"Sprint 3"`, `*iteration:Sprint`): by id or by title. */
function iterationReference(arg: string): { id: number } | { title: string } | null {
  const m = /^\*iteration:(?:(\d+)(?![^\s])|"([^"]+)"|([^"\s]+))/.exec(arg.trim());
  if (!m) return null;
  return m[1] !== undefined ? { id: Number(m[1]) } : { title: (m[2] ?? m[3])! };
}

/** `/relate`, `/blocks`, `/blocked_by`: links of one type to the issues named, made after the other changes. */
function linkCommand(name: string, type: 'relates_to' | 'blocks' | 'is_blocked_by', said: (refs: string) => string): AnyCommand {
  return command<Awaited<ReturnType<typeof findIssues>>>({
    name,
    types: ISSUE,
    takes: 'required',
    available: canLink,
    parse: (run, arg) => findIssues(run, arg),
    execute: (run, issues) => linkIssues(run, issues ?? [], type),
    message: (run, issues) => (issues?.length ? said(toSentence(issues.map((i) => issueReference(run, i)))) : null),
  });
}

/** `/add_contacts` and `/remove_contacts`: contacts by e-mail (`[contact:ana@example.com]` or the bare address). */
function contactsCommand(name: 'add_contacts' | 'remove_contacts', message: string): AnyCommand {
  return command<string[]>({
    name,
    types: ISSUE,
    takes: 'required',
    available: async (run) => !!issueOf(run) && run.access.can('set_issue_crm_contacts', await run.services.issues.subject(issueOf(run)!)),
    parse: (_run, arg) => arg.split(' ').filter(Boolean).map((w) => w.replace(/^\[?contact:/, '').replace(/\]$/, '')),
    execute: (run, emails) => void (run.updates[name] = [...((run.updates[name] as string[] | undefined) ?? []), ...(emails ?? [])]),
    message,
  });
}

/** Records links to make after the other changes (RelateActions#create_links through IssueLinks::CreateService). */
function linkIssues(run: Run, issues: { project: ProjectRow; issue: IssueRow }[], type: 'relates_to' | 'blocks' | 'is_blocked_by'): void {
  if (!issues.length) return;
  const links = (run.updates.links as { project_id: number; issue_iid: number; link_type: string }[] | undefined) ?? [];
  run.updates.links = [...links, ...issues.map((i) => ({ project_id: i.project.id, issue_iid: i.issue.iid, link_type: type }))];
}
