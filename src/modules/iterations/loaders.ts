/** Batched reads of iterations and cadences by id (an issue's iteration, an iteration's cadence). */
import type { PrismaClient } from '../../db/database.js';
import { byKeyLoader } from '../../db/loader.js';

export function createIterationLoaders(db: PrismaClient) {
  return {
    byId: byKeyLoader((ids: readonly number[]) => db.iteration.findMany({ where: { id: { in: [...ids] } } }), (it) => it.id),
    cadenceById: byKeyLoader((ids: readonly number[]) => db.iterationCadence.findMany({ where: { id: { in: [...ids] } } }), (c) => c.id),
  };
}

export type IterationLoaders = ReturnType<typeof createIterationLoaders>;
