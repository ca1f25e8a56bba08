/**
 * Downstream pipelines (GitLab's Ci::CreateDownstreamPipelineService and Ci::PipelineBridgeStatusService). A bridge
 * (a `trigger:` job) that becomes pending queues DOWNSTREAM_JOB; its handler, acting as the bridge's user, checks
 * GitLab's preconditions, marks the bridge running and creates the downstream pipeline: a child pipeline of the same
 * project and commit (`trigger: include:`, source `parent_pipeline`) or a multi-project pipeline (`trigger:
 * project:`, source `pipeline`, on `branch:` or the project's default branch). Without a `strategy:` the bridge
 * succeeds once the pipeline exists; with `depend` it takes the downstream pipeline's final status, with `mirror`
 * its status as it waits for a manual job too (BRIDGE_STATUS_JOB). Each pipeline is changed in a transaction of its own, never under another one's lock.
 */
import type { Prisma } from '../../db/database.js';
import { expandVariables } from '../../ci/config/variables.js';
import { ArtifactTooLarge } from '../../ci/artifact-storage.js';
import type { ServiceBase } from '../module.js';
import type { ProjectRow, ProjectsService } from '../projects/service.js';
import type { RepositoriesService } from '../repositories/service.js';
import { createPipeline, type CreateDeps } from './create.js';
import { dependencyJobs, dotenvVariables } from './dependencies.js';
import { pipelineVariables, storedPipelineFacts, variableMap } from './predefined.js';
import { withPipeline } from './processing.js';
import { isCompleted } from './status.js';

/** GitLab's MAX_NESTED_CHILDREN: a pipeline and its parents may be at most this many when adding a child. */
const MAX_NESTED_CHILDREN = 2;
/** Largest file `include: artifact:` reads (GitLab's max_artifacts_content_include_size default, 5 MiB). */
const MAX_ARTIFACT_INCLUDE_BYTES = 5 * 1024 * 1024;
/** A multi-project chain may pass through the same project, ref and source at most twice (GitLab's loop check). */
const MAX_CYCLES = 2;
/** How far up a multi-project chain the loop check looks (GitLab's pipeline hierarchy is bounded too). */
const MAX_CHAIN = 100;

type JobRow = Prisma.CiJobGetPayload<object>;
type PipelineRow = Prisma.PipelineGetPayload<object>;

/** `options.trigger` of a bridge, as create.ts stores it. */
interface TriggerOptions {
  include?: unknown;
  project?: string;
  branch?: string;
  strategy?: string;
  forward?: { yaml_variables?: boolean; pipeline_variables?: boolean };
}

interface BridgeOptions {
  trigger?: TriggerOptions;
  downstream_errors?: string[];
}

/** What the downstream logic needs of the pipelines service. */
export interface DownstreamHost {
  base: ServiceBase;
  projects: ProjectsService;
  repositories: RepositoriesService;
  createDeps(): CreateDeps;
  /** Whether the viewer may update the ref of the project (Gitlab::UserAccess#can_update_branch?: push or merge to it). */
  mayUpdateRef(project: ProjectRow, ref: string, tag: boolean): Promise<boolean>;
  setJobStatus(tx: Prisma.TransactionClient, pipeline: { id: number; projectId: number }, jobId: number, status: string, data?: Prisma.CiJobUpdateInput): Promise<void>;
}

/** The bridge status a downstream pipeline's status gives under `strategy: depend`. */
const DEPENDED: Readonly<Record<string, string>> = { success: 'success', canceled: 'canceled', failed: 'failed', skipped: 'failed' };
/** The same under `strategy: mirror`: the downstream pipeline's own status, waiting for a manual job included. */
const MIRRORED: Readonly<Record<string, string>> = { success: 'success', canceled: 'canceled', failed: 'failed', skipped: 'skipped', manual: 'manual' };

export class DownstreamPipelines {
  constructor(private readonly host: DownstreamHost) {}

  private get db() {
    return this.host.base.db;
  }

  /** Creates the bridge's downstream pipeline, or fails the bridge saying why; nothing when it is no longer pending. */
  async create(bridgeId: number): Promise<void> {
    const bridge = await this.db.ciJob.findUnique({ where: { id: bridgeId }, include: { pipeline: true, downstreamPipeline: { select: { id: true } } } });
    if (!bridge || bridge.type !== 'bridge' || bridge.status !== 'pending' || bridge.downstreamPipeline) return;
    const { pipeline: upstream } = bridge;
    const options = (bridge.options ?? {}) as BridgeOptions;
    const trigger = options.trigger ?? {};
    const { access } = this.host.base;
    // The bridge's own project whoever asks: whether its user may still act there is the permission check below.
    const project = (await this.host.base.loaders.projects.byId.load(bridge.projectId)) as ProjectRow | null;
    if (!project) return;
    const child = trigger.include !== undefined && trigger.include !== null;
    const variables = child || !trigger.project ? null : await this.bridgeVariables(project, upstream, bridge);

    let target: ProjectRow | null = project;
    if (!child) {
      const path = trigger.project ? expandVariables(trigger.project, variables ?? {}, false) : '';
      target = await this.host.projects.find({ path });
    }
    if (!target) return this.fail(upstream, bridge, 'downstream_bridge_project_not_found');
    if (!child && target.id === project.id) return this.fail(upstream, bridge, 'invalid_bridge_trigger');
    if (child && (await this.ancestors(upstream)).length > MAX_NESTED_CHILDREN) return this.fail(upstream, bridge, 'reached_max_descendant_pipelines_depth');
    const ref = child ? upstream.ref : trigger.branch ? expandVariables(trigger.branch, variables ?? {}, false) : target.defaultBranch;
    const mayCreate =
      (await access.can('update_pipeline', project)) &&
      (await access.can('create_pipeline', target)) &&
      (child || !ref || (await this.host.mayUpdateRef(target, ref, false)));
    if (!mayCreate) return this.fail(upstream, bridge, 'insufficient_bridge_permissions');
    if (!child && (await this.loops(upstream, target, ref))) return this.fail(upstream, bridge, 'pipeline_loop_detected');

    // GitLab's `bridge.run`: running while the downstream pipeline is made.
    const running = await withPipeline(this.db, upstream.id, this.host.base, async (tx) => {
      const current = await tx.ciJob.findUnique({ where: { id: bridge.id }, select: { status: true } });
      if (current?.status !== 'pending') return false;
      await this.host.setJobStatus(tx, upstream, bridge.id, 'running', { startedAt: new Date() });
      return true;
    });
    if (!running) return;

    const result = await createPipeline(this.host.createDeps(), {
      project: target,
      userId: bridge.userId ?? upstream.userId ?? 0,
      ref: ref ?? '',
      ...(child ? { tag: upstream.tag, sha: upstream.sha } : {}),
      source: child ? 'parent_pipeline' : 'pipeline',
      beforeSha: upstream.beforeSha,
      variables: await this.downstreamVariables(project, upstream, bridge, trigger, variables),
      honourSkipCi: false,
      upstream: { bridgeId: bridge.id, parentPipelineId: child ? upstream.id : null },
      ...(child ? { config: { content: JSON.stringify({ include: trigger.include }), readArtifact: (job: string, path: string) => this.readArtifact(upstream.id, job, path) } } : {}),
    }).catch((error: unknown) => {
      // A second run of this job after the first one created the pipeline: the unique bridge link refuses it.
      if ((error as { code?: string }).code === 'P2002') return null;
      throw error;
    });
    if (result === null) return;
    const created = 'pipeline' in result && !result.pipeline.failureReason;
    if (!created) {
      const errors = 'error' in result ? [result.error] : (result.pipeline.yamlErrors ?? '').split(', ').filter(Boolean);
      return this.fail(upstream, bridge, 'downstream_pipeline_creation_failed', errors);
    }
    if (trigger.strategy) return;
    await this.settle(upstream, bridge.id, 'success');
  }

  /**
   * A downstream pipeline completed or waits for a manual job: its bridge takes the status its strategy says (GitLab's
   * Bridge#inherit_status_from_downstream). `depend` passes on success, canceled and failed (skipped counts as
   * failed); `mirror` passes on manual and skipped as they are too.
   */
  async inherit(pipelineId: number): Promise<void> {
    const downstream = await this.db.pipeline.findUnique({ where: { id: pipelineId }, include: { sourceJob: { include: { pipeline: true } } } });
    const bridge = downstream?.sourceJob;
    if (!downstream || !bridge) return;
    const strategy = (((bridge.options ?? {}) as BridgeOptions).trigger ?? {}).strategy;
    const status = strategy === 'mirror' ? MIRRORED[downstream.status] : strategy === 'depend' ? DEPENDED[downstream.status] : undefined;
    if (!status || status === bridge.status) return;
    await this.settle(bridge.pipeline, bridge.id, status);
  }

  /** Sets the bridge's status (not once it finished, canceled meanwhile say) and processes its pipeline. */
  private async settle(upstream: PipelineRow, bridgeId: number, status: string, data: Prisma.CiJobUpdateInput = {}): Promise<void> {
    await withPipeline(this.db, upstream.id, this.host.base, async (tx) => {
      const current = await tx.ciJob.findUnique({ where: { id: bridgeId }, select: { status: true } });
      if (!current || isCompleted(current.status)) return;
      await this.host.setJobStatus(tx, upstream, bridgeId, status, { ...(isCompleted(status) ? { finishedAt: new Date() } : {}), ...data });
    });
  }

  private async fail(upstream: PipelineRow, bridge: JobRow, reason: string, errors: string[] = []): Promise<void> {
    const options = { ...((bridge.options ?? {}) as object), ...(errors.length ? { downstream_errors: errors } : {}) } as Prisma.InputJsonObject;
    await this.settle(upstream, bridge.id, 'failed', { failureReason: reason, options });
  }

  /** The pipeline and its parents (child pipelines of one project), nearest first. */
  private async ancestors(pipeline: PipelineRow): Promise<PipelineRow[]> {
    const chain = [pipeline];
    for (let at = pipeline; at.parentPipelineId !== null && chain.length <= MAX_NESTED_CHILDREN; ) {
      const parent = await this.db.pipeline.findUnique({ where: { id: at.parentPipelineId } });
      if (!parent) break;
      chain.push(parent);
      at = parent;
    }
    return chain;
  }

  /** GitLab's has_cyclic_dependency?: the new pipeline would repeat a project, ref and source of its upstreams a third time. */
  private async loops(upstream: PipelineRow, target: ProjectRow, ref: string | null): Promise<boolean> {
    const seen = [`${target.id}:${ref}:pipeline`];
    let at: PipelineRow | null = upstream;
    for (let depth = 0; at && depth < MAX_CHAIN; depth++) {
      if (at.source !== 'parent_pipeline') seen.push(`${at.projectId}:${at.ref}:${at.source}`);
      if (at.sourceJobId === null) break;
      const bridge: { pipeline: PipelineRow } | null = await this.db.ciJob.findUnique({ where: { id: at.sourceJobId }, select: { pipeline: true } });
      at = bridge?.pipeline ?? null;
    }
    const counts = new Map<string, number>();
    for (const key of seen) counts.set(key, (counts.get(key) ?? 0) + 1);
    return [...counts.values()].some((n) => n > MAX_CYCLES);
  }

  /** What the bridge's values expand against: its pipeline's predefined variables, its own, its dependencies' dotenv variables and its pipeline's variables. */
  private async bridgeVariables(project: ProjectRow, upstream: PipelineRow, bridge: JobRow): Promise<Record<string, string>> {
    const repository = await this.host.repositories.open(project);
    const commit = await repository.commit(upstream.sha);
    const user = upstream.userId ? await this.db.user.findUnique({ where: { id: upstream.userId }, select: { id: true, username: true, name: true, email: true } }) : null;
    const protectedRef = !upstream.tag && (await this.host.createDeps().protectedBranches.anyProtected(project.id, [upstream.ref]));
    const predefined = pipelineVariables(this.host.base.app.config, storedPipelineFacts(upstream, { protectedRef, commit, user, project }));
    const pipelineVars = await this.db.pipelineVariable.findMany({ where: { pipelineId: upstream.id }, select: { key: true, value: true } });
    // The dotenv variables of the jobs it needs come after its own, as a job's do (Ci::Build#dependency_variables).
    const dotenv = dotenvVariables(await dependencyJobs(this.db, bridge));
    return variableMap(predefined, (bridge.yamlVariables ?? []) as { key: string; value: string }[], dotenv, pipelineVars);
  }

  /**
   * GitLab's Variables::Downstream::Generator: the bridge's `variables:` expanded (unless `forward:yaml_variables` is
   * false) and, with `forward:pipeline_variables`, the upstream pipeline's own variables; they become the downstream
   * pipeline's variables.
   */
  private async downstreamVariables(project: ProjectRow, upstream: PipelineRow, bridge: JobRow, trigger: TriggerOptions, known: Record<string, string> | null) {
    const out = new Map<string, { key: string; value: string; variableType: string }>();
    if (trigger.forward?.yaml_variables !== false) {
      const values = known ?? (await this.bridgeVariables(project, upstream, bridge));
      for (const y of (bridge.yamlVariables ?? []) as { key: string; value: string }[]) out.set(y.key, { key: y.key, value: expandVariables(y.value, values, false), variableType: 'env_var' });
    }
    if (trigger.forward?.pipeline_variables === true) {
      for (const v of await this.db.pipelineVariable.findMany({ where: { pipelineId: upstream.id }, orderBy: { id: 'asc' } })) out.set(v.key, { key: v.key, value: v.value, variableType: v.variableType });
    }
    return [...out.values()];
  }

  /** `include: artifact:`: a file of the archive of the parent pipeline's latest job of that name. */
  private async readArtifact(parentId: number, job: string, path: string): Promise<{ job: false } | { job: true; content: string | null }> {
    const archive = await this.db.ciJobArtifact.findFirst({
      where: { fileType: 'archive', job: { pipelineId: parentId, name: job, retried: false } },
      orderBy: { id: 'desc' },
      select: { path: true },
    });
    if (!archive) return { job: false };
    const bytes = await this.host.base.app.artifacts.entry(archive.path, path, MAX_ARTIFACT_INCLUDE_BYTES).catch((error: unknown) => {
      if (error instanceof ArtifactTooLarge) return Buffer.alloc(0);
      throw error;
    });
    return { job: true, content: bytes === null ? null : bytes.toString('utf8') };
  }
}
