/** The cron parser and next-run computation of pipeline schedules (src/ci/cron.ts): syntax, zones, DST, leap days. */
import { describe, expect, it } from 'vitest';
import { checkSchedule, instantsOf, nextRun, parseCron, resolveTimeZone } from '../../src/ci/cron.js';

function next(cron: string, zone: string, after: string): string | null {
  const parsed = parseCron(cron);
  const iana = resolveTimeZone(zone);
  if (!parsed || !iana) throw new Error(`invalid ${cron} / ${zone}`);
  return nextRun(parsed, iana, new Date(after))?.toISOString() ?? null;
}

/** Several runs in a row, from `after`. */
function runs(cron: string, zone: string, after: string, count: number): string[] {
  const out: string[] = [];
  let at = after;
  for (let i = 0; i < count; i++) {
    const found = next(cron, zone, at);
    if (!found) break;
    out.push(found);
    at = found;
  }
  return out;
}

describe('cron syntax', () => {
  it.each([
    '* * * * *',
    '0 1 * * *',
    '*/15 * * * *',
    '0-30/10 8-18 * * mon-fri',
    '0 0 1,15 * *',
    '5 4 * jan,jul SUN',
    '0 0 * * 7',
    '  0 12 * * 1  ',
    '@daily',
    '@hourly',
    '0 0 29 2 *',
    '59 23 31 12 *',
  ])('accepts %s', (cron) => {
    expect(parseCron(cron)).not.toBeNull();
  });

  it.each([
    '',
    '* * * *',
    '* * * * * *',
    '60 * * * *',
    '* 24 * * *',
    '* * 0 * *',
    '* * 32 * *',
    '* * * 13 *',
    '* * * * 8',
    '*/0 * * * *',
    '5-1 * * * *',
    '1-2-3 * * * *',
    'a b c d e',
    '* * * foo *',
    '0 0 30 2 *',
    '0 0 31 4,6,9,11 *',
    '@reboot',
    '1,,2 * * * *',
    '*\u0000 * * * *',
    `${'1,'.repeat(600)}1 * * * *`,
  ])('refuses %j', (cron) => {
    expect(parseCron(cron)).toBeNull();
  });

  it('reads 0 and 7 both as Sunday, and names in any case', () => {
    expect(parseCron('0 0 * * 7')?.weekdays).toEqual(new Set([0]));
    expect(parseCron('0 0 * * Sun,sat')?.weekdays).toEqual(new Set([0, 6]));
    expect(parseCron('0 0 * JAN-mar *')?.months).toEqual(new Set([1, 2, 3]));
  });

  it('gives GitLab validation errors by field', () => {
    expect(checkSchedule('nope', 'UTC')).toEqual({ errors: { cron: ['is invalid syntax'] } });
    expect(checkSchedule('* * * * *', 'Mars/Olympus')).toEqual({ errors: { cronTimezone: ['is invalid syntax'] } });
    expect(checkSchedule('x', 'y')).toEqual({ errors: { cron: ['is invalid syntax'], cronTimezone: ['is invalid syntax'] } });
  });
});

describe('time zones', () => {
  it('accepts IANA identifiers and ActiveSupport names, and refuses the rest', () => {
    expect(resolveTimeZone('UTC')).toBe('Etc/UTC');
    expect(resolveTimeZone('Europe/Berlin')).toBe('Europe/Berlin');
    expect(resolveTimeZone('Pacific Time (US & Canada)')).toBe('America/Los_Angeles');
    expect(resolveTimeZone('Berlin')).toBe('Europe/Berlin');
    for (const bad of ['', 'Nowhere/Special', '+02:00', '../../etc/passwd', 'Europe/Berlin\u0000', 'x'.repeat(500)]) expect(resolveTimeZone(bad)).toBeNull();
  });
});

describe('next run', () => {
  it('is strictly after the given time, in UTC', () => {
    expect(next('0 1 * * *', 'UTC', '2026-03-10T00:59:59Z')).toBe('2026-03-10T01:00:00.000Z');
    expect(next('0 1 * * *', 'UTC', '2026-03-10T01:00:00Z')).toBe('2026-03-11T01:00:00.000Z');
    expect(runs('*/20 * * * *', 'UTC', '2026-03-10T10:05:00Z', 4)).toEqual(['2026-03-10T10:20:00.000Z', '2026-03-10T10:40:00.000Z', '2026-03-10T11:00:00.000Z', '2026-03-10T11:20:00.000Z']);
  });

  it('reads the cron in the schedule zone', () => {
    expect(next('0 9 * * *', 'Europe/Berlin', '2026-01-15T12:00:00Z')).toBe('2026-01-16T08:00:00.000Z');
    expect(next('0 9 * * *', 'Europe/Berlin', '2026-07-15T12:00:00Z')).toBe('2026-07-16T07:00:00.000Z');
    expect(next('30 0 * * *', 'Asia/Kolkata', '2026-01-15T00:00:00Z')).toBe('2026-01-15T19:00:00.000Z');
    expect(next('0 1 * * *', 'Pacific Time (US & Canada)', '2026-01-15T00:00:00Z')).toBe('2026-01-15T09:00:00.000Z');
  });

  it('matches either day field when both are restricted, as Vixie cron', () => {
    // 2026-03-01 is a Sunday: the 13th or any Friday.
    expect(runs('0 0 13 * fri', 'UTC', '2026-03-01T00:00:00Z', 3)).toEqual(['2026-03-06T00:00:00.000Z', '2026-03-13T00:00:00.000Z', '2026-03-20T00:00:00.000Z']);
    // A stepped star is still a star: only the weekday decides.
    expect(runs('0 0 */2 * mon', 'UTC', '2026-03-01T00:00:00Z', 2)).toEqual(['2026-03-02T00:00:00.000Z', '2026-03-09T00:00:00.000Z']);
  });

  it('finds leap days', () => {
    expect(next('0 0 29 2 *', 'UTC', '2026-03-01T00:00:00Z')).toBe('2028-02-29T00:00:00.000Z');
    expect(next('0 12 29 feb *', 'Europe/Paris', '2028-02-29T11:00:00Z')).toBe('2032-02-29T11:00:00.000Z');
    // The 29th of every month skips February in a common year.
    expect(next('0 0 29 * *', 'UTC', '2027-02-01T00:00:00Z')).toBe('2027-03-29T00:00:00.000Z');
  });

  it('runs a time the spring-forward gap skips once, as the clock would have read it', () => {
    // Europe/Berlin jumps from 02:00 to 03:00 on 2026-03-29 (01:00 UTC).
    expect(next('30 2 * * *', 'Europe/Berlin', '2026-03-28T12:00:00Z')).toBe('2026-03-29T01:30:00.000Z');
    expect(next('30 2 * * *', 'Europe/Berlin', '2026-03-29T01:30:00Z')).toBe('2026-03-30T00:30:00.000Z');
    expect(runs('*/30 * * * *', 'Europe/Berlin', '2026-03-29T00:15:00Z', 4)).toEqual(['2026-03-29T00:30:00.000Z', '2026-03-29T01:00:00.000Z', '2026-03-29T01:30:00.000Z', '2026-03-29T02:00:00.000Z']);
    // America/New_York: 02:00 → 03:00 on 2026-03-08 (07:00 UTC).
    expect(next('15 2 * * *', 'America/New_York', '2026-03-08T05:00:00Z')).toBe('2026-03-08T07:15:00.000Z');
  });

  it('runs a fixed time of the repeated fall-back hour once, and every-hour crons in both', () => {
    // Europe/Berlin goes from 03:00 back to 02:00 on 2026-10-25 (01:00 UTC): 02:30 happens at 00:30 and 01:30 UTC.
    expect(instantsOf('Europe/Berlin', 2026, 10, 25, 2, 30)).toEqual([Date.parse('2026-10-25T00:30:00Z'), Date.parse('2026-10-25T01:30:00Z')]);
    expect(runs('30 2 * * *', 'Europe/Berlin', '2026-10-24T12:00:00Z', 2)).toEqual(['2026-10-25T00:30:00.000Z', '2026-10-26T01:30:00.000Z']);
    expect(runs('30 * * * *', 'Europe/Berlin', '2026-10-24T23:00:00Z', 4)).toEqual(['2026-10-24T23:30:00.000Z', '2026-10-25T00:30:00.000Z', '2026-10-25T01:30:00.000Z', '2026-10-25T02:30:00.000Z']);
  });

  it('handles zones with half- and quarter-hour offsets and the date line', () => {
    expect(next('0 0 * * *', 'Asia/Kathmandu', '2026-06-01T00:00:00Z')).toBe('2026-06-01T18:15:00.000Z');
    expect(next('0 0 1 1 *', 'Pacific/Kiritimati', '2026-06-01T00:00:00Z')).toBe('2026-12-31T10:00:00.000Z');
  });
});
