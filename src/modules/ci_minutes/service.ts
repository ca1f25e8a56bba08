/**
 * Owns compute-minutes accounting (GitLab EE's Ci::Minutes): what each finished job an instance runner ran costs its
 * project and its root namespace in the month it finished (ci_project_monthly_usages, ci_namespace_monthly_usages),
 * counted once per job, and the monthly usage read back by a namespace's Owners.
 */
import { Prisma, type PrismaClient } from '../../db/database.js';
import { connection, listConnection, type PageArgs } from '../../graphql/connection.js';
import type { JobQueue } from '../../jobs/queue.js';
import type { ServiceBase } from '../module.js';
import type { NamespacesService } from '../namespaces/service.js';
import { consumption, costFactor, monthOf } from './cost.js';
import type { ProjectUsageRow } from './loaders.js';

/** Background job: add a finished job's minutes to its month's usage. */
export const TRACK_BUILD_MINUTES_JOB = 'ci_minutes.track_build';

/** The statuses a job that ran ends in (GitLab counts a job's minutes once it is complete). */
const FINISHED = ['success', 'failed', 'canceled'];

/** A root namespace's usage in one month. */
export interface NamespaceUsageRow {
  id: number;
  namespaceId: number;
  date: Date;
  amountUsed: number;
  sharedRunnersDuration: number;
}

export type { ProjectUsageRow };

/**
 * Counts a job's minutes once it finishes (GitLab's Ci::BuildFinishedWorker running Ci::Minutes::UpdateBuildMinutesService),
 * inside the transaction that finished it: a job run by a runner, once ever (the job's key).
 */
export async function enqueueBuildMinutes(jobs: Pick<JobQueue, 'enqueue'>, job: { id: number; type: string; runnerId: number | null; status: string }, tx?: Parameters<JobQueue['enqueue']>[3]): Promise<void> {
  if (job.type !== 'build' || job.runnerId === null || !FINISHED.includes(job.status)) return;
  await jobs.enqueue(TRACK_BUILD_MINUTES_JOB, { jobId: job.id }, { uniqueKey: `${TRACK_BUILD_MINUTES_JOB}:${job.id}` }, tx);
}

export class CiMinutesService {
  constructor(
    private readonly base: ServiceBase,
    private readonly namespaces: NamespacesService,
  ) {}

  /**
   * GitLab's `ciMinutesUsage`: the monthly usage of a root namespace (the viewer's personal one unless named), newest
   * month first, one month when `date` names it. Empty, never refused, for anonymous callers, a namespace that is no
   * root, and one the caller may not read the usage of (GitLab's Resolvers::Ci::Minutes::UsageResolver).
   */
  async usage(namespaceId: number | null, date: Date | null, page: PageArgs) {
    const { access, db, viewer } = this.base;
    const namespace = !viewer ? null : namespaceId === null ? await this.namespaces.personalOf(viewer) : await this.namespaces.lookup({ id: namespaceId });
    if (!namespace || namespace.parentId !== null || !(await access.can('read_usage', namespace))) return listConnection<NamespaceUsageRow>(page, []);
    const where: Prisma.CiNamespaceMonthlyUsageWhereInput = { namespaceId: namespace.id, ...(date ? { date: monthOf(date) } : {}) };
    return connection<NamespaceUsageRow>(
      page,
      async ({ skip, take }) =>
        (await db.ciNamespaceMonthlyUsage.findMany({ where, orderBy: [{ date: 'desc' }, { id: 'desc' }], skip, take })).map((row) => ({ ...row, amountUsed: Number(row.amountUsed) })),
      () => db.ciNamespaceMonthlyUsage.count({ where }),
    );
  }

  /** The usage of the namespace's projects in the month of a usage row the caller was given (one query for all the months of a page). */
  projects(usage: NamespaceUsageRow, args: PageArgs) {
    // One batched load answers a page and the total; `count` alone loads the smallest page.
    const load = (skip: number, take: number) => this.base.loaders.ci_minutes.projectUsages.load({ namespaceId: usage.namespaceId, date: usage.date, skip, take });
    let page: ReturnType<typeof load> | undefined;
    return connection<ProjectUsageRow>(
      args,
      async ({ skip, take }) => (await (page = load(skip, take))).rows,
      async () => (await (page ?? load(0, 1))).total,
    );
  }

  /**
   * Adds a finished job's minutes to its project's and root namespace's usage of the month it finished, in one
   * statement that also records the job's consumption: a job already recorded adds nothing, so the background job may
   * run again after a crash. Jobs of runners other than the instance's, of no duration, or at a cost factor of 0 count
   * nothing (GitLab's Ci::Minutes::UpdateBuildMinutesService).
   */
  static async track(db: PrismaClient, jobId: number): Promise<void> {
    const job = await db.ciJob.findUnique({
      where: { id: jobId },
      select: {
        id: true,
        status: true,
        startedAt: true,
        finishedAt: true,
        projectId: true,
        runner: { select: { runnerType: true, publicProjectsMinutesCostFactor: true, privateProjectsMinutesCostFactor: true } },
        project: { select: { visibility: true, namespace: { select: { id: true, traversalIds: true } } } },
      },
    });
    if (!job?.runner || !job.startedAt || !job.finishedAt || !FINISHED.includes(job.status)) return;
    const duration = (job.finishedAt.getTime() - job.startedAt.getTime()) / 1000;
    const factor = costFactor(job.runner, job.project.visibility);
    if (!(duration > 0) || !(factor > 0)) return;
    const amount = consumption(duration, factor);
    const seconds = Math.round(duration);
    const date = monthOf(job.finishedAt).toISOString().slice(0, 10);
    const namespaceId = job.project.namespace.traversalIds[0] ?? job.project.namespace.id;
    await db.$executeRaw`
      WITH recorded AS (
        INSERT INTO "ci_build_minutes_consumptions" ("jobId", "projectId", "namespaceId", "date", "amountUsed", "duration", "costFactor")
        VALUES (${job.id}::int, ${job.projectId}::int, ${namespaceId}::int, ${date}::date, ${amount}::numeric, ${seconds}::int, ${factor}::float8)
        ON CONFLICT ("jobId") DO NOTHING
        RETURNING *
      ), namespace_usage AS (
        INSERT INTO "ci_namespace_monthly_usages" AS u ("namespaceId", "date", "amountUsed", "sharedRunnersDuration")
        SELECT "namespaceId", "date", "amountUsed", "duration" FROM recorded
        ON CONFLICT ("namespaceId", "date") DO UPDATE
        SET "amountUsed" = u."amountUsed" + EXCLUDED."amountUsed", "sharedRunnersDuration" = u."sharedRunnersDuration" + EXCLUDED."sharedRunnersDuration"
      )
      INSERT INTO "ci_project_monthly_usages" AS u ("projectId", "date", "amountUsed", "sharedRunnersDuration")
      SELECT "projectId", "date", "amountUsed", "duration" FROM recorded
      ON CONFLICT ("projectId", "date") DO UPDATE
      SET "amountUsed" = u."amountUsed" + EXCLUDED."amountUsed", "sharedRunnersDuration" = u."sharedRunnersDuration" + EXCLUDED."sharedRunnersDuration"`;
  }
}
