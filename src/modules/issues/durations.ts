/**
 * GitLab's time tracking durations (Gitlab::TimeTrackingFormatter over ChronicDuration): a month is 4 weeks, a week
 * 5 days, a day 8 hours; `3h30m`, `1w 2d`, `-1h`; a bare number counts hours.
 */
import { badRequest } from '../../errors.js';

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

/** Seconds a duration names (negative when written so), or null when it names none (TimeTrackingFormatter.parse). */
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
  if (seconds === null) return null;
  return negative ? -seconds : seconds;
}

/** Seconds a duration names; a 400 in GitLab's words when it names none (or a negative one where that is refused). */
export function parseDuration(text: string, argument: 'timeEstimate' | 'spentTime', allowNegative: boolean): number {
  const seconds = durationSeconds(text);
  const label = argument === 'timeEstimate' ? 'Time estimate' : 'Time spent';
  if (seconds === null || (seconds < 0 && !allowNegative)) throw badRequest(`400 Bad request - ${label} must have a valid format and be greater than or equal to zero.`);
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
