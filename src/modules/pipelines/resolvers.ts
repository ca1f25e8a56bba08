/** GraphQL resolvers of pipelines and jobs; the REST routes run through them too. */
import { GraphQLError, GraphQLScalarType, valueFromASTUntyped } from 'graphql';
import type { Context } from '../../context.js';
import { listConnection, wholeConnection, type PageArgs } from '../../graphql/connection.js';
import type { CommitRow } from '../repositories/reads.js';
import { globalId, iidOf, parseId, parseRef } from '../../graphql/ids.js';
import { invalidArgument, recordNotFound } from '../../errors.js';
import { ansiToHtml, lastLines } from './ansi2html.js';
import { runnerOnline, runnerStatus } from '../../ci/runner-status.js';
import { idFields, lowerEnum, webUrl } from '../../graphql/resolvers.js';
import type { ArtifactSummary } from './loaders.js';
import type { ProjectRow } from '../projects/service.js';
import type { MergeRequestRow } from '../merge_requests/service.js';
import type { JobRow, PipelineFilters, PipelineRow, PipelineVariableInput } from './service.js';
import type { TriggerRow } from './triggers.js';
import type { ResourceGroupRow } from './resource_groups.js';
import type { CommitStatusInput } from './statuses.js';
import type { StoredTestCase, TestSuite } from './test-reports.js';
import { ARTIFACT_TYPES } from '../../ci/artifact-types.js';
import { inputsFromList } from './inputs.js';
import { DEFAULT_CI_CONFIG_PATH, mergeRequestEventType } from './predefined.js';
import { ACTIVE_STATUSES, CANCELABLE_STATUSES, CI_STATUSES, COMPLETED_STATUSES, compositeStatus, failureMessage, jobDetailedStatus, jobStatusAction, pipelineDetailedStatus, type CiStatus, type DetailedStatus } from './status.js';

const project = (ctx: Context, projectPath: string) => ctx.services.projects.get(parseRef(projectPath, 'Project', 'projectPath'));
const projectOf = async (ctx: Context, row: { projectId: number }): Promise<ProjectRow> => (await ctx.loaders.projects.byId.load(row.projectId)) as ProjectRow;

/**
 * A pipeline by global or numeric ID, with its project, as the viewer may see it (404 otherwise). With
 * `projectPath` (REST paths name the project), the pipeline must belong to that project.
 */
async function pipelineById(ctx: Context, id: string, projectPath?: string | null): Promise<{ pipeline: PipelineRow; project: ProjectRow }> {
  const pipelineId = parseId(id, 'Ci::Pipeline', 'id');
  if (projectPath != null) {
    const named = await project(ctx, projectPath);
    return { pipeline: await ctx.services.pipelines.get(named, pipelineId), project: named };
  }
  const row = await ctx.services.pipelines.locate(pipelineId);
  // A pipeline of a project the viewer cannot see is answered as one that does not exist.
  const p = await ctx.services.projects.find({ id: row.projectId });
  if (!p) throw recordNotFound();
  return { pipeline: await ctx.services.pipelines.get(p, pipelineId), project: p };
}

export async function jobById(ctx: Context, id: string, projectPath?: string | null): Promise<{ job: JobRow; project: ProjectRow }> {
  const jobId = parseId(id, 'Ci::Build', 'id');
  if (projectPath != null) {
    const named = await project(ctx, projectPath);
    return { job: await ctx.services.pipelines.job(named, jobId), project: named };
  }
  const row = await ctx.services.pipelines.locateJob(jobId);
  const p = await ctx.services.projects.find({ id: row.projectId });
  if (!p) throw recordNotFound();
  return { job: await ctx.services.pipelines.job(p, jobId), project: p };
}


/** A pipeline's stages from its latest jobs (in stage order), each with its composite status. */
function stagesOf(jobs: readonly JobRow[], pipelinePath: string) {
  const byStage = new Map<number, JobRow[]>();
  for (const job of jobs) byStage.set(job.stageIdx, [...(byStage.get(job.stageIdx) ?? []), job]);
  return [...byStage.entries()]
    .sort(([a], [b]) => a - b)
    .map(([position, stageJobs]) => {
      const status = compositeStatus(stageJobs) ?? 'skipped';
      return {
        pipelineId: stageJobs[0].pipelineId,
        name: stageJobs[0].stage,
        position,
        status,
        detailedStatus: pipelineDetailedStatus(status, false, pipelinePath, `${stageJobs[0].pipelineId}-${position}`),
        jobs: wholeConnection(stageJobs),
        groups: groupsOf(stageJobs, `${stageJobs[0].pipelineId}-${position}`, pipelinePath),
      };
    });
}

/**
 * Ci::Processable#group_name: a job's name without its `1/3` parallel index or `[matrix, values]` suffix, so the
 * instances of a parallel job make one group.
 */
function groupName(name: string): string {
  return name.replace(/([\b\s:]+((\[.*\])|(\d+[\s:/\\]+\d+))){1,3}\s*$/, '').trim();
}

/** A stage's jobs by group (GitLab's Ci::Group), in the order each group first appears; a single job's status is its own. */
function groupsOf(jobs: readonly JobRow[], stageKey: string, pipelinePath: string) {
  const byName = new Map<string, JobRow[]>();
  for (const job of jobs) byName.set(groupName(job.name), [...(byName.get(groupName(job.name)) ?? []), job]);
  const nodes = [...byName.entries()].map(([name, groupJobs]) => ({
    id: `${stageKey}-${name}`,
    name,
    size: groupJobs.length,
    detailedStatus:
      groupJobs.length === 1
        ? jobDetailedStatus(groupJobs[0], `${pipelinePath.replace(/\/-\/pipelines\/\d+$/, '')}/-/jobs/${groupJobs[0].id}`)
        : pipelineDetailedStatus(compositeStatus(groupJobs) ?? 'skipped', false, null, `${stageKey}-${name}`),
    jobs: wholeConnection(groupJobs),
  }));
  return wholeConnection(nodes);
}

/** A job's `needs:` as GitLab's CiBuildNeed objects (ID: the job's and the need's position; GitLab numbers its ci_build_needs rows). */
function needsOf(job: JobRow): { id: string; name: string }[] {
  const needs = (job.options as { needs?: { name: string }[] } | null)?.needs ?? [];
  return needs.map((need, i) => ({ id: `${job.id}-${i + 1}`, name: need.name }));
}
const statuses = (list: readonly string[] | null | undefined) => list?.map((s) => s.toLowerCase()) ?? null;
const seconds = (from: Date | null, to: Date | null) => (from && to ? Math.max(0, (to.getTime() - from.getTime()) / 1000) : null);

type PipelineArgs = Omit<PipelineFilters, 'status' | 'scope'> & { status?: string | null; scope?: string | null } & PageArgs;

/** GitLab's Types::Ci::Inputs::ValueInputType: a string, array, number or boolean; a hash is refused. */
const CiInputsValueInputType = new GraphQLScalarType({
  name: 'CiInputsValueInputType',
  description: 'Value for a CI input. Can be a string, array, number, or boolean.',
  serialize: (value) => value,
  parseValue: (value) => {
    if (value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' || Array.isArray(value)) return value;
    throw new GraphQLError(`Cannot coerce ${JSON.stringify(value)} to a CI input value`);
  },
  parseLiteral: (ast, variables) => {
    const value: unknown = valueFromASTUntyped(ast, variables);
    if (value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' || Array.isArray(value)) return value;
    throw new GraphQLError('Cannot coerce a hash to a CI input value');
  },
});

export const pipelineResolvers = {
  CiInputsValueInputType,
  PipelineStatusEnum: lowerEnum(CI_STATUSES),
  CiJobStatus: lowerEnum(CI_STATUSES),
  JobArtifactFileType: lowerEnum(ARTIFACT_TYPES),
  PipelineScopeEnum: lowerEnum(['running', 'pending', 'finished', 'branches', 'tags']),
  PipelineMergeRequestEventType: lowerEnum(['merged_result', 'detached', 'merge_train']),
  Query: {
    currentJob: (_: unknown, _a: unknown, ctx: Context) => ctx.services.pipelines.currentJob(),
    ciPipelineStage: async (_: unknown, args: { id: number }, ctx: Context) => {
      const found = await ctx.services.pipelines.stageById(args.id);
      if (!found) return null;
      const stages = stagesOf(await ctx.services.pipelines.stageJobs(found.pipeline.id), `/${found.project.fullPath}/-/pipelines/${found.pipeline.id}`);
      return stages.find((stage) => stage.position === found.position) ?? null;
    },
    jobs: (_: unknown, args: { statuses?: string[] | null } & PageArgs, ctx: Context) => ctx.services.pipelines.allJobs({ scope: statuses(args.statuses) }, args),
  },
  CiStage: {
    id: async (s: { pipelineId: number; position: number }, _a: unknown, ctx: Context) => globalId('Ci::Stage', await ctx.services.pipelines.stageId(s.pipelineId, s.position)),
  },
  CiManualVariable: {
    id: (v: { id: number }) => globalId('Ci::JobVariable', v.id),
  },
  Project: {
    pipelines: (p: ProjectRow, args: PipelineArgs, ctx: Context) =>
      ctx.services.pipelines.list(p, { ...args, scope: args.scope as PipelineFilters['scope'], sort: args.sort ? (args.sort.toLowerCase() as 'asc' | 'desc') : null }, args),
    pipeline: async (p: ProjectRow, args: { iid?: string | null; id?: string | null }, ctx: Context) => {
      if (args.id != null) return ctx.services.pipelines.get(p, parseId(args.id, 'Ci::Pipeline', 'id'));
      if (args.iid != null) return ctx.services.pipelines.byIid(p, parseId(args.iid, 'Ci::Pipeline', 'iid'));
      return null;
    },
    latestPipeline: (p: ProjectRow, args: { ref?: string | null }, ctx: Context) => ctx.services.pipelines.latest(p, args.ref),
    pipelineCounts: (p: ProjectRow, args: { ref?: string | null; sha?: string | null; source?: string | null }, ctx: Context) => ctx.services.pipelines.counts(p, args),
    ciConfigPathOrDefault: (p: ProjectRow) => p.ciConfigPath || DEFAULT_CI_CONFIG_PATH,
    ciConfigVariables: (p: ProjectRow, args: { ref: string }, ctx: Context) => ctx.services.pipelines.configVariables(p, args.ref),
    jobs: (p: ProjectRow, args: { statuses?: string[] | null; includeRetried?: boolean | null } & PageArgs, ctx: Context) =>
      ctx.services.pipelines.projectJobs(p, { scope: statuses(args.statuses), includeRetried: args.includeRetried }, args),
    job: (p: ProjectRow, args: { id: string }, ctx: Context) => ctx.services.pipelines.job(p, parseId(args.id, 'Ci::Build', 'id')),
    commitStatuses: (p: ProjectRow, args: { sha: string; ref?: string | null; stage?: string | null; name?: string | null; pipelineId?: number | null; all?: boolean | null; orderBy?: string | null; sort?: string | null } & PageArgs, ctx: Context) =>
      ctx.services.pipelines.statuses.list(p, args.sha, args, args),
    pipelineTriggers: (p: ProjectRow, args: PageArgs, ctx: Context) => ctx.services.pipelines.triggers.list(p, args),
    ciResourceGroups: (p: ProjectRow, args: PageArgs, ctx: Context) => ctx.services.pipelines.resourceGroups.list(p, args),
    ciResourceGroup: (p: ProjectRow, args: { key: string }, ctx: Context) => ctx.services.pipelines.resourceGroups.get(p, args.key),
    pipelineTrigger: (p: ProjectRow, args: { id: string }, ctx: Context) => ctx.services.pipelines.triggers.get(p, parseId(args.id, 'Ci::Trigger', 'id')),
    pipelineJobs: (p: ProjectRow, args: { pipelineId: string; statuses?: string[] | null; includeRetried?: boolean | null; type?: string | null } & PageArgs, ctx: Context) =>
      ctx.services.pipelines.pipelineJobs(
        p,
        parseId(args.pipelineId, 'Ci::Pipeline', 'pipelineId'),
        { scope: statuses(args.statuses), includeRetried: args.includeRetried, type: args.type === 'bridge' ? 'bridge' : 'build' },
        args,
      ),
  },
  Pipeline: {
    ...idFields('Ci::Pipeline'),
    iid: (p: PipelineRow) => String(p.iid),
    databaseIid: (p: PipelineRow) => p.iid,
    mergeRequestEventType: (p: PipelineRow) => mergeRequestEventType(p),
    archived: () => false,
    jobArtifacts: async (p: PipelineRow, _a: unknown, ctx: Context) => ctx.services.pipelines.pipelineArtifacts(p, await projectOf(ctx, p)),
    child: (p: PipelineRow) => p.parentPipelineId !== null,
    upstream: (p: PipelineRow, _a: unknown, ctx: Context) => ctx.services.pipelines.upstreamOf(p),
    downstream: async (p: PipelineRow, _a: unknown, ctx: Context) => {
      const nodes = await ctx.services.pipelines.downstreamsOf(p);
      return wholeConnection(nodes);
    },
    yamlErrors: (p: PipelineRow) => p.yamlErrors !== null,
    yamlErrorMessages: (p: PipelineRow) => p.yamlErrors,
    user: (p: PipelineRow, _a: unknown, ctx: Context) => (p.userId === null ? null : ctx.loaders.users.byId.load(p.userId)),
    // Ci::Pipeline#queued_duration: whole seconds from creation to start, null before it started or when under one.
    queuedDuration: (p: PipelineRow) => Math.trunc(seconds(p.createdAt, p.startedAt) ?? 0) || null,
    coverage: (p: PipelineRow, _a: unknown, ctx: Context) => ctx.services.pipelines.coverage(p),
    warnings: (p: PipelineRow, _a: unknown, ctx: Context) => ctx.services.pipelines.warnings(p),
    path: async (p: PipelineRow, _a: unknown, ctx: Context) => `/${(await projectOf(ctx, p)).fullPath}/-/pipelines/${p.id}`,
    webUrl: async (p: PipelineRow, _a: unknown, ctx: Context) => webUrl(ctx, `${(await projectOf(ctx, p)).fullPath}/-/pipelines/${p.id}`),
    detailedStatus: async (p: PipelineRow, _a: unknown, ctx: Context) =>
      pipelineDetailedStatus(p.status as CiStatus, await ctx.services.pipelines.warnings(p), `/${(await projectOf(ctx, p)).fullPath}/-/pipelines/${p.id}`, p.id),
    cancelable: async (p: PipelineRow, _a: unknown, ctx: Context) =>
      (await ctx.services.pipelines.stageJobs(p.id)).some((j) => (CANCELABLE_STATUSES as readonly string[]).includes(j.status)),
    retryable: async (p: PipelineRow, _a: unknown, ctx: Context) => (await ctx.services.pipelines.stageJobs(p.id)).some((j) => j.status === 'failed' || j.status === 'canceled'),
    jobs: async (p: PipelineRow, args: { statuses?: string[] | null; retried?: boolean | null } & PageArgs, ctx: Context) =>
      ctx.services.pipelines.pipelineJobs(await projectOf(ctx, p), p.id, { scope: statuses(args.statuses), includeRetried: args.retried === true }, args),
    stages: async (p: PipelineRow, _a: unknown, ctx: Context) => {
      const nodes = stagesOf(await ctx.services.pipelines.stageJobs(p.id), `/${(await projectOf(ctx, p)).fullPath}/-/pipelines/${p.id}`);
      return wholeConnection(nodes);
    },
    active: (p: PipelineRow) => (ACTIVE_STATUSES as readonly string[]).includes(p.status),
    complete: (p: PipelineRow) => (COMPLETED_STATUSES as readonly string[]).includes(p.status),
    commit: async (p: PipelineRow, _a: unknown, ctx: Context) => ctx.services.pipelines.commitOf(await projectOf(ctx, p), p.sha),
    commitPath: async (p: PipelineRow, _a: unknown, ctx: Context) => `/${(await projectOf(ctx, p)).fullPath}/-/commit/${p.sha}`,
    refPath: async (p: PipelineRow, _a: unknown, ctx: Context) => (p.ref === null ? null : `/${(await projectOf(ctx, p)).fullPath}/-/commits/${p.ref}`),
    project: (p: PipelineRow, _a: unknown, ctx: Context) => projectOf(ctx, p),
    job: (p: PipelineRow, args: { id?: string | null; name?: string | null }, ctx: Context) =>
      ctx.services.pipelines.pipelineJob(p, { id: args.id == null ? null : parseId(args.id, 'Ci::Build', 'id'), name: args.name }),
    sourceJob: (p: PipelineRow, _a: unknown, ctx: Context) => ctx.services.pipelines.sourceJobOf(p),
    usesNeeds: (p: PipelineRow, _a: unknown, ctx: Context) => ctx.services.pipelines.usesNeeds(p),
    warningMessages: async (p: PipelineRow, _a: unknown, ctx: Context) =>
      (await ctx.services.pipelines.warningMessages(p)).map((m) => ({ id: globalId('Ci::PipelineMessage', m.id), content: m.content })),
    userPermissions: async (p: PipelineRow, _a: unknown, ctx: Context) => ctx.services.pipelines.pipelinePermissions(await projectOf(ctx, p), p),
    variables: async (p: PipelineRow, _a: unknown, ctx: Context) => ctx.services.pipelines.variables(await projectOf(ctx, p), p.id),
    testReport: async (p: PipelineRow, _a: unknown, ctx: Context) => ctx.services.pipelines.testReport(await projectOf(ctx, p), p),
    testSuite: async (p: PipelineRow, args: { buildIds: string[] }, ctx: Context) =>
      ctx.services.pipelines.testSuite(await projectOf(ctx, p), p, args.buildIds.map((id) => parseId(id, 'Ci::Build', 'buildIds'))),
    testReportSummary: async (p: PipelineRow, _a: unknown, ctx: Context) => {
      const report = await ctx.services.pipelines.testReport(await projectOf(ctx, p), p);
      return {
        total: {
          time: report.totalTime,
          count: report.totalCount,
          success: report.successCount,
          failed: report.failedCount,
          skipped: report.skippedCount,
          error: report.errorCount,
          suiteError: report.testSuites.find((s) => s.suiteError)?.suiteError ?? null,
        },
        suites: report.testSuites,
      };
    },
  },
  CiJob: {
    ...idFields('Ci::Build'),
    stageName: (j: JobRow) => j.stage,
    refName: (j: JobRow) => j.ref,
    shortSha: (j: JobRow) => j.sha.slice(0, 8),
    manualJob: (j: JobRow) => j.when === 'manual',
    playable: (j: JobRow) => j.status === 'manual' || j.status === 'scheduled',
    retryable: (j: JobRow) => !j.retried && j.type === 'build' && ['success', 'failed', 'canceled'].includes(j.status),
    cancelable: (j: JobRow) => (CANCELABLE_STATUSES as readonly string[]).includes(j.status),
    tags: (j: JobRow) => j.tagList,
    failureReason: (j: JobRow) => (j.status === 'failed' ? (j.failureReason ?? 'unknown_failure') : null),
    user: (j: JobRow, _a: unknown, ctx: Context) => (j.userId === null ? null : ctx.loaders.users.byId.load(j.userId)),
    pipeline: (j: JobRow, _a: unknown, ctx: Context) => ctx.services.pipelines.locate(j.pipelineId),
    duration: (j: JobRow) => {
      const s = seconds(j.startedAt, j.finishedAt ?? (j.startedAt ? new Date() : null));
      return s === null ? null : Math.round(s);
    },
    preciseDuration: (j: JobRow) => seconds(j.startedAt, j.finishedAt ?? (j.startedAt ? new Date() : null)),
    commit: async (j: JobRow, _a: unknown, ctx: Context) => ctx.services.pipelines.commitOf(await projectOf(ctx, j), j.sha),
    ciSettings: () => ({ ciJobTokenScopeEnabled: false }),
    artifacts: async (j: JobRow, args: PageArgs, ctx: Context) => listConnection(args, await ctx.services.pipelines.artifacts(j.id)),
    // GitLab's `artifacts?`: an archive that has not expired (kept or not: `available_artifacts?` is the download's).
    artifactsFile: async (j: JobRow, _a: unknown, ctx: Context) => {
      const archive = (await ctx.services.pipelines.artifacts(j.id)).find((a) => a.fileType === 'archive');
      return archive && !(archive.expireAt && archive.expireAt <= new Date()) ? { filename: archive.filename, size: archive.size } : null;
    },
    // GitLab's ci_builds.artifacts_expire_at: set by each upload (CreateService#persist_artifact), so the last one's.
    artifactsExpireAt: async (j: JobRow, _a: unknown, ctx: Context) => (await ctx.services.pipelines.artifacts(j.id)).at(-1)?.expireAt ?? null,
    runner: (j: JobRow, _a: unknown, ctx: Context) => (j.runnerId === null ? null : ctx.services.pipelines.runner(j.runnerId)),
    archived: () => false,
    downstreamPipeline: (j: JobRow, _a: unknown, ctx: Context) => ctx.services.pipelines.downstreamOf(j),
    traceEncoded: async (j: JobRow, _a: unknown, ctx: Context) => (await ctx.services.pipelines.trace(await projectOf(ctx, j), j.id)).toString('base64'),
    traceContentType: () => 'text/plain',
    queuedDuration: (j: JobRow) => seconds(j.queuedAt, j.startedAt ?? (j.queuedAt && j.status === 'pending' ? new Date() : null)),
    webUrl: async (j: JobRow, _a: unknown, ctx: Context) => webUrl(ctx, `${(await projectOf(ctx, j)).fullPath}/-/jobs/${j.id}`),
    detailedStatus: async (j: JobRow, _a: unknown, ctx: Context) => jobDetailedStatus(j, `/${(await projectOf(ctx, j)).fullPath}/-/jobs/${j.id}`),
    trace: async (j: JobRow, _a: unknown, ctx: Context) => {
      const log = await ctx.services.pipelines.readableTrace(await projectOf(ctx, j), j);
      return log && { log };
    },
    active: (j: JobRow) => (ACTIVE_STATUSES as readonly string[]).includes(j.status),
    kind: (j: JobRow) => (j.type === 'bridge' ? 'BRIDGE' : 'BUILD'),
    createdByTag: (j: JobRow) => j.tag,
    scheduled: (j: JobRow) => j.status === 'scheduled',
    // GitLab's scheduling_type enum: stage or dag.
    schedulingType: (j: JobRow) => (j.schedulingType === 'dag' ? 'dag' : 'stage'),
    triggered: async (j: JobRow, _a: unknown, ctx: Context) => (await ctx.services.pipelines.locate(j.pipelineId)).source === 'trigger',
    failureMessage: (j: JobRow) => (j.status === 'failed' ? failureMessage(j.failureReason ?? 'unknown_failure') : null),
    stage: async (j: JobRow, _a: unknown, ctx: Context) => {
      const stages = stagesOf(await ctx.services.pipelines.stageJobs(j.pipelineId), `/${(await projectOf(ctx, j)).fullPath}/-/pipelines/${j.pipelineId}`);
      return stages.find((stage) => stage.position === j.stageIdx) ?? null;
    },
    needs: (j: JobRow, args: PageArgs) => listConnection(args, needsOf(j)),
    // Ci::JobType#previous_stage_jobs_or_needs: a stage-scheduled job waits for the latest jobs of the stage before its own.
    previousStageJobsOrNeeds: async (j: JobRow, args: PageArgs, ctx: Context) => {
      if (j.schedulingType === 'dag') return listConnection(args, needsOf(j));
      const jobs = await ctx.services.pipelines.stageJobs(j.pipelineId);
      const before = Math.max(-1, ...jobs.filter((other) => other.stageIdx < j.stageIdx).map((other) => other.stageIdx));
      return listConnection(args, jobs.filter((other) => other.stageIdx === before));
    },
    webPath: async (j: JobRow, _a: unknown, ctx: Context) => `/${(await projectOf(ctx, j)).fullPath}/-/jobs/${j.id}`,
    playPath: async (j: JobRow, _a: unknown, ctx: Context) => `/${(await projectOf(ctx, j)).fullPath}/-/jobs/${j.id}/play`,
    refPath: async (j: JobRow, _a: unknown, ctx: Context) => `/${(await projectOf(ctx, j)).fullPath}/-/commits/${j.ref}`,
    commitPath: async (j: JobRow, _a: unknown, ctx: Context) => `/${(await projectOf(ctx, j)).fullPath}/-/commit/${j.sha}`,
    browseArtifactsPath: async (j: JobRow, _a: unknown, ctx: Context) => `/${(await projectOf(ctx, j)).fullPath}/-/jobs/${j.id}/artifacts/browse`,
    canPlayJob: async (j: JobRow, _a: unknown, ctx: Context) => (await ctx.services.pipelines.jobPermissions(await projectOf(ctx, j), j)).playJob,
    userPermissions: async (j: JobRow, _a: unknown, ctx: Context) => ctx.services.pipelines.jobPermissions(await projectOf(ctx, j), j),
    manualVariables: async (j: JobRow, args: PageArgs, ctx: Context) => {
      const variables = await ctx.services.pipelines.manualVariables(await projectOf(ctx, j), j);
      return variables && listConnection(args, variables);
    },
  },
  Commit: {
    pipelines: async (c: CommitRow, args: { status?: string | null; ref?: string | null; source?: string | null } & PageArgs, ctx: Context) =>
      (await ctx.services.pipelines.readsPipelines(c.project)) ? ctx.services.pipelines.list(c.project, { status: args.status, ref: args.ref, source: args.source, sha: c.sha }, args) : null,
    lastPipeline: async (c: CommitRow, _a: unknown, ctx: Context) =>
      (await ctx.services.pipelines.readsPipelines(c.project)) ? ctx.loaders.pipelines.lastByCommit.load(`${c.project.id}:${c.sha}`) : null,
    status: async (c: CommitRow, _a: unknown, ctx: Context) =>
      (await ctx.services.pipelines.readsPipelines(c.project)) ? ((await ctx.loaders.pipelines.lastByCommit.load(`${c.project.id}:${c.sha}`))?.status ?? null) : null,
  },
  // Internal values are the stored (GitLab's) names.
  PipelineConfigSourceEnum: Object.fromEntries(
    ['unknown_source', 'repository_source', 'auto_devops_source', 'webide_source', 'remote_source', 'external_project_source', 'bridge_source', 'parameter_source', 'compliance_source', 'security_policies_default_source'].map((v) => [v.toUpperCase(), v]),
  ),
  DetailedStatus: {
    // GitLab's DetailedStatusType#id: the status's own ID, then its subject's.
    id: (s: DetailedStatus) => `${s.id}-${s.id.slice(s.id.indexOf('-') + 1)}`,
    action: async (s: DetailedStatus, _a: unknown, ctx: Context) => {
      if (!s.job || !s.detailsPath) return null;
      const job = s.job as JobRow;
      return jobStatusAction(job, s.detailsPath, await ctx.services.pipelines.jobPermissions(await projectOf(ctx, job), job));
    },
  },
  JobNeedUnion: {
    __resolveType: (node: { name?: string; pipelineId?: number }) => (node.pipelineId === undefined ? 'CiBuildNeed' : 'CiJob'),
  },
  CiJobTrace: {
    // GitLab's Ci::Trace#html(last_lines:, max_size: 16.kilobytes) through Ansi2html.
    htmlSummary: (trace: { log: Buffer }, args: { lastLines?: number | null }) => {
      const lines = args.lastLines ?? 10;
      if (lines < 1 || lines > 100) throw invalidArgument('lastLines');
      return ansiToHtml(lastLines(trace.log, lines, 16 * 1024));
    },
  },
  CiJobArtifact: {
    id: (a: ArtifactSummary) => globalId('Ci::JobArtifact', a.id),
    name: (a: ArtifactSummary) => a.filename,
    // GitLab's download_project_job_artifacts_path with the artifact's file type.
    downloadPath: async (a: ArtifactSummary, _a: unknown, ctx: Context) =>
      `/${(await projectOf(ctx, a)).fullPath}/-/jobs/${a.jobId}/artifacts/download?file_type=${a.fileType}`,
  },
  TestReportSummary: {
    testSuites: (summary: { suites: TestSuite[] }, args: PageArgs) => listConnection(args, summary.suites),
  },
  TestSuite: {
    testCases: (s: TestSuite, args: PageArgs) => listConnection(args, s.testCases),
  },
  TestCase: {
    executionTime: (c: StoredTestCase) => Number(c.execution_time) || 0,
    systemOutput: (c: StoredTestCase) => c.system_output ?? null,
    stackTrace: (c: StoredTestCase) => c.stack_trace ?? null,
    file: (c: StoredTestCase) => c.file ?? null,
  },
  CiRunner: {
    ...idFields('Ci::Runner'),
    active: (r: { paused: boolean }) => !r.paused,
    isShared: (r: { runnerType: string }) => r.runnerType === 'instance_type',
    name: (r: { name?: string | null }) => r.name ?? null,
    online: (r: { contactedAt: Date | null }) => runnerOnline(r.contactedAt),
    status: (r: { contactedAt: Date | null; createdAt: Date }) => runnerStatus(r),
  },
  CiResourceGroup: {
    ...idFields('Ci::ResourceGroup'),
    currentJob: (group: ResourceGroupRow, _a: unknown, ctx: Context) => ctx.services.pipelines.resourceGroups.currentJob(group),
    upcomingJobs: async (group: ResourceGroupRow, args: PageArgs, ctx: Context) =>
      ctx.services.pipelines.resourceGroups.upcomingJobs((await projectOf(ctx, group)) as ProjectRow, group.key, args),
  },
  PipelineTrigger: {
    ...idFields('Ci::Trigger'),
    token: (trigger: TriggerRow, _a: unknown, ctx: Context) => ctx.services.pipelines.triggers.shownToken(trigger),
    owner: (trigger: TriggerRow, _a: unknown, ctx: Context) => (trigger.ownerId === null ? null : ctx.loaders.users.byId.load(trigger.ownerId)),
    lastUsed: (trigger: TriggerRow) => trigger.lastUsedAt,
  },
  MergeRequest: {
    pipelines: async (mr: MergeRequestRow, args: PageArgs, ctx: Context) =>
      ctx.services.pipelines.forMergeRequest(await ctx.services.merge_requests.projectOf(mr), mr, args),
  },
  Mutation: {
    mergeRequestCreatePipeline: async (_: unknown, args: { projectPath: string; iid: string }, ctx: Context) => {
      const p = await project(ctx, args.projectPath);
      const mr = await ctx.services.merge_requests.get(p, iidOf(args.iid));
      return { pipeline: await ctx.services.merge_requests.pipelines.createByViewer(p, mr) };
    },
    commitStatusCreate: async (_: unknown, args: CommitStatusInput & { projectPath: string; sha: string }, ctx: Context) => ({
      commitStatus: await ctx.services.pipelines.statuses.create(await project(ctx, args.projectPath), args.sha, args),
    }),
    pipelineTriggerCreate: async (_: unknown, args: { projectPath: string; description?: string | null }, ctx: Context) => ({
      pipelineTrigger: await ctx.services.pipelines.triggers.create(await project(ctx, args.projectPath), args.description),
    }),
    pipelineTriggerUpdate: async (_: unknown, args: { projectPath: string; id: string; description?: string | null }, ctx: Context) => ({
      pipelineTrigger: await ctx.services.pipelines.triggers.update(await project(ctx, args.projectPath), parseId(args.id, 'Ci::Trigger', 'id'), args.description),
    }),
    pipelineTriggerDelete: async (_: unknown, args: { projectPath: string; id: string }, ctx: Context) => ({
      pipelineTrigger: await ctx.services.pipelines.triggers.delete(await project(ctx, args.projectPath), parseId(args.id, 'Ci::Trigger', 'id')),
    }),
    ciResourceGroupUpdate: async (_: unknown, args: { projectPath: string; key: string; processMode?: string | null }, ctx: Context) => ({
      resourceGroup: await ctx.services.pipelines.resourceGroups.update(await project(ctx, args.projectPath), args.key, args.processMode),
    }),
    pipelineTriggerRun: async (_: unknown, args: { projectPath: string; token: string; ref: string; variables?: unknown }, ctx: Context) => ({
      pipeline: await ctx.services.pipelines.runTrigger(parseRef(args.projectPath, 'Project', 'projectPath'), args),
    }),
    pipelineCreate: async (_: unknown, args: { projectPath: string; ref: string; variables?: PipelineVariableInput[] | null; inputs?: { name: string; value: unknown }[] | null }, ctx: Context) => ({
      pipeline: await ctx.services.pipelines.create(await project(ctx, args.projectPath), { ref: args.ref, variables: args.variables, inputs: inputsFromList(args.inputs) }),
    }),
    pipelineRetry: async (_: unknown, args: { id: string; projectPath?: string | null }, ctx: Context) => {
      const { pipeline, project: p } = await pipelineById(ctx, args.id, args.projectPath);
      return { pipeline: await ctx.services.pipelines.retry(p, pipeline.id) };
    },
    pipelineCancel: async (_: unknown, args: { id: string; projectPath?: string | null }, ctx: Context) => {
      const { pipeline, project: p } = await pipelineById(ctx, args.id, args.projectPath);
      return { pipeline: await ctx.services.pipelines.cancel(p, pipeline.id) };
    },
    pipelineDestroy: async (_: unknown, args: { id: string; projectPath?: string | null }, ctx: Context) => {
      const { pipeline, project: p } = await pipelineById(ctx, args.id, args.projectPath);
      return { pipeline: await ctx.services.pipelines.destroy(p, pipeline.id) };
    },
    pipelineUpdateMetadata: async (_: unknown, args: { id: string; projectPath?: string | null; name: string }, ctx: Context) => {
      const { pipeline, project: p } = await pipelineById(ctx, args.id, args.projectPath);
      return { pipeline: await ctx.services.pipelines.updateMetadata(p, pipeline.id, args.name) };
    },
    jobRetry: async (_: unknown, args: { id: string; projectPath?: string | null; variables?: PipelineVariableInput[] | null }, ctx: Context) => {
      const { job, project: p } = await jobById(ctx, args.id, args.projectPath);
      return { job: await ctx.services.pipelines.retryJob(p, job.id, args.variables ?? []) };
    },
    jobCancel: async (_: unknown, args: { id: string; projectPath?: string | null }, ctx: Context) => {
      const { job, project: p } = await jobById(ctx, args.id, args.projectPath);
      return { job: await ctx.services.pipelines.cancelJob(p, job.id) };
    },
    jobPlay: async (_: unknown, args: { id: string; projectPath?: string | null; variables?: PipelineVariableInput[] | null }, ctx: Context) => {
      const { job, project: p } = await jobById(ctx, args.id, args.projectPath);
      return { job: await ctx.services.pipelines.play(p, job.id, args.variables ?? []) };
    },
    jobUnschedule: async (_: unknown, args: { id: string }, ctx: Context) => {
      const { job, project: p } = await jobById(ctx, args.id, null);
      return { job: await ctx.services.pipelines.unschedule(p, job.id) };
    },
    jobErase: async (_: unknown, args: { id: string; projectPath?: string | null }, ctx: Context) => {
      const { job, project: p } = await jobById(ctx, args.id, args.projectPath);
      return { job: await ctx.services.pipelines.erase(p, job.id) };
    },
  },
  Subscription: {
    ciPipelineStatusUpdated: {
      subscribe: async (_: unknown, args: { pipelineId: string }, ctx: Context) => {
        const { pipeline, project: p } = await pipelineById(ctx, args.pipelineId);
        return ctx.services.pipelines.watchPipelines(p, pipeline.id, 'ciPipelineStatusUpdated');
      },
    },
    ciJobStatusUpdated: {
      subscribe: async (_: unknown, args: { jobId: string }, ctx: Context) => {
        const { job, project: p } = await jobById(ctx, args.jobId);
        return ctx.services.pipelines.watchJob(p, job.id, 'ciJobStatusUpdated');
      },
    },
    projectPipelinesUpdated: {
      subscribe: async (_: unknown, args: { projectPath: string }, ctx: Context) => ctx.services.pipelines.watchPipelines(await project(ctx, args.projectPath), null, 'projectPipelinesUpdated'),
    },
    jobTraceUpdated: {
      subscribe: async (_: unknown, args: { jobId: string }, ctx: Context) => {
        const { job, project: p } = await jobById(ctx, args.jobId);
        return ctx.services.pipelines.watchTrace(p, job.id);
      },
    },
  },
};
