/** Access levels and the rules every service applies before it reads or writes. */
import type { Viewer } from './viewer.js';
import { forbidden, insufficientScope, unauthenticated } from '../errors.js';
import { WRITE_SCOPES, hasScope } from './viewer.js';

export const AccessLevel = {
  NO_ACCESS: 0,
  MINIMAL_ACCESS: 5,
  GUEST: 10,
  PLANNER: 15,
  REPORTER: 20,
  DEVELOPER: 30,
  MAINTAINER: 40,
  OWNER: 50,
} as const;

/** The levels a membership may be created with. */
export const MEMBER_LEVELS: readonly number[] = [10, 15, 20, 30, 40, 50];

export function accessLevelName(level: number): keyof typeof AccessLevel {
  const entries = Object.entries(AccessLevel) as [keyof typeof AccessLevel, number][];
  return entries.reduce((best, [name, value]) => (value <= level ? name : best), 'NO_ACCESS' as keyof typeof AccessLevel);
}

export type Visibility = 'private' | 'internal' | 'public';
export const VISIBILITY_RANK: Record<Visibility, number> = { private: 0, internal: 10, public: 20 };

/** Whether the viewer may read a resource of this visibility, given their effective access level on it. */
export function canRead(viewer: Viewer | null, visibility: string, level: number): boolean {
  if (visibility === 'public') return true;
  if (!viewer) return false;
  if (viewer.admin) return true;
  if (visibility === 'internal' && !viewer.external) return true;
  return level >= AccessLevel.GUEST;
}

export function requireViewer(viewer: Viewer | null): Viewer {
  if (!viewer) throw unauthenticated();
  return viewer;
}

export function requireAdmin(viewer: Viewer | null): Viewer {
  const v = requireViewer(viewer);
  if (!v.admin) throw forbidden();
  return v;
}

/** Writes need the `api` scope; `read_api` tokens may only read. */
export function requireWriteScope(viewer: Viewer | null): void {
  if (viewer && !hasScope(viewer, WRITE_SCOPES)) throw insufficientScope([...WRITE_SCOPES]);
}

/** Throws FORBIDDEN unless the viewer is an administrator or has at least `min` access. */
export function requireLevel(viewer: Viewer | null, level: number, min: number): Viewer {
  const v = requireViewer(viewer);
  if (!v.admin && level < min) throw forbidden();
  return v;
}

