/** GitLab's access levels: a membership's level, and the level each ability asks for. */
export const AccessLevel = {
  NO_ACCESS: 0,
  MINIMAL_ACCESS: 5,
  GUEST: 10,
  PLANNER: 15,
  REPORTER: 20,
  DEVELOPER: 30,
  MAINTAINER: 40,
  OWNER: 50,
  /** Only protected refs use it: "Admins" may push, merge or unprotect. */
  ADMIN: 60,
} as const;

export type AccessLevelName = keyof typeof AccessLevel;

/** The name GitLab gives a level (the highest named level at or below it). */
export function accessLevelName(level: number): AccessLevelName {
  const entries = Object.entries(AccessLevel) as [AccessLevelName, number][];
  return entries.reduce((best, [name, value]) => (value <= level ? name : best), 'NO_ACCESS' as AccessLevelName);
}

/** GitLab's human_access: the name of a membership's level as its messages show it (`Developer`). */
export function humanAccessLevel(level: number): string {
  const name = accessLevelName(level);
  return name.charAt(0) + name.slice(1).toLowerCase().replace(/_/g, ' ');
}

/** The level of a group's Owners, whom GitLab's last-owner rule counts. */
export const OWNER_ACCESS_LEVEL = AccessLevel.OWNER;

/** The level the creator of a group or of a personal project holds on it. */
export const CREATOR_ACCESS_LEVEL = AccessLevel.OWNER;

/** The levels a membership may grant, by GitLab's `MemberAccessLevel` names (the GraphQL enum's values). */
export const MEMBER_ACCESS_LEVELS = {
  MINIMAL_ACCESS: AccessLevel.MINIMAL_ACCESS,
  GUEST: AccessLevel.GUEST,
  PLANNER: AccessLevel.PLANNER,
  REPORTER: AccessLevel.REPORTER,
  DEVELOPER: AccessLevel.DEVELOPER,
  MAINTAINER: AccessLevel.MAINTAINER,
  OWNER: AccessLevel.OWNER,
} as const;

/**
 * Minimal Access (GitLab EE's MINIMAL_ACCESS): a membership of a top-level group only, which lets its member see the
 * group and appear among its members, and grants nothing below it: no project, subgroup or share counts it.
 */
export function isMinimalAccess(level: number): boolean {
  return level === AccessLevel.MINIMAL_ACCESS;
}

/** The lowest level that is a role (Guest): memberships below it (Minimal Access) grant nothing beyond their group. */
export const LOWEST_ROLE = AccessLevel.GUEST;

/** Whether a level may stand where only real roles may (shares, access tokens, project memberships): Guest and up. */
export function isRole(level: number): boolean {
  return level >= LOWEST_ROLE;
}

/** The levels a protected branch's push, merge and unprotect rules take, in GitLab's words (ProtectedRefAccess::HUMAN_ACCESS_LEVELS). */
export const PROTECTED_REF_ACCESS_LEVELS: Readonly<Record<number, string>> = {
  [AccessLevel.NO_ACCESS]: 'No one',
  [AccessLevel.DEVELOPER]: 'Developers + Maintainers',
  [AccessLevel.MAINTAINER]: 'Maintainers',
  [AccessLevel.ADMIN]: 'Admins',
};

/** A protected branch's levels when the API is not told: Maintainers push and merge (GitLab's API defaults). */
export const DEFAULT_PROTECTED_REF_LEVEL = AccessLevel.MAINTAINER;

/**
 * GitLab's `default_branch_protection_defaults` as shipped ("fully protected"): only Maintainers push and merge,
 * no force pushes. Applied when a project's default branch is first pushed.
 */
export const DEFAULT_BRANCH_PROTECTION = { push: AccessLevel.MAINTAINER, merge: AccessLevel.MAINTAINER, allowForcePush: false } as const;

/** Whether a protected ref's level is exactly Developers + Maintainers (GitLab's `developers_can?` on a protected branch). */
export function isDevelopersLevel(level: number): boolean {
  return level === AccessLevel.DEVELOPER;
}
