/** Batched reads of merge train cars: a merge request's car, for lists of merge requests. */
import type { PrismaClient } from '../../db/database.js';
import { byKeyLoader } from '../../db/loader.js';

export function createMergeTrainLoaders(db: PrismaClient) {
  return {
    /** Each merge request's car (MergeRequest#merge_train_car), or null. */
    carByMergeRequest: byKeyLoader((ids: readonly number[]) => db.mergeTrainCar.findMany({ where: { mergeRequestId: { in: [...ids] } } }), (car) => car.mergeRequestId),
  };
}

export type MergeTrainLoaders = ReturnType<typeof createMergeTrainLoaders>;
