/**
 * GitLab's time tracking durations (Gitlab::TimeTrackingFormatter over ChronicDuration): a month is 4 weeks, a week
 * 5 days, a day 8 hours; `3h30m`, `1w 2d`, `-1h`; a bare number counts hours.
 */
import { argumentRefused, badRequest, invalidArgument } from '../../errors.js';

const UNITS: [string, number][] = [
  ['mo', 4 * 5 * 8 * 3600],
  ['w', 5 * 8 * 3600],
  ['d', 8 * 3600],
  ['h', 3600],
  ['m', 60],
  ['s', 1],
];

const ALIASES: Record<string, string> = {
  mo: 'mo', month: 'mo', months: 'mo',
  w: 'w', week: 'w', weeks: 'w',
  d: 'd', day: 'd', days: 'd',
  h: 'h', hr: 'h', hrs: 'h', hour: 'h', hours: 'h',
  m: 'm', min: 'm', mins: 'm', minute: 'm', minutes: 'm',
  s: 's', sec: 's', secs: 's', second: 's', seconds: 's',
};

const SECONDS = new Map(UNITS);

/** Seconds a duration names (negative with a leading `-`); null when it names none (Gitlab::TimeTrackingFormatter.parse). */
export function durationSeconds(text: string): number | null {
  const trimmed = text.trim().toLowerCase();
  const negative = trimmed.startsWith('-');
  const body = negative ? trimmed.slice(1).trim() : trimmed;
  let seconds: number | null = null;
  if (/^\d+(\.\d+)?$/.test(body)) seconds = Math.round(Number(body) * 3600);
  else if (body) {
    const parts = body.match(/(\d+(?:\.\d+)?)\s*([a-z]+)/g);
    if (parts && parts.join('').replace(/\s/g, '') === body.replace(/\s/g, '')) {
      seconds = 0;
      for (const part of parts) {
        const [, n, unit] = /(\d+(?:\.\d+)?)\s*([a-z]+)/.exec(part)!;
        const name = ALIASES[unit];
        if (!name) {
          seconds = null;
          break;
        }
        seconds += Math.round(Number(n) * SECONDS.get(name)!);
      }
    }
  }
  return seconds === null ? null : negative ? -seconds : seconds;
}

/** Seconds a duration names; a 400 in GitLab's words when it names none (or a negative one where that is refused). */
export function parseDuration(text: string, argument: 'timeEstimate' | 'spentTime', allowNegative: boolean): number {
  const seconds = durationSeconds(text);
  const label = argument === 'timeEstimate' ? 'Time estimate' : 'Time spent';
  if (seconds === null || (seconds < 0 && !allowNegative)) throw badRequest(`400 Bad request - ${label} must have a valid format and be greater than or equal to zero.`);
  return seconds;
}

/**
 * GraphQL's `timeEstimate` argument of updateIssue and mergeRequestUpdate (Mutations::ValidateTimeEstimate): null or
 * `0` removes the estimate; a duration that is not one, or is negative, is refused in GitLab's words.
 */
export function timeEstimateArgument(text: string | null): number {
  if (text === null) return 0;
  const seconds = durationSeconds(text);
  if (seconds === null) throw argumentRefused('timeEstimate', 'must be formatted correctly, for example `1h 30m`');
  if (seconds < 0) throw argumentRefused('timeEstimate', 'must be greater than or equal to zero. Remember that every new timeEstimate overwrites the previous value.');
  return seconds;
}

/** GitLab's human form (`1w 2d 3h 30m`); null for zero. */
export function humanDuration(seconds: number): string | null {
  if (!seconds) return null;
  let rest = Math.abs(seconds);
  const parts: string[] = [];
  for (const [unit, size] of UNITS) {
    const n = Math.floor(rest / size);
    if (n) parts.push(`${n}${unit}`);
    rest -= n * size;
  }
  return (seconds < 0 ? '-' : '') + parts.join(' ');
}

/** What the REST time tracking endpoints ask of an issuable (issueTimeTracking, mergeRequestTimeTracking). */
export interface TimeTrackingInput {
  timeEstimate?: string | null;
  spentTime?: string | null;
  resetTimeEstimate?: boolean | null;
  resetSpentTime?: boolean | null;
}

/**
 * One of the time tracking endpoints (TimeTrackingEndpoints): a reset, a new estimate or spent time, each in GitLab's
 * duration format, through the issuable's own `estimate` and `spend` (seconds; null resets the time spent).
 */
export function trackTime<T>(input: TimeTrackingInput, estimate: (seconds: number) => Promise<T>, spend: (seconds: number | null) => Promise<T>): Promise<T> {
  if (input.resetTimeEstimate) return estimate(0);
  if (input.resetSpentTime) return spend(null);
  if (input.timeEstimate != null) return estimate(parseDuration(input.timeEstimate, 'timeEstimate', false));
  if (input.spentTime != null) return spend(parseDuration(input.spentTime, 'spentTime', true));
  throw invalidArgument('timeEstimate');
}
