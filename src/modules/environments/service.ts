/**
 * Owns environments and deployments (GitLab's Environment and Deployment, Environments::StopService,
 * StopStaleService, AutoStopWorker, Deployments::CreateService/UpdateService/DestroyService): the two APIs, stopping
 * (playing the `on_stop` job of the last deployment, or at once), and the recurring stop of environments whose
 * `auto_stop_at` has passed. Deployments of jobs are made and moved by ci.ts inside the pipelines' transactions.
 */
import { olderActiveJobs } from './forward.js';
import type { Prisma } from '../../db/database.js';
import { argumentError, badRequest, badRequestWorded, forbidden, invalid, invalidArgument, mutuallyExclusive, notFound, recordNotFound, serviceRefusal } from '../../errors.js';
import { startsWithIgnoringCase } from '../../db/text.js';
import { connection, type PageArgs } from '../../graphql/connection.js';
import type { ServiceBase } from '../module.js';
import type { PipelinesService } from '../pipelines/service.js';
import type { ProjectRow } from '../projects/service.js';
import type { CommitRow } from '../repositories/reads.js';
import type { RepositoriesService } from '../repositories/service.js';
import { ensureEnvironment, moveDeployment, nextDeploymentIid } from './ci.js';
import { environmentSlug, externalUrlErrors, guessTier, kubernetesNamespaceErrors, nameErrors } from './rules.js';

export type EnvironmentRow = Prisma.EnvironmentGetPayload<object>;
export type DeploymentRow = Prisma.DeploymentGetPayload<object>;

export interface EnvironmentFilters {
  name?: string | null;
  search?: string | null;
  states?: readonly string[] | null;
  /** The folder (the name's part before its first `/`), GraphQL's `type`. */
  type?: string | null;
}

export interface EnvironmentInput {
  name: string;
  externalUrl?: string | null;
  tier?: string | null;
  description?: string | null;
  /** A cluster agent's id: none exists here, so any is refused. */
  clusterAgentId?: number | null;
  kubernetesNamespace?: string | null;
}

export interface EnvironmentChanges {
  externalUrl?: string | null;
  tier?: string | null;
  description?: string | null;
  clusterAgentId?: number | null;
  kubernetesNamespace?: string | null;
}

export interface DeploymentFilters {
  orderBy?: 'id' | 'iid' | 'created_at' | 'updated_at' | 'finished_at' | 'ref' | null;
  sort?: 'asc' | 'desc' | null;
  updatedAfter?: Date | null;
  updatedBefore?: Date | null;
  finishedAfter?: Date | null;
  finishedBefore?: Date | null;
  environment?: string | null;
  status?: string | null;
  statuses?: readonly string[] | null;
}

export interface DeploymentInput {
  environment: string;
  sha: string;
  ref: string;
  tag: boolean;
  status: string;
}

/** Statuses an external deployment may be created or updated with (Deployments API). */
const API_STATUSES = ['running', 'success', 'failed', 'canceled'];
const STALE_MESSAGE = 'Successfully requested stop for all stale environments';
const DAY_MS = 24 * 60 * 60 * 1000;
/** Environments stopped per run of the recurring auto-stop job. */
const AUTO_STOP_BATCH = 100;
/** DELETE /environments/review_apps: `limit`'s default and bounds, `before`'s default age, when the marked ones go. */
const REVIEW_APPS_LIMIT = { default: 100, min: 1, max: 1000 };
const REVIEW_APPS_AGE_MS = 30 * 24 * 60 * 60 * 1000;
/** Environment.schedule_to_delete's default: a week from now. */
const AUTO_DELETE_AFTER_MS = 7 * 24 * 60 * 60 * 1000;
/** Environments deleted per run of the recurring cleanup (GitLab's Environments::AutoDeleteCronWorker batches too). */
const AUTO_DELETE_BATCH = 100;
const NOTHING_TO_DELETE =
  'No environments found for scheduled deletion. Either your query did not match any environments (default parameters match environments that are 30 days or older), or you have insufficient permissions to delete matching environments.';

const ORDER_COLUMNS: Record<NonNullable<DeploymentFilters['orderBy']>, keyof Prisma.DeploymentOrderByWithRelationInput> = {
  id: 'id',
  iid: 'iid',
  created_at: 'createdAt',
  updated_at: 'updatedAt',
  finished_at: 'finishedAt',
  ref: 'ref',
};

/** Deployments a request may resolve `tags` of (GitLab's DeploymentType limit). */
const DEPLOYMENT_TAGS_LIMIT = 2;

export class EnvironmentsService {
  constructor(
    private readonly base: ServiceBase,
    private readonly pipelines: PipelinesService,
    private readonly repositories: RepositoriesService,
  ) {}

  private get db() {
    return this.base.db;
  }

  /** The project as the viewer sees it; 404 Project Not Found otherwise. */
  private async visible(project: ProjectRow): Promise<void> {
    if (!(await this.base.access.can('read_project', project))) throw notFound('Project');
  }

  private async allowed(project: ProjectRow, ability: 'read_environment' | 'create_environment' | 'update_environment' | 'destroy_environment' | 'stop_environment' | 'read_deployment' | 'create_deployment' | 'update_deployment' | 'destroy_deployment') {
    await this.visible(project);
    await this.base.access.authorize(ability, project);
  }

  // ---- Environments ----

  private environmentWhere(project: ProjectRow, filters: EnvironmentFilters): Prisma.EnvironmentWhereInput {
    if (filters.name != null && filters.search != null) throw mutuallyExclusive('name', 'search');
    if (filters.search != null && filters.search.length < 3) throw badRequest('400 Bad request - Search query is less than 3 characters');
    return {
      projectId: project.id,
      ...(filters.name != null ? { name: filters.name } : {}),
      ...(filters.search != null ? { name: startsWithIgnoringCase(filters.search) } : {}),
      ...(filters.states?.length ? { state: { in: [...filters.states] } } : {}),
      ...(filters.type != null ? { name: { startsWith: `${filters.type}/` } } : {}),
    };
  }

  async list(project: ProjectRow, filters: EnvironmentFilters, page: PageArgs) {
    await this.allowed(project, 'read_environment');
    const where = this.environmentWhere(project, filters);
    return connection(
      page,
      ({ skip, take }) => this.db.environment.findMany({ where, orderBy: { id: 'asc' }, skip, take }),
      () => this.db.environment.count({ where }),
    );
  }

  /** One environment by ID; GitLab's `404 Not found` when the project has none such. */
  async get(project: ProjectRow, id: number): Promise<EnvironmentRow> {
    await this.allowed(project, 'read_environment');
    const found = await this.db.environment.findFirst({ where: { id, projectId: project.id } });
    if (!found) throw recordNotFound();
    return found;
  }

  /** GraphQL's `Project.environment`: the first environment the filters find, or null. */
  async find(project: ProjectRow, filters: EnvironmentFilters): Promise<EnvironmentRow | null> {
    if (!(await this.base.access.can('read_environment', project))) return null;
    return this.db.environment.findFirst({ where: this.environmentWhere(project, filters), orderBy: { id: 'asc' } });
  }

  /** The project of an environment named by ID alone (GraphQL mutations), or 404. */
  async projectOf(id: number): Promise<number> {
    const found = await this.db.environment.findUnique({ where: { id }, select: { projectId: true } });
    if (!found) throw recordNotFound();
    return found.projectId;
  }

  private checkUrl(externalUrl: string | null | undefined, errors: Record<string, string[]>) {
    if (externalUrl == null || externalUrl === '') return;
    const problems = externalUrlErrors(externalUrl);
    if (problems.length) errors.external_url = problems;
  }

  /**
   * The cluster agent given, before the environment is validated: Environments::CreateService/UpdateService refuse
   * an agent the user may not access (and the API one that does not exist) in their words. This product has no
   * cluster agents, so every agent given is refused.
   */
  private refuseAgent(clusterAgentId: number | null | undefined) {
    if (clusterAgentId == null) return;
    throw badRequestWorded(
      "400 Bad request - cluster agent doesn't exist or cannot be associated with this environment",
      'Unauthorized to access the cluster agent in this project',
    );
  }

  /** A Kubernetes namespace given: a blank one is none (`nullify_if_blank`), any other is validated. */
  private checkNamespace(namespace: string | null | undefined, errors: Record<string, string[]>) {
    if (namespace == null || namespace.trim() === '') return;
    errors.kubernetesNamespace = kubernetesNamespaceErrors(namespace);
  }

  async create(project: ProjectRow, input: EnvironmentInput): Promise<EnvironmentRow> {
    await this.allowed(project, 'create_environment');
    this.refuseAgent(input.clusterAgentId);
    const errors: Record<string, string[]> = {};
    const name = input.name.trim();
    const nameProblems = nameErrors(name);
    if (nameProblems.length) errors.name = nameProblems;
    this.checkUrl(input.externalUrl, errors);
    if (!errors.name && (await this.db.environment.findUnique({ where: { projectId_name: { projectId: project.id, name } } }))) errors.name = ['has already been taken'];
    this.checkNamespace(input.kubernetesNamespace, errors);
    if (Object.keys(errors).length) throw invalid(errors);
    return this.db.environment.create({
      data: {
        projectId: project.id,
        name,
        slug: environmentSlug(name),
        externalUrl: input.externalUrl || null,
        tier: input.tier ?? guessTier(name),
        description: input.description ?? null,
      },
    });
  }

  async update(project: ProjectRow, id: number, changes: EnvironmentChanges): Promise<EnvironmentRow> {
    const environment = await this.get(project, id);
    await this.base.access.authorize('update_environment', project);
    this.refuseAgent(changes.clusterAgentId);
    const errors: Record<string, string[]> = {};
    this.checkUrl(changes.externalUrl, errors);
    this.checkNamespace(changes.kubernetesNamespace, errors);
    if (Object.keys(errors).length) throw invalid(errors);
    return this.db.environment.update({
      where: { id: environment.id },
      data: {
        ...(changes.externalUrl !== undefined ? { externalUrl: changes.externalUrl || null } : {}),
        // Only a blank namespace gets here: it is none.
        ...(changes.kubernetesNamespace != null ? { kubernetesNamespace: null } : {}),
        ...(changes.tier != null ? { tier: changes.tier } : {}),
        ...(changes.description !== undefined ? { description: changes.description } : {}),
      },
    });
  }

  /** GraphQL's `Environment.userPermissions`: what the mutations on the environment would allow the viewer. */
  async permissions(environment: EnvironmentRow): Promise<{ updateEnvironment: boolean; stopEnvironment: boolean; destroyEnvironment: boolean }> {
    const project = (await this.base.loaders.projects.byId.load(environment.projectId)) as ProjectRow;
    const { access } = this.base;
    return {
      updateEnvironment: await access.can('update_environment', project),
      stopEnvironment: await access.can('stop_environment', project),
      destroyEnvironment: environment.state === 'stopped' && (await access.can('destroy_environment', project)),
    };
  }

  /** GraphQL's `Deployment.userPermissions`: the project's deployment abilities (GitLab's DeploymentPolicy delegates to it). */
  async deploymentPermissions(deployment: DeploymentRow): Promise<{ approveDeployment: boolean; destroyDeployment: boolean; updateDeployment: boolean }> {
    const project = (await this.base.loaders.projects.byId.load(deployment.projectId)) as ProjectRow;
    const { access } = this.base;
    return {
      // EE's approval rules of protected environments decide approve_deployment; without them no one has it.
      approveDeployment: false,
      destroyDeployment: await access.can('destroy_deployment', project),
      updateDeployment: await access.can('update_deployment', project),
    };
  }

  /** Deployments whose `tags` this request resolved (GitLab's FieldCallCount limit of two). */
  private tagCalls = 0;

  /**
   * GraphQL's `Deployment.tags` (GitLab's Deployment#tags): the tags at the deployed commit, at most 100, by name; for
   * two deployments a request. Null for viewers who may not read the project's code.
   */
  async tagsOf(deployment: DeploymentRow): Promise<{ name: string; path: string }[] | null> {
    this.tagCalls += 1;
    if (this.tagCalls > DEPLOYMENT_TAGS_LIMIT) throw argumentError(`"tags" field can be requested only for ${DEPLOYMENT_TAGS_LIMIT} Deployment(s) at a time.`);
    const project = (await this.base.loaders.projects.byId.load(deployment.projectId)) as ProjectRow;
    if (!(await this.base.access.can('download_code', project))) return null;
    const tags = await this.repositories.reads.tags(project, null, 'name', 'ASC');
    return tags
      .filter((tag) => tag.commit.sha === deployment.sha)
      .slice(0, 100)
      .map((tag) => ({ name: tag.name, path: `/${project.fullPath}/-/tags/${tag.name}` }));
  }

  /** The commit a deployment deployed, for viewers who may read the project's code; null when gone. */
  async commitOf(deployment: DeploymentRow): Promise<CommitRow | null> {
    const project = (await this.base.loaders.projects.byId.load(deployment.projectId)) as ProjectRow;
    if (!(await this.base.access.can('download_code', project))) return null;
    return this.repositories.reads.commit(project, deployment.sha);
  }

  /** Deletes a stopped environment (EnvironmentPolicy: `destroy_environment` is prevented unless stopped). */
  async destroy(project: ProjectRow, id: number): Promise<EnvironmentRow> {
    const environment = await this.get(project, id);
    await this.base.access.authorize('destroy_environment', project);
    if (environment.state !== 'stopped') throw forbidden();
    await this.db.environment.delete({ where: { id: environment.id } });
    return environment;
  }

  /**
   * Environments::StopService: with `force`, or when the last deployment has no stop job to play, the environment
   * is stopped at once; otherwise its stop job is played (as the viewer) and it is `stopping` until that job ends.
   */
  async stop(project: ProjectRow, id: number, force = false): Promise<EnvironmentRow> {
    const environment = await this.get(project, id);
    await this.base.access.authorize('stop_environment', project);
    return this.stopEnvironment(project, environment, force);
  }

  private async stopEnvironment(project: ProjectRow, environment: EnvironmentRow, force: boolean): Promise<EnvironmentRow> {
    const stopJob = force || environment.state !== 'available' ? null : await this.stopAction(environment);
    if (stopJob !== null) {
      await this.pipelines.play(project, stopJob);
      await this.db.environment.updateMany({ where: { id: environment.id, state: 'available' }, data: { state: 'stopping', autoStopAt: null } });
    } else if (environment.state !== 'stopped') {
      await this.db.environment.update({ where: { id: environment.id }, data: { state: 'stopped', autoStopAt: null } });
    }
    return this.db.environment.findUniqueOrThrow({ where: { id: environment.id } });
  }

  /** The manual `on_stop` job of the environment's last successful deployment, when it waits to be played. */
  private async stopAction(environment: EnvironmentRow): Promise<number | null> {
    const deployment = await this.db.deployment.findFirst({
      where: { environmentId: environment.id, status: 'success', onStop: { not: null }, jobId: { not: null } },
      orderBy: { id: 'desc' },
      select: { onStop: true, job: { select: { pipelineId: true } } },
    });
    if (!deployment?.job || !deployment.onStop) return null;
    const job = await this.db.ciJob.findFirst({ where: { pipelineId: deployment.job.pipelineId, name: deployment.onStop, retried: false, status: 'manual' }, select: { id: true } });
    return job?.id ?? null;
  }

  /**
   * Environments::StopStaleService: available environments not updated, and not deployed to, since `before`
   * (which must lie between ten years and one week ago) are stopped as `stop` would.
   */
  async stopStale(project: ProjectRow, before: Date): Promise<{ message: string }> {
    await this.allowed(project, 'stop_environment');
    const now = Date.now();
    if (Number.isNaN(before.getTime()) || before.getTime() > now - 7 * DAY_MS || before.getTime() < now - 3652 * DAY_MS) throw badRequest('400 Bad request - Invalid Date');
    const stale = await this.db.environment.findMany({
      where: {
        projectId: project.id,
        state: 'available',
        updatedAt: { lt: before },
        deployments: { none: { OR: [{ finishedAt: { gte: before } }, { status: { in: ['created', 'running', 'blocked'] } }] } },
      },
      orderBy: { id: 'asc' },
    });
    for (const environment of stale) await this.stopEnvironment(project, environment, false);
    return { message: STALE_MESSAGE };
  }

  /**
   * Environments::ScheduleToDeleteReviewAppsService (`DELETE /environments/review_apps`): the project's stopped review
   * apps (environments in the `review/` folder) created before `before` (default 30 days ago) and not scheduled yet,
   * oldest first, at most `limit` (1 to 1000, default 100); unless `dryRun` (the default), each gets `auto_delete_at` a
   * week from now, when the recurring cleanup deletes it. Reporters may ask; deleting needs `destroy_environment`
   * (401 otherwise), and finding none is a 400, both in GitLab's words.
   */
  async scheduleReviewAppsDeletion(
    project: ProjectRow,
    input: { before?: Date | string | null; limit?: number | null; dryRun?: boolean | null },
  ): Promise<{ scheduledEntries: EnvironmentRow[]; unprocessableEntries: EnvironmentRow[] }> {
    await this.allowed(project, 'read_environment');
    const limit = input.limit ?? REVIEW_APPS_LIMIT.default;
    if (!Number.isInteger(limit) || limit < REVIEW_APPS_LIMIT.min || limit > REVIEW_APPS_LIMIT.max) throw invalidArgument('limit');
    const now = new Date();
    const before = input.before == null ? new Date(now.getTime() - REVIEW_APPS_AGE_MS) : new Date(input.before);
    if (Number.isNaN(before.getTime())) throw invalidArgument('before');
    const empty = { scheduled_entries: [], unprocessable_entries: [] };
    if (!(await this.base.access.can('destroy_environment', project))) throw serviceRefusal('You do not have permission to destroy environments in this project', 401, empty);
    const found = await this.db.environment.findMany({
      where: { projectId: project.id, state: 'stopped', autoDeleteAt: null, name: { startsWith: 'review/' }, createdAt: { lt: before } },
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      take: limit,
    });
    // Protected environments (whose rights could leave some unprocessable) are not modelled: every match is deletable.
    if (!found.length) throw serviceRefusal(NOTHING_TO_DELETE, 400, empty);
    if (input.dryRun === false) {
      const autoDeleteAt = new Date(now.getTime() + AUTO_DELETE_AFTER_MS);
      await this.db.environment.updateMany({ where: { id: { in: found.map((e) => e.id) } }, data: { autoDeleteAt } });
      return { scheduledEntries: found.map((e) => ({ ...e, autoDeleteAt })), unprocessableEntries: [] };
    }
    return { scheduledEntries: found, unprocessableEntries: [] };
  }

  /**
   * Environments::AutoDeleteCronWorker: stopped environments whose `auto_delete_at` passed are deleted, oldest mark
   * first, a batch per run; the number deleted.
   */
  async deleteDueEnvironments(now: Date): Promise<number> {
    const due = await this.db.environment.findMany({ where: { state: 'stopped', autoDeleteAt: { lte: now } }, orderBy: { autoDeleteAt: 'asc' }, take: AUTO_DELETE_BATCH, select: { id: true } });
    if (!due.length) return 0;
    const { count } = await this.db.environment.deleteMany({ where: { id: { in: due.map((e) => e.id) }, state: 'stopped', autoDeleteAt: { lte: now } } });
    return count;
  }

  /** Deployments::OlderDeploymentsDropService: the running deployment's older unfinished ones fail (`forward_deployment_failure`). */
  async dropOlderDeployments(deploymentId: number): Promise<void> {
    for (const job of await olderActiveJobs(this.db, deploymentId)) await this.pipelines.dropJob(job, 'forward_deployment_failure');
  }

  /** Environments whose `auto_stop_at` passed, with the user their stop runs as (their last deployment's). */
  async dueForAutoStop(now: Date): Promise<{ id: number; projectId: number; userId: number | null }[]> {
    const due = await this.db.environment.findMany({
      where: { state: 'available', autoStopAt: { lte: now } },
      orderBy: { autoStopAt: 'asc' },
      take: AUTO_STOP_BATCH,
      select: { id: true, projectId: true, deployments: { orderBy: { id: 'desc' }, take: 1, select: { userId: true } } },
    });
    return due.map((e) => ({ id: e.id, projectId: e.projectId, userId: e.deployments[0]?.userId ?? null }));
  }

  /** Environments::AutoStopWorker for one environment: its stop job played as the viewer when it may, else stopped. */
  async autoStop(id: number): Promise<void> {
    const environment = await this.db.environment.findUnique({ where: { id } });
    if (!environment || environment.state !== 'available' || !environment.autoStopAt || environment.autoStopAt > new Date()) return;
    const project = (await this.base.loaders.projects.byId.load(environment.projectId)) as ProjectRow | null;
    if (!project) return;
    const stopJob = this.base.viewer ? await this.stopAction(environment) : null;
    if (stopJob !== null) {
      try {
        await this.pipelines.play(project, stopJob);
        await this.db.environment.updateMany({ where: { id, state: 'available' }, data: { state: 'stopping', autoStopAt: null } });
        return;
      } catch {
        // The user may no longer play it: the environment is stopped without its job.
      }
    }
    await this.db.environment.updateMany({ where: { id, state: 'available' }, data: { state: 'stopped', autoStopAt: null } });
  }

  /** The environment's latest deployment with that status (GraphQL `lastDeployment`; `success` is the entity's `last_deployment`). */
  lastDeployment(environment: EnvironmentRow, status = 'success'): Promise<DeploymentRow | null> {
    return this.base.loaders.environments.lastDeployment.load({ environmentId: environment.id, status });
  }

  // ---- Deployments ----

  private deploymentWhere(project: ProjectRow, filters: DeploymentFilters): Prisma.DeploymentWhereInput {
    const orderBy = filters.orderBy ?? 'id';
    if ((filters.updatedAfter || filters.updatedBefore) && orderBy !== 'updated_at') throw badRequest('400 Bad request - `updated_at` filter and `updated_at` sorting must be paired');
    if (filters.finishedAfter || filters.finishedBefore) {
      if (orderBy !== 'finished_at') throw badRequest('400 Bad request - `finished_at` filter and `finished_at` sorting must be paired');
      if (filters.status !== 'success') throw badRequest('400 Bad request - `finished_at` filter must be combined with `success` status filter.');
    }
    if (filters.environment && orderBy !== 'id' && orderBy !== 'iid' && orderBy !== 'updated_at' && orderBy !== 'finished_at') {
      throw badRequest('400 Bad request - `environment` filter must be combined with `id`, `iid`, `updated_at` or `finished_at` sorting');
    }
    return {
      projectId: project.id,
      ...(filters.environment ? { environment: { name: filters.environment } } : {}),
      ...(filters.status ? { status: filters.status } : filters.statuses?.length ? { status: { in: [...filters.statuses] } } : {}),
      ...(filters.updatedAfter || filters.updatedBefore ? { updatedAt: { ...(filters.updatedAfter ? { gt: filters.updatedAfter } : {}), ...(filters.updatedBefore ? { lt: filters.updatedBefore } : {}) } } : {}),
      ...(filters.finishedAfter || filters.finishedBefore
        ? { finishedAt: { ...(filters.finishedAfter ? { gte: filters.finishedAfter } : {}), ...(filters.finishedBefore ? { lt: filters.finishedBefore } : {}) } }
        : {}),
    };
  }

  async deployments(project: ProjectRow, filters: DeploymentFilters, page: PageArgs) {
    await this.allowed(project, 'read_deployment');
    const where = this.deploymentWhere(project, filters);
    const column = ORDER_COLUMNS[filters.orderBy ?? 'id'];
    const direction = filters.sort ?? 'asc';
    const orderBy: Prisma.DeploymentOrderByWithRelationInput[] = column === 'id' ? [{ id: direction }] : [{ [column]: direction }, { id: direction }];
    return connection(
      page,
      ({ skip, take }) => this.db.deployment.findMany({ where, orderBy, skip, take }),
      () => this.db.deployment.count({ where }),
    );
  }

  /** An environment's deployments (GraphQL `Environment.deployments`), newest first unless said. */
  async environmentDeployments(environment: EnvironmentRow, filters: { statuses?: readonly string[] | null; sort?: 'asc' | 'desc' | null }, page: PageArgs) {
    const project = (await this.base.loaders.projects.byId.load(environment.projectId)) as ProjectRow;
    if (!(await this.base.access.can('read_deployment', project))) return connection(page, async () => [], async () => 0);
    const where: Prisma.DeploymentWhereInput = { environmentId: environment.id, ...(filters.statuses?.length ? { status: { in: [...filters.statuses] } } : {}) };
    return connection(
      page,
      ({ skip, take }) => this.db.deployment.findMany({ where, orderBy: { id: filters.sort ?? 'desc' }, skip, take }),
      () => this.db.deployment.count({ where }),
    );
  }

  async deployment(project: ProjectRow, id: number): Promise<DeploymentRow> {
    await this.allowed(project, 'read_deployment');
    const found = await this.db.deployment.findFirst({ where: { id, projectId: project.id } });
    if (!found) throw recordNotFound();
    return found;
  }

  /** GraphQL's `Project.deployment(iid:)`. */
  async deploymentByIid(project: ProjectRow, iid: number): Promise<DeploymentRow | null> {
    if (!(await this.base.access.can('read_deployment', project))) return null;
    return this.db.deployment.findFirst({ where: { iid, projectId: project.id } });
  }

  /** Deployments::CreateService for an external deployment: its environment found or created by name. */
  async createDeployment(project: ProjectRow, input: DeploymentInput): Promise<DeploymentRow> {
    await this.allowed(project, 'create_deployment');
    const viewer = this.base.access.requireViewer();
    const name = input.environment.trim();
    const problems = nameErrors(name);
    if (problems.length) throw invalid({ name: problems });
    const repository = await this.repositories.open(project);
    const errors: Record<string, string[]> = {};
    if (!(await repository.commit(input.sha).catch(() => null))) errors.sha = ['The commit does not exist'];
    const ref = await repository.resolve(`refs/${input.tag ? 'tags' : 'heads'}/${input.ref}`);
    if (!ref) errors.ref = ['The branch or tag does not exist'];
    if (Object.keys(errors).length) throw invalid(errors);
    const now = new Date();
    const id = await this.db.$transaction(async (tx) => {
      await tx.$queryRaw`SELECT "id" FROM "projects" WHERE "id" = ${project.id} FOR UPDATE`;
      const environment = await ensureEnvironment(tx, project.id, name, null);
      const deployment = await tx.deployment.create({
        data: { iid: await nextDeploymentIid(tx, project.id), projectId: project.id, environmentId: environment.id, ref: input.ref, tag: input.tag, sha: input.sha, userId: viewer.id },
      });
      if (input.status !== 'created') await this.moveExternal(tx, deployment, input.status, now);
      return deployment.id;
    });
    return this.db.deployment.findUniqueOrThrow({ where: { id } });
  }

  /** A status given through the API; a successful deployment makes its environment available (UpdateEnvironmentService). */
  private async moveExternal(tx: Prisma.TransactionClient, deployment: DeploymentRow, status: string, now: Date): Promise<void> {
    if (!(await moveDeployment(tx, this.base, deployment, status, now))) return;
    if (status === 'success') await tx.environment.update({ where: { id: deployment.environmentId }, data: { state: 'available' } });
  }

  /** Deployments::UpdateService: only external deployments; GitLab refuses a job's. */
  async updateDeployment(project: ProjectRow, id: number, status: string): Promise<DeploymentRow> {
    const deployment = await this.deployment(project, id);
    await this.base.access.authorize('update_deployment', project);
    if (deployment.jobId !== null) throw forbidden('Deployments created using GitLab CI can not be updated using the API');
    if (!API_STATUSES.includes(status)) throw badRequest('400 Bad request - status does not have a valid value');
    await this.db.$transaction((tx) => this.moveExternal(tx, deployment, status, new Date()));
    return this.db.deployment.findUniqueOrThrow({ where: { id } });
  }

  /** Ci::Deployments::DestroyService: never a running deployment, nor the environment's current one. */
  async destroyDeployment(project: ProjectRow, id: number): Promise<DeploymentRow> {
    const deployment = await this.deployment(project, id);
    await this.base.access.authorize('destroy_deployment', project);
    if (deployment.status === 'running') throw badRequest('Cannot destroy running deployment');
    const last = await this.db.deployment.findFirst({ where: { environmentId: deployment.environmentId, status: 'success' }, orderBy: { id: 'desc' }, select: { id: true } });
    if (last?.id === deployment.id) throw badRequest('Deployment currently deployed to environment');
    await this.db.deployment.delete({ where: { id } });
    return deployment;
  }

  /** The deployment's job, when the viewer may read jobs of its project. */
  async deployable(deployment: DeploymentRow) {
    if (deployment.jobId === null) return null;
    const project = (await this.base.loaders.projects.byId.load(deployment.projectId)) as ProjectRow;
    if (!(await this.base.access.can('read_build', project))) return null;
    return this.base.loaders.environments.jobById.load(deployment.jobId);
  }

  environmentById(id: number): Promise<EnvironmentRow | null> {
    return this.base.loaders.environments.byId.load(id);
  }

  /** GitLab's `can_read_pod_logs?` on the entity: Developers and above see the logs fields. */
  async readsLogs(environment: EnvironmentRow): Promise<boolean> {
    if (!this.base.viewer) return false;
    const project = (await this.base.loaders.projects.byId.load(environment.projectId)) as ProjectRow;
    return this.base.access.can('update_environment', project);
  }
}
