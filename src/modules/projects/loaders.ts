/** Batched project reads. */
import DataLoader from 'dataloader';
import type { PrismaClient } from '../../db/database.js';
import { byKeyLoader } from '../../db/loader.js';

export function createProjectLoaders(db: PrismaClient) {
  return {
    byId: byKeyLoader((ids: readonly number[]) => db.project.findMany({ where: { id: { in: [...ids] } } }), (p) => p.id),
    /** Projects in each namespace and its descendants. */
    countInNamespaceTree: new DataLoader<number, number>(async (ids) => {
      const rows = await db.$queryRaw<{ ancestor: number; count: bigint }[]>`
        SELECT a.ancestor, count(*) AS count
        FROM "projects" p
        JOIN "namespaces" n ON n."id" = p."namespaceId"
        CROSS JOIN LATERAL unnest(n."traversalIds") AS a(ancestor)
        WHERE a.ancestor = ANY(${[...ids]}::int[])
        GROUP BY a.ancestor`;
      const counts = new Map(rows.map((r) => [Number(r.ancestor), Number(r.count)]));
      return ids.map((id) => counts.get(id) ?? 0);
    }),
  };
}
