/**
 * Batched reads of shares (GitLab's group_group_links and project_group_links), and what a user's abilities get
 * from them: the levels shares grant, loaded with the user's memberships and remembered with them.
 */
import type { Memberships } from '../../auth/policy.js';
import type { PrismaClient } from '../../db/database.js';
import DataLoader from 'dataloader';

/**
 * The levels shares grant a user (GitLab's Gitlab::ProjectAuthorizations): a group shared with a group they are a
 * direct member of gives them the lesser of both levels on it (its descendants inherit it); a project shared with a
 * group they reach (directly, through an ancestor, or through a group share) gives them the lesser of their level
 * there and the share's, unless the project's group has `share_with_group_lock`. Expired shares and memberships
 * do not count. One statement.
 */
export async function loadSharedAccess(db: PrismaClient, userId: number): Promise<Required<Pick<Memberships, 'sharedGroups' | 'sharedProjects'>>> {
  const rows = await db.$queryRaw<{ kind: string; id: number; level: number }[]>`
    WITH direct AS (
      SELECT m."namespaceId" AS id, m."accessLevel" AS level FROM "members" m
      WHERE m."userId" = ${userId} AND m."namespaceId" IS NOT NULL AND (m."expiresAt" IS NULL OR m."expiresAt" >= current_date)
    ), shared AS (
      SELECT l."sharedGroupId" AS id, LEAST(d.level, l."groupAccess") AS level
      FROM "group_group_links" l JOIN direct d ON d.id = l."sharedWithGroupId"
      WHERE l."expiresAt" IS NULL OR l."expiresAt" >= current_date
    ), reached AS (
      SELECT id, level FROM direct UNION ALL SELECT id, level FROM shared
    )
    SELECT 'group' AS kind, id, max(level) AS level FROM shared GROUP BY id
    UNION ALL
    SELECT 'project' AS kind, pl."projectId" AS id, max(LEAST(r.level, pl."groupAccess")) AS level
    FROM "project_group_links" pl
    JOIN "namespaces" n ON n."id" = pl."groupId"
    JOIN reached r ON r.id = ANY(n."traversalIds")
    JOIN "projects" p ON p."id" = pl."projectId"
    JOIN "namespaces" pn ON pn."id" = p."namespaceId"
    WHERE (pl."expiresAt" IS NULL OR pl."expiresAt" >= current_date) AND NOT pn."shareWithGroupLock"
    GROUP BY pl."projectId"`;
  const sharedGroups = new Map<number, number>();
  const sharedProjects = new Map<number, number>();
  for (const row of rows) (row.kind === 'group' ? sharedGroups : sharedProjects).set(Number(row.id), Number(row.level));
  return { sharedGroups, sharedProjects };
}

/** Rows grouped by a key, one `findMany` per batch, in key order (an empty list for a key without rows). */
function groupedLoader<T>(fetch: (keys: number[]) => Promise<T[]>, keyOf: (row: T) => number): DataLoader<number, T[]> {
  return new DataLoader<number, T[]>(async (keys) => {
    const byKey = new Map<number, T[]>(keys.map((k) => [k, []]));
    for (const row of await fetch([...keys])) byKey.get(keyOf(row))?.push(row);
    return keys.map((k) => byKey.get(k) ?? []);
  });
}

export function createSharingLoaders(db: PrismaClient) {
  return {
    /** The shares of each group with other groups, with the invited group, oldest first. */
    groupLinksBySharedGroupId: groupedLoader(
      (ids) => db.groupGroupLink.findMany({ where: { sharedGroupId: { in: ids } }, include: { sharedWithGroup: true }, orderBy: { id: 'asc' } }),
      (link) => link.sharedGroupId,
    ),
    /** The shares of each project with groups, with the group, oldest first. */
    projectLinksByProjectId: groupedLoader(
      (ids) => db.projectGroupLink.findMany({ where: { projectId: { in: ids } }, include: { group: true }, orderBy: { id: 'asc' } }),
      (link) => link.projectId,
    ),
  };
}

export type SharingLoaders = ReturnType<typeof createSharingLoaders>;
