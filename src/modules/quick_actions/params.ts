/**
 * How commands read their arguments (InterpretService's find_labels, extract_users, find_milestones and
 * extract_references, Chronic for dates), each through the owning module's service, and how messages name what they
 * found (Label#to_reference and Milestone#to_reference by name, User#to_reference, Array#to_sentence).
 */
import { addDays, today as dayOf } from '../../days.js';
import type { EpicRow } from '../epics/service.js';
import type { IssueRow } from '../issues/service.js';
import type { LabelRow } from '../labels/service.js';
import type { MergeRequestRow } from '../merge_requests/service.js';
import type { MilestoneRow } from '../milestones/service.js';
import type { ProjectRow } from '../projects/service.js';
import type { UserRow } from '../users/service.js';
import type { Run } from './engine.js';

/** `~"bug"`: a label by name, always quoted (Label#label_format_reference). */
export const labelRef = (label: Pick<LabelRow, 'title'>) => `~"${label.title}"`;

/** `%"v1.0"`: a milestone by name. */
export const milestoneRef = (milestone: Pick<MilestoneRow, 'title'>) => `%"${milestone.title}"`;

/** `@username`. */
export const userRef = (user: Pick<UserRow, 'username'>) => `@${user.username}`;

export { toSentence } from '../resource_events/issuables.js';

/** `label` or `labels`. */
export const plural = (word: string, count: number) => (count === 1 ? word : `${word}s`);

const LABEL_REFERENCE = /~(?:(\d+)|"([^"]+)"|([A-Za-z0-9_\-?.&:]+[A-Za-z0-9_\-&]|[A-Za-z0-9_\-&]))/g;

/**
 * The labels an argument names (InterpretService#find_labels): `~123` by id, `~bug` and `~"needs review"` by title,
 * or, when no `~` is written, titles separated by commas; only labels the target's project (or group) may use.
 */
export async function findLabels(run: Run, param: string | null | undefined): Promise<LabelRow[]> {
  if (!param) return [];
  const ids: number[] = [];
  const titles: string[] = [];
  if (param.includes('~')) {
    for (const match of param.matchAll(LABEL_REFERENCE)) {
      if (match[1]) ids.push(Number(match[1]));
      else titles.push(match[2] ?? match[3]);
    }
  } else {
    titles.push(...param.split(',').map((t) => t.trim()).filter(Boolean));
  }
  const { labels } = run.services;
  const t = run.target;
  let found: LabelRow[];
  if (t.type === 'Epic') {
    found = titles.length ? await labels.findOrCreateGroupLabels(t.group, titles, false) : [];
  } else {
    const byTitle = titles.length ? await labels.findOrCreateByTitles(t.project, titles, false) : [];
    const byId = ids.length ? await labels.availableByIds(t.project, ids) : [];
    found = [...byTitle, ...byId];
  }
  const seen = new Set<number>();
  const unique = found.filter((l) => !seen.has(l.id) && seen.add(l.id));
  for (const label of unique) run.labelTitles.set(label.id, label.title);
  return unique;
}

/**
 * The users an argument names (Gitlab::QuickActions::UsersExtractor): `@name` or `name`, `me` for the viewer,
 * separated by spaces or commas; names of no user are left out.
 */
export async function extractUsers(run: Run, param: string | null | undefined): Promise<UserRow[]> {
  if (!param) return [];
  const users: UserRow[] = [];
  for (const token of param.split(/[\s,]+/).filter(Boolean)) {
    const name = token.replace(/^@/, '');
    const user = name === 'me' ? await run.services.users.find({ id: run.viewerId }) : /^[A-Za-z0-9_.-]+$/.test(name) ? await run.services.users.find({ path: name }) : null;
    if (user && !users.some((u) => u.id === user.id)) users.push(user);
  }
  return users;
}

/** The target's project or group, as the labels and milestones services take a parent. */
function parentOf(run: Run) {
  const t = run.target;
  return t.type === 'Epic' ? { group: t.group } : { project: t.project };
}

/** Active milestones of the target's project and its groups, optionally by title or iid (find_milestones). */
export async function findMilestones(run: Run, filters: { title?: string; iid?: number } = {}): Promise<MilestoneRow[]> {
  const page = await run.services.milestones.list(
    parentOf(run),
    { state: 'active', includeAncestors: true, title: filters.title ?? null, iids: filters.iid !== undefined ? [filters.iid] : null },
    { first: 20 },
  );
  return page.nodes;
}

/** The milestone an argument names: `%"v1.0"`, `%v1.0`, `%12` (its iid) or a bare title. */
export async function findMilestone(run: Run, param: string): Promise<MilestoneRow | null> {
  const text = param.trim();
  const quoted = /^%"([^"]+)"/.exec(text);
  if (quoted) return (await findMilestones(run, { title: quoted[1] }))[0] ?? null;
  const iid = /^%(\d+)$/.exec(text);
  if (iid) return (await findMilestones(run, { iid: Number(iid[1]) }))[0] ?? null;
  const bare = /^%(\S+)/.exec(text);
  if (bare) return (await findMilestones(run, { title: bare[1] }))[0] ?? null;
  return (await findMilestones(run, { title: text }))[0] ?? null;
}

/** The project a reference names before its `#`/`!` (`group/project#12`), or the target's own; null when unreadable. */
async function projectNamed(run: Run, path: string | undefined): Promise<ProjectRow | null> {
  const t = run.target;
  if (!path) return t.type === 'Epic' ? null : t.project;
  return run.services.projects.find({ path }).catch(() => null);
}

/**
 * The objects of a project that an argument references (`#12` or `!3`, `group/project#12`, a URL), each once, in
 * order: the pattern's first or third group names the project (the target's own when absent), its second or fourth
 * the iid; `find` answers what the viewer may read.
 */
async function findInProjects<T extends { id: number }>(
  run: Run,
  param: string | null | undefined,
  pattern: RegExp,
  find: (project: ProjectRow, iid: number) => Promise<T | null>,
): Promise<{ project: ProjectRow; row: T }[]> {
  if (!param) return [];
  const found: { project: ProjectRow; row: T }[] = [];
  for (const match of param.matchAll(pattern)) {
    const project = await projectNamed(run, match[1] ?? match[3]);
    const row = project && (await find(project, Number(match[2] ?? match[4])));
    if (project && row && !found.some((f) => f.row.id === row.id)) found.push({ project, row });
  }
  return found;
}

const ISSUE_REFERENCE = /(?:^|\s)(?:([A-Za-z0-9_.\-/]+))?#(\d+)(?=$|\s|[.,;])|\/([^\s]+?)\/-\/(?:issues|work_items)\/(\d+)/g;

/** The issues an argument names (`#12`, `group/project#12`, an issue's URL) that the viewer may read. */
export async function findIssues(run: Run, param: string | null | undefined): Promise<{ project: ProjectRow; issue: IssueRow }[]> {
  const { issues } = run.services;
  const found = await findInProjects(run, param, ISSUE_REFERENCE, async (project, iid) => {
    const issue = await issues.find(project, iid);
    return issue && (await issues.canRead(issue)) ? issue : null;
  });
  return found.map(({ project, row }) => ({ project, issue: row }));
}

const MR_REFERENCE = /(?:^|\s)(?:([A-Za-z0-9_.\-/]+))?!(\d+)(?=$|\s|[.,;])|\/([^\s]+?)\/-\/merge_requests\/(\d+)/g;

/** The merge requests an argument names (`!3`, `group/project!3`, a URL) that the viewer may read. */
export async function findMergeRequests(run: Run, param: string | null | undefined): Promise<{ project: ProjectRow; mergeRequest: MergeRequestRow }[]> {
  const found = await findInProjects(run, param, MR_REFERENCE, (project, iid) => run.services.merge_requests.find(project, iid));
  return found.map(({ project, row }) => ({ project, mergeRequest: row }));
}

const EPIC_REFERENCE = /(?:^|\s)(?:([A-Za-z0-9_.\-/]+))?&(\d+)(?=$|\s|[.,;])|\/groups\/([^\s]+?)\/-\/epics\/(\d+)/g;

/** The epics an argument names (`&4`, `group&4`, an epic's URL) that the viewer may read. */
export async function findEpics(run: Run, param: string | null | undefined): Promise<EpicRow[]> {
  if (!param) return [];
  const found: EpicRow[] = [];
  const t = run.target;
  const own = t.type === 'Epic' ? t.group : t.project.namespace.kind === 'group' ? await run.services.groups.find({ id: t.project.namespace.id }).catch(() => null) : null;
  for (const match of param.matchAll(EPIC_REFERENCE)) {
    const path = match[1] ?? match[3];
    const group = path ? await run.services.groups.find({ path }).catch(() => null) : own;
    if (!group) continue;
    const epic = await run.services.epics.find(group, Number(match[2] ?? match[4])).catch(() => null);
    if (epic && !found.some((e) => e.id === epic.id)) found.push(epic);
  }
  return found;
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const DAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];

const utcDay = (y: number, m: number, d: number) => {
  const date = new Date(Date.UTC(y, m, d));
  return date.getUTCMonth() === ((m % 12) + 12) % 12 ? date : null;
};

/**
 * A due date as GitLab's `/due` reads it through Chronic: `2027-01-31`, `today`, `tomorrow`, `in 2 days`,
 * `in 3 weeks`, `next week`, `friday`, `this friday`, `next friday`, `December 31st`, `31 December 2027`; null otherwise.
 */
export function parseDueDate(text: string, now = new Date()): Date | null {
  const value = text.trim().toLowerCase().replace(/\s+/g, ' ');
  const today = dayOf(now);
  const plus = (days: number) => addDays(today, days);
  let match = /^(\d{4})-(\d{1,2})-(\d{1,2})$/.exec(value);
  if (match) return utcDay(Number(match[1]), Number(match[2]) - 1, Number(match[3]));
  if (value === 'today') return today;
  if (value === 'tomorrow') return plus(1);
  if (value === 'yesterday') return plus(-1);
  match = /^in (\d+|a|an|one) (day|days|week|weeks|month|months|year|years)$/.exec(value);
  if (match) {
    const n = /^\d+$/.test(match[1]) ? Number(match[1]) : 1;
    if (match[2].startsWith('day')) return plus(n);
    if (match[2].startsWith('week')) return plus(7 * n);
    if (match[2].startsWith('month')) return utcDay(today.getUTCFullYear(), today.getUTCMonth() + n, today.getUTCDate());
    return utcDay(today.getUTCFullYear() + n, today.getUTCMonth(), today.getUTCDate());
  }
  if (value === 'next week') return plus(7);
  if (value === 'next month') return utcDay(today.getUTCFullYear(), today.getUTCMonth() + 1, today.getUTCDate());
  match = /^(?:(this|next) )?(sunday|monday|tuesday|wednesday|thursday|friday|saturday)$/.exec(value);
  if (match) {
    let ahead = (DAYS.indexOf(match[2]) - today.getUTCDay() + 7) % 7;
    if (ahead === 0) ahead = 7;
    if (match[1] === 'next' && ahead < 7) ahead += 7;
    return plus(ahead);
  }
  const month = (name: string) => MONTHS.indexOf(name.slice(0, 3));
  match = /^([a-z]+)\.? (\d{1,2})(?:st|nd|rd|th)?(?:,? (\d{4}))?$/.exec(value);
  if (match && month(match[1]) >= 0) {
    const year = match[3] ? Number(match[3]) : today.getUTCFullYear();
    const date = utcDay(year, month(match[1]), Number(match[2]));
    // Chronic's future bias: a day already past this year is next year's.
    if (date && !match[3] && date < today) return utcDay(year + 1, month(match[1]), Number(match[2]));
    return date;
  }
  match = /^(\d{1,2})(?:st|nd|rd|th)? ([a-z]+)\.?(?:,? (\d{4}))?$/.exec(value);
  if (match && month(match[2]) >= 0) return utcDay(match[3] ? Number(match[3]) : today.getUTCFullYear(), month(match[2]), Number(match[1]));
  return null;
}

/** Date#strftime('%b %-d, %Y'): `Jan 5, 2027`. */
export function shortDate(date: Date): string {
  const name = MONTHS[date.getUTCMonth()];
  return `${name[0].toUpperCase()}${name.slice(1)} ${date.getUTCDate()}, ${date.getUTCFullYear()}`;
}
