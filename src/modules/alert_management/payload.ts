/**
 * What an alert payload says, as GitLab's Gitlab::AlertManagement::Payload reads it: the generic format (with an
 * HTTP integration's custom mapping) and the Prometheus/Alertmanager webhook format, GitLab's severity table and
 * its fingerprints (Gitlab::AlertManagement::Fingerprint). Pure: no database, no HTTP.
 */
import { createHash } from 'node:crypto';

export type Severity = 'critical' | 'high' | 'medium' | 'low' | 'info' | 'unknown';

/** GitLab's severity synonyms, case-insensitive (spec 4.9; `minor` as GitLab's code has it). Anything else: critical. */
const SEVERITIES: Record<string, Severity> = {};
for (const [severity, names] of Object.entries({
  critical: ['critical', 's1', 'p1', 'emergency', 'fatal'],
  high: ['high', 's2', 'p2', 'major', 'page'],
  medium: ['medium', 's3', 'p3', 'error', 'alert'],
  low: ['low', 's4', 'p4', 'warn', 'warning', 'minor'],
  info: ['info', 's5', 'p5', 'debug', 'information', 'notice'],
}) as [Severity, string[]][]) {
  for (const name of names) SEVERITIES[name] = severity;
}

/** The severity a payload value names; `unknown` only where the generic format lists it. */
export function mapSeverity(value: unknown, { allowUnknown }: { allowUnknown: boolean }): Severity {
  if (typeof value !== 'string' && typeof value !== 'number') return 'critical';
  const name = String(value).trim().toLowerCase();
  if (allowUnknown && name === 'unknown') return 'unknown';
  return SEVERITIES[name] ?? 'critical';
}

// Column limits of GitLab's AlertManagement::Alert.
export const TITLE_MAX = 200;
export const DESCRIPTION_MAX = 1000;
export const SERVICE_MAX = 100;
export const TOOL_MAX = 100;
export const HOSTS_MAX = 255;
/** What the notify endpoints read at most (GitLab's documented 1 MB). */
export const PAYLOAD_MAX_BYTES = 1024 * 1024;
/** GitLab's DeepSize depth bound. */
export const PAYLOAD_MAX_DEPTH = 100;

/** What one alert of a payload says, ready to store. */
export interface ParsedAlert {
  title: string;
  description: string | null;
  service: string | null;
  monitoringTool: string | null;
  hosts: string[];
  severity: Severity;
  startedAt: Date;
  /** Resolving: when it ended (now when the payload does not say). */
  endedAt: Date | null;
  resolving: boolean;
  /** SHA-1 hex, or null: no grouping. */
  fingerprint: string | null;
  environment: string | null;
  /** The alert's own payload, stored as is. */
  payload: JsonObject;
}

export type Json = string | number | boolean | null | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Rails' `blank?` for JSON values. */
function blank(v: Json | undefined): boolean {
  if (v === undefined || v === null || v === false) return true;
  if (typeof v === 'string') return v.trim() === '';
  if (Array.isArray(v)) return v.length === 0;
  if (isObject(v)) return Object.keys(v).length === 0;
  return false;
}

/** A value at a path of keys and indexes, blank values counting as absent (GitLab's `value.presence`). */
export function dig(payload: Json, path: readonly (string | number)[]): Json | undefined {
  let here: Json | undefined = payload;
  for (const key of path) {
    if (Array.isArray(here) && typeof key === 'number') here = here[key];
    else if (isObject(here) && typeof key === 'string') here = Object.prototype.hasOwnProperty.call(here, key) ? here[key] : undefined;
    else return undefined;
  }
  return blank(here) ? undefined : here;
}

const text = (v: Json | undefined, max: number): string | null => (v === undefined ? null : truncate(typeof v === 'string' ? v : JSON.stringify(v), max));
const truncate = (s: string, max: number) => (s.length > max ? s.slice(0, max) : s);

/** Time.parse, or epoch milliseconds (GitLab's time_with_epoch_millis); null when it is no time. */
export function parseTime(v: Json | undefined): Date | null {
  if (v === undefined) return null;
  if (typeof v === 'number') return Number.isFinite(v) ? validDate(new Date(v)) : null;
  if (typeof v !== 'string') return null;
  return validDate(new Date(v.trim()));
}
const validDate = (d: Date) => (Number.isNaN(d.getTime()) || d.getUTCFullYear() < 1 || d.getUTCFullYear() > 9999 ? null : d);

/** `Array(hosts).flatten`, strings only, the joined length kept within 255 characters (GitLab's truncate_hosts). */
function hostsOf(v: Json | undefined): string[] {
  if (v === undefined) return [];
  const flat = (Array.isArray(v) ? v.flat(Infinity as 1) : [v]).filter((h) => h !== null && h !== undefined).map((h) => (typeof h === 'string' ? h : JSON.stringify(h)));
  const kept: string[] = [];
  let room = HOSTS_MAX;
  for (const host of flat) {
    if (room <= 0) break;
    kept.push(host.slice(0, room));
    room -= Math.min(host.length, room);
  }
  return kept;
}

/** The GitLab fields a custom mapping may name, as GraphQL's AlertManagementPayloadAlertFieldName. */
export const MAPPABLE_FIELDS = {
  title: ['string'],
  description: ['string'],
  start_time: ['datetime'],
  end_time: ['datetime'],
  service: ['string'],
  monitoring_tool: ['string'],
  hosts: ['string', 'array'],
  severity: ['string'],
  fingerprint: ['string', 'array'],
  gitlab_environment_name: ['string'],
} as const;
export type MappableField = keyof typeof MAPPABLE_FIELDS;
export interface FieldMapping {
  path: (string | number)[];
  type: string;
  label?: string | null;
}
export type AttributeMapping = Partial<Record<MappableField, FieldMapping>>;

/**
 * A generic payload (GitLab's Payload::Generic, with EE's custom mapping and automatic fingerprint): every field
 * optional, each read from the mapped path first, then from its own key.
 */
export function parseGeneric(payload: JsonObject, mapping: AttributeMapping, now: Date): ParsedAlert {
  const read = (field: MappableField): Json | undefined => {
    const mapped = mapping[field];
    const fromMapping = mapped ? dig(payload, mapped.path) : undefined;
    return fromMapping !== undefined ? fromMapping : dig(payload, [field]);
  };
  const endTime = read('end_time');
  const explicit = read('fingerprint');
  const resolving = endTime !== undefined;
  return {
    title: text(read('title'), TITLE_MAX) ?? 'New: Alert',
    description: text(read('description'), DESCRIPTION_MAX),
    service: text(read('service'), SERVICE_MAX),
    monitoringTool: text(read('monitoring_tool'), TOOL_MAX),
    hosts: hostsOf(read('hosts')),
    severity: mapSeverity(read('severity'), { allowUnknown: true }),
    startedAt: parseTime(read('start_time')) ?? now,
    endedAt: resolving ? (parseTime(endTime) ?? now) : null,
    resolving,
    fingerprint: explicit !== undefined ? fingerprint(explicit) : fingerprint(withoutKeys(payload, ['start_time', 'end_time', 'hosts'])),
    environment: text(read('gitlab_environment_name'), 255),
    payload,
  };
}

function withoutKeys(payload: JsonObject, keys: string[]): JsonObject {
  const rest: JsonObject = {};
  for (const [k, v] of Object.entries(payload)) if (!keys.includes(k)) rest[k] = v;
  return rest;
}

/** The top-level keys that make a payload an Alertmanager webhook (GitLab's Prometheus NotifyService). */
export const PROMETHEUS_KEYS = ['version', 'groupKey', 'status', 'receiver', 'groupLabels', 'commonLabels', 'commonAnnotations', 'externalURL', 'alerts'] as const;

/** Whether a payload is an Alertmanager webhook: every required attribute, `version` the string "4". */
export function isPrometheusPayload(payload: JsonObject): boolean {
  return PROMETHEUS_KEYS.every((k) => k in payload) && payload.version === '4';
}

/** The top-level attributes an Alertmanager webhook lacks or has of the wrong kind (empty: valid). */
export function prometheusProblems(payload: JsonObject): string[] {
  const problems: string[] = [];
  for (const key of PROMETHEUS_KEYS) if (!(key in payload)) problems.push(`${key} is missing`);
  if ('alerts' in payload && !Array.isArray(payload.alerts)) problems.push('alerts must be an array');
  for (const key of ['groupLabels', 'commonLabels', 'commonAnnotations'] as const) if (key in payload && !isObject(payload[key])) problems.push(`${key} must be an object`);
  return problems;
}

/** `g0.expr` of a Prometheus generator URL. */
function fullQuery(generatorUrl: Json | undefined): string | null {
  if (typeof generatorUrl !== 'string') return null;
  try {
    return new URL(generatorUrl).searchParams.get('g0.expr');
  } catch {
    return null;
  }
}

/**
 * One item of an Alertmanager webhook's `alerts` (GitLab's Payload::Prometheus), or null when it lacks what GitLab
 * requires of it (a title from annotations.title, annotations.summary or labels.alertname, and startsAt).
 */
export function parsePrometheusItem(item: Json, now: Date): ParsedAlert | null {
  if (!isObject(item)) return null;
  const title = dig(item, ['annotations', 'title']) ?? dig(item, ['annotations', 'summary']) ?? dig(item, ['labels', 'alertname']);
  const startsAt = dig(item, ['startsAt']);
  if (title === undefined || startsAt === undefined) return null;
  const query = fullQuery(dig(item, ['generatorURL']));
  const titleText = text(title, TITLE_MAX)!;
  // Alertmanager sends the zero time as endsAt while an alert fires: only a real end in the past resolves.
  const endsAt = parseTime(dig(item, ['endsAt']));
  const ended = endsAt !== null && endsAt.getUTCFullYear() > 1 && endsAt.getTime() <= now.getTime();
  const resolving = item.status === 'resolved' || ended;
  return {
    title: titleText,
    description: text(dig(item, ['annotations', 'description']), DESCRIPTION_MAX),
    service: null,
    monitoringTool: 'Prometheus',
    hosts: [],
    severity: mapSeverity(dig(item, ['labels', 'severity']), { allowUnknown: false }),
    startedAt: parseTime(startsAt) ?? now,
    endedAt: resolving ? (endsAt && endsAt.getUTCFullYear() > 1 ? endsAt : now) : null,
    resolving,
    // GitLab's plain fingerprint: the raw startsAt, the title and the query, joined by `/`.
    fingerprint: fingerprint([typeof startsAt === 'string' ? startsAt : JSON.stringify(startsAt), titleText, query ?? ''].join('/')),
    environment: text(dig(item, ['labels', 'gitlab_environment_name']), 255),
    payload: item,
  };
}

/** What the alert details show of a Prometheus alert besides its columns. */
export function prometheusExtras(item: JsonObject): { runbook: string | null; yLabel: string | null; fullQuery: string | null } {
  const runbook = dig(item, ['annotations', 'runbook']);
  const y = dig(item, ['annotations', 'gitlab_y_label']) ?? dig(item, ['annotations', 'svc_y_label']) ?? dig(item, ['annotations', 'title']) ?? dig(item, ['annotations', 'summary']) ?? dig(item, ['labels', 'alertname']);
  return { runbook: typeof runbook === 'string' ? runbook : null, yLabel: typeof y === 'string' ? y : null, fullQuery: fullQuery(dig(item, ['generatorURL'])) };
}

// Gitlab::AlertManagement::Fingerprint: SHA-1 of a string built from the value as Ruby would print it.

/** SHA-1 hex of a plain fingerprint; null when it is blank. */
export function fingerprint(data: Json | undefined): string | null {
  if (data === undefined || blank(data)) return null;
  let plain: string;
  if (Array.isArray(data)) plain = flattenArray(data).map(rubyToS).join('');
  else if (isObject(data)) {
    const pairs = inlineHash(data).sort((a, b) => Buffer.compare(Buffer.from(a[0]), Buffer.from(b[0])));
    plain = `[${pairs.map(([k, v]) => `[${rubyInspect(k)}, ${rubyInspect(v)}]`).join(', ')}]`;
  } else plain = rubyToS(data);
  return createHash('sha1').update(plain).digest('hex');
}

const flattenArray = (a: Json[]): Json[] => a.flat(Infinity as 1) as Json[];

/** Gitlab::Utils::InlineHash.merge_keys: nested objects' keys joined with `.`; arrays stay values. */
function inlineHash(data: JsonObject, prefix = ''): [string, Json][] {
  const out: [string, Json][] = [];
  for (const [k, v] of Object.entries(data)) {
    const key = prefix ? `${prefix}.${k}` : k;
    if (isObject(v)) out.push(...inlineHash(v, key));
    else out.push([key, v]);
  }
  return out;
}

/** Ruby's `to_s` of a parsed JSON value. */
function rubyToS(v: Json): string {
  if (typeof v === 'string') return v;
  if (v === null) return '';
  return rubyInspect(v);
}

/** Ruby's Float#to_s: shortest round-trip digits, `.0` on whole numbers, exponent form below 1e-4 and from 1e16. */
function rubyFloat(n: number): string {
  if (!Number.isFinite(n)) return n > 0 ? 'Infinity' : n < 0 ? '-Infinity' : 'NaN';
  const abs = Math.abs(n);
  if (abs !== 0 && (abs < 1e-4 || abs >= 1e16)) {
    const [mantissa, exp] = n.toExponential().split('e');
    const m = mantissa!.includes('.') ? mantissa : `${mantissa}.0`;
    const e = Number(exp);
    return `${m}e${e < 0 ? '-' : '+'}${String(Math.abs(e)).padStart(2, '0')}`;
  }
  return Number.isInteger(n) ? `${n}.0` : String(n);
}

/** Ruby's `inspect` (Hash as before Ruby 3.4: `{"a"=>1}`). JSON cannot tell 1.0 from 1: whole numbers print as integers. */
function rubyInspect(v: Json): string {
  if (v === null) return 'nil';
  if (typeof v === 'boolean') return String(v);
  if (typeof v === 'number') return Number.isInteger(v) && Math.abs(v) < 1e16 ? String(v) : rubyFloat(v);
  if (typeof v === 'string') return rubyString(v);
  if (Array.isArray(v)) return `[${v.map(rubyInspect).join(', ')}]`;
  return `{${Object.entries(v)
    .map(([k, x]) => `${rubyString(k)}=>${rubyInspect(x)}`)
    .join(', ')}}`;
}

const ESCAPES: Record<string, string> = { '"': '\\"', '\\': '\\\\', '\n': '\\n', '\t': '\\t', '\r': '\\r', '\f': '\\f', '\v': '\\v', '\b': '\\b', '\x07': '\\a', '\x1b': '\\e' };

/** Ruby's String#inspect of a UTF-8 string. */
function rubyString(s: string): string {
  let out = '"';
  const chars = [...s];
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]!;
    const code = c.codePointAt(0)!;
    if (ESCAPES[c]) out += ESCAPES[c];
    else if (c === '#' && ['{', '$', '@'].includes(chars[i + 1] ?? '')) out += '\\#';
    else if (code < 0x20 || code === 0x7f) out += `\\u${code.toString(16).toUpperCase().padStart(4, '0')}`;
    else if (code >= 0xd800 && code <= 0xdfff) out += `\\u${code.toString(16).toUpperCase()}`;
    else out += c;
  }
  return `${out}"`;
}

/** Nesting depth of a JSON value (GitLab's DeepSize refuses beyond 100). */
export function depthOf(v: unknown, limit: number): number {
  let depth = 0;
  let level: unknown[] = [v];
  while (level.length) {
    const next: unknown[] = [];
    for (const x of level) {
      if (Array.isArray(x)) next.push(...x);
      else if (isObject(x as Json)) next.push(...Object.values(x as JsonObject));
    }
    if (!next.length) break;
    depth++;
    if (depth > limit) return depth;
    level = next;
  }
  return depth;
}
