/** Batched runner reads: the projects each runner is enabled for, its jobs' count, the runners that could pick a job. */
import DataLoader from 'dataloader';
import type { PrismaClient } from '../../db/database.js';
import { ONLINE_MS } from '../../ci/runner-status.js';

/** GitLab's RunnerType::JOB_COUNT_LIMIT: `jobCount` counts up to one more, to tell that more exist. */
const JOB_COUNT_LIMIT = 1000;

export function createRunnerLoaders(db: PrismaClient) {
  return {
    /** IDs of the projects each (project) runner is enabled for, oldest link first. */
    projectIds: new DataLoader<number, number[]>(async (runnerIds) => {
      const links = await db.runnerProject.findMany({ where: { runnerId: { in: [...runnerIds] } }, orderBy: { id: 'asc' }, select: { runnerId: true, projectId: true } });
      return runnerIds.map((id) => links.filter((link) => link.runnerId === id).map((link) => link.projectId));
    }),
    /** How many projects each runner is enabled for. */
    projectCount: new DataLoader<number, number>(async (runnerIds) => {
      const rows = await db.runnerProject.groupBy({ by: ['runnerId'], where: { runnerId: { in: [...runnerIds] } }, _count: { _all: true } });
      const found = new Map(rows.map((r) => [r.runnerId, r._count._all]));
      return runnerIds.map((id) => found.get(id) ?? 0);
    }),
    /**
     * Each runner's jobs (with the statuses of the key's second part, comma-separated, or any), counted up to
     * JOB_COUNT_LIMIT + 1. Keys: `<runner id>:<statuses>`; one query per set of statuses in a batch.
     */
    jobCount: new DataLoader<string, number>(async (keys) => {
      const byStatuses = new Map<string, number[]>();
      for (const key of keys) {
        const [id, statuses] = [Number(key.slice(0, key.indexOf(':'))), key.slice(key.indexOf(':') + 1)];
        byStatuses.set(statuses, [...(byStatuses.get(statuses) ?? []), id]);
      }
      const counts = new Map<string, number>();
      for (const [statuses, ids] of byStatuses) {
        const list = statuses ? statuses.split(',') : null;
        const rows = await db.$queryRaw<{ id: number; count: number }[]>`
          SELECT r."id", (SELECT count(*) FROM (
            SELECT 1 FROM "ci_builds" b WHERE b."runnerId" = r."id" AND (${list}::text[] IS NULL OR b."status" = ANY(${list}::text[]))
            LIMIT ${JOB_COUNT_LIMIT + 1}) AS limited)::int AS "count"
          FROM "ci_runners" r WHERE r."id" = ANY(${ids}::int[])`;
        for (const row of rows) counts.set(`${row.id}:${statuses}`, row.count);
      }
      return keys.map((key) => counts.get(key) ?? 0);
    }),
    /**
     * For each pending build, the access levels (`not_protected`, `ref_protected`) of the online, unpaused runners
     * that could pick it, its ref's protection aside (GitLab's Runner#match_build_if_online? without `protected?`):
     * the runner serves its project (instance runners while shared runners are on, the group's runners while group
     * runners are on, the runners enabled for it) and has all its tags (an untagged job: a runner that runs untagged jobs).
     */
    pickers: new DataLoader<number, string[]>(async (jobIds) => {
      const since = new Date(Date.now() - ONLINE_MS);
      const rows = await db.$queryRaw<{ id: number; accessLevel: string }[]>`
        SELECT DISTINCT j."id", r."accessLevel"
        FROM "ci_builds" j
        JOIN "projects" p ON p."id" = j."projectId"
        JOIN "namespaces" n ON n."id" = p."namespaceId"
        JOIN "ci_runners" r ON NOT r."paused" AND r."contactedAt" > ${since}
          AND j."tagList" <@ r."tagList" AND (r."runUntagged" OR cardinality(j."tagList") > 0)
          AND ((r."runnerType" = 'instance_type' AND p."sharedRunnersEnabled")
            OR (r."runnerType" = 'group_type' AND r."namespaceId" = ANY(n."traversalIds") AND p."groupRunnersEnabled")
            OR (r."runnerType" = 'project_type' AND EXISTS (
              SELECT 1 FROM "ci_runner_projects" rp WHERE rp."runnerId" = r."id" AND rp."projectId" = j."projectId")))
        WHERE j."id" = ANY(${[...jobIds]}::int[])`;
      return jobIds.map((id) => rows.filter((r) => r.id === id).map((r) => r.accessLevel));
    }),
  };
}

export type RunnerLoaders = ReturnType<typeof createRunnerLoaders>;
