/**
 * Owns pipeline schedules and their variables (GitLab's Ci::PipelineSchedule, Ci::PipelineScheduleVariable): the
 * schedules API, running a schedule now (play) or when its cron falls due (the recurring job in jobs.ts claims due
 * schedules, moves them to their next time and queues one run each), and a run: the schedule's pipeline created
 * through the pipelines service as the schedule's owner, with source `schedule` and the schedule's variables.
 */
import type { PipelineScheduleSubject } from '../../auth/policy.js';
import type { Prisma } from '../../db/database.js';
import { argumentRefused, forbidden, invalid, isCoded, notFound } from '../../errors.js';
import { connection, type PageArgs } from '../../graphql/connection.js';
import type { ServiceBase } from '../module.js';
import type { PipelineFilters, PipelineRow, PipelinesService } from '../pipelines/service.js';
import type { ProjectRow } from '../projects/service.js';
import type { RepositoriesService } from '../repositories/service.js';
import { inputsFromList } from '../pipelines/inputs.js';
import { DEFAULT_TIME_ZONE, FULL_REF, MAX_REF_LENGTH, mergeInputs, nextRunAt, scheduleErrors, shortRef, storedInputs, variableKeyErrors, type ScheduleInputChange, type StoredInput } from './rules.js';

export type PipelineScheduleRow = Prisma.PipelineScheduleGetPayload<object>;

/** Inputs as the JSON column keeps them: their values came in as JSON (GraphQL's CiInputsValueInputType, REST's body). */
const asJson = (inputs: StoredInput[]) => inputs as unknown as Prisma.InputJsonArray;
export type ScheduleVariableRow = Prisma.PipelineScheduleVariableGetPayload<object>;
export type VariableType = 'env_var' | 'file';

/** The job that creates one schedule's pipeline (GitLab's RunPipelineScheduleWorker). */
export const RUN_JOB = 'pipeline_schedules.run';
export interface RunPayload {
  scheduleId: number;
  /** Who the pipeline runs as: the owner when the schedule falls due, the player for a play. */
  userId: number;
}

/** Due schedules claimed per statement by the recurring job. */
const DUE_BATCH = 100;

export interface ScheduleVariableInput {
  id?: string | null;
  key: string;
  value: string;
  variableType: VariableType;
  destroy?: boolean | null;
}

export interface ScheduleInput {
  description: string;
  cron: string;
  cronTimezone?: string | null;
  ref: string;
  active?: boolean | null;
  variables?: readonly ScheduleVariableInput[] | null;
  inputs?: readonly ScheduleInputChange[] | null;
}

export interface ScheduleChanges {
  description?: string | null;
  cron?: string | null;
  cronTimezone?: string | null;
  ref?: string | null;
  active?: boolean | null;
  variables?: readonly ScheduleVariableInput[] | null;
  inputs?: readonly ScheduleInputChange[] | null;
}

export interface ScheduleFilters {
  status?: 'active' | 'inactive' | null;
  ids?: readonly number[] | null;
}

/** What the viewer may do with a schedule (GraphQL's userPermissions). */
export interface SchedulePermissions {
  adminPipelineSchedule: boolean;
  playPipelineSchedule: boolean;
  takeOwnershipPipelineSchedule: boolean;
  updatePipelineSchedule: boolean;
}

const NOT_FOUND = 'Pipeline Schedule';
const VARIABLE_NOT_FOUND = 'Pipeline Schedule Variable';
/** GitLab's BaseSaveService refusal when the policy denies the schedule itself (a protected ref the owner may not update). */
const NOT_AUTHORIZED = 'The current user is not authorized to create the pipeline schedule';

const subject = (project: ProjectRow, schedule: { ownerId: number }): PipelineScheduleSubject => ({ project, ownerId: schedule.ownerId });

export class PipelineSchedulesService {
  constructor(
    private readonly base: ServiceBase,
    private readonly repositories: RepositoriesService,
    private readonly pipelines: PipelinesService,
  ) {}

  private get db() {
    return this.base.db;
  }

  /** GitLab's `authenticate!` on every schedule route, then the project: 404 when the viewer may not see it. */
  private async visible(project: ProjectRow): Promise<void> {
    const { access } = this.base;
    access.requireViewer();
    if (!(await access.can('read_project', project))) throw notFound('Project');
  }

  // ---- Schedules ----

  /** The project's schedules, newest first. */
  async list(project: ProjectRow, filters: ScheduleFilters, page: PageArgs) {
    await this.visible(project);
    await this.base.access.authorize('read_pipeline_schedule', project);
    const where: Prisma.PipelineScheduleWhereInput = {
      projectId: project.id,
      ...(filters.status ? { active: filters.status === 'active' } : {}),
      ...(filters.ids ? { id: { in: [...filters.ids] } } : {}),
    };
    return connection(
      page,
      ({ skip, take }) => this.db.pipelineSchedule.findMany({ where, orderBy: { id: 'desc' }, skip, take }),
      () => this.db.pipelineSchedule.count({ where }),
    );
  }

  /** One schedule of the project; `404 Pipeline Schedule Not Found` when it has none such or the viewer may not read them. */
  async get(project: ProjectRow, id: number): Promise<PipelineScheduleRow> {
    await this.visible(project);
    if (!(await this.base.access.can('read_pipeline_schedule', project))) throw notFound(NOT_FOUND);
    const schedule = await this.db.pipelineSchedule.findFirst({ where: { id, projectId: project.id } });
    if (!schedule) throw notFound(NOT_FOUND);
    return schedule;
  }

  /** The project of a schedule named only by ID, as the viewer may see it; `404 Pipeline Schedule Not Found` otherwise. */
  async projectOf(id: number): Promise<number> {
    const schedule = await this.db.pipelineSchedule.findUnique({ where: { id }, select: { projectId: true } });
    if (!schedule) throw notFound(NOT_FOUND);
    return schedule.projectId;
  }

  async create(project: ProjectRow, input: ScheduleInput): Promise<PipelineScheduleRow> {
    await this.visible(project);
    await this.base.access.authorize('create_pipeline_schedule', project);
    const viewer = this.base.access.requireViewer();
    const draft = { description: input.description, cron: input.cron, cronTimezone: input.cronTimezone ?? DEFAULT_TIME_ZONE };
    const ref = await this.checked(project, draft, input.ref);
    await this.authorizeRef(project, ref, () => invalid({ base: [NOT_AUTHORIZED] }));
    const variables = this.variableChanges([], input.variables ?? []);
    const inputs = asJson(mergeInputs([], input.inputs ?? []));
    return this.db.$transaction(async (tx) => {
      const schedule = await tx.pipelineSchedule.create({
        data: { ...draft, ref, projectId: project.id, ownerId: viewer.id, active: input.active ?? true, nextRunAt: nextRunAt(draft.cron, draft.cronTimezone, new Date()), inputs },
      });
      await this.applyVariables(tx, schedule.id, variables);
      return schedule;
    });
  }

  /** Changes what is given, as its owner; the next run is computed again (GitLab does on every save). */
  async update(project: ProjectRow, id: number, changes: ScheduleChanges): Promise<PipelineScheduleRow> {
    const current = await this.get(project, id);
    await this.base.access.authorize('update_pipeline_schedule', subject(project, current));
    const draft = {
      description: changes.description ?? current.description,
      cron: changes.cron ?? current.cron,
      cronTimezone: changes.cronTimezone ?? current.cronTimezone,
    };
    const ref = await this.checked(project, draft, changes.ref ?? current.ref);
    if (ref !== current.ref) await this.authorizeRef(project, ref, () => invalid({ base: [NOT_AUTHORIZED] }));
    const existing = changes.variables?.length ? await this.db.pipelineScheduleVariable.findMany({ where: { pipelineScheduleId: current.id } }) : [];
    const variables = this.variableChanges(existing, changes.variables ?? []);
    const inputs = changes.inputs ? asJson(mergeInputs(storedInputs(current), changes.inputs)) : undefined;
    return this.db.$transaction(async (tx) => {
      const schedule = await tx.pipelineSchedule.update({
        where: { id: current.id },
        data: { ...draft, ref, active: changes.active ?? current.active, nextRunAt: nextRunAt(draft.cron, draft.cronTimezone, new Date()), ...(inputs ? { inputs } : {}) },
      });
      await this.applyVariables(tx, schedule.id, variables);
      return schedule;
    });
  }

  /** Makes the viewer the owner (GitLab answers it even when they already are). */
  async takeOwnership(project: ProjectRow, id: number): Promise<PipelineScheduleRow> {
    const current = await this.get(project, id);
    await this.base.access.authorize('admin_pipeline_schedule', subject(project, current));
    const viewer = this.base.access.requireViewer();
    return this.db.pipelineSchedule.update({
      where: { id: current.id },
      data: { ownerId: viewer.id, nextRunAt: nextRunAt(current.cron, current.cronTimezone, new Date()) },
    });
  }

  /** Deletes the schedule with its variables; the pipelines it ran stay, no longer linked to it. */
  async destroy(project: ProjectRow, id: number): Promise<PipelineScheduleRow> {
    const current = await this.get(project, id);
    await this.base.access.authorize('admin_pipeline_schedule', subject(project, current));
    await this.db.pipelineSchedule.delete({ where: { id: current.id } });
    return current;
  }

  /**
   * Queues the schedule's pipeline now, as the viewer (GitLab's PlayService and RunPipelineScheduleWorker); the
   * next scheduled run stays. Those who may not run pipelines of its ref are refused with 403.
   */
  async play(project: ProjectRow, id: number): Promise<PipelineScheduleRow> {
    const schedule = await this.get(project, id);
    const viewer = this.base.access.requireViewer();
    await this.base.access.authorize('create_pipeline', project);
    await this.authorizeRef(project, schedule.ref, () => forbidden());
    await this.base.app.jobs.enqueue(RUN_JOB, { scheduleId: schedule.id, userId: viewer.id } satisfies RunPayload);
    return schedule;
  }

  // ---- Variables ----

  /** The schedule's variables by ID, or null for a viewer who may not see them (GitLab leaves the key out). */
  async variables(schedule: PipelineScheduleRow): Promise<ScheduleVariableRow[] | null> {
    const project = await this.projectRow(schedule.projectId);
    if (!project || !(await this.base.access.can('read_pipeline_schedule_variables', subject(project, schedule)))) return null;
    return this.base.loaders.pipeline_schedules.variablesBySchedule.load(schedule.id);
  }

  /** One variable by key; 403 for those who may not see the variables. */
  async variable(schedule: PipelineScheduleRow, key: string): Promise<ScheduleVariableRow | null> {
    const project = await this.projectRow(schedule.projectId);
    if (!project) throw notFound(NOT_FOUND);
    await this.base.access.authorize('read_pipeline_schedule_variables', subject(project, schedule));
    return this.db.pipelineScheduleVariable.findUnique({ where: { pipelineScheduleId_key: { pipelineScheduleId: schedule.id, key } } });
  }

  async createVariable(project: ProjectRow, id: number, input: { key: string; value: string; variableType?: VariableType | null }): Promise<ScheduleVariableRow> {
    const schedule = await this.get(project, id);
    await this.base.access.authorize('update_pipeline_schedule', subject(project, schedule));
    // GitLab's `authorize! :set_pipeline_variables`: the project may restrict who passes variables to pipelines.
    await this.base.access.authorize('set_pipeline_variables', project);
    const existing = await this.db.pipelineScheduleVariable.findMany({ where: { pipelineScheduleId: schedule.id }, select: { key: true } });
    const { key, errors } = variableKeyErrors(input.key, (k) => existing.some((v) => v.key === k));
    if (errors) throw invalid(errors);
    return this.db.pipelineScheduleVariable.create({ data: { pipelineScheduleId: schedule.id, key, value: input.value, variableType: input.variableType ?? 'env_var' } });
  }

  async updateVariable(project: ProjectRow, id: number, key: string, changes: { value?: string | null; variableType?: VariableType | null }): Promise<ScheduleVariableRow> {
    const schedule = await this.get(project, id);
    await this.base.access.authorize('update_pipeline_schedule', subject(project, schedule));
    await this.base.access.authorize('set_pipeline_variables', project);
    const variable = await this.named(schedule.id, key);
    return this.db.pipelineScheduleVariable.update({
      where: { id: variable.id },
      data: { value: changes.value ?? variable.value, variableType: changes.variableType ?? variable.variableType },
    });
  }

  async deleteVariable(project: ProjectRow, id: number, key: string): Promise<ScheduleVariableRow> {
    const schedule = await this.get(project, id);
    await this.base.access.authorize('admin_pipeline_schedule', subject(project, schedule));
    const variable = await this.named(schedule.id, key);
    await this.db.pipelineScheduleVariable.delete({ where: { id: variable.id } });
    return variable;
  }

  // ---- Shown with a schedule ----

  /** The newest pipeline the schedule ran, or null. */
  lastPipeline(schedule: PipelineScheduleRow): Promise<PipelineRow | null> {
    return this.pipelines.lastOfSchedule(schedule.id);
  }

  /** The pipelines the schedule ran, oldest first unless sorted, with the pipelines list's filters (by ID only). */
  async scheduledPipelines(schedule: PipelineScheduleRow, filters: Omit<PipelineFilters, 'pipelineScheduleId' | 'orderBy'>, page: PageArgs) {
    const project = await this.projectRow(schedule.projectId);
    if (!project) throw notFound(NOT_FOUND);
    return this.pipelines.list(project, { ...filters, orderBy: 'id', pipelineScheduleId: schedule.id, sort: filters.sort ?? 'asc' }, page);
  }

  /** Whether the viewer may update the schedule (what GraphQL's `editPath` asks). */
  async mayUpdate(schedule: PipelineScheduleRow): Promise<boolean> {
    const project = await this.projectRow(schedule.projectId);
    return !!project && (await this.base.access.can('update_pipeline_schedule', subject(project, schedule)));
  }

  async permissions(schedule: PipelineScheduleRow): Promise<SchedulePermissions> {
    const project = await this.projectRow(schedule.projectId);
    const none = { adminPipelineSchedule: false, playPipelineSchedule: false, takeOwnershipPipelineSchedule: false, updatePipelineSchedule: false };
    if (!project) return none;
    const { access } = this.base;
    const admin = await access.can('admin_pipeline_schedule', subject(project, schedule));
    const play = (await access.can('create_pipeline', project)) && (await this.mayRunRef(project, schedule.ref));
    return { adminPipelineSchedule: admin, playPipelineSchedule: play, takeOwnershipPipelineSchedule: admin, updatePipelineSchedule: await this.mayUpdate(schedule) };
  }

  // ---- Running ----

  /**
   * Claims active schedules whose time has come (rows locked with SKIP LOCKED, so replicas share them and none is
   * claimed twice), moves each to its next cron time and queues its run as its owner, all in one transaction: a run
   * is queued exactly when its schedule moves on, once per due time (the run job's unique key). Answers how many it
   * claimed; a full batch means more may be waiting.
   */
  async enqueueDue(now: Date): Promise<number> {
    return this.db.$transaction(async (tx) => {
      const due = await tx.$queryRaw<Array<{ id: number; cron: string; cronTimezone: string; ownerId: number; nextRunAt: Date }>>`
        SELECT "id", "cron", "cronTimezone", "ownerId", "nextRunAt" FROM "ci_pipeline_schedules"
        WHERE "active" AND "nextRunAt" <= ${now}
        ORDER BY "nextRunAt", "id"
        LIMIT ${DUE_BATCH}::int
        FOR UPDATE SKIP LOCKED`;
      for (const schedule of due) {
        await tx.pipelineSchedule.update({ where: { id: schedule.id }, data: { nextRunAt: nextRunAt(schedule.cron, schedule.cronTimezone, now) } });
        const payload: RunPayload = { scheduleId: schedule.id, userId: schedule.ownerId };
        await this.base.app.jobs.enqueue(RUN_JOB, payload, { uniqueKey: `${RUN_JOB}:${schedule.id}:${new Date(schedule.nextRunAt).toISOString()}` }, tx);
      }
      return due.length;
    });
  }

  /**
   * One run, as the viewer (the owner, or who played it): the schedule's pipeline, or nothing when it cannot be
   * created. As GitLab's RunPipelineScheduleWorker, a refusal (the user may no longer run pipelines of the ref, the
   * configuration is missing, no job would run) creates nothing and is logged, not retried.
   */
  async run(scheduleId: number): Promise<PipelineRow | null> {
    const schedule = await this.db.pipelineSchedule.findUnique({ where: { id: scheduleId }, include: { variables: { orderBy: { id: 'asc' } } } });
    const row = schedule ? await this.projectRow(schedule.projectId) : null;
    const log = (reason: string) => this.base.app.logger.warn({ scheduleId, userId: this.base.viewer?.id, reason }, 'pipeline schedule: no pipeline created');
    if (!schedule || !row) {
      log('the schedule or its project is gone');
      return null;
    }
    if (!(await this.mayRunRef(row, schedule.ref))) {
      log('the user may not update the protected ref');
      return null;
    }
    try {
      return await this.pipelines.create(row, {
        ref: shortRef(schedule.ref),
        tag: schedule.ref.startsWith('refs/tags/'),
        source: 'schedule',
        pipelineScheduleId: schedule.id,
        variables: schedule.variables.map((v) => ({ key: v.key, value: v.value, variableType: v.variableType })),
        inputs: inputsFromList(storedInputs(schedule)),
      });
    } catch (error) {
      if (!isCoded(error)) throw error;
      log(error.message);
      return null;
    }
  }

  // ---- Helpers ----

  private projectRow(projectId: number): Promise<ProjectRow | null> {
    return this.base.loaders.projects.byId.load(projectId) as Promise<ProjectRow | null>;
  }

  /** Validates a draft (errors together, as GitLab's model gives them) and expands its ref; BAD_USER_INPUT otherwise. */
  private async checked(project: ProjectRow, draft: { description: string; cron: string; cronTimezone: string }, ref: string): Promise<string> {
    // Grape's `allow_blank: false` on `ref`.
    if (ref.trim() === '') throw argumentRefused('ref', 'is empty');
    const errors = scheduleErrors(draft) ?? {};
    const expanded = await this.expandRef(project, ref);
    if (!expanded) errors.ref = ['is ambiguous'];
    if (Object.keys(errors).length) throw invalid(errors);
    return expanded as string;
  }

  /**
   * GitLab's BaseSaveService with Repository#expand_ref: a full ref stays; a short one becomes the branch or the tag
   * of that name, and is ambiguous when both or neither exist.
   */
  private async expandRef(project: ProjectRow, ref: string): Promise<string | null> {
    if (ref.length > MAX_REF_LENGTH) return null;
    if (FULL_REF.test(ref)) return ref;
    const repository = await this.repositories.open(project);
    const branch = await repository.resolve(`refs/heads/${ref}`);
    const tag = await repository.resolve(`refs/tags/${ref}`);
    if (!branch === !tag) return null;
    return branch ? `refs/heads/${ref}` : `refs/tags/${ref}`;
  }

  /** Ci::PipelineSchedulePolicy's `protected_ref`: a ref the viewer may not update (push or merge to) refuses them. */
  private mayRunRef(project: ProjectRow, ref: string): Promise<boolean> {
    return this.pipelines.mayUpdateRef(project, shortRef(ref), ref.startsWith('refs/tags/'));
  }

  private async authorizeRef(project: ProjectRow, ref: string, refusal: () => Error): Promise<void> {
    if (!(await this.mayRunRef(project, ref))) throw refusal();
  }

  /** Variable changes of a create or update, checked against the schedule's variables and each other. */
  private variableChanges(existing: readonly ScheduleVariableRow[], inputs: readonly ScheduleVariableInput[]) {
    const keys = new Set(existing.map((v) => v.key));
    const creates: { key: string; value: string; variableType: VariableType }[] = [];
    const updates: { id: number; key: string; value: string; variableType: VariableType }[] = [];
    const destroys: number[] = [];
    for (const input of inputs) {
      const current = input.id != null ? existing.find((v) => String(v.id) === String(input.id).replace(/^gid:\/\/gitlab\/Ci::PipelineScheduleVariable\//, '')) : undefined;
      if (input.id != null && !current) throw notFound(VARIABLE_NOT_FOUND);
      if (current && input.destroy) {
        keys.delete(current.key);
        destroys.push(current.id);
        continue;
      }
      if (current) keys.delete(current.key);
      const { key, errors } = variableKeyErrors(input.key, (k) => keys.has(k));
      if (errors) throw invalid({ variables: errors.key });
      keys.add(key);
      if (current) updates.push({ id: current.id, key, value: input.value, variableType: input.variableType });
      else creates.push({ key, value: input.value, variableType: input.variableType });
    }
    return { creates, updates, destroys };
  }

  private async applyVariables(tx: Prisma.TransactionClient, scheduleId: number, changes: ReturnType<PipelineSchedulesService['variableChanges']>): Promise<void> {
    if (changes.destroys.length) await tx.pipelineScheduleVariable.deleteMany({ where: { id: { in: changes.destroys }, pipelineScheduleId: scheduleId } });
    for (const update of changes.updates) {
      await tx.pipelineScheduleVariable.update({ where: { id: update.id }, data: { key: update.key, value: update.value, variableType: update.variableType } });
    }
    if (changes.creates.length) await tx.pipelineScheduleVariable.createMany({ data: changes.creates.map((c) => ({ ...c, pipelineScheduleId: scheduleId })) });
  }

  private async named(scheduleId: number, key: string): Promise<ScheduleVariableRow> {
    const variable = await this.db.pipelineScheduleVariable.findUnique({ where: { pipelineScheduleId_key: { pipelineScheduleId: scheduleId, key } } });
    if (!variable) throw notFound(VARIABLE_NOT_FOUND);
    return variable;
  }
}
