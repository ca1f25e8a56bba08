/**
 * Cron as GitLab's pipeline schedules read it (Gitlab::Ci::CronParser over Fugit): five fields (minute, hour, day of
 * month, month, day of week) of `*`, numbers, ranges `a-b`, steps `*\/n` and `a-b/n`, lists, month and weekday names,
 * 0 and 7 both Sunday, the `@daily`-style macros; day of month and day of week match either when both are restricted
 * (Vixie cron's rule: a field is unrestricted when it starts with `*`). Times are computed in the schedule's zone, an
 * IANA name or one of ActiveSupport's names ("Pacific Time (US & Canada)"), with offsets from Intl.DateTimeFormat.
 */

export interface Cron {
  minutes: readonly number[];
  hours: readonly number[];
  days: ReadonlySet<number>;
  months: ReadonlySet<number>;
  weekdays: ReadonlySet<number>;
  /** Both day fields restricted: a day matches when either does. */
  dayOr: boolean;
  /** Day of month unrestricted (`*`), day of week unrestricted: then only the other one decides. */
  anyDay: boolean;
  anyWeekday: boolean;
  /** The hour field is a wildcard: in a repeated (fall-back) hour, both occurrences run, as ISC cron does. */
  everyHour: boolean;
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const WEEKDAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];

const MACROS: Record<string, string> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

/** Longest cron text read at all; anything longer is refused before parsing. */
const MAX_CRON_LENGTH = 1000;

interface FieldSpec {
  min: number;
  max: number;
  names?: readonly string[];
  /** The value names count from (months from 1). */
  nameBase?: number;
}

const FIELDS: FieldSpec[] = [
  { min: 0, max: 59 },
  { min: 0, max: 23 },
  { min: 1, max: 31 },
  { min: 1, max: 12, names: MONTHS, nameBase: 1 },
  { min: 0, max: 7, names: WEEKDAYS, nameBase: 0 },
];

function value(text: string, spec: FieldSpec): number | null {
  if (/^\d{1,2}$/.test(text)) {
    const n = Number(text);
    return n >= spec.min && n <= spec.max ? n : null;
  }
  const index = spec.names?.indexOf(text.toLowerCase()) ?? -1;
  return index >= 0 ? index + (spec.nameBase ?? 0) : null;
}

/** One field's values, or null when it is not valid cron. */
function field(text: string, spec: FieldSpec): Set<number> | null {
  const values = new Set<number>();
  for (const part of text.split(',')) {
    const match = /^([^/]+)(?:\/(\d{1,2}))?$/.exec(part);
    if (!match) return null;
    const [, range, stepText] = match;
    const step = stepText === undefined ? 1 : Number(stepText);
    if (step < 1) return null;
    let from: number | null;
    let to: number | null;
    if (range === '*') {
      from = spec.min;
      to = spec.max;
    } else if (range.includes('-')) {
      const [a, b, extra] = range.split('-');
      if (extra !== undefined) return null;
      from = value(a, spec);
      to = value(b, spec);
      if (from === null || to === null || from > to) return null;
    } else {
      from = value(range, spec);
      // `5/15` is 5 to the end in steps of 15, as in Vixie cron.
      to = stepText === undefined ? from : spec.max;
    }
    if (from === null || to === null) return null;
    for (let v = from; v <= to; v += step) values.add(v);
  }
  return values;
}

/** The cron, or null when GitLab would call its syntax invalid (or it can never fire, such as `0 0 30 2 *`). */
export function parseCron(text: string): Cron | null {
  if (typeof text !== 'string' || text.length > MAX_CRON_LENGTH) return null;
  const trimmed = text.trim();
  const expanded = MACROS[trimmed.toLowerCase()] ?? trimmed;
  const parts = expanded.split(/[ \t]+/);
  if (parts.length !== 5) return null;
  const sets = parts.map((part, i) => field(part, FIELDS[i]));
  if (sets.some((s) => s === null)) return null;
  const [minutes, hours, days, months, weekdays] = sets as Set<number>[];
  if (weekdays.delete(7)) weekdays.add(0);
  const anyDay = parts[2].startsWith('*');
  const anyWeekday = parts[4].startsWith('*');
  const cron: Cron = {
    minutes: [...minutes].sort((a, b) => a - b),
    hours: [...hours].sort((a, b) => a - b),
    days,
    months,
    weekdays,
    dayOr: !anyDay && !anyWeekday,
    anyDay,
    anyWeekday,
    everyHour: parts[1].startsWith('*') && hours.size === 24,
  };
  return possible(cron) ? cron : null;
}

/** Whether some day of some year matches (day-of-month-only crons such as the 31st of February never do). */
function possible(cron: Cron): boolean {
  if (cron.dayOr || cron.anyDay) return true;
  const longest = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
  return [...cron.months].some((month) => [...cron.days].some((day) => day <= longest[month - 1]));
}

// ---- Time zones ----

/** ActiveSupport::TimeZone::MAPPING: the zone names GitLab offers besides IANA identifiers. */
const ACTIVE_SUPPORT_ZONES: Record<string, string> = {
  'International Date Line West': 'Etc/GMT+12',
  'Midway Island': 'Pacific/Midway',
  'American Samoa': 'Pacific/Pago_Pago',
  Hawaii: 'Pacific/Honolulu',
  Alaska: 'America/Juneau',
  'Pacific Time (US & Canada)': 'America/Los_Angeles',
  Tijuana: 'America/Tijuana',
  'Mountain Time (US & Canada)': 'America/Denver',
  Arizona: 'America/Phoenix',
  Chihuahua: 'America/Chihuahua',
  Mazatlan: 'America/Mazatlan',
  'Central Time (US & Canada)': 'America/Chicago',
  Saskatchewan: 'America/Regina',
  Guadalajara: 'America/Mexico_City',
  'Mexico City': 'America/Mexico_City',
  Monterrey: 'America/Monterrey',
  'Central America': 'America/Guatemala',
  'Eastern Time (US & Canada)': 'America/New_York',
  'Indiana (East)': 'America/Indiana/Indianapolis',
  Bogota: 'America/Bogota',
  Lima: 'America/Lima',
  Quito: 'America/Lima',
  'Atlantic Time (Canada)': 'America/Halifax',
  Caracas: 'America/Caracas',
  'La Paz': 'America/La_Paz',
  Santiago: 'America/Santiago',
  Newfoundland: 'America/St_Johns',
  Brasilia: 'America/Sao_Paulo',
  'Buenos Aires': 'America/Argentina/Buenos_Aires',
  Montevideo: 'America/Montevideo',
  Georgetown: 'America/Guyana',
  'Puerto Rico': 'America/Puerto_Rico',
  Greenland: 'America/Godthab',
  'Mid-Atlantic': 'Atlantic/South_Georgia',
  Azores: 'Atlantic/Azores',
  'Cape Verde Is.': 'Atlantic/Cape_Verde',
  Dublin: 'Europe/Dublin',
  Edinburgh: 'Europe/London',
  Lisbon: 'Europe/Lisbon',
  London: 'Europe/London',
  Casablanca: 'Africa/Casablanca',
  Monrovia: 'Africa/Monrovia',
  UTC: 'Etc/UTC',
  Belgrade: 'Europe/Belgrade',
  Bratislava: 'Europe/Bratislava',
  Budapest: 'Europe/Budapest',
  Ljubljana: 'Europe/Ljubljana',
  Prague: 'Europe/Prague',
  Sarajevo: 'Europe/Sarajevo',
  Skopje: 'Europe/Skopje',
  Warsaw: 'Europe/Warsaw',
  Zagreb: 'Europe/Zagreb',
  Brussels: 'Europe/Brussels',
  Copenhagen: 'Europe/Copenhagen',
  Madrid: 'Europe/Madrid',
  Paris: 'Europe/Paris',
  Amsterdam: 'Europe/Amsterdam',
  Berlin: 'Europe/Berlin',
  Bern: 'Europe/Zurich',
  Zurich: 'Europe/Zurich',
  Rome: 'Europe/Rome',
  Stockholm: 'Europe/Stockholm',
  Vienna: 'Europe/Vienna',
  'West Central Africa': 'Africa/Algiers',
  Bucharest: 'Europe/Bucharest',
  Cairo: 'Africa/Cairo',
  Helsinki: 'Europe/Helsinki',
  Kyiv: 'Europe/Kiev',
  Riga: 'Europe/Riga',
  Sofia: 'Europe/Sofia',
  Tallinn: 'Europe/Tallinn',
  Vilnius: 'Europe/Vilnius',
  Athens: 'Europe/Athens',
  Istanbul: 'Europe/Istanbul',
  Minsk: 'Europe/Minsk',
  Jerusalem: 'Asia/Jerusalem',
  Harare: 'Africa/Harare',
  Pretoria: 'Africa/Johannesburg',
  Kaliningrad: 'Europe/Kaliningrad',
  Moscow: 'Europe/Moscow',
  'St. Petersburg': 'Europe/Moscow',
  Volgograd: 'Europe/Volgograd',
  Samara: 'Europe/Samara',
  Kuwait: 'Asia/Kuwait',
  Riyadh: 'Asia/Riyadh',
  Nairobi: 'Africa/Nairobi',
  Baghdad: 'Asia/Baghdad',
  Tehran: 'Asia/Tehran',
  'Abu Dhabi': 'Asia/Muscat',
  Muscat: 'Asia/Muscat',
  Baku: 'Asia/Baku',
  Tbilisi: 'Asia/Tbilisi',
  Yerevan: 'Asia/Yerevan',
  Kabul: 'Asia/Kabul',
  Ekaterinburg: 'Asia/Yekaterinburg',
  Islamabad: 'Asia/Karachi',
  Karachi: 'Asia/Karachi',
  Tashkent: 'Asia/Tashkent',
  Chennai: 'Asia/Kolkata',
  Kolkata: 'Asia/Kolkata',
  Mumbai: 'Asia/Kolkata',
  'New Delhi': 'Asia/Kolkata',
  Kathmandu: 'Asia/Kathmandu',
  Astana: 'Asia/Dhaka',
  Dhaka: 'Asia/Dhaka',
  'Sri Jayawardenepura': 'Asia/Colombo',
  Almaty: 'Asia/Almaty',
  Novosibirsk: 'Asia/Novosibirsk',
  Rangoon: 'Asia/Rangoon',
  Bangkok: 'Asia/Bangkok',
  Hanoi: 'Asia/Bangkok',
  Jakarta: 'Asia/Jakarta',
  Krasnoyarsk: 'Asia/Krasnoyarsk',
  Beijing: 'Asia/Shanghai',
  Chongqing: 'Asia/Chongqing',
  'Hong Kong': 'Asia/Hong_Kong',
  Urumqi: 'Asia/Urumqi',
  'Kuala Lumpur': 'Asia/Kuala_Lumpur',
  Singapore: 'Asia/Singapore',
  Taipei: 'Asia/Taipei',
  Perth: 'Australia/Perth',
  Irkutsk: 'Asia/Irkutsk',
  Ulaanbaatar: 'Asia/Ulaanbaatar',
  Seoul: 'Asia/Seoul',
  Osaka: 'Asia/Tokyo',
  Sapporo: 'Asia/Tokyo',
  Tokyo: 'Asia/Tokyo',
  Yakutsk: 'Asia/Yakutsk',
  Darwin: 'Australia/Darwin',
  Adelaide: 'Australia/Adelaide',
  Canberra: 'Australia/Melbourne',
  Melbourne: 'Australia/Melbourne',
  Sydney: 'Australia/Sydney',
  Brisbane: 'Australia/Brisbane',
  Hobart: 'Australia/Hobart',
  Vladivostok: 'Asia/Vladivostok',
  Guam: 'Pacific/Guam',
  'Port Moresby': 'Pacific/Port_Moresby',
  Magadan: 'Asia/Magadan',
  Srednekolymsk: 'Asia/Srednekolymsk',
  'Solomon Is.': 'Pacific/Guadalcanal',
  'New Caledonia': 'Pacific/Noumea',
  Fiji: 'Pacific/Fiji',
  Kamchatka: 'Asia/Kamchatka',
  'Marshall Is.': 'Pacific/Majuro',
  Auckland: 'Pacific/Auckland',
  Wellington: 'Pacific/Auckland',
  "Nuku'alofa": 'Pacific/Tongatapu',
  'Tokelau Is.': 'Pacific/Fakaofo',
  'Chatham Is.': 'Pacific/Chatham',
  Samoa: 'Pacific/Apia',
};

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(zone: string): Intl.DateTimeFormat {
  let found = formatters.get(zone);
  if (!found) {
    found = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(zone, found);
  }
  return found;
}

/**
 * The IANA zone a schedule's `cron_timezone` names (ActiveSupport names mapped), or null when it names none. Offsets
 * (`+02:00`) and abbreviations other than UTC are not zone names to GitLab, so not here either.
 */
export function resolveTimeZone(name: string): string | null {
  if (typeof name !== 'string' || name.length === 0 || name.length > 100) return null;
  const mapped = ACTIVE_SUPPORT_ZONES[name];
  if (mapped) return mapped;
  if (!/^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/.test(name)) return null;
  try {
    formatter(name);
    return name;
  } catch {
    return null;
  }
}

/** Local wall-clock fields of an instant in a zone. */
function localFields(zone: string, at: number): { year: number; month: number; day: number; hour: number; minute: number; second: number } {
  const parts: Record<string, number> = {};
  for (const part of formatter(zone).formatToParts(new Date(at))) if (part.type !== 'literal') parts[part.type] = Number(part.value);
  return { year: parts.year, month: parts.month, day: parts.day, hour: parts.hour, minute: parts.minute, second: parts.second };
}

/** The zone's offset from UTC at an instant, in milliseconds (local = UTC + offset). */
function offsetAt(zone: string, at: number): number {
  const whole = Math.floor(at / 1000) * 1000;
  const f = localFields(zone, whole);
  return Date.UTC(f.year, f.month - 1, f.day, f.hour, f.minute, f.second) - whole;
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/**
 * The instants a local wall-clock time names in a zone: one usually, two in a repeated (fall-back) hour, and in a
 * skipped (spring-forward) hour the instant the clock would show had it not jumped (02:30 becomes 03:30), as
 * JavaScript's Temporal does by default.
 */
export function instantsOf(zone: string, year: number, month: number, day: number, hour: number, minute: number): number[] {
  const wall = Date.UTC(year, month - 1, day, hour, minute);
  const before = offsetAt(zone, wall - DAY);
  const after = offsetAt(zone, wall + DAY);
  const found = [...new Set([before, after])]
    .map((offset) => wall - offset)
    .filter((at) => wall - offsetAt(zone, at) === at)
    .sort((a, b) => a - b);
  return found.length ? found : [wall - before];
}

/** Days looked at before giving up: eight years, enough for a leap day that must also be a given weekday. */
const SEARCH_DAYS = 8 * 366 + 7;

function dayMatches(cron: Cron, year: number, month: number, day: number): boolean {
  if (!cron.months.has(month)) return false;
  const weekday = new Date(Date.UTC(year, month - 1, day)).getUTCDay();
  const byDay = cron.days.has(day);
  const byWeekday = cron.weekdays.has(weekday);
  if (cron.dayOr) return byDay || byWeekday;
  if (cron.anyDay && cron.anyWeekday) return true;
  if (cron.anyDay) return byWeekday;
  return byDay;
}

/** The first time after `after` (strictly) the cron fires in the zone (an IANA name, see resolveTimeZone); null if none within years. */
export function nextRun(cron: Cron, zone: string, after: Date): Date | null {
  const from = after.getTime();
  const start = localFields(zone, from);
  // Wall-clock minutes of the day `after` falls on; earlier candidates that day cannot come after it, whatever the offset does.
  const startMinutes = start.hour * 60 + start.minute - 3 * 60;
  const first = Date.UTC(start.year, start.month - 1, start.day);
  for (let d = -1; d < SEARCH_DAYS; d++) {
    const date = new Date(first + d * DAY);
    const year = date.getUTCFullYear();
    const month = date.getUTCMonth() + 1;
    const day = date.getUTCDate();
    if (!dayMatches(cron, year, month, day)) continue;
    for (const hour of cron.hours) {
      for (const minute of cron.minutes) {
        if (d === 0 && hour * 60 + minute < startMinutes) continue;
        const instants = instantsOf(zone, year, month, day, hour, minute);
        // A repeated hour runs a fixed-hour cron once (its first occurrence), an every-hour cron in both.
        const candidates = cron.everyHour ? instants : instants.slice(0, 1);
        const next = candidates.find((at) => at > from);
        if (next !== undefined) return new Date(next);
      }
    }
  }
  return null;
}

/** GitLab's validation of a schedule's cron and zone, in its words: errors by field, or the IANA zone and parsed cron. */
export function checkSchedule(cronText: string, zoneName: string): { errors: Record<string, string[]> } | { cron: Cron; zone: string } {
  const cron = parseCron(cronText);
  const zone = resolveTimeZone(zoneName);
  const errors: Record<string, string[]> = {};
  if (!cron) errors.cron = ['is invalid syntax'];
  if (!zone) errors.cronTimezone = ['is invalid syntax'];
  if (!cron || !zone) return { errors };
  return { cron, zone };
}
