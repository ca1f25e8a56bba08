/**
 * Merge trains (EE's MergeTrains::Car and MergeTrains::Train, AutoMerge::MergeTrainService and
 * AddToMergeTrainWhenPipelineSucceedsService, MergeTrains::AddMergeRequestService): a project's cars by target
 * branch, adding a merge request (now, or once its head pipeline succeeds) and taking it off, and what the train's
 * refresh (train.ts) reads and writes of its cars.
 */
import { Prisma } from '../../db/database.js';
import { badRequest, conflict, forbidden, notFound } from '../../errors.js';
import { connection, type PageArgs } from '../../graphql/connection.js';
import type { ServiceBase } from '../module.js';
import type { MergeOptions } from '../merge_requests/git.js';
import { MERGE_REQUEST, type MergeRequestRow, type MergeRequestsService } from '../merge_requests/service.js';
import type { NotesService } from '../notes/service.js';
import type { PipelineRow, PipelinesService } from '../pipelines/service.js';
import { ACTIVE_STATUSES, isCompleted } from '../pipelines/status.js';
import type { ProjectRow } from '../projects/service.js';
import type { RepositoriesService } from '../repositories/service.js';
import { mergeTrainsEnabled, mergeTrainsSkipTrainAllowed } from './settings.js';
import { MergeTrainRefresh } from './train.js';

export type CarRow = Prisma.MergeTrainCarGetPayload<object>;

/** MergeTrains::Car's state machine: cars still on the train, and those that left it merged. */
export const ACTIVE_CAR_STATUSES = ['idle', 'stale', 'fresh'] as const;
const COMPLETE_CAR_STATUSES = ['merging', 'merged', 'skip_merged'] as const;

/** AutoMergeService's strategies of merge trains. */
const MERGE_TRAIN = 'merge_train';
export const ADD_TO_MERGE_TRAIN = 'add_to_merge_train_when_pipeline_succeeds';

export interface CarFilters {
  /** `active` or `complete`; both when absent. */
  scope?: string | null;
  sort?: 'asc' | 'desc' | null;
  targetBranch?: string | null;
  targetBranches?: readonly string[] | null;
}

/** What adding answers: 201 when the merge request boarded, 202 when it boards once its pipeline succeeds. */
export interface AddResult {
  status: 201 | 202;
  mergeRequest: MergeRequestRow;
  /** The active cars of its target branch's train, first first. */
  cars: CarRow[];
}

export interface AddOptions {
  /** Board once the head pipeline succeeds (REST's `when_pipeline_succeeds` and `auto_merge`). */
  whenPipelineSucceeds?: boolean | null;
  sha?: string | null;
  squash?: boolean | null;
}

/** The merge train of one target branch (GitLab's MergeTrains::Train), as GraphQL's MergeTrain shows it. */
export interface TrainRow {
  project: ProjectRow;
  targetBranch: string;
}

/** Cars an answer lists at most (a train runs at most 20 pipelines; its waiting cars are few). */
const TRAIN_LIST_LIMIT = 100;

/** Target branches with trains GraphQL's Project.mergeTrains reads at most. */
const TRAIN_BRANCHES_LIMIT = 1000;

const scopeStatuses = (scope: string | null | undefined): readonly string[] | null =>
  scope === 'active' ? ACTIVE_CAR_STATUSES : scope === 'complete' ? COMPLETE_CAR_STATUSES : null;

export class MergeTrainsService {
  readonly refresh: MergeTrainRefresh;

  constructor(
    readonly base: ServiceBase,
    readonly mergeRequests: MergeRequestsService,
    readonly pipelines: PipelinesService,
    readonly repositories: RepositoriesService,
    readonly notes: NotesService,
  ) {
    this.refresh = new MergeTrainRefresh(this);
  }

  private get db() {
    return this.base.db;
  }

  /** The Merge Trains API's and GraphQL's read check: 403 to whoever sees the project but is no Developer. */
  private async readable(project: ProjectRow): Promise<void> {
    await this.base.access.authorize('read_merge_train', project);
  }

  /** `GET /projects/:id/merge_trains[/:target_branch]` (MergeTrainsFinder): the project's cars, newest first unless `sort=asc`. */
  async list(project: ProjectRow, filters: CarFilters, page: PageArgs) {
    await this.readable(project);
    const statuses = scopeStatuses(filters.scope);
    const branches = filters.targetBranches ?? (filters.targetBranch != null ? [filters.targetBranch] : null);
    const where: Prisma.MergeTrainCarWhereInput = {
      targetProjectId: project.id,
      ...(branches ? { targetBranch: { in: [...branches] } } : {}),
      ...(statuses ? { status: { in: [...statuses] } } : {}),
    };
    const sort = filters.sort ?? 'desc';
    return connection(
      page,
      ({ skip, take }) => this.db.mergeTrainCar.findMany({ where, orderBy: { id: sort }, skip, take }),
      () => this.db.mergeTrainCar.count({ where }),
    );
  }

  /** GraphQL's Project.mergeTrains: the target branches with cars (active ones, or only completed ones), by name. */
  async trains(project: ProjectRow, status: 'active' | 'completed' | null, targetBranches: readonly string[] | null, page: PageArgs) {
    await this.readable(project);
    const active = { targetProjectId: project.id, status: { in: [...ACTIVE_CAR_STATUSES] } };
    const branchFilter = targetBranches ? { targetBranch: { in: [...targetBranches] } } : {};
    const activeBranches = async () => (await this.db.mergeTrainCar.findMany({ where: { ...active, ...branchFilter }, distinct: ['targetBranch'], select: { targetBranch: true }, take: TRAIN_BRANCHES_LIMIT })).map((r) => r.targetBranch);
    const where: Prisma.MergeTrainCarWhereInput = { targetProjectId: project.id, ...branchFilter };
    const names = async (): Promise<string[]> => {
      const all = (await this.db.mergeTrainCar.findMany({ where, distinct: ['targetBranch'], select: { targetBranch: true }, orderBy: { targetBranch: 'asc' }, take: TRAIN_BRANCHES_LIMIT })).map((r) => r.targetBranch);
      if (status === null) return all;
      const running = new Set(await activeBranches());
      return all.filter((b) => running.has(b) === (status === 'active'));
    };
    let listed: Promise<string[]> | undefined;
    const load = () => (listed ??= names());
    return connection(
      page,
      async ({ skip, take }) => (await load()).slice(skip, skip + take).map((targetBranch): TrainRow => ({ project, targetBranch })),
      async () => (await load()).length,
    );
  }

  /** `GET /projects/:id/merge_trains/merge_requests/:iid`: the merge request's car; 404 `Merge Train` when it has none. */
  async carOf(project: ProjectRow, iid: number): Promise<CarRow> {
    await this.readable(project);
    const mr = await this.mergeRequests.get(project, iid);
    const car = await this.db.mergeTrainCar.findUnique({ where: { mergeRequestId: mr.id } });
    if (!car) throw notFound('Merge Train');
    return car;
  }

  /** A car by id, when the viewer may read its project's trains (global IDs); null otherwise. */
  async byId(id: number): Promise<CarRow | null> {
    const car = await this.db.mergeTrainCar.findUnique({ where: { id } });
    if (!car) return null;
    const project = await this.base.loaders.projects.byId.load(car.targetProjectId);
    if (!project || !(await this.base.access.can('read_merge_train', project))) return null;
    return car;
  }

  /** MergeRequest#merge_train_car (GraphQL's MergeRequest.mergeTrainCar), for a merge request already read. */
  async carOfMergeRequest(mr: MergeRequestRow): Promise<CarRow | null> {
    const project = await this.mergeRequests.projectOf(mr);
    if (!mergeTrainsEnabled(project) || !(await this.base.access.can('read_merge_train', project))) return null;
    return this.base.loaders.merge_trains.carByMergeRequest.load(mr.id);
  }

  /** MergeTrains::Car#index: its place among the train's active cars (0: the first), null once it left. */
  async indexOf(car: CarRow): Promise<number | null> {
    if (!(ACTIVE_CAR_STATUSES as readonly string[]).includes(car.status)) return null;
    return this.base.loaders.merge_trains.activeIndex.load(car);
  }

  /** MergeRequest#merge_trains_count: the active cars of its target branch's train, while merge trains are enabled. */
  async activeCount(mr: MergeRequestRow): Promise<number | null> {
    const project = await this.mergeRequests.projectOf(mr);
    if (!mergeTrainsEnabled(project)) return null;
    return this.db.mergeTrainCar.count({ where: { targetProjectId: project.id, targetBranch: mr.targetBranch, status: { in: [...ACTIVE_CAR_STATUSES] } } });
  }

  /** CarPermissions: what the viewer may do with the car. */
  async permissions(car: CarRow): Promise<{ deleteCar: boolean }> {
    const project = await this.base.loaders.projects.byId.load(car.targetProjectId);
    return { deleteCar: !!project && (await this.base.access.can('delete_car', { project, userId: car.userId })) };
  }

  /**
   * `POST /projects/:id/merge_trains/merge_requests/:iid` (MergeTrains::AddMergeRequestService): 403 unless the viewer
   * may merge it, 409 when it is already set to auto-merge, 400 when trains are off or no train strategy is available
   * now (`merge_train` needs its head pipeline complete; `add_to_merge_train_when_pipeline_succeeds` running).
   */
  async add(project: ProjectRow, iid: number, options: AddOptions): Promise<AddResult> {
    const mr = await this.mergeRequests.get(project, iid);
    this.base.access.requireViewer();
    if (!(await this.repositories.canMergeToBranch(project, mr.targetBranch)) || mr.state !== 'opened') throw forbidden('Merge request cannot be merged by current user');
    if (mr.autoMergeEnabled) throw conflict('Merge request is already set to Auto-Merge');
    if (!mergeTrainsEnabled(project)) throw badRequest('Merge trains are not enabled for this project');
    const strategy = options.whenPipelineSucceeds ? ADD_TO_MERGE_TRAIN : MERGE_TRAIN;
    const merge: MergeOptions = { sha: options.sha, squash: options.squash };
    const added = await this.enable(project, mr, strategy, merge);
    if (!added) throw badRequest('Failed to merge');
    const cars = await this.activeCars(project.id, added.targetBranch, TRAIN_LIST_LIMIT);
    return { status: strategy === MERGE_TRAIN ? 201 : 202, mergeRequest: added, cars };
  }

  /**
   * mergeRequestAccept's (and REST's `PUT …/merge`) auto-merge where merge trains run, as AutoMergeService picks its
   * preferred strategy: `merge_train` or `add_to_merge_train_when_pipeline_succeeds` (`…_when_checks_pass` alike) as
   * asked, or for `merge_when_pipeline_succeeds` / `merge_when_checks_pass` on a project with merge trains the train
   * instead: boarding once the head pipeline succeeds while it runs, now when it is complete. Null when merge trains
   * have no part in it (the caller goes on as before); a strategy asked for that is not available now is GitLab's
   * `Failed to merge`.
   */
  async accept(project: ProjectRow, mr: MergeRequestRow, strategy: string, options: MergeOptions): Promise<MergeRequestRow | null> {
    const asked = strategy === MERGE_TRAIN ? MERGE_TRAIN : strategy.startsWith('add_to_merge_train_') ? ADD_TO_MERGE_TRAIN : null;
    if (!asked && !((strategy === 'merge_when_pipeline_succeeds' || strategy === 'merge_when_checks_pass') && mergeTrainsEnabled(project))) return null;
    const chosen = asked ?? ((await this.available(project, mr, ADD_TO_MERGE_TRAIN)) ? ADD_TO_MERGE_TRAIN : MERGE_TRAIN);
    const enabled = await this.enable(project, mr, chosen, options);
    if (!enabled && asked) throw badRequest('Failed to merge');
    return enabled;
  }

  /**
   * Cancelling the auto-merge of a merge request on a train or waiting to board one (AutoMergeService#cancel with a
   * train strategy): it leaves the train, or stops waiting, with GitLab's note. Null when its auto-merge is another's.
   */
  async cancel(project: ProjectRow, mr: MergeRequestRow): Promise<MergeRequestRow | null> {
    const viewer = this.base.access.requireViewer();
    if (mr.autoMergeStrategy === MERGE_TRAIN) {
      await this.leave(project, mr, viewer.id, 'removed this merge request from the merge train');
      return this.mergeRequests.get(project, mr.iid);
    }
    if (mr.autoMergeStrategy !== ADD_TO_MERGE_TRAIN) return null;
    const cancelled = await this.mergeRequests.cancelAutoMerge(project, mr);
    await this.note(mr, viewer.id, 'cancelled automatic add to merge train');
    return cancelled;
  }

  /**
   * AutoMergeService#abort with a train strategy (the merge request closed: MergeRequests::CloseService's
   * `merge request was closed`): a merge request on the train leaves it at once, its car destroyed, with GitLab's note
   * `removed this merge request from the merge train because <reason>`, and the cars behind it restart on the train
   * without it; one waiting to board stops waiting (`aborted automatic add to merge train because <reason>`). False
   * when its auto-merge is not a train's.
   */
  async abort(project: ProjectRow, mr: MergeRequestRow, reason: string): Promise<boolean> {
    const viewer = this.base.access.requireViewer();
    if (mr.autoMergeStrategy === MERGE_TRAIN) {
      await this.leave(project, mr, viewer.id, `removed this merge request from the merge train because ${reason}`);
      return true;
    }
    if (mr.autoMergeStrategy !== ADD_TO_MERGE_TRAIN || !mr.autoMergeEnabled) return false;
    await this.db.$transaction(async (tx) => {
      await this.resetAutoMerge(tx, mr);
      await this.notes.createSystemNote(tx, { type: MERGE_REQUEST, id: mr.id, projectId: mr.projectId, groupId: null }, viewer.id, `aborted automatic add to merge train because ${reason}`, new Date());
    });
    return true;
  }

  /** GitLab's reset_auto_merge, whatever the merge request's state short of merged (a closed one leaves the train too). */
  private async resetAutoMerge(tx: Prisma.TransactionClient, mr: MergeRequestRow): Promise<void> {
    await tx.mergeRequest.updateMany({
      where: { id: mr.id, state: { not: 'merged' } },
      data: { autoMergeEnabled: false, autoMergeStrategy: null, mergeUserId: null, mergeParams: Prisma.DbNull, updatedAt: new Date() },
    });
  }

  /**
   * `PUT …/merge` with `skip_merge_train` where the project allows it (EE's MergeService#skipping_active_merge_train?):
   * merged now, around the train, its `skip_merged` car recorded before the target branch moves (with the commit it
   * moves to), so the train's refresh knows the move for a skipped merge and keeps its cars' pipelines. Null where
   * skipping is not allowed (the caller merges as usual, and the train restarts on the moved target).
   */
  async mergeSkippingTrain(project: ProjectRow, iid: number, options: MergeOptions): Promise<MergeRequestRow | null> {
    if (!mergeTrainsSkipTrainAllowed(project)) return null;
    const viewer = this.base.access.requireViewer();
    return this.mergeRequests.git.merge(project, iid, options, {
      beforeTargetMoves: async (mr, mergeCommitSha) => {
        await this.db.$transaction(async (tx) => {
          const replaced = await tx.mergeTrainCar.findUnique({ where: { mergeRequestId: mr.id } });
          if (replaced) await tx.mergeTrainCar.delete({ where: { id: replaced.id } });
          await tx.mergeTrainCar.create({
            data: { mergeRequestId: mr.id, userId: viewer.id, targetProjectId: project.id, targetBranch: mr.targetBranch, status: 'skip_merged', mergedAt: new Date(), mergeCommitSha },
          });
          // A car it was on the train with leaves it: the cars behind run again without it.
          if (replaced && (ACTIVE_CAR_STATUSES as readonly string[]).includes(replaced.status)) await this.refresh.queue(project.id, mr.targetBranch, `skip:${mr.id}:${Date.now()}`, tx);
        });
      },
      targetNotMoved: async (mr) => {
        await this.db.mergeTrainCar.deleteMany({ where: { mergeRequestId: mr.id, status: 'skip_merged' } });
      },
    });
  }

  /**
   * The head pipeline of a merge request waiting to board finished (AddToMergeTrainWhenPipelineSucceedsService#process
   * and #abort, as its merge user): it boards when `merge_train` is available now, otherwise stops waiting with a note.
   */
  async pipelineFinished(project: ProjectRow, mr: MergeRequestRow, status: string): Promise<void> {
    const viewer = this.base.access.requireViewer();
    if (status === 'success' && (await this.available(project, mr, MERGE_TRAIN))) {
      const boarding = await this.mergeRequests.recordAutoMerge(project, mr, MERGE_TRAIN, (mr.mergeParams ?? {}) as Record<string, unknown>);
      await this.board(project, boarding, viewer.id);
      return;
    }
    await this.mergeRequests.cancelAutoMerge(project, mr);
    await this.note(mr, viewer.id, 'aborted automatic add to merge train because the pipeline did not succeed');
  }

  /** Whether `strategy` is available for the merge request now (AutoMerge::*Service#available_for?). */
  async available(project: ProjectRow, mr: MergeRequestRow, strategy: string): Promise<boolean> {
    // AutoMerge::BaseService#available_for?: open, not broken (no commits, a branch missing, conflicts).
    if (!mergeTrainsEnabled(project) || mr.state !== 'opened' || mr.draft || (await this.mergeRequests.git.broken(mr))) return false;
    const head = await this.pipelines.headForMergeRequest(mr);
    if (strategy === ADD_TO_MERGE_TRAIN) return !!head && (head.status === 'created' || (ACTIVE_STATUSES as readonly string[]).includes(head.status));
    if (!head || !isCompleted(head.status)) return false;
    this.mergeRequests.git.forget(mr.id);
    const status = await this.mergeRequests.git.detailedMergeStatus(mr);
    return status === 'mergeable';
  }

  /**
   * AutoMergeService#execute with a train strategy, for `POST …/merge_trains/merge_requests/:iid` and for a merge asked
   * with `merge_when_pipeline_succeeds` or a train strategy (mergeRequestAccept): the merge request is set to
   * auto-merge as the viewer and, with `merge_train`, boards the train (a car, a system note, the train refreshed in the
   * background). Null when the strategy is not available or `sha` is not the source head.
   */
  async enable(project: ProjectRow, mr: MergeRequestRow, strategy: string, options: MergeOptions): Promise<MergeRequestRow | null> {
    const viewer = this.base.access.requireViewer();
    if (!(await this.available(project, mr, strategy))) return null;
    const head = (await this.mergeRequests.git.state(mr)).headSha;
    if (options.sha && options.sha !== head) return null;
    if (options.squash != null && options.squash !== mr.squash) await this.db.mergeRequest.update({ where: { id: mr.id }, data: { squash: options.squash } });
    const enabled = await this.mergeRequests.recordAutoMerge(project, mr, strategy, { ...options, sha: null });
    if (strategy === ADD_TO_MERGE_TRAIN) {
      await this.note(mr, viewer.id, `enabled automatic add to merge train when the pipeline for ${head} succeeds`);
      return enabled;
    }
    await this.board(project, enabled, viewer.id);
    return this.mergeRequests.get(project, mr.iid);
  }

  /** A car for the merge request at the end of its target branch's train, its note, and the train refreshed. */
  async board(project: ProjectRow, mr: MergeRequestRow, userId: number): Promise<void> {
    await this.db.$transaction(async (tx) => {
      const existing = await tx.mergeTrainCar.findUnique({ where: { mergeRequestId: mr.id } });
      // A car left behind merged or skipped (the merge request reopened) gives way to the new one.
      if (existing) await tx.mergeTrainCar.delete({ where: { id: existing.id } });
      await tx.mergeTrainCar.create({ data: { mergeRequestId: mr.id, userId, targetProjectId: project.id, targetBranch: mr.targetBranch } });
      const ahead = await tx.mergeTrainCar.count({ where: { targetProjectId: project.id, targetBranch: mr.targetBranch, status: { in: [...ACTIVE_CAR_STATUSES] } } });
      const body = ahead <= 1 ? 'started a merge train' : `added this merge request to the merge train at position ${ahead}`;
      await this.notes.createSystemNote(tx, { type: MERGE_REQUEST, id: mr.id, projectId: mr.projectId, groupId: null }, userId, body, new Date());
      await this.refresh.queue(project.id, mr.targetBranch, `board:${mr.id}:${Date.now()}`, tx);
    });
  }

  /**
   * `DELETE /projects/:id/merge_trains/merge_requests/:iid` is not GitLab's; removing goes through cancelling the
   * auto-merge (AutoMerge::MergeTrainService#cancel) or GraphQL's mergeTrainsDeleteCar: the car is destroyed, its
   * note written, and the cars behind it get new pipelines.
   */
  async deleteCar(id: number): Promise<void> {
    const car = await this.byId(id);
    if (!car) throw notFound('Merge Train Car');
    const project = (await this.base.loaders.projects.byId.load(car.targetProjectId)) as ProjectRow;
    await this.base.access.authorize('delete_car', { project, userId: car.userId });
    if (!(ACTIVE_CAR_STATUSES as readonly string[]).includes(car.status)) throw badRequest('Merge request is not on a merge train');
    const viewer = this.base.access.requireViewer();
    const mr = await this.mergeRequests.byId(car.mergeRequestId);
    if (!mr) throw notFound('Merge Request');
    await this.leave(project, mr, viewer.id, 'removed this merge request from the merge train');
  }

  /**
   * A merge request leaves the train (cancelled, or aborted with its reason in the note): car destroyed, auto-merge
   * reset, note written, and the train refreshed so the cars behind it run against the train without it.
   */
  async leave(project: ProjectRow, mr: MergeRequestRow, authorId: number | null, note: string): Promise<void> {
    const car = await this.db.mergeTrainCar.findUnique({ where: { mergeRequestId: mr.id } });
    if (!car) return;
    const left = await this.db.$transaction(async (tx) => {
      const { count } = await tx.mergeTrainCar.deleteMany({ where: { id: car.id, status: { in: [...ACTIVE_CAR_STATUSES] } } });
      if (count === 0) return false;
      await this.resetAutoMerge(tx, mr);
      if (authorId !== null) await this.notes.createSystemNote(tx, { type: MERGE_REQUEST, id: mr.id, projectId: mr.projectId, groupId: null }, authorId, note, new Date());
      await this.refresh.queue(project.id, mr.targetBranch, `leave:${mr.id}:${Date.now()}`, tx);
      return true;
    });
    // Its train pipeline tests a train it is no longer on.
    if (left && car.pipelineId !== null) await this.cancelPipeline(project, car.pipelineId);
  }

  /**
   * Cancels a train pipeline that tests what the train no longer is, unless it finished; as the viewer, when they read
   * the project's trains (a Developer, who may cancel pipelines of the unprotected train refs).
   */
  async cancelPipeline(project: ProjectRow, pipelineId: number): Promise<void> {
    const pipeline = await this.pipelineRow(pipelineId);
    if (!pipeline || isCompleted(pipeline.status) || !(await this.base.access.can('read_merge_train', project))) return;
    await this.pipelines.cancel(project, pipeline.id);
  }

  /** Whether the merge request is on a train now (the MR module's cancel of an auto-merge asks before resetting it). */
  async onTrain(mr: MergeRequestRow): Promise<boolean> {
    return (await this.db.mergeTrainCar.count({ where: { mergeRequestId: mr.id, status: { in: [...ACTIVE_CAR_STATUSES] } } })) > 0;
  }

  /**
   * After a push (MergeRequests::RefreshService): merge requests on a train whose source branch it moved leave the train
   * (GitLab's abort, `source branch was updated`, noted as the pusher); a branch with a train is refreshed, its cars
   * rebuilt on the new head where they are stale.
   */
  async onPush(project: ProjectRow, push: { userId: number; ref: string; after: string }): Promise<void> {
    if (!push.ref.startsWith('refs/heads/') || /^0+$/.test(push.after)) return;
    const targetBranch = push.ref.slice('refs/heads/'.length);
    const fromBranch = await this.db.mergeTrainCar.findMany({
      where: { status: { in: [...ACTIVE_CAR_STATUSES] }, mergeRequest: { sourceProjectId: project.id, sourceBranch: targetBranch, state: 'opened' } },
      select: { mergeRequestId: true },
      take: TRAIN_LIST_LIMIT,
    });
    for (const { mergeRequestId } of fromBranch) {
      const mr = await this.mergeRequests.byId(mergeRequestId);
      if (mr) await this.leave(await this.mergeRequests.projectOf(mr), mr, push.userId, 'removed this merge request from the merge train because source branch was updated');
    }
    const active = await this.db.mergeTrainCar.count({ where: { targetProjectId: project.id, targetBranch, status: { in: [...ACTIVE_CAR_STATUSES] } } });
    if (active > 0) await this.refresh.queue(project.id, targetBranch, `push:${push.after}`);
  }

  private async note(mr: MergeRequestRow, authorId: number, body: string): Promise<void> {
    await this.db.$transaction((tx) => this.notes.createSystemNote(tx, { type: MERGE_REQUEST, id: mr.id, projectId: mr.projectId, groupId: null }, authorId, body, new Date()));
  }

  // ---- What the refresh (train.ts) reads and writes; no viewer checks: it runs in the background. ----

  /** The train's active cars, first first (GitLab's MergeTrains::Train#all_cars), at most `limit`. */
  activeCars(projectId: number, targetBranch: string, limit: number): Promise<CarRow[]> {
    return this.db.mergeTrainCar.findMany({ where: { targetProjectId: projectId, targetBranch, status: { in: [...ACTIVE_CAR_STATUSES] } }, orderBy: { id: 'asc' }, take: limit });
  }

  /**
   * The train's newest merges (its merged and skip_merged cars' commits on the target), by commit: for each, whether it
   * was skipped and, for a car merged from its train ref, that ref's commit (its pipeline's). What the refresh follows
   * back from the target's head to the commit its cars' pipelines were built on (train.ts).
   */
  async mergesBySha(projectId: number, targetBranch: string, limit: number): Promise<Map<string, { skipped: boolean; trainSha: string | null }>> {
    const cars = await this.db.mergeTrainCar.findMany({
      where: { targetProjectId: projectId, targetBranch, status: { in: ['merged', 'skip_merged'] }, mergeCommitSha: { not: null } },
      orderBy: { id: 'desc' },
      take: limit,
      select: { status: true, mergeCommitSha: true, pipeline: { select: { sha: true } } },
    });
    return new Map(cars.map((c) => [c.mergeCommitSha!, { skipped: c.status === 'skip_merged', trainSha: c.pipeline?.sha ?? null }]));
  }

  /** The car whose train pipeline this is. */
  carOfPipeline(pipelineId: number): Promise<CarRow | null> {
    return this.db.mergeTrainCar.findFirst({ where: { pipelineId } });
  }

  pipelineRow(id: number): Promise<PipelineRow | null> {
    return this.db.pipeline.findUnique({ where: { id } });
  }

  /** Moves a car on, if it is still as it was read (`from`): false when another refresh or a removal got there first. */
  async moveCar(car: CarRow, data: { status: string; pipelineId?: number | null; mergedAt?: Date; duration?: number; mergeCommitSha?: string }): Promise<boolean> {
    const { count } = await this.db.mergeTrainCar.updateMany({ where: { id: car.id, status: car.status, pipelineId: car.pipelineId }, data: { ...data, updatedAt: new Date() } });
    return count > 0;
  }

  /** Takes a car off without a trace (its merge request closed, or its user gone); the train's refresh goes on. */
  async dropCar(car: CarRow): Promise<void> {
    await this.db.mergeTrainCar.deleteMany({ where: { id: car.id } });
  }

  /**
   * The train's lease (GitLab's exclusive lease `merge_train:<project>-<branch>`): taken when free or expired, so one
   * refresh at a time moves a train, whichever replica runs it. False when another holds it.
   */
  async takeLease(projectId: number, targetBranch: string, ms: number): Promise<boolean> {
    const until = new Date(Date.now() + ms);
    const rows = await this.db.$queryRaw<unknown[]>`
      INSERT INTO "merge_train_leases" ("targetProjectId", "targetBranch", "lockedUntil") VALUES (${projectId}, ${targetBranch}, ${until})
      ON CONFLICT ("targetProjectId", "targetBranch") DO UPDATE SET "lockedUntil" = EXCLUDED."lockedUntil"
      WHERE "merge_train_leases"."lockedUntil" < now()
      RETURNING 1`;
    return rows.length > 0;
  }

  async releaseLease(projectId: number, targetBranch: string): Promise<void> {
    await this.db.mergeTrainLease.deleteMany({ where: { targetProjectId: projectId, targetBranch } });
  }
}
