/** Batched reads of environments, their last deployments and deployments' jobs, so a page costs a query per kind. */
import DataLoader from 'dataloader';
import type { Prisma, PrismaClient } from '../../db/database.js';
import { byKeyLoader } from '../../db/loader.js';

type DeploymentRow = Prisma.DeploymentGetPayload<object>;

export function createEnvironmentLoaders(db: PrismaClient) {
  return {
    byId: byKeyLoader((ids: readonly number[]) => db.environment.findMany({ where: { id: { in: [...ids] } } }), (e) => e.id),
    jobById: byKeyLoader((ids: readonly number[]) => db.ciJob.findMany({ where: { id: { in: [...ids] } } }), (j) => j.id),
    /** The newest deployment of each environment with a status, in one query for all the keys. */
    lastDeployment: new DataLoader<{ environmentId: number; status: string }, DeploymentRow | null, string>(
      async (keys) => {
        const rows = await db.$queryRaw<{ id: number }[]>`
          SELECT DISTINCT ON ("environmentId", "status") "id" FROM "deployments"
          WHERE ("environmentId", "status") IN (SELECT * FROM unnest(${keys.map((k) => k.environmentId)}::int[], ${keys.map((k) => k.status)}::text[]))
          ORDER BY "environmentId", "status", "id" DESC`;
        const found = rows.length ? await db.deployment.findMany({ where: { id: { in: rows.map((r) => r.id) } } }) : [];
        return keys.map((k) => found.find((d) => d.environmentId === k.environmentId && d.status === k.status) ?? null);
      },
      { cacheKeyFn: (k) => `${k.environmentId}:${k.status}` },
    ),
  };
}

export type EnvironmentLoaders = ReturnType<typeof createEnvironmentLoaders>;
