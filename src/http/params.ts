/**
 * How parameter names nest, as GitLab's Rack parses them, once for query strings, form bodies and multipart fields:
 * a repeated name or `a[]` makes a list, `a[b]` nests (`a[0]` too: an object keyed "0", which list parameters read
 * by its values), and `a[][b]` fills the last object of a list until it already has `b`, then starts a new one, so
 * `variables[][key]=A&variables[][value]=1&variables[][key]=B` is two variables.
 */
import type { NextFunction, Request, Response } from 'express';

/** Keys that would reach an object's prototype; such parameters are dropped. */
const UNSAFE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);
/** GitLab's (Rack's) bound on the number of parameters; beyond it they are ignored, as the urlencoded parsers do. */
export const MAX_PARAMS = 1000;
/** Deepest nesting of a name (`a[b][c]…`); a deeper one is refused as malformed (input.ts), never walked. */
export const MAX_NAME_DEPTH = 32;

/** `a[b][]` as `['a', 'b', '']`; a name that is not of that shape is one key, as it is. */
function keyPath(name: string): [string, ...string[]] {
  const match = /^([^[\]]+)((?:\[[^[\]]*\])*)$/.exec(name);
  if (!match) return [name];
  return [match[1], ...[...match[2].matchAll(/\[([^[\]]*)\]/g)].map((m) => m[1])];
}

/** Whether a name nests deeper than MAX_NAME_DEPTH. */
export function tooDeep(name: string): boolean {
  let depth = 0;
  for (let i = 0; i < name.length; i++) if (name.charCodeAt(i) === 91 /* [ */ && ++depth > MAX_NAME_DEPTH) return true;
  return false;
}

/**
 * A parameter's value as text, for every place a scalar is expected: a string as it is, a number or boolean (JSON
 * bodies) written out; undefined for anything else. Never `String(value)` on a parameter: an object from
 * `a[toString]=x` or JSON `{"toString": "x"}` has no callable `toString`, and String() throws on it.
 */
export function paramText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}

/** A plain object (not a list, nor a value such as an uploaded file). */
function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype;
}

/** Sets `value` at `path` under `node[key]`. */
function assign(node: Record<string, unknown>, key: string, path: string[], value: unknown): void {
  if (UNSAFE_KEYS.has(key)) return;
  const existing = Object.hasOwn(node, key) ? node[key] : undefined;
  if (path.length === 0) {
    node[key] = existing === undefined ? value : Array.isArray(existing) ? [...existing, value] : [existing, value];
    return;
  }
  const [next, ...rest] = path;
  if (next === '') {
    const list = Array.isArray(existing) ? existing : existing === undefined ? [] : [existing];
    node[key] = list;
    if (rest.length === 0) {
      list.push(value);
      return;
    }
    const last: unknown = list[list.length - 1];
    const target = isRecord(last) && !Object.hasOwn(last, rest[0]) ? last : {};
    if (target !== last) list.push(target);
    assign(target, rest[0], rest.slice(1), value);
    return;
  }
  const child = isRecord(existing) ? existing : {};
  node[key] = child;
  assign(child, next, rest, value);
}

/** Adds one named parameter to `params` (names nesting too deep are left to input.ts to refuse). */
export function addParam(params: Record<string, unknown>, name: string, value: unknown): void {
  if (tooDeep(name)) return;
  const [key, ...path] = keyPath(name);
  assign(params, key, path, value);
}

/** A query string or form body (`a=1&b[]=2`) as parameters. */
export function parseParams(raw: string): Record<string, unknown> {
  const params: Record<string, unknown> = {};
  let count = 0;
  for (const [name, value] of new URLSearchParams(raw)) {
    if (++count > MAX_PARAMS) break;
    addParam(params, name, value);
  }
  return params;
}

/** After the form body parser (express.text for `application/x-www-form-urlencoded`): the body as parameters. */
export function formBodies(req: Request, _res: Response, next: NextFunction): void {
  if (typeof req.body === 'string' && /^application\/x-www-form-urlencoded/i.test(req.headers['content-type'] ?? '')) req.body = parseParams(req.body);
  next();
}
