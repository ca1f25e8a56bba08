/** Batched project reads. */
import type { ProjectSubject } from '../../auth/policy.js';
import { Prisma, type PrismaClient } from '../../db/database.js';
import { queryRows } from '../../db/direct-reads.js';
import type { ProjectRow } from './service.js';
import { byKeyLoader, countLoader, groupedLoader } from '../../db/loader.js';
import DataLoader from 'dataloader';
import type { Loaders } from '../module.js';
import type { NamespaceLoaders } from '../namespaces/loaders.js';
import type { NamespaceRow } from '../namespaces/service.js';
import type { UserLoaders } from '../users/loaders.js';
import type { UserRow } from '../users/service.js';

/** A project's share with a group, with the group. */
export type GroupLinkRow = Awaited<ReturnType<PrismaClient['projectGroupLink']['findUniqueOrThrow']>> & { group: NamespaceRow };

/** The project loaders a project row primes. */
interface PrimedByRows {
  groupLinks: DataLoader<number, GroupLinkRow[]>;
  forksCount: DataLoader<number, number>;
  starCount: DataLoader<number, number>;
}

type WithNamespace = {
  id: number;
  namespace: NamespaceRow & { owner: UserRow | null };
  groupLinks?: GroupLinkRow[];
  _count?: { forks: number; stars: number };
};

/**
 * Hands what was fetched with projects to its loaders, so nothing loads it again: namespaces and owners, shares,
 * star and fork counts. A row fetched later in a request replaces what an earlier one primed (a write between them
 * changed it).
 */
export function primeProjectRows<T extends WithNamespace>(loaders: { namespaces: NamespaceLoaders; users: UserLoaders; projects: PrimedByRows }, rows: T[]): T[] {
  const { projects } = loaders;
  for (const row of rows) {
    loaders.namespaces.byId.prime(row.namespace.id, row.namespace);
    if (row.namespace.owner) loaders.users.byId.prime(row.namespace.owner.id, row.namespace.owner);
    if (row.groupLinks) projects.groupLinks.clear(row.id).prime(row.id, row.groupLinks);
    if (row._count) {
      projects.forksCount.clear(row.id).prime(row.id, row._count.forks);
      projects.starCount.clear(row.id).prime(row.id, row._count.stars);
    }
  }
  return rows;
}

/**
 * The DateTime fields of the models fetchProjectRows reads as JSON, which carries them as strings (test/projects/
 * rows.test.ts holds these lists to the schema).
 */
export const JSON_DATE_FIELDS = {
  Namespace: ['createdAt', 'updatedAt'],
  User: ['createdAt', 'updatedAt', 'lastActivityOn', 'confirmedAt'],
  ProjectFeature: [],
  ProjectGroupLink: ['expiresAt', 'createdAt', 'updatedAt'],
} as const;

function withDates<T>(value: Record<string, unknown> | null, fields: readonly string[]): T {
  if (value) for (const f of fields) if (typeof value[f] === 'string') value[f] = new Date(value[f]);
  return value as T;
}

/**
 * The statement of fetchProjectRows: the project's own columns, and its namespace, owner, features and shares each
 * as one JSON value. Measured on PostgreSQL, this costs the database 0.65 ms a project where Prisma's statement for
 * the include (nested JSONB, 6.5 kB) or one flat column per field (140 columns, two more joins) cost 1.6-1.8 ms,
 * mostly planning.
 */
const PROJECT_ROWS = Prisma.sql`
  SELECT p.*, to_json(n) AS "namespace", to_json(o) AS "owner", to_json(f) AS "features",
         (SELECT count(*)::int FROM "projects" k WHERE k."forkedFromProjectId" = p."id" AND NOT k."pendingDelete") AS "forks",
         (SELECT count(*)::int FROM "users_star_projects" s WHERE s."projectId" = p."id") AS "stars",
         (SELECT json_agg(json_build_object('link', l, 'group', g) ORDER BY l."id")
            FROM "project_group_links" l JOIN "namespaces" g ON g."id" = l."groupId" WHERE l."projectId" = p."id") AS "links"
  FROM "projects" p
  JOIN "namespaces" n ON n."id" = p."namespaceId"
  LEFT JOIN "users" o ON o."id" = n."ownerId"
  LEFT JOIN "project_features" f ON f."projectId" = p."id"`;

/** The columns of PROJECT_ROWS that are not the project's own. */
const JOINED = new Set(['namespace', 'owner', 'features', 'forks', 'stars', 'links']);

type FlatProject = Omit<ProjectRow, 'namespace' | 'features' | 'groupLinks' | '_count'> & {
  namespace: Record<string, unknown>;
  owner: Record<string, unknown> | null;
  features: Record<string, unknown> | null;
  forks: number;
  stars: number;
  links: { link: Record<string, unknown>; group: Record<string, unknown> }[] | null;
};

/**
 * Projects as every read needs them, in one statement of plain SQL: the hot path of every project read. Each comes
 * with its namespace (every read checks access through it) and the namespace's owner (personal projects show it), as
 * GitLab preloads `namespace: :owner` for project lists; with its feature settings (abilities such as download_code
 * read them); and with what every project answer shows besides its row: its shares with groups and its fork and star
 * counts. The objects are those of the equivalent Prisma include, field for field (test/projects/rows.test.ts holds
 * them to it), whose query costs the client about twice the time (0.47 against 0.27 ms a project) and the database
 * more (above).
 */
export async function fetchProjectRows(db: PrismaClient, where: Prisma.Sql): Promise<ProjectRow[]> {
  const flat = await queryRows<FlatProject>(db, Prisma.sql`${PROJECT_ROWS} WHERE ${where}`);
  return flat.map((row) => {
    // One copy of the project's own columns (a rest pattern and a spread would be two: a list page makes 20).
    const project: Record<string, unknown> = {};
    for (const key in row) if (!JOINED.has(key)) project[key] = row[key as keyof FlatProject];
    const namespace = withDates<NamespaceRow & { owner: UserRow | null }>(row.namespace, JSON_DATE_FIELDS.Namespace);
    namespace.owner = withDates<UserRow | null>(row.owner, JSON_DATE_FIELDS.User);
    project.namespace = namespace;
    project.features = withDates<ProjectRow['features']>(row.features, JSON_DATE_FIELDS.ProjectFeature);
    project.groupLinks = (row.links ?? []).map(({ link, group }) => {
      const share = withDates<GroupLinkRow>(link, JSON_DATE_FIELDS.ProjectGroupLink);
      share.group = withDates<NamespaceRow>(group, JSON_DATE_FIELDS.Namespace);
      return share;
    });
    project._count = { forks: row.forks, stars: row.stars };
    return project as unknown as ProjectRow;
  });
}

export function createProjectLoaders(db: PrismaClient, loaders: Loaders) {
  return {
    byId: byKeyLoader(
      async (ids: readonly number[]): Promise<ProjectRow[]> => primeProjectRows(loaders, await fetchProjectRows(db, Prisma.sql`p."id" = ANY(${[...ids]}::int[])`)),
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
    /** The shares of each project with groups, with the group, oldest first (primed by every project read). */
    groupLinks: groupedLoader<GroupLinkRow>(
      (ids) => db.projectGroupLink.findMany({ where: { projectId: { in: ids } }, include: { group: true }, orderBy: { id: 'asc' } }),
      (link) => link.projectId,
    ),
    /** Each project's keep_latest_artifact (project_ci_cd_settings; no row: true). */
    keepLatestArtifact: new DataLoader<number, boolean>(async (ids) => {
      const rows = await db.projectCiCdSetting.findMany({ where: { projectId: { in: [...ids] } }, select: { projectId: true, keepLatestArtifact: true } });
      const found = new Map(rows.map((r) => [r.projectId, r.keepLatestArtifact]));
      return ids.map((id) => found.get(id) ?? true);
    }),
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
