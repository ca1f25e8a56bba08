/** Batched group reads: sizes for the statistics administrators see. */
import type { PrismaClient } from '../../db/database.js';
import { countLoader } from '../../db/loader.js';

/** GitLab's group `statistics` (the sums of its projects' storage statistics), in bytes. */
export interface GroupStatistics {
  storageSize: number;
  repositorySize: number;
  wikiSize: number;
  lfsObjectsSize: number;
  jobArtifactsSize: number;
  pipelineArtifactsSize: number;
  packagesSize: number;
  snippetsSize: number;
  uploadsSize: number;
}

export function createGroupLoaders(db: PrismaClient) {
  return {
    /** Bytes of job artifacts of each group's own projects (GitLab sums its direct projects' statistics). */
    artifactsSize: countLoader(
      (ids) => db.$queryRaw`
        SELECT p."namespaceId" AS key, coalesce(sum(a."size"), 0) AS count
        FROM "ci_job_artifacts" a JOIN "projects" p ON p."id" = a."projectId"
        WHERE p."namespaceId" = ANY(${ids}::int[])
        GROUP BY p."namespaceId"`,
    ),
  };
}

export type GroupLoaders = ReturnType<typeof createGroupLoaders>;
