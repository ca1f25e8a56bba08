/**
 * The jobs a job depends on (GitLab's Ci::BuildDependencies#local): the jobs of earlier stages, or its needs that
 * take artifacts (`needs: [{job, artifacts: false}]` does not), narrowed by `dependencies:` (`[]`: none). A runner
 * downloads their archives; their dotenv reports' variables reach the job (Ci::Build#dependency_variables), a
 * bridge's too, to expand its `variables:` for the downstream pipeline.
 */
import type { Prisma } from '../../db/database.js';
import type { JobRow } from './service.js';

interface DependencyOptions {
  dependencies?: string[] | null;
  needs?: { name: string; artifacts: boolean }[];
}

export async function dependencyJobs(db: Pick<Prisma.TransactionClient, 'ciJob'>, job: JobRow): Promise<JobRow[]> {
  const options = (job.options ?? {}) as DependencyOptions;
  if (Array.isArray(options.dependencies) && options.dependencies.length === 0) return [];
  const needed = (options.needs ?? []).filter((n) => n.artifacts).map((n) => n.name);
  // Only the jobs it may depend on are read: a first-stage job of a large pipeline reads none.
  if (job.schedulingType === 'dag' ? needed.length === 0 : job.stageIdx === 0) return [];
  return db.ciJob.findMany({
    where: {
      pipelineId: job.pipelineId,
      retried: false,
      type: 'build',
      id: { not: job.id },
      AND: [job.schedulingType === 'dag' ? { name: { in: needed } } : { stageIdx: { lt: job.stageIdx } }, options.dependencies?.length ? { name: { in: options.dependencies } } : {}],
    },
    orderBy: { id: 'asc' },
  });
}

/** The variables the dotenv reports of `jobs` declared, in the jobs' order (Ci::JobVariable rows of source dotenv). */
export function dotenvVariables(jobs: readonly Pick<JobRow, 'dotenvVariables'>[]): { key: string; value: string }[] {
  return jobs.flatMap((job) => job.dotenvVariables as { key: string; value: string }[]);
}
