/**
 * Input is checked at the edge, once, for REST and GraphQL alike, before anything runs (GitLab's
 * HandleMalformedStrings and Rack's parsers): a path or query string whose percent-encoding does not decode to
 * UTF-8, a NUL byte in the path, a parameter, a JSON or form body (GraphQL variables included), or a body that
 * is not UTF-8, answers 400 "Bad Request"; a charset or content encoding the server cannot decode answers 415.
 * gzip, deflate and br bodies are decoded by the body parsers, their decoded size held to the body limit.
 */
import { isUtf8 } from 'node:buffer';
import type { IncomingMessage } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import { malformedRequest, unsupportedMediaType } from '../errors.js';
import { sendCoded } from './middleware.js';
import { tooDeep } from './params.js';

/** Deepest nesting of parameters inspected; deeper input is refused as malformed rather than walked. */
const MAX_DEPTH = 32;

/** The component decoded, or null when its escapes do not decode to UTF-8 or it holds a NUL byte. */
function decoded(component: string): string | null {
  try {
    const text = decodeURIComponent(component);
    return text.includes('\0') ? null : text;
  } catch {
    return null; // a bad escape, or bytes that are not UTF-8
  }
}

const decodes = (component: string): boolean => decoded(component) !== null;

/** Each `&`-separated key and value of a query string or form body decodes cleanly (once each), and no name nests too deep. */
function cleanPairs(raw: string): boolean {
  if (!raw) return true;
  for (const pair of raw.split('&')) {
    const [name, ...values] = pair.split('=').map((part) => decoded(part.replace(/\+/g, ' ')));
    if (name === null || values.includes(null) || tooDeep(name)) return false;
  }
  return true;
}

/** No string in a parsed value holds a NUL byte, and it is not nested absurdly deep. */
export function cleanValue(value: unknown, depth = 0): boolean {
  if (typeof value === 'string') return !value.includes('\0');
  if (value === null || typeof value !== 'object') return true;
  if (depth > MAX_DEPTH) return false;
  const items = Array.isArray(value) ? value : Object.entries(value).flat();
  return items.every((item) => cleanValue(item, depth + 1));
}

/** Body parsers' `verify`: the raw bytes are UTF-8, and a form body's escapes decode. */
export function verifyBody(req: IncomingMessage, _res: unknown, buf: Buffer): void {
  const form = /^application\/x-www-form-urlencoded/i.test(req.headers['content-type'] ?? '');
  if (!isUtf8(buf) || (form && !cleanPairs(buf.toString('utf8')))) {
    throw Object.assign(new Error('malformed body'), { status: 400, type: 'entity.malformed' });
  }
}

/** Answers body-parser failures of encoding and charset before they reach the generic handler. */
export function bodyEncodingErrors(err: unknown, _req: Request, res: Response, next: NextFunction): void {
  const e = err as { type?: string; status?: number };
  if (e?.type === 'encoding.unsupported' || e?.type === 'charset.unsupported' || e?.status === 415) return sendCoded(res, unsupportedMediaType());
  if (e?.type === 'entity.malformed' || e?.type === 'entity.verify.failed') return sendCoded(res, malformedRequest());
  next(err);
}

/** The edge check of path, query and parsed body; runs after the body parsers. */
export function rejectMalformedInput(req: Request, res: Response, next: NextFunction): void {
  const url = req.originalUrl;
  const q = url.indexOf('?');
  const path = q === -1 ? url : url.slice(0, q);
  const query = q === -1 ? '' : url.slice(q + 1);
  const ok = path.split('/').every(decodes) && cleanPairs(query) && cleanValue(req.body);
  if (!ok) return sendCoded(res, malformedRequest());
  next();
}
