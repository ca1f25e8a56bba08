/**
 * Owns iteration cadences (EE's Iterations::Cadence) and iterations (EE's Iteration, table `sprints`), numbered by iid
 * within their group, behind the licence switch (ITERATIONS_ENABLED; GitLab's `iterations` feature: 403 once the
 * group or project is found). An automatic cadence's upcoming iterations are scheduled ahead by a background job
 * (Iterations::Cadences::CreateIterationsInAdvanceService, schedule.ts); GitLab 16.3 refuses iterations made by hand
 * in such a cadence. The iteration of an issue (`issues.sprint_id`) is set here too, with its resource iteration
 * event and system note.
 */
import { issueRowInclude } from '../issues/policy.js';
import type { Prisma } from '../../db/database.js';
import { badRequest, forbidden, invalid, argumentError, notFoundAs, recordNotFound } from '../../errors.js';
import { connection, type PageArgs } from '../../graphql/connection.js';
import { containsIgnoringCase } from '../../db/text.js';
import type { Ref } from '../../graphql/ids.js';
import type { GroupsService } from '../groups/service.js';
import type { IssueRow, IssuesService } from '../issues/service.js';
import type { ServiceBase } from '../module.js';
import type { NamespaceRow } from '../namespaces/service.js';
import type { Noteable } from '../notes/noteables.js';
import type { ProjectRow } from '../projects/service.js';
import type { MilestonesService } from '../milestones/service.js';
import type { TimeboxReport } from '../milestones/report.js';
import type { ResourceEventsService } from '../resource_events/service.js';
import { closedWithOpenIssues, nextOpenIteration, rollOverIssues } from './roll-over.js';
import { addDays, computeState, dayOf, mediumDay, parseDay, today, type IterationState } from './dates.js';
import { CREATE_IN_ADVANCE_JOB, scheduleAhead, updateSequences } from './schedule.js';

export type CadenceRow = Prisma.IterationCadenceGetPayload<object>;
export type IterationRow = Prisma.IterationGetPayload<object>;
export type IterationEventRow = Prisma.ResourceIterationEventGetPayload<object>;

/** What iterations belong to, as the finder takes it: a group, or a project (whose group's iterations they are). */
export type IterationParent = { group: NamespaceRow } | { project: ProjectRow };

export interface CadenceFilters {
  id?: number | null;
  title?: string | null;
  durationInWeeks?: number | null;
  automatic?: boolean | null;
  active?: boolean | null;
  includeAncestorGroups?: boolean | null;
}

export interface CadenceChanges {
  title?: string | null;
  description?: string | null;
  automatic?: boolean | null;
  active?: boolean | null;
  startDate?: Date | null;
  durationInWeeks?: number | null;
  iterationsInAdvance?: number | null;
  rollOver?: boolean | null;
}

export interface IterationFilters {
  /** `upcoming`, `current`, `opened` (upcoming or current), `closed` or `all`. */
  state?: IterationState | 'opened' | 'all' | null;
  search?: string | null;
  /** Where `search` looks: the title, the cadence's title, or both (TITLE, CADENCE_TITLE). */
  in?: readonly ('title' | 'cadence_title')[] | null;
  ids?: readonly number[] | null;
  iids?: readonly number[] | null;
  includeAncestors?: boolean | null;
  cadenceIds?: readonly number[] | null;
  timeframe?: { start: Date; end: Date } | null;
  updatedBefore?: Date | null;
  updatedAfter?: Date | null;
  /** CADENCE_AND_DUE_DATE_ASC / _DESC; without it, due date then title (IterationsFinder's default). */
  sort?: 'cadence_and_due_date_asc' | 'cadence_and_due_date_desc' | null;
}

export interface IterationChanges {
  title?: string | null;
  description?: string | null;
  startDate?: string | null;
  dueDate?: string | null;
}

/** Which iteration an issue is put in: one by id, the current one of a cadence (CURRENT), or none. */
export type IssueIterationChoice = { iterationId: number } | { currentOfCadence: number } | null;

const DESCRIPTION_MAX = 5000;
/** Iterations::Cadence's inclusions: durations of 0 to 4 weeks, 0 to 10 iterations in advance. */
const MAX_WEEKS = 4;
const MAX_IN_ADVANCE = 10;

/** Iteration#period: `Jan 1, 2024 - Jan 14, 2024`. */
const period = (it: IterationRow) => `${mediumDay(it.startDate)} - ${mediumDay(it.dueDate)}`;

export class IterationsService {
  constructor(
    private readonly base: ServiceBase,
    private readonly groups: GroupsService,
    private readonly issues: IssuesService,
    private readonly events: ResourceEventsService,
    private readonly milestones: MilestonesService,
  ) {}

  private get db() {
    return this.base.db;
  }

  get available(): boolean {
    return this.base.app.config.iterationsEnabled;
  }

  /** Without the licence (ITERATIONS_ENABLED off) every iteration call is 403, once its group or project is found. */
  requireAvailable(): void {
    if (!this.available) throw forbidden();
  }

  /** The group an iteration call names: `404 Group Not Found` when the viewer may not read it, then 403 without iterations. */
  async group(ref: Ref): Promise<NamespaceRow> {
    const group = await this.groups.get(ref);
    this.requireAvailable();
    return group;
  }

  private async groupOf(row: { groupId: number }): Promise<NamespaceRow> {
    const group = await this.base.loaders.namespaces.byId.load(row.groupId);
    if (!group) throw recordNotFound();
    return group;
  }

  /** The groups whose iterations a parent lists: its group (a project's namespace, when a group), and its ancestors when asked. */
  private groupIds(parent: IterationParent, includeAncestors: boolean): number[] {
    const group = 'group' in parent ? parent.group : parent.project.namespace.kind === 'group' ? parent.project.namespace : null;
    if (!group) return [];
    return includeAncestors ? [...group.traversalIds] : [group.id];
  }

  // --- cadences ---------------------------------------------------------------------------------------------------

  /** Iterations::CadencesFinder: the group's cadences (and its ancestors' when asked), by title. */
  async cadences(group: NamespaceRow, filters: CadenceFilters, page: PageArgs) {
    this.requireAvailable();
    if (!(await this.base.access.can('read_iteration_cadence', { group }))) return connection(page, async () => [], async () => 0);
    const and: Prisma.IterationCadenceWhereInput[] = [{ groupId: { in: filters.includeAncestorGroups ? [...group.traversalIds] : [group.id] } }];
    if (filters.id != null) and.push({ id: filters.id });
    if (filters.title) and.push({ title: containsIgnoringCase(filters.title) });
    if (filters.durationInWeeks != null) and.push({ durationInWeeks: filters.durationInWeeks });
    if (filters.automatic != null) and.push({ automatic: filters.automatic });
    if (filters.active != null) and.push({ active: filters.active });
    const where: Prisma.IterationCadenceWhereInput = { AND: and };
    return connection(
      page,
      ({ skip, take }) => this.db.iterationCadence.findMany({ where, orderBy: [{ title: 'asc' }, { id: 'asc' }], skip, take }),
      () => this.db.iterationCadence.count({ where }),
    );
  }

  /** A cadence by id for an ability on its group: GitLab's `authorized_find!` (ResourceNotAvailable when missing or refused). */
  async cadence(id: number, ability: 'read_iteration_cadence' | 'admin_iteration_cadence'): Promise<{ cadence: CadenceRow; group: NamespaceRow }> {
    this.requireAvailable();
    const cadence = await this.db.iterationCadence.findUnique({ where: { id } });
    const group = cadence && (await this.base.loaders.namespaces.byId.load(cadence.groupId));
    if (!cadence || !group || !(await this.base.access.can(ability, { group }))) throw forbidden();
    return { cadence, group };
  }

  /** A cadence by id when the viewer may read it (an iteration's cadence); null otherwise. */
  async cadenceById(id: number): Promise<CadenceRow | null> {
    const cadence = await this.base.loaders.iterations.cadenceById.load(id);
    if (!cadence) return null;
    const group = await this.base.loaders.namespaces.byId.load(cadence.groupId);
    return group && (await this.base.access.can('read_iteration_cadence', { group })) ? cadence : null;
  }

  /** Iterations::Cadence's validations, on the cadence as it would be saved. */
  private async cadenceErrors(cadence: Omit<CadenceRow, 'id' | 'createdAt' | 'updatedAt' | 'nextRunDate'> & { id?: number }, automationChanged: boolean): Promise<Record<string, string[]>> {
    const errors: Record<string, string[]> = {};
    const add = (field: string, message: string) => (errors[field] ??= []).push(message);
    if (!cadence.title.trim()) add('title', "can't be blank");
    if (cadence.automatic && !cadence.startDate) add('startDate', "can't be blank");
    if (cadence.durationInWeeks != null && (cadence.durationInWeeks < 0 || cadence.durationInWeeks > MAX_WEEKS)) add('durationInWeeks', 'is not included in the list');
    if (cadence.automatic && cadence.durationInWeeks == null) add('durationInWeeks', "can't be blank");
    if (cadence.iterationsInAdvance != null && (cadence.iterationsInAdvance < 0 || cadence.iterationsInAdvance > MAX_IN_ADVANCE)) add('iterationsInAdvance', 'is not included in the list');
    if (cadence.automatic && cadence.iterationsInAdvance == null) add('iterationsInAdvance', "can't be blank");
    if (cadence.description && cadence.description.length > DESCRIPTION_MAX) add('description', `is too long (maximum is ${DESCRIPTION_MAX} characters)`);
    // The automation's start date, when it is new (a start date or duration changed, or the cadence made automatic).
    if (automationChanged && cadence.automatic && cadence.startDate && cadence.durationInWeeks) {
      const on = today();
      const existing = cadence.id === undefined ? [] : await this.db.iteration.findMany({ where: { iterationsCadenceId: cadence.id }, orderBy: [{ dueDate: 'asc' }, { id: 'asc' }] });
      const current = existing.find((it) => it.startDate <= on && it.dueDate >= on);
      const past = existing.filter((it) => it.dueDate < on);
      if (current) {
        if (cadence.startDate <= current.dueDate) add('base', `The automation start date must come after the active iteration ${period(current)}.`);
      } else {
        const last = past[past.length - 1];
        if (last && cadence.startDate <= last.dueDate) add('base', `The automation start date must come after the past iteration ${period(last)}.`);
        const earliest = addDays(on, 1 - cadence.durationInWeeks * 7);
        if (cadence.startDate < earliest) {
          add('base', `The automation start date would retroactively create a past iteration. ${earliest.toISOString().slice(0, 10)} is the earliest possible start date.`);
        }
      }
    }
    return errors;
  }

  /** Iterations::Cadences::CreateService: a new cadence of the group (Reporters and above). */
  async createCadence(group: NamespaceRow, input: CadenceChanges & { automatic: boolean; active: boolean }): Promise<CadenceRow> {
    this.requireAvailable();
    await this.base.access.authorize('create_iteration_cadence', { group });
    const draft = {
      groupId: group.id,
      title: input.title ?? '',
      description: input.description ?? null,
      automatic: input.automatic,
      active: input.active,
      startDate: input.startDate ? dayOf(input.startDate) : null,
      durationInWeeks: input.durationInWeeks ?? null,
      iterationsInAdvance: input.iterationsInAdvance ?? null,
      rollOver: input.rollOver ?? false,
    };
    const errors = await this.cadenceErrors(draft, draft.automatic);
    if (Object.keys(errors).length) throw invalid(errors);
    return this.db.$transaction(async (tx) => {
      const cadence = await tx.iterationCadence.create({ data: draft });
      await this.scheduleIfAutomated(tx, cadence);
      return cadence;
    });
  }

  /** Iterations::Cadences::UpdateService; a cadence made manual loses its automation (reset_automation_params). */
  async updateCadence(id: number, changes: CadenceChanges): Promise<CadenceRow> {
    const { cadence } = await this.cadence(id, 'admin_iteration_cadence');
    const next = { ...cadence };
    if (changes.title !== undefined) next.title = changes.title ?? '';
    if (changes.description !== undefined) next.description = changes.description;
    if (changes.automatic != null) next.automatic = changes.automatic;
    if (changes.active != null) next.active = changes.active;
    if (changes.startDate !== undefined) next.startDate = changes.startDate ? dayOf(changes.startDate) : null;
    if (changes.durationInWeeks !== undefined) next.durationInWeeks = changes.durationInWeeks;
    if (changes.iterationsInAdvance !== undefined) next.iterationsInAdvance = changes.iterationsInAdvance;
    if (changes.rollOver != null) next.rollOver = changes.rollOver;
    if (cadence.automatic && !next.automatic) Object.assign(next, { rollOver: false, durationInWeeks: null, iterationsInAdvance: null });
    const sameDay = (a: Date | null, b: Date | null) => (a?.getTime() ?? null) === (b?.getTime() ?? null);
    const startChanged = !sameDay(cadence.startDate, next.startDate);
    const automationChanged = (next.automatic && !!next.startDate && (startChanged || cadence.durationInWeeks !== next.durationInWeeks)) || (next.automatic && !cadence.automatic);
    const errors = await this.cadenceErrors(next, automationChanged);
    if (Object.keys(errors).length) throw invalid(errors);
    // after_commit ensure_iterations_in_advance: when the start date, duration or iterations in advance changed.
    const scheduling = startChanged || cadence.durationInWeeks !== next.durationInWeeks || cadence.iterationsInAdvance !== next.iterationsInAdvance;
    return this.db.$transaction(async (tx) => {
      const { id: _id, createdAt: _c, ...data } = next;
      const updated = await tx.iterationCadence.update({ where: { id }, data: { ...data, updatedAt: new Date() } });
      if (scheduling) await this.scheduleIfAutomated(tx, updated);
      return updated;
    });
  }

  /** Iterations::Cadences::DestroyService: the cadence and its iterations go; their issues keep no iteration. */
  async destroyCadence(id: number): Promise<NamespaceRow> {
    const { cadence, group } = await this.cadence(id, 'admin_iteration_cadence');
    await this.db.iterationCadence.delete({ where: { id: cadence.id } });
    return group;
  }

  /** Iterations::Cadence#can_be_automated?: active, automatic, with a duration and iterations in advance. */
  static canBeAutomated(cadence: CadenceRow): boolean {
    return cadence.active && cadence.automatic && (cadence.durationInWeeks ?? 0) > 0 && (cadence.iterationsInAdvance ?? 0) > 0;
  }

  /** Queues the cadence's scheduling ahead (Iterations::Cadences::CreateIterationsWorker), on commit of `tx`. */
  private async scheduleIfAutomated(tx: Prisma.TransactionClient, cadence: CadenceRow): Promise<void> {
    if (IterationsService.canBeAutomated(cadence)) await this.base.app.jobs.enqueue(CREATE_IN_ADVANCE_JOB, { cadenceId: cadence.id }, {}, tx);
  }

  /** The background job's work for one cadence: its upcoming iterations, created or re-aligned. No viewer: the automation bot's. */
  async scheduleCadence(cadenceId: number): Promise<void> {
    if (!this.available) return;
    await scheduleAhead(this.db, cadenceId, today());
  }

  /** The automatic cadences whose next run date has come (next_to_auto_schedule), for the recurring job. */
  async dueCadences(limit: number): Promise<number[]> {
    if (!this.available) return [];
    const rows = await this.db.iterationCadence.findMany({
      where: { automatic: true, active: true, OR: [{ nextRunDate: null }, { nextRunDate: { lte: today() } }] },
      select: { id: true },
      orderBy: { id: 'asc' },
      take: limit,
    });
    return rows.map((r) => r.id);
  }

  /**
   * The recurring job's roll-over (Iterations::RollOverIssuesWorker, after iterations close): each closed iteration
   * of a roll-over cadence still holding open issues hands them to the cadence's next open iteration. An iteration
   * whose cadence has none even after scheduling ahead keeps its issues.
   */
  async rollOverClosed(limit: number): Promise<void> {
    if (!this.available) return;
    const on = today();
    const host = new URL(this.base.app.config.externalUrl).host;
    for (const from of await closedWithOpenIssues(this.db, on, limit)) {
      let to = await nextOpenIteration(this.db, from.iterationsCadenceId, from.dueDate, on);
      if (!to) {
        await scheduleAhead(this.db, from.iterationsCadenceId, on);
        to = await nextOpenIteration(this.db, from.iterationsCadenceId, from.dueDate, on);
      }
      if (to) await rollOverIssues(this.db, from, to, host, on);
    }
  }

  // --- iterations -------------------------------------------------------------------------------------------------

  /** IterationsFinder: the iterations of a group or of a project's group (their ancestors' too unless told not to). */
  async list(parent: IterationParent, filters: IterationFilters, page: PageArgs) {
    this.requireAvailable();
    if (!(await this.base.access.can('read_iteration', parent))) return connection(page, async () => [], async () => 0);
    const on = today();
    const and: Prisma.IterationWhereInput[] = [{ groupId: { in: this.groupIds(parent, filters.includeAncestors ?? true) } }];
    if (filters.ids) and.push({ id: { in: [...filters.ids] } });
    if (filters.iids) and.push({ iid: { in: [...filters.iids] } });
    if (filters.cadenceIds) and.push({ iterationsCadenceId: { in: [...filters.cadenceIds] } });
    and.push(...stateConditions(filters.state ?? 'all', on));
    if (filters.search) {
      const fields = filters.in?.length ? filters.in : ['title'];
      const or: Prisma.IterationWhereInput[] = [];
      if (fields.includes('title')) or.push({ title: containsIgnoringCase(filters.search) });
      if (fields.includes('cadence_title')) or.push({ cadence: { is: { title: containsIgnoringCase(filters.search) } } });
      and.push({ OR: or });
    }
    if (filters.timeframe) and.push({ startDate: { lte: filters.timeframe.end }, dueDate: { gte: filters.timeframe.start } });
    if (filters.updatedBefore) and.push({ updatedAt: { lt: filters.updatedBefore } });
    if (filters.updatedAfter) and.push({ updatedAt: { gt: filters.updatedAfter } });
    const where: Prisma.IterationWhereInput = { AND: and };
    const orderBy: Prisma.IterationOrderByWithRelationInput[] =
      filters.sort === 'cadence_and_due_date_asc' || filters.sort === 'cadence_and_due_date_desc'
        ? [{ iterationsCadenceId: 'asc' }, { dueDate: filters.sort.endsWith('asc') ? 'asc' : 'desc' }, { id: 'asc' }]
        : [{ dueDate: 'asc' }, { title: { sort: 'asc', nulls: 'last' } }, { id: 'asc' }];
    return connection(
      page,
      ({ skip, take }) => this.db.iteration.findMany({ where, orderBy, skip, take }),
      () => this.db.iteration.count({ where }),
    );
  }

  /** An iteration by id when the viewer may read it (Query.iteration, an issue's iteration); null otherwise. */
  async byId(id: number): Promise<IterationRow | null> {
    if (!this.available) return null;
    const iteration = await this.base.loaders.iterations.byId.load(id);
    if (!iteration) return null;
    const group = await this.base.loaders.namespaces.byId.load(iteration.groupId);
    return group && (await this.base.access.can('read_iteration', { group })) ? iteration : null;
  }

  /** The iteration's validations (Iteration model), on what would be saved. */
  private async iterationErrors(db: Prisma.TransactionClient, it: { id?: number; iterationsCadenceId: number; title: string | null; startDate: Date | null; dueDate: Date | null; description: string | null }, datesChanged: boolean, titleChanged: boolean) {
    const errors: Record<string, string[]> = {};
    const add = (field: string, message: string) => (errors[field] ??= []).push(message);
    if (!it.startDate) add('startDate', "can't be blank");
    if (!it.dueDate) add('dueDate', "can't be blank");
    if (it.startDate && it.dueDate && datesChanged) {
      const overlapping = await db.iteration.count({
        where: { iterationsCadenceId: it.iterationsCadenceId, ...(it.id ? { id: { not: it.id } } : {}), startDate: { lte: it.dueDate }, dueDate: { gte: it.startDate } },
      });
      if (overlapping) add('base', 'Dates cannot overlap with other existing Iterations within this iterations cadence');
      const limit = new Date();
      limit.setUTCFullYear(limit.getUTCFullYear() + 500);
      if (it.startDate > limit) add('startDate', 'cannot be more than 500 years in the future');
      if (it.dueDate > limit) add('dueDate', 'cannot be more than 500 years in the future');
    }
    if (titleChanged && it.title) {
      const taken = await db.iteration.count({ where: { iterationsCadenceId: it.iterationsCadenceId, title: it.title, ...(it.id ? { id: { not: it.id } } : {}) } });
      if (taken) add('title', 'already being used for another iteration within this cadence.');
    }
    return errors;
  }

  /**
   * Iterations::CreateService (GitLab 16.3): an iteration of the group made by hand, in the cadence named (which must
   * be manual: `Iterations cannot be manually added to cadences that use automatic scheduling`), else in the group's
   * first manual cadence, made (`<group name> Iterations`) when it has none.
   */
  async create(parent: IterationParent, cadenceId: number | null, input: IterationChanges): Promise<IterationRow> {
    this.requireAvailable();
    await this.base.access.authorize('create_iteration', parent);
    const given = Object.values(input).some((v) => v !== undefined) || cadenceId !== null;
    if (!given) throw argumentError('The list of iteration attributes is empty');
    const group = 'group' in parent ? parent.group : parent.project.namespace.kind === 'group' ? parent.project.namespace : null;
    if (!group) throw badRequest('Iterations are only available to projects in a group');
    let cadence: CadenceRow | null = null;
    if (cadenceId !== null) {
      cadence = await this.db.iterationCadence.findUnique({ where: { id: cadenceId } });
      if (!cadence || !(await this.base.access.can('read_iteration_cadence', { group: await this.groupOf(cadence) }))) throw notFoundAs(`No object found for \`iterationsCadenceId: gid://gitlab/Iterations::Cadence/${cadenceId}\``);
      if (cadence.automatic) throw badRequest('Iterations cannot be manually added to cadences that use automatic scheduling');
    }
    const startDate = parseDay(input.startDate);
    const dueDate = parseDay(input.dueDate);
    const title = input.title?.trim() ? input.title : null;
    const description = input.description ?? null;
    return this.db.$transaction(async (tx) => {
      await tx.$queryRaw`SELECT "id" FROM "namespaces" WHERE "id" = ${group.id} FOR UPDATE`;
      // set_iterations_cadence: the group's first manual cadence, made when missing.
      const target =
        cadence ??
        (await tx.iterationCadence.findFirst({ where: { groupId: group.id, automatic: false }, orderBy: { id: 'asc' } })) ??
        (await tx.iterationCadence.create({ data: { groupId: group.id, title: `${group.name} Iterations`, automatic: false, startDate: startDate ?? today(), iterationsInAdvance: 2, durationInWeeks: 2 } }));
      if (target.groupId !== group.id) throw invalid({ group: ['is not valid. The iteration group has to match the iteration cadence group.'] });
      const errors = await this.iterationErrors(tx, { iterationsCadenceId: target.id, title, startDate, dueDate, description }, true, true);
      if (Object.keys(errors).length) throw invalid(errors);
      const last = await tx.iteration.aggregate({ where: { groupId: group.id }, _max: { iid: true } });
      const now = new Date();
      const created = await tx.iteration.create({
        data: { iid: (last._max.iid ?? 0) + 1, groupId: group.id, iterationsCadenceId: target.id, title, description, startDate: startDate!, dueDate: dueDate!, createdAt: now, updatedAt: now },
      });
      await updateSequences(tx, target.id);
      return (await tx.iteration.findUnique({ where: { id: created.id } }))!;
    });
  }

  /** Iterations::UpdateService: title, description and dates of an iteration of the group (Reporters and above). */
  async update(group: NamespaceRow, id: number, changes: IterationChanges): Promise<IterationRow> {
    this.requireAvailable();
    if (!Object.values(changes).some((v) => v !== undefined)) throw argumentError('The list of iteration attributes is empty');
    const iteration = await this.db.iteration.findUnique({ where: { id } });
    // IterationsFinder with the group as parent (its ancestors included): an iteration elsewhere is not found.
    if (!iteration || !group.traversalIds.includes(iteration.groupId) || !(await this.base.access.can('admin_iteration', { group: await this.groupOf(iteration) }))) throw forbidden();
    const next = { ...iteration };
    if (changes.title !== undefined) next.title = changes.title?.trim() ? changes.title : null;
    if (changes.description !== undefined) next.description = changes.description;
    const start = changes.startDate !== undefined ? parseDay(changes.startDate) : iteration.startDate;
    const due = changes.dueDate !== undefined ? parseDay(changes.dueDate) : iteration.dueDate;
    const datesChanged = start?.getTime() !== iteration.startDate.getTime() || due?.getTime() !== iteration.dueDate.getTime();
    const errors = await this.iterationErrors(this.db, { ...next, startDate: start, dueDate: due }, datesChanged, next.title !== iteration.title);
    if (Object.keys(errors).length) throw invalid(errors);
    return this.db.$transaction(async (tx) => {
      await tx.iteration.update({ where: { id }, data: { title: next.title, description: next.description, startDate: start!, dueDate: due!, updatedAt: new Date() } });
      if (datesChanged) await updateSequences(tx, iteration.iterationsCadenceId);
      return (await tx.iteration.findUnique({ where: { id } }))!;
    });
  }

  /**
   * Iterations::DeleteService: a closed iteration, or the last of its cadence; its issues keep no iteration. Answers
   * the iteration's group, with the refusal's words when it stays (the payload's group is non-null in GitLab's too).
   */
  async destroy(id: number): Promise<{ group: NamespaceRow; errors: string[] }> {
    this.requireAvailable();
    const iteration = await this.db.iteration.findUnique({ where: { id } });
    const group = iteration && (await this.base.loaders.namespaces.byId.load(iteration.groupId));
    if (!iteration || !group || !(await this.base.access.can('admin_iteration', { group }))) throw forbidden();
    if (computeState(iteration.startDate, iteration.dueDate) !== 'closed') {
      const later = await this.db.iteration.count({ where: { iterationsCadenceId: iteration.iterationsCadenceId, startDate: { gt: iteration.dueDate } } });
      if (later) return { group, errors: ["upcoming/current iterations can't be deleted unless they are the last one in the cadence"] };
    }
    await this.db.$transaction(async (tx) => {
      await tx.iteration.delete({ where: { id } });
      await updateSequences(tx, iteration.iterationsCadenceId);
    });
    return { group, errors: [] };
  }

  // --- issues -----------------------------------------------------------------------------------------------------

  /** The iteration of an issue, when iterations are available and the viewer may read it. */
  ofIssue(issue: IssueRow): Promise<IterationRow | null> {
    return issue.sprintId === null ? Promise.resolve(null) : this.byId(issue.sprintId);
  }

  /**
   * The open iterations (upcoming or current) of a project's groups, as the `/iteration` quick action finds them
   * (IterationsFinder with `state: 'opened'`): one by id or by title, or, without either, whether there is any.
   */
  async opened(project: ProjectRow, ref?: { id: number } | { title: string }): Promise<IterationRow | null> {
    if (!this.available || project.namespace.kind !== 'group') return null;
    const where: Prisma.IterationWhereInput = { groupId: { in: [...project.namespace.traversalIds] }, dueDate: { gte: today() } };
    if (ref && 'id' in ref) where.id = ref.id;
    if (ref && 'title' in ref) where.title = ref.title;
    return this.db.iteration.findFirst({ where, orderBy: [{ dueDate: 'asc' }, { id: 'asc' }] });
  }

  /**
   * The iteration an issue is put in, as EE's Issues::BaseService#filter_iteration finds it: one of the groups of the
   * issue's project (its group and the groups above it), else none; CURRENT is the cadence's current iteration.
   */
  private async usableIteration(project: ProjectRow, choice: Exclude<IssueIterationChoice, null>): Promise<IterationRow | null> {
    const groups = project.namespace.kind === 'group' ? [...project.namespace.traversalIds] : [];
    if ('iterationId' in choice) return this.db.iteration.findFirst({ where: { id: choice.iterationId, groupId: { in: groups } } });
    const on = today();
    return this.db.iteration.findFirst({ where: { iterationsCadenceId: choice.currentOfCadence, groupId: { in: groups }, startDate: { lte: on }, dueDate: { gte: on } } });
  }

  /**
   * Puts an issue in an iteration, or takes it out of its iteration (`null`): Issues::UpdateService with `sprint_id`,
   * which needs `admin_issue` (else the change is dropped, as GitLab drops what a caller may not set), with a
   * resource iteration event and GitLab's system note (`changed iteration to *iteration:<id>`, `removed iteration`).
   */
  async setIssueIteration(issue: IssueRow, choice: IssueIterationChoice): Promise<IssueRow> {
    this.requireAvailable();
    const subject = await this.issues.subject(issue);
    await this.base.access.authorize('update_issue', subject);
    if (!(await this.base.access.can('admin_issue', subject))) return issue;
    const project = (await this.base.loaders.projects.byId.load(issue.projectId))!;
    const iteration = choice === null ? null : await this.usableIteration(project, choice);
    const sprintId = iteration?.id ?? null;
    if (sprintId === issue.sprintId) return issue;
    const userId = this.base.access.requireViewer().id;
    return this.db.$transaction(async (tx) => {
      const at = new Date();
      const updated = await tx.issue.update({ where: { id: issue.id }, data: { sprintId, updatedAt: at }, include: issueRowInclude });
      // ResourceEvents::ChangeIterationService: `add` with the new iteration, or `remove` with the one taken off.
      const eventIteration = sprintId ?? issue.sprintId!;
      await tx.resourceIterationEvent.create({ data: { issueId: issue.id, iterationId: eventIteration, action: sprintId === null ? 'remove' : 'add', userId, createdAt: at } });
      const body = sprintId === null ? 'removed iteration' : `changed iteration to *iteration:${sprintId}`;
      await this.events.issuables.note(tx, issue, userId, body, at);
      return updated as IssueRow;
    });
  }

  /** The resource iteration events of an issue the viewer reads (its noteable found by the resource events API), oldest first. */
  iterationEvents(n: Noteable, page: PageArgs) {
    this.requireAvailable();
    const where: Prisma.ResourceIterationEventWhereInput = { issueId: n.type === 'Issue' ? (n.id ?? -1) : -1 };
    return connection(
      page,
      ({ skip, take }) => this.db.resourceIterationEvent.findMany({ where, orderBy: { id: 'asc' }, skip, take }),
      () => this.db.resourceIterationEvent.count({ where }),
    );
  }

  /** One resource iteration event of the issue by id (anything but digits finds nothing): 404 otherwise. */
  async iterationEvent(n: Noteable, id: string) {
    this.requireAvailable();
    const found = n.type === 'Issue' && /^\d{1,9}$/.test(id.trim()) ? await this.db.resourceIterationEvent.findFirst({ where: { id: Number(id), issueId: n.id ?? -1 } }) : null;
    if (!found) throw recordNotFound();
    return found;
  }

  /** Iteration.report: GitLab's timebox report of the iteration (the milestones service makes both kinds). */
  report(iteration: IterationRow, fullPath: string | null | undefined): Promise<TimeboxReport> {
    return this.milestones.timeboxReport({ kind: 'iteration', id: iteration.id, startDate: iteration.startDate, dueDate: iteration.dueDate }, fullPath);
  }
}

/** Iteration.filter_by_state, with the state computed from the dates as of `on`. */
function stateConditions(state: IterationState | 'opened' | 'all', on: Date): Prisma.IterationWhereInput[] {
  switch (state) {
    case 'upcoming':
      return [{ startDate: { gt: on } }];
    case 'current':
      return [{ startDate: { lte: on }, dueDate: { gte: on } }];
    case 'opened':
      return [{ dueDate: { gte: on } }];
    case 'closed':
      return [{ dueDate: { lt: on } }];
    default:
      return [];
  }
}
