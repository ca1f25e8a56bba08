/**
 * Repository storage moves (GitLab's Projects::RepositoryStorageMove and Groups::RepositoryStorageMove, the latter
 * for group wiki repositories): scheduling one move or every repository of a storage, and listing them. A move is
 * carried out by a background job (mover.ts); from its scheduling until its copy is in place the repository is
 * read-only. Administrators only, as GitLab's API.
 */
import { Prisma, type PrismaClient, type RawExecutor, type RawQuerier } from '../../db/database.js';
import { invalid, invalidArgument, recordNotFound } from '../../errors.js';
import { connection, type PageArgs } from '../../graphql/connection.js';
import type { App } from '../../context.js';
import type { ServiceBase } from '../module.js';
import type { NamespaceRow } from '../namespaces/service.js';
import { ensureGroupWiki } from './group-wikis.js';

/** What is moved: a project's repository, a group's wiki repository or a snippet's repository. */
export type MoveType = 'project' | 'group' | 'snippet';

/** A client or a transaction: what statements and announcements of a move run on. */
export type Statements = RawQuerier & RawExecutor;

/** GitLab's states (RepositoryStorageMovable), by their machine names. */
export type MoveState = 'initial' | 'scheduled' | 'started' | 'replicated' | 'finished' | 'failed' | 'cleanup_failed';

/** A move as stored; `projectId` or `groupId` names its container. */
export interface MoveRow {
  id: number;
  projectId?: number;
  groupId?: number;
  snippetId?: number;
  state: MoveState;
  sourceStorageName: string;
  destinationStorageName: string;
  errorMessage: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/** The job carrying out one move (GitLab's UpdateRepositoryStorageWorker). */
export const MOVE_JOB = 'repository_storage_moves.move';
export interface MovePayload {
  type: MoveType;
  id: number;
}

/** The job scheduling a move for every repository of a storage (GitLab's ScheduleBulkRepositoryShardMovesWorker). */
export const BULK_JOB = 'repository_storage_moves.bulk';
export interface BulkPayload {
  type: MoveType;
  source: string;
  destination: string | null;
}

/** Bus topic: a move changed state (published in the transaction that changed it). */
export const MOVE_UPDATED = 'repository_storage_moves.updated';
export interface MoveMessage {
  type: MoveType;
  id: number;
  state: MoveState;
}

/** Per kind: the moves' table, its container column, and where the container keeps its storage and read-only flag. */
export const KINDS = {
  project: {
    moves: Prisma.raw('"project_repository_storage_moves"'),
    column: Prisma.raw('"projectId"'),
    containers: Prisma.raw('"projects"'),
    key: Prisma.raw('"id"'),
    storage: Prisma.raw('"repositoryStorage"'),
    readOnly: Prisma.raw('"repositoryReadOnly"'),
    /** The container's key in validation errors (GitLab's error_key). */
    errorKey: 'project',
  },
  group: {
    moves: Prisma.raw('"group_repository_storage_moves"'),
    column: Prisma.raw('"groupId"'),
    containers: Prisma.raw('"group_wiki_repositories"'),
    key: Prisma.raw('"groupId"'),
    storage: Prisma.raw('"shardName"'),
    readOnly: Prisma.raw('"readOnly"'),
    errorKey: 'group',
  },
  snippet: {
    moves: Prisma.raw('"snippet_repository_storage_moves"'),
    column: Prisma.raw('"snippetId"'),
    containers: Prisma.raw('"snippets"'),
    key: Prisma.raw('"id"'),
    storage: Prisma.raw('"repositoryStorage"'),
    readOnly: Prisma.raw('"repositoryReadOnly"'),
    errorKey: 'snippet',
  },
} as const;

/** GitLab's validation message for a storage name that is not configured. */
const NOT_INCLUDED = 'is not included in the list';
/** Ours (GitLab's newest code moves nothing then; its older one failed the move with SameFilesystemError). */
const SAME_STORAGE = 'must be different from the source storage';
/** GitLab's container_repository_writable. */
const READ_ONLY = 'is read-only';
/** Containers locked and scheduled per transaction by a bulk move. */
const BULK_BATCH = 100;

/**
 * Schedules one move inside `tx` (GitLab's `storage_move.schedule`): the container locked, checked to be writable
 * and on `source`, the move recorded as `scheduled`, the repository made read-only, the job queued and the state
 * announced, all on commit (the caller wakes the queue after it). Returns the move, or the validation errors (by field) that refused it.
 */
export async function scheduleIn(
  tx: Statements,
  app: Pick<App, 'repositories' | 'jobs' | 'bus'>,
  type: MoveType,
  containerId: number,
  destination: string | null,
): Promise<MoveRow | Record<string, string[]>> {
  const kind = KINDS[type];
  const [container] = await tx.$queryRaw<{ storage: string; readOnly: boolean }[]>`
    SELECT ${kind.storage} AS "storage", ${kind.readOnly} AS "readOnly" FROM ${kind.containers} WHERE ${kind.key} = ${containerId}::int FOR UPDATE`;
  if (!container) return { [kind.errorKey]: ["can't be blank"] };
  const target = destination ?? app.repositories.pick();
  const errors: Record<string, string[]> = {};
  if (!app.repositories.has(container.storage)) errors.sourceStorageName = [NOT_INCLUDED];
  if (!app.repositories.has(target)) errors.destinationStorageName = [NOT_INCLUDED];
  else if (target === container.storage) errors.destinationStorageName = [SAME_STORAGE];
  if (container.readOnly) errors[kind.errorKey] = [READ_ONLY];
  if (Object.keys(errors).length) return errors;
  const [move] = await tx.$queryRaw<MoveRow[]>`
    INSERT INTO ${kind.moves} (${kind.column}, "state", "sourceStorageName", "destinationStorageName", "updatedAt")
    VALUES (${containerId}::int, 'scheduled', ${container.storage}::text, ${target}::text, now())
    RETURNING *`;
  await tx.$executeRaw`UPDATE ${kind.containers} SET ${kind.readOnly} = true WHERE ${kind.key} = ${containerId}::int`;
  await app.jobs.enqueue(MOVE_JOB, { type, id: move.id } satisfies MovePayload, { maxAttempts: 10, uniqueKey: `${MOVE_JOB}:${type}:${move.id}` }, tx);
  await app.bus.publish(MOVE_UPDATED, { type, id: move.id, state: move.state } satisfies MoveMessage, tx);
  return move;
}

export class RepositoryStorageMovesService {
  constructor(private readonly base: ServiceBase) {}

  /** Administrators only, asked before anything else is looked up (GitLab's `before { authenticated_as_admin! }`). */
  async authorize(ability: 'read_repository_storage_move' | 'create_repository_storage_move'): Promise<void> {
    await this.base.access.authorize(ability, null);
  }

  /** Every move of a kind, or of one container, newest first (GitLab's order_created_at_desc; ties by id). */
  async list(type: MoveType, containerId: number | null, page: PageArgs) {
    await this.authorize('read_repository_storage_move');
    const { db } = this.base;
    const kind = KINDS[type];
    const where = containerId === null ? Prisma.sql`TRUE` : Prisma.sql`${kind.column} = ${containerId}::int`;
    return connection(
      page,
      ({ skip, take }) => db.$queryRaw<MoveRow[]>`
        SELECT * FROM ${kind.moves} WHERE ${where} ORDER BY "createdAt" DESC, "id" DESC LIMIT ${take}::int OFFSET ${skip}::int`,
      async () => Number((await db.$queryRaw<{ count: bigint }[]>`SELECT count(*) AS "count" FROM ${kind.moves} WHERE ${where}`)[0].count),
    );
  }

  /** One move by ID (of one container when given); GitLab's `404 Not found` otherwise. */
  async get(type: MoveType, id: number, containerId: number | null): Promise<MoveRow> {
    await this.authorize('read_repository_storage_move');
    const move = await moveById(this.base.db, type, id);
    if (!move || (containerId !== null && containerOf(move) !== containerId)) throw recordNotFound();
    return move;
  }

  /** Schedules a move of the project's repository (`POST /projects/:id/repository_storage_moves`). */
  async scheduleProject(projectId: number, destination: string | null): Promise<MoveRow> {
    await this.authorize('create_repository_storage_move');
    return this.schedule('project', projectId, destination);
  }

  /** Schedules a move of a snippet's repository (`POST /snippets/:id/repository_storage_moves`). */
  async scheduleSnippet(snippetId: number, destination: string | null): Promise<MoveRow> {
    await this.authorize('create_repository_storage_move');
    return this.schedule('snippet', snippetId, destination);
  }

  /** Schedules a move of the group's wiki repository, which is made first if the group has none yet. */
  async scheduleGroup(group: NamespaceRow, destination: string | null): Promise<MoveRow> {
    await this.authorize('create_repository_storage_move');
    await ensureGroupWiki(this.base.db, this.base.app, group.id);
    return this.schedule('group', group.id, destination);
  }

  private async schedule(type: MoveType, containerId: number, destination: string | null): Promise<MoveRow> {
    const { db, app } = this.base;
    const scheduled = await db.$transaction((tx) => scheduleIn(tx, app, type, containerId, destination));
    if (!('id' in scheduled)) throw invalid(scheduled as Record<string, string[]>);
    // The job was queued in the transaction: looked for now it has committed, not at the next poll.
    app.jobs.wake();
    return scheduled as MoveRow;
  }

  /**
   * Moves of a kind as their state changes, on any replica (of one container when given), each shown in the state
   * its message announced. Administrators only.
   */
  async watch(type: MoveType, containerId: number | null, field: string): Promise<AsyncGenerator<Record<string, MoveRow>>> {
    await this.authorize('read_repository_storage_move');
    const { app, db } = this.base;
    const messages = app.bus.iterate<MoveMessage>(MOVE_UPDATED, (m) => m.type === type);
    return (async function* () {
      try {
        for await (const message of messages) {
          const move = await moveById(db, type, message.id);
          if (!move || (containerId !== null && containerOf(move) !== containerId)) continue;
          await app.bus.turn();
          yield { [field]: { ...move, state: message.state } };
        }
      } finally {
        await messages.return?.();
      }
    })();
  }

  /**
   * Schedules moves of every repository of a kind on `source` (`POST /<kind>_repository_storage_moves`): checked,
   * then left to a background job, as GitLab's answer is `202 Accepted` before any move exists.
   */
  async scheduleAll(type: MoveType, source: string, destination: string | null): Promise<void> {
    await this.authorize('create_repository_storage_move');
    const { app } = this.base;
    if (!app.repositories.has(source)) throw invalidArgument('sourceStorageName');
    if (destination !== null && !app.repositories.has(destination)) throw invalidArgument('destinationStorageName');
    await app.jobs.enqueue(BULK_JOB, { type, source, destination } satisfies BulkPayload);
  }
}

/** The container a move belongs to. */
export function containerOf(move: MoveRow): number {
  return (move.projectId ?? move.groupId ?? move.snippetId) as number;
}

export async function moveById(db: PrismaClient | RawQuerier, type: MoveType, id: number): Promise<MoveRow | null> {
  const [move] = await db.$queryRaw<MoveRow[]>`SELECT * FROM ${KINDS[type].moves} WHERE "id" = ${id}::int`;
  return move ?? null;
}

/**
 * A bulk move's work: every container of the kind on `source`, in batches by ID, each locked and scheduled unless
 * it is no longer there or refuses (already read-only, say), which GitLab only logs. Returns how many were scheduled.
 */
export async function scheduleBulk(db: PrismaClient, app: Pick<App, 'repositories' | 'jobs' | 'bus'>, payload: BulkPayload): Promise<number> {
  const kind = KINDS[payload.type];
  let after = 0;
  let scheduled = 0;
  for (;;) {
    const ids = await db.$queryRaw<{ id: number }[]>`
      SELECT ${kind.key} AS "id" FROM ${kind.containers}
      WHERE ${kind.storage} = ${payload.source}::text AND ${kind.key} > ${after}::int
      ORDER BY ${kind.key} LIMIT ${BULK_BATCH}::int`;
    if (ids.length === 0) return scheduled;
    after = ids[ids.length - 1].id;
    scheduled += await db.$transaction(async (tx) => {
      let count = 0;
      for (const { id } of ids) {
        const [current] = await tx.$queryRaw<{ storage: string }[]>`SELECT ${kind.storage} AS "storage" FROM ${kind.containers} WHERE ${kind.key} = ${id}::int FOR UPDATE`;
        if (current?.storage !== payload.source) continue;
        const move = await scheduleIn(tx, app, payload.type, id, payload.destination);
        if ('id' in move) count++;
      }
      return count;
    });
    app.jobs.wake();
  }
}
