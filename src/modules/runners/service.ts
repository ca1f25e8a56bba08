/**
 * Owns runners (GitLab's Ci::Runner): creating them with a token shown once, the runners API (lists with GitLab's
 * filters, details, changes, deletion, enabling project runners for other projects) and, through the runner
 * protocol, what a runner does with its token: verify itself, ask for jobs (queue.ts), report on them
 * (transitions.ts), stream their logs (trace.ts) and upload their artifacts (artifacts.ts).
 */
import type { Readable } from 'node:stream';
import DataLoader from 'dataloader';
import { projectSubject, type RunnerSubject } from '../../auth/policy.js';
import { runnerOwner } from './policy.js';
import { digestToken, generateToken } from '../../auth/secrets.js';
import type { JobCiVariable } from '../../ci/variables.js';
import { Prisma, type PrismaClient } from '../../db/database.js';
import { argumentRefused, atLeastOneOf, badRequest, forbidden, refused, stateForbids, invalid, mutuallyExclusive, notFound, recordNotFound } from '../../errors.js';
import { connection, listConnection, type PageArgs } from '../../graphql/connection.js';
import { parseId } from '../../graphql/ids.js';
import type { ServiceBase } from '../module.js';
import type { NamespaceRow } from '../namespaces/service.js';
import type { JobRow, PipelinesService } from '../pipelines/service.js';
import { projectSearchWhere, type ProjectRow } from '../projects/service.js';
import type { ProtectedBranchesService } from '../protected_branches/service.js';
import type { RepositoriesService } from '../repositories/service.js';
import { archiveFile, deleteJobArtifacts, downloadableArchive, removeArtifacts, storeArtifact, type ArtifactFile, type ArtifactUpload, type Download } from './artifacts.js';
import { creationRefused, filtersWhere, KIND_SCOPES, problems, RUNNER_STATUSES, splitTags, type RunnerCreateInput, type RunnerFilters, type RunnerUpdateInput } from './attributes.js';
import { claimJob } from './queue.js';
import { CONTACT_RESOLUTION_MS, optionsOf } from './protocol.js';
import { appendTrace, type TraceResult } from './trace.js';
import { failStuckJobs, jobByToken, updateJobState, type JobUpdate, type JobUpdateResult } from './transitions.js';
import type { JobResponse } from './payload.js';

export type RunnerRow = Prisma.RunnerGetPayload<object>;

/** GitLab's project filters of `CiRunner.projects` (its ProjectSearchArguments and `sort`). */
export interface RunnerProjectFilters {
  search?: string | null;
  searchNamespaces?: boolean | null;
  membership?: boolean | null;
  topics?: readonly string[] | null;
  /** `id_asc` (GitLab's default) or `id_desc`. */
  sort?: string | null;
}
/** A runner as its creation answers it: with its clear token, shown this once. */
export type IssuedRunner = RunnerRow & { token?: string };

const TOKEN_PREFIX = 'glrt-';

/** What a runner says about itself (`info` of the runner protocol). */
export interface RunnerInfo {
  name?: string;
  version?: string;
  revision?: string;
  platform?: string;
  architecture?: string;
  executor?: string;
}

/**
 * The CI/CD variables (instance, group, project) a job gets: supplied by the CI/CD variables module once it is
 * wired in `index.ts` (`ci_variables.forJob`); without it jobs get none.
 */
export interface CiVariablesSource {
  forJob(project: ProjectRow, options: { protectedRef: boolean; environment: string | null }): Promise<JobCiVariable[]>;
}

/** GitLab's RunnersJobsStatisticsResolver: jobs of this many runners at most, this many jobs at most. */
const STATISTICS_RUNNERS_LIMIT = 5000;
const STATISTICS_JOBS_LIMIT = 100;

/** GraphQL's CiJobsStatistics: percentiles of jobs' queued durations, in seconds (null without jobs). */
export interface JobsStatistics {
  queuedDuration: { p50: number | null; p75: number | null; p90: number | null; p95: number | null; p99: number | null };
}

/** GitLab's Ci::Runner::REGISTRATION_AVAILABILITY_TIME: a new runner's registration page lasts seven days. */
const REGISTRATION_AVAILABILITY_MS = 7 * 24 * 3600_000;

/** Expired artifacts removed per run of the recurring cleanup. */
const EXPIRED_BATCH = 100;

/**
 * Whether the artifacts of the job `jobId` names (an SQL expression) outlive their expiry (GitLab's artifacts_locked
 * pipelines): its project keeps the latest artifacts (keep_latest_artifact, on by default), and no pipeline of its ref
 * succeeded after its own.
 */
const keptArtifacts = (jobId: Prisma.Sql) => Prisma.sql`EXISTS (
  SELECT 1 FROM "ci_builds" kj JOIN "ci_pipelines" kp ON kp."id" = kj."pipelineId"
  WHERE kj."id" = ${jobId}
    AND COALESCE((SELECT s."keepLatestArtifact" FROM "project_ci_cd_settings" s WHERE s."projectId" = kp."projectId"), true)
    AND NOT EXISTS (SELECT 1 FROM "ci_pipelines" later WHERE later."projectId" = kp."projectId" AND later."ref" = kp."ref" AND later."id" > kp."id" AND later."status" = 'success'))`;

export class RunnersService {
  constructor(
    private readonly base: ServiceBase,
    private readonly pipelines: PipelinesService,
    private readonly repositories: RepositoriesService,
    private readonly protectedBranches: ProtectedBranchesService,
    private readonly ciVariables: CiVariablesSource | null,
  ) {}

  private get db(): PrismaClient {
    return this.base.db;
  }

  // ---- Access ----

  /** What deciding access to the runner needs: its group and its projects, through the request's loaders. */
  private async subject(runner: RunnerRow): Promise<RunnerSubject> {
    const { loaders } = this.base;
    const group = runner.namespaceId === null ? null : await loaders.namespaces.byId.load(runner.namespaceId);
    const ids = runner.runnerType === 'project_type' ? await loaders.runners.projectIds.load(runner.id) : [];
    const projects = (await loaders.projects.byId.loadMany(ids)).filter((p): p is ProjectRow => !!p && !(p instanceof Error));
    return { runnerType: runner.runnerType, locked: runner.locked, group, projects };
  }

  async can(ability: 'read_runner' | 'update_runner' | 'delete_runner' | 'assign_runner' | 'read_builds', runner: RunnerRow): Promise<boolean> {
    return this.base.access.can(ability, await this.subject(runner));
  }

  private async find(id: number): Promise<RunnerRow> {
    const runner = await this.db.runner.findUnique({ where: { id } });
    if (!runner) throw notFound('Runner');
    return runner;
  }

  /** A runner the viewer may see: `404 Runner Not Found`, then `403 Forbidden - No access granted`, as GitLab checks. */
  async get(id: string): Promise<RunnerRow> {
    this.base.access.requireViewer();
    const runner = await this.find(parseId(id, 'Ci::Runner', 'id'));
    if (!this.base.access.allowed('admin_all_resources') && !(await this.can('read_runner', runner))) throw forbidden('No access granted');
    return runner;
  }

  // ---- Lists ----

  /** A page of runners; its `jobsStatistics` (GraphQL's CiRunnerConnection) is read, like its other fields, only when asked. */
  private page(where: Prisma.RunnerWhereInput, page: PageArgs) {
    const list = connection(
      page,
      ({ skip, take }) => this.db.runner.findMany({ where, orderBy: { id: 'asc' }, skip, take }),
      () => this.db.runner.count({ where }),
    );
    let statistics: Promise<JobsStatistics | null> | undefined;
    return Object.defineProperty(list, 'jobsStatistics', { get: () => (statistics ??= this.jobsStatistics(where)), enumerable: true }) as typeof list & {
      readonly jobsStatistics: Promise<JobsStatistics | null>;
    };
  }

  /**
   * GitLab's RunnersJobsStatisticsResolver, for administrators (read_jobs_statistics): the queued durations' 50th to
   * 99th percentiles (continuous) of the 100 newest started jobs of the 5,000 newest runners of the list.
   */
  private async jobsStatistics(where: Prisma.RunnerWhereInput): Promise<JobsStatistics | null> {
    if (!this.base.access.allowed('admin_all_resources')) return null;
    const runners = await this.db.runner.findMany({ where, orderBy: { id: 'desc' }, take: STATISTICS_RUNNERS_LIMIT, select: { id: true } });
    const [row] = await this.db.$queryRaw<JobsStatistics['queuedDuration'][]>`
      SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY d) AS "p50", percentile_cont(0.75) WITHIN GROUP (ORDER BY d) AS "p75",
        percentile_cont(0.9) WITHIN GROUP (ORDER BY d) AS "p90", percentile_cont(0.95) WITHIN GROUP (ORDER BY d) AS "p95",
        percentile_cont(0.99) WITHIN GROUP (ORDER BY d) AS "p99"
      FROM (
        SELECT EXTRACT(EPOCH FROM (j."startedAt" - j."queuedAt"))::float8 AS d FROM "ci_builds" j
        WHERE j."runnerId" = ANY(${runners.map((r) => r.id)}::int[]) AND j."startedAt" IS NOT NULL
        ORDER BY j."id" DESC LIMIT ${STATISTICS_JOBS_LIMIT}
      ) AS durations`;
    return { queuedDuration: row };
  }

  /** `GET /runners`: the runners the viewer owns (group runners of groups they own, project runners of projects they maintain). */
  async owned(filters: RunnerFilters, page: PageArgs) {
    this.base.access.requireViewer();
    const owned = await this.base.access.ruleWhere(runnerOwner);
    return this.page({ AND: [owned, ...filtersWhere(filters, RUNNER_STATUSES)] }, page);
  }

  /** `GET /runners/all`: every runner, for administrators. */
  async all(filters: RunnerFilters, page: PageArgs) {
    const { access } = this.base;
    access.requireViewer();
    if (!access.allowed('admin_all_resources')) throw forbidden();
    return this.page({ AND: filtersWhere(filters, [...KIND_SCOPES, ...RUNNER_STATUSES]) }, page);
  }

  /** `GET /projects/:id/runners`: its own runners, its groups' and the instance's (GitLab's owned_or_instance_wide). */
  async forProject(project: ProjectRow, filters: RunnerFilters, page: PageArgs) {
    await this.base.access.authorize('read_project_runners', project);
    const scope: Prisma.RunnerWhereInput = {
      OR: [
        { runnerType: 'project_type', projects: { some: { projectId: project.id } } },
        { runnerType: 'group_type', namespaceId: { in: project.namespace.traversalIds } },
        { runnerType: 'instance_type' },
      ],
    };
    return this.page({ AND: [scope, ...filtersWhere(filters, [...KIND_SCOPES, ...RUNNER_STATUSES])] }, page);
  }

  /** `GET /groups/:id/runners`: the group's runners, its ancestors' and the instance's (GitLab's group_or_instance_wide). */
  async forGroup(group: NamespaceRow, filters: RunnerFilters, page: PageArgs) {
    await this.base.access.authorize('read_group_runners', group);
    const scope: Prisma.RunnerWhereInput = { OR: [{ runnerType: 'group_type', namespaceId: { in: group.traversalIds } }, { runnerType: 'instance_type' }] };
    return this.page({ AND: [scope, ...filtersWhere(filters, [])] }, page);
  }

  /** The maintenance note, for those who may update the runner (GitLab's RunnerDetails). */
  /** GraphQL's `CiRunner.userPermissions` (GitLab's RunnerPermissions from Ci::RunnerPolicy). */
  async permissions(runner: RunnerRow) {
    return {
      readRunner: await this.can('read_runner', runner),
      updateRunner: await this.can('update_runner', runner),
      deleteRunner: await this.can('delete_runner', runner),
      assignRunner: await this.can('assign_runner', runner),
    };
  }

  /** GraphQL's `CiRunner.jobCount`: its jobs (with these statuses), up to 1,001 (GitLab's JOB_COUNT_LIMIT plus one). */
  jobCount(runner: RunnerRow, statuses: readonly string[] | null | undefined): Promise<number> {
    return this.base.loaders.runners.jobCount.load(`${runner.id}:${statuses ? [...new Set(statuses)].sort().join(',') : ''}`);
  }

  /** GraphQL's `CiRunner.projectCount`: the projects a project runner is enabled for; null for other runners. */
  async projectCount(runner: RunnerRow): Promise<number | null> {
    return runner.runnerType === 'project_type' ? this.base.loaders.runners.projectCount.load(runner.id) : null;
  }

  /** GraphQL's `CiRunner.ownerProject`: the first project a project runner was enabled for (the caller checks it may be read). */
  async ownerProjectId(runner: RunnerRow): Promise<number | null> {
    if (runner.runnerType !== 'project_type') return null;
    return (await this.base.loaders.runners.projectIds.load(runner.id))[0] ?? null;
  }

  /** Whether the viewer administers the instance: the runner's admin URLs are theirs only (GitLab's can_admin_runners?). */
  administers(): boolean {
    return this.base.access.allowed('admin_all_resources');
  }

  /**
   * GitLab's Ci::Runner#registration_available?: a runner made through the API (every runner here: there is no
   * registration token) in the last seven days that no runner manager has used yet (it never called).
   */
  registrationAvailable(runner: RunnerRow, now = Date.now()): boolean {
    return runner.contactedAt === null && now - runner.createdAt.getTime() < REGISTRATION_AVAILABILITY_MS;
  }

  /** GitLab's Ci::Build#stuck?: a pending build no online runner could pick (its tags, its project, its ref's protection). */
  async stuck(job: JobRow): Promise<boolean> {
    if (job.status !== 'pending' || job.type !== 'build') return false;
    const levels = await this.base.loaders.runners.pickers.load(job.id);
    if (levels.includes('not_protected')) return false;
    if (!levels.includes('ref_protected')) return true;
    // A ref_protected runner takes jobs of protected refs only (protected tags are not modelled: tags never are).
    return job.tag || !(await this.protectedBranches.anyProtected(job.projectId, [job.ref]));
  }

  async maintenanceNoteOf(runner: RunnerRow): Promise<string | null> {
    const { access } = this.base;
    return access.allowed('admin_all_resources') || (await this.can('update_runner', runner)) ? runner.maintenanceNote : null;
  }

  /**
   * `CiRunner.projects` (GitLab's RunnerProjectsResolver): the projects a project runner is enabled for that the viewer
   * may read, with GitLab's project filters, ordered by ID. Batched as GitLab batches it: the runners asked for in
   * one request with the same filters share one query for their links to readable projects (IDs only), and the
   * rows of every page come through the projects loader; only the page's rows are loaded.
   */
  async projectsOf(runner: RunnerRow, filters: RunnerProjectFilters, page: PageArgs) {
    const ids = runner.runnerType === 'project_type' ? await this.projectLinks(filters).load(runner.id) : [];
    const rows = async ({ skip, take }: { skip: number; take: number }) =>
      (await this.base.loaders.projects.byId.loadMany(ids.slice(skip, skip + take))).filter((p): p is ProjectRow => !!p && !(p instanceof Error));
    return connection(page, rows, async () => ids.length);
  }

  private readonly projectLinkLoaders = new Map<string, DataLoader<number, number[]>>();

  /** Per filter set, a loader of each runner's readable project IDs in the asked order. */
  private projectLinks(filters: RunnerProjectFilters): DataLoader<number, number[]> {
    const direction = filters.sort === 'id_desc' ? 'desc' : 'asc';
    const key = JSON.stringify([filters.search ?? null, !!filters.searchNamespaces, !!filters.membership, filters.topics ?? null, direction]);
    let loader = this.projectLinkLoaders.get(key);
    if (!loader) {
      loader = new DataLoader<number, number[]>(async (runnerIds) => {
        const { access } = this.base;
        const and: Prisma.ProjectWhereInput[] = [await access.where('read_project'), { pendingDelete: false }];
        if (filters.membership) and.push(await access.memberProjectsWhere());
        if (filters.search) and.push(projectSearchWhere(filters.search, filters.searchNamespaces));
        if (filters.topics?.length) and.push({ topics: { hasEvery: [...filters.topics] } });
        const links = await this.db.runnerProject.findMany({
          where: { runnerId: { in: [...runnerIds] }, project: { AND: and } },
          orderBy: { projectId: direction },
          select: { runnerId: true, projectId: true },
        });
        const byRunner = new Map<number, number[]>(runnerIds.map((id) => [id, []]));
        for (const link of links) byRunner.get(link.runnerId)!.push(link.projectId);
        return runnerIds.map((id) => byRunner.get(id)!);
      });
      this.projectLinkLoaders.set(key, loader);
    }
    return loader;
  }

  /** `CiRunner.groups`: the group of a group runner, when the viewer may read it. */
  async groupsOf(runner: RunnerRow, page: PageArgs) {
    const group = runner.namespaceId === null || runner.runnerType !== 'group_type' ? null : await this.base.loaders.namespaces.byId.load(runner.namespaceId);
    const shown = group && (await this.base.access.can('read_group', group)) ? [group] : [];
    return listConnection(page, shown);
  }

  /** Jobs the runner ran, in projects whose jobs the viewer may read (all for administrators). */
  async jobs(runner: RunnerRow, filters: { statuses?: readonly string[] | null; sort?: 'asc' | 'desc' | null }, page: PageArgs) {
    const { access } = this.base;
    const admin = access.allowed('admin_all_resources');
    if (!admin && !(await this.can('read_builds', runner))) throw forbidden('No access granted');
    const where: Prisma.CiJobWhereInput = {
      runnerId: runner.id,
      ...(filters.statuses?.length ? { status: { in: [...filters.statuses] } } : {}),
      ...(admin ? {} : { project: await access.where('read_build') }),
    };
    const direction = filters.sort ?? 'desc';
    return connection(
      page,
      ({ skip, take }) => this.db.ciJob.findMany({ where, orderBy: { id: direction }, skip, take }),
      () => this.db.ciJob.count({ where }),
    );
  }

  // ---- Changes ----

  /** `POST /user/runners`: a runner of the kind asked, created by the viewer, with its token (shown this once). */
  async create(input: RunnerCreateInput): Promise<IssuedRunner> {
    const { access } = this.base;
    const viewer = access.requireViewer();
    let namespaceId: number | null = null;
    let projectId: number | null = null;
    // GitLab's runner creation strategies: the scope is looked up whoever asks, then the viewer's right on it.
    if (input.runnerType === 'instance_type') {
      if (!access.allowed('create_instance_runner')) throw forbidden('Insufficient permissions');
    } else if (input.runnerType === 'group_type') {
      const id = input.groupId ?? null;
      const group = id === null ? null : await this.db.namespace.findFirst({ where: { id, kind: 'group' } });
      if (!group) throw badRequest('400 Bad request - Missing/invalid group');
      if (!(await access.can('create_runner', group))) throw forbidden('Insufficient permissions');
      namespaceId = group.id;
    } else {
      const id = input.projectId ?? null;
      const project = id === null ? null : await this.base.loaders.projects.byId.load(id);
      if (!project) throw badRequest('400 Bad request - Missing/invalid project');
      if (!(await access.can('create_runner', project))) throw forbidden('Insufficient permissions');
      projectId = project.id;
    }
    const tagList = splitTags(input.tagList);
    const state = { maximumTimeout: input.maximumTimeout ?? null, maintenanceNote: input.maintenanceNote ?? null, runUntagged: input.runUntagged ?? true, tagList };
    const found = problems(state);
    if (Object.keys(found).length) throw creationRefused(found);
    const token = generateToken(TOKEN_PREFIX);
    const runner = await this.db.$transaction(async (tx) => {
      const created = await tx.runner.create({
        data: {
          tokenDigest: digestToken(token),
          tokenPrefix: token.slice(0, TOKEN_PREFIX.length + 8),
          runnerType: input.runnerType,
          namespaceId,
          description: input.description ?? '',
          maintenanceNote: state.maintenanceNote,
          paused: input.paused ?? false,
          locked: input.locked ?? false,
          runUntagged: state.runUntagged,
          tagList,
          accessLevel: input.accessLevel ?? 'not_protected',
          maximumTimeout: state.maximumTimeout,
          creatorId: viewer.id,
        },
      });
      if (projectId !== null) await tx.runnerProject.create({ data: { runnerId: created.id, projectId } });
      return created;
    });
    return { ...runner, token };
  }

  /** `PUT /runners/:id`: at least one change; `active` and `paused` are two words for one thing, not both at once. */
  async update(input: RunnerUpdateInput): Promise<RunnerRow> {
    const runner = await this.find(parseId(input.id, 'Ci::Runner', 'id'));
    this.base.access.requireViewer();
    if (!this.base.access.allowed('admin_all_resources') && !(await this.can('update_runner', runner))) throw forbidden('No access granted');
    const fields = ['description', 'active', 'paused', 'tagList', 'runUntagged', 'locked', 'accessLevel', 'maximumTimeout', 'maintenanceNote'] as const;
    const factors = (['publicProjectsMinutesCostFactor', 'privateProjectsMinutesCostFactor'] as const).filter((f) => input[f] != null);
    // What a runner's minutes cost is the instance's to say (GitLab: administrators only).
    if (factors.length && !this.base.access.allowed('admin_all_resources')) throw forbidden('No access granted');
    const given = [...fields.filter((f) => input[f] !== undefined && input[f] !== null), ...factors];
    const associated = input.associatedProjects == null ? null : input.associatedProjects.map((id) => parseId(id, 'Project', 'associatedProjects'));
    if (associated && runner.runnerType !== 'project_type') throw argumentRefused('associatedProjects', `must not be specified for '${runner.runnerType}' scope`);
    if (given.length === 0 && !associated) throw atLeastOneOf(...fields);
    if (given.includes('active') && given.includes('paused')) throw mutuallyExclusive('active', 'paused');
    const data: Prisma.RunnerUpdateInput = {};
    if (input.description != null) data.description = input.description;
    if (input.active != null) data.paused = !input.active;
    if (input.paused != null) data.paused = input.paused;
    if (input.tagList != null) data.tagList = splitTags(input.tagList);
    if (input.runUntagged != null) data.runUntagged = input.runUntagged;
    if (input.locked != null) data.locked = input.locked;
    if (input.accessLevel != null) data.accessLevel = input.accessLevel;
    if (input.maximumTimeout != null) data.maximumTimeout = input.maximumTimeout;
    if (input.maintenanceNote != null) data.maintenanceNote = input.maintenanceNote;
    if (input.publicProjectsMinutesCostFactor != null) data.publicProjectsMinutesCostFactor = input.publicProjectsMinutesCostFactor;
    if (input.privateProjectsMinutesCostFactor != null) data.privateProjectsMinutesCostFactor = input.privateProjectsMinutesCostFactor;
    const found = problems({
      publicProjectsMinutesCostFactor: input.publicProjectsMinutesCostFactor,
      privateProjectsMinutesCostFactor: input.privateProjectsMinutesCostFactor,
      maximumTimeout: (data.maximumTimeout as number | undefined) ?? runner.maximumTimeout,
      maintenanceNote: (data.maintenanceNote as string | undefined) ?? runner.maintenanceNote,
      runUntagged: (data.runUntagged as boolean | undefined) ?? runner.runUntagged,
      tagList: (data.tagList as string[] | undefined) ?? runner.tagList,
    });
    if (Object.keys(found).length) throw invalid(found);
    const updated = given.length ? await this.db.runner.update({ where: { id: runner.id }, data }) : runner;
    if (associated) await this.setAssociatedProjects(runner, associated);
    return updated;
  }

  /**
   * GitLab's Ci::Runners::SetRunnerAssociatedProjectsService: a project runner serves its owner project (its first)
   * and exactly `projectIds`; the viewer may register runners in each project it gains, and all or none change.
   */
  private async setAssociatedProjects(runner: RunnerRow, projectIds: readonly number[]): Promise<void> {
    const { access } = this.base;
    if (!access.allowed('admin_all_resources') && !(await this.can('assign_runner', runner))) throw refused('user not allowed to assign runner');
    const links = await this.db.runnerProject.findMany({ where: { runnerId: runner.id }, orderBy: { id: 'asc' }, select: { projectId: true } });
    const current = links.map((l) => l.projectId);
    const wanted = new Set([...current.slice(0, 1), ...projectIds]);
    const added = [...wanted].filter((id) => !current.includes(id));
    for (const id of added) {
      const project = await this.base.loaders.projects.byId.load(id);
      if (!project || !(await access.can('create_runner', project))) throw badRequest('user is not authorized to add runners to project');
    }
    const removed = current.filter((id) => !wanted.has(id));
    await this.db.$transaction(async (tx) => {
      if (added.length) await tx.runnerProject.createMany({ data: added.map((projectId) => ({ runnerId: runner.id, projectId })) });
      if (removed.length) await tx.runnerProject.deleteMany({ where: { runnerId: runner.id, projectId: { in: removed } } });
    });
    this.base.loaders.runners.projectIds.clear(runner.id);
  }

  /** `DELETE /runners/:id`; a project runner of several projects only by administrators (GitLab's check comes first). */
  async delete(id: string): Promise<RunnerRow> {
    const runner = await this.find(parseId(id, 'Ci::Runner', 'id'));
    this.base.access.requireViewer();
    if (!this.base.access.allowed('admin_all_resources')) {
      if (runner.runnerType === 'project_type' && (await this.base.loaders.runners.projectIds.load(runner.id)).length > 1) {
        throw stateForbids('Runner associated with more than one project');
      }
      if (!(await this.can('delete_runner', runner))) throw forbidden('No access granted');
    }
    await this.db.runner.delete({ where: { id: runner.id } });
    return runner;
  }

  /** `POST /projects/:id/runners`: a project runner the viewer owns takes this project's jobs too. */
  async assignToProject(project: ProjectRow, runnerId: string): Promise<RunnerRow> {
    const { access } = this.base;
    await access.authorize('create_runner', project);
    const runner = await this.find(parseId(runnerId, 'Ci::Runner', 'runnerId'));
    if (runner.runnerType === 'group_type') throw stateForbids('Runner is a group runner');
    if (!access.allowed('admin_all_resources')) {
      if (runner.locked) throw stateForbids('Runner is locked');
      if (!(await this.can('assign_runner', runner))) throw forbidden('No access granted');
    }
    if (runner.runnerType === 'instance_type') throw badRequest('400 Bad request - Transitioning an instance runner to a project runner is not supported');
    const linked = await this.db.runnerProject.findUnique({ where: { runnerId_projectId: { runnerId: runner.id, projectId: project.id } } });
    if (linked) throw badRequest('400 Bad request - Validation failed: Runner has already been taken');
    await this.db.runnerProject.create({ data: { runnerId: runner.id, projectId: project.id } });
    return runner;
  }

  /** `DELETE /projects/:id/runners/:runner_id`: not the runner's last project (delete the runner instead). */
  async unassignFromProject(project: ProjectRow, runnerId: string): Promise<RunnerRow> {
    await this.base.access.authorize('admin_project_runners', project);
    const id = parseId(runnerId, 'Ci::Runner', 'runnerId');
    const link = await this.db.runnerProject.findUnique({ where: { runnerId_projectId: { runnerId: id, projectId: project.id } } });
    if (!link) throw notFound('Runner');
    if ((await this.db.runnerProject.count({ where: { runnerId: id } })) === 1) {
      throw stateForbids('Only one project associated with the runner. Please remove the runner instead');
    }
    await this.db.runnerProject.delete({ where: { id: link.id } });
    return this.find(id);
  }

  /**
   * The server's own instance runner (RUNNER=shell): the runner of `token` when there is one, else a new one; its
   * token either way. Created once and kept, as long as its token is kept.
   */
  async builtInRunner(token: string | null, tags: string[] = []): Promise<string> {
    // RUNNER_TAGS, as `gitlab-runner register --tag-list` leaves them: with tags, untagged jobs are not taken.
    const tagging = { tagList: tags, runUntagged: tags.length === 0 };
    if (token && (await this.db.runner.findUnique({ where: { tokenDigest: digestToken(token) }, select: { id: true } }))) {
      await this.db.runner.update({ where: { tokenDigest: digestToken(token) }, data: tagging });
      return token;
    }
    const fresh = generateToken(TOKEN_PREFIX);
    await this.db.runner.create({
      data: { tokenDigest: digestToken(fresh), tokenPrefix: fresh.slice(0, TOKEN_PREFIX.length + 8), runnerType: 'instance_type', description: 'Built-in shell runner', locked: false, ...tagging },
    });
    return fresh;
  }

  // ---- The runner protocol: a runner's own token ----

  /** The runner whose token this is; `403 Forbidden` otherwise (GitLab's authenticate_runner!). */
  async authenticate(token: unknown): Promise<RunnerRow> {
    const runner = typeof token === 'string' && token !== '' ? await this.db.runner.findUnique({ where: { tokenDigest: digestToken(token) } }) : null;
    if (!runner) throw forbidden();
    return runner;
  }

  /** GitLab's Ci::Runner#heartbeat: when it called, from where, and what it says it is; written at most once a minute unless it changed. */
  async heartbeat(runner: RunnerRow, info: RunnerInfo | null | undefined, ipAddress: string | null): Promise<RunnerRow> {
    const reported = {
      ...(info?.name !== undefined ? { name: String(info.name) } : {}),
      ...(info?.version !== undefined ? { version: String(info.version) } : {}),
      ...(info?.revision !== undefined ? { revision: String(info.revision) } : {}),
      ...(info?.platform !== undefined ? { platform: String(info.platform) } : {}),
      ...(info?.architecture !== undefined ? { architecture: String(info.architecture) } : {}),
      ...(info?.executor !== undefined ? { executorType: String(info.executor) } : {}),
      ...(ipAddress ? { ipAddress } : {}),
    };
    const changed = Object.entries(reported).some(([key, value]) => runner[key as keyof RunnerRow] !== value);
    const recent = runner.contactedAt !== null && Date.now() - runner.contactedAt.getTime() < CONTACT_RESOLUTION_MS;
    if (recent && !changed) return runner;
    // A write, on the write lane even when the request reads on the read lane (POST /jobs/request).
    return this.base.app.db.runner.update({ where: { id: runner.id }, data: { ...reported, contactedAt: new Date() } });
  }

  /** `POST /runners/verify`. */
  async verify(token: unknown, info: RunnerInfo | null | undefined, ipAddress: string | null): Promise<RunnerRow> {
    return this.heartbeat(await this.authenticate(token), info, ipAddress);
  }

  /** `DELETE /runners` with the runner's token: the runner unregisters itself. */
  async unregister(token: unknown): Promise<void> {
    const runner = await this.authenticate(token);
    await this.db.runner.delete({ where: { id: runner.id } });
  }

  /** `POST /runners/reset_authentication_token`: a new token for the runner, the old one stops working. */
  async resetToken(token: unknown): Promise<{ runner: RunnerRow; token: string }> {
    const runner = await this.authenticate(token);
    const fresh = generateToken(TOKEN_PREFIX);
    const updated = await this.db.runner.update({ where: { id: runner.id }, data: { tokenDigest: digestToken(fresh), tokenPrefix: fresh.slice(0, TOKEN_PREFIX.length + 8) } });
    return { runner: updated, token: fresh };
  }

  private protocolDeps() {
    const { app, loaders, publish } = this.base;
    // Writes always go to the write lane; a job request's reads may be on the read lane (see src/http/runner-api.ts).
    return {
      db: app.db,
      readDb: this.db,
      app,
      publish,
      pipelines: this.pipelines,
      repositories: this.repositories,
      protectedBranches: this.protectedBranches,
      projectOf: async (id: number) => {
        const project = await loaders.projects.byId.load(id);
        if (!project) throw notFound('Project');
        return project;
      },
      userOf: (id: number) => loaders.users.byId.load(id),
      ciVariables: (project: ProjectRow, options: { protectedRef: boolean; environment: string | null }) => this.ciVariables?.forJob(project, options) ?? Promise.resolve([]),
    };
  }

  /** `POST /jobs/request`: the oldest pending job this runner may take, claimed for it, as the runner protocol answers it; null when there is none. */
  async requestJob(runner: RunnerRow): Promise<JobResponse | null> {
    if (runner.paused) return null;
    return claimJob(this.protocolDeps(), runner);
  }

  /** `PUT /jobs/:id`: the runner's word on a running job. */
  updateJob(jobId: number, token: unknown, update: JobUpdate): Promise<JobUpdateResult> {
    return updateJobState(this.protocolDeps(), jobId, token, update);
  }

  /** `PATCH /jobs/:id/trace`: more of the job's log, starting at `contentRange`'s first byte. */
  appendTrace(jobId: number, token: unknown, contentRange: string | undefined, body: Buffer): Promise<TraceResult> {
    return appendTrace(this.protocolDeps(), jobId, token, contentRange, body);
  }

  /** The running job whose token this is, for uploads (403 otherwise, with its status when it stopped running). */
  runningJob(jobId: number, token: unknown) {
    return jobByToken(this.db, jobId, token);
  }

  /** `POST /jobs/:id/artifacts`: streams the upload to storage; parses JUnit reports. */
  async uploadArtifact(jobId: number, token: unknown, upload: ArtifactUpload, file: Readable): Promise<void> {
    const job = await jobByToken(this.db, jobId, token);
    await storeArtifact(this.protocolDeps(), job, upload, file);
  }

  /**
   * The archive of a job, for a viewer who may read the job's project's jobs: a runner downloading a dependency
   * with its running job's token, or a user. `404 Not Found` when it has none, or it expired.
   */
  async archive(project: ProjectRow, jobId: number): Promise<Download> {
    const job = await this.pipelines.job(project, jobId);
    await this.authorizeArtifacts(project, job);
    return downloadableArchive(this.db, this.base.app.artifacts, job, (id) => this.keptPastExpiry(id));
  }

  /**
   * `GET /projects/:id/jobs/:job_id/artifacts/*artifact_path`: one file of the job's archive, null when the archive
   * has no such file; `404 Not Found` when the job has no archive (GitLab's available_artifacts?).
   */
  async artifactFile(project: ProjectRow, jobId: number, path: string): Promise<ArtifactFile | null> {
    return archiveFile(this.base.app.artifacts, await this.archive(project, jobId), path);
  }

  /** `GET /projects/:id/jobs/artifacts/:ref_name/raw/*artifact_path?job=`: one file of latestArchive's archive. */
  async latestArtifactFile(project: ProjectRow, ref: string, jobName: string, path: string): Promise<ArtifactFile | null> {
    return archiveFile(this.base.app.artifacts, await this.latestArchive(project, ref, jobName), path);
  }

  /** Ci::BuildPolicy's read_job_artifacts: the job's `artifacts:access` (or `public`) may narrow who downloads them. */
  private async authorizeArtifacts(project: ProjectRow, job: JobRow): Promise<void> {
    await this.base.access.authorize('read_job_artifacts', { project: projectSubject(project), access: optionsOf(job).artifacts?.access ?? 'all' });
  }

  /** The archive of a job, for a runner holding another running job's token (GitLab's authenticate_job_via_dependent_job!). */
  async dependencyArchive(jobId: number): Promise<Download> {
    const job = await this.db.ciJob.findUnique({ where: { id: jobId } });
    const project = job ? await this.base.loaders.projects.byId.load(job.projectId) : null;
    if (!job || !project || !(await this.base.access.can('read_build', project))) throw forbidden();
    return downloadableArchive(this.db, this.base.app.artifacts, job, (id) => this.keptPastExpiry(id));
  }

  /** `GET /projects/:id/jobs/artifacts/:ref_name/download?job=`: the named job of the ref's latest successful pipeline. */
  async latestArchive(project: ProjectRow, ref: string, jobName: string): Promise<Download> {
    await this.base.access.authorize('read_build', project);
    const pipeline = await this.db.pipeline.findFirst({ where: { projectId: project.id, ref, status: 'success' }, orderBy: { id: 'desc' } });
    const job = pipeline ? await this.db.ciJob.findFirst({ where: { pipelineId: pipeline.id, name: jobName, type: 'build', status: 'success', retried: false }, orderBy: { id: 'desc' } }) : null;
    // GitLab's latest_successful_build_for_ref! raises RecordNotFound, which its API answers `404 Not found`.
    if (!job) throw recordNotFound();
    return this.archive(project, job.id);
  }

  /** `DELETE /projects/:id/jobs/:job_id/artifacts`: Maintainers delete a job's files. */
  async destroyArtifacts(project: ProjectRow, jobId: number): Promise<{ job: Prisma.CiJobGetPayload<object>; count: number }> {
    const job = await this.pipelines.job(project, jobId);
    await this.base.access.authorize('destroy_artifacts', project);
    return { job, count: await deleteJobArtifacts(this.db, this.base.app.artifacts, job.id) };
  }

  /**
   * `POST /projects/:id/jobs/:job_id/artifacts/keep` (Ci::Build#keep_artifacts!): the job's artifacts no longer
   * expire. Whoever may update the job (update_build, not on a protected ref they may not update); a job without an
   * unexpired archive is not found.
   */
  async keepArtifacts(project: ProjectRow, jobId: number): Promise<Prisma.CiJobGetPayload<object>> {
    const job = await this.pipelines.job(project, jobId);
    await this.base.access.authorize('update_build', project);
    await this.base.access.authorize('update_ref', await this.protectedBranches.refSubject(project, job.ref, job.tag));
    const archive = await this.db.ciJobArtifact.findFirst({ where: { jobId: job.id, fileType: 'archive' }, select: { expireAt: true } });
    if (!archive || (archive.expireAt && archive.expireAt <= new Date() && !(await this.keptPastExpiry(job.id)))) throw notFound();
    await this.db.ciJobArtifact.updateMany({ where: { jobId: job.id }, data: { expireAt: null } });
    return job;
  }

  /**
   * `DELETE /projects/:id/artifacts` (Ci::JobArtifacts::DeleteProjectArtifactsService): every artifact of the
   * project's jobs but traces expires now; the recurring removal of expired artifacts deletes them. Maintainers.
   */
  async expireProjectArtifacts(project: ProjectRow): Promise<{ message: string }> {
    await this.base.access.authorize('destroy_artifacts', project);
    await this.db.ciJobArtifact.updateMany({ where: { projectId: project.id, fileType: { not: 'trace' } }, data: { expireAt: new Date() } });
    return { message: '202 Accepted' };
  }

  /** Removes artifacts that expired before `now` and are not kept (GitLab's ExpireBuildArtifactsWorker); how many. */
  async removeExpiredArtifacts(now: Date): Promise<number> {
    const rows = await this.db.$queryRaw<{ id: number; path: string }[]>`
      SELECT a."id", a."path" FROM "ci_job_artifacts" a
      WHERE a."expireAt" < ${now} AND NOT ${keptArtifacts(Prisma.sql`a."jobId"`)}
      ORDER BY a."id" LIMIT ${EXPIRED_BATCH}`;
    return removeArtifacts(this.db, this.base.app.artifacts, rows);
  }

  /** Whether a job's artifacts outlive their expiry (keep_latest_artifact). */
  private async keptPastExpiry(jobId: number): Promise<boolean> {
    const [row] = await this.db.$queryRaw<{ kept: boolean }[]>`SELECT ${keptArtifacts(Prisma.sql`${jobId}::int`)} AS "kept"`;
    return row?.kept ?? false;
  }

  /** GitLab's StuckCiJobsWorker and timed-out job check, at `now`: fails what no runner will finish. */
  failStuckJobs(now: Date): Promise<number> {
    return failStuckJobs(this.protocolDeps(), now);
  }
}

