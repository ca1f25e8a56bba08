/** Batched membership reads: a user's own memberships (every ability check reads them) and member counts. */
import { LOWEST_ROLE, isRole } from '../../auth/access-levels.js';
import type { Memberships } from '../../auth/policy.js';
import type { PrismaClient } from '../../db/database.js';
import { countLoader } from '../../db/loader.js';
import DataLoader from 'dataloader';

/**
 * Users' unexpired direct memberships, by group (namespace) id and by project id: what every ability check
 * reads. Remembered across requests by the App's MembershipCache (src/auth/memberships.ts), which calls this for
 * one user, or for the users of a list whose abilities are asked at once (a merge request's reviewers).
 */
export async function loadMemberships(db: PrismaClient, userIds: readonly number[]): Promise<Map<number, Memberships>> {
  const today = new Date(new Date().toISOString().slice(0, 10));
  const rows = await db.member.findMany({
    where: { userId: { in: [...userIds] }, OR: [{ expiresAt: null }, { expiresAt: { gte: today } }] },
    select: { userId: true, namespaceId: true, projectId: true, accessLevel: true },
  });
  const byUser = new Map(userIds.map((id) => [id, { groups: new Map<number, number>(), projects: new Map<number, number>(), minimalGroups: new Set<number>() }]));
  for (const row of rows) {
    const held = byUser.get(row.userId);
    if (!held) continue;
    // Minimal Access is no level on anything below its group: held apart, so that no rule counts it as one.
    if (!isRole(row.accessLevel)) {
      if (row.namespaceId != null) held.minimalGroups.add(row.namespaceId);
      continue;
    }
    if (row.namespaceId != null) held.groups.set(row.namespaceId, row.accessLevel);
    if (row.projectId != null) held.projects.set(row.projectId, row.accessLevel);
  }
  return byUser;
}

export function createMemberLoaders(db: PrismaClient) {
  return {
    /**
     * Every namespace on the path to a group or project each user is a member of (GitLab lets members of a
     * group's subgroups and projects read the group); read only by the abilities that need it.
     */
    ancestorsOf: new DataLoader<number, ReadonlySet<number>>(async (userIds) => {
      const rows = await db.$queryRaw<{ userId: number; path: number[] | null }[]>`
        SELECT m."userId", coalesce(n."traversalIds", pn."traversalIds") AS path
        FROM "members" m
        LEFT JOIN "namespaces" n ON n."id" = m."namespaceId"
        LEFT JOIN "projects" p ON p."id" = m."projectId"
        LEFT JOIN "namespaces" pn ON pn."id" = p."namespaceId"
        WHERE m."userId" = ANY(${[...userIds]}::int[]) AND m."accessLevel" >= ${LOWEST_ROLE}
          AND (m."expiresAt" IS NULL OR m."expiresAt" >= current_date)`;
      const byUser = new Map(userIds.map((id) => [id, new Set<number>()]));
      for (const row of rows) for (const id of row.path ?? []) byUser.get(row.userId)?.add(id);
      return userIds.map((id) => byUser.get(id) ?? new Set<number>());
    }),
    /** Distinct users with a membership in each group or any of its descendants. */
    countWithDescendants: countLoader(
      (ids) => db.$queryRaw`
        SELECT a.ancestor AS key, count(DISTINCT m."userId") AS count
        FROM "members" m
        JOIN "namespaces" n ON n."id" = m."namespaceId"
        CROSS JOIN LATERAL unnest(n."traversalIds") AS a(ancestor)
        WHERE a.ancestor = ANY(${ids}::int[])
        GROUP BY a.ancestor`,
    ),
    /** Each user's direct group memberships (GitLab's `user.groups.count`, UserCore.groupCount). */
    groupCountByUser: countLoader(async (userIds) =>
      (await db.member.groupBy({ by: ['userId'], where: { userId: { in: userIds }, namespaceId: { not: null } }, _count: { _all: true } })).map((r) => ({ key: r.userId, count: r._count._all })),
    ),
  };
}

export type MemberLoaders = ReturnType<typeof createMemberLoaders>;
