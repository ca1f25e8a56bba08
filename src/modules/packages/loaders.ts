/** Batched reads of the package registry: packages by id, PyPI packages' metadata, and each package's pipelines, one query a page. */
import DataLoader from 'dataloader';
import type { PrismaClient } from '../../db/database.js';
import { byKeyLoader } from '../../db/loader.js';

export function createPackageLoaders(db: PrismaClient) {
  return {
    byId: byKeyLoader((ids: readonly number[]) => db.package.findMany({ where: { id: { in: [...ids] } } }), (p) => p.id),
    /** Each PyPI package's metadata, by package id. */
    pypiMetadata: byKeyLoader((ids: readonly number[]) => db.packagePypiMetadatum.findMany({ where: { packageId: { in: [...ids] } } }), (m) => m.packageId),
    /** The pipelines that published each package (GitLab's build infos), newest first. */
    pipelineIds: new DataLoader<number, number[]>(async (packageIds) => {
      const rows = await db.packageBuildInfo.findMany({ where: { packageId: { in: [...packageIds] } }, orderBy: { pipelineId: 'desc' } });
      return packageIds.map((id) => rows.filter((r) => r.packageId === id).map((r) => r.pipelineId));
    }),
  };
}

export type PackageLoaders = ReturnType<typeof createPackageLoaders>;
