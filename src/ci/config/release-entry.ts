/**
 * A job's `release:` (GitLab's Entry::Release with Release::Assets and Assets::Links): validated with GitLab's
 * errors and kept as written, for the runner's release step (runners/payload.ts) to turn into a release-cli command.
 */
import { Problems, unknownKeys } from './problems.js';
import type { Value } from './types.js';
import { isBlank, isMap, isString, isStringArray, toPlain } from './values.js';

const RELEASE_KEYS = ['tag_name', 'tag_message', 'name', 'description', 'ref', 'released_at', 'milestones', 'assets'];

/** The stored `release:` (JSON), as GitLab keeps the entry's value. */
export interface PlannedRelease {
  tag_name: string;
  description: string;
  tag_message?: string | null;
  name?: string;
  ref?: string;
  released_at?: string;
  milestones?: string | string[];
  assets?: { links?: Record<string, unknown>[] };
}

/** DateTime.iso8601: a date, optionally with a time and an offset. */
const ISO8601 = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}(?::?\d{2})?)?)?$/;

function validDate(value: string): boolean {
  if (!ISO8601.test(value)) return false;
  const [y, m, d] = value.slice(0, 10).split('-').map(Number);
  const date = new Date(Date.UTC(y!, m! - 1, d!));
  return date.getUTCMonth() === m! - 1 && date.getUTCDate() === d;
}

/** Commit.reference_valid? (a 7 to 40 hex sha), else Gitlab::GitRefValidator's rule (git's ref format, no `-` start). */
function validRef(ref: string): boolean {
  if (/^[0-9a-f]{7,40}$/i.test(ref)) return true;
  if (ref.startsWith('-') || ref.startsWith('refs/') || ref === 'HEAD') return false;
  // git check-ref-format: no control characters, space, ~ ^ : ? * [ \, no `..`, `@{`, `//`, no `.` or `/` ends,
  // no component starting with `.` or ending with `.lock`, and not `@` alone.
  if (/[\x00-\x20\x7f~^:?*[\\]/.test(ref) || ref.includes('..') || ref.includes('@{') || ref.includes('//')) return false;
  if (ref === '@' || ref.endsWith('.') || ref.endsWith('/') || ref.startsWith('/')) return false;
  return ref.split('/').every((part) => part !== '' && !part.startsWith('.') && !part.endsWith('.lock'));
}

/** Validates `release:` at `location` (`jobs:<name>:release`); its value (JSON) when valid, else null. */
export function readRelease(value: Value, location: string, p: Problems): PlannedRelease | null {
  if (!isMap(value)) {
    p.add(location, 'config should be a hash');
    return null;
  }
  const clean = p.clean(() => {
    unknownKeys(p, location, value.keys(), RELEASE_KEYS);
    const get = (key: string): Value => value.get(key) ?? null;
    const string = (key: string, label: string, required: boolean) => {
      const v = get(key);
      if (v !== null && !isString(v)) p.add(location, `${label} should be a string`);
      if (required && isBlank(v)) p.add(location, `${label} can't be blank`);
    };
    string('tag_name', 'tag name', true);
    string('tag_message', 'tag message', false);
    string('description', 'description', true);
    const milestones = get('milestones');
    if (!isBlank(milestones) && !isString(milestones) && !isStringArray(milestones)) p.add(location, 'milestones should be an array of strings or a string');
    const releasedAt = get('released_at');
    if (releasedAt !== null && releasedAt !== false && !(isString(releasedAt) && validDate(releasedAt))) p.add(location, 'released at must be a valid datetime');
    const ref = get('ref');
    if (ref !== null && ref !== false && !(isString(ref) && validRef(ref))) p.add(location, 'ref must be a valid ref');
    if (value.has('assets')) readAssets(get('assets'), `${location}:assets`, p);
  });
  return clean ? (toPlain(value) as PlannedRelease) : null;
}

/** Release::Assets: `links:` only, a present array of hashes (Assets::Links checks only that it is an array). */
function readAssets(value: Value, location: string, p: Problems): void {
  if (!isMap(value)) {
    p.add(location, 'config should be a hash');
    return;
  }
  unknownKeys(p, location, value.keys(), ['links']);
  const links = value.get('links') ?? null;
  if (links !== null && !(Array.isArray(links) && links.every(isMap))) p.add(location, 'links should be an array of hashes');
  if (isBlank(links)) p.add(location, "links can't be blank");
  if (links !== null && !Array.isArray(links)) p.add(`${location}:links`, 'config should be a array');
}
