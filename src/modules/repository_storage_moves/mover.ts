/**
 * Carrying out one storage move, as GitLab's UpdateRepositoryStorageMethods does, resumable at every step: the job
 * reads the move's state and goes on from it, so a run the queue repeats after a crash (a lapsed lease) finishes
 * what the first began, and a run of a move already done does nothing.
 *
 * scheduled → started: claimed. started → replicated: the repository copied to the destination storage with git's
 * own transfer (`git fetch` of every ref into a bare repository), checked (the same HEAD, refs and reachable
 * objects at both ends, `git fsck` clean at the destination), then, in one transaction, the container switched to
 * the destination and made writable again. replicated → finished: the source copy removed. A failure before the
 * switch is `failed` (the repository writable again on its source; a new move may be scheduled, as GitLab's
 * administrators reschedule), after it `cleanup_failed` (the data is on the destination; only the old copy stayed).
 */
import type { App } from '../../context.js';
import type { PrismaClient } from '../../db/database.js';
import type { RepositorySubject } from '../../git/storages.js';
import { SNIPPET_BRANCH, snippetRepositorySubject } from '../snippets/service.js';
import { groupWikiSubject } from './group-wikis.js';
import { KINDS, MOVE_UPDATED, containerOf, moveById, type MoveMessage, type MoveRow, type MoveState, type MoveType, type Statements } from './service.js';

/** Where a running move may be held (tests only: see `holdStorageMoves`). */
export type MovePoint = 'started' | 'replicated';
type Hold = (point: MovePoint, type: MoveType, move: MoveRow) => Promise<void>;

/** Holds registered by tests, per App; a server without one never waits. */
const HOLDS = new WeakMap<object, Hold>();

/**
 * For tests: `hold` is awaited when a move of this App has just started (repository read-only, nothing copied yet)
 * and when it has just been switched to its destination (the source not yet removed), so a test can look at the
 * move mid-way without timing. Returns what removes it.
 */
export function holdStorageMoves(app: App, hold: Hold): () => void {
  HOLDS.set(app, hold);
  return () => HOLDS.delete(app);
}

/** The repository of a move's container on `storage`, or null when the container is gone. */
async function repositoryOn(db: PrismaClient, type: MoveType, containerId: number, storage: string): Promise<{ subject: RepositorySubject; defaultBranch: string } | null> {
  if (type === 'project') {
    const project = await db.project.findUnique({ where: { id: containerId }, select: { id: true, defaultBranch: true } });
    return project && { subject: { id: project.id, repositoryStorage: storage }, defaultBranch: project.defaultBranch };
  }
  if (type === 'snippet') {
    const snippet = await db.snippet.findUnique({ where: { id: containerId }, select: { id: true } });
    return snippet && { subject: subjectOf(type, containerId, storage), defaultBranch: SNIPPET_BRANCH };
  }
  const wiki = await db.groupWikiRepository.findUnique({ where: { groupId: containerId }, select: { groupId: true } });
  return wiki && { subject: groupWikiSubject(containerId, storage), defaultBranch: 'main' };
}

/** Where the repository of a move's container is on `storage`. */
function subjectOf(type: MoveType, containerId: number, storage: string): RepositorySubject {
  if (type === 'group') return groupWikiSubject(containerId, storage);
  if (type === 'snippet') return snippetRepositorySubject({ id: containerId, repositoryStorage: storage });
  return { id: containerId, repositoryStorage: storage };
}

/** Moves the state from one of `from` to `to` (with what else `set` names), announcing it; null when it was not in `from`. */
async function transition(db: Statements, app: Pick<App, 'bus'>, type: MoveType, id: number, from: readonly MoveState[], to: MoveState, errorMessage?: string): Promise<MoveRow | null> {
  const [move] = await db.$queryRaw<MoveRow[]>`
    UPDATE ${KINDS[type].moves} SET "state" = ${to}::text, "errorMessage" = COALESCE(${errorMessage ?? null}::text, "errorMessage"), "updatedAt" = now()
    WHERE "id" = ${id}::int AND "state" = ANY(${from as MoveState[]}::text[])
    RETURNING *`;
  if (move) await app.bus.publish(MOVE_UPDATED, { type, id, state: to } satisfies MoveMessage, db);
  return move ?? null;
}

function describe(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).slice(0, 1000);
}

/** Runs the move from wherever it stands to its end. */
export async function runMove(app: App, db: PrismaClient, type: MoveType, id: number): Promise<void> {
  const kind = KINDS[type];
  let move = await moveById(db, type, id);
  if (!move) return;
  if (move.state === 'scheduled') move = (await transition(db, app, type, id, ['scheduled'], 'started')) ?? (await moveById(db, type, id));
  if (!move) return;
  const containerId = containerOf(move);

  if (move.state === 'started') {
    await HOLDS.get(app)?.('started', type, move);
    try {
      const source = await repositoryOn(db, type, containerId, move.sourceStorageName);
      if (!source) return;
      // A repository never used yet is made first, so the destination gets one as well.
      await app.repositories.ensure(source.subject, source.defaultBranch);
      // A push that passed its checks just before the repository became read-only may still be moving refs at the
      // source: copied again until the source's refs held still over a copy (GitLab waits for in-flight pushes, 3 times).
      for (let attempt = 1; ; attempt++) {
        const copied = await app.repositories.replicate(source.subject, move.destinationStorageName);
        if (!copied) break;
        const destination = { ...source.subject, repositoryStorage: move.destinationStorageName };
        const [from, to] = await Promise.all([app.repositories.inventory(source.subject), app.repositories.inventory(destination)]);
        const settled = (await app.repositories.inventory(source.subject, { objects: false })).refs === from.refs;
        if (from.head === to.head && from.refs === to.refs && settled) {
          if (from.objects !== to.objects) throw new Error('The copy on the destination storage does not have the objects of the source');
          const problems = await app.repositories.fsck(destination);
          if (problems) throw new Error(`git fsck of the copy on the destination storage failed: ${problems}`);
          break;
        }
        if (attempt === 3) throw new Error(`Timeout waiting for ${type} repository pushes`);
      }
    } catch (error) {
      await db.$transaction(async (tx) => {
        const failed = await transition(tx, app, type, id, ['scheduled', 'started'], 'failed', describe(error));
        if (failed) await tx.$executeRaw`UPDATE ${kind.containers} SET ${kind.readOnly} = false WHERE ${kind.key} = ${containerId}::int`;
      });
      return;
    }
    move = await db.$transaction(async (tx) => {
      // The container as it is now, locked: switched only from the storage the move copied.
      const [container] = await tx.$queryRaw<{ storage: string }[]>`
        SELECT ${kind.storage} AS "storage" FROM ${kind.containers} WHERE ${kind.key} = ${containerId}::int FOR UPDATE`;
      if (!container) return null;
      const replicated = await transition(tx, app, type, id, ['started'], 'replicated');
      if (!replicated) return moveById(tx, type, id);
      if (type === 'project') {
        await tx.$executeRaw`UPDATE "projects" SET "repositoryStorage" = ${replicated.destinationStorageName}::text, "repositoryReadOnly" = false, "updatedAt" = now() WHERE "id" = ${containerId}::int`;
      } else if (type === 'snippet') {
        await tx.$executeRaw`UPDATE "snippets" SET "repositoryStorage" = ${replicated.destinationStorageName}::text, "repositoryReadOnly" = false WHERE "id" = ${containerId}::int`;
      } else {
        await tx.$executeRaw`UPDATE "group_wiki_repositories" SET "shardName" = ${replicated.destinationStorageName}::text, "readOnly" = false, "updatedAt" = now() WHERE "groupId" = ${containerId}::int`;
      }
      return replicated;
    });
    if (!move) return;
  }

  if (move.state === 'replicated') {
    await HOLDS.get(app)?.('replicated', type, move);
    try {
      const source = subjectOf(type, containerId, move.sourceStorageName);
      const destination = { ...source, repositoryStorage: move.destinationStorageName };
      // Two storage names on one folder share the repository: nothing to remove.
      if (app.repositories.has(move.sourceStorageName) && app.repositories.path(source) !== app.repositories.path(destination)) await app.repositories.remove(source);
    } catch (error) {
      await transition(db, app, type, id, ['replicated'], 'cleanup_failed', describe(error));
      return;
    }
    await transition(db, app, type, id, ['replicated'], 'finished');
  }
}
