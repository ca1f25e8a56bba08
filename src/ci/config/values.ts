/** Helpers over configuration values: type tests with Ruby's meaning, Ruby's `deep_merge`, and size bounds. */
import { Reference, type ConfigMap, type Value } from './types.js';

export const isMap = (v: unknown): v is ConfigMap => v instanceof Map;
export const isString = (v: unknown): v is string => typeof v === 'string';
export const isInteger = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);
export const isBoolean = (v: unknown): v is boolean => typeof v === 'boolean';
export const isStringArray = (v: unknown): v is string[] => Array.isArray(v) && v.every(isString);
/** Ruby's `blank?`: nil, false, empty or whitespace-only strings, empty arrays and hashes. */
export const isBlank = (v: Value | undefined): boolean =>
  v === undefined || v === null || v === false || (isString(v) && v.trim() === '') || (Array.isArray(v) && v.length === 0) || (isMap(v) && v.size === 0);

/** Ruby's `Hash#deep_merge`: hashes merge key by key (the base's order first), anything else is replaced. */
export function deepMerge(base: ConfigMap, over: ConfigMap): ConfigMap {
  const out: ConfigMap = new Map(base);
  for (const [key, value] of over) {
    const current = out.get(key);
    out.set(key, isMap(current) && isMap(value) ? deepMerge(current, value) : value);
  }
  return out;
}

/** Ruby's `Array#flatten` of nested string arrays (GitLab's Commands value), at most `depth` levels. */
export function flattenStrings(value: Value, depth: number): string[] | null {
  if (isString(value)) return [value];
  if (!Array.isArray(value) || depth <= 0) return null;
  const out: string[] = [];
  for (const item of value) {
    const inner = isString(item) ? [item] : flattenStrings(item, depth - 1);
    if (!inner) return null;
    out.push(...inner);
  }
  return out;
}

/** Ruby's `inspect` of a value, as GitLab's `!reference` errors quote the tag's data. */
export function rubyInspect(value: Value): string {
  if (isString(value)) return JSON.stringify(value);
  if (value === null) return 'nil';
  if (Array.isArray(value)) return `[${value.map(rubyInspect).join(', ')}]`;
  if (isMap(value)) return `{${[...value].map(([k, v]) => `${JSON.stringify(k)}=>${rubyInspect(v)}`).join(', ')}}`;
  if (value instanceof Reference) return rubyInspect(value.path);
  return String(value);
}

/** Whether the value, with shared parts counted each time they appear, has more than `limit` nodes. */
export function exceedsSize(value: Value, limit: number): boolean {
  let count = 0;
  const stack: Value[] = [value];
  while (stack.length) {
    const v = stack.pop()!;
    if (++count > limit) return true;
    if (Array.isArray(v)) stack.push(...v);
    else if (isMap(v)) for (const [, item] of v) stack.push(item);
  }
  return false;
}

/** Plain JSON data (objects for hashes), for values kept as data such as a trigger's `include`. */
export function toPlain(value: Value): unknown {
  if (Array.isArray(value)) return value.map(toPlain);
  if (isMap(value)) return Object.fromEntries([...value].map(([k, v]) => [k, toPlain(v)]));
  if (value instanceof Reference) return toPlain(value.path);
  return value;
}

/** A value as Ruby's `to_s` writes it (variables are strings whatever YAML type they had). */
export function rubyString(value: Value): string {
  if (value === null) return '';
  return isString(value) || typeof value === 'number' || isBoolean(value) ? String(value) : JSON.stringify(toPlain(value));
}
