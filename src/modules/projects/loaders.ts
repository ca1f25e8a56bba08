/** Batched project reads. */
import type { ProjectSubject } from '../../auth/policy.js';
import type { PrismaClient } from '../../db/database.js';
import { byKeyLoader, countLoader } from '../../db/loader.js';
import type { Loaders } from '../module.js';
import type { NamespaceLoaders } from '../namespaces/loaders.js';
import type { NamespaceRow } from '../namespaces/service.js';
import type { UserLoaders } from '../users/loaders.js';
import type { UserRow } from '../users/service.js';

type WithNamespace = { namespace: NamespaceRow & { owner: UserRow | null } };

/** Hands the namespaces and owners fetched with projects to their loaders, so nothing loads them again. */
export function primeNamespaces<T extends WithNamespace>(loaders: { namespaces: NamespaceLoaders; users: UserLoaders }, rows: T[]): T[] {
  for (const row of rows) {
    loaders.namespaces.byId.prime(row.namespace.id, row.namespace);
    if (row.namespace.owner) loaders.users.byId.prime(row.namespace.owner.id, row.namespace.owner);
  }
  return rows;
}

/**
 * Projects always come with their namespace (every read checks access through it) and the namespace's owner
 * (personal projects show it), as GitLab preloads `namespace: :owner` for project lists, and with their feature
 * settings (abilities such as download_code read them): in the same statement (Prisma's join strategy), not one
 * more round trip for each.
 */
export const WITH_NAMESPACE = { relationLoadStrategy: 'join', include: { namespace: { include: { owner: true } }, features: true } } as const;

export function createProjectLoaders(db: PrismaClient, loaders: Loaders) {
  return {
    byId: byKeyLoader(
      async (ids: readonly number[]) => primeNamespaces(loaders, await db.project.findMany({ where: { id: { in: [...ids] } }, ...WITH_NAMESPACE })),
      (p) => p.id,
    ),
    /** Projects in each namespace and its descendants. */
    countInNamespaceTree: countLoader(
      (ids) => db.$queryRaw`
        SELECT a.ancestor AS key, count(*) AS count
        FROM "projects" p
        JOIN "namespaces" n ON n."id" = p."namespaceId"
        CROSS JOIN LATERAL unnest(n."traversalIds") AS a(ancestor)
        WHERE a.ancestor = ANY(${ids}::int[])
        GROUP BY a.ancestor`,
    ),
    /** Stars of each project. */
    starCount: countLoader(
      (ids) => db.$queryRaw`SELECT "projectId" AS key, count(*) AS count FROM "users_star_projects" WHERE "projectId" = ANY(${ids}::int[]) GROUP BY "projectId"`,
    ),
    /** Forks of each project that are not being deleted (GitLab's forks_count). */
    forksCount: countLoader(
      (ids) =>
        db.$queryRaw`SELECT "forkedFromProjectId" AS key, count(*) AS count FROM "projects"
          WHERE "forkedFromProjectId" = ANY(${ids}::int[]) AND NOT "pendingDelete" GROUP BY "forkedFromProjectId"`,
    ),
  };
}

export type ProjectLoaders = ReturnType<typeof createProjectLoaders>;

/** What deciding access to the project reads (src/auth/project-subjects.ts); null when there is no such project, or it is being deleted. */
export async function loadProjectSubject(db: PrismaClient, projectId: number): Promise<ProjectSubject | null> {
  return db.project.findUnique({
    where: { id: projectId, pendingDelete: false },
    select: { id: true, visibility: true, archived: true, features: true, namespace: { select: { id: true, kind: true, visibility: true, ownerId: true, traversalIds: true } } },
  });
}
