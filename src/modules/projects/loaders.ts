/** Batched project reads. */
import type { PrismaClient } from '../../db/database.js';
import { byKeyLoader } from '../../db/loader.js';

export function createProjectLoaders(db: PrismaClient) {
  return {
    byId: byKeyLoader((ids: readonly number[]) => db.project.findMany({ where: { id: { in: [...ids] } } }), (p) => p.id),
  };
}
