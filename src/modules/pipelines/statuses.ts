/**
 * Commit statuses for external CI (GitLab's `lib/api/commit_statuses.rb`, Ci::CreateCommitStatusService): a status
 * is a `generic` job of the commit's newest pipeline (on the `ref` and with the `pipeline_id` given, if any; without
 * `ref`, the status takes that pipeline's ref), and only when the commit has no such pipeline is one with source
 * `external` created, on the ref given or the first branch containing the commit; in GitLab's `external` stage, moved through the job state machine by each POST; the pipeline's status
 * follows. GET lists every job and status of the commit's pipelines.
 */
import { ensureStages } from './stages.js';
import { invalid, invalidArgument, notFound, badRequest } from '../../errors.js';
import { connection, type PageArgs } from '../../graphql/connection.js';
import type { Prisma } from '../../db/database.js';
import { ZERO_SHA } from '../../git/repository.js';
import type { ServiceBase } from '../module.js';
import type { ProjectRow } from '../projects/service.js';
import type { RepositoriesService } from '../repositories/service.js';
import { JOB_UPDATED, withPipeline, type JobUpdatedMessage } from './processing.js';

export const COMMIT_STATUS_STATES = ['pending', 'running', 'success', 'failed', 'canceled', 'skipped'] as const;
export type CommitStatusState = (typeof COMMIT_STATUS_STATES)[number];

/** GitLab's stage of external statuses, after every stage a configuration can declare. */
const EXTERNAL_STAGE = 'external';
const EXTERNAL_STAGE_IDX = 1_000_000;

export interface CommitStatusInput {
  state: string;
  ref?: string | null;
  name?: string | null;
  context?: string | null;
  targetUrl?: string | null;
  description?: string | null;
  coverage?: number | null;
  pipelineId?: number | null;
}

/** Which state-machine event a state is reached by, and from which states it may be (CommitStatus's transitions). */
const EVENTS: Record<CommitStatusState, { event: string; from: readonly string[] }> = {
  pending: { event: 'enqueue', from: ['created', 'skipped', 'manual', 'scheduled'] },
  running: { event: 'run', from: ['created', 'pending'] },
  success: { event: 'success', from: ['created', 'pending', 'running'] },
  failed: { event: 'drop', from: ['created', 'pending', 'running'] },
  canceled: { event: 'cancel', from: ['created', 'pending', 'running'] },
  skipped: { event: 'skip', from: ['created', 'pending'] },
};

export class CommitStatuses {
  constructor(
    private readonly base: ServiceBase,
    private readonly repositories: RepositoriesService,
  ) {}

  async create(project: ProjectRow, sha: string, input: CommitStatusInput) {
    const { access, db } = this.base;
    if (!(await access.can('read_project', project))) throw notFound('Project');
    await access.authorize('update_build', project);
    const viewer = access.requireViewer();
    if (!(COMMIT_STATUS_STATES as readonly string[]).includes(input.state)) throw invalidArgument('state');
    const state = input.state as CommitStatusState;
    const repository = await this.repositories.open(project);
    const commit = sha && !sha.includes('\0') ? await repository.commit(sha) : null;
    if (!commit) throw notFound('Commit');
    // GitLab's first_matching_pipeline: the commit's newest pipeline, on `ref` and with `pipeline_id` when given.
    const matching = await db.pipeline.findFirst({
      where: { projectId: project.id, sha: commit.sha, ...(input.ref ? { ref: input.ref } : {}), ...(input.pipelineId != null ? { id: input.pipelineId } : {}) },
      orderBy: { id: 'desc' },
      select: { id: true, ref: true },
    });
    // The ref: the one given, else that pipeline's, else the first branch (by name) that contains the commit.
    const ref = input.ref || matching?.ref || (await repository.branchesContaining(commit.sha))[0];
    if (!ref) throw notFound('References for commit');
    const name = input.name || input.context || 'default';
    if (input.coverage != null && (input.coverage < 0 || input.coverage > 100)) throw invalid({ coverage: ['must be between 0 and 100'] });
    if (input.pipelineId != null && !matching) throw notFound('Pipeline for pipeline_id, sha and ref');
    // A new pipeline (source `external`) only when the commit has none that matches.
    const target = matching?.id ?? (await this.externalPipeline(project, commit.sha, ref, viewer.id));
    const id = await withPipeline(db, target, this.base, async (tx) => {
      // An unfinished status of the same name, ref and user moves on; otherwise a new one starts (GitLab's
      // external_commit_status_scope: running_or_pending, for_ref, by_name, for_user).
      const existing = await tx.ciJob.findFirst({ where: { pipelineId: target, type: 'generic', name, ref, userId: viewer.id, status: { in: ['pending', 'running'] } }, orderBy: { id: 'desc' } });
      const from = existing?.status ?? 'created';
      const move = EVENTS[state];
      const now = new Date();
      // Reaching running from a new status passes through pending, as GitLab's `enqueue` then `run`.
      const allowed = move.from.includes(from) || (state === 'running' && from === 'created');
      if (!allowed) throw badRequest(`Cannot transition status via :${move.event} from :${from} (Reason(s): Status cannot transition via "${move.event}")`);
      const data: Prisma.CiJobUncheckedUpdateInput = {
        status: state,
        targetUrl: input.targetUrl ?? existing?.targetUrl ?? null,
        description: input.description ?? existing?.description ?? null,
        coverage: input.coverage ?? existing?.coverage ?? null,
        ...(state === 'pending' ? { queuedAt: now } : {}),
        ...(state === 'running' ? { startedAt: now, ...(existing ? {} : { queuedAt: now }) } : {}),
        ...(['success', 'failed', 'canceled'].includes(state) ? { finishedAt: now } : {}),
        ...(state === 'failed' ? { failureReason: 'unknown_failure' } : {}),
      };
      if (!existing) await ensureStages(tx, target, [{ name: EXTERNAL_STAGE, position: EXTERNAL_STAGE_IDX }]);
      const job = existing
        ? await tx.ciJob.update({ where: { id: existing.id }, data })
        : await tx.ciJob.create({
            data: {
              ...(data as Prisma.CiJobUncheckedCreateInput),
              pipelineId: target,
              projectId: project.id,
              type: 'generic',
              name,
              stage: EXTERNAL_STAGE,
              stageIdx: EXTERNAL_STAGE_IDX,
              ref,
              sha: commit.sha,
              userId: viewer.id,
            },
          });
      await this.base.publish(JOB_UPDATED, { jobId: job.id, pipelineId: target, projectId: project.id, status: state } satisfies JobUpdatedMessage, tx);
      return job.id;
    });
    return db.ciJob.findUniqueOrThrow({ where: { id } });
  }

  /** A pipeline with source `external` for a commit that has none on this ref. */
  private async externalPipeline(project: ProjectRow, sha: string, ref: string, userId: number): Promise<number> {
    return this.base.db.$transaction(async (tx) => {
      await tx.$queryRaw`SELECT "id" FROM "projects" WHERE "id" = ${project.id} FOR UPDATE`;
      const { _max } = await tx.pipeline.aggregate({ where: { projectId: project.id }, _max: { iid: true } });
      const pipeline = await tx.pipeline.create({
        data: {
          projectId: project.id,
          iid: (_max.iid ?? 0) + 1,
          ref,
          tag: false,
          sha,
          beforeSha: ZERO_SHA,
          source: 'external',
          status: 'created',
          userId,
        },
      });
      return pipeline.id;
    });
  }

  /** Every job and status of the commit's pipelines (the latest try of each unless `all`). */
  async list(
    project: ProjectRow,
    sha: string,
    filters: { ref?: string | null; stage?: string | null; name?: string | null; pipelineId?: number | null; all?: boolean | null; orderBy?: string | null; sort?: string | null },
    page: PageArgs,
  ) {
    const { access, db } = this.base;
    if (!(await access.can('read_project', project))) throw notFound('Project');
    await access.authorize('read_commit_status', project);
    const where: Prisma.CiJobWhereInput = {
      projectId: project.id,
      sha,
      ...(filters.all ? {} : { retried: false }),
      ...(filters.ref ? { ref: filters.ref } : {}),
      ...(filters.stage ? { stage: filters.stage } : {}),
      ...(filters.name ? { name: filters.name } : {}),
      ...(filters.pipelineId ? { pipelineId: filters.pipelineId } : {}),
    };
    if (filters.orderBy && filters.orderBy !== 'id' && filters.orderBy !== 'pipeline_id') throw invalidArgument('order_by');
    const direction = filters.sort?.toLowerCase() === 'desc' ? 'desc' : 'asc';
    const orderBy: Prisma.CiJobOrderByWithRelationInput[] = filters.orderBy === 'pipeline_id' ? [{ pipelineId: direction }, { id: direction }] : [{ id: direction }];
    return connection(
      page,
      ({ skip, take }) => db.ciJob.findMany({ where, orderBy, skip, take }),
      () => db.ciJob.count({ where }),
    );
  }
}
