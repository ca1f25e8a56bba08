/**
 * GitLab's predefined CI/CD variables (doc/ci/variables/predefined_variables.md): those of a pipeline, known when
 * it is created (rules and workflow read them), and those a job adds when it runs.
 */
import type { Config } from '../../config.js';

/** Where a project's CI configuration is when its `ci_config_path` is empty. */
export const DEFAULT_CI_CONFIG_PATH = '.gitlab-ci.yml';

export interface PredefinedVariable {
  key: string;
  value: string;
}

/** GitLab's slug of a ref: lower case, anything but a-z and 0-9 replaced by `-`, at most 63 characters, no `-` at either end. */
export function slugify(value: string): string {
  return value
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '-')
    .slice(0, 63)
    .replace(/^-+|-+$/g, '');
}

export interface PipelineFacts {
  id?: number;
  iid?: number;
  source: string;
  ref: string;
  tag: boolean;
  sha: string;
  beforeSha: string;
  name?: string | null;
  createdAt?: Date;
  protectedRef: boolean;
  configPath: string;
  triggered: boolean;
  commit: { message: string; authorName: string; authorEmail: string; committedDate: string } | null;
  user: { id: number; username: string; name: string; email: string } | null;
  project: { id: number; name: string; path: string; fullPath: string; visibility: string; defaultBranch: string; namespace: { fullPath: string } };
  /** The merge request of a `merge_request_event` pipeline (whose ref is refs/merge-requests/<iid>/head, or /merge). */
  mergeRequest?: MergeRequestFacts | null;
  /** A merged results pipeline's source and target heads, merged into `sha` (GitLab's source_sha and target_sha). */
  sourceSha?: string | null;
  targetSha?: string | null;
}

/** What a merge request pipeline's CI_MERGE_REQUEST_* variables tell (GitLab's MergeRequest#predefined_variables). */
export interface MergeRequestFacts {
  id: number;
  iid: number;
  /** The project the merge request is in (CI_MERGE_REQUEST_PROJECT_*), whichever project the pipeline runs in. */
  targetProject: { id: number; fullPath: string };
  /** Where its source branch lives (CI_MERGE_REQUEST_SOURCE_PROJECT_*): the fork, for a fork's; null once gone. */
  sourceProject: { id: number; fullPath: string } | null;
  title: string;
  sourceBranch: string;
  targetBranch: string;
  draft: boolean;
  squash: boolean;
  diffBaseSha: string | null;
  sourceBranchProtected: boolean;
  targetBranchProtected: boolean;
  labels: readonly string[];
  assignees: readonly string[];
  milestone: string | null;
}

/** GitLab's ref of a merge request's head, which its detached pipelines run on (MergeRequest#ref_path). */
export const mergeRequestRef = (iid: number) => `refs/merge-requests/${iid}/head`;

/** GitLab's ref of a merge request's merged result, which its merged results pipelines run on (MergeRequest#merge_ref_path). */
export const mergeRequestMergeRef = (iid: number) => `refs/merge-requests/${iid}/merge`;

/** GitLab's ref of a merge request's merge train pipelines (MergeRequest#train_ref_path). */
export const mergeRequestTrainRef = (iid: number) => `refs/merge-requests/${iid}/train`;

/** Whether a ref is a merge request's train ref (MergeRequest.merge_train_ref?). */
export const isMergeTrainRef = (ref: string) => /^refs\/merge-requests\/\d+\/train$/.test(ref);

/**
 * Ci::Pipeline#merge_request_event_type: a merge request pipeline with a target sha ran on the merged result (on the
 * train ref: a merge train's, EE's merge_train_pipeline?), one without on the source head alone (detached); null for
 * other pipelines.
 */
export function mergeRequestEventType(pipeline: { mergeRequestId: number | null; targetSha: string | null; ref: string }): 'merge_train' | 'merged_result' | 'detached' | null {
  if (pipeline.mergeRequestId === null) return null;
  if (!pipeline.targetSha) return 'detached';
  return isMergeTrainRef(pipeline.ref) ? 'merge_train' : 'merged_result';
}

/** What a stored pipeline (or one of its jobs, whose ref and commit are the pipeline's) tells its variables. */
export interface StoredPipeline {
  id: number;
  iid: number;
  source: string;
  ref: string;
  tag: boolean;
  sha: string;
  beforeSha: string;
  name: string | null;
  createdAt: Date;
  sourceSha: string | null;
  targetSha: string | null;
}

/** The facts of a pipeline that exists, for its jobs and bridges: GitLab gives them the pipeline's variables. */
export function storedPipelineFacts(
  pipeline: StoredPipeline,
  context: Pick<PipelineFacts, 'protectedRef' | 'commit' | 'user' | 'mergeRequest'> & { project: PipelineFacts['project'] & { ciConfigPath: string | null } },
): PipelineFacts {
  const { id, iid, source, ref, tag, sha, beforeSha, name, createdAt, sourceSha, targetSha } = pipeline;
  return {
    id,
    iid,
    source,
    ref,
    tag,
    sha,
    beforeSha,
    name,
    createdAt,
    sourceSha,
    targetSha,
    ...context,
    configPath: context.project.ciConfigPath || DEFAULT_CI_CONFIG_PATH,
    triggered: source === 'trigger',
  };
}

function serverVariables(config: Config): PredefinedVariable[] {
  const url = new URL(config.externalUrl);
  return [
    { key: 'CI', value: 'true' },
    { key: 'GITLAB_CI', value: 'true' },
    { key: 'CI_SERVER', value: 'yes' },
    { key: 'CI_SERVER_URL', value: url.origin },
    { key: 'CI_SERVER_HOST', value: url.hostname },
    { key: 'CI_SERVER_FQDN', value: url.host },
    { key: 'CI_SERVER_PORT', value: url.port || (url.protocol === 'https:' ? '443' : '80') },
    { key: 'CI_SERVER_PROTOCOL', value: url.protocol.replace(':', '') },
    { key: 'CI_SERVER_NAME', value: 'GitLab' },
    { key: 'CI_API_V4_URL', value: `${url.origin}/api/v4` },
    { key: 'CI_API_GRAPHQL_URL', value: `${url.origin}/api/graphql` },
  ];
}

/** The variables of a pipeline, in GitLab's names, as rules and `workflow` see them and every job gets them. */
export function pipelineVariables(config: Config, facts: PipelineFacts): PredefinedVariable[] {
  const { project, commit, user } = facts;
  const base = config.externalUrl.replace(/\/+$/, '');
  const mr = facts.mergeRequest ?? null;
  // A merge request pipeline's CI_COMMIT_REF_NAME is its source branch; it has no CI_COMMIT_BRANCH (Ci::Pipeline#source_ref).
  const refName = mr ? mr.sourceBranch : facts.ref;
  const out: PredefinedVariable[] = [
    ...serverVariables(config),
    { key: 'CI_PROJECT_ID', value: String(project.id) },
    { key: 'CI_PROJECT_NAME', value: project.path },
    { key: 'CI_PROJECT_TITLE', value: project.name },
    { key: 'CI_PROJECT_PATH', value: project.fullPath },
    { key: 'CI_PROJECT_PATH_SLUG', value: slugify(project.fullPath) },
    { key: 'CI_PROJECT_NAMESPACE', value: project.namespace.fullPath },
    { key: 'CI_PROJECT_ROOT_NAMESPACE', value: project.namespace.fullPath.split('/')[0] },
    { key: 'CI_PROJECT_URL', value: `${base}/${project.fullPath}` },
    { key: 'CI_PROJECT_VISIBILITY', value: project.visibility },
    { key: 'CI_DEFAULT_BRANCH', value: project.defaultBranch },
    { key: 'CI_CONFIG_PATH', value: facts.configPath },
    { key: 'CI_PIPELINE_SOURCE', value: facts.source },
    { key: 'CI_COMMIT_SHA', value: facts.sha },
    { key: 'CI_COMMIT_SHORT_SHA', value: facts.sha.slice(0, 8) },
    { key: 'CI_COMMIT_BEFORE_SHA', value: facts.beforeSha },
    { key: 'CI_COMMIT_REF_NAME', value: refName },
    { key: 'CI_COMMIT_REF_SLUG', value: slugify(refName) },
    { key: 'CI_COMMIT_REF_PROTECTED', value: String(facts.protectedRef) },
    ...(mr ? [] : [facts.tag ? { key: 'CI_COMMIT_TAG', value: refName } : { key: 'CI_COMMIT_BRANCH', value: refName }]),
  ];
  if (mr) out.push(...mergeRequestVariables(base, mr, facts));
  if (facts.id !== undefined) {
    out.push({ key: 'CI_PIPELINE_ID', value: String(facts.id) }, { key: 'CI_PIPELINE_URL', value: `${base}/${project.fullPath}/-/pipelines/${facts.id}` });
  }
  if (facts.iid !== undefined) out.push({ key: 'CI_PIPELINE_IID', value: String(facts.iid) });
  if (facts.createdAt) out.push({ key: 'CI_PIPELINE_CREATED_AT', value: facts.createdAt.toISOString().replace(/\.\d{3}Z$/, 'Z') });
  if (facts.name) out.push({ key: 'CI_PIPELINE_NAME', value: facts.name });
  if (facts.triggered) out.push({ key: 'CI_PIPELINE_TRIGGERED', value: 'true' });
  if (commit) {
    const [title = ''] = commit.message.split('\n');
    const description = commit.message.includes('\n') ? commit.message.slice(commit.message.indexOf('\n') + 1) : '';
    out.push(
      { key: 'CI_COMMIT_MESSAGE', value: commit.message },
      { key: 'CI_COMMIT_TITLE', value: title },
      { key: 'CI_COMMIT_DESCRIPTION', value: description },
      { key: 'CI_COMMIT_AUTHOR', value: `${commit.authorName} <${commit.authorEmail}>` },
      { key: 'CI_COMMIT_TIMESTAMP', value: commit.committedDate },
    );
  }
  if (user) {
    out.push(
      { key: 'GITLAB_USER_ID', value: String(user.id) },
      { key: 'GITLAB_USER_LOGIN', value: user.username },
      { key: 'GITLAB_USER_NAME', value: user.name },
      { key: 'GITLAB_USER_EMAIL', value: user.email },
    );
  }
  return out;
}

/**
 * GitLab's CI_MERGE_REQUEST_* variables of a merge request pipeline, which tell the merge request's project and its
 * source project whichever project runs the pipeline (a fork's merge request pipeline runs in the fork): the
 * pipeline's own (Variables::Builder::Pipeline#predefined_merge_request_variables: event type, source and target
 * shas, empty on a detached pipeline) with the merge request's (MergeRequest#predefined_variables).
 */
function mergeRequestVariables(base: string, mr: MergeRequestFacts, facts: PipelineFacts): PredefinedVariable[] {
  const target = mr.targetProject;
  const source = mr.sourceProject;
  const out: PredefinedVariable[] = [
    { key: 'CI_MERGE_REQUEST_ID', value: String(mr.id) },
    { key: 'CI_MERGE_REQUEST_IID', value: String(mr.iid) },
    { key: 'CI_MERGE_REQUEST_REF_PATH', value: mergeRequestRef(mr.iid) },
    { key: 'CI_MERGE_REQUEST_PROJECT_ID', value: String(target.id) },
    { key: 'CI_MERGE_REQUEST_PROJECT_PATH', value: target.fullPath },
    { key: 'CI_MERGE_REQUEST_PROJECT_URL', value: `${base}/${target.fullPath}` },
    { key: 'CI_MERGE_REQUEST_TARGET_BRANCH_NAME', value: mr.targetBranch },
    { key: 'CI_MERGE_REQUEST_TARGET_BRANCH_PROTECTED', value: String(mr.targetBranchProtected) },
    { key: 'CI_MERGE_REQUEST_TITLE', value: mr.title },
    { key: 'CI_MERGE_REQUEST_DRAFT', value: String(mr.draft) },
  ];
  if (mr.assignees.length) out.push({ key: 'CI_MERGE_REQUEST_ASSIGNEES', value: mr.assignees.join(',') });
  if (mr.milestone !== null) out.push({ key: 'CI_MERGE_REQUEST_MILESTONE', value: mr.milestone });
  if (mr.labels.length) out.push({ key: 'CI_MERGE_REQUEST_LABELS', value: mr.labels.join(',') });
  out.push(
    // MergeRequest#source_project_variables: none once the source project is gone.
    ...(source
      ? [
          { key: 'CI_MERGE_REQUEST_SOURCE_BRANCH_NAME', value: mr.sourceBranch },
          { key: 'CI_MERGE_REQUEST_SOURCE_BRANCH_PROTECTED', value: String(mr.sourceBranchProtected) },
          { key: 'CI_MERGE_REQUEST_SOURCE_PROJECT_ID', value: String(source.id) },
          { key: 'CI_MERGE_REQUEST_SOURCE_PROJECT_PATH', value: source.fullPath },
          { key: 'CI_MERGE_REQUEST_SOURCE_PROJECT_URL', value: `${base}/${source.fullPath}` },
        ]
      : []),
    { key: 'CI_MERGE_REQUEST_SQUASH_ON_MERGE', value: String(mr.squash) },
    { key: 'CI_MERGE_REQUEST_EVENT_TYPE', value: mergeRequestEventType({ mergeRequestId: mr.id, targetSha: facts.targetSha ?? null, ref: facts.ref })! },
  );
  if (mr.diffBaseSha) out.push({ key: 'CI_MERGE_REQUEST_DIFF_BASE_SHA', value: mr.diffBaseSha });
  out.push({ key: 'CI_MERGE_REQUEST_SOURCE_BRANCH_SHA', value: facts.sourceSha ?? '' }, { key: 'CI_MERGE_REQUEST_TARGET_BRANCH_SHA', value: facts.targetSha ?? '' });
  return out;
}

/** As a map for expressions: later entries win. */
export function variableMap(...lists: readonly (readonly PredefinedVariable[])[]): Record<string, string> {
  const map: Record<string, string> = {};
  for (const list of lists) for (const { key, value } of list) map[key] = value;
  return map;
}
