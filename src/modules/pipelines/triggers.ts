/**
 * Pipeline trigger tokens (GitLab's Ci::Trigger and `lib/api/ci/triggers.rb`): Maintainers list, create and delete
 * them, only a trigger's owner changes it or sees its whole token (Ci::TriggerPolicy), and anyone
 * holding one starts a pipeline as its owner with `POST /projects/:id/trigger/pipeline` (source `trigger`). A
 * running job's CI job token there starts a multi-project pipeline (source `pipeline`) as the job's user.
 */
import { randomBytes } from 'node:crypto';
import { can, type Actor } from '../../auth/policy.js';
import { digestToken } from '../../auth/secrets.js';
import { userViewer } from '../../auth/viewer.js';
import { argumentRefused, forbidden, invalid, notFound } from '../../errors.js';
import { connection, type PageArgs } from '../../graphql/connection.js';
import type { Prisma } from '../../db/database.js';
import type { ServiceBase } from '../module.js';
import { CREATE_ERRORS } from './create.js';
import type { ProjectRow } from '../projects/service.js';

export type TriggerRow = Prisma.PipelineTriggerGetPayload<object>;

/** Ci::PipelineTriggers::UpdateService's refusal, for whoever does not own the trigger. */
const UPDATE_REFUSED = 'The current user is not authorized to update the pipeline trigger token';

/** GitLab's trigger token prefix. */
const TRIGGER_TOKEN_PREFIX = 'glptt-';

export interface TriggerRun {
  token: string;
  ref: string;
  variables?: unknown;
  /** The pipeline's inputs, as `{"name": value}`. */
  inputs?: unknown;
}

/** `{"KEY": "value"}` as pipeline variables; anything else is GitLab's `variables is invalid`. */
function triggerVariables(value: unknown): { key: string; value: string; variableType: string }[] {
  if (value === undefined || value === null) return [];
  if (typeof value !== 'object' || Array.isArray(value)) throw argumentRefused('variables', 'is invalid');
  return Object.entries(value as Record<string, unknown>).map(([key, v]) => {
    if (typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean') throw argumentRefused('variables', 'is invalid');
    return { key, value: String(v), variableType: 'env_var' };
  });
}

export class PipelineTriggers {
  constructor(private readonly base: ServiceBase) {}

  private async manage(project: ProjectRow): Promise<void> {
    const { access } = this.base;
    if (!(await access.can('read_project', project))) throw notFound('Project');
    await access.authorize('manage_trigger', project);
  }

  /** A trigger of a project the viewer sees (`404 Trigger Not Found` otherwise), whoever may manage it. */
  private async find(project: ProjectRow, id: number): Promise<TriggerRow> {
    const trigger = await this.base.db.pipelineTrigger.findFirst({ where: { id, projectId: project.id } });
    if (!trigger) throw notFound('Trigger');
    return trigger;
  }

  async list(project: ProjectRow, page: PageArgs) {
    await this.manage(project);
    const where = { projectId: project.id };
    return connection(
      page,
      ({ skip, take }) => this.base.db.pipelineTrigger.findMany({ where, orderBy: { id: 'asc' }, skip, take }),
      () => this.base.db.pipelineTrigger.count({ where }),
    );
  }

  async get(project: ProjectRow, id: number): Promise<TriggerRow> {
    await this.manage(project);
    return this.find(project, id);
  }

  async create(project: ProjectRow, description: string | null | undefined): Promise<TriggerRow> {
    await this.manage(project);
    const owner = this.base.access.requireViewer();
    const token = `${TRIGGER_TOKEN_PREFIX}${randomBytes(20).toString('hex')}`;
    return this.base.db.pipelineTrigger.create({ data: { projectId: project.id, ownerId: owner.id, description: description ?? null, token } });
  }

  /** GitLab's PUT finds the trigger in any project the viewer sees, then asks admin_trigger (its owner only). */
  async update(project: ProjectRow, id: number, description: string | null | undefined): Promise<TriggerRow> {
    const { access } = this.base;
    access.requireViewer();
    if (!(await access.can('read_project', project))) throw notFound('Project');
    const trigger = await this.find(project, id);
    if (!(await access.can('admin_trigger', { project, ownerId: trigger.ownerId }))) throw forbidden(UPDATE_REFUSED);
    return this.base.db.pipelineTrigger.update({ where: { id: trigger.id }, data: { description: description ?? trigger.description } });
  }

  async delete(project: ProjectRow, id: number): Promise<TriggerRow> {
    const trigger = await this.get(project, id);
    await this.base.db.pipelineTrigger.delete({ where: { id: trigger.id } });
    return trigger;
  }

  /** The token as this viewer may see it: in full to those who may admin_trigger, else its first four characters (GitLab's short_token). */
  async shownToken(trigger: TriggerRow): Promise<string> {
    const project = (await this.base.loaders.projects.byId.load(trigger.projectId)) as ProjectRow | null;
    const whole = project !== null && (await this.base.access.can('admin_trigger', { project, ownerId: trigger.ownerId }));
    return whole ? trigger.token : trigger.token.slice(TRIGGER_TOKEN_PREFIX.length, TRIGGER_TOKEN_PREFIX.length + 4);
  }

  /**
   * Who a run acts as and with which source: the trigger's owner for a trigger token of this project, the job's user
   * for a running job's CI job token; `404 Not Found` for anything else (GitLab does not tell which part was wrong).
   */
  async runner(project: ProjectRow, run: TriggerRun): Promise<{ actor: Actor; userId: number; source: 'trigger' | 'pipeline'; triggerId: number | null; variables: ReturnType<typeof triggerVariables> }> {
    const variables = triggerVariables(run.variables);
    const { db, app } = this.base;
    const trigger = run.token ? await db.pipelineTrigger.findFirst({ where: { token: run.token, projectId: project.id } }) : null;
    let userId: number | null = null;
    let source: 'trigger' | 'pipeline' = 'trigger';
    if (trigger && (!trigger.expiresAt || trigger.expiresAt.getTime() > Date.now())) {
      userId = trigger.ownerId;
    } else if (run.token) {
      const job = await db.ciJob.findFirst({ where: { tokenDigest: digestToken(run.token), status: 'running' }, select: { userId: true } });
      if (job) {
        userId = job.userId;
        source = 'pipeline';
      }
    }
    const viewer = userId === null ? null : await userViewer(db, userId);
    if (!viewer) throw notFound();
    const actor = { viewer, memberships: await app.memberships.of(viewer.id) };
    if (!can(actor, 'read_project', project)) throw notFound();
    if (!can(actor, 'create_pipeline', project)) throw invalid({ base: ['Insufficient permissions to create a new pipeline'] });
    if (variables.length && !can(actor, 'set_pipeline_variables', project)) throw invalid({ base: [CREATE_ERRORS.variablesRefused] });
    if (trigger && source === 'trigger') await db.pipelineTrigger.update({ where: { id: trigger.id }, data: { lastUsedAt: new Date() } });
    return { actor, userId: viewer.id, source, triggerId: source === 'trigger' ? (trigger?.id ?? null) : null, variables };
  }
}
