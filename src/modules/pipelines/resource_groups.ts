/**
 * Resource groups (GitLab's Ci::ResourceGroup and Ci::Resource): jobs naming one `resource_group:` key run one at a
 * time. A job about to become pending waits in `waiting_for_resource` unless it holds the group's resource; a
 * background job (GitLab's AssignResourceFromResourceGroupWorker) hands the free resource to the next job its process
 * mode picks, and a job that completes gives it back; a resource a completed job still holds after five minutes (its
 * release missed) is taken back when the group is next looked at, which happens every minute while jobs wait.
 * Everything here runs inside the processing of the job's pipeline, under its lock (processing.ts), so the runner
 * queue never sees a job pending without its resource.
 */
import type { Prisma } from '../../db/database.js';
import { expandVariables } from '../../ci/config/variables.js';
import type { PlannedJob } from '../../ci/config/index.js';
import { COMPLETED_STATUSES, isCompleted, type CiStatus } from './status.js';
import { OUTDATED_DEPLOYMENT } from '../environments/forward.js';
import { connection, type PageArgs } from '../../graphql/connection.js';
import { invalidArgument, recordNotFound } from '../../errors.js';
import type { ServiceBase } from '../module.js';
import type { ProjectRow } from '../projects/service.js';
import type { JobRow } from './service.js';

type Tx = Prisma.TransactionClient;

/** Job kind: hand a resource group's free resource to its next job. */
export const ASSIGN_RESOURCE_JOB = 'pipelines.assign_resource';

/** GitLab's RESPAWN_WAIT_TIME: how soon a group whose resource is held looks again. */
const RESPAWN_WAIT_MS = 60_000;
/** How long a completed job may keep holding a resource before it counts as stale (GitLab's 5 minutes). */
const STALE_AFTER_MS = 5 * 60_000;

export const PROCESS_MODES = ['unordered', 'oldest_first', 'newest_first', 'newest_ready_first'] as const;
export type ProcessMode = (typeof PROCESS_MODES)[number];

/** GitLab's environment_name_regex, which a resource group's key must match (at most 255 characters). */
const KEY_FORMAT = /^[a-zA-Z0-9 \-_/${}.]+$/;

/**
 * The resource groups of the planned jobs, found or made (each made with its one resource), by job: GitLab's
 * Seed::Processable::ResourceGroup, the key expanded with the pipeline's and the job's variables; a key that expands
 * to nothing or to an invalid name gives the job no group. The project's row is locked (pipeline creation), so two
 * pipelines never make the same group.
 */
export async function resourceGroupsOf(tx: Tx, projectId: number, jobs: readonly PlannedJob[], variables: Readonly<Record<string, string>>): Promise<Map<PlannedJob, number>> {
  const out = new Map<PlannedJob, number>();
  const ids = new Map<string, number>();
  for (const job of jobs) {
    if (!job.resourceGroup) continue;
    const own = Object.fromEntries(job.variables.map((v) => [v.key, v.value]));
    const key = expandVariables(job.resourceGroup, { ...variables, ...own }, false).trim();
    if (key === '' || key.length > 255 || !KEY_FORMAT.test(key)) continue;
    let id = ids.get(key);
    if (id === undefined) {
      const group = await tx.ciResourceGroup.upsert({
        where: { projectId_key: { projectId, key } },
        create: { projectId, key, resources: { create: {} } },
        update: {},
        select: { id: true },
      });
      id = group.id;
      ids.set(key, id);
    }
    out.set(job, id);
  }
  return out;
}

interface GroupedJob {
  id: number;
  status: string;
  resourceGroupId: number | null;
}

/**
 * The resource gate of a pipeline's processing: a job that would be pending without its group's resource waits for
 * it; a waiting job that was handed the resource becomes pending; a completed job gives its resource back. Answers
 * the groups whose next job should be looked for (ASSIGN_RESOURCE_JOB).
 */
export async function gateResources<J extends GroupedJob>(
  tx: Tx,
  jobs: readonly J[],
  set: (job: J, status: CiStatus, data?: Prisma.CiJobUpdateInput) => void,
  now: Date,
  outdated: (job: J) => Promise<boolean>,
): Promise<number[]> {
  const grouped = jobs.filter((job) => job.resourceGroupId !== null);
  if (grouped.length === 0) return [];
  const rows = await tx.$queryRaw<{ buildId: number }[]>`SELECT "buildId" FROM "ci_resources" WHERE "buildId" = ANY(${grouped.map((job) => job.id)}::int[])`;
  const held = new Set(rows.map((row) => row.buildId));
  const wake = new Set<number>();
  const released: number[] = [];
  for (const job of grouped) {
    const group = job.resourceGroupId as number;
    if (job.status === 'pending' && !held.has(job.id)) {
      set(job, 'waiting_for_resource', { queuedAt: null });
      wake.add(group);
    } else if (job.status === 'waiting_for_resource' && held.has(job.id)) {
      // AssignResourceFromResourceGroupService: a job whose deployment became outdated while it waited is dropped.
      if (await outdated(job)) set(job, 'failed', OUTDATED_DEPLOYMENT(now));
      else set(job, 'pending', { queuedAt: now });
    }
    if (isCompleted(job.status as CiStatus)) {
      if (held.has(job.id)) released.push(job.id);
      // A job done with the resource, or one that never ran (canceled, skipped): jobs behind it may go now.
      if (held.has(job.id) || job.status === 'canceled' || job.status === 'skipped') wake.add(group);
    }
  }
  if (released.length) await tx.$executeRaw`UPDATE "ci_resources" SET "buildId" = NULL, "updatedAt" = now() WHERE "buildId" = ANY(${released}::int[])`;
  return [...wake];
}

/**
 * Hands the group's free resource to `jobId` if it is still waiting for it (GitLab's assign_resource_to, an UPDATE of
 * a free resource): inside the processing of the job's pipeline, which then makes it pending.
 */
export async function assignResource(tx: Tx, resourceGroupId: number, jobId: number): Promise<boolean> {
  const assigned = await tx.$executeRaw`
    UPDATE "ci_resources" SET "buildId" = ${jobId}, "updatedAt" = now()
    WHERE "id" = (SELECT "id" FROM "ci_resources" WHERE "resourceGroupId" = ${resourceGroupId} AND "buildId" IS NULL ORDER BY "id" LIMIT 1 FOR UPDATE SKIP LOCKED)
      AND "buildId" IS NULL
      AND EXISTS (SELECT 1 FROM "ci_builds" WHERE "id" = ${jobId} AND "status" = 'waiting_for_resource' AND "resourceGroupId" = ${resourceGroupId})`;
  return assigned > 0;
}

export type ResourceGroupRow = Prisma.CiResourceGroupGetPayload<object>;

/** The order GitLab's upcoming_processables take: the jobs waiting (and, in the ordered modes, those still to come). */
function upcomingOrder(mode: string): { statuses: string[]; pipelineOrder: 'asc' | 'desc' | null } {
  if (mode === 'oldest_first') return { statuses: ['created', 'scheduled', 'waiting_for_resource'], pipelineOrder: 'asc' };
  if (mode === 'newest_first') return { statuses: ['created', 'scheduled', 'waiting_for_resource'], pipelineOrder: 'desc' };
  if (mode === 'newest_ready_first') return { statuses: ['waiting_for_resource'], pipelineOrder: 'desc' };
  return { statuses: ['waiting_for_resource'], pipelineOrder: null };
}

/** What the resource groups API needs of the pipelines service. */
export interface ResourceGroupsHost {
  base: ServiceBase;
  /** The viewer may see the project (404 `Project Not Found`) and do `ability` on it (403). */
  authorizeProject(project: ProjectRow, ability: 'read_resource_group' | 'update_resource_group' | 'read_build'): Promise<void>;
  /** Runs `change` then processes the pipeline, under its lock. */
  withPipeline(pipelineId: number, change: (tx: Tx) => Promise<unknown>): Promise<void>;
}

/** GitLab's Resource Groups API (lib/api/ci/resource_groups.rb) and the assignment of their resources. */
export class ResourceGroups {
  constructor(private readonly host: ResourceGroupsHost) {}

  private get db() {
    return this.host.base.db;
  }

  /** A group of the project by key: GitLab's find_by_key!, `404 Not found` when there is none. */
  private async find(project: ProjectRow, key: string): Promise<ResourceGroupRow> {
    const group = await this.db.ciResourceGroup.findUnique({ where: { projectId_key: { projectId: project.id, key } } });
    if (!group) throw recordNotFound();
    return group;
  }

  async list(project: ProjectRow, page: PageArgs) {
    await this.host.authorizeProject(project, 'read_resource_group');
    const where = { projectId: project.id };
    return connection(
      page,
      ({ skip, take }) => this.db.ciResourceGroup.findMany({ where, orderBy: { id: 'asc' }, skip, take }),
      () => this.db.ciResourceGroup.count({ where }),
    );
  }

  async get(project: ProjectRow, key: string): Promise<ResourceGroupRow> {
    await this.host.authorizeProject(project, 'read_resource_group');
    return this.find(project, key);
  }

  /** `PUT …/resource_groups/:key`: its process mode, one of PROCESS_MODES (checked first, as Grape checks `values:`). */
  async update(project: ProjectRow, key: string, processMode: string | null | undefined): Promise<ResourceGroupRow> {
    if (processMode != null && !(PROCESS_MODES as readonly string[]).includes(processMode)) throw invalidArgument('process_mode');
    await this.host.authorizeProject(project, 'update_resource_group');
    const group = await this.find(project, key);
    if (processMode == null || processMode === group.processMode) return group;
    const updated = await this.db.ciResourceGroup.update({ where: { id: group.id }, data: { processMode } });
    // Another order may let another job go first now.
    await this.host.base.app.jobs.enqueue(ASSIGN_RESOURCE_JOB, { resourceGroupId: group.id });
    return updated;
  }

  /** The jobs the group runs next, in its process mode's order (GitLab's upcoming_processables). */
  async upcomingJobs(project: ProjectRow, key: string, page: PageArgs) {
    await this.host.authorizeProject(project, 'read_resource_group');
    const group = await this.find(project, key);
    await this.host.authorizeProject(project, 'read_build');
    const { statuses, pipelineOrder } = upcomingOrder(group.processMode);
    const where = { resourceGroupId: group.id, retried: false, status: { in: statuses } };
    return connection(
      page,
      async ({ skip, take }) => {
        if (!pipelineOrder) return this.db.ciJob.findMany({ where, orderBy: { id: 'asc' }, skip, take });
        const ids = await this.upcomingIds(group, skip, take);
        const rows = await this.db.ciJob.findMany({ where: { id: { in: ids } } });
        return ids.map((id) => rows.find((row) => row.id === id)).filter((row): row is JobRow => !!row);
      },
      () => this.db.ciJob.count({ where }),
    );
  }

  /** The ids of the group's upcoming jobs, in order: by pipeline (its mode's way), waiting ones first within one. */
  private async upcomingIds(group: ResourceGroupRow, skip: number, take: number): Promise<number[]> {
    const { statuses, pipelineOrder } = upcomingOrder(group.processMode);
    const rows =
      pipelineOrder === 'desc'
        ? await this.db.$queryRaw<{ id: number }[]>`
            SELECT "id" FROM "ci_builds" WHERE "resourceGroupId" = ${group.id} AND NOT "retried" AND "status" = ANY(${statuses}::text[])
            ORDER BY "pipelineId" DESC, CASE "status" WHEN 'waiting_for_resource' THEN 0 ELSE 1 END, "id" OFFSET ${skip} LIMIT ${take}`
        : await this.db.$queryRaw<{ id: number }[]>`
            SELECT "id" FROM "ci_builds" WHERE "resourceGroupId" = ${group.id} AND NOT "retried" AND "status" = ANY(${statuses}::text[])
            ORDER BY "pipelineId" ASC, CASE "status" WHEN 'waiting_for_resource' THEN 0 ELSE 1 END, "id" OFFSET ${skip} LIMIT ${take}`;
    return rows.map((row) => row.id);
  }

  /**
   * GitLab's AssignResourceFromResourceGroupService: as many of the upcoming jobs as there are free resources (one)
   * get one, each if it is waiting for it; an upcoming job not yet waiting (an older pipeline's, `oldest_first`)
   * keeps the others waiting. Each assignment is made under its pipeline's lock, whose processing makes it pending.
   */
  async assign(resourceGroupId: number): Promise<void> {
    const group = await this.db.ciResourceGroup.findUnique({ where: { id: resourceGroupId } });
    if (!group) return;
    await this.releaseStale(resourceGroupId);
    const free = await this.db.ciResource.count({ where: { resourceGroupId, buildId: null } });
    if (free === 0) {
      // Still held while jobs wait: look again in a minute (GitLab's respawn_assign_resource_worker), which is what
      // frees a resource whose holder went stale. One look per group and minute, however many asked for it.
      if (await this.db.ciJob.count({ where: { resourceGroupId, retried: false, status: 'waiting_for_resource' } })) {
        const runAt = new Date(Math.ceil((Date.now() + RESPAWN_WAIT_MS) / RESPAWN_WAIT_MS) * RESPAWN_WAIT_MS);
        await this.host.base.app.jobs.enqueue(ASSIGN_RESOURCE_JOB, { resourceGroupId }, { runAt, uniqueKey: `${ASSIGN_RESOURCE_JOB}:${resourceGroupId}:${runAt.getTime()}` });
      }
      return;
    }
    const { pipelineOrder } = upcomingOrder(group.processMode);
    const ids = pipelineOrder
      ? await this.upcomingIds(group, 0, free)
      : (await this.db.ciJob.findMany({ where: { resourceGroupId, retried: false, status: 'waiting_for_resource' }, orderBy: { id: 'asc' }, take: free, select: { id: true } })).map((job) => job.id);
    for (const id of ids) {
      const job = await this.db.ciJob.findUnique({ where: { id }, select: { status: true, pipelineId: true } });
      if (job?.status !== 'waiting_for_resource') continue;
      await this.host.withPipeline(job.pipelineId, (tx) => assignResource(tx, resourceGroupId, id));
    }
  }

  /**
   * GitLab's release_resource_from_stale_jobs (Ci::ResourceGroup#stale_processables): a resource still held by a job
   * that completed more than STALE_AFTER_MS ago, whose own release was missed, is given back.
   */
  private async releaseStale(resourceGroupId: number): Promise<void> {
    const before = new Date(Date.now() - STALE_AFTER_MS);
    await this.db.$executeRaw`
      UPDATE "ci_resources" r SET "buildId" = NULL, "updatedAt" = now()
      FROM "ci_builds" b
      WHERE r."resourceGroupId" = ${resourceGroupId} AND b."id" = r."buildId"
        AND b."status" = ANY(${[...COMPLETED_STATUSES]}::text[]) AND b."updatedAt" < ${before}`;
  }

  /** The job holding the group's resource, if any (the `currentJob` of the group). */
  async currentJob(group: ResourceGroupRow): Promise<JobRow | null> {
    const resource = await this.db.ciResource.findFirst({ where: { resourceGroupId: group.id, buildId: { not: null } }, select: { build: true } });
    return resource?.build ?? null;
  }
}
