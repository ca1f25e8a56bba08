/** Batched reads of merge train cars: a merge request's car, for lists of merge requests, and the merge requests of listed cars. */
import type { PrismaClient } from '../../db/database.js';
import { byKeyLoader } from '../../db/loader.js';
import { withPeople } from '../merge_requests/service.js';

export function createMergeTrainLoaders(db: PrismaClient) {
  return {
    /** Each merge request's car (MergeRequest#merge_train_car), or null. */
    /**
     * The merge requests of listed cars, as the merge request module reads them: a car list is read by Developers of the
     * project (read_merge_train), who read its merge requests.
     */
    mergeRequestById: byKeyLoader((ids: readonly number[]) => db.mergeRequest.findMany({ where: { id: { in: [...ids] } }, include: withPeople }), (mr) => mr.id),
    carByMergeRequest: byKeyLoader((ids: readonly number[]) => db.mergeTrainCar.findMany({ where: { mergeRequestId: { in: [...ids] } } }), (car) => car.mergeRequestId),
  };
}

export type MergeTrainLoaders = ReturnType<typeof createMergeTrainLoaders>;
