/**
 * A claimed job as `POST /jobs/request` answers it (GitLab's API::Entities::Ci::JobRequest::Response over
 * Ci::BuildRunnerPresenter): what to fetch, which variables to set, which steps to run, which artifacts to upload,
 * which jobs' artifacts to download. Pure: the facts in, the JSON out.
 */
import { REPORT_FILE_NAMES, TYPE_AND_FORMAT } from '../../ci/artifact-types.js';
import type { Config } from '../../config.js';
import type { CommitInfo } from '../../git/repository.js';
import { expandVariables, fromCiVariables, runnerVariable, type JobCiVariable, type RunnerVariable } from '../../ci/variables.js';
import { encodeJwt, registeredClaims, type SigningKey } from '../../ci/id-tokens.js';
import { REFERENCE } from '../../ci/config/variables.js';
import { DEFAULT_CI_CONFIG_PATH, pipelineVariables, slugify, storedPipelineFacts, type MergeRequestFacts } from '../pipelines/predefined.js';
import type { JobRow, PipelineRow } from '../pipelines/service.js';
import type { ProjectRow } from '../projects/service.js';
import { effectiveTimeout, optionsOf, type JobOptions, type StoredRelease } from './protocol.js';

/** GitLab's failure reasons (Enums::Ci::CommitStatus), which runners may report. */
export const FAILURE_REASONS = [
  'unknown_failure',
  'script_failure',
  'api_failure',
  'stuck_or_timeout_failure',
  'runner_system_failure',
  'missing_dependency_failure',
  'runner_unsupported',
  'stale_schedule',
  'job_execution_timeout',
  'archived_failure',
  'unmet_prerequisites',
  'scheduler_failure',
  'data_integrity_failure',
  'forward_deployment_failure',
  'user_blocked',
  'project_deleted',
  'ci_quota_exceeded',
  'pipeline_loop_detected',
  'no_matching_runner',
  'trace_size_exceeded',
  'builds_disabled',
  'insufficient_bridge_permissions',
  'downstream_bridge_project_not_found',
  'invalid_bridge_trigger',
  'bridge_pipeline_is_child_pipeline',
  'downstream_pipeline_creation_failed',
  'secrets_provider_not_found',
  'reached_max_descendant_pipelines_depth',
] as const;

/** GitLab's default project git depth for new projects (`ci_default_git_depth`); `GIT_DEPTH` overrides it. */
const DEFAULT_GIT_DEPTH = 20;
/** The largest count GitLab tells of a project's jobs running on instance runners (INSTANCE_RUNNER_RUNNING_JOBS_MAX_BUCKET). */
const RUNNING_JOBS_MAX_BUCKET = 5;

export interface JobResponse {
  id: number;
  token: string;
  allow_git_fetch: boolean;
  job_info: { id: number; name: string; stage: string; project_id: number; project_name: string; time_in_queue_seconds: number; project_jobs_running_on_instance_runners_count: string };
  git_info: { repo_url: string; ref: string; sha: string; before_sha: string; ref_type: 'branch' | 'tag'; refspecs: string[]; depth: number };
  runner_info: { timeout: number; runner_session_url: string | null };
  variables: RunnerVariable[];
  steps: { name: string; script: string[]; timeout: number; when: string; allow_failure: boolean }[];
  image: { name: string; entrypoint: string[] | null; ports: never[] } | null;
  services: { name: string; entrypoint: string[] | null; ports: never[]; alias: string | null; command: string[] | null; variables: null }[];
  artifacts: Record<string, unknown>[] | null;
  cache: { key: string; untracked: boolean; paths: string[]; policy: string; when: string; fallback_keys: string[] }[];
  credentials: never[];
  features: { trace_sections: boolean; failure_reasons: readonly string[] };
  dependencies: { id: number; name: string; token: string; artifacts_file?: { filename: string; size: number } }[];
  /** `hooks:` (JobRequest::Hook): present when the job has some. */
  hooks?: { name: string; script: string[] }[];
  /** `secrets:` as the job declares them, when it declares some and a provider is configured. */
  secrets?: Record<string, Record<string, unknown>>;
}

/** What signing the job's ID tokens needs: the instance's key, and the job's user's level in the project. */
export interface IdTokenFacts {
  signing: SigningKey;
  /** GitLab's human_max_access of the job's user, downcased (`developer`); null without one. */
  userAccessLevel: string | null;
}

export interface JobFacts {
  config: Config;
  job: JobRow;
  token: string;
  pipeline: PipelineRow;
  project: ProjectRow;
  runner: { id: number; description: string; tagList: string[]; runnerType: string; maximumTimeout: number | null };
  /** Who the job runs as (who played it, or the pipeline's user). */
  user: { id: number; username: string; name: string; email: string } | null;
  commit: CommitInfo | null;
  protectedRef: boolean;
  /** The merge request of a merge request pipeline. */
  mergeRequest?: MergeRequestFacts | null;
  /** Whether `refs/pipelines/<id>` exists for the runner to fetch. */
  persistentRef: boolean;
  pipelineVariables: { key: string; value: string; variableType: string }[];
  /** The variables a manual job was played (or retried) with (GitLab's job_variables). */
  jobVariables: { key: string; value: string }[];
  ciVariables: JobCiVariable[];
  /** The jobs it depends on (GitLab's all_dependencies): their archives, and their dotenv reports' variables. */
  dependencies: { id: number; name: string; archive: { filename: string; size: number } | null; dotenv: { key: string; value: string }[] }[];
  /** The project's jobs running on instance runners now (instance runners only). */
  runningOnInstanceRunners: number | null;
  /** Present when the job has `id_tokens:`. */
  idTokens?: IdTokenFacts | null;
  now: Date;
}

/** `http://gitlab-ci-token:<token>@host/<path>.git`, GitLab's repo URL with the job's credentials. */
export function repoUrl(config: Config, project: ProjectRow, token: string): string {
  const url = new URL(`${config.externalUrl.replace(/\/+$/, '')}/${project.fullPath}.git`);
  url.username = 'gitlab-ci-token';
  url.password = token;
  return url.toString();
}

/** Ruby's Time#iso8601 of a UTC time: seconds, `Z`. */
const iso8601 = (date: Date) => date.toISOString().replace(/\.\d{3}Z$/, 'Z');

/** GitLab's CI_ENVIRONMENT_* variables of a job with an environment (Gitlab::Ci::Variables::Builder). */
function environmentVariables(env: NonNullable<JobOptions['environment']>): RunnerVariable[] {
  const v = runnerVariable;
  return [
    v('CI_ENVIRONMENT_NAME', env.name),
    ...(env.slug ? [v('CI_ENVIRONMENT_SLUG', env.slug)] : []),
    ...(env.url ? [v('CI_ENVIRONMENT_URL', env.url)] : []),
    v('CI_ENVIRONMENT_ACTION', env.action ?? 'start'),
    ...(env.tier ? [v('CI_ENVIRONMENT_TIER', env.tier)] : []),
  ];
}

/** The job's variables in GitLab's order (Ci::Build#variables): the job's own, the pipeline's predefined ones, the runner's, then configured ones. */
function variablesOf(facts: JobFacts, url: string): RunnerVariable[] {
  const { job, project, config } = facts;
  const options = optionsOf(job);
  const base = config.externalUrl.replace(/\/+$/, '');
  const v = runnerVariable;
  const list: RunnerVariable[] = [
    v('CI_JOB_ID', String(job.id)),
    v('CI_JOB_URL', `${base}/${project.fullPath}/-/jobs/${job.id}`),
    v('CI_JOB_TOKEN', facts.token, { public: false, masked: true }),
    v('CI_JOB_STARTED_AT', iso8601(job.startedAt ?? facts.now)),
    v('CI_REPOSITORY_URL', url, { public: false }),
    v('CI_JOB_NAME', job.name),
    v('CI_JOB_NAME_SLUG', slugify(job.name)),
    v('CI_JOB_STAGE', job.stage),
    ...(job.when === 'manual' ? [v('CI_JOB_MANUAL', 'true')] : []),
    v('CI_NODE_TOTAL', '1'),
    ...(options.environment ? environmentVariables(options.environment) : []),
    ...pipelineVariables(
      config,
      storedPipelineFacts({ ...facts.pipeline, ref: job.ref, tag: job.tag, sha: job.sha }, { protectedRef: facts.protectedRef, commit: facts.commit, user: facts.user, project, mergeRequest: facts.mergeRequest }),
    ).map((p) => v(p.key, p.value)),
    v('CI_RUNNER_ID', String(facts.runner.id)),
    v('CI_RUNNER_DESCRIPTION', facts.runner.description),
    v('CI_RUNNER_TAGS', facts.runner.tagList.join(', ')),
    ...((job.yamlVariables ?? []) as { key: string; value: string }[]).map((y) => v(y.key, y.value)),
    // Ci::Build#dependency_variables: what the dotenv reports of the jobs it depends on declared.
    ...facts.dependencies.flatMap((d) => d.dotenv).map((p) => v(p.key, p.value, { public: false })),
    ...fromCiVariables(facts.ciVariables),
    ...facts.pipelineVariables.map((p) => v(p.key, p.value, { public: false, file: p.variableType === 'file' })),
    ...facts.jobVariables.map((p) => v(p.key, p.value, { public: false })),
  ];
  const expanded = expandVariables(list);
  const tokens = idTokenVariables(facts, expanded);
  return tokens.length ? [...expanded.slice(0, JOB_TOKEN_POSITION), ...tokens, ...expanded.slice(JOB_TOKEN_POSITION)] : expanded;
}

/** Where Ci::Build#variables puts the job's JWT variables: after its persisted ones (CI_JOB_ID … CI_REPOSITORY_URL). */
const JOB_TOKEN_POSITION = 5;

/** ExpandVariables.expand: `$VAR`, `${VAR}` and `%VAR%` replaced by the variable's value, unknown ones by nothing. */
function expandWith(text: string, variables: readonly RunnerVariable[]): string {
  const values = new Map(variables.map((v) => [v.key, v.value]));
  return text.replace(REFERENCE, (match: string, a?: string, b?: string, c?: string) => {
    const name = a ?? b ?? c;
    return name === undefined ? match : (values.get(name) ?? '');
  });
}

/**
 * Ci::Build#id_tokens_variables: one masked, non-public variable per `id_tokens:` entry, its value a JwtV2 for the
 * job with the entry's `aud` (its variables expanded).
 */
function idTokenVariables(facts: JobFacts, variables: readonly RunnerVariable[]): RunnerVariable[] {
  const entries = optionsOf(facts.job).id_tokens ?? [];
  if (!entries.length || !facts.idTokens) return [];
  const claims = idTokenClaims(facts);
  const timeout = effectiveTimeout(facts.job, facts.runner, facts.project.buildTimeout);
  return entries.map(([name, { aud }]) => {
    const audience = Array.isArray(aud) ? aud.map((a) => expandWith(a, variables)) : expandWith(aud, variables);
    const token = encodeJwt(facts.idTokens!.signing, { ...claims, ...registeredClaims(facts.now, timeout), iss: claims.iss, sub: claims.sub, aud: audience });
    return runnerVariable(name, token, { public: false, masked: true });
  });
}

/** JwtV2's claims of a job, in GitLab's order (project claims, CI claims, runner and config claims, then iss and sub). */
function idTokenClaims(facts: JobFacts): Record<string, unknown> & { iss: string; sub: string } {
  const { job, project, pipeline, user } = facts;
  const options = optionsOf(job);
  // Pipeline#source_ref: a merge request pipeline's is its source branch.
  const ref = facts.mergeRequest && job.ref.startsWith('refs/') ? facts.mergeRequest.sourceBranch : job.ref;
  const refType = job.tag ? 'tag' : 'branch';
  const externalUrl = facts.config.externalUrl.replace(/\/+$/, '');
  const configPath = project.ciConfigPath || DEFAULT_CI_CONFIG_PATH;
  const fromRepository = !configPath.includes('@') && !/^https?:\/\//.test(configPath);
  const environment = options.environment;
  return {
    namespace_id: String(project.namespace.id),
    namespace_path: project.namespace.fullPath,
    project_id: String(project.id),
    project_path: project.fullPath,
    user_id: user ? String(user.id) : '',
    user_login: user?.username ?? null,
    user_email: user?.email ?? null,
    user_access_level: facts.idTokens?.userAccessLevel ?? null,
    pipeline_id: String(pipeline.id),
    pipeline_source: pipeline.source,
    job_id: String(job.id),
    ref,
    ref_type: refType,
    ref_path: `${job.tag ? 'refs/tags/' : 'refs/heads/'}${ref}`,
    ref_protected: String(facts.protectedRef),
    ...(environment
      ? { environment: environment.name, environment_protected: 'false', ...(environment.tier ? { deployment_tier: environment.tier } : {}), environment_action: environment.action ?? 'start' }
      : {}),
    runner_id: facts.runner.id,
    // Only GitLab.com's own runners are gitlab-hosted.
    runner_environment: 'self-hosted',
    sha: job.sha,
    project_visibility: project.visibility,
    // ClaimMapper::Repository, for a configuration read from the project's repository.
    ci_config_ref_uri: fromRepository ? `${new URL(externalUrl).host}/${project.fullPath}//${configPath}@${job.tag ? 'refs/tags/' : 'refs/heads/'}${ref}` : null,
    ci_config_sha: fromRepository ? job.sha : null,
    iss: externalUrl,
    sub: `project_path:${project.fullPath}:ref_type:${refType}:ref:${ref}`,
  };
}

/**
 * The archive entry and one per report (BuildRunnerPresenter#artifacts, through JobRequest::Artifacts: `exclude`
 * only when given); null when the job declares none. A report goes up `always`, under its type's default file name
 * and in its type's format; `coverage_report` as its `coverage_format`.
 */
function artifactsOf(job: JobRow): Record<string, unknown>[] | null {
  const artifacts = optionsOf(job).artifacts;
  if (!artifacts) return null;
  const list: Record<string, unknown>[] = [];
  const expireIn = artifacts.expireIn ?? null;
  if (artifacts.untracked || artifacts.paths.length) {
    list.push({
      name: artifacts.name ?? null,
      untracked: artifacts.untracked || null,
      paths: artifacts.paths,
      ...(artifacts.exclude.length ? { exclude: artifacts.exclude } : {}),
      when: artifacts.when,
      expire_in: expireIn,
      artifact_type: 'archive',
      artifact_format: 'zip',
    });
  }
  const reports = artifacts.reports ?? {};
  for (const [key, value] of Array.isArray(reports) ? reports : Object.entries(reports)) {
    if (!value) continue;
    const [type, paths] = Array.isArray(value) ? [key, value] : [value.coverage_format, [value.path]];
    // Jobs stored before every report was kept carry `junit: []` for none.
    if (!paths.length || !REPORT_FILE_NAMES[type]) continue;
    list.push({ name: REPORT_FILE_NAMES[type], untracked: null, paths, when: 'always', expire_in: expireIn, artifact_type: type, artifact_format: TYPE_AND_FORMAT[type] });
  }
  return list;
}

/**
 * Ci::Build#cache: the project's cache index appended to each key (and fallback key), then, while the project keeps
 * separated caches (ci_separated_caches), `-protected` on a protected ref unless the cache is `unprotect`,
 * `-non_protected` otherwise (JobRequest::Cache's fields).
 */
function cachesOf(facts: JobFacts): JobResponse['cache'] {
  const index = facts.project.jobsCacheIndex;
  const separated = facts.project.ciSeparatedCaches;
  return (optionsOf(facts.job).cache ?? []).map((c) => {
    const indexed = (key: string) => (index ? `${key}-${index}` : key);
    const suffix = (key: string) => (separated ? `${indexed(key)}-${facts.protectedRef && !c.unprotect ? 'protected' : 'non_protected'}` : indexed(key));
    return { key: suffix(c.key), untracked: c.untracked, paths: c.paths, policy: c.policy, when: c.when, fallback_keys: c.fallback_keys.map(suffix) };
  });
}

/** GitLab's refspecs: the pipeline's persistent ref, then the ref itself (depth > 0) or every branch and tag. */
function refspecs(facts: JobFacts, depth: number): string[] {
  const { job, pipeline } = facts;
  const specs = facts.persistentRef ? [`+refs/pipelines/${pipeline.id}:refs/pipelines/${pipeline.id}`] : [];
  // A merge request pipeline's ref (refs/merge-requests/<iid>/head) comes through the persistent ref.
  if (job.ref.startsWith('refs/')) return facts.persistentRef ? specs : [`+${job.ref}:${job.ref}`];
  if (depth > 0) specs.push(job.tag ? `+refs/tags/${job.ref}:refs/tags/${job.ref}` : `+refs/heads/${job.ref}:refs/remotes/origin/${job.ref}`);
  else specs.push('+refs/heads/*:refs/remotes/origin/*', '+refs/tags/*:refs/tags/*');
  return specs;
}

export function jobResponse(facts: JobFacts): JobResponse {
  const { job, project, runner } = facts;
  const options = optionsOf(job);
  const url = repoUrl(facts.config, project, facts.token);
  const variables = variablesOf(facts, url);
  const gitDepth = variables.findLast((v) => v.key === 'GIT_DEPTH');
  // Ci::BuildRunnerPresenter#git_depth: the job's GIT_DEPTH, else the project's ci_default_git_depth.
  const depth = gitDepth && /^\d+$/.test(gitDepth.value) ? Number(gitDepth.value) : (project.ciDefaultGitDepth ?? DEFAULT_GIT_DEPTH);
  const timeout = effectiveTimeout(job, runner, project.buildTimeout);
  const afterScript = options.after_script ?? [];
  const running = facts.runningOnInstanceRunners;
  return {
    id: job.id,
    token: facts.token,
    // Ci::Build#allow_git_fetch: the project's build_git_strategy; runners fall back to it without GIT_STRATEGY.
    allow_git_fetch: project.buildAllowGitFetch,
    job_info: {
      id: job.id,
      name: job.name,
      stage: job.stage,
      project_id: project.id,
      project_name: project.name,
      time_in_queue_seconds: job.queuedAt ? Math.max(0, Math.floor(((job.startedAt ?? facts.now).getTime() - job.queuedAt.getTime()) / 1000)) : 0,
      project_jobs_running_on_instance_runners_count: running === null ? '+Inf' : running < RUNNING_JOBS_MAX_BUCKET ? String(running) : `${RUNNING_JOBS_MAX_BUCKET}+`,
    },
    git_info: {
      repo_url: url,
      ref: job.ref,
      sha: job.sha,
      before_sha: facts.pipeline.beforeSha,
      ref_type: job.tag ? 'tag' : 'branch',
      refspecs: refspecs(facts, depth),
      depth,
    },
    runner_info: { timeout, runner_session_url: null },
    variables,
    steps: [
      { name: 'script', script: [...(options.before_script ?? []), ...(options.script ?? [])], timeout, when: 'on_success', allow_failure: false },
      ...(options.release ? [{ name: 'release', script: [releaseCommand(options.release)], timeout, when: 'on_success', allow_failure: false }] : []),
      ...(afterScript.length ? [{ name: 'after_script', script: afterScript, timeout, when: 'always', allow_failure: true }] : []),
    ],
    image: options.image ? { name: options.image.name, entrypoint: options.image.entrypoint ?? null, ports: [] } : null,
    services: (options.services ?? []).map((s) => ({ name: s.name, entrypoint: s.entrypoint ?? null, ports: [], alias: s.alias ?? null, command: s.command ?? null, variables: null })),
    artifacts: artifactsOf(job),
    cache: cachesOf(facts),
    credentials: [],
    features: { trace_sections: true, failure_reasons: FAILURE_REASONS },
    dependencies: facts.dependencies.map((d) => ({ id: d.id, name: d.name, token: facts.token, ...(d.archive ? { artifacts_file: d.archive } : {}) })),
    ...(options.hooks?.pre_get_sources_script?.length ? { hooks: [{ name: 'pre_get_sources_script', script: options.hooks.pre_get_sources_script }] } : {}),
    ...(options.secrets?.length ? { secrets: secretsConfiguration(options, variables) } : {}),
  };
}

/**
 * EE Ci::BuildRunnerPresenter#secrets_configuration: each secret as declared, with the server its provider is
 * reached at (from the job's variables) and the JWT it authenticates with: the secret's `token`, else the job's
 * first ID token, else the long-gone `${CI_JOB_JWT}`.
 */
function secretsConfiguration(options: JobOptions, variables: readonly RunnerVariable[]): Record<string, Record<string, unknown>> {
  const value = (key: string, fallback: string | null = null) => variables.findLast((v) => v.key === key)?.value ?? fallback;
  const firstToken = options.id_tokens?.[0]?.[0];
  const jwt = (secret: Record<string, unknown>, legacy: string) => (firstToken ? ((secret.token as string | undefined) ?? `$${firstToken}`) : legacy);
  return Object.fromEntries(
    (options.secrets ?? []).map(([name, declared]) => {
      const secret: Record<string, unknown> = structuredClone(declared);
      if (isObject(secret.vault)) {
        const data = { jwt: jwt(secret, '${CI_JOB_JWT}'), role: value('VAULT_AUTH_ROLE') };
        secret.vault.server = {
          url: value('VAULT_SERVER_URL'),
          namespace: value('VAULT_NAMESPACE'),
          auth: { name: 'jwt', path: value('VAULT_AUTH_PATH', 'jwt'), data: Object.fromEntries(Object.entries(data).filter(([, v]) => v !== null)) },
        };
      }
      if (isObject(secret.azure_key_vault)) {
        secret.azure_key_vault.server = { url: value('AZURE_KEY_VAULT_SERVER_URL'), client_id: value('AZURE_CLIENT_ID'), tenant_id: value('AZURE_TENANT_ID'), jwt: jwt(secret, '${CI_JOB_JWT_V2}') };
      }
      if (isObject(secret.gcp_secret_manager)) {
        secret.gcp_secret_manager.server = {
          project_number: value('GCP_PROJECT_NUMBER'),
          workload_identity_federation_pool_id: value('GCP_WORKLOAD_IDENTITY_FEDERATION_POOL_ID'),
          workload_identity_federation_provider_id: value('GCP_WORKLOAD_IDENTITY_FEDERATION_PROVIDER_ID'),
          jwt: secret.token ?? null,
        };
      }
      return [name, secret];
    }),
  );
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The CI/CD variables whose presence configures each secrets provider (Ci::Secrets::Integration). */
const PROVIDER_VARIABLES: Record<string, string[]> = {
  vault: ['VAULT_SERVER_URL'],
  azure_key_vault: ['AZURE_KEY_VAULT_SERVER_URL', 'AZURE_CLIENT_ID', 'AZURE_TENANT_ID'],
  gcp_secret_manager: ['GCP_PROJECT_NUMBER', 'GCP_WORKLOAD_IDENTITY_FEDERATION_POOL_ID', 'GCP_WORKLOAD_IDENTITY_FEDERATION_PROVIDER_ID'],
  akeyless: ['AKEYLESS_ACCESS_ID'],
  aws_secrets_manager: ['AWS_REGION'],
};

/**
 * Ci::Secrets::Integration#secrets_provider?: whether some provider is configured (its variables set in the job's
 * variables), and every secret names a configured one. GitLab Secrets Manager is never configured here.
 */
export function secretsProviderFound(secrets: readonly [string, Record<string, unknown>][], variables: readonly RunnerVariable[]): boolean {
  const present = (key: string) => variables.some((v) => v.key === key && v.value !== '');
  const configured = new Set(Object.keys(PROVIDER_VARIABLES).filter((provider) => PROVIDER_VARIABLES[provider].every(present)));
  if (!configured.size) return false;
  return secrets.every(([, settings]) => Object.keys(settings).every((key) => !(key in PROVIDER_VARIABLES || key === 'gitlab_secrets_manager') || configured.has(key)));
}

/** The job's variables as the runner gets them, for the checks made before a job is handed out. */
export function jobVariables(facts: JobFacts): RunnerVariable[] {
  return variablesOf({ ...facts, idTokens: null }, repoUrl(facts.config, facts.project, facts.token));
}

const RELEASE_SINGLE_FLAGS = ['name', 'description', 'tag_name', 'tag_message', 'ref', 'released_at'] as const;

/**
 * GitLab 16's Gitlab::Ci::Build::Releaser#script: `release-cli create` with each present single flag in its order,
 * `--milestone` per milestone and `--assets-link` per link, the link's JSON encoded again as a JSON string.
 */
export function releaseCommand(release: StoredRelease): string {
  let command = 'release-cli create';
  for (const key of RELEASE_SINGLE_FLAGS) {
    if (key in release) command += ` --${key.replace(/_/g, '-')} "${release[key] ?? ''}"`;
  }
  const milestones = release.milestones ?? [];
  for (const milestone of Array.isArray(milestones) ? milestones : [milestones]) command += ` --milestone "${milestone}"`;
  for (const link of release.assets?.links ?? []) command += ` --assets-link ${rubyJson(rubyJson(Object.fromEntries(link)))}`;
  return command;
}

/** ActiveSupport's `to_json`: JSON with `<`, `>`, `&`, U+2028 and U+2029 escaped. */
function rubyJson(value: unknown): string {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
