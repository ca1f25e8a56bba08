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
} as const;

export type AccessLevelName = keyof typeof AccessLevel;

/** The name GitLab gives a level (the highest named level at or below it). */
export function accessLevelName(level: number): AccessLevelName {
  const entries = Object.entries(AccessLevel) as [AccessLevelName, number][];
  return entries.reduce((best, [name, value]) => (value <= level ? name : best), 'NO_ACCESS' as AccessLevelName);
}

/** The level the creator of a group or of a personal project holds on it. */
export const CREATOR_ACCESS_LEVEL = AccessLevel.OWNER;

/** The levels a membership may grant, by GitLab's `MemberAccessLevel` names (the GraphQL enum's values). */
export const MEMBER_ACCESS_LEVELS = {
  GUEST: AccessLevel.GUEST,
  PLANNER: AccessLevel.PLANNER,
  REPORTER: AccessLevel.REPORTER,
  DEVELOPER: AccessLevel.DEVELOPER,
  MAINTAINER: AccessLevel.MAINTAINER,
  OWNER: AccessLevel.OWNER,
} as const;
