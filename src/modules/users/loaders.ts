/** Batched user reads. */
import type { PrismaClient } from '../../db/database.js';
import { byKeyLoader } from '../../db/loader.js';

export function createUserLoaders(db: PrismaClient) {
  return {
    byId: byKeyLoader((ids: readonly number[]) => db.user.findMany({ where: { id: { in: [...ids] } } }), (u) => u.id),
    /** Users' statuses, by user ID. */
    statusById: byKeyLoader((ids: readonly number[]) => db.userStatus.findMany({ where: { userId: { in: [...ids] } } }), (s) => s.userId),
  };
}

export type UserLoaders = ReturnType<typeof createUserLoaders>;
