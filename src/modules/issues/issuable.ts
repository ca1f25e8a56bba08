/**
 * What issues and merge requests do alike when they are written (GitLab's Issuable concern and IssuableBaseService):
 * iids decided one at a time per project, the milestone a project may use, and the users that exist among those named.
 */
import type { Prisma, PrismaClient } from '../../db/database.js';
import type { ProjectRow } from '../projects/service.js';

/** Locks the project's row, so its issuables' iids are decided one at a time. */
export async function lockForIid(tx: Prisma.TransactionClient, projectId: number): Promise<void> {
  await tx.$queryRaw`SELECT "id" FROM "projects" WHERE "id" = ${projectId} FOR UPDATE`;
}

/** A milestone the project may use (its own or one of its groups'); null for none, as GitLab drops an unknown one. */
export async function usableMilestone(db: PrismaClient, project: ProjectRow, id: number | null | undefined): Promise<number | null> {
  if (!id) return null;
  const groups = project.namespace.kind === 'group' ? project.namespace.traversalIds : [];
  const milestone = await db.milestone.findFirst({ where: { id, OR: [{ projectId: project.id }, { groupId: { in: groups } }] }, select: { id: true } });
  return milestone?.id ?? null;
}

/** The users among `ids` that exist, in the order given, each once (GitLab drops unknown assignees and reviewers). */
export async function existingUsers(db: PrismaClient, ids: readonly number[]): Promise<number[]> {
  const wanted = [...new Set(ids.filter((id) => id > 0))];
  if (!wanted.length) return [];
  const users = await db.user.findMany({ where: { id: { in: wanted } }, select: { id: true } });
  const found = new Set(users.map((u) => u.id));
  return wanted.filter((id) => found.has(id));
}
