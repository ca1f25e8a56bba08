/**
 * Owns webhooks (GitLab's SystemHook and ProjectHook) and their delivery logs: the API's reads and changes, the
 * test deliveries, and, for the background jobs, which hooks an event goes to and what a delivery records.
 */
import { commitTitle } from '../../git/repository.js';
import { randomUUID } from 'node:crypto';
import { Prisma, type PrismaClient } from '../../db/database.js';
import { invalid, missing, notFound, notFoundAs, recordNotFound, unprocessable } from '../../errors.js';
import { parseRef } from '../../graphql/ids.js';
import type { GroupsService } from '../groups/service.js';
import { connection, type PageArgs } from '../../graphql/connection.js';
import { BlockedUrlError, checkUrl } from '../../http/url-blocker.js';
import type { ServiceBase, Services } from '../module.js';
import type { NamespaceRow } from '../namespaces/service.js';
import type { ProjectRow } from '../projects/service.js';
import type { PipelinesService } from '../pipelines/service.js';
import type { ProjectsService } from '../projects/service.js';
import type { RepositoriesService } from '../repositories/service.js';
import type { UsersService } from '../users/service.js';
import { attemptDelivery } from './delivery.js';
import { DELIVER_JOB, enqueueHookEvent, type HookEvent, type HookTrigger } from './events.js';
import type { DeliveryOutcome } from './http.js';
import { buildPushData, buildTestEvent, hookProjectOf, hookUserOf } from './samples.js';
import { deploymentData, jobData, pipelineData, systemHookSample, systemHookSampleData } from './payloads.js';
import { CUSTOM_HEADER_KEY, MAX_URL_VARIABLES, URL_VARIABLE_KEY, afterDelivery, missingUrlVariables, alertStatus, branchFilterProblem, branchMatches, interpolate, type BranchFilterStrategy, type HookType } from './rules.js';

export type WebHookRow = Awaited<ReturnType<PrismaClient['webHook']['findUniqueOrThrow']>>;
export type WebHookLogRow = Awaited<ReturnType<PrismaClient['webHookLog']['findUniqueOrThrow']>>;

const EVENT_FLAGS = [
  'pushEvents',
  'tagPushEvents',
  'mergeRequestsEvents',
  'repositoryUpdateEvents',
  'issuesEvents',
  'confidentialIssuesEvents',
  'noteEvents',
  'confidentialNoteEvents',
  'pipelineEvents',
  'wikiPageEvents',
  'deploymentEvents',
  'jobEvents',
  'releasesEvents',
  'subgroupEvents',
  'memberEvents',
  'projectEvents',
] as const;
type EventFlag = (typeof EVENT_FLAGS)[number];
/** The flags system hooks have (GitLab's SystemHook takes no project events). */
const SYSTEM_FLAGS: readonly EventFlag[] = ['pushEvents', 'tagPushEvents', 'mergeRequestsEvents', 'repositoryUpdateEvents'];
/** The flags only group hooks have (GitLab's GroupHook: its groups' own events). */
const GROUP_FLAGS: readonly EventFlag[] = ['subgroupEvents', 'memberEvents', 'projectEvents'];
/** Flags no group hook has (GitLab's group_hooks API takes no repository_update_events). */
const NOT_GROUP_FLAGS: readonly EventFlag[] = ['repositoryUpdateEvents'];

export interface HookAttributes extends Partial<Record<EventFlag, boolean | null>> {
  url?: string | null;
  name?: string | null;
  description?: string | null;
  token?: string | null;
  enableSslVerification?: boolean | null;
  pushEventsBranchFilter?: string | null;
  branchFilterStrategy?: BranchFilterStrategy | null;
  urlVariables?: Array<{ key: string; value: string }> | null;
  customHeaders?: Array<{ key: string; value: string }> | null;
}

export type KeyedSetting = 'url_variables' | 'custom_headers';

/** Where a hook is, as the REST paths name it: a project's, a group's, or (neither) the instance's. */
export interface HookOwnerRef {
  projectPath?: string | null;
  groupPath?: string | null;
}

/** Each kind's defaults when created with only a URL (GitLab's column defaults and API spec). */
const DEFAULTS: Record<HookType, Partial<Record<EventFlag, boolean>>> = {
  SystemHook: { pushEvents: false, tagPushEvents: false, mergeRequestsEvents: false, repositoryUpdateEvents: true },
  ProjectHook: { pushEvents: true },
  GroupHook: { pushEvents: true },
};

/** How long delivery logs are kept (GitLab shows a hook's events of the last seven days). */
export const WEB_HOOK_LOG_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;

export interface DeliveryPayload {
  uuid: string;
  webhookUuid: string;
  hookId: number;
  trigger: HookTrigger;
  data: unknown;
  attempt: number;
  /** A test: delivered whatever the hook's events and state. */
  force: boolean;
}

/**
 * The hooks an event can go to, before their state and branch filters are asked: a project's events go to its own
 * hooks and to the group hooks of its group and the group's ancestors (`groupIds`, GitLab's
 * `project.group.hooks` of every ancestor through TriggerableHooks).
 */
function candidates(event: HookEvent, groupIds: readonly number[]): Prisma.WebHookWhereInput {
  if (event.hookId !== undefined) return { id: event.hookId };
  const project = (flag: Prisma.WebHookWhereInput): Prisma.WebHookWhereInput =>
    event.projectId === null
      ? { id: -1 }
      : { OR: [{ type: 'ProjectHook', projectId: event.projectId, ...flag }, ...(groupIds.length ? [{ type: 'GroupHook', groupId: { in: [...groupIds] }, ...flag }] : [])] };
  switch (event.trigger) {
    case 'system_hooks':
      return { type: 'SystemHook' };
    case 'push_hooks':
      return { OR: [project({ pushEvents: true }), { type: 'SystemHook', pushEvents: true }] };
    case 'tag_push_hooks':
      return { OR: [project({ tagPushEvents: true }), { type: 'SystemHook', tagPushEvents: true }] };
    case 'repository_update_hooks':
      return { type: 'SystemHook', repositoryUpdateEvents: true };
    case 'pipeline_hooks':
      return project({ pipelineEvents: true });
    case 'job_hooks':
      return project({ jobEvents: true });
    case 'note_hooks':
      return project({ noteEvents: true });
    case 'confidential_note_hooks':
      return project({ confidentialNoteEvents: true });
    case 'issue_hooks':
      return project({ issuesEvents: true });
    case 'confidential_issue_hooks':
      return project({ confidentialIssuesEvents: true });
    case 'merge_request_hooks':
      return { OR: [project({ mergeRequestsEvents: true }), { type: 'SystemHook', mergeRequestsEvents: true }] };
    case 'release_hooks':
      return project({ releasesEvents: true });
    case 'deployment_hooks':
      return project({ deploymentEvents: true });
  }
}

export type TestTrigger = 'push_events' | 'tag_push_events' | 'issues_events' | 'confidential_issues_events' | 'note_events' | 'confidential_note_events' | 'merge_requests_events';

/** Test triggers whose sample is a row of the project (an issue, a note), with the hooks that hear them and GitLab's message when there is none. */
const RECORD_SAMPLES: Partial<Record<TestTrigger, { trigger: HookTrigger; missing: string; build: (services: Services, project: ProjectRow) => Promise<unknown> }>> = {
  issues_events: { trigger: 'issue_hooks', missing: 'Ensure the project has issues.', build: (services, project) => services.issues.hookSample(project) },
  confidential_issues_events: { trigger: 'confidential_issue_hooks', missing: 'Ensure the project has issues.', build: (services, project) => services.issues.hookSample(project) },
  note_events: { trigger: 'note_hooks', missing: 'Ensure the project has notes.', build: (services, project) => services.notes.hookSample(services, project) },
  merge_requests_events: { trigger: 'merge_request_hooks', missing: 'Ensure the project has merge requests.', build: (services, project) => services.merge_requests.hookSample(project) },
  confidential_note_events: { trigger: 'confidential_note_hooks', missing: 'Ensure the project has notes.', build: (services, project) => services.notes.hookSample(services, project) },
};

/** GitLab's WebHookLogsFinder status filter: codes, or classes of them. */
function statusWhere(statuses: readonly string[] | null | undefined): Prisma.WebHookLogWhereInput {
  if (!statuses?.length) return {};
  const or: Prisma.WebHookLogWhereInput[] = [];
  const codes = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => String(from + i));
  for (const s of statuses) {
    if (s === 'successful') or.push({ responseStatus: { in: codes(200, 299) } });
    else if (s === 'client_failure') or.push({ responseStatus: { in: codes(400, 499) } });
    else if (s === 'server_failure') or.push({ responseStatus: { in: [...codes(500, 599), 'internal error'] } });
    else or.push({ responseStatus: s });
  }
  return { OR: or };
}

/** A hook's custom headers as its delivery log shows them: names only, values masked (GitLab's WebHookLog). */
function redactedCustomHeaders(hook: WebHookRow): Record<string, string> {
  return Object.fromEntries(Object.keys((hook.customHeaders ?? {}) as Record<string, string>).map((k) => [k, '[REDACTED]']));
}

export class HooksService {
  constructor(
    private readonly base: ServiceBase,
    private readonly projects: ProjectsService,
    private readonly users: UsersService,
    private readonly repositories: RepositoriesService,
    private readonly pipelines: PipelinesService,
    private readonly groups: GroupsService,
  ) {}

  // System hooks: administrators only (GitLab's read_web_hook / admin_web_hook, global).

  async listSystem(page: PageArgs) {
    await this.base.access.authorize('read_system_hook', null);
    const where = { type: 'SystemHook' };
    const db = this.base.db;
    return connection(page, ({ skip, take }) => db.webHook.findMany({ where, orderBy: { id: 'asc' }, skip, take }), () => db.webHook.count({ where }));
  }

  async getSystem(id: number): Promise<WebHookRow> {
    await this.base.access.authorize('read_system_hook', null);
    return this.row('SystemHook', null, id);
  }

  async createSystem(attrs: HookAttributes): Promise<WebHookRow> {
    await this.base.access.authorize('admin_system_hook', null);
    return this.create('SystemHook', null, attrs);
  }

  async updateSystem(id: number, attrs: HookAttributes): Promise<WebHookRow> {
    await this.base.access.authorize('admin_system_hook', null);
    return this.update(await this.row('SystemHook', null, id), attrs);
  }

  async deleteSystem(id: number): Promise<WebHookRow> {
    await this.base.access.authorize('admin_system_hook', null);
    return this.destroy(await this.row('SystemHook', null, id));
  }

  /** GitLab's `POST /hooks/:id`: the fixed sample, answered whatever its delivery does; the delivery is queued. */
  async testSystem(id: number) {
    await this.base.access.authorize('admin_system_hook', null);
    const hook = await this.row('SystemHook', null, id);
    const sample = systemHookSample();
    await enqueueHookEvent(this.base.app.jobs, { trigger: 'system_hooks', projectId: null, branch: null, data: systemHookSampleData(), hookId: hook.id });
    return sample;
  }

  // Project hooks: Maintainers (admin_web_hook on the project).

  async listProject(project: ProjectRow, page: PageArgs) {
    await this.base.access.authorize('read_web_hook', project);
    const where = { type: 'ProjectHook', projectId: project.id };
    const db = this.base.db;
    return connection(page, ({ skip, take }) => db.webHook.findMany({ where, orderBy: { id: 'asc' }, skip, take }), () => db.webHook.count({ where }));
  }

  async getProject(project: ProjectRow, id: number): Promise<WebHookRow> {
    await this.base.access.authorize('read_web_hook', project);
    return this.row('ProjectHook', project.id, id);
  }

  async createProject(project: ProjectRow, attrs: HookAttributes): Promise<WebHookRow> {
    await this.base.access.authorize('admin_web_hook', project);
    return this.create('ProjectHook', project.id, attrs);
  }

  async updateProject(project: ProjectRow, id: number, attrs: HookAttributes): Promise<WebHookRow> {
    await this.base.access.authorize('admin_web_hook', project);
    return this.update(await this.row('ProjectHook', project.id, id), attrs);
  }

  async deleteProject(project: ProjectRow, id: number): Promise<WebHookRow> {
    await this.base.access.authorize('admin_web_hook', project);
    return this.destroy(await this.row('ProjectHook', project.id, id));
  }

  // Group hooks: the group's Owners (GitLab's GroupPolicy read_web_hook / admin_web_hook, from admin_group).

  async listGroup(group: NamespaceRow, page: PageArgs) {
    await this.base.access.authorize('read_group_web_hook', group);
    const where = { type: 'GroupHook', groupId: group.id };
    const db = this.base.db;
    return connection(page, ({ skip, take }) => db.webHook.findMany({ where, orderBy: { id: 'asc' }, skip, take }), () => db.webHook.count({ where }));
  }

  async getGroup(group: NamespaceRow, id: number): Promise<WebHookRow> {
    await this.base.access.authorize('read_group_web_hook', group);
    return this.row('GroupHook', group.id, id);
  }

  async createGroup(group: NamespaceRow, attrs: HookAttributes): Promise<WebHookRow> {
    await this.base.access.authorize('admin_group_web_hook', group);
    return this.create('GroupHook', group.id, attrs);
  }

  async updateGroup(group: NamespaceRow, id: number, attrs: HookAttributes): Promise<WebHookRow> {
    await this.base.access.authorize('admin_group_web_hook', group);
    return this.update(await this.row('GroupHook', group.id, id), attrs);
  }

  async deleteGroup(group: NamespaceRow, id: number): Promise<WebHookRow> {
    await this.base.access.authorize('admin_group_web_hook', group);
    return this.destroy(await this.row('GroupHook', group.id, id));
  }

  /** The group a group hook belongs to (for GraphQL's IDs without a group path); 404 when there is none. */
  async groupIdOf(id: number): Promise<number> {
    const hook = await this.base.db.webHook.findFirst({ where: { id, type: 'GroupHook' }, select: { groupId: true } });
    if (!hook?.groupId) throw recordNotFound();
    return hook.groupId;
  }

  /**
   * GitLab's TestHooks::GroupService: the project test run on the group's first project whose repository is not
   * empty (Group#first_non_empty_project, the group's own projects); 422 when it has none.
   */
  async testGroup(services: Services, group: NamespaceRow, id: number, trigger: TestTrigger): Promise<string> {
    await this.base.access.authorize('admin_group_web_hook', group);
    const hook = await this.row('GroupHook', group.id, id);
    const rows = await this.base.db.project.findMany({ where: { namespaceId: group.id }, orderBy: { id: 'asc' }, select: { id: true } });
    for (const row of rows) {
      const project = await this.base.loaders.projects.byId.load(row.id);
      if (project && !(await (await this.repositories.open(project)).isEmpty())) return this.testSample(services, project, hook, trigger);
    }
    throw unprocessable('Ensure the group has a project with commits.');
  }

  // URL variables and custom headers (GitLab's API::Hooks::UrlVariables and API::Hooks::CustomHeaders).

  /** The hook a REST path names, once its owner's abilities allow changing it. */
  private async hookToChange(owner: HookOwnerRef, hookId: number): Promise<WebHookRow> {
    if (owner.projectPath != null) {
      const project = await this.projects.get(parseRef(owner.projectPath, 'Project', 'projectPath'));
      await this.base.access.authorize('admin_web_hook', project);
      return this.row('ProjectHook', project.id, hookId);
    }
    if (owner.groupPath != null) {
      const group = await this.groups.get(parseRef(owner.groupPath, 'Group', 'groupPath'));
      await this.base.access.authorize('admin_group_web_hook', group);
      return this.row('GroupHook', group.id, hookId);
    }
    await this.base.access.authorize('admin_system_hook', null);
    return this.row('SystemHook', null, hookId);
  }

  /** `PUT …/url_variables/:key` and `…/custom_headers/:key`: the hook with the value set; 422 `Illegal key or value` when the hook would be invalid. */
  async setKeyed(owner: HookOwnerRef, hookId: number, setting: KeyedSetting, key: string, value: string): Promise<WebHookRow> {
    const hook = await this.hookToChange(owner, hookId);
    const entry = [{ key, value }];
    let data: Prisma.WebHookUpdateInput;
    try {
      data = this.columns(hook.type as HookType, setting === 'url_variables' ? { url: hook.url, urlVariables: entry } : { customHeaders: entry }, hook.urlVariables as Record<string, string>, hook);
    } catch (err) {
      if ((err as { extensions?: { code?: string } }).extensions?.code !== 'BAD_USER_INPUT') throw err;
      throw unprocessable('Illegal key or value');
    }
    return this.base.db.webHook.update({ where: { id: hook.id }, data: setting === 'url_variables' ? { urlVariables: data.urlVariables } : { customHeaders: data.customHeaders } });
  }

  /**
   * `DELETE …/url_variables/:key` and `…/custom_headers/:key`: `404 URL variable Not Found` (`Custom header`) when
   * the hook has none by that key; 422 when the hook would be invalid without it (its URL still uses the variable).
   */
  async deleteKeyed(owner: HookOwnerRef, hookId: number, setting: KeyedSetting, key: string): Promise<WebHookRow> {
    const hook = await this.hookToChange(owner, hookId);
    const current = ((setting === 'url_variables' ? hook.urlVariables : hook.customHeaders) ?? {}) as Record<string, string>;
    if (!Object.hasOwn(current, key)) throw notFound(setting === 'url_variables' ? 'URL variable' : 'Custom header');
    const rest = Object.fromEntries(Object.entries(current).filter(([k]) => k !== key));
    if (setting === 'custom_headers') return this.base.db.webHook.update({ where: { id: hook.id }, data: { customHeaders: rest } });
    if (missingUrlVariables(hook.url, rest).length) throw unprocessable('Could not unset variable');
    return this.base.db.webHook.update({ where: { id: hook.id }, data: { urlVariables: rest } });
  }

  /** The project a project hook belongs to (for GraphQL's IDs without a project path); 404 when there is none. */
  async projectIdOf(id: number): Promise<number> {
    const hook = await this.base.db.webHook.findFirst({ where: { id, type: 'ProjectHook' }, select: { projectId: true } });
    if (!hook?.projectId) throw recordNotFound();
    return hook.projectId;
  }

  /**
   * GitLab's TestHooks::ProjectService: a sample of the event built from the project's own data, queued for this
   * hook alone; `null` data means the project has nothing to build it from (GitLab's 422 message then).
   */
  async testProject(services: Services, project: ProjectRow, id: number, trigger: TestTrigger): Promise<string> {
    await this.base.access.authorize('admin_web_hook', project);
    return this.testSample(services, project, await this.row('ProjectHook', project.id, id), trigger);
  }

  /** A sample of the event built from the project's data, queued for this hook alone. */
  private async testSample(services: Services, project: ProjectRow, hook: WebHookRow, trigger: TestTrigger): Promise<string> {
    const record = RECORD_SAMPLES[trigger];
    if (record) {
      const data = await record.build(services, project);
      if (data === null) throw unprocessable(record.missing);
      await enqueueHookEvent(this.base.app.jobs, { trigger: record.trigger, projectId: project.id, branch: null, data, hookId: hook.id });
      return '201 Created';
    }
    const user = await this.users.requireCurrent();
    const sample = await buildTestEvent(await this.repositories.open(project), project, hookUserOf(user), trigger, this.base.app.config.externalUrl);
    if ('error' in sample) throw invalid({ trigger: [sample.error] });
    await enqueueHookEvent(this.base.app.jobs, { trigger: sample.hookTrigger, projectId: project.id, branch: null, data: sample.data, hookId: hook.id });
    return '201 Created';
  }

  /**
   * A pushed ref's payload, built as the pushing user (the dispatch job's viewer); null when the project or the
   * user is gone.
   */
  async pushEventData(push: NonNullable<HookEvent['push']>): Promise<unknown> {
    const [project, user] = await Promise.all([this.projects.find({ id: push.projectId }), this.users.find({ id: push.userId })]);
    if (!project || !user) return null;
    const branch = push.ref.startsWith('refs/heads/') ? push.ref.slice('refs/heads/'.length) : null;
    const refProtected = branch !== null && (await this.repositories.branchProtection(project, branch)).protected;
    const repository = await this.repositories.open(project);
    return buildPushData({ repository, project, user: hookUserOf(user), ref: push.ref, before: push.before, after: push.after, refProtected, externalUrl: this.base.app.config.externalUrl });
  }

  // The delivery engine's records (its jobs call these; no viewer is asked: the event was authorized when it happened).

  /** The hooks an event goes to now: those hearing its kind, executable, whose branch filter lets its branch in. */
  async dispatchTargets(event: HookEvent): Promise<WebHookRow[]> {
    const hooks = await this.base.db.webHook.findMany({ where: candidates(event, await this.groupsAbove(event.projectId)), orderBy: { id: 'asc' } });
    if (event.hookId !== undefined) return hooks;
    const now = new Date();
    return hooks.filter(
      (hook) => alertStatus(hook, now) === 'executable' && (event.trigger !== 'push_hooks' || branchMatches(hook.branchFilterStrategy, hook.pushEventsBranchFilter, event.branch)),
    );
  }

  /** One delivery job per hook, keyed by event and hook: a dispatch run twice queues nothing twice. */
  async queueDeliveries(event: HookEvent, hooks: readonly WebHookRow[], data: unknown): Promise<void> {
    const jobs = this.base.app.jobs;
    await this.base.db.$transaction(async (tx) => {
      for (const hook of hooks) {
        const delivery: DeliveryPayload = { uuid: event.uuid, webhookUuid: randomUUID(), hookId: hook.id, trigger: event.trigger, data, attempt: 1, force: event.hookId !== undefined };
        await jobs.enqueue(DELIVER_JOB, delivery, { uniqueKey: `${DELIVER_JOB}:${event.uuid}:${hook.id}:1` }, tx);
      }
    });
    jobs.wake();
  }

  /** The group of a project and the group's ancestors, whose group hooks hear the project's events; none for a user's project. */
  private async groupsAbove(projectId: number | null): Promise<number[]> {
    if (projectId === null) return [];
    const project = await this.base.db.project.findUnique({ where: { id: projectId }, select: { namespace: { select: { kind: true, traversalIds: true } } } });
    return project?.namespace.kind === 'group' ? project.namespace.traversalIds : [];
  }

  async deliveryTarget(id: number): Promise<WebHookRow | null> {
    return this.base.db.webHook.findUnique({ where: { id } });
  }

  /**
   * One attempt's record, in one transaction: the log row, then either the next attempt (a 5xx or a network error,
   * attempts left; the wait doubles) or the hook's failure counters (GitLab's auto-disabling, under the hook's
   * row lock, since deliveries to one hook may finish at once).
   */
  async recordDelivery(hook: WebHookRow, d: DeliveryPayload, headers: Record<string, string>, outcome: DeliveryOutcome): Promise<void> {
    const { config, jobs } = this.base.app;
    // GitLab's response categories: 2xx and 3xx are fine; the rest fail.
    const succeeded = outcome.status !== null && outcome.status < 400;
    const retry = !succeeded && !outcome.blocked && (outcome.status === null || outcome.status >= 500) && d.attempt < config.webhookMaxAttempts;
    await this.base.db.$transaction(async (tx) => {
      await tx.webHookLog.create({
        data: {
          webHookId: hook.id,
          trigger: d.trigger,
          url: hook.url,
          requestHeaders: { ...headers, ...redactedCustomHeaders(hook), ...(hook.token ? { 'X-Gitlab-Token': '[REDACTED]' } : {}) },
          requestData: d.data as Prisma.InputJsonValue,
          responseHeaders: outcome.headers,
          // GitLab logs an internal error's message as the body.
          responseBody: outcome.status === null ? (outcome.error ?? '') : outcome.body,
          responseStatus: outcome.status === null ? 'internal error' : String(outcome.status),
          executionDuration: outcome.durationMs / 1000,
          internalErrorMessage: outcome.error,
        },
      });
      if (retry) {
        const next: DeliveryPayload = { ...d, attempt: d.attempt + 1 };
        const runAt = new Date(Date.now() + config.webhookRetryBaseMs * 2 ** (d.attempt - 1));
        await jobs.enqueue(DELIVER_JOB, next, { runAt, uniqueKey: `${DELIVER_JOB}:${d.uuid}:${d.hookId}:${next.attempt}` }, tx);
        return;
      }
      const [locked] = await tx.$queryRaw<WebHookRow[]>`SELECT * FROM "web_hooks" WHERE "id" = ${hook.id} FOR UPDATE`;
      if (!locked) return;
      const state = afterDelivery(locked, succeeded);
      if (state.recentFailures !== locked.recentFailures || state.backoffCount !== locked.backoffCount || state.disabledUntil?.getTime() !== locked.disabledUntil?.getTime()) {
        await tx.webHook.update({ where: { id: hook.id }, data: state });
      }
    });
    if (retry) jobs.wake();
  }

  /**
   * A pipeline's payload at the status its event names (Gitlab::DataBuilder::Pipeline), read as it is now; null when
   * the pipeline or its project is gone. The dispatch job's own read: the event was authorized when it happened.
   */
  async pipelineEventData(event: NonNullable<HookEvent['pipeline']>): Promise<unknown> {
    const pipeline = await this.base.loaders.pipelines.byId.load(event.pipelineId);
    const project = pipeline && (await this.base.loaders.projects.byId.load(pipeline.projectId));
    if (!pipeline || !project) return null;
    const [jobs, user, commit] = await Promise.all([
      this.pipelines.jobsOf(pipeline.id),
      pipeline.userId === null ? null : this.base.loaders.users.byId.load(pipeline.userId),
      this.repositories.open(project).then((repository) => repository.commit(pipeline.sha)),
    ]);
    return pipelineData({
      pipeline,
      status: event.status,
      jobs,
      project: hookProjectOf(project),
      user: user ? hookUserOf(user) : null,
      commit: commit && { id: commit.sha, message: commit.message, title: commitTitle(commit.message), timestamp: new Date(commit.authoredDate), authorName: commit.authorName, authorEmail: commit.authorEmail, added: [], modified: [], removed: [] },
      externalUrl: this.base.app.config.externalUrl,
    });
  }

  /** A deployment's payload at the status its event names; null when it is gone. */
  async deploymentEventData(event: NonNullable<HookEvent['deployment']>): Promise<unknown> {
    const deployment = await this.base.db.deployment.findUnique({ where: { id: event.deploymentId }, include: { environment: true } });
    const project = deployment && (await this.base.loaders.projects.byId.load(deployment.projectId));
    if (!deployment || !project) return null;
    const [user, commit] = await Promise.all([
      deployment.userId === null ? null : this.base.loaders.users.byId.load(deployment.userId),
      this.repositories.open(project).then((repository) => repository.commit(deployment.sha)),
    ]);
    return deploymentData({
      deployment,
      status: event.status,
      changedAt: new Date(event.changedAt),
      project: hookProjectOf(project),
      user: user ? hookUserOf(user) : null,
      commitTitle: commit ? commitTitle(commit.message) : null,
      externalUrl: this.base.app.config.externalUrl,
    });
  }

  /** A job's payload at the status its event names; null for what is no build, or is gone. */
  async jobEventData(event: NonNullable<HookEvent['job']>): Promise<unknown> {
    const job = await this.pipelines.locateJob(event.jobId).catch(() => null);
    if (!job || job.type !== 'build') return null;
    const [pipeline, project] = await Promise.all([this.base.loaders.pipelines.byId.load(job.pipelineId), this.base.loaders.projects.byId.load(job.projectId)]);
    if (!pipeline || !project) return null;
    const [user, commit] = await Promise.all([
      job.userId === null ? null : this.base.loaders.users.byId.load(job.userId),
      this.repositories.open(project).then((repository) => repository.commit(job.sha)),
    ]);
    return jobData({
      job,
      beforeSha: pipeline.beforeSha,
      pipeline,
      status: event.status,
      project: hookProjectOf(project),
      user: user ? hookUserOf(user) : null,
      commit: commit && { id: commit.sha, message: commit.message, title: commitTitle(commit.message), timestamp: new Date(commit.authoredDate), authorName: commit.authorName, authorEmail: commit.authorEmail, added: [], modified: [], removed: [] },
      externalUrl: this.base.app.config.externalUrl,
    });
  }

  /**
   * GitLab's WebHooks::Events::ResendService (`POST …/hooks/:hook_id/events/:hook_log_id/resend`): the logged request
   * again, to the hook as it is now, at once and once (no retries); its status. 422 when the hook's URL changed since
   * or the request could not be made.
   */
  async resendProject(project: ProjectRow, hookId: number, logId: number): Promise<number> {
    await this.base.access.authorize('admin_web_hook', project);
    return this.resend(await this.row('ProjectHook', project.id, hookId), logId);
  }

  /** The same for a group hook: its group's Owners. */
  async resendGroup(group: NamespaceRow, hookId: number, logId: number): Promise<number> {
    await this.base.access.authorize('admin_group_web_hook', group);
    return this.resend(await this.row('GroupHook', group.id, hookId), logId);
  }

  private async resend(hook: WebHookRow, logId: number): Promise<number> {
    const log = await this.base.db.webHookLog.findFirst({ where: { id: logId, webHookId: hook.id } });
    if (!log) throw recordNotFound();
    if (log.url !== hook.url) throw unprocessable('The hook URL has changed, and this log entry cannot be retried');
    const { app } = this.base;
    const delivery: DeliveryPayload = {
      uuid: randomUUID(),
      webhookUuid: randomUUID(),
      hookId: hook.id,
      trigger: log.trigger as HookTrigger,
      data: log.requestData,
      attempt: app.config.webhookMaxAttempts,
      force: true,
    };
    const outcome = await attemptDelivery(app, this, hook, delivery);
    if (outcome.status === null) throw unprocessable(outcome.error ?? 'The request could not be made');
    return outcome.status;
  }

  /** Deletes delivery logs older than WEB_HOOK_LOG_RETENTION_MS, a bounded batch at a time; how many went. */
  async pruneLogs(now: Date, batch = 1000): Promise<number> {
    const cutoff = new Date(now.getTime() - WEB_HOOK_LOG_RETENTION_MS);
    return this.base.db.$executeRaw`
      DELETE FROM "web_hook_logs" WHERE "id" IN (SELECT "id" FROM "web_hook_logs" WHERE "createdAt" < ${cutoff} ORDER BY "createdAt" LIMIT ${batch})`;
  }

  /** A hook's deliveries, newest first: who may read the hook. */
  async events(hook: WebHookRow, statuses: readonly string[] | null | undefined, page: PageArgs) {
    await this.authorizeRead(hook);
    const where: Prisma.WebHookLogWhereInput = { webHookId: hook.id, ...statusWhere(statuses) };
    const db = this.base.db;
    return connection(page, ({ skip, take }) => db.webHookLog.findMany({ where, orderBy: { id: 'desc' }, skip, take }), () => db.webHookLog.count({ where }));
  }

  private async authorizeRead(hook: WebHookRow): Promise<void> {
    if (hook.type === 'SystemHook') return this.base.access.authorize('read_system_hook', null);
    if (hook.type === 'GroupHook') {
      const group = await this.base.db.namespace.findUnique({ where: { id: hook.groupId! } });
      if (!group) throw recordNotFound();
      return this.base.access.authorize('read_group_web_hook', group);
    }
    const project = await this.base.loaders.projects.byId.load(hook.projectId!);
    if (!project) throw recordNotFound();
    await this.base.access.authorize('read_web_hook', project);
  }

  /** GitLab's find_hook: `404 Not found` (RecordNotFound) for a hook of another kind or project. */
  private async row(type: HookType, ownerId: number | null, id: number): Promise<WebHookRow> {
    const hook = await this.base.db.webHook.findFirst({ where: { id, type, ...(type === 'GroupHook' ? { groupId: ownerId } : { projectId: ownerId }) } });
    if (!hook) throw type === 'SystemHook' ? recordNotFound() : notFoundAs('404 Hook Not Found');
    return hook;
  }

  private async create(type: HookType, ownerId: number | null, attrs: HookAttributes): Promise<WebHookRow> {
    if (attrs.url == null) throw missing('url');
    const data = this.columns(type, attrs, {});
    const owner = type === 'GroupHook' ? { groupId: ownerId } : { projectId: ownerId };
    return this.base.db.webHook.create({
      data: { ...DEFAULTS[type], ...(data as Prisma.WebHookUncheckedCreateInput), type, ...owner, url: attrs.url.trim(), urlVariables: data.urlVariables ?? {}, customHeaders: data.customHeaders ?? {} },
    });
  }

  private async update(hook: WebHookRow, attrs: HookAttributes): Promise<WebHookRow> {
    const data = this.columns(hook.type as HookType, { ...attrs, url: attrs.url ?? hook.url }, hook.urlVariables as Record<string, string>, hook);
    // A change gives a disabled hook another chance (GitLab re-enables a hook whose settings change).
    return this.base.db.webHook.update({ where: { id: hook.id }, data: { ...data, recentFailures: 0, backoffCount: 0, disabledUntil: null } });
  }

  private async destroy(hook: WebHookRow): Promise<WebHookRow> {
    // Its log goes with it (cascade); deliveries already queued find it gone and do nothing.
    await this.base.db.webHook.deleteMany({ where: { id: hook.id } });
    return hook;
  }

  /** Validated columns from the given attributes, in Rails' words by field (GraphQL names). */
  private columns(type: HookType, attrs: HookAttributes, currentVariables: Record<string, string>, current?: WebHookRow): Prisma.WebHookUpdateInput {
    const errors: Record<string, string[]> = {};
    const add = (field: string, message: string) => (errors[field] ??= []).push(message);
    const data: Prisma.WebHookUpdateInput = {};
    let variables: Record<string, string> | undefined;
    if (attrs.urlVariables != null) {
      variables = { ...currentVariables };
      for (const v of attrs.urlVariables) {
        if (!URL_VARIABLE_KEY.test(v.key)) add('urlVariables', `key ${JSON.stringify(v.key)} is invalid`);
        else if (v.value.length > 2048) add('urlVariables', `value of ${v.key} is too long (maximum is 2048 characters)`);
        else variables[v.key] = v.value;
      }
      if (Object.keys(variables).length > MAX_URL_VARIABLES) add('urlVariables', `are too many (maximum is ${MAX_URL_VARIABLES})`);
      data.urlVariables = variables;
    }
    if (attrs.customHeaders != null) {
      const headers = { ...((current?.customHeaders ?? {}) as Record<string, string>) };
      for (const h of attrs.customHeaders) {
        if (!CUSTOM_HEADER_KEY.test(h.key)) add('customHeaders', `key ${JSON.stringify(h.key)} is invalid`);
        else if (h.value.length > 2048) add('customHeaders', `value of ${h.key} is too long (maximum is 2048 characters)`);
        else headers[h.key] = h.value;
      }
      if (Object.keys(headers).length > MAX_URL_VARIABLES) add('customHeaders', `are too many (maximum is ${MAX_URL_VARIABLES})`);
      data.customHeaders = headers;
    }
    if (attrs.url != null) {
      const url = attrs.url.trim();
      // WebHook#no_missing_url_variables: every `{key}` of the URL has a variable.
      const missingKeys = missingUrlVariables(url, variables ?? currentVariables);
      if (missingKeys.length) add('url', `Invalid URL template. Missing keys: [${missingKeys.map((k) => JSON.stringify(k)).join(', ')}]`);
      else if (url.length > 8192) add('url', 'is too long (maximum is 8192 characters)');
      else {
        try {
          checkUrl(interpolate(url, variables ?? currentVariables), { allowLocal: this.allowLocal(type) });
        } catch (err) {
          if (!(err instanceof BlockedUrlError)) throw err;
          add('url', `is blocked: ${err.message}`);
        }
      }
      data.url = url;
    }
    if (attrs.name !== undefined) {
      if ((attrs.name ?? '').length > 255) add('name', 'is too long (maximum is 255 characters)');
      data.name = attrs.name;
    }
    if (attrs.description !== undefined) {
      if ((attrs.description ?? '').length > 2048) add('description', 'is too long (maximum is 2048 characters)');
      data.description = attrs.description;
    }
    if (attrs.token !== undefined) {
      if ((attrs.token ?? '').length > 2048) add('token', 'is too long (maximum is 2048 characters)');
      data.token = attrs.token === '' ? null : attrs.token;
    }
    for (const flag of EVENT_FLAGS) {
      const value = attrs[flag];
      if (value == null) continue;
      // A system hook has no project events: GitLab's API does not take them.
      if (type === 'SystemHook' && !SYSTEM_FLAGS.includes(flag)) continue;
      if (type === 'ProjectHook' && GROUP_FLAGS.includes(flag)) continue;
      if (type === 'GroupHook' && NOT_GROUP_FLAGS.includes(flag)) continue;
      data[flag] = value;
    }
    if (attrs.enableSslVerification != null) data.enableSslVerification = attrs.enableSslVerification;
    if (attrs.branchFilterStrategy != null) data.branchFilterStrategy = attrs.branchFilterStrategy;
    if (attrs.pushEventsBranchFilter !== undefined) data.pushEventsBranchFilter = attrs.pushEventsBranchFilter || null;
    const strategy = (attrs.branchFilterStrategy ?? current?.branchFilterStrategy ?? 'wildcard') as BranchFilterStrategy;
    const filter = attrs.pushEventsBranchFilter !== undefined ? attrs.pushEventsBranchFilter : current?.pushEventsBranchFilter;
    const filterProblem = branchFilterProblem(strategy, filter);
    if (filterProblem) add('pushEventsBranchFilter', filterProblem);
    if (Object.keys(errors).length) throw invalid(errors);
    return data;
  }

  private allowLocal(type: HookType): boolean {
    const config = this.base.app.config;
    return type === 'SystemHook' ? config.allowLocalRequestsFromSystemHooks : config.allowLocalRequestsFromWebHooks;
  }
}
