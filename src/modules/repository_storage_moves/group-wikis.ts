/**
 * Group wiki repositories (GitLab's group_wiki_repositories): each group's bare wiki repository at
 * `@groups/ab/cd/<sha256 of the group id>.wiki.git` on the storage its row names. The groups service makes one with
 * each new group; a group older than that gets its row and repository on first use (a storage move).
 */
import type { App } from '../../context.js';
import type { PrismaClient } from '../../db/database.js';
import { groupWikiPath, type RepositorySubject } from '../../git/storages.js';

/** Where a group's wiki repository is, for the storages. */
export function groupWikiSubject(groupId: number, shardName: string): RepositorySubject {
  return { id: groupId, repositoryStorage: shardName, diskPath: groupWikiPath(groupId) };
}

/**
 * The group's wiki repository: its row (made on the storage GitLab would pick for a new repository, by weight,
 * unless one exists) and its bare repository on disk. Returns the row.
 */
export async function ensureGroupWiki(db: PrismaClient, app: Pick<App, 'repositories'>, groupId: number): Promise<{ shardName: string; readOnly: boolean }> {
  await db.$executeRaw`
    INSERT INTO "group_wiki_repositories" ("groupId", "shardName", "updatedAt") VALUES (${groupId}::int, ${app.repositories.pick()}::text, now())
    ON CONFLICT ("groupId") DO NOTHING`;
  const [row] = await db.$queryRaw<{ shardName: string; readOnly: boolean }[]>`
    SELECT "shardName", "readOnly" FROM "group_wiki_repositories" WHERE "groupId" = ${groupId}::int`;
  if (row && app.repositories.has(row.shardName)) await app.repositories.ensure(groupWikiSubject(groupId, row.shardName), 'main');
  return row;
}
