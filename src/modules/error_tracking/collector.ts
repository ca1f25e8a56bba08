/**
 * What the Sentry-compatible collector understands, without HTTP: the key in a request (GitLab's SentryAuthParser),
 * a store body or an envelope (SentryRequestParser), and an event turned into what an error is grouped by
 * (CollectErrorService): its exception or message, its actor, its time, and the user it names.
 */

/** An event ready to store. */
export interface CollectedEvent {
  name: string;
  description: string;
  actor: string;
  platform: string | null;
  environment: string | null;
  level: string | null;
  occurredAt: Date;
  userIdentity: string | null;
  payload: Record<string, unknown>;
}

/** A session update (envelope item `session`). */
export interface CollectedSession {
  sid: string;
  status: string;
  errors: number;
  release: string | null;
  environment: string | null;
  distinctId: string | null;
  startedAt: Date;
  updatedAt: Date;
}

/** Why a request is refused, in GitLab's words (400). */
export class CollectorRefusal extends Error {}
export const FAILED_TO_PARSE = '400 Bad request - Failed to parse sentry request';
export const UNSUPPORTED_PAYLOAD = '400 Bad request - Unsupported sentry payload';

/** Column lengths of GitLab's ErrorTracking::Error: longer values are cut, ending in an ellipsis. */
const NAME_MAX = 255;
const DESCRIPTION_MAX = 1024;
const ACTOR_MAX = 255;
const PLATFORM_MAX = 255;
const SHORT_MAX = 255;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Strings a database text column takes: no NUL characters, and lone surrogates replaced. */
function clean(value: string, max: number): string {
  let text = value.replace(/\u0000/g, '').replace(LONE_SURROGATE, '\uFFFD');
  if (text.length > max) text = `${text.slice(0, max - 3)}...`;
  return text;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const str = (value: unknown): string | null => (typeof value === 'string' && value.length > 0 ? value : typeof value === 'number' ? String(value) : null);

/** The client key of a request: `sentry_key` in the query, else in the X-Sentry-Auth header. */
export function sentryKey(query: unknown, authHeader: string | undefined): string | null {
  const fromQuery = isObject(query) && typeof query.sentry_key === 'string' ? query.sentry_key : '';
  if (fromQuery) return fromQuery;
  const match = /sentry_key=(\w+)/.exec(authHeader ?? '');
  return match ? match[1] : null;
}

/** The JSON document of a store request: one event. */
export function parseStore(body: Buffer): { events: CollectedEvent[]; sessions: CollectedSession[] } {
  const event = parseJson(body.toString('utf8'));
  return { events: [normalizeEvent(event)], sessions: [] };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new CollectorRefusal(FAILED_TO_PARSE);
  }
}

/** Item types the collector stores; others (transactions, client reports, attachments, …) are accepted and dropped. */
const EVENT_TYPES = new Set(['event']);

/**
 * An envelope: a header line, then items, each a header line and a payload of `length` bytes (or up to the next
 * newline when the header gives none). Every item is looked at, not only the first.
 */
export function parseEnvelope(body: Buffer): { events: CollectedEvent[]; sessions: CollectedSession[] } {
  const events: CollectedEvent[] = [];
  const sessions: CollectedSession[] = [];
  let offset = 0;
  const line = (): Buffer | null => {
    if (offset >= body.length) return null;
    let end = body.indexOf(0x0a, offset);
    if (end === -1) end = body.length;
    const slice = body.subarray(offset, end);
    offset = end + 1;
    return slice;
  };
  const header = line();
  if (!header || !isObject(parseJson(header.toString('utf8')))) throw new CollectorRefusal(FAILED_TO_PARSE);
  for (;;) {
    let itemHeaderLine = line();
    // Blank lines between items are tolerated.
    while (itemHeaderLine && itemHeaderLine.toString('utf8').trim() === '') itemHeaderLine = line();
    if (!itemHeaderLine) break;
    const itemHeader = parseJson(itemHeaderLine.toString('utf8'));
    if (!isObject(itemHeader) || typeof itemHeader.type !== 'string') throw new CollectorRefusal(FAILED_TO_PARSE);
    let payload: Buffer;
    if (itemHeader.length !== undefined) {
      const length = itemHeader.length;
      if (typeof length !== 'number' || !Number.isInteger(length) || length < 0 || offset + length > body.length) throw new CollectorRefusal(FAILED_TO_PARSE);
      payload = body.subarray(offset, offset + length);
      offset += length;
      // The newline after a payload of known length is optional.
      if (body[offset] === 0x0a) offset += 1;
    } else {
      payload = line() ?? Buffer.alloc(0);
    }
    const type = itemHeader.type;
    if (EVENT_TYPES.has(type)) events.push(normalizeEvent(parseJson(payload.toString('utf8'))));
    else if (type === 'session') {
      const session = normalizeSession(parseJson(payload.toString('utf8')));
      if (session) sessions.push(session);
    }
  }
  return { events, sessions };
}

/** `timestamp` as epoch seconds (a number or numeric string) or an RFC 3339 string; now when absent or unreadable. */
function eventTime(value: unknown, now = new Date()): Date {
  let date: Date | null = null;
  if (typeof value === 'number') date = new Date(value * 1000);
  else if (typeof value === 'string' && /^\d+(\.\d+)?$/.test(value)) date = new Date(Number(value) * 1000);
  else if (typeof value === 'string') date = new Date(/[zZ]|[+-]\d\d:?\d\d$/.test(value) ? value : `${value}Z`);
  return date && Number.isFinite(date.getTime()) && Math.abs(date.getFullYear()) < 10_000 ? date : now;
}

/** The exception an error is named after: the first with a stack trace, else the first (CollectErrorService). */
function chosenException(event: Record<string, unknown>): Record<string, unknown> | null {
  const raw = event.exception;
  // Go's SDK sends an array instead of `{ values: [...] }`.
  const values = Array.isArray(raw) ? raw : isObject(raw) && Array.isArray(raw.values) ? raw.values : null;
  if (!values) return null;
  const exceptions = values.filter(isObject);
  return exceptions.find((e) => isObject(e.stacktrace)) ?? exceptions[0] ?? null;
}

/** A message event's text: `message` (a string or `{ formatted, message }`) or `logentry`. */
function messageText(event: Record<string, unknown>): string | null {
  for (const candidate of [event.message, event.logentry]) {
    if (typeof candidate === 'string' && candidate) return candidate;
    if (isObject(candidate)) {
      const text = str(candidate.formatted) ?? str(candidate.message);
      if (text) return text;
    }
  }
  return null;
}

/** The actor: the event's transaction, else `function(module)` of the chosen exception's last frame. */
function actorOf(event: Record<string, unknown>, exception: Record<string, unknown> | null): string | null {
  const transaction = str(event.transaction);
  if (transaction) return transaction;
  const frames = exception && isObject(exception.stacktrace) && Array.isArray(exception.stacktrace.frames) ? exception.stacktrace.frames.filter(isObject) : [];
  const last = frames[frames.length - 1];
  if (last) {
    const fn = str(last.function);
    const module = str(last.module) ?? str(last.filename);
    if (fn || module) return `${fn ?? '?'}(${module ?? '?'})`;
  }
  return str(event.culprit) ?? str(event.logger);
}

/** The user an event names: its id, username, e-mail or IP address, the first present. */
function userIdentity(event: Record<string, unknown>): string | null {
  const user = event.user;
  if (!isObject(user)) return null;
  for (const [field, value] of [['id', user.id], ['username', user.username], ['email', user.email], ['ip_address', user.ip_address]] as const) {
    const text = str(value);
    if (text) return clean(`${field}:${text}`, SHORT_MAX);
  }
  return null;
}

/** How deep a payload may nest (SDKs normalize far shallower); deeper is refused, not stored. */
const MAX_DEPTH = 64;

/** The payload with its strings (keys too) cleaned for the database, refused beyond MAX_DEPTH. */
function cleanPayload(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return clean(value, Number.MAX_SAFE_INTEGER);
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) throw new CollectorRefusal(UNSUPPORTED_PAYLOAD);
  if (Array.isArray(value)) return value.map((v) => cleanPayload(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[clean(k, Number.MAX_SAFE_INTEGER)] = cleanPayload(v, depth + 1);
  return out;
}

/** An event's fields, or the refusal GitLab gives a payload it does not support. */
export function normalizeEvent(event: unknown): CollectedEvent {
  if (!isObject(event)) throw new CollectorRefusal(UNSUPPORTED_PAYLOAD);
  const exception = chosenException(event);
  const message = messageText(event);
  let name: string | null;
  let description: string;
  if (exception) {
    name = str(exception.type) ?? str(exception.value) ?? message;
    description = str(exception.value) ?? message ?? '';
  } else {
    name = message;
    description = message ?? '';
  }
  if (!name) throw new CollectorRefusal(UNSUPPORTED_PAYLOAD);
  const platform = str(event.platform);
  return {
    name: clean(name, NAME_MAX),
    description: clean(description || name, DESCRIPTION_MAX),
    actor: clean(actorOf(event, exception) ?? 'unknown', ACTOR_MAX),
    platform: platform ? clean(platform, PLATFORM_MAX) : null,
    environment: str(event.environment) ? clean(String(event.environment), SHORT_MAX) : null,
    level: str(event.level) ? clean(String(event.level), SHORT_MAX) : null,
    occurredAt: eventTime(event.timestamp),
    userIdentity: userIdentity(event),
    payload: cleanPayload(event, 0) as Record<string, unknown>,
  };
}

/** A session update; null when it names no session. */
function normalizeSession(session: unknown): CollectedSession | null {
  if (!isObject(session)) throw new CollectorRefusal(UNSUPPORTED_PAYLOAD);
  const sid = str(session.sid);
  if (!sid) return null;
  const attrs = isObject(session.attrs) ? session.attrs : {};
  const errors = typeof session.errors === 'number' && Number.isInteger(session.errors) && session.errors >= 0 ? Math.min(session.errors, 2 ** 31 - 1) : 0;
  const now = new Date();
  const text = (value: unknown) => (str(value) ? clean(String(value), SHORT_MAX) : null);
  return {
    sid: clean(sid, SHORT_MAX),
    status: text(session.status) ?? 'ok',
    errors,
    release: text(attrs.release),
    environment: text(attrs.environment),
    distinctId: text(session.did),
    startedAt: eventTime(session.started, now),
    updatedAt: eventTime(session.timestamp, now),
  };
}
