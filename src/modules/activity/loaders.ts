/** Batched activity-event reads. */
import type { PrismaClient } from '../../db/database.js';
import { byKeyLoader } from '../../db/loader.js';

export function createActivityLoaders(db: PrismaClient) {
  return {
    byId: byKeyLoader((ids: readonly number[]) => db.event.findMany({ where: { id: { in: [...ids] } } }), (e) => e.id),
  };
}
