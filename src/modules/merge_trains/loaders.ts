/** Batched reads of merge train cars: a merge request's car, for lists of merge requests, and the merge requests of listed cars. */
import DataLoader from 'dataloader';
import type { PrismaClient } from '../../db/database.js';
import { byKeyLoader } from '../../db/loader.js';
import { withPeople } from '../merge_requests/service.js';
import { ACTIVE_CAR_STATUSES } from './service.js';

export function createMergeTrainLoaders(db: PrismaClient) {
  return {
    /** Each merge request's car (MergeRequest#merge_train_car), or null. */
    /**
     * The merge requests of listed cars, as the merge request module reads them: a car list is read by Developers of the
     * project (read_merge_train), who read its merge requests.
     */
    mergeRequestById: byKeyLoader((ids: readonly number[]) => db.mergeRequest.findMany({ where: { id: { in: [...ids] } }, include: withPeople }), (mr) => mr.id),
    /**
     * Each active car's place on its train (MergeTrains::Car#index, 0: first), null for a car that left it: the listed
     * cars' trains read in one query.
     */
    activeIndex: new DataLoader<{ id: number; targetProjectId: number; targetBranch: string; status: string }, number | null, number>(
      async (cars) => {
        const trains = [...new Map(cars.map((c) => [`${c.targetProjectId}\0${c.targetBranch}`, { targetProjectId: c.targetProjectId, targetBranch: c.targetBranch }])).values()];
        const active = await db.mergeTrainCar.findMany({ where: { OR: trains, status: { in: [...ACTIVE_CAR_STATUSES] } }, orderBy: { id: 'asc' }, select: { id: true, targetProjectId: true, targetBranch: true } });
        const seen = new Map<string, number>();
        const index = new Map<number, number>();
        for (const car of active) {
          const train = `${car.targetProjectId}\0${car.targetBranch}`;
          const place = seen.get(train) ?? 0;
          index.set(car.id, place);
          seen.set(train, place + 1);
        }
        return cars.map((c) => index.get(c.id) ?? null);
      },
      { cacheKeyFn: (car) => car.id },
    ),
    carByMergeRequest: byKeyLoader((ids: readonly number[]) => db.mergeTrainCar.findMany({ where: { mergeRequestId: { in: [...ids] } } }), (car) => car.mergeRequestId),
  };
}

export type MergeTrainLoaders = ReturnType<typeof createMergeTrainLoaders>;
