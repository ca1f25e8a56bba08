/**
 * CI job tokens (GitLab's CI_JOB_TOKEN): a running job's token authenticates as the job's user, for that job. It
 * works only while the job runs (the runner protocol clears it when the job ends), on fields that accept job
 * tokens (src/auth/scopes.ts), and only on the job's own project and on projects whose inbound job token scope lets
 * it in (src/auth/policy.ts, asking `inboundScopeLoader`).
 */
import DataLoader from 'dataloader';
import type { PrismaClient } from '../db/database.js';
import { forbidden, unauthenticated } from '../errors.js';
import type { Authenticator } from './credentials.js';
import { JOB_TOKEN_SCOPE } from './scopes.js';
import type { Viewer } from './viewer.js';

interface JobTokenRow {
  jobId: number;
  projectId: number;
  pipelineId: number;
  namespaceIds: number[];
  userId: number;
  username: string;
  external: boolean;
  bot: boolean;
  canCreateGroup: boolean;
  state: string;
}

export function jobTokenAuthenticator(db: PrismaClient): Authenticator {
  return async (digest) => {
    const [row] = await db.$queryRaw<JobTokenRow[]>`
      SELECT j."id" AS "jobId", j."projectId", j."pipelineId", n."traversalIds" AS "namespaceIds", u."id" AS "userId",
             u."username", u."external", u."bot", u."canCreateGroup", u."state"
      FROM "ci_builds" j JOIN "users" u ON u."id" = j."userId"
      JOIN "projects" p ON p."id" = j."projectId" JOIN "namespaces" n ON n."id" = p."namespaceId"
      WHERE j."tokenDigest" = ${digest} AND j."status" = 'running'`;
    if (!row) throw unauthenticated();
    if (row.state === 'blocked') throw forbidden('Your account has been blocked.');
    if (row.state !== 'active') throw unauthenticated();
    const viewer: Viewer = {
      id: row.userId,
      username: row.username,
      // A job acts with its user's memberships, never with administrator rights.
      admin: false,
      external: row.external,
      bot: row.bot,
      canCreateGroup: row.canCreateGroup,
      tokenId: 0,
      tokenExpiresAt: null,
      scopes: [JOB_TOKEN_SCOPE],
      job: { id: row.jobId, projectId: row.projectId, pipelineId: row.pipelineId, namespaceIds: row.namespaceIds },
    };
    return viewer;
  };
}

/**
 * Whether each project lets the job's project in, as GitLab's Ci::JobToken::Scope#inbound_accessible? decides: its
 * inbound scope is disabled, or its allowlist holds the job's project or a group above it (group links cover
 * subgroups). One statement per batch of projects; a request makes one loader, so each project is asked once.
 */
export function inboundScopeLoader(db: PrismaClient, jobProjectId: number): DataLoader<number, boolean> {
  return new DataLoader<number, boolean>(async (projectIds) => {
    const rows = await db.$queryRaw<{ id: number }[]>`
      SELECT t."id"
      FROM unnest(${[...projectIds]}::int[]) AS t("id")
      WHERE NOT COALESCE((SELECT s."inboundJobTokenScopeEnabled" FROM "project_ci_cd_settings" s WHERE s."projectId" = t."id"), true)
         OR EXISTS (
           SELECT 1 FROM "ci_job_token_project_scope_links" l
           WHERE l."sourceProjectId" = t."id" AND l."targetProjectId" = ${jobProjectId} AND l."direction" = 'inbound')
         OR EXISTS (
           SELECT 1 FROM "ci_job_token_group_scope_links" g
           JOIN "projects" p ON p."id" = ${jobProjectId}
           JOIN "namespaces" n ON n."id" = p."namespaceId"
           WHERE g."sourceProjectId" = t."id" AND g."targetGroupId" = ANY(n."traversalIds"))`;
    const reached = new Set(rows.map((row) => row.id));
    return projectIds.map((id) => reached.has(id));
  });
}
