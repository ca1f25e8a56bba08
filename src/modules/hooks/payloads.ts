/**
 * Webhook payloads as GitLab builds them (Gitlab::HookData::*, SystemHooksService, Gitlab::DataBuilder::*): plain
 * functions of rows, so a writer builds its event in its own transaction, from what it just changed.
 */
import { humanDuration } from '../issues/durations.js';
import { severityOf } from '../issues/incidents.js';

/** GitLab's `POST /hooks/:id` sample (API::SystemHooks): a project creation that never happened, keys in its order. */
/** The `repository` object of push and pipeline payloads (GitLab's Gitlab::HookData::RepositoryBuilder, its legacy part). */
function repositoryData(project: { name: unknown; url: unknown; description: unknown; homepage: unknown; git_http_url: unknown; git_ssh_url: unknown; visibility_level: unknown }) {
  const { name, url, description, homepage, git_http_url, git_ssh_url, visibility_level } = project;
  return { name, url, description, homepage, git_http_url, git_ssh_url, visibility_level };
}

export function systemHookSample() {
  return { eventName: 'project_create', name: 'Ruby', path: 'ruby', projectId: 1, ownerName: 'Someone', ownerEmail: 'example@gitlabhq.com' };
}

/** The sample as it is delivered (snake_case, as GitLab's hash). */
export function systemHookSampleData() {
  return { event_name: 'project_create', name: 'Ruby', path: 'ruby', project_id: 1, owner_name: 'Someone', owner_email: 'example@gitlabhq.com' };
}

const iso = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, 'Z');

export interface HookUser {
  id: number;
  name: string;
  username: string;
  email: string;
  avatarUrl?: string | null;
}

export interface HookProject {
  id: number;
  name: string;
  path: string;
  fullPath: string;
  description: string | null;
  visibility: string;
  namespaceId: number;
  namespaceName: string;
  defaultBranch: string | null;
  ciConfigPath: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/** GitLab's visibility levels as numbers (Gitlab::VisibilityLevel). */
const VISIBILITY_LEVEL: Record<string, number> = { private: 0, internal: 10, public: 20 };

/** SystemHooksService's project_create / project_destroy (owners: the project's owners, or its namespace's). */
export function projectSystemEvent(event: 'project_create' | 'project_destroy', project: HookProject, owners: HookUser[]) {
  const owner = owners[0];
  return {
    event_name: event,
    created_at: iso(project.createdAt),
    updated_at: iso(project.updatedAt),
    name: project.name,
    path: project.path,
    path_with_namespace: project.fullPath,
    project_id: project.id,
    project_namespace_id: project.namespaceId,
    owner_name: owner?.name ?? null,
    owner_email: owner?.email ?? null,
    owners: owners.map((o) => ({ name: o.name, email: o.email })),
    project_visibility: project.visibility,
  };
}

/** SystemHooksService's user_create / user_destroy. */
export function userSystemEvent(event: 'user_create' | 'user_destroy', user: HookUser & { createdAt: Date; updatedAt: Date }) {
  return {
    event_name: event,
    created_at: iso(user.createdAt),
    updated_at: iso(user.updatedAt),
    name: user.name,
    email: user.email,
    user_id: user.id,
    username: user.username,
  };
}

/** SystemHooksService's group_create / group_destroy. */
export function groupSystemEvent(event: 'group_create' | 'group_destroy', group: { id: number; name: string; path: string; fullPath: string; createdAt: Date; updatedAt: Date }) {
  return {
    event_name: event,
    created_at: iso(group.createdAt),
    updated_at: iso(group.updatedAt),
    name: group.name,
    path: group.path,
    full_path: group.fullPath,
    group_id: group.id,
    owner_name: null,
    owner_email: null,
  };
}

/** SystemHooksService's key_create / key_destroy. */
export function keySystemEvent(event: 'key_create' | 'key_destroy', key: { id: number; key: string; createdAt: Date; updatedAt: Date }, username: string) {
  return { event_name: event, created_at: iso(key.createdAt), updated_at: iso(key.updatedAt), username, key: key.key, id: key.id };
}

export interface HookCommit {
  id: string;
  message: string;
  title: string;
  timestamp: Date;
  authorName: string;
  authorEmail: string;
  added: string[];
  modified: string[];
  removed: string[];
}

/** Project as webhook payloads show it (Project#hook_attrs), with the repository's URLs. */
export function hookProject(project: HookProject, externalUrl: string) {
  const webUrl = `${externalUrl}/${project.fullPath}`;
  const host = new URL(externalUrl).host;
  const ssh = `git@${host.replace(/:\d+$/, '')}:${project.fullPath}.git`;
  const http = `${webUrl}.git`;
  return {
    id: project.id,
    name: project.name,
    description: project.description,
    web_url: webUrl,
    avatar_url: null,
    git_ssh_url: ssh,
    git_http_url: http,
    namespace: project.namespaceName,
    visibility_level: VISIBILITY_LEVEL[project.visibility] ?? 0,
    path_with_namespace: project.fullPath,
    default_branch: project.defaultBranch,
    ci_config_path: project.ciConfigPath,
    homepage: webUrl,
    url: ssh,
    ssh_url: ssh,
    http_url: http,
  };
}

/** Gitlab::DataBuilder::Push: a push or tag push; at most 20 commits listed, newest first as GitLab lists them. */
export function pushData(input: {
  kind: 'push' | 'tag_push';
  project: HookProject;
  user: HookUser;
  ref: string;
  before: string;
  after: string;
  refProtected: boolean;
  commits: HookCommit[];
  totalCommitsCount: number;
  message?: string | null;
  externalUrl: string;
}) {
  const project = hookProject(input.project, input.externalUrl);
  const removed = /^0+$/.test(input.after);
  return {
    object_kind: input.kind,
    event_name: input.kind,
    before: input.before,
    after: input.after,
    ref: input.ref,
    ref_protected: input.refProtected,
    checkout_sha: removed ? null : input.after,
    message: input.message ?? null,
    user_id: input.user.id,
    user_name: input.user.name,
    user_username: input.user.username,
    user_email: input.user.email,
    user_avatar: input.user.avatarUrl ?? null,
    project_id: input.project.id,
    project,
    commits: input.commits.map((c) => ({
      id: c.id,
      message: c.message,
      title: c.title,
      timestamp: c.timestamp.toISOString().replace(/\.\d{3}Z$/, '+00:00'),
      url: `${project.web_url}/-/commit/${c.id}`,
      author: { name: c.authorName, email: c.authorEmail },
      added: c.added,
      modified: c.modified,
      removed: c.removed,
    })),
    total_commits_count: input.totalCommitsCount,
    push_options: {},
    repository: repositoryData(project),
  };
}

/** A commit as pipeline and note hooks show it (Commit#hook_attrs). */
function commitHookAttrs(commit: HookCommit, projectWebUrl: string) {
  return {
    id: commit.id,
    message: commit.message,
    title: commit.title,
    timestamp: commit.timestamp.toISOString().replace(/\.\d{3}Z$/, '+00:00'),
    url: `${projectWebUrl}/-/commit/${commit.id}`,
    author: { name: commit.authorName, email: commit.authorEmail },
  };
}

/** Times as GitLab's pipeline and job hooks write them: `2016-08-12 15:23:28 UTC`. */
const hookTime = (d: Date | null) => (d ? d.toISOString().replace('T', ' ').replace(/\.\d{3}Z$/, ' UTC') : null);

export interface HookPipeline {
  id: number;
  iid: number;
  name: string | null;
  ref: string;
  tag: boolean;
  sha: string;
  beforeSha: string;
  source: string;
  createdAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
  duration: number | null;
}

export interface HookJob {
  id: number;
  name: string;
  stage: string;
  stageIdx: number;
  status: string;
  when: string;
  allowFailure: boolean;
  failureReason: string | null;
  createdAt: Date;
  queuedAt: Date | null;
  startedAt: Date | null;
  finishedAt: Date | null;
  runnerId: number | null;
}

/** GitLab's detailed status text of a pipeline in hooks (`passed` for success). */
const DETAILED: Record<string, string> = { success: 'passed', waiting_for_resource: 'waiting' };

function seconds(from: Date | null, to: Date | null): number | null {
  return from && to ? (to.getTime() - from.getTime()) / 1000 : null;
}

/** Gitlab::DataBuilder::Pipeline: a pipeline at the status the event names, with its jobs. */
export function pipelineData(input: { pipeline: HookPipeline; status: string; jobs: HookJob[]; project: HookProject; user: HookUser | null; commit: HookCommit | null; externalUrl: string }) {
  const project = hookProject(input.project, input.externalUrl);
  const { pipeline } = input;
  const stages = [...new Map([...input.jobs].sort((a, b) => a.stageIdx - b.stageIdx).map((j) => [j.stage, j.stage])).keys()];
  const user = input.user && { id: input.user.id, name: input.user.name, username: input.user.username, avatar_url: input.user.avatarUrl ?? null, email: input.user.email };
  return {
    object_kind: 'pipeline',
    object_attributes: {
      id: pipeline.id,
      iid: pipeline.iid,
      name: pipeline.name,
      ref: pipeline.ref,
      tag: pipeline.tag,
      sha: pipeline.sha,
      before_sha: pipeline.beforeSha,
      source: pipeline.source,
      status: input.status,
      detailed_status: DETAILED[input.status] ?? input.status,
      stages,
      created_at: hookTime(pipeline.createdAt),
      finished_at: hookTime(pipeline.finishedAt),
      duration: pipeline.duration,
      queued_duration: seconds(pipeline.createdAt, pipeline.startedAt),
      variables: [],
      url: `${project.web_url}/-/pipelines/${pipeline.id}`,
    },
    merge_request: null,
    user,
    project,
    commit: input.commit && commitHookAttrs(input.commit, project.web_url),
    builds: input.jobs.map((j) => ({
      id: j.id,
      stage: j.stage,
      name: j.name,
      status: j.status,
      created_at: hookTime(j.createdAt),
      started_at: hookTime(j.startedAt),
      finished_at: hookTime(j.finishedAt),
      duration: seconds(j.startedAt, j.finishedAt),
      queued_duration: seconds(j.queuedAt, j.startedAt),
      failure_reason: j.failureReason,
      when: j.when,
      manual: j.when === 'manual',
      allow_failure: j.allowFailure,
      user,
      runner: j.runnerId === null ? null : { id: j.runnerId },
      artifacts_file: { filename: null, size: null },
      environment: null,
    })),
  };
}

/** Gitlab::DataBuilder::Build: a job at the status its event names. */
export function jobData(input: { job: HookJob & { ref: string; tag: boolean; sha: string; retryCount: number; pipelineId: number }; beforeSha: string; pipeline: HookPipeline & { status: string }; status: string; project: HookProject; user: HookUser | null; commit: HookCommit | null; externalUrl: string }) {
  const project = hookProject(input.project, input.externalUrl);
  const { job } = input;
  return {
    object_kind: 'build',
    ref: job.ref,
    tag: job.tag,
    before_sha: input.beforeSha,
    sha: job.sha,
    retries_count: job.retryCount,
    build_id: job.id,
    build_name: job.name,
    build_stage: job.stage,
    build_status: input.status,
    build_created_at: hookTime(job.createdAt),
    build_started_at: hookTime(job.startedAt),
    build_finished_at: hookTime(job.finishedAt),
    build_duration: seconds(job.startedAt, job.finishedAt),
    build_queued_duration: seconds(job.queuedAt, job.startedAt),
    build_allow_failure: job.allowFailure,
    build_failure_reason: job.failureReason ?? 'unknown_failure',
    pipeline_id: job.pipelineId,
    runner: job.runnerId === null ? null : { id: job.runnerId },
    project_id: input.project.id,
    project_name: `${input.project.namespaceName} / ${input.project.name}`,
    user: input.user && { id: input.user.id, name: input.user.name, username: input.user.username, avatar_url: input.user.avatarUrl ?? null, email: input.user.email },
    // GitLab's "commit" of a job hook is its pipeline.
    commit: {
      id: input.pipeline.id,
      name: input.pipeline.name,
      sha: job.sha,
      message: input.commit?.message ?? '',
      author_name: input.commit?.authorName ?? '',
      author_email: input.commit?.authorEmail ?? '',
      author_url: null,
      status: input.pipeline.status,
      duration: input.pipeline.duration,
      started_at: hookTime(input.pipeline.startedAt),
      finished_at: hookTime(input.pipeline.finishedAt),
    },
    repository: repositoryData(project),
    project,
    environment: null,
  };
}

/** A note as note hooks carry it (Note#hook_attrs, Gitlab::HookData::NoteBuilder's safe attributes). */
export interface HookNote {
  id: number;
  note: string;
  type: string | null;
  noteableType: string;
  noteableId: number | null;
  commitId: string | null;
  discussionId: string;
  lineCode: string | null;
  position: unknown;
  authorId: number;
  projectId: number | null;
  system: boolean;
  internal: boolean;
  updatedById: number | null;
  createdAt: Date;
  updatedAt: Date;
}

/**
 * Gitlab::DataBuilder::Note: a note made (`create`) or changed (`update`), with what it is on as GitLab embeds it
 * (`commit`, or `embedded`: `{ issue }`, `{ snippet }`); `confidential_note` for an internal note or one on a
 * confidential issue.
 */
export function noteData(input: {
  note: HookNote;
  action: 'create' | 'update';
  url: string;
  project: HookProject;
  user: HookUser;
  commit: HookCommit | null;
  embedded?: Record<string, unknown>;
  confidential?: boolean;
  externalUrl: string;
}) {
  const { note } = input;
  const project = hookProject(input.project, input.externalUrl);
  return {
    object_kind: 'note',
    event_type: input.confidential ? 'confidential_note' : 'note',
    user: { id: input.user.id, name: input.user.name, username: input.user.username, avatar_url: input.user.avatarUrl ?? null, email: input.user.email },
    project_id: input.project.id,
    project,
    object_attributes: {
      attachment: null,
      author_id: note.authorId,
      change_position: null,
      commit_id: note.commitId,
      created_at: hookTime(note.createdAt),
      discussion_id: note.discussionId,
      id: note.id,
      line_code: note.lineCode,
      note: note.note,
      noteable_id: note.noteableId,
      noteable_type: note.noteableType,
      original_position: null,
      position: note.position ?? null,
      project_id: note.projectId,
      resolved_at: null,
      resolved_by_id: null,
      resolved_by_push: null,
      st_diff: null,
      system: note.system,
      type: note.type,
      updated_at: hookTime(note.updatedAt),
      updated_by_id: note.updatedById,
      internal: note.internal,
      description: note.note,
      url: input.url,
      action: input.action,
    },
    repository: { name: project.name, url: project.url, description: project.description, homepage: project.homepage },
    ...(input.commit ? { commit: commitHookAttrs(input.commit, project.web_url) } : {}),
    ...input.embedded,
  };
}

/** A user as issue and note hooks show them (User#hook_attrs). */
export function userHookAttrs(user: HookUser) {
  return { id: user.id, name: user.name, username: user.username, avatar_url: user.avatarUrl ?? null, email: user.email };
}

export interface HookLabel {
  id: number;
  title: string;
  color: string;
  description: string | null;
  projectId: number | null;
  groupId: number | null;
  createdAt: Date;
  updatedAt: Date;
}

/** Label#hook_attrs. */
export function labelHookAttrs(label: HookLabel) {
  return {
    id: label.id,
    title: label.title,
    color: label.color,
    project_id: label.projectId,
    created_at: hookTime(label.createdAt),
    updated_at: hookTime(label.updatedAt),
    template: false,
    description: label.description,
    type: label.projectId !== null ? 'ProjectLabel' : 'GroupLabel',
    group_id: label.groupId,
  };
}

/** An issue with what its hook data shows of it: its labels (title order) and assignees (assignment order). */
export interface HookIssue {
  id: number;
  iid: number;
  projectId: number;
  title: string;
  description: string | null;
  state: string;
  authorId: number | null;
  confidential: boolean;
  discussionLocked: boolean | null;
  dueDate: Date | null;
  milestoneId: number | null;
  weight: number | null;
  closedAt: Date | null;
  timeEstimate: number;
  totalTimeSpent: number;
  /** Its relative position in the project (issues.relative_position); null until placed. */
  relativePosition?: number | null;
  createdAt: Date;
  updatedAt: Date;
  labels: HookLabel[];
  assignees: HookUser[];
  issueType: string;
  severity: string | null;
  escalationStatus: string | null;
  healthStatus: string | null;
  /** The issue it was moved to (Issues::MoveService). */
  movedToId?: number | null;
}

const day = (d: Date | null) => (d ? d.toISOString().slice(0, 10) : null);

/** The issue's page (Gitlab::UrlBuilder). */
export function issueUrl(project: Pick<HookProject, 'fullPath'>, iid: number, externalUrl: string): string {
  return `${externalUrl}/${project.fullPath}/-/issues/${iid}`;
}

/** Gitlab::HookData::IssueBuilder: the issue's safe attributes with its URL, time tracking, assignees and labels. */
export function issueHookAttrs(issue: HookIssue, project: Pick<HookProject, 'fullPath'>, externalUrl: string) {
  const assigneeIds = issue.assignees.map((a) => a.id);
  return {
    author_id: issue.authorId,
    closed_at: hookTime(issue.closedAt),
    confidential: issue.confidential,
    created_at: hookTime(issue.createdAt),
    description: issue.description,
    discussion_locked: issue.discussionLocked,
    due_date: day(issue.dueDate),
    id: issue.id,
    iid: issue.iid,
    last_edited_at: null,
    last_edited_by_id: null,
    milestone_id: issue.milestoneId,
    moved_to_id: issue.movedToId ?? null,
    duplicated_to_id: null,
    project_id: issue.projectId,
    relative_position: issue.relativePosition ?? null,
    state_id: issue.state === 'closed' ? 2 : 1,
    time_estimate: issue.timeEstimate,
    title: issue.title,
    updated_at: hookTime(issue.updatedAt),
    updated_by_id: null,
    weight: issue.weight,
    type: issue.issueType === 'incident' ? 'Incident' : 'Issue',
    url: issueUrl(project, issue.iid, externalUrl),
    total_time_spent: issue.totalTimeSpent,
    time_change: 0,
    human_total_time_spent: humanDuration(issue.totalTimeSpent),
    human_time_change: null,
    human_time_estimate: humanDuration(issue.timeEstimate),
    assignee_ids: assigneeIds,
    assignee_id: assigneeIds[0] ?? null,
    labels: issue.labels.map(labelHookAttrs),
    state: issue.state,
    severity: severityOf(issue),
    customer_relations_contacts: [],
  };
}

export type IssueHookAction = 'open' | 'update' | 'close' | 'reopen';

/** What an issue was before a change, for the hook's `changes` (Issuable#to_hook_data's reportable changes). */
export type IssueBefore = Omit<HookIssue, 'id' | 'iid' | 'projectId' | 'createdAt'>;

/** The `changes` of an issue hook: each attribute (and association) that differs, `{ previous, current }`. */
function issueChanges(before: IssueBefore | null, after: HookIssue) {
  const changes: Record<string, { previous: unknown; current: unknown }> = {};
  const add = (key: string, previous: unknown, current: unknown) => {
    if (JSON.stringify(previous) !== JSON.stringify(current)) changes[key] = { previous, current };
  };
  if (!before) {
    // A new record's attributes all changed from nothing (Rails' previous_changes after create), those set at least.
    const created = issueHookAttrs(after, { fullPath: '' }, '');
    for (const key of ['author_id', 'created_at', 'description', 'id', 'iid', 'project_id', 'title', 'updated_at', 'confidential', 'due_date', 'milestone_id', 'discussion_locked']) {
      const value = (created as Record<string, unknown>)[key];
      if (value !== null && value !== undefined && value !== false) changes[key] = { previous: null, current: value };
    }
    if (after.state !== 'opened') changes.state_id = { previous: null, current: created.state_id };
  } else {
    add('title', before.title, after.title);
    add('description', before.description, after.description);
    add('state_id', before.state === 'closed' ? 2 : 1, after.state === 'closed' ? 2 : 1);
    // Times differ by their instants, even within the second their hook text shows.
    if (before.closedAt?.getTime() !== after.closedAt?.getTime()) changes.closed_at = { previous: hookTime(before.closedAt), current: hookTime(after.closedAt) };
    add('confidential', before.confidential, after.confidential);
    add('discussion_locked', before.discussionLocked, after.discussionLocked);
    add('due_date', day(before.dueDate), day(after.dueDate));
    add('milestone_id', before.milestoneId, after.milestoneId);
    add('weight', before.weight, after.weight);
    add('time_estimate', before.timeEstimate, after.timeEstimate);
    if (before.updatedAt.getTime() !== after.updatedAt.getTime()) changes.updated_at = { previous: hookTime(before.updatedAt), current: hookTime(after.updatedAt) };
  }
  // Associations are compared only for an update (Issues::CreateService's hook passes no old associations).
  if (!before) return changes;
  add('assignees', before.assignees.map(userHookAttrs), after.assignees.map(userHookAttrs));
  add('labels', before.labels.map(labelHookAttrs), after.labels.map(labelHookAttrs));
  if (before.totalTimeSpent !== after.totalTimeSpent) {
    changes.total_time_spent = { previous: before.totalTimeSpent, current: after.totalTimeSpent };
    changes.time_change = { previous: 0, current: after.totalTimeSpent - before.totalTimeSpent };
  }
  return changes;
}

/** Gitlab::DataBuilder::Issuable for an issue: an Issue Hook (`confidential_issue` for confidential issues). */
export function issueData(input: { issue: HookIssue; before: IssueBefore | null; action: IssueHookAction; project: HookProject; user: HookUser; externalUrl: string; sample?: boolean }) {
  const project = hookProject(input.project, input.externalUrl);
  const attributes = issueHookAttrs(input.issue, input.project, input.externalUrl);
  const data: Record<string, unknown> = {
    object_kind: 'issue',
    event_type: input.issue.confidential ? 'confidential_issue' : 'issue',
    user: userHookAttrs(input.user),
    project,
    object_attributes: { ...attributes, action: input.action },
    labels: attributes.labels,
    // A test's sample is the issue as it is: nothing changed (TestHooks::ProjectService's to_hook_data).
    changes: input.sample ? {} : issueChanges(input.before, input.issue),
    repository: { name: project.name, url: project.url, description: project.description, homepage: project.homepage },
  };
  if (input.issue.assignees.length) data.assignees = input.issue.assignees.map(userHookAttrs);
  return data;
}

/** A project snippet as note hooks embed it (Snippet#hook_attrs). */
export interface HookSnippet {
  id: number;
  title: string;
  description: string | null;
  content: string;
  fileName: string;
  authorId: number;
  projectId: number | null;
  type: string;
  visibility: string;
  createdAt: Date;
  updatedAt: Date;
}

export function snippetHookAttrs(snippet: HookSnippet, project: Pick<HookProject, 'fullPath'> | null, externalUrl: string) {
  return {
    id: snippet.id,
    title: snippet.title,
    description: snippet.description,
    content: snippet.content,
    author_id: snippet.authorId,
    project_id: snippet.projectId,
    created_at: hookTime(snippet.createdAt),
    updated_at: hookTime(snippet.updatedAt),
    file_name: snippet.fileName,
    type: snippet.type,
    visibility_level: VISIBILITY_LEVEL[snippet.visibility] ?? 0,
    url: project ? `${externalUrl}/${project.fullPath}/-/snippets/${snippet.id}` : `${externalUrl}/-/snippets/${snippet.id}`,
  };
}

/** Gitlab::DataBuilder::Release: a release made (`create`), changed (`update`) or deleted (`delete`), with its assets and commit. */
export function releaseData(input: {
  release: { id: number; name: string | null; description: string | null; tag: string; createdAt: Date; releasedAt: Date };
  action: 'create' | 'update' | 'delete';
  url: string;
  project: HookProject;
  links: { id: number; name: string; url: string; linkType: string; external: boolean }[];
  sources: { format: string; url: string }[];
  commit: Omit<HookCommit, 'added' | 'modified' | 'removed'> | null;
  externalUrl: string;
}) {
  const { release } = input;
  const project = hookProject(input.project, input.externalUrl);
  return {
    id: release.id,
    created_at: hookTime(release.createdAt),
    description: release.description,
    name: release.name,
    released_at: hookTime(release.releasedAt),
    tag: release.tag,
    object_kind: 'release',
    project,
    url: input.url,
    action: input.action,
    assets: {
      count: input.links.length + input.sources.length,
      links: input.links.map((l) => ({ id: l.id, external: l.external, link_type: l.linkType, name: l.name, url: l.url })),
      sources: input.sources,
    },
    commit: input.commit ? commitHookAttrs({ ...input.commit, added: [], modified: [], removed: [] }, project.web_url) : null,
  };
}

/** Gitlab::DataBuilder::Deployment: a deployment's status change. */
export function deploymentData(input: {
  deployment: { id: number; jobId: number | null; sha: string; ref: string; environment: { name: string; tier: string; slug: string; externalUrl: string | null } };
  status: string;
  changedAt: Date;
  project: HookProject;
  user: HookUser | null;
  commitTitle: string | null;
  externalUrl: string;
}) {
  const { deployment, project, user, externalUrl } = input;
  const webUrl = `${externalUrl}/${project.fullPath}`;
  return {
    object_kind: 'deployment',
    status: input.status,
    status_changed_at: input.changedAt.toISOString().replace('T', ' ').replace(/\.\d{3}Z$/, ' UTC'),
    deployment_id: deployment.id,
    deployable_id: deployment.jobId,
    deployable_url: deployment.jobId === null ? null : `${webUrl}/-/jobs/${deployment.jobId}`,
    environment: deployment.environment.name,
    environment_tier: deployment.environment.tier,
    environment_slug: deployment.environment.slug,
    environment_external_url: deployment.environment.externalUrl,
    project: hookProject(project, externalUrl),
    short_sha: deployment.sha.slice(0, 8),
    user: user && { id: user.id, name: user.name, username: user.username, avatar_url: user.avatarUrl ?? null, email: user.email },
    user_url: user ? `${externalUrl}/${user.username}` : null,
    commit_url: `${webUrl}/-/commit/${deployment.sha}`,
    commit_title: input.commitTitle,
    ref: deployment.ref,
  };
}

/**
 * A merge request with what its hook data shows of it (Gitlab::HookData::MergeRequestBuilder): its labels (title
 * order), assignees and reviewers (in the order they were added), and what its git and pipelines say now.
 */
export interface HookMergeRequest {
  id: number;
  iid: number;
  projectId: number;
  sourceProjectId: number | null;
  sourceBranch: string;
  targetBranch: string;
  title: string;
  description: string | null;
  state: string;
  draft: boolean;
  authorId: number | null;
  milestoneId: number | null;
  mergeCommitSha: string | null;
  mergeUserId: number | null;
  autoMergeEnabled: boolean;
  forceRemoveSourceBranch: boolean;
  mergeParams: unknown;
  timeEstimate: number;
  totalTimeSpent: number;
  createdAt: Date;
  updatedAt: Date;
  labels: HookLabel[];
  assignees: HookUser[];
  reviewers: HookUser[];
  /** The source branch's head commit (diff_head_commit), if it is still there. */
  lastCommit: Omit<HookCommit, 'added' | 'modified' | 'removed'> | null;
  /** The deprecated merge_status column's value. */
  mergeStatus: string;
  detailedMergeStatus: string;
  headPipelineId: number | null;
  firstContribution: boolean;
  blockingDiscussionsResolved: boolean;
}

/** GitLab's state ids (Issuable::STATE_ID_MAP). */
const STATE_ID: Record<string, number> = { opened: 1, closed: 2, merged: 3, locked: 4 };

/** The merge request's page (Gitlab::UrlBuilder). */
export function mergeRequestUrl(project: Pick<HookProject, 'fullPath'>, iid: number, externalUrl: string): string {
  return `${externalUrl}/${project.fullPath}/-/merge_requests/${iid}`;
}

/** Gitlab::HookData::MergeRequestBuilder#build: the safe attributes with the URL, projects, last commit and statuses. */
export function mergeRequestHookAttrs(mr: HookMergeRequest, target: HookProject, source: HookProject | null, externalUrl: string) {
  const assigneeIds = mr.assignees.map((a) => a.id);
  const params = mr.mergeParams && typeof mr.mergeParams === 'object' ? (mr.mergeParams as Record<string, unknown>) : {};
  const targetAttrs = hookProject(target, externalUrl);
  return {
    assignee_id: assigneeIds[0] ?? null,
    author_id: mr.authorId,
    created_at: hookTime(mr.createdAt),
    description: mr.description,
    draft: mr.draft,
    head_pipeline_id: mr.headPipelineId,
    id: mr.id,
    iid: mr.iid,
    last_edited_at: null,
    last_edited_by_id: null,
    merge_commit_sha: mr.mergeCommitSha,
    merge_error: null,
    merge_params: { force_remove_source_branch: mr.forceRemoveSourceBranch ? '1' : '0', ...params },
    merge_status: mr.mergeStatus,
    merge_user_id: mr.mergeUserId,
    merge_when_pipeline_succeeds: mr.autoMergeEnabled,
    milestone_id: mr.milestoneId,
    source_branch: mr.sourceBranch,
    source_project_id: mr.sourceProjectId,
    state_id: STATE_ID[mr.state] ?? 1,
    target_branch: mr.targetBranch,
    target_project_id: mr.projectId,
    time_estimate: mr.timeEstimate,
    title: mr.title,
    updated_at: hookTime(mr.updatedAt),
    updated_by_id: null,
    prepared_at: hookTime(mr.createdAt),
    assignee_ids: assigneeIds,
    blocking_discussions_resolved: mr.blockingDiscussionsResolved,
    detailed_merge_status: mr.detailedMergeStatus,
    first_contribution: mr.firstContribution,
    human_time_change: null,
    human_time_estimate: humanDuration(mr.timeEstimate),
    human_total_time_spent: humanDuration(mr.totalTimeSpent),
    labels: mr.labels.map(labelHookAttrs),
    last_commit: mr.lastCommit ? commitHookAttrs({ ...mr.lastCommit, added: [], modified: [], removed: [] }, targetAttrs.web_url) : null,
    reviewer_ids: mr.reviewers.map((r) => r.id),
    source: source ? hookProject(source, externalUrl) : null,
    state: mr.state,
    target: targetAttrs,
    time_change: 0,
    total_time_spent: mr.totalTimeSpent,
    url: mergeRequestUrl(target, mr.iid, externalUrl),
    work_in_progress: mr.draft,
  };
}

/**
 * GitLab's merge request hook actions (MergeRequests::BaseService#execute_hooks callers): `approved`, `unapproved`
 * and `approval` come from approvals.
 */
export type MergeRequestHookAction = 'open' | 'close' | 'reopen' | 'update' | 'merge' | 'approved' | 'unapproved' | 'approval';

/** What a merge request was before a change, for the hook's `changes`. */
export type MergeRequestBefore = Pick<
  HookMergeRequest,
  'title' | 'description' | 'state' | 'draft' | 'targetBranch' | 'milestoneId' | 'timeEstimate' | 'totalTimeSpent' | 'updatedAt' | 'labels' | 'assignees' | 'reviewers' | 'mergeCommitSha' | 'mergeUserId' | 'autoMergeEnabled'
> & { discussionLocked?: boolean | null };

/**
 * The `changes` of a merge request hook (MergeRequest#to_hook_data: the record's previous changes among the safe
 * attributes, and its associations): each that differs, `{ previous, current }`. A new merge request's set
 * attributes changed from nothing.
 */
function mergeRequestChanges(before: MergeRequestBefore | null, after: HookMergeRequest) {
  const changes: Record<string, { previous: unknown; current: unknown }> = {};
  const add = (key: string, previous: unknown, current: unknown) => {
    if (JSON.stringify(previous) !== JSON.stringify(current)) changes[key] = { previous, current };
  };
  if (!before) {
    const created: Record<string, unknown> = {
      author_id: after.authorId,
      created_at: hookTime(after.createdAt),
      description: after.description,
      draft: after.draft,
      id: after.id,
      iid: after.iid,
      merge_params: after.forceRemoveSourceBranch ? { force_remove_source_branch: '1' } : null,
      milestone_id: after.milestoneId,
      source_branch: after.sourceBranch,
      source_project_id: after.sourceProjectId,
      target_branch: after.targetBranch,
      target_project_id: after.projectId,
      title: after.title,
      updated_at: hookTime(after.updatedAt),
    };
    for (const [key, value] of Object.entries(created)) {
      if (value !== null && value !== undefined && value !== false) changes[key] = { previous: null, current: value };
    }
    return changes;
  }
  add('title', before.title, after.title);
  add('description', before.description, after.description);
  add('draft', before.draft, after.draft);
  add('target_branch', before.targetBranch, after.targetBranch);
  add('state_id', STATE_ID[before.state] ?? 1, STATE_ID[after.state] ?? 1);
  add('milestone_id', before.milestoneId, after.milestoneId);
  add('merge_commit_sha', before.mergeCommitSha, after.mergeCommitSha);
  add('merge_user_id', before.mergeUserId, after.mergeUserId);
  add('merge_when_pipeline_succeeds', before.autoMergeEnabled, after.autoMergeEnabled);
  add('time_estimate', before.timeEstimate, after.timeEstimate);
  if (before.updatedAt.getTime() !== after.updatedAt.getTime()) changes.updated_at = { previous: hookTime(before.updatedAt), current: hookTime(after.updatedAt) };
  add('assignees', before.assignees.map(userHookAttrs), after.assignees.map(userHookAttrs));
  add('reviewers', before.reviewers.map(userHookAttrs), after.reviewers.map(userHookAttrs));
  add('labels', before.labels.map(labelHookAttrs), after.labels.map(labelHookAttrs));
  if (before.totalTimeSpent !== after.totalTimeSpent) {
    changes.total_time_spent = { previous: before.totalTimeSpent, current: after.totalTimeSpent };
    changes.time_change = { previous: 0, current: after.totalTimeSpent - before.totalTimeSpent };
  }
  return changes;
}

/**
 * Gitlab::DataBuilder::Issuable for a merge request (MergeRequests::BaseService#hook_data): a Merge Request Hook,
 * with `action` when one is given (a hook test's sample has none, and no changes) and `oldrev` after a push to its
 * source branch.
 */
export function mergeRequestData(input: {
  mergeRequest: HookMergeRequest;
  before: MergeRequestBefore | null;
  action: MergeRequestHookAction | null;
  project: HookProject;
  sourceProject: HookProject | null;
  user: HookUser;
  oldrev?: string | null;
  externalUrl: string;
}) {
  const { mergeRequest: mr } = input;
  const project = hookProject(input.project, input.externalUrl);
  const attributes: Record<string, unknown> = mergeRequestHookAttrs(mr, input.project, input.sourceProject, input.externalUrl);
  if (input.action) attributes.action = input.action;
  if (input.oldrev && !/^0+$/.test(input.oldrev)) attributes.oldrev = input.oldrev;
  const data: Record<string, unknown> = {
    object_kind: 'merge_request',
    event_type: 'merge_request',
    user: userHookAttrs(input.user),
    project,
    object_attributes: attributes,
    labels: mr.labels.map(labelHookAttrs),
    changes: input.action ? mergeRequestChanges(input.before, mr) : {},
    repository: { name: project.name, url: project.url, description: project.description, homepage: project.homepage },
  };
  if (mr.assignees.length) data.assignees = mr.assignees.map(userHookAttrs);
  if (mr.reviewers.length) data.reviewers = mr.reviewers.map(userHookAttrs);
  return data;
}
