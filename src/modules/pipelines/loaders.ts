/** Batched reads of pipelines, job artifacts and runners, so a page of jobs costs a query per kind, not per job. */
import DataLoader from 'dataloader';
import type { Prisma, PrismaClient } from '../../db/database.js';
import { byKeyLoader, groupedLoader } from '../../db/loader.js';
import { outdatedDeployments } from '../environments/forward.js';

export interface ArtifactSummary {
  id: number;
  jobId: number;
  projectId: number;
  fileType: string;
  size: number;
  filename: string;
  fileFormat: string;
  expireAt: Date | null;
}

const ARTIFACT_SUMMARY = { id: true, jobId: true, projectId: true, fileType: true, size: true, fileName: true, fileFormat: true, expireAt: true } as const;
/** Files `Pipeline.jobArtifacts` lists at most (GitLab lists them all; a pipeline's jobs times their report types). */
const PIPELINE_ARTIFACTS_MAX = 1000;

export function createPipelineLoaders(db: PrismaClient) {
  return {
    byId: byKeyLoader((ids: readonly number[]) => db.pipeline.findMany({ where: { id: { in: [...ids] } } }), (p) => p.id),
    /** The newest pipeline of each schedule (null for none): the newest IDs in one query, their rows in another. */
    lastBySchedule: new DataLoader<number, Prisma.PipelineGetPayload<object> | null>(async (scheduleIds) => {
      const newest = await db.pipeline.groupBy({ by: ['pipelineScheduleId'], where: { pipelineScheduleId: { in: [...scheduleIds] } }, _max: { id: true } });
      const ids = newest.map((row) => row._max.id).filter((id): id is number => id !== null);
      const rows = ids.length ? await db.pipeline.findMany({ where: { id: { in: ids } } }) : [];
      const bySchedule = new Map(rows.map((row) => [row.pipelineScheduleId, row]));
      return scheduleIds.map((id) => bySchedule.get(id) ?? null);
    }),
    /**
     * Each merge request's head pipeline: its newest merge request pipeline, else the newest pipeline of its source
     * branch at its head commit. The same three queries whatever the page holds.
     */
    headByMergeRequest: new DataLoader<MergeRequestHeadKey, Prisma.PipelineGetPayload<object> | null, number>(
      async (keys) => {
        const atHead = keys.filter((k) => k.headSha !== null);
        const [own, branch] = await Promise.all([
          db.pipeline.groupBy({ by: ['mergeRequestId'], where: { mergeRequestId: { in: keys.map((k) => k.id) } }, _max: { id: true } }),
          atHead.length
            ? db.pipeline.groupBy({
                by: ['projectId', 'ref', 'sha'],
                where: { tag: false, OR: atHead.map((k) => ({ projectId: k.projectId, ref: k.sourceBranch, sha: k.headSha! })) },
                _max: { id: true },
              })
            : Promise.resolve([]),
        ]);
        const ids = [...own, ...branch].map((row) => row._max.id).filter((id): id is number => id !== null);
        const rows = new Map((ids.length ? await db.pipeline.findMany({ where: { id: { in: ids } } }) : []).map((row) => [row.id, row]));
        const byMr = new Map(own.map((row) => [row.mergeRequestId, row._max.id]));
        const byBranch = new Map(branch.map((row) => [`${row.projectId}:${row.ref}:${row.sha}`, row._max.id]));
        return keys.map((k) => {
          const id = byMr.get(k.id) ?? (k.headSha === null ? null : byBranch.get(`${k.projectId}:${k.sourceBranch}:${k.headSha}`));
          return (id != null && rows.get(id)) || null;
        });
      },
      { cacheKeyFn: (k) => k.id },
    ),
    /** The newest pipeline of each commit of a project (GitLab's Commit#last_pipeline), keyed `projectId:sha`. */
    lastByCommit: new DataLoader<string, Prisma.PipelineGetPayload<object> | null>(async (keys) => {
      const pairs = keys.map((k) => ({ projectId: Number(k.slice(0, k.indexOf(':'))), sha: k.slice(k.indexOf(':') + 1) }));
      const newest = await db.pipeline.groupBy({ by: ['projectId', 'sha'], where: { OR: pairs }, _max: { id: true } });
      const ids = newest.map((row) => row._max.id).filter((id): id is number => id !== null);
      const rows = new Map((ids.length ? await db.pipeline.findMany({ where: { id: { in: ids } } }) : []).map((row) => [`${row.projectId}:${row.sha}`, row]));
      return keys.map((k) => rows.get(k) ?? null);
    }),
    /** The pipeline each bridge created, by the bridge's ID. */
    downstreamByBridge: byKeyLoader((ids: readonly number[]) => db.pipeline.findMany({ where: { sourceJobId: { in: [...ids] } } }), (p) => p.sourceJobId!),
    runnerById: byKeyLoader((ids: readonly number[]) => db.runner.findMany({ where: { id: { in: [...ids] } } }), (r) => r.id),
    /** Mean coverage of each pipeline's latest jobs that report one (null for none). */
    coverage: new DataLoader<number, number | null>(async (pipelineIds) => {
      const rows = await db.ciJob.groupBy({ by: ['pipelineId'], where: { pipelineId: { in: [...pipelineIds] }, retried: false, coverage: { not: null } }, _avg: { coverage: true } });
      const found = new Map(rows.map((r) => [r.pipelineId, r._avg.coverage]));
      return pipelineIds.map((id) => found.get(id) ?? null);
    }),
    /** Whether each pipeline has latest jobs that failed or were canceled but may fail (GitLab's warnings). */
    warnings: new DataLoader<number, boolean>(async (pipelineIds) => {
      const rows = await db.ciJob.groupBy({ by: ['pipelineId'], where: { pipelineId: { in: [...pipelineIds] }, retried: false, allowFailure: true, status: { in: ['failed', 'canceled'] } }, _count: { _all: true } });
      const found = new Set(rows.map((r) => r.pipelineId));
      return pipelineIds.map((id) => found.has(id));
    }),
    /** Each pipeline's latest jobs, by stage then ID. */
    latestJobs: groupedLoader((ids) => db.ciJob.findMany({ where: { pipelineId: { in: ids }, retried: false }, orderBy: [{ stageIdx: 'asc' }, { id: 'asc' }] }), (j) => j.pipelineId),
    /** Whether each job's deployment is outdated (Ci::Deployable#has_outdated_deployment?), `finished`: the job completed. */
    outdatedDeployment: new DataLoader<{ id: number; finished: boolean }, boolean, number>(
      async (jobs) => {
        const outdated = await outdatedDeployments(db, jobs);
        return jobs.map((j) => outdated.has(j.id));
      },
      { cacheKeyFn: (j) => j.id },
    ),
    /** Each pipeline's stage rows (GitLab's Ci::Stage), by position. */
    stages: groupedLoader((ids) => db.ciStage.findMany({ where: { pipelineId: { in: ids } }, orderBy: { position: 'asc' } }), (s) => s.pipelineId),
    /** The variables each job was played or retried with (GitLab's Ci::JobVariable), oldest first. */
    jobVariables: groupedLoader((ids) => db.ciJobVariable.findMany({ where: { jobId: { in: ids } }, orderBy: { id: 'asc' } }), (v) => v.jobId),
    /** The messages of each pipeline's creation (its configuration's warnings), oldest first. */
    messages: groupedLoader((ids) => db.pipelineMessage.findMany({ where: { pipelineId: { in: ids } }, orderBy: { id: 'asc' } }), (m) => m.pipelineId),
    /** Whether each pipeline has jobs scheduled by their needs (GitLab's Ci::Pipeline#uses_needs?). */
    usesNeeds: new DataLoader<number, boolean>(async (pipelineIds) => {
      const rows = await db.ciJob.groupBy({ by: ['pipelineId'], where: { pipelineId: { in: [...pipelineIds] }, schedulingType: 'dag' }, _count: { _all: true } });
      const found = new Set(rows.map((r) => r.pipelineId));
      return pipelineIds.map((id) => found.has(id));
    }),
    /** Each job's uploaded files, by ID. */
    artifactsByJob: new DataLoader<number, ArtifactSummary[]>(async (jobIds) => {
      const rows = await db.ciJobArtifact.findMany({
        where: { jobId: { in: [...jobIds] } },
        orderBy: { id: 'asc' },
        select: ARTIFACT_SUMMARY,
      });
      return jobIds.map((id) => rows.filter((r) => r.jobId === id).map(({ fileName, ...r }) => ({ ...r, filename: fileName })));
    }),
    /**
     * The files of each pipeline's latest jobs (GraphQL's `Pipeline.jobArtifacts`), with the `artifacts:access` of
     * their job; at most PIPELINE_ARTIFACTS_MAX a pipeline.
     */
    artifactsByPipeline: new DataLoader<number, (ArtifactSummary & { access: string })[]>(async (pipelineIds) => {
      const jobs = await db.ciJob.findMany({ where: { pipelineId: { in: [...pipelineIds] }, retried: false }, select: { id: true, pipelineId: true, options: true } });
      const rows = jobs.length
        ? await db.ciJobArtifact.findMany({ where: { jobId: { in: jobs.map((j) => j.id) } }, orderBy: { id: 'asc' }, select: ARTIFACT_SUMMARY })
        : [];
      const jobOf = new Map(jobs.map((j) => [j.id, j]));
      return pipelineIds.map((pipelineId) =>
        rows
          .filter((r) => jobOf.get(r.jobId)?.pipelineId === pipelineId)
          .slice(0, PIPELINE_ARTIFACTS_MAX)
          .map(({ fileName, ...r }) => ({ ...r, filename: fileName, access: (jobOf.get(r.jobId)?.options as { artifacts?: { access?: string } } | null)?.artifacts?.access ?? 'all' })),
      );
    }),
  };
}

export type PipelineLoaders = ReturnType<typeof createPipelineLoaders>;

/** What finding a merge request's head pipeline reads of it. */
export interface MergeRequestHeadKey {
  id: number;
  /** The project of the source branch (the fork's, for a fork's merge request). */
  projectId: number;
  sourceBranch: string;
  headSha: string | null;
}

export type MergeRequestHeadOf = { id: number; projectId: number; sourceProjectId: number | null; sourceBranch: string; headSha: string | null };

/** The head pipeline key of a merge request: its source branch's pipelines are the source project's. */
export function mergeRequestHeadKey(mr: MergeRequestHeadOf): MergeRequestHeadKey {
  return { id: mr.id, projectId: mr.sourceProjectId ?? mr.projectId, sourceBranch: mr.sourceBranch, headSha: mr.headSha };
}
