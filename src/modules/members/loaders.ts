/** The viewer's own memberships, loaded once per request: every access check in the request reads them. */
import type { Viewer } from '../../auth/viewer.js';
import type { PrismaClient } from '../../db/database.js';
import { countLoader } from '../../db/loader.js';

export interface ViewerMemberships {
  /** Direct group memberships: namespace id → access level. */
  groups: Map<number, number>;
  /** Direct project memberships: project id → access level. */
  projects: Map<number, number>;
}

export function createMemberLoaders(db: PrismaClient, viewer: Viewer | null) {
  let mine: Promise<ViewerMemberships> | undefined;
  async function load(): Promise<ViewerMemberships> {
    const result: ViewerMemberships = { groups: new Map(), projects: new Map() };
    if (!viewer) return result;
    const today = new Date(new Date().toISOString().slice(0, 10));
    const rows = await db.member.findMany({
      where: { userId: viewer.id, OR: [{ expiresAt: null }, { expiresAt: { gte: today } }] },
      select: { namespaceId: true, projectId: true, accessLevel: true },
    });
    for (const row of rows) {
      if (row.namespaceId != null) result.groups.set(row.namespaceId, row.accessLevel);
      if (row.projectId != null) result.projects.set(row.projectId, row.accessLevel);
    }
    return result;
  }
  return {
    viewerMemberships: () => (mine ??= load()),
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
  };
}
