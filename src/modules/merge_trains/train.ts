/**
 * A merge train moving on (EE's MergeTrains::RefreshService with RefreshMergeRequestService for each car), in the
 * background: its cars in order, each with a train ref (refs/merge-requests/<iid>/train) that merges its source head
 * into the train ref of the car ahead (the target branch head for the first), and a pipeline on it. A car whose
 * pipeline no longer runs on what is ahead of it (a car left, the target moved, its source moved) gets a new ref and
 * pipeline; the first car whose pipeline succeeded merges, the target branch fast-forwarded to its train ref's commit
 * (GitLab's merge from the train ref) and its source branch removed as an ordinary merge removes it; a car whose
 * pipeline did not succeed, or whose ref cannot be built, leaves the train with a system note, and the cars behind it
 * are rebuilt in the same pass.
 */
import type { RawQuerier } from '../../db/database.js';
import type { Repository } from '../../git/repository.js';
import { ZERO_SHA } from '../../git/repository.js';
import type { Services } from '../module.js';
import { withNewline, type MergeOptions } from '../merge_requests/git.js';
import type { MergeRequestRow } from '../merge_requests/service.js';
import type { PipelineRow } from '../pipelines/service.js';
import { mergeRequestTrainRef } from '../pipelines/predefined.js';
import { isCompleted } from '../pipelines/status.js';
import type { ProjectRow } from '../projects/service.js';
import type { CarRow, MergeTrainsService } from './service.js';

export const REFRESH_JOB = 'merge_trains.refresh';

/** GitLab's limit of a train's parallel pipelines (MergeTrains::Train::DEFAULT_CONCURRENCY): cars beyond wait. */
const TRAIN_CONCURRENCY = 20;
/** Cars one pass looks at (the train's active cars are few; a bound all the same). */
const PASS_LIMIT = 100;
/** How long a pass may hold its train's lease; one still running then is overtaken. */
const LEASE_MS = 60_000;
/** The train's merges a pass follows back from the target's head at most (GitLab's sha_exists_in_history? limit). */
const HISTORY_LIMIT = 20;
/** A pass that found the train's lease held runs again this much later. */
const RETRY_MS = 1000;

interface RefreshPayload {
  projectId: number;
  targetBranch: string;
}

/** The services of a car's user (null when the user is gone): every step of a car is done as its user. */
export type ServicesOf = (userId: number) => Promise<Services | null>;

const abortNote = (reason: string) => `removed this merge request from the merge train because ${reason}`;

export class MergeTrainRefresh {
  constructor(private readonly trains: MergeTrainsService) {}

  /** Queues a pass over the train (on commit of `tx` when given); `key` makes the enqueue idempotent. */
  async queue(projectId: number, targetBranch: string, key: string, tx?: RawQuerier, runAt?: Date): Promise<void> {
    const payload: RefreshPayload = { projectId, targetBranch };
    await this.trains.base.app.jobs.enqueue(REFRESH_JOB, payload, { uniqueKey: `${REFRESH_JOB}:${projectId}:${targetBranch}:${key}`, ...(runAt ? { runAt } : {}) }, tx);
  }

  /** One pass over the train, under its lease; queued again shortly when another pass holds it. */
  async run(payload: unknown, servicesOf: ServicesOf): Promise<void> {
    const { projectId, targetBranch } = payload as RefreshPayload;
    if (!(await this.trains.takeLease(projectId, targetBranch, LEASE_MS))) {
      await this.queue(projectId, targetBranch, `retry:${Date.now()}:${Math.random()}`, undefined, new Date(Date.now() + RETRY_MS));
      return;
    }
    try {
      await this.pass(projectId, targetBranch, servicesOf);
    } finally {
      await this.trains.releaseLease(projectId, targetBranch);
    }
  }

  private async pass(projectId: number, targetBranch: string, servicesOf: ServicesOf): Promise<void> {
    const project = await this.trains.base.loaders.projects.byId.load(projectId);
    if (!project || project.pendingDelete) return;
    const repository = await this.trains.repositories.open(project);
    let target = await repository.resolve(`refs/heads/${targetBranch}^{commit}`);
    if (!target) return;
    const cars = await this.trains.activeCars(projectId, targetBranch, PASS_LIMIT);
    // What the next car's train ref is built on, and how many cars with pipelines are ahead of it.
    let previous = await this.base(projectId, targetBranch, repository, target, cars);
    let ahead = 0;
    for (const car of cars) {
      const services = car.userId === null ? null : await servicesOf(car.userId);
      const mr = services && (await services.merge_requests.byId(car.mergeRequestId));
      if (!services || !mr || mr.state !== 'opened') {
        // Merged around the train (skip_merged), or closed, or nobody left to act for it: no place on the train.
        if (mr?.state === 'merged') await this.trains.moveCar(car, { status: 'skip_merged' });
        else await this.trains.dropCar(car);
        continue;
      }
      const trains = services.merge_trains;
      const source = await services.merge_requests.git.fetchRef(project, mr);
      if (!source) {
        await trains.leave(project, mr, car.userId, abortNote('the source branch was deleted'));
        continue;
      }
      const pipeline = car.pipelineId === null ? null : await this.trains.pipelineRow(car.pipelineId);
      const current = !!pipeline && pipeline.targetSha === previous && pipeline.sourceSha === source && (await repository.resolve(mergeRequestTrainRef(mr.iid))) === pipeline.sha;
      if (!pipeline || !current) {
        if (ahead >= TRAIN_CONCURRENCY) break;
        if (pipeline) await trains.cancelPipeline(project, pipeline.id);
        const commit = await this.buildRef(services, project, repository, mr, previous, source);
        if (!commit) {
          await trains.leave(project, mr, car.userId, abortNote('the merge request has conflicts with the merge train'));
          continue;
        }
        const created = await services.pipelines.createForMergeTrain(project, mr, car.userId!, { ref: mergeRequestTrainRef(mr.iid), commit, sourceSha: source, targetSha: previous });
        if ('error' in created) {
          await trains.leave(project, mr, car.userId, abortNote(`the pipeline could not be created: ${created.error}`));
          continue;
        }
        await this.trains.moveCar(car, { status: 'fresh', pipelineId: created.pipeline.id });
        previous = commit;
        ahead += 1;
        continue;
      }
      if (pipeline.status === 'success' && ahead === 0) {
        const merged = await this.merge(services, project, repository, mr, car, pipeline, target);
        if (merged === 'conflict') {
          await trains.leave(project, mr, car.userId, abortNote('the merge request has conflicts with the merge train'));
          continue;
        }
        if (!merged) {
          // The target branch moved under the merge: the next pass rebuilds the train on it.
          await this.queue(projectId, targetBranch, `moved:${car.id}:${Date.now()}`);
          return;
        }
        target = merged;
        previous = pipeline.sha;
        continue;
      }
      if (isCompleted(pipeline.status) && pipeline.status !== 'success') {
        await trains.leave(project, mr, car.userId, abortNote('the pipeline did not succeed'));
        continue;
      }
      previous = pipeline.sha;
      ahead += 1;
    }
  }

  /**
   * Writes the car's train ref: its source head merged into `previous` (over a squashed commit when the merge request
   * squashes), with the merge's commit message, as its user. Null when they conflict.
   */
  private async buildRef(services: Services, project: ProjectRow, repository: Repository, mr: MergeRequestRow, previous: string, source: string): Promise<string | null> {
    const tree = await repository.mergeTree(previous, source);
    if (!tree) return null;
    const users = this.trains.base.loaders.users;
    const user = services.merge_trains.base.viewer && (await users.byId.load(services.merge_trains.base.viewer.id));
    if (!user) return null;
    const committer = { name: user.name, email: user.email };
    const options = (mr.mergeParams ?? {}) as MergeOptions;
    let second = source;
    if (options.squash ?? mr.squash) {
      const author = (mr.authorId !== null && (await users.byId.load(mr.authorId))) || user;
      second = await repository.commitTree(tree, [previous], withNewline(options.squashCommitMessage || mr.title), { name: author.name, email: author.email }, committer);
    }
    const message = options.mergeCommitMessage || (await services.merge_requests.git.defaultMessage(project, mr));
    const commit = await repository.commitTree(tree, [previous, second], withNewline(message), committer, committer);
    const ref = mergeRequestTrainRef(mr.iid);
    const current = await repository.resolve(ref);
    if (!(await repository.updateRef(ref, commit, current ?? ZERO_SHA))) return null;
    return commit;
  }

  /**
   * The first car merges (MergeTrains::Car#merge with the train ref): the target branch fast-forwarded from `target` to
   * the train ref's commit, only if it is still there; the merge request recorded merged as the car's user, the move
   * recorded as their push, and the car completed. False when the target branch moved meanwhile.
   */
  private async merge(services: Services, project: ProjectRow, repository: Repository, mr: MergeRequestRow, car: CarRow, pipeline: PipelineRow, target: string): Promise<string | 'conflict' | null> {
    if (!pipeline.sourceSha || car.userId === null) return null;
    const branchRef = `refs/heads/${car.targetBranch}`;
    const commit = await repository.commit(pipeline.sha);
    const second = commit?.parentIds[1] ?? null;
    if (!commit || !second) return null;
    // Built on the target as it is: fast-forwarded. Built on it before merges that skipped the train (or a car merged
    // so): a merge of the train commit into the target as it is now, as GitLab merges a car then.
    let mergeCommitSha = pipeline.sha;
    if (pipeline.targetSha !== target) {
      const tree = await repository.mergeTree(target, pipeline.sha);
      if (!tree) return 'conflict';
      const user = await this.trains.base.loaders.users.byId.load(car.userId);
      if (!user) return null;
      const committer = { name: user.name, email: user.email };
      mergeCommitSha = await repository.commitTree(tree, [target, second], withNewline(commit.message), committer, committer);
    }
    if (!(await repository.updateRef(branchRef, mergeCommitSha, target))) return null;
    const squashCommitSha = second !== pipeline.sourceSha ? second : null;
    const baseSha = await repository.mergeBase(target, pipeline.sourceSha);
    const merged = await services.merge_requests.recordMerged(project, mr, { mergeCommitSha, squashCommitSha, headSha: pipeline.sourceSha, baseSha, startSha: target });
    const now = new Date();
    await this.trains.moveCar(car, { status: 'merged', mergedAt: now, duration: Math.round((now.getTime() - car.createdAt.getTime()) / 1000), mergeCommitSha });
    // As an ordinary merge: the source branch removed when the merge asked it or the merge request forces it.
    const removed = await services.merge_requests.git.removeSourceBranch(project, mr, (mr.mergeParams ?? {}) as MergeOptions, repository);
    await services.merge_requests.git.recordMergePush(project, car.userId, { ref: branchRef, before: target, after: mergeCommitSha }, removed);
    if (car.targetBranch === project.defaultBranch) await services.merge_requests.closeIssuesOnMerge(project, merged);
    return mergeCommitSha;
  }

  /**
   * What the first car's train ref is built on: the target's head, or, when the first car's pipeline was built on an
   * older head and everything the target gained since is the train's own merges (merges that skipped the train, each
   * followed to its first parent; a car merged by a merge commit, followed to the train commit it merged: GitLab's
   * MergeTrains::Train#sha_exists_in_history?), that older head: the cars' pipelines stay, not restarted.
   */
  private async base(projectId: number, targetBranch: string, repository: Repository, target: string, cars: readonly CarRow[]): Promise<string> {
    const first = cars[0]?.pipelineId != null ? await this.trains.pipelineRow(cars[0].pipelineId) : null;
    const built = first?.targetSha;
    if (!built || built === target) return target;
    const merges = await this.trains.mergesBySha(projectId, targetBranch, HISTORY_LIMIT);
    let sha: string = target;
    for (let step = 0; step < HISTORY_LIMIT; step++) {
      const merge = merges.get(sha);
      if (!merge) return target;
      const next = merge.skipped ? (await repository.commit(sha))?.parentIds[0] : merge.trainSha;
      if (!next || next === sha) return target;
      if (next === built) return built;
      sha = next;
    }
    return target;
  }
}
