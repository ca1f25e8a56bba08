/**
 * Batched reads of shares (GitLab's group_group_links and project_group_links), and what a user's abilities get
 * from them: the levels shares grant, loaded with the user's memberships and remembered with them.
 */
import { LOWEST_ROLE } from '../../auth/access-levels.js';
import { Prisma, type PrismaClient } from '../../db/database.js';
import DataLoader from 'dataloader';
import { groupedLoader } from '../../db/loader.js';

/**
 * What shares grant users (GitLab's Gitlab::ProjectAuthorizations), as common table expressions, each row with its
 * user (`uid`): `shared`, the groups shared with a group they are a direct member of, at the lesser of both levels
 * (their descendants inherit it); `projects`, the projects shared with a group they reach (directly, through an
 * ancestor, or through a group share), at the lesser of their level there and the share's, unless the project's
 * group has `share_with_group_lock`. Expired shares and memberships do not count, nor Minimal Access ones (they
 * grant nothing beyond their group).
 */
function grantsOf(userIds: readonly number[]): Prisma.Sql {
  return Prisma.sql`
    WITH direct AS (
      SELECT m."userId" AS uid, m."namespaceId" AS id, m."accessLevel" AS level FROM "members" m
      WHERE m."userId" = ANY(${[...userIds]}::int[]) AND m."namespaceId" IS NOT NULL AND m."accessLevel" >= ${LOWEST_ROLE}
        AND (m."expiresAt" IS NULL OR m."expiresAt" >= current_date)
    ), shared AS (
      SELECT d.uid, l."sharedGroupId" AS id, LEAST(d.level, l."groupAccess") AS level
      FROM "group_group_links" l JOIN direct d ON d.id = l."sharedWithGroupId"
      WHERE l."expiresAt" IS NULL OR l."expiresAt" >= current_date
    ), reached AS (
      SELECT uid, id, level FROM direct UNION ALL SELECT uid, id, level FROM shared
    ), projects AS (
      SELECT r.uid, pl."projectId" AS id, LEAST(r.level, pl."groupAccess") AS level, pn."traversalIds" AS path
      FROM "project_group_links" pl
      JOIN "namespaces" n ON n."id" = pl."groupId"
      JOIN reached r ON r.id = ANY(n."traversalIds")
      JOIN "projects" p ON p."id" = pl."projectId"
      JOIN "namespaces" pn ON pn."id" = p."namespaceId"
      WHERE (pl."expiresAt" IS NULL OR pl."expiresAt" >= current_date) AND NOT pn."shareWithGroupLock"
    )`;
}

interface SharedAccess {
  sharedGroups: Map<number, number>;
  sharedProjects: Map<number, number>;
}

/** The levels shares grant each user, by shared group and by shared project: loaded with their memberships, in one statement. */
export async function loadSharedAccess(db: PrismaClient, userIds: readonly number[]): Promise<Map<number, SharedAccess>> {
  const rows = await db.$queryRaw<{ uid: number; kind: string; id: number; level: number }[]>`
    ${grantsOf(userIds)}
    SELECT uid, 'group' AS kind, id, max(level) AS level FROM shared GROUP BY uid, id
    UNION ALL
    SELECT uid, 'project' AS kind, id, max(level) AS level FROM projects GROUP BY uid, id`;
  const byUser = new Map<number, SharedAccess>(userIds.map((id) => [id, { sharedGroups: new Map(), sharedProjects: new Map() }]));
  for (const row of rows) {
    const access = byUser.get(Number(row.uid));
    if (access) (row.kind === 'group' ? access.sharedGroups : access.sharedProjects).set(Number(row.id), Number(row.level));
  }
  return byUser;
}

export function createSharingLoaders(db: PrismaClient) {
  return {
    /**
     * Every namespace on the path to a group or project shared with each user (GitLab lets whoever reaches a project
     * read the groups it is in): what src/auth adds to the ancestors of their own memberships.
     */
    ancestorsOf: new DataLoader<number, ReadonlySet<number>>(async (userIds) => {
      const rows = await db.$queryRaw<{ uid: number; path: number[] }[]>`
        ${grantsOf(userIds)}
        SELECT s.uid, n."traversalIds" AS path FROM "namespaces" n JOIN shared s ON s.id = n."id"
        UNION ALL
        SELECT uid, path FROM projects`;
      const byUser = new Map(userIds.map((id) => [id, new Set<number>()]));
      for (const row of rows) for (const id of row.path) byUser.get(Number(row.uid))?.add(id);
      return userIds.map((id) => byUser.get(id)!);
    }),
    /** The shares of each group with other groups, with the invited group, oldest first. */
    groupLinksBySharedGroupId: groupedLoader(
      (ids) => db.groupGroupLink.findMany({ where: { sharedGroupId: { in: ids } }, include: { sharedWithGroup: true }, orderBy: { id: 'asc' } }),
      (link) => link.sharedGroupId,
    ),
  };
}

export type SharingLoaders = ReturnType<typeof createSharingLoaders>;
