/**
 * How GitLab words an epic's due date in an issue's `epic` (EpicBaseEntity): `human_readable_end_date` is Rails'
 * `:medium` date (`Jan  5, 2030`), `human_readable_timestamp` is EpicsHelper's `remaining_days_in_words`, with its
 * `<strong>` markup, counted in days from today (UTC) with Rails' `distance_of_time_in_words` bands.
 */
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const DAY_MS = 86_400_000;

export function humanReadableEndDate(date: Date | null): string | null {
  if (!date) return null;
  return `${MONTHS[date.getUTCMonth()]} ${String(date.getUTCDate()).padStart(2, ' ')}, ${date.getUTCFullYear()}`;
}

const today = () => new Date(new Date().toISOString().slice(0, 10)).getTime();

/** Rails' distance_of_time_in_words for whole days, `about` dropped as the helper drops it. */
function distanceInDays(days: number): string {
  const minutes = days * 1440;
  if (minutes < 2520) return '1 day';
  if (minutes < 43200) return `${Math.round(minutes / 1440)} days`;
  if (minutes < 86400) return '1 month';
  if (minutes < 525600) return `${Math.round(minutes / 43200)} months`;
  const years = Math.floor(days / 365);
  const rest = days - years * 365;
  if (rest < 91) return years === 1 ? '1 year' : `${years} years`;
  if (rest < 273) return `over ${years} ${years === 1 ? 'year' : 'years'}`;
  return `almost ${years + 1} years`;
}

export function remainingDaysInWords(due: Date | null, start: Date | null): string | null {
  const now = today();
  if (due && due.getTime() < now) return '<strong>Past due</strong>';
  if (due && due.getTime() === now) return '<strong>Today</strong>';
  if (start && start.getTime() > now) return '<strong>Upcoming</strong>';
  if (due) return `${distanceInDays(Math.round((due.getTime() - now) / DAY_MS)).replace(/\d+/g, (n) => `<strong>${n}</strong>`)} remaining`;
  if (start && start.getTime() < now) {
    const days = Math.round((now - start.getTime()) / DAY_MS);
    return `<strong>${days}</strong> ${days === 1 ? 'day' : 'days'} elapsed`;
  }
  return null;
}
