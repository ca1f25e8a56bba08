/**
 * `cache:` (GitLab's Entry::Caches / Entry::Cache / Entry::Key / Entry::Key::Files): one cache or a list of up to
 * four, validated with GitLab's messages. A `key:files` key stays unresolved here; the pipeline resolves it against
 * its commit (Seed::Build::Cache).
 */
import type { Problems } from './problems.js';
import { unknownKeys } from './problems.js';
import type { Value } from './types.js';
import { isBoolean, isMap, isString, isStringArray } from './values.js';

export interface PlannedCache {
  key: string | { files: string[]; prefix: string | null };
  paths: string[];
  untracked: boolean;
  policy: string;
  when: string;
  unprotect: boolean;
  fallbackKeys: string[];
}

const CACHE_KEYS = ['key', 'untracked', 'paths', 'when', 'policy', 'unprotect', 'fallback_keys'];
const POLICY = /^(pull-push|push|pull|\$\w{1,255})$/;
const WHEN = ['on_success', 'on_failure', 'always'];
/** GitLab's MULTIPLE_CACHE_LIMIT. */
export const MULTIPLE_CACHE_LIMIT = 4;
const MAX_FALLBACK_KEYS = 5;

function readKey(value: Value, location: string, p: Problems): PlannedCache['key'] | null {
  if (isString(value)) {
    if (value.includes('/') || value.includes('%2F') || /^\.{1,2}$/.test(value) || /^%2E{1,2}$/i.test(value)) {
      p.add(location, 'config cannot contain the "/" character');
      return null;
    }
    return value;
  }
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (!isMap(value)) {
    p.add(location, 'config should be a hash, a string or a symbol');
    return null;
  }
  unknownKeys(p, location, value.keys(), ['files', 'prefix']);
  const files = value.get('files') ?? null;
  const prefix = value.get('prefix') ?? null;
  if (files === null) p.add(location, "files can't be blank");
  else if (!isStringArray(files)) p.add(`${location}:files`, 'config should be an array of strings');
  else if (files.length === 0) p.add(`${location}:files`, 'config requires at least 1 item');
  else if (files.length > 2) p.add(`${location}:files`, 'config has too many items (maximum is 2)');
  if (prefix !== null && !isString(prefix)) p.add(`${location}:prefix`, 'config should be a string or symbol');
  return isStringArray(files) && files.length >= 1 && files.length <= 2 ? { files, prefix: isString(prefix) ? prefix : null } : null;
}

function readOne(value: Value, location: string, p: Problems): PlannedCache | null {
  if (!isMap(value)) {
    p.add(location, 'config should be a hash');
    return null;
  }
  const before = p.errors.length;
  unknownKeys(p, location, value.keys(), CACHE_KEYS);
  const get = (key: string) => value.get(key) ?? null;
  const key = get('key') === null ? 'default' : readKey(get('key'), `${location}:key`, p);
  const paths = get('paths');
  if (paths !== null && !isStringArray(paths)) p.add(`${location}:paths`, 'config should be an array of strings');
  const untracked = get('untracked');
  if (untracked !== null && !isBoolean(untracked)) p.add(location, 'untracked should be a boolean value');
  const unprotect = get('unprotect');
  if (unprotect !== null && !isBoolean(unprotect)) p.add(location, 'unprotect should be a boolean value');
  const policy = get('policy');
  if (policy !== null && !(isString(policy) && (policy === '' || POLICY.test(policy)))) p.add(location, 'policy should be pull-push, push, or pull');
  const when = get('when');
  if (when !== null && !(isString(when) && WHEN.includes(when))) p.add(location, 'when should be on_success, on_failure or always');
  const fallback = get('fallback_keys');
  if (fallback !== null) {
    if (!isStringArray(fallback)) p.add(location, 'fallback keys should be an array of strings');
    else if (fallback.length > MAX_FALLBACK_KEYS) p.add(location, `fallback keys has to be less than or equal to ${MAX_FALLBACK_KEYS}`);
  }
  if (p.errors.length !== before || key === null) return null;
  return {
    key,
    paths: isStringArray(paths) ? paths : [],
    untracked: untracked === true,
    policy: isString(policy) && policy !== '' ? policy : 'pull-push',
    when: isString(when) ? when : 'on_success',
    unprotect: unprotect === true,
    fallbackKeys: isStringArray(fallback) ? fallback : [],
  };
}

/** `cache:` as a job states it: a hash or a list of at most four. */
export function readCache(value: Value, location: string, p: Problems): PlannedCache[] | null {
  if (Array.isArray(value)) {
    if (value.length > MULTIPLE_CACHE_LIMIT) {
      p.add(location, `no more than ${MULTIPLE_CACHE_LIMIT} caches can be created`);
      return null;
    }
    const list = value.map((entry) => readOne(entry, location, p));
    return list.every((c) => c !== null) ? (list as PlannedCache[]) : null;
  }
  if (!isMap(value)) {
    p.add(location, 'config can only be a Hash or an Array');
    return null;
  }
  const one = readOne(value, location, p);
  return one ? [one] : null;
}
