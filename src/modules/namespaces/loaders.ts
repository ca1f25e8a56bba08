/** Batched namespace reads (personal namespaces and groups share the table, as in GitLab). */
import type { PrismaClient } from '../../db/database.js';
import { byKeyLoader } from '../../db/loader.js';

export function createNamespaceLoaders(db: PrismaClient) {
  return {
    byId: byKeyLoader((ids: readonly number[]) => db.namespace.findMany({ where: { id: { in: [...ids] } } }), (n) => n.id),
    personalByOwnerId: byKeyLoader(
      (ids: readonly number[]) => db.namespace.findMany({ where: { ownerId: { in: [...ids] } } }),
      (n) => n.ownerId ?? 0,
    ),
  };
}

export type NamespaceLoaders = ReturnType<typeof createNamespaceLoaders>;
