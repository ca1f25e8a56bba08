/** GitLab's global IDs (`gid://gitlab/Project/7`) and the numeric IDs REST uses; both are accepted as input. */
import { argumentRefused } from '../errors.js';

export function globalId(type: string, id: number | bigint): string {
  return `gid://gitlab/${type}/${id}`;
}

/** The ID an out-of-range integer stands for: no row has it (IDs are positive). */
const NO_RECORD = -1;

// A plain numeral may be negative (Grape's Integer takes `-1`, which then names nothing); a global ID's may not.
const ID = /^(?:gid:\/\/gitlab\/([A-Za-z:]+)\/(?=\d))?(-?\d{1,1000})$/;

/**
 * A numeric ID, from `7`, `"7"` or `"gid://gitlab/<type>/7"`; otherwise BAD_USER_INPUT naming `argument` in the words
 * of Grape's Integer coercion (`pipelineId is invalid`, named as REST names it there), which GitLab's REST routes
 * declare their IDs with.
 */
export function parseId(value: unknown, type: string, argument: string): number {
  const raw = typeof value === 'number' ? String(value) : typeof value === 'string' ? value : '';
  const match = ID.exec(raw);
  if (!match || (match[1] !== undefined && match[1] !== type)) throw argumentRefused(argument, 'is invalid');
  const id = Number(match[2]);
  // An integer no record can have (Grape takes any): looked up, it names nothing, as GitLab's 404 says.
  return Number.isSafeInteger(id) && Math.abs(id) <= 2147483647 ? id : NO_RECORD;
}

/** A record named by numeric or global ID, or by path (a full path, a username). */
export type Ref = { id: number } | { path: string };

/** An issuable's iid as an argument names it: a non-negative integer of at most 9 digits, else -1, which names nothing. */
export const iidOf = (iid: string): number => (/^\d{1,9}$/.test(iid.trim()) ? Number(iid) : -1);

/** `7`, `gid://gitlab/<type>/7`, or anything else as a path. A numeral too large for an ID names nothing by ID, so it is a path. */
export function parseRef(value: string, type: string, argument: string): Ref {
  if (value.startsWith('gid://') || (/^\d{1,10}$/.test(value) && Number(value) <= 2147483647)) return { id: parseId(value, type, argument) };
  return { path: value };
}

/** The classes a label's global ID may name. */
export const LABEL_CLASSES = ['Label', 'ProjectLabel', 'GroupLabel'];

/**
 * An id an input takes as GitLab's plain `ID` (Mutations::Issues::Update#parse_label_ids, IssuableBaseService#filter_milestone): a global
 * ID of one of `classes`, or a plain numeric id; anything else names no record (null), which GitLab looks up and
 * does not find.
 */
export function looseId(value: string, classes: readonly string[]): number | null {
  const match = /^(?:gid:\/\/gitlab\/([A-Za-z:]+)\/)?(\d{1,10})$/.exec(value.trim());
  if (!match || (match[1] !== undefined && !classes.includes(match[1]))) return null;
  const id = Number(match[2]);
  return id <= 2147483647 ? id : null;
}

/** The ids of a list given as `[ID!]`, those naming no record left out (as GitLab finds nothing for them). */
export function looseIds(values: readonly string[] | null | undefined, classes: readonly string[]): number[] | null | undefined {
  if (values == null) return values;
  return values.map((v) => looseId(v, classes)).filter((id): id is number => id !== null);
}
