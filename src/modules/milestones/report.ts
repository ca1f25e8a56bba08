/**
 * GitLab's timebox report (TimeboxReportService, which Milestone.report and Iteration.report answer with): the
 * timebox's daily scope and completed totals, counts and weights, replayed from its issues' timebox, state and weight
 * events in time order, and the stats of the last day. Shared by milestones and iterations.
 */
import { TIMEBOX_EVENTS_LIMIT, type TimeboxEvent } from '../resource_events/service.js';

export interface BurnupDay {
  date: string;
  scopeCount: number;
  scopeWeight: number;
  completedCount: number;
  completedWeight: number;
}

interface Metric {
  count: number;
  weight: number;
}

export interface TimeboxReport {
  burnupTimeSeries: BurnupDay[] | null;
  stats: { complete: Metric; incomplete: Metric; total: Metric } | null;
  error: { code: 'MISSING_DATES' | 'TOO_MANY_EVENTS'; message: string } | null;
}

/** What the report reads of a timebox. */
export interface Timebox {
  id: number;
  startDate: Date | null;
  dueDate: Date | null;
}

const DAY = 86_400_000;
const dateOf = (at: Date) => at.toISOString().slice(0, 10);

/** The end of the timebox's due date (`due_date.end_of_day`): events after it do not count. */
export function reportEnd(timebox: Timebox): Date | null {
  return timebox.dueDate && new Date(timebox.dueDate.getTime() + DAY - 1);
}

/** Why no report can be made before reading events (`Milestone must have a start and due date`), or null. */
export function reportRefusal(timebox: Timebox, typeName: 'Milestone' | 'Iteration'): TimeboxReport | null {
  if (timebox.startDate && timebox.dueDate) return null;
  return { burnupTimeSeries: null, stats: null, error: { code: 'MISSING_DATES', message: `${typeName} must have a start and due date` } };
}

interface IssueState {
  timebox: number | null;
  weight: number;
  state: string;
}

/** Replays the events (oldest first) into the report, as TimeboxReportService#execute does. */
export function replayTimebox(timebox: Timebox, events: readonly TimeboxEvent[]): TimeboxReport {
  if (events.length > TIMEBOX_EVENTS_LIMIT) {
    return { burnupTimeSeries: null, stats: null, error: { code: 'TOO_MANY_EVENTS', message: 'Burnup chart could not be generated due to too many events' } };
  }
  const start = dateOf(timebox.startDate!);
  const days: BurnupDay[] = [];
  const issues = new Map<number, IssueState>();
  const issueState = (id: number) => {
    let found = issues.get(id);
    if (!found) issues.set(id, (found = { timebox: null, weight: 0, state: 'opened' }));
    return found;
  };
  // Totals are cumulative: a new day starts from the last one's numbers. Events before the start count on it.
  const add = (at: Date, field: Exclude<keyof BurnupDay, 'date'>, value: number) => {
    const date = dateOf(at) < start ? start : dateOf(at);
    const last = days[days.length - 1];
    if (!last) days.push({ date, scopeCount: 0, scopeWeight: 0, completedCount: 0, completedWeight: 0 });
    else if (last.date !== date) days.push({ ...last, date });
    days[days.length - 1][field] += value;
  };
  const scope = (at: Date, issue: IssueState, sign: 1 | -1) => {
    add(at, 'scopeCount', sign);
    add(at, 'scopeWeight', sign * issue.weight);
    if (issue.state === 'closed') completed(at, issue, sign);
  };
  const completed = (at: Date, issue: IssueState, sign: 1 | -1) => {
    add(at, 'completedCount', sign);
    add(at, 'completedWeight', sign * issue.weight);
  };

  for (const event of events) {
    const issue = issueState(event.issueId);
    const at = new Date(event.createdAt);
    if (event.kind === 'timebox') {
      const adds = event.action === 'add' && event.value === timebox.id;
      if (adds && issue.timebox === timebox.id) continue;
      // Replacing the timebox records no `remove`: any event while the issue is in this one takes it out.
      if (adds) scope(at, issue, 1);
      else if (issue.timebox === timebox.id) scope(at, issue, -1);
      issue.timebox = event.action === 'add' ? event.value : null;
    } else if (event.kind === 'state') {
      const before = issue.state;
      issue.state = event.state ?? before;
      if (issue.timebox !== timebox.id) continue;
      if (before === 'closed' && issue.state === 'reopened') completed(at, issue, -1);
      else if ((before === 'opened' || before === 'reopened') && issue.state === 'closed') completed(at, issue, 1);
    } else {
      const before = issue.weight;
      issue.weight = event.value ?? 0;
      if (issue.timebox !== timebox.id) continue;
      add(at, 'scopeWeight', issue.weight - before);
      if (issue.state === 'closed') add(at, 'completedWeight', issue.weight - before);
    }
  }
  const last = days[days.length - 1];
  const stats = last
    ? {
        complete: { count: last.completedCount, weight: last.completedWeight },
        incomplete: { count: last.scopeCount - last.completedCount, weight: last.scopeWeight - last.completedWeight },
        total: { count: last.scopeCount, weight: last.scopeWeight },
      }
    : null;
  return { burnupTimeSeries: days, stats, error: null };
}
