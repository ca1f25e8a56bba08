/** GitLab's global IDs (`gid://gitlab/Project/7`) and the numeric IDs REST uses; both are accepted as input. */
import { invalidValue } from '../errors.js';

export function globalId(type: string, id: number | bigint): string {
  return `gid://gitlab/${type}/${id}`;
}

/** A numeric ID, from `7`, `"7"` or `"gid://gitlab/<type>/7"`; throws BAD_USER_INPUT naming `param` otherwise. */
export function parseId(value: unknown, type: string, param: string): number {
  const raw = typeof value === 'number' ? String(value) : typeof value === 'string' ? value : '';
  const match = /^(?:gid:\/\/gitlab\/([A-Za-z:]+)\/)?(\d{1,15})$/.exec(raw);
  if (!match || (match[1] !== undefined && match[1] !== type)) throw invalidValue(param);
  const id = Number(match[2]);
  if (!Number.isSafeInteger(id) || id > 2147483647) throw invalidValue(param);
  return id;
}

/** Whether a `:id`-style value names a record by number rather than by path. */
export function isNumericId(value: string): boolean {
  return /^\d{1,10}$/.test(value) && Number(value) <= 2147483647;
}
