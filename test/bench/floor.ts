/**
 * The bench's floors, in a process of their own (`tsx test/bench/floor.ts raw|prisma`), on the server's database:
 *
 * - `raw`: bare Node `http` handlers, no framework, running the SQL each route's data needs with the database's own
 *   driver (`pg`, or PGlite directly): `/floor/projects/:id` (one query, no auth), `/floor/version` (authenticates
 *   the token with one query, then a static answer), `/floor/projects` (20 projects with namespaces and owners, and
 *   the count, in the server's statements' shape: the page's ids by index, then their rows). The JSON is the same as the server's.
 * - `prisma`: a hand-written express handler behind the server's own middleware, calling Prisma with includes:
 *   what the REST adapter and GraphQL add is the difference to the server.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import express from 'express';
import pg from 'pg';
import { PGlite } from '@electric-sql/pglite';
import { openDatabase } from '../../src/db/database.js';
import { digestToken } from '../../src/auth/secrets.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { bodyErrors, requestBasics } from '../../src/http/middleware.js';
import { tokenAuthenticator } from '../../src/modules/tokens/service.js';
import { CredentialCache } from '../../src/auth/credential-cache.js';
import { MembershipCache } from '../../src/auth/memberships.js';
import { loadMemberships } from '../../src/modules/members/loaders.js';
import { projectJson, type ProjectRow } from './shared.js';

const mode = process.argv[2];
const config = loadConfig();
const external = config.externalUrl;

/** The project columns with its namespace and owner, as the server's answer needs them. */
const PROJECT_SELECT = `
  SELECT p."id", p."name", p."path", p."description", p."fullPath", p."defaultBranch", p."visibility", p."archived",
         p."creatorId", p."repositoryStorage", p."createdAt", p."updatedAt", p."lastActivityAt",
         n."id" AS "ns_id", n."name" AS "ns_name", n."path" AS "ns_path", n."kind" AS "ns_kind", n."fullPath" AS "ns_fullPath",
         n."fullName" AS "ns_fullName", n."parentId" AS "ns_parentId", n."avatar" AS "ns_avatarUrl",
         o."id" AS "owner_id", o."username" AS "owner_username", o."name" AS "owner_name", o."state" AS "owner_state",
         o."avatar" AS "owner_avatarUrl", p."requestAccessEnabled", p."ciConfigPath", p."publicJobs", p."buildTimeout", p."ciDefaultGitDepth", p."ciForwardDeploymentEnabled", p."ciForwardDeploymentRollbackAllowed", p."ciAllowForkPipelinesToRunInParentProject", p."ciSeparatedCaches", p."groupRunnersEnabled", p."buildAllowGitFetch", COALESCE((SELECT c."keepLatestArtifact" FROM "project_ci_cd_settings" c WHERE c."projectId" = p."id"), true) AS "keepLatestArtifact", p."autoCancelPendingPipelines", p."restrictUserDefinedVariables", p."ciPipelineVariablesMinimumOverrideRole", p."onlyAllowMergeIfPipelineSucceeds", p."allowMergeOnSkippedPipeline", p."onlyAllowMergeIfAllDiscussionsAreResolved", p."removeSourceBranchAfterMerge", p."mergeMethod", p."squashOption", p."suggestionCommitMessage", p."mergeCommitTemplate", p."squashCommitTemplate", p."mergePipelinesEnabled", p."mergeTrainsEnabled", p."mergeTrainsSkipTrainAllowed", p."sharedRunnersEnabled", to_jsonb(f) AS "features",
         p."topics", p."emptyRepo",
         (SELECT count(*) FROM "projects" k WHERE k."forkedFromProjectId" = p."id" AND NOT k."pendingDelete") AS "forks_count",
         (SELECT count(*) FROM "users_star_projects" s WHERE s."projectId" = p."id") AS "star_count",
         (SELECT count(*) FROM "issues" i LEFT JOIN "users" a ON a."id" = i."authorId" WHERE i."projectId" = p."id" AND i."state" = 'opened'
            AND NOT i."confidential" AND (i."authorId" IS NULL OR a."state" <> 'banned')) AS "open_issues_count",
         (SELECT coalesce(json_agg(json_build_object('group_id', g."id", 'group_name', g."name", 'group_full_path', g."fullPath",
                   'group_access_level', l."groupAccess", 'expires_at', l."expiresAt") ORDER BY l."id"), '[]'::json)
            FROM "project_group_links" l JOIN "namespaces" g ON g."id" = l."groupId" WHERE l."projectId" = p."id") AS "shares"
  FROM "projects" p JOIN "namespaces" n ON n."id" = p."namespaceId" LEFT JOIN "users" o ON o."id" = n."ownerId"
  LEFT JOIN "project_features" f ON f."projectId" = p."id"`;

type Query = <T>(sql: string, params: unknown[]) => Promise<T[]>;

async function rawQuery(): Promise<Query> {
  if (config.databaseUrl) {
    const pool = new pg.Pool({ connectionString: config.databaseUrl, max: config.databasePoolSize });
    return async <T>(sql: string, params: unknown[]) => (await pool.query(sql, params)).rows as T[];
  }
  const pglite = await PGlite.create({ dataDir: config.dataDir });
  return async <T>(sql: string, params: unknown[]) => (await pglite.query<T>(sql, params)).rows;
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const json = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(json), ...headers });
  res.end(json);
}

async function serveRaw(): Promise<void> {
  const query = await rawQuery();
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = req.url ?? '';
    let m: RegExpExecArray | null;
    if ((m = /^\/floor\/projects\/(\d+)$/.exec(url))) {
      const [row] = await query<ProjectRow>(`${PROJECT_SELECT} WHERE p."id" = $1`, [Number(m[1])]);
      return row ? send(res, 200, projectJson(row, external)) : send(res, 404, { message: '404 Project Not Found' });
    }
    if (url === '/floor/version') {
      const token = req.headers['private-token'];
      const [row] = await query<{ revoked: boolean; state: string }>(
        `SELECT t."revoked", u."state" FROM "personal_access_tokens" t JOIN "users" u ON u."id" = t."userId" WHERE t."digest" = $1`,
        [digestToken(typeof token === 'string' ? token : '')],
      );
      if (!row || row.revoked || row.state !== 'active') return send(res, 401, { message: '401 Unauthorized' });
      return send(res, 200, { version: '18.6.0', revision: 'gitlab-compatible' });
    }
    if (url === '/floor/projects') {
      const [rows, [count]] = await Promise.all([
        // The page's 20 ids first (the top of an index, as the server's query), then their rows: sorting the whole
        // join instead costs more the more projects there are, and the floor would fall as the bench's writes add
        // projects.
        query<ProjectRow>(
          `WITH page AS (SELECT "id" FROM "projects" WHERE NOT "pendingDelete" ORDER BY "createdAt" DESC, "id" DESC LIMIT 20)
           ${PROJECT_SELECT} WHERE p."id" IN (SELECT "id" FROM page) ORDER BY p."createdAt" DESC, p."id" DESC`,
          [],
        ),
        query<{ n: string }>(`SELECT count(*) AS n FROM "projects" WHERE NOT "pendingDelete"`, []),
      ]);
      return send(res, 200, rows.map((r) => projectJson(r, external)), { 'X-Total': String(count.n), 'X-Page': '1', 'X-Per-Page': '20' });
    }
    send(res, 404, { message: '404 Not Found' });
  };
  listen(createServer((req, res) => void handle(req, res).catch((err: unknown) => send(res, 500, { message: String(err) }))));
}

/** Nothing announces changes to the hand-written handler: its memories only expire. */
const quietBus = { subscribe: () => () => {} };

async function servePrisma(): Promise<void> {
  const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, pgliteWorker: config.pgliteWorker });
  const prisma = db.readPrisma;
  // The server's authentication, its memory of tokens included (nothing here announces changes).
  const authenticate = new CredentialCache(quietBus).wrap(tokenAuthenticator(prisma));
  const loadProjects = (where: { id?: number }, take: number) =>
    prisma.project.findMany({ where, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], take, include: {
        namespace: { include: { owner: true } },
        features: true,
        ciCdSettings: { select: { keepLatestArtifact: true } },
        groupLinks: { include: { group: true }, orderBy: { id: 'asc' } },
        _count: {
          select: {
            forks: { where: { pendingDelete: false } },
            stars: true,
            issues: { where: { state: 'opened', confidential: false, OR: [{ authorId: null }, { author: { is: { state: { not: 'banned' } } } }] } },
          },
        },
      },
    });
  type Loaded = Awaited<ReturnType<typeof loadProjects>>[number];
  const row = ({ namespace: ns, features, groupLinks, _count, ciCdSettings, ...p }: Loaded): ProjectRow => ({
    ...p,
    keepLatestArtifact: ciCdSettings?.keepLatestArtifact ?? true,
    forks_count: _count.forks,
    star_count: _count.stars,
    open_issues_count: _count.issues,
    shares: groupLinks.map((l) => ({
      group_id: l.group.id, group_name: l.group.name, group_full_path: l.group.fullPath, group_access_level: l.groupAccess, expires_at: l.expiresAt && l.expiresAt.toISOString().slice(0, 10),
    })),
    features: features as Record<string, string> | null,
    ns_id: ns.id, ns_name: ns.name, ns_path: ns.path, ns_kind: ns.kind, ns_fullPath: ns.fullPath, ns_fullName: ns.fullName, ns_parentId: ns.parentId, ns_avatarUrl: ns.avatar,
    owner_id: ns.owner?.id ?? null, owner_username: ns.owner?.username ?? null, owner_name: ns.owner?.name ?? null, owner_state: ns.owner?.state ?? null, owner_avatarUrl: ns.owner?.avatar ?? null,
  });
  // The server's memory of memberships too.
  const remembered = new MembershipCache(quietBus, (userIds) => loadMemberships(prisma, userIds));
  const memberships = (userId: number) => remembered.of(userId);
  const web = express();
  web.set('query parser', 'extended');
  web.use(requestBasics(createLogger(config.logLevel), config.rateLimitPerMinute));
  web.use(express.json(), express.urlencoded({ extended: true }), bodyErrors);
  web.use(async (req, res, next) => {
    try {
      res.locals.viewer = await authenticate(digestToken(req.get('private-token') ?? ''));
      next();
    } catch {
      res.status(401).json({ message: '401 Unauthorized' });
    }
  });
  web.get('/direct/projects/:id', async (req, res) => {
    const viewer = res.locals.viewer as { id: number; admin: boolean };
    const [rows, mine] = await Promise.all([loadProjects({ id: Number(req.params.id) }, 1), memberships(viewer.id)]);
    const p = rows[0];
    const visible = p && (p.visibility !== 'private' || viewer.admin || mine.projects.has(p.id) || p.namespace.traversalIds.some((id) => mine.groups.has(id)));
    if (!visible) res.status(404).json({ message: '404 Project Not Found' });
    else res.json(projectJson(row(p), external));
  });
  web.get('/direct/projects', async (_req, res) => {
    // The viewer is an administrator: every project is visible, no membership lookup (the server skips it too).
    const [rows, total] = await Promise.all([loadProjects({}, 20), prisma.project.count()]);
    res.set({ 'X-Total': String(total), 'X-Page': '1', 'X-Per-Page': '20' });
    res.json(rows.map((p) => projectJson(row(p), external)));
  });
  listen(createServer(web));
}

function listen(server: ReturnType<typeof createServer>): void {
  server.listen(config.port, config.host);
  process.once('SIGTERM', () => process.exit(0));
}

if (mode === 'raw') await serveRaw();
else if (mode === 'prisma') await servePrisma();
else throw new Error('usage: floor.ts raw|prisma');
