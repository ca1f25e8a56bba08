/**
 * Creating a pipeline (GitLab's Ci::CreatePipelineService chain): the ref's commit, `[skip ci]`, the CI
 * configuration at that commit, workflow rules, the jobs the rules keep, then one transaction writing the
 * pipeline, its variables and its jobs, and processing it once so its first stage starts.
 *
 * What GitLab refuses without keeping a pipeline comes back as `{ error }` (the API answers it as
 * `{"message":{"base":[…]}}`); a configuration with errors is kept as a failed pipeline with `yaml_errors`.
 */
import { ensureStages } from './stages.js';
import { storedCaches, type StoredCache } from './cache.js';
import { featureLevel } from '../../auth/project-features.js';
import type { Config } from '../../config.js';
import type { Prisma, PrismaClient } from '../../db/database.js';
import { planPipeline, type CiContext, type PipelinePlan, type PlannedJob } from '../../ci/config/index.js';
import type { ProjectRow } from '../projects/service.js';
import type { ProtectedBranchesService } from '../protected_branches/service.js';
import type { RepositoriesService } from '../repositories/service.js';
import { DEFAULT_CI_CONFIG_PATH, pipelineVariables, variableMap, type MergeRequestFacts } from './predefined.js';
import { PIPELINE_UPDATED, processPipeline, type PipelineUpdatedMessage, type ProcessingEffects, type StoredNeed } from './processing.js';
import { enqueueHookEvent } from '../hooks/events.js';
import { commitFiles } from './includes.js';
import { prepareDeployments } from '../environments/ci.js';
import { resourceGroupsOf } from './resource_groups.js';

/** The default place of the CI configuration (a project's `ci_config_path` overrides it). */
/** Larger configuration files are refused (GitLab's max YAML size is a few MB). */
const MAX_CONFIG_BYTES = 4 * 1024 * 1024;

export const CREATE_ERRORS = {
  /** GitLab's Chain::Validate::Abilities when the project's CI/CD feature is disabled (for everyone). */
  buildsDisabled: 'Pipelines are disabled!',
  referenceNotFound: 'Reference not found',
  missingConfig: 'Missing CI config file',
  filteredByWorkflow: 'Pipeline filtered out by workflow rules.',
  noJobs: 'Pipeline will not run for the selected trigger. The rules configuration prevented any jobs from being added to the pipeline.',
  /** Chain::Validate::Abilities: variables given by one below the project's minimum override role (`set_pipeline_variables`). */
  variablesRefused: 'Insufficient permissions to set pipeline variables',
  /** Chain::Validate::Abilities when the pipeline's user may not create pipelines in its project. */
  insufficientPermissions: 'Insufficient permissions to create a new pipeline',
} as const;

/** Chain::Validate::Abilities when the pipeline's user may not update the ref (a protected branch). */
export function protectedRefError(ref: string): string {
  return `You do not have sufficient permission to run a pipeline on '${ref}'. Please select a different branch or contact your administrator for assistance.`;
}

export interface CreateInput {
  project: ProjectRow;
  userId: number;
  /** Branch or tag name (short form). */
  ref: string;
  /** Whether `ref` names a tag; found out from the repository when absent (branches first, as GitLab). */
  tag?: boolean;
  /** The commit; the ref's head when absent. */
  sha?: string;
  source: string;
  beforeSha: string;
  variables: readonly { key: string; value: string; variableType: string }[];
  /** The pipeline's inputs (name → value) for its file's `spec: inputs`; null or absent when none were given. */
  inputs?: Readonly<Record<string, unknown>> | null;
  /** Whether `[skip ci]` in the commit message makes a skipped pipeline (pushes; not API calls). */
  honourSkipCi: boolean;
  /** A skipped pipeline whatever the message (the `ci.skip` push option, Chain::Skip#push_option_skips_ci?). */
  skip?: boolean;
  /**
   * Whether a configuration with errors still makes a failed pipeline showing them (GitLab's `save_on_errors`, true
   * unless said: pushes, triggers, schedules); the API and GraphQL answer the errors instead and save nothing.
   */
  saveOnErrors?: boolean;
  /** The commit before the push, for rules:changes; null when there is none (a new branch or tag). */
  changesFrom?: string | null;
  triggerId?: number | null;
  /**
   * Whether the pipeline's user may update the ref, an existing branch or tag (Chain::Validate::Abilities, after the
   * CI/CD feature and before the ref's existence); absent where the ref's update was authorized already (a push).
   */
  mayUpdateRef?: (ref: string, tag: boolean) => Promise<boolean>;
  /** The schedule that runs it (source `schedule`). */
  pipelineScheduleId?: number | null;
  /** A downstream pipeline's upstream: the bridge that creates it, and for a child pipeline its parent. */
  upstream?: { bridgeId: number; parentPipelineId: number | null };
  /**
   * The configuration to plan instead of the repository's file (a child pipeline's `include:`), and how its
   * `include: artifact:` entries read files of the parent pipeline's jobs.
   */
  config?: { content: string; readArtifact: NonNullable<CiContext['readArtifact']> };
  /** A `merge_request_event` pipeline's merge request: `ref` is its refs/merge-requests/<iid>/head (or /merge), `sha` given. */
  mergeRequest?: MergeRequestFacts;
  /** A merged results pipeline's source and target heads, which `sha` merges (GitLab's source_sha and target_sha). */
  mergedResult?: { sourceSha: string; targetSha: string };
}

export interface CreateDeps extends ProcessingEffects {
  db: PrismaClient;
  config: Config;
  repositories: RepositoriesService;
  protectedBranches: ProtectedBranchesService;
  /** `include: project:` as the pipeline's user reads it. */
  readProject: NonNullable<CiContext['readProject']>;
  /**
   * The instance's, groups' and project's CI/CD variables without an environment (`environment_scope: *`), protected
   * ones only on a protected ref: GitLab's Variables::Builder#config_variables gives them to `include` and `rules`.
   */
  ciVariables?: (project: ProjectRow, protectedRef: boolean) => Promise<readonly { key: string; value: string; masked: boolean }[]>;
}

type PipelineRow = Prisma.PipelineGetPayload<object>;

const SKIP_CI = /\[(ci[ _-]skip|skip[ _-]ci)\]/i;

export async function createPipeline(deps: CreateDeps, input: CreateInput): Promise<{ pipeline: PipelineRow } | { error: string }> {
  const { project } = input;
  if (featureLevel(project, 'builds') === 'disabled') return { error: CREATE_ERRORS.buildsDisabled };
  const repository = await deps.repositories.open(project);
  let tag = input.tag;
  let sha = input.sha ?? null;
  if (tag === undefined || sha === null) {
    const branch = tag === true ? null : await repository.resolve(`refs/heads/${input.ref}^{commit}`);
    const tagged = branch ? null : await repository.resolve(`refs/tags/${input.ref}^{commit}`);
    if (!branch && !tagged) return { error: CREATE_ERRORS.referenceNotFound };
    tag = !branch;
    sha ??= branch ?? tagged;
  }
  if (!sha) return { error: CREATE_ERRORS.referenceNotFound };
  if (input.mayUpdateRef && !(await input.mayUpdateRef(input.ref, tag))) return { error: protectedRefError(input.ref) };
  const commit = await repository.commit(sha);
  if (!commit) return { error: CREATE_ERRORS.referenceNotFound };
  const user = await deps.db.user.findUnique({ where: { id: input.userId }, select: { id: true, username: true, name: true, email: true } });
  const configPath = project.ciConfigPath || DEFAULT_CI_CONFIG_PATH;
  const protectedRef = input.mergeRequest ? input.mergeRequest.sourceBranchProtected : !tag && (await deps.protectedBranches.anyProtected(project.id, [input.ref]));
  const row = {
    projectId: project.id,
    ref: input.ref,
    tag,
    sha,
    beforeSha: input.beforeSha,
    source: input.source,
    userId: input.userId,
    triggerId: input.triggerId ?? null,
    pipelineScheduleId: input.pipelineScheduleId ?? null,
    sourceJobId: input.upstream?.bridgeId ?? null,
    parentPipelineId: input.upstream?.parentPipelineId ?? null,
    mergeRequestId: input.mergeRequest?.id ?? null,
    sourceSha: input.mergedResult?.sourceSha ?? null,
    targetSha: input.mergedResult?.targetSha ?? null,
    configSource: null as string | null,
  };

  if (input.skip || (input.honourSkipCi && SKIP_CI.test(commit.message))) {
    return { pipeline: await insert(deps, row, { status: 'skipped' }, [], input.variables, null) };
  }
  // GitLab's config_source, set once the configuration is read (a skipped pipeline reads none): a child pipeline's
  // comes from its trigger job, any other from the repository.
  row.configSource = input.config ? 'bridge_source' : 'repository_source';

  let content = input.config?.content ?? null;
  if (content === null) {
    const blobSha = await repository.resolve(`${sha}:${configPath}`);
    const bytes = blobSha ? await repository.blob(blobSha, MAX_CONFIG_BYTES) : null;
    if (bytes === null) return { error: CREATE_ERRORS.missingConfig };
    content = bytes.toString('utf8');
  }

  const facts = {
    source: input.source,
    ref: input.ref,
    tag,
    sha,
    beforeSha: input.beforeSha,
    protectedRef,
    configPath,
    triggered: input.source === 'trigger',
    commit,
    user,
    project,
    mergeRequest: input.mergeRequest,
    sourceSha: row.sourceSha,
    targetSha: row.targetSha,
  };
  const changes = input.changesFrom ? ((await repository.changedPaths(input.changesFrom, sha)) ?? undefined) : undefined;
  const ciVariables = deps.ciVariables ? await deps.ciVariables(project, protectedRef) : [];
  const variables = variableMap(pipelineVariables(deps.config, facts), ciVariables, input.variables);
  // One list of the commit's files per pipeline, read when a wildcard include or an `exists:` glob first asks.
  let files: Promise<readonly string[]> | undefined;
  const plan = await planPipeline(content, {
    variables,
    masked: ciVariables.filter((v) => v.masked).map((v) => v.value),
    changes,
    inputs: input.inputs ?? null,
    readLocal: async (path) => {
      const bytes = await repository.fileAt(sha, path.replace(/^\/+/, ''), MAX_CONFIG_BYTES);
      return bytes ? bytes.toString('utf8') : null;
    },
    listFiles: () => (files ??= commitFiles(repository, sha)),
    readArtifact: input.config?.readArtifact,
    readProject: deps.readProject,
  });
  if (plan.errors.length > 0) {
    if (input.saveOnErrors === false) return { error: plan.errors.join(', ') };
    return { pipeline: await insert(deps, row, { status: 'failed', yamlErrors: plan.errors.join(', '), failureReason: 'config_error', finishedAt: new Date() }, [], input.variables, null) };
  }
  if (plan.filteredByWorkflow) return { error: CREATE_ERRORS.filteredByWorkflow };
  if (plan.jobs.length === 0) return { error: CREATE_ERRORS.noJobs };
  const caches = await storedCaches(plan.jobs, repository, sha);
  // Ci::PipelineMetadata's auto_cancel settings, where the configuration gives them (else the columns' defaults).
  const autoCancel = {
    ...(plan.autoCancel?.onNewCommit ? { autoCancelOnNewCommit: plan.autoCancel.onNewCommit } : {}),
    ...(plan.autoCancel?.onJobFailure ? { autoCancelOnJobFailure: plan.autoCancel.onJobFailure } : {}),
  };
  return { pipeline: await insert(deps, row, { status: 'created', name: plan.name, ...autoCancel }, plan.jobs, input.variables, plan, variables, caches) };
}

/** What a job row keeps of its configuration, in the names the runner protocol uses. */
function jobOptions(job: PlannedJob, cache: StoredCache[] | undefined): Prisma.InputJsonObject {
  const needs: StoredNeed[] | undefined = job.needs?.map((n) => ({ name: n.name, artifacts: n.artifacts, optional: n.optional }));
  return JSON.parse(
    JSON.stringify({
      script: job.script,
      before_script: job.beforeScript,
      after_script: job.afterScript,
      image: job.image,
      services: job.services,
      // Reports as [type, paths] pairs: jsonb would sort an object's keys, and runners upload them in the file's order.
      artifacts: job.artifacts && { ...job.artifacts, reports: Object.entries(job.artifacts.reports) },
      cache,
      dependencies: job.dependencies,
      needs,
      coverage: job.coverage,
      retry: job.retry,
      allow_failure_exit_codes: job.allowFailureExitCodes,
      start_in_seconds: job.startIn,
      environment: job.environment,
      // Asset links as [key, value] pairs: jsonb would sort their keys, and the release step writes them in order.
      release: job.release && { ...job.release, ...(job.release.assets?.links ? { assets: { links: job.release.assets.links.map((l) => Object.entries(l)) } } : {}) },
      interruptible: job.interruptible,
      trigger: job.trigger,
      // Id tokens, secrets and hooks as [name, value] pairs: jsonb would sort their keys, and GitLab keeps the file's order.
      // (Left out when absent, as undefined.)
      id_tokens: job.idTokens ? Object.entries(job.idTokens) : undefined,
      hooks: job.hooks ?? undefined,
      secrets: job.secrets ? Object.entries(job.secrets) : undefined,
      manual_confirmation: job.manualConfirmation ?? undefined,
      pages: job.pages ?? undefined,
      publish: job.publish ?? undefined,
      identity: job.identity ?? undefined,
      dast_configuration: job.dastConfiguration ?? undefined,
    }),
  ) as Prisma.InputJsonObject;
}

/**
 * Writes the pipeline with its number (the project's row is locked for the count, so concurrent pipelines of one
 * project get consecutive numbers), its variables and its jobs, in one transaction.
 */
async function insert(
  deps: CreateDeps,
  row: Omit<Prisma.PipelineUncheckedCreateInput, 'iid' | 'status'>,
  state: Pick<Prisma.PipelineUncheckedCreateInput, 'status' | 'yamlErrors' | 'failureReason' | 'finishedAt' | 'name' | 'autoCancelOnNewCommit' | 'autoCancelOnJobFailure'>,
  jobs: readonly PlannedJob[],
  variables: CreateInput['variables'],
  plan: PipelinePlan | null,
  expansion: Readonly<Record<string, string>> = {},
  caches: ReadonlyMap<PlannedJob, StoredCache[]> = new Map(),
): Promise<PipelineRow> {
  const created = await deps.db.$transaction(async (tx) => {
    await tx.$queryRaw`SELECT "id" FROM "projects" WHERE "id" = ${row.projectId} FOR UPDATE`;
    const resourceGroups = jobs.some((job) => job.resourceGroup) ? await resourceGroupsOf(tx, row.projectId, jobs, expansion) : new Map<PlannedJob, number>();
    const { _max } = await tx.pipeline.aggregate({ where: { projectId: row.projectId }, _max: { iid: true } });
    const pipeline = await tx.pipeline.create({ data: { ...row, ...state, iid: (_max.iid ?? 0) + 1 } });
    // The configuration's warnings, shown with the pipeline (GitLab's add_warning_message).
    if (plan?.warnings.length) await tx.pipelineMessage.createMany({ data: plan.warnings.map((content) => ({ pipelineId: pipeline.id, severity: 'warning', content })) });
    if (variables.length) {
      await tx.pipelineVariable.createMany({ data: variables.map((v) => ({ pipelineId: pipeline.id, key: v.key, value: v.value, variableType: v.variableType })) });
    }
    if (jobs.length) {
      await ensureStages(tx, pipeline.id, jobs.map((job) => ({ name: job.stage, position: job.stageIdx })));
      await tx.ciJob.createMany({
        data: jobs.map((job) => ({
          pipelineId: pipeline.id,
          projectId: row.projectId,
          type: job.trigger ? 'bridge' : 'build',
          name: job.name,
          stage: job.stage,
          stageIdx: job.stageIdx,
          when: job.when,
          allowFailure: job.allowFailure,
          schedulingType: job.needs ? 'dag' : 'stages',
          options: jobOptions(job, caches.get(job)),
          yamlVariables: [...(plan?.workflowVariables ?? []), ...job.variables],
          tagList: job.tags,
          ref: row.ref,
          tag: row.tag ?? false,
          sha: row.sha,
          userId: row.userId ?? null,
          timeout: job.timeout,
          resourceGroupId: resourceGroups.get(job) ?? null,
        })),
      });
    }
    // Environments and deployments of the jobs that name one (the environments module's hook point).
    if (jobs.some((job) => job.environment)) await prepareDeployments(tx, pipeline.id, expansion);
    await deps.publish(PIPELINE_UPDATED, { pipelineId: pipeline.id, projectId: pipeline.projectId, status: pipeline.status } satisfies PipelineUpdatedMessage, tx);
    // GitLab's hooks hear transitions: a pipeline born `created` is heard when processing moves it on.
    if (pipeline.status !== 'created') {
      await enqueueHookEvent(deps.app.jobs, { trigger: 'pipeline_hooks', projectId: pipeline.projectId, branch: null, data: null, pipeline: { pipelineId: pipeline.id, status: pipeline.status } }, tx);
    }
    if (jobs.length === 0) return pipeline;
    // Its first processing in the same transaction: the pipeline is never seen with its first stage not started.
    await processPipeline(tx, pipeline.id, deps);
    return tx.pipeline.findUniqueOrThrow({ where: { id: pipeline.id } });
  });
  // Bridges of its first stage queued their downstream pipelines.
  deps.app.jobs.wake();
  return created;
}
