/**
 * Calendar days as iterations count them: `Date` values at UTC midnight (PostgreSQL's `date` columns as Prisma reads
 * them), today by the server's UTC clock (GitLab's `Date.current` with UTC as its time zone), and Iteration's
 * compute_state.
 */

import { addDays, DAY_MS, railsDate, today } from '../../days.js';

export { addDays, today };

/** Whole days from `a` to `b`. */
export const daysBetween = (a: Date, b: Date): number => Math.round((b.getTime() - a.getTime()) / DAY_MS);

/** Date#next_occurring: the first day after `date` that falls on `weekday` (0 Sunday … 6 Saturday). */
export function nextOccurring(date: Date, weekday: number): Date {
  const ahead = (weekday - date.getUTCDay() + 7) % 7 || 7;
  return addDays(date, ahead);
}

/**
 * A date as Rails casts a string to one (`2024-01-31`, also with a time after it); null for anything else, as an
 * attribute cast from an unreadable string is nil (and then fails its presence validation).
 */
export function parseDay(value: string | null | undefined): Date | null {
  // Only the date, or a time after it.
  if (value == null || !/^\s*\d{4}-\d{1,2}-\d{1,2}(?:$|[T\s])/.test(value)) return null;
  return railsDate(value);
}

/** The day of a timestamp (GraphQL's Time arguments), in UTC. */
export const dayOf = (time: Date): Date => today(time);

export type IterationState = 'upcoming' | 'current' | 'closed';

/** GitLab's STATE_ENUM_MAP: the REST API's `state`. */
export const STATE_ENUM: Record<IterationState, number> = { upcoming: 1, current: 2, closed: 3 };

/** Iteration.compute_state: upcoming before its start, closed after its due date, current between. */
export function computeState(startDate: Date, dueDate: Date, on = today()): IterationState {
  if (startDate.getTime() > on.getTime()) return 'upcoming';
  if (dueDate.getTime() < on.getTime()) return 'closed';
  return 'current';
}

/** Date::DATE_FORMATS[:medium] (`Jan 1, 2024`), as Iteration#period writes its dates. */
export function mediumDay(date: Date): string {
  return `${date.toLocaleString('en-US', { month: 'short', timeZone: 'UTC' })} ${date.getUTCDate()}, ${date.getUTCFullYear()}`;
}
