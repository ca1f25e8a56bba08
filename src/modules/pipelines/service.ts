/**
 * Owns CI pipelines and their jobs (GitLab's Ci::Pipeline, Ci::Build): creating a pipeline from the project's CI
 * configuration at a commit (on push, through the API), the pipelines and jobs APIs (lists with GitLab's filters,
 * retry, cancel, delete, play), and every job transition, each followed by processing the pipeline
 * (processing.ts) so later stages start as earlier ones finish.
 */
import { hasOutdatedDeployment } from '../environments/forward.js';
import { can, projectSubject, type JobSubject } from '../../auth/policy.js';
import { Prisma, type PrismaClient } from '../../db/database.js';
import { badRequest, forbidden, stateForbids, invalid, invalidArgument, notFound, recordNotFound, unauthenticated } from '../../errors.js';
import { connection, type PageArgs } from '../../graphql/connection.js';
import { ZERO_SHA } from '../../git/repository.js';
import type { ServiceBase } from '../module.js';
import type { ProjectRow, ProjectsService } from '../projects/service.js';
import type { ProtectedBranchesService } from '../protected_branches/service.js';
import type { RepositoriesService } from '../repositories/service.js';
import type { UsersService } from '../users/service.js';
import type { CiVariablesSource } from '../runners/service.js';
import { pushOptionVariables, skipsCi, type PushOptions } from '../../git/push-options.js';
import { CREATE_ERRORS, createPipeline, type CreateDeps } from './create.js';
import { mergeRequestFacts } from './merge_request_facts.js';
import { inputsFromHash, pushOptionInputs, type PipelineInputs } from './inputs.js';
import { mergeRequestMergeRef } from './predefined.js';
import { DownstreamPipelines } from './downstream.js';
import { projectIncludes } from './includes.js';
import { PipelineTriggers, type TriggerRun } from './triggers.js';
import { ResourceGroups } from './resource_groups.js';
import { CommitStatuses } from './statuses.js';
import { buildTestReport, type TestReport, type TestSuite } from './test-reports.js';
import { testSuiteName } from '../../ci/junit.js';
import { rootVariables, type ConfigVariable } from './config_variables.js';
import type { CiLintService } from '../ci_lint/service.js';
import { fetchProjectRows } from '../projects/loaders.js';
import type { Ref } from '../../graphql/ids.js';
import { mergeRequestHeadKey, type ArtifactSummary, type MergeRequestHeadOf } from './loaders.js';
import type { ArtifactsAccess } from '../../ci/config/types.js';
import { JOB_TRACE_APPENDED, JOB_UPDATED, PIPELINE_UPDATED, queueDownstream, withPipeline, type JobTraceAppendedMessage, type JobUpdatedMessage, type PipelineUpdatedMessage } from './processing.js';
import { jobOfMessage, pipelineOfMessage, traceSizeOfMessage, tracePiecesOfMessage, type TracePiece } from './live.js';
import { liveActor } from '../../auth/memberships.js';
import { perMessage } from '../../events/bus.js';
import { CANCELABLE_STATUSES, CI_STATUSES, FINISHED_STATUSES, isCompleted, type CiStatus } from './status.js';
import { enqueueHookEvent } from '../hooks/events.js';
import { deploymentForRetry, followJob } from '../environments/ci.js';
import { enqueueBuildMinutes } from '../ci_minutes/service.js';

/** The merge ref's commit a merged results pipeline runs on, and the source and target heads it merges. */
export interface MergedResultRef {
  commit: string;
  sourceSha: string;
  targetSha: string;
}

export type PipelineRow = Prisma.PipelineGetPayload<object>;
export type JobRow = Prisma.CiJobGetPayload<object>;

/** One jobTraceUpdated message. */
export interface JobTraceUpdate extends TracePiece {
  job: JobRow;
  complete: boolean;
}

/** The variables that put a job in debug mode (GitLab's Ci::Build#debug_mode?). */
const DEBUG_VARIABLES = ['CI_DEBUG_TRACE', 'CI_DEBUG_SERVICES'] as const;

/** The row a status message names, shown with that status: one object per message, shared by its subscribers. */
const shownWithStatus = perMessage((message: { status: string }, row: object): object => ({ ...row, status: message.status }));

/** A job's row as a log chunk shows it: running (logs grow only while it runs), whatever happened since. */
const runningJob = perMessage((_message: JobTraceAppendedMessage, row: JobRow): JobRow => ({ ...row, status: 'running' }));

export const PIPELINE_SCOPES = ['running', 'pending', 'finished', 'branches', 'tags'] as const;
export const PIPELINE_ORDERS = ['id', 'status', 'ref', 'updated_at', 'user_id'] as const;
/** What may have started a pipeline (GitLab's Enums::Ci::Pipeline.sources): the values the `source` filter accepts. */
export const PIPELINE_SOURCES = [
  'unknown',
  'push',
  'web',
  'trigger',
  'schedule',
  'api',
  'external',
  'pipeline',
  'chat',
  'webide',
  'merge_request_event',
  'external_pull_request_event',
  'parent_pipeline',
  'ondemand_dast_scan',
  'ondemand_dast_validation',
  'security_orchestration_policy',
  'container_registry_push',
  'duo_workflow',
  'pipeline_execution_policy_schedule',
] as const;
/**
 * Sources whose pipelines do not speak for their ref's CI status (GitLab's dangling_sources): a child pipeline's
 * parent does. `latest` never answers one of these.
 */
const DANGLING_SOURCES = ['webide', 'parent_pipeline', 'ondemand_dast_scan', 'ondemand_dast_validation', 'security_orchestration_policy', 'container_registry_push', 'duo_workflow', 'pipeline_execution_policy_schedule'];

export interface PipelineFilters {
  scope?: (typeof PIPELINE_SCOPES)[number] | null;
  status?: string | null;
  source?: string | null;
  ref?: string | null;
  sha?: string | null;
  yamlErrors?: boolean | null;
  username?: string | null;
  name?: string | null;
  updatedAfter?: Date | null;
  updatedBefore?: Date | null;
  createdAfter?: Date | null;
  createdBefore?: Date | null;
  orderBy?: (typeof PIPELINE_ORDERS)[number] | null;
  sort?: 'asc' | 'desc' | null;
  /** Only the pipelines this schedule ran. */
  pipelineScheduleId?: number | null;
}

export interface PipelineVariableInput {
  key: string;
  value: string;
  variableType?: string | null;
}

const ORDER_COLUMNS: Record<(typeof PIPELINE_ORDERS)[number], keyof Prisma.PipelineOrderByWithRelationInput> = {
  id: 'id',
  status: 'status',
  ref: 'ref',
  updated_at: 'updatedAt',
  user_id: 'userId',
};

/** Job statuses a `scope` filter of the jobs API accepts (GitLab: any status). */
export function checkJobScopes(scopes: readonly string[] | null | undefined): string[] | null {
  if (!scopes || scopes.length === 0) return null;
  for (const scope of scopes) if (!(CI_STATUSES as readonly string[]).includes(scope)) throw invalidArgument('scope');
  return [...scopes];
}

/** Child pipelines nest at most this deep (GitLab's MAX_NESTED_CHILDREN is 2); cancel looks no deeper. */
const MAX_CHILD_DEPTH = 3;
/** GitLab's PipelineScopeCounts::PIPELINES_COUNT_LIMIT. */
const PIPELINES_COUNT_LIMIT = 1000;

/** GitLab's TestFailureHistory looks back 14 days. */
const RECENT_FAILURES_MS = 14 * 24 * 3600_000;

/** GitLab's CancelRedundantPipelinesService looks back a day, at most this many pipelines at once. */
const REDUNDANT_PIPELINES_WINDOW_MS = 24 * 3600_000;
const REDUNDANT_PIPELINES_BATCH = 100;

/**
 * Gives a job the variables a play or a retry named, in place of its earlier ones (GitLab's job_variables);
 * `from`: the job whose variables a retry without any copies (Ci::Build#clone's job_variables_attributes).
 */
async function setJobVariables(tx: Prisma.TransactionClient, jobId: number, variables: readonly PipelineVariableInput[], from: number | null = null): Promise<void> {
  if (variables.length) {
    await tx.ciJobVariable.deleteMany({ where: { jobId } });
    // The last value given for a key wins, as GitLab's nested attributes assign them in order.
    const byKey = new Map(variables.map((v) => [v.key, v]));
    await tx.ciJobVariable.createMany({ data: [...byKey.values()].map((v) => ({ jobId, key: v.key, value: v.value, variableType: v.variableType ?? 'env_var' })) });
    return;
  }
  if (from === null) return;
  const kept = await tx.ciJobVariable.findMany({ where: { jobId: from }, orderBy: { id: 'asc' } });
  if (kept.length) await tx.ciJobVariable.createMany({ data: kept.map((v) => ({ jobId, key: v.key, value: v.value, variableType: v.variableType, raw: v.raw })) });
}

/** What the viewer may do with a job (GraphQL's `JobPermissions`). */
export interface JobPermissions {
  readBuild: boolean;
  readJobArtifacts: boolean;
  updateBuild: boolean;
  playJob: boolean;
  /** play_job whatever the job's kind: a manual bridge's status offers it (Gitlab::Ci::Status::Bridge::Play). */
  play: boolean;
}

export class PipelinesService {
  /** Trigger tokens of projects. */
  readonly triggers: PipelineTriggers;
  readonly resourceGroups: ResourceGroups;
  /** Commit statuses from external CI. */
  readonly statuses: CommitStatuses;
  /** Child and multi-project pipelines of bridges (trigger: jobs). */
  readonly downstream: DownstreamPipelines;

  constructor(
    private readonly base: ServiceBase,
    private readonly repositories: RepositoriesService,
    private readonly protectedBranches: ProtectedBranchesService,
    private readonly projects: ProjectsService,
    private readonly users: UsersService,
    private readonly ciVariables: CiVariablesSource | null = null,
    private readonly ciLint: CiLintService | null = null,
  ) {
    this.triggers = new PipelineTriggers(base);
    this.resourceGroups = new ResourceGroups({
      base,
      authorizeProject: async (project, ability) => {
        if (!(await base.access.can('read_project', project))) throw notFound('Project');
        await base.access.authorize(ability, project);
      },
      withPipeline: async (pipelineId, change) => {
        await withPipeline(this.db, pipelineId, this.base, change);
      },
    });
    this.statuses = new CommitStatuses(base, repositories);
    this.downstream = new DownstreamPipelines({
      base,
      projects,
      repositories,
      createDeps: () => this.deps(),
      mayUpdateRef: (project, ref, tag) => this.mayUpdateRef(project, ref, tag),
      setJobStatus: (tx, pipeline, jobId, status, data) => this.setJobStatus(tx, pipeline, jobId, status, data),
    });
  }

  private get db(): PrismaClient {
    return this.base.db;
  }

  /**
   * The viewer may do `ability` on the project's pipelines or jobs: 404 when they may not see the project, 403 when
   * they see it but may not do this.
   */
  private async authorized(project: ProjectRow, ability: 'read_pipeline' | 'read_build' | 'create_pipeline' | 'update_pipeline' | 'cancel_pipeline' | 'destroy_pipeline' | 'update_build'): Promise<void> {
    const { access } = this.base;
    if (!(await access.can('read_project', project))) throw notFound('Project');
    await access.authorize(ability, project);
  }


  /** Whether the viewer may read the project's pipelines and their jobs (what listing them asks). */
  async readsPipelines(project: ProjectRow): Promise<boolean> {
    return (await this.base.access.can('read_pipeline', project)) && (await this.base.access.can('read_build', project));
  }

  /** Whether the viewer may update the ref (push or merge to it): what creating a pipeline for it asks. */
  async mayUpdateRef(project: ProjectRow, ref: string, tag: boolean): Promise<boolean> {
    return this.base.access.can('update_ref', await this.protectedBranches.refSubject(project, ref, tag));
  }

  /**
   * A pipeline the viewer may `ability` (Ci::PipelinePolicy): the project's ability first (404, 403), then the
   * pipeline (`404 Not found`), then the ability on its ref (403 on a protected ref they may not update).
   */
  private async pipelineFor(project: ProjectRow, id: number, ability: 'update_pipeline' | 'cancel_pipeline'): Promise<PipelineRow> {
    await this.authorized(project, ability);
    const pipeline = await this.find(project, id);
    await this.base.access.authorize(ability, await this.protectedBranches.refSubject(project, pipeline.ref, pipeline.tag));
    return pipeline;
  }

  /** A job the viewer may `ability` (Ci::BuildPolicy), checked as `pipelineFor` checks a pipeline (`404 Job Not Found`). */
  private async jobFor(project: ProjectRow, jobId: number, ability: 'play_job' | 'retry_job' | 'cancel_build' | 'erase_build'): Promise<JobRow> {
    await this.authorized(project, 'update_build');
    const job = await this.findJob(project, jobId);
    await this.base.access.authorize(ability, await this.jobSubject(project, job));
    return job;
  }

  /**
   * What Ci::BuildPolicy decides a job's abilities by: its ref's protection, its user, an outdated deployment.
   * `batched`: for reads, the outdated deployment comes from the request's loader (a page of jobs in one query).
   */
  private async jobSubject(project: ProjectRow, job: JobRow, batched = false): Promise<JobSubject> {
    const finished = isCompleted(job.status as CiStatus);
    const outdatedDeployment = batched
      ? await this.base.loaders.pipelines.outdatedDeployment.load({ id: job.id, finished })
      : await hasOutdatedDeployment(this.db, job.id, finished);
    return { ...(await this.protectedBranches.refSubject(project, job.ref, job.tag)), userId: job.userId, outdatedDeployment };
  }

  /** Each job's permissions, worked out once per request (`canPlayJob` and `userPermissions` both ask). */
  private readonly permissionsOfJob = new Map<number, Promise<JobPermissions>>();

  /** GraphQL's `CiJob.userPermissions` and `canPlayJob`: what the viewer may do with a job they read. */
  jobPermissions(project: ProjectRow, job: JobRow): Promise<JobPermissions> {
    let found = this.permissionsOfJob.get(job.id);
    if (!found) this.permissionsOfJob.set(job.id, (found = this.workOutJobPermissions(project, job)));
    return found;
  }

  private async workOutJobPermissions(project: ProjectRow, job: JobRow): Promise<JobPermissions> {
    const { access } = this.base;
    const ref = await this.protectedBranches.refSubject(project, job.ref, job.tag);
    const artifacts = (job.options as { artifacts?: { access?: string } } | null)?.artifacts?.access ?? 'all';
    const updateBuild = await access.can('update_build', project);
    const play = updateBuild && (await access.can('play_job', await this.jobSubject(project, job, true)));
    return {
      readBuild: await access.can('read_build', project),
      readJobArtifacts: await access.can('read_job_artifacts', { project: projectSubject(project), access: artifacts as ArtifactsAccess }),
      // Ci::BuildPolicy prevents update_build on a protected ref the viewer may not update.
      updateBuild: updateBuild && (await access.can('update_ref', ref)),
      playJob: job.type === 'build' && play,
      play,
    };
  }

  /** GraphQL's `Pipeline.userPermissions`: what the viewer may do with a pipeline they read. */
  async pipelinePermissions(project: ProjectRow, pipeline: PipelineRow): Promise<{ adminPipeline: boolean; destroyPipeline: boolean; updatePipeline: boolean }> {
    const { access } = this.base;
    return {
      adminPipeline: await access.can('admin_pipeline', project),
      destroyPipeline: await access.can('destroy_pipeline', project),
      updatePipeline: await access.can('update_pipeline', await this.protectedBranches.refSubject(project, pipeline.ref, pipeline.tag)),
    };
  }

  /** The configuration's warnings recorded with a pipeline (GitLab's `warning_messages`), oldest first. */
  async warningMessages(pipeline: PipelineRow): Promise<{ id: number; content: string }[]> {
    return (await this.base.loaders.pipelines.messages.load(pipeline.id)).filter((m) => m.severity === 'warning');
  }

  /** Whether the pipeline has jobs that run by their needs (Ci::Pipeline#uses_needs?). */
  usesNeeds(pipeline: PipelineRow): Promise<boolean> {
    return this.base.loaders.pipelines.usesNeeds.load(pipeline.id);
  }

  /** GraphQL's `Pipeline.job`: one of its jobs by ID, or its latest job of that name; null when none. */
  async pipelineJob(pipeline: PipelineRow, by: { id?: number | null; name?: string | null }): Promise<JobRow | null> {
    if (by.id != null) return this.db.ciJob.findFirst({ where: { id: by.id, pipelineId: pipeline.id } });
    if (by.name == null) return null;
    return this.db.ciJob.findFirst({ where: { pipelineId: pipeline.id, name: by.name, retried: false }, orderBy: { id: 'desc' } });
  }

  /** The bridge job that created the pipeline (GraphQL's `Pipeline.sourceJob`), when the viewer may read its project's jobs. */
  async sourceJobOf(pipeline: PipelineRow): Promise<JobRow | null> {
    if (pipeline.sourceJobId === null) return null;
    const bridge = await this.db.ciJob.findUnique({ where: { id: pipeline.sourceJobId } });
    const project = bridge && ((await this.base.loaders.projects.byId.load(bridge.projectId)) as ProjectRow | null);
    return project && (await this.base.access.can('read_pipeline', project)) && (await this.base.access.can('read_build', project)) ? bridge : null;
  }

  // ---- Pipelines ----

  async list(project: ProjectRow, filters: PipelineFilters, page: PageArgs) {
    await this.authorized(project, 'read_pipeline');
    await this.base.access.authorize('read_build', project);
    const where = await this.listWhere(project, filters);
    const column = ORDER_COLUMNS[filters.orderBy ?? 'id'];
    const direction = filters.sort ?? 'desc';
    const orderBy: Prisma.PipelineOrderByWithRelationInput[] = [{ [column]: direction }];
    if (column !== 'id') orderBy.push({ id: direction });
    return connection(
      page,
      ({ skip, take }) => this.db.pipeline.findMany({ where, orderBy, skip, take }),
      () => this.db.pipeline.count({ where }),
    );
  }

  /**
   * GraphQL's `Project.pipelineCounts` (GitLab's PipelineScopeCounts over Ci::PipelinesFinder): the pipelines of each
   * scope with the ref, sha and source given (a source GitLab does not know is ignored), each counted up to 1,000;
   * null for viewers who may not read the project's pipelines.
   */
  async counts(project: ProjectRow, filters: { ref?: string | null; sha?: string | null; source?: string | null }) {
    if (!(await this.base.access.can('read_pipeline', project))) return null;
    const source = filters.source && (PIPELINE_SOURCES as readonly string[]).includes(filters.source) ? filters.source : null;
    const count = async (scope: PipelineFilters['scope']) =>
      this.db.pipeline.count({ where: await this.listWhere(project, { ref: filters.ref, sha: filters.sha, source, scope }), take: PIPELINES_COUNT_LIMIT });
    const [all, finished, pending, running] = await Promise.all([count(null), count('finished'), count('pending'), count('running')]);
    return { all, finished, pending, running };
  }

  private async listWhere(project: ProjectRow, filters: PipelineFilters): Promise<Prisma.PipelineWhereInput> {
    if (filters.source && !(PIPELINE_SOURCES as readonly string[]).includes(filters.source)) throw invalidArgument('source');
    // What GitLab's PipelinesFinder filters before `scope`: child pipelines appear only when asked for by their source.
    const prefiltered: Prisma.PipelineWhereInput[] = [{ projectId: project.id }];
    if (filters.source !== 'parent_pipeline') prefiltered.push({ source: { not: 'parent_pipeline' } });
    if (filters.pipelineScheduleId != null) prefiltered.push({ pipelineScheduleId: filters.pipelineScheduleId });
    const and = [...prefiltered];
    if (filters.source) and.push({ source: filters.source });
    if (filters.status) {
      if (!(CI_STATUSES as readonly string[]).includes(filters.status)) throw invalidArgument('status');
      and.push({ status: filters.status });
    }
    if (filters.ref) and.push({ ref: filters.ref });
    if (filters.sha) and.push({ sha: filters.sha });
    if (filters.name) and.push({ name: filters.name });
    if (filters.yamlErrors === true) and.push({ yamlErrors: { not: null } });
    if (filters.yamlErrors === false) and.push({ yamlErrors: null });
    if (filters.username) {
      // GitLab's User.by_username: any case.
      const user = await this.users.find({ path: filters.username });
      and.push({ userId: user?.id ?? -1 });
    }
    if (filters.updatedAfter) and.push({ updatedAt: { gte: filters.updatedAfter } });
    if (filters.updatedBefore) and.push({ updatedAt: { lte: filters.updatedBefore } });
    if (filters.createdAfter) and.push({ createdAt: { gt: filters.createdAfter } });
    if (filters.createdBefore) and.push({ createdAt: { lt: filters.createdBefore } });
    switch (filters.scope) {
      case 'running':
      case 'pending':
        and.push({ status: filters.scope });
        break;
      case 'finished':
        and.push({ status: { in: [...FINISHED_STATUSES] } });
        break;
      case 'branches':
      case 'tags': {
        // The newest pipeline of each branch (tag) the repository has, among the prefiltered ones (a child pipeline,
        // newer than its parent, does not hide it); the other filters then apply to those.
        const tag = filters.scope === 'tags';
        const repository = await this.repositories.open(project);
        const refs = [...(await repository.refs(tag ? 'refs/tags/' : 'refs/heads/')).keys()].map((r) => r.replace(/^refs\/(heads|tags)\//, ''));
        const newest = refs.length
          ? await this.db.pipeline.groupBy({ by: ['ref'], where: { AND: [...prefiltered, { tag, ref: { in: refs } }] }, _max: { id: true } })
          : [];
        and.push({ id: { in: newest.map((row) => row._max.id).filter((id): id is number => id !== null) } });
        break;
      }
    }
    return { AND: and };
  }

  /** One pipeline of the project by ID (child pipelines too); `404 Not found` when it has none such. */
  async get(project: ProjectRow, id: number): Promise<PipelineRow> {
    await this.authorized(project, 'read_pipeline');
    return this.find(project, id);
  }

  /** One pipeline by its number in the project, or null. */
  async byIid(project: ProjectRow, iid: number): Promise<PipelineRow | null> {
    await this.authorized(project, 'read_pipeline');
    return this.db.pipeline.findUnique({ where: { projectId_iid: { projectId: project.id, iid } } });
  }

  private async find(project: ProjectRow, id: number): Promise<PipelineRow> {
    const pipeline = await this.db.pipeline.findFirst({ where: { id, projectId: project.id } });
    if (!pipeline) throw recordNotFound();
    return pipeline;
  }

  /**
   * The newest pipeline for the head commit of a ref (default: the default branch); GitLab authorizes the missing
   * pipeline and so answers 403 when there is none.
   */
  async latest(project: ProjectRow, ref: string | null | undefined): Promise<PipelineRow> {
    await this.authorized(project, 'read_pipeline');
    const name = ref || project.defaultBranch;
    const repository = await this.repositories.open(project);
    const sha = (await repository.resolve(`refs/heads/${name}`)) ?? (await repository.resolve(`refs/tags/${name}`));
    const pipeline = sha
      ? await this.db.pipeline.findFirst({ where: { projectId: project.id, ref: name, sha, source: { notIn: DANGLING_SOURCES } }, orderBy: { id: 'desc' } })
      : null;
    if (!pipeline) throw forbidden();
    return pipeline;
  }

  /** The variables the pipeline was created with: Maintainers, or the Developer who created it. */
  async variables(project: ProjectRow, id: number) {
    await this.authorized(project, 'read_pipeline');
    const pipeline = await this.find(project, id);
    const { access } = this.base;
    const own = access.viewer !== null && pipeline.userId === access.viewer.id && (await access.can('update_pipeline', await this.protectedBranches.refSubject(project, pipeline.ref, pipeline.tag)));
    if (!own) await access.authorize('admin_pipeline', project);
    return this.db.pipelineVariable.findMany({ where: { pipelineId: pipeline.id }, orderBy: { id: 'asc' } });
  }

  /** Whether the pipeline passed with warnings: a latest job that may fail failed or was canceled. */
  async warnings(pipeline: PipelineRow): Promise<boolean> {
    return pipeline.status === 'success' && (await this.base.loaders.pipelines.warnings.load(pipeline.id));
  }

  /** The newest pipeline a schedule ran, or null (batched; callers check the schedule's readability). */
  lastOfSchedule(scheduleId: number): Promise<PipelineRow | null> {
    return this.base.loaders.pipelines.lastBySchedule.load(scheduleId);
  }

  /**
   * GitLab's MergeRequest#head_pipeline: its newest merge request pipeline, else the newest pipeline of its source
   * branch (in the source project) at its head commit; null for none or when the viewer may not read its project's pipelines.
   */
  async headForMergeRequest(mr: MergeRequestHeadOf): Promise<PipelineRow | null> {
    const head = await this.base.loaders.pipelines.headByMergeRequest.load(mergeRequestHeadKey(mr));
    if (!head) return null;
    // Entities::MergeRequest's `if: can?(current_user, :read_pipeline, head_pipeline)`: a fork's pipeline is the fork's.
    const project = await this.base.loaders.projects.byId.load(head.projectId);
    return project && (await this.base.access.can('read_pipeline', project)) ? head : null;
  }

  /** The mean coverage of the pipeline's latest jobs that report one, or null. */
  async coverage(pipeline: PipelineRow): Promise<number | null> {
    const mean = await this.base.loaders.pipelines.coverage.load(pipeline.id);
    return mean === null ? null : Math.round(mean * 100) / 100;
  }

  /** The JUnit reports of the pipeline's latest jobs (GitLab needs read_build). */
  async testReport(project: ProjectRow, pipeline: PipelineRow): Promise<TestReport> {
    await this.authorized(project, 'read_build');
    const artifacts = await this.db.ciJobArtifact.findMany({
      where: { fileType: 'junit', job: { pipelineId: pipeline.id, retried: false } },
      orderBy: { id: 'asc' },
      select: { report: true, job: { select: { id: true, name: true } } },
    });
    return buildTestReport(artifacts.map((a) => ({ jobId: a.job.id, jobName: a.job.name, report: a.report })), project.fullPath);
  }

  /**
   * GraphQL's `Pipeline.testSuite(buildIds:)` (GitLab's TestSuiteResolver): the JUnit reports of those of the
   * pipeline's latest jobs, summed into one suite named after the first; null when none of them is a latest job.
   */
  async testSuite(project: ProjectRow, pipeline: PipelineRow, jobIds: readonly number[]): Promise<TestSuite | null> {
    await this.authorized(project, 'read_build');
    const jobs = await this.db.ciJob.findMany({
      where: { id: { in: [...jobIds] }, pipelineId: pipeline.id, retried: false, type: 'build' },
      orderBy: { id: 'asc' },
      select: { id: true, name: true, artifacts: { where: { fileType: 'junit' }, select: { report: true } } },
    });
    if (!jobs.length) return null;
    const name = jobs[0].name;
    // A job without a report still counts as one of the suite's builds, with no tests.
    const reports = jobs.flatMap((job) => (job.artifacts.length ? job.artifacts : [{ report: null }]).map((a) => ({ jobId: job.id, jobName: name, report: a.report })));
    const suite = buildTestReport(reports, project.fullPath).testSuites[0];
    await this.withRecentFailures(project, suite);
    return suite;
  }

  /**
   * GitLab's TestFailureHistory of a suite's failed cases: how often the same test (suite, class and name) failed in
   * the last 14 days in jobs of pipelines on the default branch, read from the JUnit reports the project keeps (GitLab
   * records them as Ci::UnitTestFailure when such a pipeline completes; one a job).
   */
  private async withRecentFailures(project: ProjectRow, suite: TestSuite): Promise<void> {
    const failed = suite.testCases.filter((c) => c.status === 'failed');
    if (!failed.length) return;
    const since = new Date(Date.now() - RECENT_FAILURES_MS);
    const rows = await this.db.$queryRaw<{ job: string; classname: string; name: string; count: number }[]>`
      SELECT b."name" AS "job", c->>'classname' AS "classname", c->>'name' AS "name", count(DISTINCT b."id")::int AS "count"
      FROM "ci_job_artifacts" a
      JOIN "ci_builds" b ON b."id" = a."jobId"
      JOIN "ci_pipelines" p ON p."id" = b."pipelineId"
      CROSS JOIN LATERAL jsonb_array_elements(COALESCE(a."report"->'suites', '[]'::jsonb)) s
      CROSS JOIN LATERAL jsonb_array_elements(COALESCE(s->'cases', '[]'::jsonb)) c
      WHERE a."projectId" = ${project.id} AND a."fileType" = 'junit' AND p."ref" = ${project.defaultBranch} AND NOT p."tag"
        AND b."finishedAt" >= ${since} AND c->>'status' = 'failed'
        AND c->>'name' = ANY(${[...new Set(failed.map((c) => c.name))]}::text[])
      GROUP BY 1, 2, 3`;
    const key = (suiteName: string, classname: string, name: string) => JSON.stringify([testSuiteName(suiteName), classname, name]);
    const counts = new Map<string, number>();
    for (const row of rows) {
      const k = key(row.job, row.classname ?? '', row.name ?? '');
      counts.set(k, (counts.get(k) ?? 0) + row.count);
    }
    for (const testCase of failed) testCase.recentFailures = { count: counts.get(key(suite.name, testCase.classname, testCase.name)) ?? 0, baseBranch: project.defaultBranch };
  }

  /**
   * `POST /projects/:id/pipeline`: a pipeline for the ref's head commit, created as the viewer (source `api` unless
   * said). A schedule names its ref's kind (`tag`) and itself.
   */
  async create(
    project: ProjectRow,
    input: { ref: string; tag?: boolean; variables?: readonly PipelineVariableInput[] | null; source?: string; pipelineScheduleId?: number; inputs?: PipelineInputs | null },
  ): Promise<PipelineRow> {
    await this.authorized(project, 'create_pipeline');
    const viewer = this.base.access.requireViewer();
    const variables = (input.variables ?? []).map((v) => ({ key: v.key, value: v.value, variableType: v.variableType ?? 'env_var' }));
    // Grape's `values:` check of each variable, named as Grape names an array's element (`variables[0][variable_type]`).
    variables.forEach((v, i) => {
      if (v.variableType !== 'env_var' && v.variableType !== 'file') throw invalidArgument(`variables[${i}][variable_type]`);
    });
    const keys = variables.map((v) => v.key);
    const duplicates = [...new Set(keys.filter((k, i) => keys.indexOf(k) !== i))];
    if (duplicates.length) throw invalid({ base: [`Duplicate variable name${duplicates.length > 1 ? 's' : ''}: ${duplicates.join(', ')}`] });
    // Chain::Validate::Abilities: variables the user passes need `set_pipeline_variables` (a schedule's are its own).
    if (variables.length && input.source !== 'schedule' && !(await this.base.access.can('set_pipeline_variables', project))) {
      throw invalid({ base: [CREATE_ERRORS.variablesRefused] });
    }
    const result = await createPipeline(this.deps(), {
      project,
      userId: viewer.id,
      ref: input.ref,
      tag: input.tag,
      source: input.source ?? 'api',
      beforeSha: ZERO_SHA,
      variables,
      inputs: input.inputs,
      honourSkipCi: false,
      // GitLab's API and GraphQL create with save_on_errors: false; a schedule's run keeps its failed pipeline.
      saveOnErrors: input.source === 'schedule',
      pipelineScheduleId: input.pipelineScheduleId,
      mayUpdateRef: (ref, tag) => this.mayUpdateRef(project, ref, tag),
    });
    if ('error' in result) throw invalid({ base: [result.error] });
    await this.cancelRedundant(project, result.pipeline);
    return result.pipeline;
  }

  /**
   * `POST /projects/:id/trigger/pipeline`: the token authenticates, not the caller, so the project is found whoever
   * asks (an unknown project and a wrong token both answer `404 Not Found`).
   */
  async runTrigger(projectRef: Ref, run: TriggerRun): Promise<PipelineRow> {
    // A project being deleted is gone for triggers too (GitLab's without_deleted scope).
    const where = 'id' in projectRef ? Prisma.sql`p."id" = ${projectRef.id}` : Prisma.sql`p."fullPath" = ${projectRef.path}`;
    const [project] = await fetchProjectRows(this.db, Prisma.sql`${where} AND NOT p."pendingDelete"`);
    if (!project) throw notFound();
    const runner = await this.triggers.runner(project, run);
    const result = await createPipeline(this.deps(), {
      mayUpdateRef: async (ref, tag) => can(runner.actor, 'update_ref', await this.protectedBranches.refSubject(project, ref, tag)),
      project,
      userId: runner.userId,
      ref: run.ref,
      source: runner.source,
      beforeSha: ZERO_SHA,
      variables: runner.variables,
      inputs: inputsFromHash(run.inputs),
      honourSkipCi: false,
      triggerId: runner.triggerId,
    });
    if ('error' in result) throw invalid({ base: [result.error] });
    return result.pipeline;
  }

  /** A push's pipeline (GitLab's Ci::CreatePipelineService from PostReceive): none for deletions or without a config. */
  async createForPush(project: ProjectRow, push: { userId: number; ref: string; before: string; after: string; pushOptions?: PushOptions }): Promise<PipelineRow | null> {
    if (push.after === ZERO_SHA) return null;
    const tag = push.ref.startsWith('refs/tags/');
    const name = push.ref.replace(/^refs\/(heads|tags)\//, '');
    const result = await createPipeline(this.deps(), {
      project,
      userId: push.userId,
      ref: name,
      tag,
      sha: push.after,
      source: 'push',
      beforeSha: push.before,
      // `git push -o ci.variable=KEY=value`: pipeline variables; `-o ci.skip`: a skipped pipeline.
      variables: pushOptionVariables(push.pushOptions),
      // `-o ci.input=name=value`: the pipeline's inputs.
      inputs: pushOptionInputs(push.pushOptions),
      honourSkipCi: true,
      skip: skipsCi(push.pushOptions),
      changesFrom: push.before === ZERO_SHA ? null : push.before,
    });
    if ('error' in result) return null;
    await this.cancelRedundant(project, result.pipeline);
    return result.pipeline;
  }

  /**
   * A merge request pipeline (Ci::CreatePipelineService with `merge_request_event`, as MergeRequests::
   * CreatePipelineService asks for one): a `merge_request_event` pipeline of `project` at `at` when the rules ask for
   * one. `at` is chosen by the merge request module: the target's refs/merge-requests/<iid>/head (which it fetched),
   * or for a fork's pipeline run in the fork its source branch. Given the merge ref's commit of that head (merged
   * results, EE's create_merged_result_pipeline_for), first on refs/merge-requests/<iid>/merge at that commit with its
   * source and target shas; when that makes no pipeline, or without it, at `at`. `explicit` (the API) answers
   * GitLab's errors; a push makes none silently.
   */
  async createForMergeRequest(
    project: ProjectRow,
    mr: { id: number; iid: number; state: string },
    userId: number,
    explicit: boolean,
    at: { ref: string; sha: string | null; branch: boolean },
    mergedResult: MergedResultRef | null = null,
  ): Promise<PipelineRow | null> {
    const head = at.sha;
    if (!head || mr.state !== 'opened') {
      if (explicit) throw invalid({ base: [CREATE_ERRORS.referenceNotFound] });
      return null;
    }
    const facts = await mergeRequestFacts(this.db, this.protectedBranches, mr.id);
    if (!facts) return null;
    const input = {
      project,
      userId,
      tag: false,
      source: 'merge_request_event',
      beforeSha: ZERO_SHA,
      variables: [],
      honourSkipCi: !explicit,
      saveOnErrors: !explicit,
      mergeRequest: facts,
      // Chain::Validate::Abilities on a branch: whoever may not update it runs no pipeline on it.
      ...(at.branch ? { mayUpdateRef: (ref: string, tag: boolean) => this.mayUpdateRef(project, ref, tag) } : {}),
    };
    if (mergedResult && mergedResult.sourceSha === head) {
      const merged = await createPipeline(this.deps(), {
        ...input,
        ref: mergeRequestMergeRef(mr.iid),
        sha: mergedResult.commit,
        mergedResult: { sourceSha: mergedResult.sourceSha, targetSha: mergedResult.targetSha },
      });
      if (!('error' in merged)) return merged.pipeline;
    }
    const result = await createPipeline(this.deps(), { ...input, ref: at.ref, sha: head });
    if ('error' in result) {
      if (explicit) throw invalid({ base: [result.error] });
      return null;
    }
    return result.pipeline;
  }

  /**
   * A merge train pipeline (EE's MergeTrains::CreatePipelineService): a `merge_request_event` pipeline on the car's
   * train ref at its commit, which merges the source head into the train ahead of it (`targetSha`); GitLab's error
   * when none can be made (the car then leaves the train).
   */
  async createForMergeTrain(project: ProjectRow, mr: { id: number; iid: number }, userId: number, train: MergedResultRef & { ref: string }): Promise<{ pipeline: PipelineRow } | { error: string }> {
    const facts = await mergeRequestFacts(this.db, this.protectedBranches, mr.id);
    if (!facts) return { error: CREATE_ERRORS.referenceNotFound };
    return createPipeline(this.deps(), {
      project,
      userId,
      tag: false,
      source: 'merge_request_event',
      beforeSha: ZERO_SHA,
      variables: [],
      honourSkipCi: false,
      saveOnErrors: true,
      mergeRequest: facts,
      ref: train.ref,
      sha: train.commit,
      mergedResult: { sourceSha: train.sourceSha, targetSha: train.targetSha },
    });
  }

  /**
   * GitLab's `GET …/merge_requests/:iid/pipelines` (Ci::PipelinesForMergeRequestFinder#execute): its merge request
   * pipelines, wherever they ran (the target, or the fork a fork's ran in), and the source branch's pipelines of its
   * head in the source project; of these, those of the projects whose pipelines the viewer may read. Merge request
   * pipelines first, then newest first.
   */
  async forMergeRequest(project: ProjectRow, mr: { id: number; projectId: number; sourceProjectId: number | null; sourceBranch: string; headSha: string | null }, page: PageArgs) {
    await this.authorized(project, 'read_pipeline');
    const source = mr.sourceProjectId === null || mr.sourceProjectId === project.id ? null : await this.base.loaders.projects.byId.load(mr.sourceProjectId);
    const readable = [project.id, ...(source && (await this.base.access.can('read_pipeline', source)) ? [source.id] : [])];
    const own: Prisma.PipelineWhereInput = { projectId: { in: readable }, mergeRequestId: mr.id, source: 'merge_request_event' };
    const branch: Prisma.PipelineWhereInput | null =
      mr.headSha && readable.includes(mr.sourceProjectId ?? project.id)
        ? { projectId: mr.sourceProjectId ?? project.id, ref: mr.sourceBranch, tag: false, sha: mr.headSha, source: { not: 'merge_request_event' } }
        : null;
    return connection(
      page,
      async ({ skip, take }) => {
        // `CASE source WHEN 'merge_request_event' THEN 0 ELSE 1 END, id DESC`: the merge request's own first.
        const ownCount = await this.db.pipeline.count({ where: own });
        const first = skip < ownCount ? await this.db.pipeline.findMany({ where: own, orderBy: { id: 'desc' }, skip, take }) : [];
        const rest = branch && first.length < take ? await this.db.pipeline.findMany({ where: branch, orderBy: { id: 'desc' }, skip: Math.max(0, skip - ownCount), take: take - first.length }) : [];
        return [...first, ...rest];
      },
      async () => (await this.db.pipeline.count({ where: own })) + (branch ? await this.db.pipeline.count({ where: branch }) : 0),
    );
  }

  private deps(): CreateDeps {
    return {
      db: this.db,
      app: this.base.app,
      config: this.base.app.config,
      repositories: this.repositories,
      protectedBranches: this.protectedBranches,
      publish: this.base.publish,
      readProject: projectIncludes(this.base, this.projects, this.repositories),
      ciVariables: (project, protectedRef) => this.ciVariables?.forJob(project, { protectedRef, environment: null }) ?? Promise.resolve([]),
    };
  }

  /** Retries the failed and canceled jobs (new copies) and re-runs skipped ones; the same pipeline either way. */
  async retry(project: ProjectRow, id: number): Promise<PipelineRow> {
    const pipeline = await this.pipelineFor(project, id, 'update_pipeline');
    const viewer = this.base.access.requireViewer();
    await withPipeline(this.db, pipeline.id, this.base, async (tx) => {
      const jobs = await tx.ciJob.findMany({ where: { pipelineId: pipeline.id, retried: false }, orderBy: { id: 'asc' } });
      const retryable = jobs.filter((job) => job.status === 'failed' || job.status === 'canceled');
      if (retryable.length === 0) return;
      for (const job of retryable) await this.cloneForRetry(tx, job, viewer.id);
      // Jobs skipped because of what failed are processed again (GitLab's `process` event on skipped processables).
      await tx.ciJob.updateMany({ where: { pipelineId: pipeline.id, retried: false, status: { in: ['skipped', 'manual'] }, type: { not: 'generic' } }, data: { status: 'created' } });
    });
    return this.find(project, id);
  }

  /**
   * Cancels every cancelable job, then those of its child pipelines (GitLab cascades to children, not to
   * multi-project downstreams); answers the pipeline whether or not anything could be canceled (GitLab's 200).
   */
  async cancel(project: ProjectRow, id: number): Promise<PipelineRow> {
    const pipeline = await this.pipelineFor(project, id, 'cancel_pipeline');
    await this.cancelTree(project.id, pipeline.id);
    return this.find(project, id);
  }

  /**
   * Cancels the pipeline's cancelable jobs and those of its unfinished child pipelines. `autoCanceledBy`: the newer
   * pipeline that makes them redundant (GitLab's auto_canceled_by_id, on the pipelines and the jobs it cancels).
   */
  private async cancelTree(projectId: number, rootId: number, autoCanceledBy: number | null = null): Promise<void> {
    const byPipeline = autoCanceledBy === null ? {} : { autoCanceledBy: { connect: { id: autoCanceledBy } } };
    // Each pipeline under its own lock, parent first: a lock is never taken while another pipeline's is held.
    for (let level = [rootId], depth = 0; level.length > 0 && depth <= MAX_CHILD_DEPTH; depth++) {
      for (const pipelineId of level) {
        await withPipeline(this.db, pipelineId, this.base, async (tx) => {
          const jobs = await tx.ciJob.findMany({ where: { pipelineId, retried: false, status: { in: [...CANCELABLE_STATUSES] } }, select: { id: true } });
          for (const job of jobs) await this.setJobStatus(tx, { id: pipelineId, projectId }, job.id, 'canceled', { finishedAt: new Date(), tokenDigest: null, ...byPipeline });
          if (autoCanceledBy !== null && jobs.length > 0) await tx.pipeline.update({ where: { id: pipelineId }, data: { autoCanceledById: autoCanceledBy } });
        });
      }
      const children = await this.db.pipeline.findMany({ where: { parentPipelineId: { in: level }, status: { notIn: [...FINISHED_STATUSES] } }, select: { id: true } });
      level = children.map((c) => c.id);
    }
  }

  /**
   * GitLab's Ci::PipelineCreation::CancelRedundantPipelinesService in its default (`conservative`) mode, when the
   * project's auto_cancel_pending_pipelines is `enabled`: a new pipeline cancels the unfinished pipelines of the same
   * ref made in the last day for other commits, each only while none of its jobs that are not `interruptible` has
   * started; their child pipelines go with them.
   */
  private async cancelRedundant(project: ProjectRow, pipeline: PipelineRow): Promise<void> {
    if (project.autoCancelPendingPipelines !== 'enabled' || pipeline.parentPipelineId != null) return;
    const redundant = await this.db.$queryRaw<{ id: number }[]>`
      SELECT p."id" FROM "ci_pipelines" p
      WHERE p."projectId" = ${project.id} AND p."ref" = ${pipeline.ref} AND p."tag" = ${pipeline.tag} AND p."id" < ${pipeline.id}
        AND p."sha" <> ${pipeline.sha} AND p."parentPipelineId" IS NULL AND p."createdAt" > ${new Date(Date.now() - REDUNDANT_PIPELINES_WINDOW_MS)}
        AND p."status" IN (${Prisma.join([...CANCELABLE_STATUSES])})
        AND NOT EXISTS (
          SELECT 1 FROM "ci_builds" j WHERE j."pipelineId" = p."id" AND j."status" IN ('running', 'success', 'failed')
            AND COALESCE(j."options"->>'interruptible', 'false') <> 'true')
      ORDER BY p."id" LIMIT ${REDUNDANT_PIPELINES_BATCH}`;
    for (const { id } of redundant) await this.cancelTree(project.id, id, pipeline.id);
  }

  /** Deletes the pipeline with its jobs, variables, traces and artifacts; its child pipelines stay. Owners only. */
  async destroy(project: ProjectRow, id: number): Promise<PipelineRow> {
    await this.authorized(project, 'destroy_pipeline');
    const pipeline = await this.find(project, id);
    const files = await this.db.ciJobArtifact.findMany({ where: { job: { pipelineId: pipeline.id } }, select: { path: true } });
    await this.db.pipeline.delete({ where: { id: pipeline.id } });
    await this.base.app.artifacts.remove(files.map((f) => f.path));
    await this.base.publish('ci.pipeline.deleted', { pipelineId: pipeline.id, projectId: project.id });
    return pipeline;
  }

  /**
   * `PUT …/metadata`: the pipeline's name, stripped of surrounding blanks, 1 to 255 characters (Ci::PipelineMetadata);
   * GitLab words a refusal `Failed to update pipeline - <errors>` (render_api_error_with_reason!, no status prefix).
   */
  async updateMetadata(project: ProjectRow, id: number, name: string): Promise<PipelineRow> {
    const pipeline = await this.pipelineFor(project, id, 'update_pipeline');
    const stripped = name.trim();
    if (stripped.length === 0) throw badRequest('Failed to update pipeline - Name is too short (minimum is 1 character)');
    if (stripped.length > 255) throw badRequest('Failed to update pipeline - Name is too long (maximum is 255 characters)');
    return this.db.pipeline.update({ where: { id: pipeline.id }, data: { name: stripped } });
  }

  // ---- Jobs ----

  /** A pipeline's jobs (latest tries unless `includeRetried`), by ID. */
  async pipelineJobs(project: ProjectRow, pipelineId: number, filters: { scope?: readonly string[] | null; includeRetried?: boolean | null; type?: 'build' | 'bridge' }, page: PageArgs) {
    await this.authorized(project, 'read_build');
    const pipeline = await this.find(project, pipelineId);
    const scope = checkJobScopes(filters.scope);
    const where: Prisma.CiJobWhereInput = {
      pipelineId: pipeline.id,
      type: filters.type ?? 'build',
      ...(filters.includeRetried ? {} : { retried: false }),
      ...(scope ? { status: { in: scope } } : {}),
    };
    return connection(
      page,
      ({ skip, take }) => this.db.ciJob.findMany({ where, orderBy: { id: 'asc' }, skip, take }),
      () => this.db.ciJob.count({ where }),
    );
  }

  /** The project's jobs, newest first (GitLab's `GET /projects/:id/jobs`: retried ones too unless asked otherwise). */
  async projectJobs(project: ProjectRow, filters: { scope?: readonly string[] | null; includeRetried?: boolean | null }, page: PageArgs) {
    await this.authorized(project, 'read_build');
    const scope = checkJobScopes(filters.scope);
    const where: Prisma.CiJobWhereInput = {
      projectId: project.id,
      type: 'build',
      ...(filters.includeRetried === false ? { retried: false } : {}),
      ...(scope ? { status: { in: scope } } : {}),
    };
    return connection(
      page,
      ({ skip, take }) => this.db.ciJob.findMany({ where, orderBy: { id: 'desc' }, skip, take }),
      () => this.db.ciJob.count({ where }),
    );
  }

  async job(project: ProjectRow, jobId: number): Promise<JobRow> {
    await this.authorized(project, 'read_build');
    return this.findJob(project, jobId);
  }

  private async findJob(project: ProjectRow, jobId: number): Promise<JobRow> {
    const job = await this.db.ciJob.findFirst({ where: { id: jobId, projectId: project.id, type: { not: 'generic' } } });
    if (!job) throw notFound('Job');
    return job;
  }

  /** Starts a manual (or delayed) job now, as the viewer. */
  async play(project: ProjectRow, jobId: number, variables: readonly PipelineVariableInput[] = []): Promise<JobRow> {
    const job = await this.jobFor(project, jobId, 'play_job');
    const viewer = this.base.access.requireViewer();
    if (job.status !== 'manual' && job.status !== 'scheduled') throw badRequest('400 Bad request - Unplayable Job');
    const pipeline = await this.db.pipeline.findUniqueOrThrow({ where: { id: job.pipelineId } });
    await withPipeline(this.db, pipeline.id, this.base, async (tx) => {
      await setJobVariables(tx, job.id, variables);
      await this.setJobStatus(tx, pipeline, job.id, 'pending', { queuedAt: new Date(), user: { connect: { id: viewer.id } } });
      if (job.type === 'bridge') await queueDownstream(this.base, tx, job.id);
    });
    return this.findJob(project, jobId);
  }

  /**
   * Ci::BuildUnscheduleService: a delayed job waits to be played by hand, its `scheduled_at` cleared (Ci::Build's
   * `unschedule` event); any other job is left as it is, and GitLab's mutation answers it all the same.
   */
  async unschedule(project: ProjectRow, jobId: number): Promise<JobRow> {
    await this.authorized(project, 'update_build');
    const job = await this.findJob(project, jobId);
    // Ci::BuildPolicy prevents update_build on a protected ref the viewer may not update.
    await this.base.access.authorize('update_ref', await this.protectedBranches.refSubject(project, job.ref, job.tag));
    if (job.status === 'scheduled') {
      const pipeline = await this.db.pipeline.findUniqueOrThrow({ where: { id: job.pipelineId } });
      await withPipeline(this.db, pipeline.id, this.base, async (tx) => {
        // Only while still scheduled: the delayed-job check may have played it meanwhile.
        const current = await tx.ciJob.findUnique({ where: { id: job.id }, select: { status: true } });
        if (current?.status === 'scheduled') await this.setJobStatus(tx, pipeline, job.id, 'manual', { scheduledAt: null });
      });
    }
    return this.findJob(project, jobId);
  }

  /** Cancels the job when it can be canceled; the job either way (GitLab answers 201). */
  async cancelJob(project: ProjectRow, jobId: number): Promise<JobRow> {
    const job = await this.jobFor(project, jobId, 'cancel_build');
    if ((CANCELABLE_STATUSES as readonly string[]).includes(job.status)) {
      const pipeline = await this.db.pipeline.findUniqueOrThrow({ where: { id: job.pipelineId } });
      await withPipeline(this.db, pipeline.id, this.base, (tx) => this.setJobStatus(tx, pipeline, job.id, 'canceled', { finishedAt: new Date(), tokenDigest: null }));
    }
    return this.findJob(project, jobId);
  }

  /**
   * A new try of a finished job; `403 Forbidden - Job is not retryable` otherwise. A manual job's new try takes
   * `variables` in place of its old ones when any are given (GitLab's Ci::Build#clone); other jobs keep theirs.
   */
  async retryJob(project: ProjectRow, jobId: number, variables: readonly PipelineVariableInput[] = []): Promise<JobRow> {
    const job = await this.jobFor(project, jobId, 'retry_job');
    const viewer = this.base.access.requireViewer();
    if (job.retried || !['success', 'failed', 'canceled'].includes(job.status) || job.type !== 'build') throw stateForbids('Job is not retryable');
    const copy = await withPipeline(this.db, job.pipelineId, this.base, (tx) => this.cloneForRetry(tx, job, viewer.id, job.when === 'manual' ? variables : []));
    return this.findJob(project, copy.id);
  }

  /**
   * Fails a job the server gives up on, with GitLab's failure reason (Ci::Build#drop), if it has not completed since
   * it was found with `status`: background work (forward deployment), no viewer's ability asked.
   */
  async dropJob(found: { id: number; pipelineId: number; status: string }, reason: string): Promise<void> {
    const pipeline = await this.db.pipeline.findUnique({ where: { id: found.pipelineId }, select: { id: true, projectId: true } });
    if (!pipeline) return;
    await withPipeline(this.db, pipeline.id, this.base, async (tx) => {
      const job = await tx.ciJob.findUnique({ where: { id: found.id }, select: { status: true } });
      if (job?.status !== found.status || isCompleted(job.status as CiStatus)) return;
      await this.setJobStatus(tx, pipeline, found.id, 'failed', { failureReason: reason, finishedAt: new Date(), tokenDigest: null });
    });
  }

  /** Erases a finished job's trace and artifacts. */
  async erase(project: ProjectRow, jobId: number): Promise<JobRow> {
    const job = await this.jobFor(project, jobId, 'erase_build');
    // GitLab's `forbidden!('Job is not erasable!')`.
    if (!isCompleted(job.status) || job.erasedAt) throw stateForbids('Job is not erasable!');
    const files = await this.db.ciJobArtifact.findMany({ where: { jobId: job.id }, select: { path: true } });
    await this.db.$transaction([
      this.db.ciTraceChunk.deleteMany({ where: { jobId: job.id } }),
      this.db.ciJobArtifact.deleteMany({ where: { jobId: job.id } }),
      this.db.ciJob.update({ where: { id: job.id }, data: { erasedAt: new Date(), traceSize: 0, traceChecksum: null } }),
    ]);
    await this.base.app.artifacts.remove(files.map((f) => f.path));
    return this.findJob(project, jobId);
  }

  /** The job's log as the runner sent it so far. */
  async trace(project: ProjectRow, jobId: number): Promise<Buffer> {
    const job = await this.job(project, jobId);
    const chunks = await this.db.ciTraceChunk.findMany({ where: { jobId: job.id }, orderBy: { offset: 'asc' }, select: { data: true } });
    return Buffer.concat(chunks.map((c) => Buffer.from(c.data)));
  }

  /**
   * GraphQL's `CiJob.trace`: the job's log, null when it has none or the viewer may not read it (GitLab's
   * read_build_trace: a job in debug mode shows its log to Developers only).
   */
  async readableTrace(project: ProjectRow, job: JobRow): Promise<Buffer | null> {
    if (!(await this.base.access.can('read_build_trace', { project: projectSubject(project), debugMode: await this.debugMode(job) }))) return null;
    const log = await this.trace(project, job.id);
    return log.length ? log : null;
  }

  /**
   * The latest jobs of a pipeline, read once per request and pipeline (a page of jobs asking each for its stage, or
   * its previous stage's jobs): for reads only, never after a change in the same request.
   */
  stageJobs(pipelineId: number): Promise<JobRow[]> {
    return this.base.loaders.pipelines.latestJobs.load(pipelineId);
  }

  /** The ID of the pipeline's stage at `position` (GitLab's Ci::Stage, made with the pipeline). */
  async stageId(pipelineId: number, position: number): Promise<number> {
    const stage = (await this.base.loaders.pipelines.stages.load(pipelineId)).find((s) => s.position === position);
    if (!stage) throw recordNotFound();
    return stage.id;
  }

  /** GraphQL's `Query.ciPipelineStage`: a stage by ID, when the viewer may read its project's jobs (GitLab's read_build); else null. */
  async stageById(id: number): Promise<{ pipeline: PipelineRow; project: ProjectRow; position: number } | null> {
    const stage = await this.db.ciStage.findUnique({ where: { id } });
    if (!stage) return null;
    const pipeline = await this.locate(stage.pipelineId);
    const project = await this.projects.find({ id: pipeline.projectId });
    if (!project || !(await this.base.access.can('read_build', project))) return null;
    return { pipeline, project, position: stage.position };
  }

  /**
   * GraphQL's `Query.jobs` (GitLab's Ci::JobsFinder without a project): every build of the instance, newest first,
   * for administrators; none for anyone else.
   */
  async allJobs(filters: { scope?: readonly string[] | null }, page: PageArgs) {
    const scope = checkJobScopes(filters.scope);
    const where: Prisma.CiJobWhereInput = this.base.access.allowed('admin_all_resources') ? { type: 'build', ...(scope ? { status: { in: scope } } : {}) } : { id: -1 };
    return connection(
      page,
      ({ skip, take }) => this.db.ciJob.findMany({ where, orderBy: { id: 'desc' }, skip, take }),
      () => this.db.ciJob.count({ where }),
    );
  }

  /**
   * GraphQL's `CiJob.manualVariables`: the variables a manual or delayed job was played (or retried) with, when the
   * viewer may read them (Ci::BuildPolicy's read_manual_variables); null otherwise, none for other jobs.
   */
  async manualVariables(project: ProjectRow, job: JobRow) {
    if (!(await this.base.access.can('read_manual_variables', project))) return null;
    if (job.type === 'generic' || !['manual', 'delayed'].includes(job.when)) return [];
    return this.base.loaders.pipelines.jobVariables.load(job.id);
  }

  /**
   * GraphQL's `Project.ciConfigVariables(ref:)` (GitLab's ConfigVariablesResolver, `create_pipeline`; null for
   * others): the root variables of the configuration at the ref's commit, none when it has no valid one.
   */
  async configVariables(project: ProjectRow, ref: string): Promise<ConfigVariable[] | null> {
    if (!this.ciLint || !(await this.base.access.can('create_pipeline', project))) return null;
    const commit = project.emptyRepo ? null : await this.repositories.reads.commit(project, ref);
    if (!commit) return [];
    const lint = await this.ciLint.lint(project, { contentRef: commit.sha });
    return lint.valid && lint.mergedYaml ? rootVariables(lint.mergedYaml) : [];
  }

  /** GitLab's `GET /job`: the job whose CI job token authenticated the request. */
  async currentJob(): Promise<JobRow> {
    const job = this.base.viewer?.job;
    if (!job) throw unauthenticated();
    return this.locateJob(job.id);
  }

  /** A pipeline by ID, whoever may read it (callers check through `get`); `404 Not found` when there is none. */
  async locate(id: number): Promise<PipelineRow> {
    const pipeline = await this.base.loaders.pipelines.byId.load(id);
    if (!pipeline) throw recordNotFound();
    return pipeline;
  }

  /** A pipeline's builds (the latest try of each), by stage and ID, whoever may read it (callers check through `get`). */
  async jobsOf(pipelineId: number): Promise<JobRow[]> {
    return this.db.ciJob.findMany({ where: { pipelineId, retried: false, type: 'build' }, orderBy: [{ stageIdx: 'asc' }, { id: 'asc' }], take: 1000 });
  }

  /** The pipeline as it is now, not as this request first read it (live updates outlive a request's loaders). */
  async current(id: number): Promise<PipelineRow> {
    this.base.loaders.pipelines.byId.clear(id);
    return this.locate(id);
  }

  /** A job by ID, whoever may read it (callers check through `job`); `404 Job Not Found` when there is none. */
  async locateJob(id: number): Promise<JobRow> {
    const job = await this.db.ciJob.findUnique({ where: { id } });
    if (!job || job.type === 'generic') throw notFound('Job');
    return job;
  }

  /** Live statuses of one pipeline (or, without `pipelineId`, of every pipeline of the project). */
  watchPipelines(project: ProjectRow, pipelineId: number | null, field: string): Promise<AsyncGenerator<Record<string, PipelineRow>>> {
    return this.watch<PipelineUpdatedMessage, PipelineRow>(project, PIPELINE_UPDATED, (m) => pipelineId === null || m.pipelineId === pipelineId, pipelineOfMessage, field);
  }

  /** Live statuses of one job. */
  watchJob(project: ProjectRow, jobId: number, field: string): Promise<AsyncGenerator<Record<string, JobRow>>> {
    return this.watch<JobUpdatedMessage, JobRow>(project, JOB_UPDATED, (m) => m.jobId === jobId, jobOfMessage, field);
  }

  /**
   * Live updates of one topic for a project's pipelines or jobs: the viewer must read the project's pipelines to
   * subscribe, and each message is checked again against their memberships and the project's visibility and place
   * as the App remembers them (dropped when they change), so a subscriber whose access is removed, or who may no
   * longer read a project made private, moved or deleted, stops receiving. The row a message names is loaded
   * once per message for every subscriber of this process, and shown with the status the message announced.
   */
  private async watch<M extends { projectId: number; status: string }, R extends object>(
    project: ProjectRow,
    topic: string,
    match: (message: M) => boolean,
    load: (message: M, db: PrismaClient) => Promise<R | null>,
    field: string,
  ): Promise<AsyncGenerator<Record<string, R>>> {
    await this.authorized(project, 'read_pipeline');
    const { app, db, viewer } = this.base;
    const actor = liveActor(app.memberships, viewer);
    // What a subscription keeps for its whole life: the few fields its checks read, not the rows.
    const subject = projectSubject(project);
    const messages = app.bus.iterate<M>(topic, (m) => m.projectId === subject.id && match(m));
    return (async function* () {
      try {
        for await (const message of messages) {
          const current = await app.projectSubjects.of(subject.id);
          if (!current || !can(await actor.get(), 'read_pipeline', current)) return;
          const row = await load(message, db).catch(() => null);
          if (row === null) continue;
          await app.bus.turn();
          yield { [field]: shownWithStatus(message, row) as R };
        }
      } finally {
        await messages.return?.();
      }
    })();
  }

  /**
   * A job's log as it grows (jobTraceUpdated): each stored chunk in order, cut into updates of at most
   * MAX_TRACE_UPDATE_BYTES, then one last update with `complete` when the job finished (at once when it already
   * has). Only for those who may read the job's log (GitLab's read_build_trace), checked again on every message.
   */
  async watchTrace(project: ProjectRow, jobId: number): Promise<AsyncGenerator<{ jobTraceUpdated: JobTraceUpdate }>> {
    const found = await this.job(project, jobId);
    // What the subscription keeps for its whole life: the few fields its checks read, not the rows.
    const subject = { project: projectSubject(project), debugMode: await this.debugMode(found) };
    const job = { id: found.id };
    await this.base.access.authorize('read_build_trace', subject);
    const { app, db, viewer } = this.base;
    const actor = liveActor(app.memberships, viewer);
    type Message = JobTraceAppendedMessage | JobUpdatedMessage;
    const isChunk = (m: Message): m is JobTraceAppendedMessage => 'chunkId' in m;
    // By job only, as the pipeline watchers filter: access is checked in the loop, which ends the subscription on the
    // first message its subscriber may no longer read (a filter checking access would drop it and leave them waiting).
    const messages = app.bus.iterate<Message>([JOB_TRACE_APPENDED, JOB_UPDATED], (m) => m.jobId === job.id && (isChunk(m) || isCompleted(m.status)));
    // Subscribed before looking: a job that finishes meanwhile is either seen finished here or heard of below.
    const current = await this.locateJob(job.id);
    const finished = isCompleted(current.status) ? current : null;
    return (async function* () {
      try {
        if (finished) {
          yield { jobTraceUpdated: await final(finished, { jobId: job.id }) };
          return;
        }
        for await (const message of messages) {
          const current = await app.projectSubjects.of(subject.project.id);
          if (!current || !can(await actor.get(), 'read_build_trace', { ...subject, project: current })) return;
          if (isChunk(message)) {
            const [pieces, row] = await Promise.all([tracePiecesOfMessage(message, db), jobOfMessage(message, db)]);
            if (!pieces || !row) continue;
            for (const piece of pieces) {
              await app.bus.turn();
              // Logs grow only while the job runs; the row may already show what came after.
              yield { jobTraceUpdated: { ...piece, complete: false, job: runningJob(message, row) } };
            }
            continue;
          }
          const row = await jobOfMessage(message, db);
          if (!row) return;
          await app.bus.turn();
          yield { jobTraceUpdated: await final({ ...row, status: message.status }, message) };
          return;
        }
      } finally {
        await messages.return?.();
      }
    })();

    async function final(row: JobRow, message: { jobId: number }): Promise<JobTraceUpdate> {
      const size = await traceSizeOfMessage(message, db);
      return { job: row, offset: size, content: '', size, complete: true };
    }
  }

  /** GitLab's debug_mode?: CI_DEBUG_TRACE or CI_DEBUG_SERVICES set to true for the job (its YAML, its pipeline's or its play's variables). */
  private async debugMode(job: JobRow): Promise<boolean> {
    const variables = [
      ...((job.yamlVariables ?? []) as { key: string; value: string }[]),
      ...(await this.db.ciJobVariable.findMany({ where: { jobId: job.id, key: { in: [...DEBUG_VARIABLES] } }, select: { key: true, value: true } })),
      ...(await this.db.pipelineVariable.findMany({ where: { pipelineId: job.pipelineId, key: { in: [...DEBUG_VARIABLES] } }, select: { key: true, value: true } })),
    ];
    return variables.some((v) => (DEBUG_VARIABLES as readonly string[]).includes(v.key) && String(v.value).toLowerCase() === 'true');
  }

  private readonly commits = new Map<string, Promise<unknown>>();

  /** A job's commit, once per commit in a request; null when the viewer may not read the code. */
  commitOf(project: ProjectRow, sha: string): Promise<unknown> {
    const key = `${project.id}:${sha}`;
    let found = this.commits.get(key);
    if (!found) {
      found = this.repositories.reads.commit(project, sha).catch(() => null);
      this.commits.set(key, found);
    }
    return found;
  }

  /** The pipeline a bridge created, when the viewer may read it (a multi-project one may be in a hidden project). */
  async downstreamOf(job: JobRow): Promise<PipelineRow | null> {
    if (job.type !== 'bridge') return null;
    const pipeline = await this.base.loaders.pipelines.downstreamByBridge.load(job.id);
    return pipeline && (await this.readable(pipeline)) ? pipeline : null;
  }

  /** The pipeline whose bridge created this one, when the viewer may read it. */
  async upstreamOf(pipeline: PipelineRow): Promise<PipelineRow | null> {
    if (pipeline.sourceJobId === null) return null;
    const bridge = await this.db.ciJob.findUnique({ where: { id: pipeline.sourceJobId }, select: { pipelineId: true } });
    const upstream = bridge ? await this.base.loaders.pipelines.byId.load(bridge.pipelineId) : null;
    return upstream && (await this.readable(upstream)) ? upstream : null;
  }

  /** The pipelines the pipeline's bridges created (latest tries), those the viewer may read, oldest first. */
  async downstreamsOf(pipeline: PipelineRow): Promise<PipelineRow[]> {
    const rows = await this.db.pipeline.findMany({ where: { sourceJob: { pipelineId: pipeline.id, retried: false } }, orderBy: { id: 'asc' }, take: 100 });
    const readable = await Promise.all(rows.map((row) => this.readable(row)));
    return rows.filter((_, i) => readable[i]);
  }

  private async readable(pipeline: PipelineRow): Promise<boolean> {
    const project = (await this.base.loaders.projects.byId.load(pipeline.projectId)) as ProjectRow | null;
    return !!project && (await this.base.access.can('read_pipeline', project));
  }

  /** A job's uploaded files (batched across the jobs of a page). */
  artifacts(jobId: number) {
    return this.base.loaders.pipelines.artifactsByJob.load(jobId);
  }

  /** GraphQL's `Pipeline.jobArtifacts`: the files of its latest jobs the viewer may download (read_job_artifacts). */
  async pipelineArtifacts(pipeline: PipelineRow, project: ProjectRow): Promise<ArtifactSummary[]> {
    const rows = await this.base.loaders.pipelines.artifactsByPipeline.load(pipeline.id);
    const subject = projectSubject(project);
    const allowed = new Map<string, boolean>();
    for (const access of new Set(rows.map((r) => r.access))) allowed.set(access, await this.base.access.can('read_job_artifacts', { project: subject, access: access as ArtifactsAccess }));
    return rows.filter((r) => allowed.get(r.access));
  }

  /** The runner a job ran on, as jobs show it (batched). */
  runner(runnerId: number) {
    return this.base.loaders.pipelines.runnerById.load(runnerId);
  }

  // ---- Shared transitions ----

  /** Sets one job's status (and more), publishing the change on commit of `tx`. */
  async setJobStatus(tx: Prisma.TransactionClient, pipeline: { id: number; projectId: number }, jobId: number, status: string, data: Prisma.CiJobUpdateInput = {}): Promise<void> {
    const job = await tx.ciJob.update({ where: { id: jobId }, data: { ...data, status } });
    await followJob(tx, this.base, job, status);
    await this.base.publish(JOB_UPDATED, { jobId, pipelineId: pipeline.id, projectId: pipeline.projectId, status } satisfies JobUpdatedMessage, tx);
    await enqueueHookEvent(this.base.app.jobs, { trigger: 'job_hooks', projectId: pipeline.projectId, branch: null, data: null, job: { jobId: jobId, status: status } }, tx);
    // A job a runner ran ends here (its runner's update, a cancel, the stuck-job check): its minutes are counted.
    await enqueueBuildMinutes(this.base.app.jobs, job, tx);
  }

  /** GitLab's Ci::RetryJobService: a copy of the job in `created`, the old one marked retried (also the runners module's automatic retries). */
  async cloneForRetry(tx: Prisma.TransactionClient, job: JobRow, userId: number | null, variables: readonly PipelineVariableInput[] = []): Promise<JobRow> {
    await tx.ciJob.update({ where: { id: job.id }, data: { retried: true } });
    const clone = await tx.ciJob.create({
      data: {
        pipelineId: job.pipelineId,
        projectId: job.projectId,
        type: job.type,
        name: job.name,
        stage: job.stage,
        stageIdx: job.stageIdx,
        when: job.when,
        allowFailure: job.allowFailure,
        schedulingType: job.schedulingType,
        options: job.options ?? {},
        yamlVariables: job.yamlVariables ?? [],
        tagList: job.tagList,
        ref: job.ref,
        tag: job.tag,
        sha: job.sha,
        userId,
        timeout: job.timeout,
        resourceGroupId: job.resourceGroupId,
      },
    });
    await setJobVariables(tx, clone.id, variables, job.id);
    await deploymentForRetry(tx, job.id, clone);
    return clone;
  }

  /** Delayed jobs whose time came: each becomes pending (GitLab's Ci::BuildScheduleWorker). */
  async startDueJobs(now: Date): Promise<number> {
    const due = await this.db.ciJob.findMany({ where: { status: 'scheduled', scheduledAt: { lte: now } }, select: { id: true, pipelineId: true, projectId: true }, take: 100 });
    for (const job of due) {
      await withPipeline(this.db, job.pipelineId, this.base, async (tx) => {
        const current = await tx.ciJob.findUnique({ where: { id: job.id }, select: { status: true } });
        if (current?.status !== 'scheduled') return;
        await this.setJobStatus(tx, { id: job.pipelineId, projectId: job.projectId }, job.id, 'pending', { queuedAt: now });
      });
    }
    return due.length;
  }

  /** Processes a pipeline now (after a change made elsewhere, or a delayed job falling due). */
  process(pipelineId: number): Promise<void> {
    return withPipeline(this.db, pipelineId, this.base, async () => undefined);
  }
}
