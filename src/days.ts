/**
 * Calendar days as GitLab's dates are: `Date` values at UTC midnight (PostgreSQL's `date` columns as Prisma reads
 * them), today by the server's UTC clock, and a string cast to a date as Rails casts one.
 */

export const DAY_MS = 86_400_000;

/** Today (or the day of `now`), at UTC midnight. */
export function today(now = new Date()): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
}

export const addDays = (date: Date, days: number): Date => new Date(date.getTime() + days * DAY_MS);

/** A date as Rails casts a string to one: `YYYY-MM-DD` at its start (a valid day), anything else nothing. */
export function railsDate(value: string | null | undefined): Date | null {
  if (!value) return null;
  const match = /^(\d{4})-(\d{1,2})-(\d{1,2})/.exec(value.trim());
  if (!match) return null;
  const date = new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])));
  return date.getUTCMonth() === Number(match[2]) - 1 ? date : null;
}
