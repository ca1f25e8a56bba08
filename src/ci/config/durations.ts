/**
 * Human durations as GitLab reads them (ChronicDuration): `1h 30m`, `2 hours and 20 minutes`, `1 day`, `10s`,
 * `1.5h`, a bare number of seconds. Months are 30 days and years 365 days, as ChronicDuration counts them.
 */

const UNIT_SECONDS: ReadonlyArray<[RegExp, number]> = [
  [/^(?:s|secs?|seconds?)$/, 1],
  [/^(?:m|mins?|minutes?)$/, 60],
  [/^(?:h|hrs?|hours?)$/, 3600],
  [/^(?:d|days?)$/, 86400],
  [/^(?:w|wks?|weeks?)$/, 7 * 86400],
  [/^(?:mo|mos|months?)$/, 30 * 86400],
  [/^(?:y|yrs?|years?)$/, 365 * 86400],
];

/** Longest duration text read. */
const MAX_LENGTH = 256;

/** Seconds in the duration, or null when it is not one. */
export function parseDuration(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? value : null;
  if (typeof value !== 'string' || value.length > MAX_LENGTH) return null;
  const text = value.toLowerCase().replace(/\band\b/g, ' ').replace(/,/g, ' ').trim();
  if (text === '') return null;
  const part = /(\d+(?:\.\d+)?|\.\d+)\s*([a-z]*)/y;
  let total = 0;
  let position = 0;
  while (position < text.length) {
    while (text[position] === ' ') position++;
    if (position >= text.length) break;
    part.lastIndex = position;
    const match = part.exec(text);
    if (!match) return null;
    const unit = match[2] === '' ? 1 : UNIT_SECONDS.find(([pattern]) => pattern.test(match[2]))?.[1];
    if (unit === undefined) return null;
    total += Number(match[1]) * unit;
    position = part.lastIndex;
  }
  return Math.round(total);
}

/** ChronicDuration's limits GitLab validates against. */
export const LIMITS = {
  week: 7 * 86400,
  month: 30 * 86400,
};
