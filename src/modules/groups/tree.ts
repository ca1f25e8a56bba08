/** Moving a group's tree: what a rename and a transfer change below the group, in the caller's transaction. */
import type { Prisma } from '../../db/database.js';
import { VISIBILITY_RANK, type Visibility } from '../namespaces/paths.js';
import { NamespacesService, type NamespaceRow } from '../namespaces/service.js';

/**
 * Moves a group and everything below it to a new name, path and (for a transfer) parent, in the caller's
 * transaction: full paths and names of the group, its descendants and their projects, traversal ids, and what
 * GitLab's transfer adjusts below a new parent (visibility no higher than the parent's, its share lock).
 */
export async function moveGroupTree(
  tx: Prisma.TransactionClient,
  group: NamespaceRow,
  target: { name: string; path: string; fullPath: string; fullName: string; parent?: NamespaceRow | null },
): Promise<void> {
  const oldPath = group.fullPath.length + 1;
  const oldName = group.fullName.length + 1;
  // Old paths of the group, its subgroups and their projects keep answering (redirect routes).
  await NamespacesService.renameRoutes(tx, group.id, group.fullPath, target.fullPath, async () => {
    await tx.$executeRaw`
      UPDATE "namespaces" SET "fullPath" = ${target.fullPath} || substr("fullPath", ${oldPath}), "fullName" = ${target.fullName} || substr("fullName", ${oldName})
      WHERE ${group.id} = ANY("traversalIds") AND "id" <> ${group.id}`;
    await tx.$executeRaw`
      UPDATE "projects" SET "fullPath" = ${target.fullPath} || substr("fullPath", ${oldPath})
      WHERE "namespaceId" IN (SELECT "id" FROM "namespaces" WHERE ${group.id} = ANY("traversalIds"))`;
    await tx.namespace.update({ where: { id: group.id }, data: { name: target.name, path: target.path, fullPath: target.fullPath, fullName: target.fullName }, select: { id: true } });
  });
  if (target.parent === undefined) return;
  const parent = target.parent;
  const prefix = parent?.traversalIds ?? [];
  await tx.namespace.update({ where: { id: group.id }, data: { parentId: parent?.id ?? null }, select: { id: true } });
  await tx.$executeRaw`
    UPDATE "namespaces" SET "traversalIds" = ${prefix}::int[] || "traversalIds"[${group.traversalIds.length}:]
    WHERE ${group.id} = ANY("traversalIds")`;
  if (!parent) return;
  const rank = VISIBILITY_RANK[parent.visibility as Visibility];
  const higher = { in: (Object.keys(VISIBILITY_RANK) as Visibility[]).filter((v) => VISIBILITY_RANK[v] > rank) };
  await tx.namespace.updateMany({ where: { traversalIds: { has: group.id }, visibility: higher }, data: { visibility: parent.visibility } });
  await tx.project.updateMany({ where: { namespace: { traversalIds: { has: group.id } }, visibility: higher }, data: { visibility: parent.visibility } });
  if (parent.shareWithGroupLock) await tx.namespace.updateMany({ where: { traversalIds: { has: group.id } }, data: { shareWithGroupLock: true } });
}
