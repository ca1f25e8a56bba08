/**
 * The notes and discussions engine (GitLab's Note, Discussion, NotesFinder and Notes::Create/Update/DestroyService):
 * notes on any registered noteable (noteables.ts), threads (`discussionId`, 40 hex characters, random per thread),
 * a single comment turned into a thread by a reply where the kind allows it, GitLab's validations, `created_at` for
 * those who may set it, the `commented on` activity event, and each note's Markdown rendered for GraphQL. Internal
 * notes (GitLab's `internal`, once `confidential`) are made by Reporters and above on issues and epics, replies in an
 * internal thread are internal, and every read here (lists, threads, one note, events, hook samples) leaves them out
 * for those who may not read them (`read_internal_note`).
 */
import { createHash, randomBytes } from 'node:crypto';
import { Prisma, type PrismaClient } from '../../db/database.js';
import { queryRows } from '../../db/direct-reads.js';
import { badRequest, exactlyOneOf, forbidden, invalid, invalidArgument, missing, mutuallyExclusive, notFound, recordNotFound, unauthenticated } from '../../errors.js';
import { connection, encodeCursor, listConnection, type PageArgs } from '../../graphql/connection.js';
import type { Ref } from '../../graphql/ids.js';
import type { ActivityService } from '../activity/service.js';
import { enqueueHookEvent, hookHeard } from '../hooks/events.js';
import { noteData, type HookCommit } from '../hooks/payloads.js';
import { hookProjectOf } from '../hooks/samples.js';
import type { ServiceBase, Services } from '../module.js';
import type { ProjectRow, ProjectsService } from '../projects/service.js';
import type { RepositoriesService } from '../repositories/service.js';
import { COMMIT } from './commits.js';
import { referencedIn, renderMarkdown, type NumberedReference } from '../../markdown.js';
import { usersByIds } from '../users/loaders.js';
import { noteableKind, referenceResolversInUse, type Noteable, type NoteableContext, type NoteableKind, type ReferenceResolver } from './noteables.js';
import type { NoteCommands, PendingNoteCommands } from '../quick_actions/service.js';
import { DraftNotes } from './drafts/service.js';

export type NoteRow = Awaited<ReturnType<PrismaClient['note']['findUniqueOrThrow']>>;

/** What a note's hook shows beyond the note: a commit note's commit, or the issue or snippet it is on. */
interface NoteHookContext {
  commit: HookCommit | null;
  embedded: Record<string, unknown>;
  confidential: boolean;
}

/** A thread: its notes, oldest first (GitLab's Discussion.build of `fresh` notes). */
export interface DiscussionRow {
  id: string;
  noteable: Noteable;
  notes: NoteRow[];
}

export interface NoteInput {
  body: string;
  /** ISO 8601; honoured only for those who may set it (`set_note_created_at`), silently dropped for others. */
  createdAt?: string | null;
  /** A diff note's position (GitLab's `position` hash), for kinds with diffs. */
  position?: Record<string, unknown> | null;
}

/** GitLab's `internal` (or its old name `confidential`) of a new note: asked, honoured for those who may mark notes internal. */
export interface InternalInput {
  internal?: boolean | null;
  confidential?: boolean | null;
}

export interface CommitCommentInput extends InternalInput {
  note: string;
  path?: string | null;
  line?: number | null;
  lineType?: string | null;
  /** ISO 8601, as NoteInput's (the Notes API's `created_at`). */
  createdAt?: string | null;
  /** The merge request head the note was written against (the Notes API's `merge_request_diff_head_sha`), for `/merge`. */
  mergeRequestDiffHeadSha?: string | null;
}

/** What a system note is written on: a noteable with a row (an issue, an epic, a merge request). */
export interface SystemNoteTarget {
  type: string;
  id: number;
  projectId: number | null;
  groupId: number | null;
}

/**
 * What creating a note gave (Notes::CreateService): the note, none when it held nothing but quick actions, and what
 * its quick actions did (null when it had none).
 */
export interface NoteCreation<T> {
  created: T | null;
  commands: NoteCommands | null;
}

/** A note as just created, carrying what its quick actions changed (Note#commands_changes, REST's `commands_changes`). */
export type CreatedNote = NoteRow & { commandsChanges?: Record<string, unknown> };

/** Note's `validates :note, length: { maximum: 1_000_000 }`. */
export const MAX_NOTE_LENGTH = 1_000_000;

/** GitLab's `Note#discussion_class`: a plain note (type null) is a thread of its own (IndividualNoteDiscussion). */
export const isIndividual = (note: Pick<NoteRow, 'type'>) => note.type === null;

/** Rails' validations of the text, in its words (Note's presence and length; PostgreSQL text holds no NUL). */
function checkBody(body: string): void {
  let problem: string | null = null;
  if (body.trim() === '') problem = "can't be blank";
  else if (body.length > MAX_NOTE_LENGTH && [...body].length > MAX_NOTE_LENGTH) problem = `is too long (maximum is ${MAX_NOTE_LENGTH} characters)`;
  else if (body.includes('\0')) problem = 'cannot contain null bytes';
  if (problem) throw invalid({ note: [problem] }, { badRecord: 'Note' });
}

/** GitLab's Discussion.discussion_id: a SHA-1 of the noteable and randomness, 40 lowercase hex characters. */
function newDiscussionId(noteable: Noteable): string {
  return createHash('sha1')
    .update(['discussion', noteable.type.toLowerCase(), noteable.id ?? noteable.commitId, randomBytes(16).toString('hex')].join('-'))
    .digest('hex');
}

const DISCUSSION_ID = /^[0-9a-f]{40}$/;

/** The line a commit comment names in its commit's diff (GitLab's Gitlab::Diff::Parser), and its old and new positions. */
function findDiffLine(diff: string, line: number, lineType: 'new' | 'old'): { oldPos: number; newPos: number } | null {
  let oldPos = 0;
  let newPos = 0;
  for (const text of diff.split('\n')) {
    const hunk = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(text);
    if (hunk) {
      oldPos = Number(hunk[1]);
      newPos = Number(hunk[2]);
      continue;
    }
    if (text.startsWith('\\')) continue;
    const type = text.startsWith('+') ? 'new' : text.startsWith('-') ? 'old' : null;
    // GitLab compares the line's new position and its type (`line.new_pos == params[:line] && line.type == …`).
    if (type === lineType && newPos === line) return { oldPos, newPos };
    if (type !== 'new') oldPos++;
    if (type !== 'old') newPos++;
  }
  return null;
}

/**
 * Locks a thread for a change that may move its start (a reply, a deletion) until the transaction ends: two such
 * changes to one thread take turns, so `keepThreadStarted` of the later sees what the earlier did. A lock of its own,
 * not of the thread's rows: a row the other change deletes would let two replies waiting on it through together.
 */
async function lockThread(tx: Prisma.TransactionClient, discussionId: string): Promise<void> {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`notes:thread:${discussionId}`}, 0))`;
}

/** Marks the thread's earliest note as its start when none is (its start was deleted), so the thread stays listed. */
async function keepThreadStarted(tx: Prisma.TransactionClient, discussionId: string): Promise<void> {
  await tx.$executeRaw`UPDATE notes SET "startsDiscussion" = true
    WHERE id = (SELECT id FROM notes WHERE "discussionId" = ${discussionId} ORDER BY "createdAt", id LIMIT 1)
      AND NOT EXISTS (SELECT 1 FROM notes WHERE "discussionId" = ${discussionId} AND "startsDiscussion")`;
}

/** ResolvableNote#resolvable?: a thread's DiffNote or DiscussionNote, not a system note, on a kind whose threads resolve. */
export function isResolvable(note: Pick<NoteRow, 'system' | 'type' | 'noteableType'>): boolean {
  return !note.system && (note.type === 'DiffNote' || note.type === 'DiscussionNote') && !!noteableKind(note.noteableType)?.resolvable;
}

export class NotesService {
  /** The request's readable noteables of notes (`readableNoteableOf`), by type and id. */
  private readonly noteablesOfNotes = new Map<string, Promise<Noteable | null>>();
  /** The request's answers of `read_internal_note`, by project or group. */
  private readonly internalReaders = new Map<string, Promise<boolean>>();
  /** Merge request draft notes, published through this engine (drafts/service.ts). */
  readonly drafts: DraftNotes;

  constructor(
    private readonly base: ServiceBase,
    private readonly projects: ProjectsService,
    private readonly repositories: RepositoriesService,
    private readonly activity: ActivityService,
  ) {
    this.drafts = new DraftNotes(base, this);
  }

  private ctx(services: Services): NoteableContext {
    return { access: this.base.access, services };
  }

  private kind(type: string): NoteableKind {
    const kind = noteableKind(type);
    if (!kind) throw invalidArgument('noteableType');
    return kind;
  }

  /**
   * NotePolicy's `can_read_internal_note`, which is also `mark_note_as_internal`: Reporters and above of the
   * noteable's project (of its group, for epics), and administrators; for a noteable of neither, administrators.
   */
  canReadInternal(n: Pick<Noteable, 'project' | 'groupId'>): Promise<boolean> {
    const key = n.project ? `project:${n.project.id}` : `group:${n.groupId}`;
    let found = this.internalReaders.get(key);
    if (!found) {
      const { access } = this.base;
      found = n.project
        ? access.can('read_internal_note', n.project)
        : n.groupId !== null
          ? this.base.loaders.namespaces.byId.load(n.groupId).then((group) => !!group && access.can('read_group_internal_note', group))
          : Promise.resolve(access.allowed('admin_all_resources'));
      this.internalReaders.set(key, found);
    }
    return found;
  }

  /** The noteable's notes the viewer may read: all of them, or, for those who may not read internal notes, the others. */
  private async readable(n: Noteable): Promise<Prisma.NoteWhereInput> {
    return (await this.canReadInternal(n)) ? this.where(n) : { AND: [this.where(n), { internal: false }] };
  }

  /**
   * GitLab's `find_noteable`: the project (`404 Project Not Found` when hidden), the noteable its key names, which the
   * viewer must be able to read with its notes, else `404 <Kind> Not Found`.
   */
  async noteable(services: Services, type: string, projectRef: Ref, key: string): Promise<Noteable> {
    const kind = this.kind(type);
    const project = await this.projects.get(projectRef);
    const ctx = this.ctx(services);
    const found = await kind.find(ctx, project, key);
    if (!found || !(await kind.canRead(ctx, found))) throw notFound(kind.resource);
    return found;
  }

  /**
   * The same for a group's noteable (an epic): the group (`404 Group Not Found` when hidden), then the noteable its
   * key names (the kind may refuse first, as epics do without their licence), else `404 <Kind> Not Found`.
   */
  async groupNoteable(services: Services, type: string, groupRef: Ref, key: string): Promise<Noteable> {
    const kind = this.kind(type);
    const group = await services.groups.get(groupRef);
    const ctx = this.ctx(services);
    const found = kind.findInGroup ? await kind.findInGroup(ctx, group, key) : null;
    if (!found || !(await kind.canRead(ctx, found))) throw notFound(kind.resource);
    return found;
  }

  /** The readable note a global ID names, with its noteable (GraphQL's updateNote and destroyNote). */
  async byId(services: Services, id: number): Promise<{ note: NoteRow; noteable: Noteable }> {
    const found = await this.readableById(services, id);
    if (!found) throw notFound('Note');
    return found;
  }

  /** The note a global ID names when the viewer may read it (GitLab's `Query.note`, read_note); null otherwise. */
  async findReadable(services: Services, id: number): Promise<NoteRow | null> {
    return (await this.readableById(services, id))?.note ?? null;
  }

  private async readableById(services: Services, id: number): Promise<{ note: NoteRow; noteable: Noteable } | null> {
    const note = await this.base.loaders.notes.byId.load(id);
    const noteable = note && (await this.readableNoteableOf(services, note));
    if (!note || !noteable || (note.internal && !(await this.canReadInternal(noteable)))) return null;
    return { note, noteable };
  }

  /**
   * The noteable a stored note is on, when the viewer may read it; null otherwise. Asked once per noteable in a
   * request, so a thread's notes asking for their permissions read their issue once.
   */
  readableNoteableOf(services: Services, note: Pick<NoteRow, 'noteableType' | 'noteableId' | 'projectId' | 'groupId' | 'commitId'>): Promise<Noteable | null> {
    const key = `${note.noteableType}:${note.noteableId ?? `${note.projectId}@${note.commitId}`}`;
    let found = this.noteablesOfNotes.get(key);
    if (!found) {
      const kind = noteableKind(note.noteableType);
      const ctx = this.ctx(services);
      found = kind
        ? kind.ofNote(ctx, note).then(async (n) => (n && (await kind.canRead(ctx, n)) ? n : null), () => null)
        : Promise.resolve(null);
      this.noteablesOfNotes.set(key, found);
    }
    return found;
  }

  /** The noteable of its own GraphQL object's row (an Issue's `notes` and `discussions`), read by the viewer; 404 otherwise. */
  async noteableOfRow(services: Services, type: string, row: { id: number }): Promise<Noteable> {
    const kind = this.kind(type);
    if (!kind.fromRow) return this.noteableByGlobalId(services, type, String(row.id), null);
    const ctx = this.ctx(services);
    const found = await kind.fromRow(ctx, row).catch(() => null);
    if (!found || !(await kind.canRead(ctx, found))) throw notFound(kind.resource);
    return found;
  }

  /** The noteable of the thread a global ID names, read by the viewer (GraphQL's discussionToggleResolve); 404 otherwise. */
  async noteableOfDiscussion(services: Services, discussionId: string): Promise<Noteable> {
    const first = DISCUSSION_ID.test(discussionId) ? await this.base.db.note.findFirst({ where: { discussionId }, select: { id: true } }) : null;
    if (!first) throw notFound('Discussion');
    return (await this.byId(services, first.id).catch(() => { throw notFound('Discussion'); })).noteable;
  }

  /**
   * Of these note ids, those the viewer may read: whose noteable they may read (`read_note`), each noteable asked
   * once, and internal ones only by those who may read internal notes. Their activity events' check (a comment on
   * a confidential issue is seen by those who see the issue).
   */
  async readableIds(services: Services, ids: readonly number[]): Promise<Set<number>> {
    const notes = await this.base.db.note.findMany({ where: { id: { in: [...ids] } } });
    const ctx = this.ctx(services);
    const decided = new Map<string, Promise<boolean>>();
    // Kinds that answer for many noteables at once are asked once each.
    for (const type of new Set(notes.map((n) => n.noteableType))) {
      const kind = noteableKind(type);
      const of = notes.filter((n) => n.noteableType === type && n.noteableId !== null);
      if (!kind?.readableIds || !of.length) continue;
      const allowed = kind.readableIds(ctx, [...new Set(of.map((n) => n.noteableId!))]);
      for (const n of of) decided.set(`${type}:${n.noteableId}`, allowed.then((set) => set.has(n.noteableId!)));
    }
    const readable = new Set<number>();
    for (const note of notes) {
      const kind = noteableKind(note.noteableType);
      if (!kind) continue;
      const key = `${note.noteableType}:${note.noteableId ?? `${note.projectId}:${note.commitId}`}`;
      if (!decided.has(key)) decided.set(key, kind.ofNote(ctx, note).then((n) => !!n && kind.canRead(ctx, n)).catch(() => false));
      if (!(await decided.get(key))) continue;
      // An internal note, to those who may read internal notes of its project or group.
      if (note.internal && !(await this.canReadInternal({ project: note.projectId === null ? null : await this.projects.find({ id: note.projectId }), groupId: note.groupId }))) continue;
      readable.add(note.id);
    }
    return readable;
  }

  /**
   * The noteable a global ID names (GraphQL's createNote): a commit by its SHA in the project its `project_id`
   * parameter names, a noteable with a row by its id; `404 <Kind> Not Found` when the viewer may not read its notes.
   */
  async noteableByGlobalId(services: Services, type: string, id: string, projectId: string | null): Promise<Noteable> {
    const kind = this.kind(type);
    if (projectId !== null) return this.noteable(services, type, { id: Number(projectId) }, id);
    const ctx = this.ctx(services);
    const found = /^\d{1,10}$/.test(id) ? await kind.ofNote(ctx, { projectId: null, groupId: null, noteableId: Number(id), commitId: null }).catch(() => null) : null;
    if (!found || !(await kind.canRead(ctx, found))) throw notFound(kind.resource);
    return found;
  }

  /**
   * A commit as the Commits API finds it for its comments: the project (404 when hidden), its code (403 for those who
   * see the project but not its code), then the commit (`404 Commit Not Found`).
   */
  async commitForComments(services: Services, projectRef: Ref, sha: string): Promise<Noteable> {
    const project = await this.projects.get(projectRef);
    await this.repositories.authorizeRead(project);
    const found = await this.kind(COMMIT).find(this.ctx(services), project, sha);
    if (!found) throw notFound('Commit');
    return found;
  }

  /** The notes of a noteable, as a Prisma filter and as SQL. */
  private where(n: Noteable): Prisma.NoteWhereInput {
    return n.commitId !== null ? { noteableType: n.type, projectId: n.project?.id ?? null, commitId: n.commitId } : { noteableType: n.type, noteableId: n.id };
  }

  private sqlWhere(n: Noteable): Prisma.Sql {
    return n.commitId !== null
      ? Prisma.sql`"noteableType" = ${n.type} AND "projectId" = ${n.project?.id ?? null}::int AND "commitId" = ${n.commitId}`
      : Prisma.sql`"noteableType" = ${n.type} AND "noteableId" = ${n.id}::int`;
  }

  /** Threads by id, with the notes of each the viewer may read (a thread is internal or not as a whole). */
  private async threads(n: Noteable, ids: string[]): Promise<DiscussionRow[]> {
    if (ids.length === 0) return [];
    const notes = await this.base.db.note.findMany({ where: { AND: [await this.readable(n), { discussionId: { in: ids } }] }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
    const byThread = new Map(ids.map((id) => [id, [] as NoteRow[]]));
    for (const note of notes) byThread.get(note.discussionId)?.push(note);
    return ids.filter((id) => byThread.get(id)!.length > 0).map((id) => ({ id, noteable: n, notes: byThread.get(id)! }));
  }

  /** GitLab's discussions list: the noteable's threads paged by thread, oldest first, each with its notes. */
  async discussions(n: Noteable, page: PageArgs) {
    const { db } = this.base;
    const internal = await this.canReadInternal(n);
    const where = internal ? this.sqlWhere(n) : Prisma.sql`${this.sqlWhere(n)} AND NOT internal`;
    return connection(
      page,
      async ({ skip, take }) => {
        // Each thread by the note that starts it (a partial index of those): a page reads its threads' notes only.
        const rows = await queryRows<{ discussionId: string }>(
          db,
          Prisma.sql`SELECT "discussionId" FROM notes WHERE ${where} AND "startsDiscussion"
            ORDER BY "createdAt", id OFFSET ${skip}::int LIMIT ${take}::int`,
        );
        return this.threads(n, rows.map((r) => r.discussionId));
      },
      async () => (await this.counts(n, internal)).threads,
    );
  }

  /**
   * How many notes and threads the noteable has: one row the `notes_counted` trigger keeps (migration
   * 20270127600001; its internal ones apart since 20270129200000), so a list's total costs the same for 10,000
   * notes as for 10. Its key is the trigger's note_count_key. Without `internal`, the internal ones are left out.
   */
  private async counts(n: Noteable, internal: boolean): Promise<{ notes: number; threads: number }> {
    const key = `${n.type}:${n.id ?? `${n.project?.id ?? ''}@${n.commitId}`}`;
    const row = await this.base.db.noteCount.findUnique({ where: { key }, select: { notes: true, threads: true, internalNotes: true, internalThreads: true } });
    if (!row) return { notes: 0, threads: 0 };
    return internal ? row : { notes: row.notes - row.internalNotes, threads: row.threads - row.internalThreads };
  }

  /** One thread; `404 Discussion Not Found` when the noteable has none by that id. */
  async discussion(n: Noteable, id: string): Promise<DiscussionRow> {
    const [thread] = DISCUSSION_ID.test(id) ? await this.threads(n, [id]) : [];
    if (!thread) throw notFound('Discussion');
    return thread;
  }

  /** A thread's notes (`GET …/discussions/:discussion_id/notes`); `404 Notes Not Found` when none. */
  async discussionNotes(n: Noteable, id: string): Promise<NoteRow[]> {
    const [thread] = DISCUSSION_ID.test(id) ? await this.threads(n, [id]) : [];
    if (!thread) throw notFound('Notes');
    return thread.notes;
  }

  /**
   * A note of the noteable the viewer may read (API::Helpers::NotesHelpers#get_note): ActiveRecord's `404 Not found`
   * when it has none by that id, `404 Note Not Found` when it is internal and the viewer may not read it.
   */
  async note(n: Noteable, id: number): Promise<NoteRow> {
    const note = await this.find(n, id);
    if (note.internal && !(await this.canReadInternal(n))) throw notFound('Note');
    return note;
  }

  /** A note of the noteable (`noteable.notes.find(id)`), whoever may read it: ActiveRecord's `404 Not found` when none. */
  private async find(n: Noteable, id: number): Promise<NoteRow> {
    const note = await this.base.db.note.findFirst({ where: { AND: [this.where(n), { id }] } });
    if (!note) throw recordNotFound();
    return note;
  }

  /** The threads notes are in, by note (GraphQL's `Note.discussion`). */
  async discussionOf(note: NoteRow): Promise<DiscussionRow | null> {
    const kind = noteableKind(note.noteableType);
    const notes = await this.base.loaders.notes.byDiscussion.load(note.discussionId);
    if (!kind) return null;
    const noteable: Noteable = { type: note.noteableType, project: null, groupId: note.groupId, id: note.noteableId, commitId: note.commitId, iid: null, title: null };
    return { id: note.discussionId, noteable, notes };
  }

  /** Every note of the noteable the viewer may read, oldest first (the Commits API's comments, GraphQL's `notes`). */
  async comments(n: Noteable, page: PageArgs) {
    const { db } = this.base;
    const internal = await this.canReadInternal(n);
    const where = await this.readable(n);
    return connection(
      page,
      ({ skip, take }) => db.note.findMany({ where, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }], skip, take }),
      async () => (await this.counts(n, internal)).notes,
    );
  }

  /**
   * GitLab's Noteable#commenters of a noteable by class name and id: the authors of its user notes (not system notes),
   * each once, the first to comment first; an author whose every comment is internal only when `internal` (the viewer
   * may read internal notes). Batched over the noteables of a page.
   */
  async commenterIds(type: string, id: number, internal: boolean | Promise<boolean>): Promise<number[]> {
    // Loaded beside the viewer's check, so a page of noteables reaches the loader in one batch.
    const [rows, readsInternal] = await Promise.all([this.base.loaders.notes.commenters.load(`${type}:${id}`), internal]);
    return [...new Set(rows.filter((r) => readsInternal || !r.internal).map((r) => r.authorId))];
  }

  /**
   * GitLab's commenters connection of a noteable with an id (snippets'; commits have none), by user id as GitLab pages
   * a relation without order.
   */
  async commenters(n: Noteable, page: PageArgs) {
    const ids = n.id === null ? [] : (await this.commenterIds(n.type, n.id, this.canReadInternal(n))).sort((a, b) => a - b);
    return listConnection(page, await usersByIds(this.base.loaders.users, ids));
  }

  /**
   * GitLab's user_discussions_count of a noteable by class name and id: its threads with a user note, batched; with
   * `internal` false, only threads with a note that is not internal.
   */
  async userDiscussionsCount(type: string, id: number, internal: boolean | Promise<boolean>): Promise<number> {
    const [counts, readsInternal] = await Promise.all([this.base.loaders.notes.userDiscussions.load(`${type}:${id}`), internal]);
    return readsInternal ? counts.all : counts.public;
  }

  /**
   * The Notes API's list (`GET …/notes`): every note of the noteable the viewer may read, ordered by `created_at` or `updated_at`
   * (`desc` unless asked), ties by id in the same direction.
   */
  async notes(n: Noteable, page: PageArgs, orderBy: 'created_at' | 'updated_at' = 'created_at', sort: 'asc' | 'desc' = 'desc') {
    const { db } = this.base;
    const internal = await this.canReadInternal(n);
    const where = await this.readable(n);
    const column = orderBy === 'updated_at' ? 'updatedAt' : 'createdAt';
    return connection(
      page,
      ({ skip, take }) => db.note.findMany({ where, orderBy: [{ [column]: sort }, { id: sort }], skip, take }),
      async () => (await this.counts(n, internal)).notes,
    );
  }

  /** `create_note` on the noteable: 401 for anonymous callers, 403 for those who may not. */
  private async authorizeCreate(kind: NoteableKind, services: Services, n: Noteable): Promise<number> {
    const viewer = this.base.viewer;
    if (!viewer) throw unauthenticated();
    if (!(await kind.canCreateNote(this.ctx(services), n))) throw forbidden();
    return viewer.id;
  }

  /** `created_at` as GitLab takes it: only from those who may set it, and only when it reads as a time. */
  private async createdAt(kind: NoteableKind, services: Services, n: Noteable, value: string | null | undefined): Promise<Date | null> {
    if (!value || !(await kind.canSetCreatedAt(this.ctx(services), n))) return null;
    const time = new Date(value);
    return Number.isNaN(time.getTime()) ? null : time;
  }

  /**
   * What a note's hook shows of its noteable, read before the note's transaction when some hook of the project hears
   * comments: a commit note's commit (Commit#hook_attrs), or what the kind embeds (an issue, a snippet) and whether
   * that is confidential.
   */
  private async hookContext(services: Services, n: Noteable, always = false): Promise<NoteHookContext> {
    // A project whose hooks hear no comments needs none of it (a snippet's content is read from its repository).
    const db = this.base.db;
    if (!always && (!n.project || !((await hookHeard(db, 'note_hooks', n.project.id)) || (await hookHeard(db, 'confidential_note_hooks', n.project.id))))) {
      return { commit: null, embedded: {}, confidential: false };
    }
    const embedded = await this.kind(n.type).hookAttrs?.(this.ctx(services), n, this.base.app.config.externalUrl);
    const context: NoteHookContext = { commit: null, embedded: embedded ? { [embedded.key]: embedded.attrs } : {}, confidential: !!embedded?.confidential };
    if (!n.project || !n.commitId) return context;
    const commit = await (await this.repositories.open(n.project)).commit(n.commitId);
    if (!commit) return context;
    const title = commit.message.split('\n', 1)[0];
    return { ...context, commit: { id: commit.sha, message: commit.message, title, timestamp: new Date(commit.authoredDate), authorName: commit.authorName, authorEmail: commit.authorEmail, added: [], modified: [], removed: [] } };
  }

  /**
   * The sample of a project hook's test of note events (TestHooks::ProjectService#note_events_data): the project's
   * newest note the viewer may read, as a `create` Note Hook sent as the viewer; null when there is none.
   */
  async hookSample(services: Services, project: ProjectRow): Promise<unknown> {
    const recent = await this.base.db.note.findMany({ where: { projectId: project.id }, orderBy: { id: 'desc' }, take: 20, select: { id: true } });
    const readable = await this.readableIds(services, recent.map((n) => n.id));
    const newest = recent.find((n) => readable.has(n.id));
    if (!newest) return null;
    const { note, noteable } = await this.byId(services, newest.id);
    const hook = await this.hookContext(services, noteable, true);
    const user = await this.base.db.user.findUniqueOrThrow({ where: { id: this.base.access.requireViewer().id }, select: { id: true, name: true, username: true, email: true } });
    const { externalUrl } = this.base.app.config;
    const confidential = note.internal || hook.confidential;
    return noteData({ note, action: 'create', url: this.noteUrl(noteable, note.id) ?? '', project: hookProjectOf(project), user, commit: hook.commit, embedded: hook.embedded, confidential, externalUrl });
  }

  /**
   * Queues a note's Note Hook in its transaction (Notes::PostProcessService, Notes::UpdateService#execute_note_webhook):
   * for notes of a project, never system notes; `confidential_note_hooks` for an internal note or one on a confidential
   * noteable, `note_hooks` otherwise. Nothing is built when no hook hears it.
   */
  private async queueHook(n: Noteable, note: NoteRow, action: 'create' | 'update', hook: NoteHookContext, tx: Prisma.TransactionClient): Promise<void> {
    if (!n.project || note.system) return;
    const project = n.project;
    const confidential = note.internal || hook.confidential;
    const trigger = confidential ? 'confidential_note_hooks' : 'note_hooks';
    if (!(await hookHeard(tx, trigger, project.id))) return;
    const userId = action === 'update' ? (note.updatedById ?? note.authorId) : note.authorId;
    const user = await tx.user.findUniqueOrThrow({ where: { id: userId }, select: { id: true, name: true, username: true, email: true } });
    const { externalUrl } = this.base.app.config;
    const data = noteData({ note, action, url: this.noteUrl(n, note.id) ?? '', project: hookProjectOf(project), user, commit: hook.commit, embedded: hook.embedded, confidential, externalUrl });
    await enqueueHookEvent(this.base.app.jobs, { trigger, projectId: project.id, branch: null, data }, tx);
  }

  /** The note's page in the web UI (Gitlab::UrlBuilder): its commit's, issue's or snippet's page with the note's anchor. */
  private noteUrl(n: Pick<Noteable, 'project' | 'commitId'> & Partial<Pick<Noteable, 'type' | 'iid' | 'id'>>, noteId: number): string | null {
    if (!n.project) return null;
    const web = `${this.base.app.config.externalUrl}/${n.project.fullPath}`;
    if (n.commitId) return `${web}/-/commit/${n.commitId}#note_${noteId}`;
    if (n.type === 'Issue' && n.iid != null) return `${web}/-/issues/${n.iid}#note_${noteId}`;
    if (n.type === 'MergeRequest' && n.iid != null) return `${web}/-/merge_requests/${n.iid}#note_${noteId}`;
    if (n.type === 'Snippet' && n.id != null) return `${web}/-/snippets/${n.id}#note_${noteId}`;
    return null;
  }

  /** GraphQL's `Note.url`. */
  async url(note: NoteRow): Promise<string | null> {
    const project = note.projectId === null ? null : await this.projects.find({ id: note.projectId });
    return this.noteUrl({ project, commitId: note.commitId }, note.id);
  }

  /**
   * Inserts one note, records its `commented on` event and queues its Note Hook for the project's hooks that hear
   * note events (none heard: nothing queued), all in one transaction.
   */
  private async insert(
    services: Services,
    n: Noteable,
    data: Omit<Prisma.NoteUncheckedCreateInput, 'noteableType' | 'noteableId' | 'commitId' | 'projectId' | 'groupId'>,
    tx: Prisma.TransactionClient,
    hook: NoteHookContext,
  ): Promise<NoteRow> {
    const note = await tx.note.create({
      data: { ...data, noteableType: n.type, noteableId: n.id, commitId: n.commitId, projectId: n.project?.id ?? null, groupId: n.groupId },
    });
    // Notes::CreateService#when_saved: a note that starts a discussion tells its noteable (a reviewer has reviewed).
    if (note.startsDiscussion) await this.kind(n.type).discussionStarted?.(this.ctx(services), n, tx);
    // GitLab's EventCreateService#leave_note: `commented`, the note as target (its STI class), in the project; seen by
    // those who may read what it is on (activity.ts).
    await this.activity.record(
      {
        action: 'commented',
        authorId: note.authorId,
        project: n.project,
        groupId: n.groupId,
        targetType: note.type ?? 'Note',
        targetId: note.id,
        targetTitle: null,
        // A comment on a commit is seen by those who may read the code (Event#visible_to_user?'s commit notes).
        ...(n.commitId !== null ? { requires: 'download_code' as const } : {}),
      },
      tx,
    );
    await this.queueHook(n, note, 'create', hook, tx);
    return note;
  }

  /**
   * A system note (GitLab's SystemNoteService#create_note: `system: true`, a thread of its own, authored by whoever made
   * the change), written in the caller's transaction. No `commented on` event and no Note Hook, as GitLab's
   * Notes::PostProcessService skips system notes.
   */
  async createSystemNote(tx: Prisma.TransactionClient, target: SystemNoteTarget, authorId: number, body: string, at: Date): Promise<NoteRow> {
    const thread: Noteable = { type: target.type, project: null, groupId: target.groupId, id: target.id, commitId: null, iid: null, title: null };
    return tx.note.create({
      data: {
        noteableType: target.type,
        noteableId: target.id,
        projectId: target.projectId,
        groupId: target.groupId,
        discussionId: newDiscussionId(thread),
        startsDiscussion: true,
        type: null,
        note: body,
        authorId,
        system: true,
        createdAt: at,
        updatedAt: at,
      },
    });
  }

  private static readonly POSITION_TYPES = ['text', 'image', 'file'];

  private checkPosition(position: Record<string, unknown>, required = ['base_sha', 'start_sha', 'head_sha', 'position_type']): void {
    const missing = required.filter((k) => position[k] == null || position[k] === '');
    if (missing.length) throw invalidArgument(`position[${missing[0]}]`);
    if (!NotesService.POSITION_TYPES.includes(String(position.position_type))) throw invalidArgument('position[position_type]');
  }

  /**
   * Whether a new note that starts its thread is internal (Notes::BuildService#handle_confidentiality_params and
   * #new_note): `internal` or `confidential` asked, honoured only for those who may mark notes internal (for others
   * the note is public, as GitLab drops the flag), then Note's validations: only on kinds whose notes may be internal,
   * and only a plain note or a DiscussionNote.
   */
  private async internalOf(kind: NoteableKind, n: Noteable, input: InternalInput, type: string | null): Promise<boolean> {
    if (!(input.internal || input.confidential) || !(await this.canReadInternal(n))) return false;
    if (!kind.internalNotes) throw invalid({ confidential: ['can not be set for this resource'] }, { badRecord: 'Note' });
    if (type !== null && type !== 'DiscussionNote') throw invalid({ confidential: ['can not be set for this type of note'] }, { badRecord: 'Note' });
    return true;
  }

  /**
   * A new diff thread from GraphQL (Mutations::Notes::Create::DiffNote and ImageDiffNote): a DiffNote at `position`
   * (GitLab's position hash, its `base_sha` optional here as Gitlab::Diff::Position#complete? does not need it) on a
   * kind with diffs, else DiffNote's validation (`Noteable type is not included in the list`); the thread's note.
   */
  async createDiffNote(services: Services, n: Noteable, input: NoteInput & InternalInput & { position: Record<string, unknown> }): Promise<NoteCreation<CreatedNote>> {
    if (!this.kind(n.type).diffNotes) {
      await this.authorizeCreate(this.kind(n.type), services, n);
      throw invalid({ noteable_type: ['is not included in the list'] }, { badRecord: 'Note' });
    }
    const creation = await this.createDiscussion(services, n, input, { baseShaOptional: true });
    return { created: creation.created?.notes[0] ?? null, commands: creation.commands };
  }

  /** A new thread (`POST …/discussions`): a DiscussionNote, or a DiffNote when a position is given to a kind with diffs. */
  async createDiscussion(services: Services, n: Noteable, input: NoteInput & InternalInput, options: { baseShaOptional?: boolean } = {}): Promise<NoteCreation<DiscussionRow>> {
    const kind = this.kind(n.type);
    const authorId = await this.authorizeCreate(kind, services, n);
    checkBody(input.body);
    const position = kind.diffNotes ? input.position : null;
    if (position) this.checkPosition(position, options.baseShaOptional ? ['start_sha', 'head_sha', 'position_type'] : undefined);
    const internal = await this.internalOf(kind, n, input, position ? 'DiffNote' : 'DiscussionNote');
    const commands = await this.quickActions(services, n, input.body);
    if (commands?.only) return { created: null, commands: await commands.apply() };
    const createdAt = await this.createdAt(kind, services, n, input.createdAt);
    const hook = await this.hookContext(services, n);
    const note = await this.base.db.$transaction((tx) =>
      this.insert(
        services,
        n,
        {
          discussionId: newDiscussionId(n),
          startsDiscussion: true,
          type: position ? 'DiffNote' : 'DiscussionNote',
          note: commands?.content ?? input.body,
          authorId,
          internal,
          position: (position ?? undefined) as Prisma.InputJsonValue | undefined,
          ...(createdAt ? { createdAt, updatedAt: createdAt } : {}),
        },
        tx,
        hook,
      ),
    );
    await services.todos.noteCreated(n, note);
    const applied = await this.applyCommands(note, commands);
    return { created: { id: note.discussionId, noteable: n, notes: [applied.created!] }, commands: applied.commands };
  }

  /**
   * A new note's quick actions (Notes::CreateService#execute_quick_actions), interpreted against its noteable before
   * the note is saved; null when its kind runs none or its text has none.
   */
  private quickActions(services: Services, n: Noteable, body: string, mergeRequestDiffHeadSha?: string | null): Promise<PendingNoteCommands | null> {
    return services.quick_actions.forNote(services, n, body, { mergeRequestDiffHeadSha });
  }

  /**
   * The Notes and Discussions APIs' answer to a creation (16.3's lib/api/notes.rb): a note of quick actions alone
   * whose commands said something is `202 Accepted` with Entities::NoteCommands (`commands_changes` and `summary`);
   * one whose commands said nothing fails Note's validation (its text is blank); otherwise the note.
   */
  restCreation<T>(creation: NoteCreation<T>): { created: T | null; commands: { commandsChanges: Record<string, unknown>; summary: string[] } | null } {
    if (creation.created !== null || !creation.commands) return { created: creation.created, commands: null };
    const { changes, message } = creation.commands;
    if (!message) checkBody('');
    return { created: null, commands: { commandsChanges: changes, summary: [message] } };
  }

  /**
   * GraphQL's createNote (Mutations::Notes::Create::Base): no note for quick actions alone, and the errors
   * Notes::CreateService put on it, in full (`Commands only <messages>`, `Command names ["close"]`).
   */
  graphqlCreation(creation: NoteCreation<CreatedNote>): { note: CreatedNote | null; errors: string[] } {
    if (creation.created !== null || !creation.commands) return { note: creation.created, errors: [] };
    const { message, commandNames } = creation.commands;
    const errors = [`Commands only ${message || 'Failed to apply commands.'}`, `Command names ${JSON.stringify(commandNames).replace(/,/g, ', ')}`];
    if (!message) errors.push('Commands Failed to apply commands.');
    return { note: null, errors };
  }

  /** Applies a saved note's quick actions (Notes::CreateService#do_commands): the note carries what they changed. */
  private async applyCommands(note: NoteRow, pending: PendingNoteCommands | null): Promise<NoteCreation<CreatedNote>> {
    if (!pending) return { created: note, commands: null };
    const commands = await pending.apply(note.id);
    return { created: { ...note, commandsChanges: commands.changes }, commands };
  }

  /**
   * A reply in a thread (`POST …/discussions/:discussion_id/notes`, GraphQL's createNote with `discussionId`). A single
   * comment becomes a thread when its kind lets it be replied to (Noteable.replyable_types), else GitLab's 400. A
   * reply in an internal thread is internal, in a public one public.
   */
  async reply(services: Services, n: Noteable, discussionId: string, input: NoteInput): Promise<NoteCreation<CreatedNote>> {
    const kind = this.kind(n.type);
    // The thread's first note alone, not every note of a thread that may hold thousands.
    // An internal thread is not found by those who may not read it (the Discussions API's readable_discussion_notes).
    const first = DISCUSSION_ID.test(discussionId)
      ? await this.base.db.note.findFirst({ where: { AND: [await this.readable(n), { discussionId }] }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] })
      : null;
    if (!first) throw notFound('Discussion');
    const thread = { id: discussionId };
    const partOfDiscussion = !isIndividual(first);
    if (!partOfDiscussion && !kind.replyable) throw badRequest('400 Bad request - Discussion can not be replied to.');
    const authorId = await this.authorizeCreate(kind, services, n);
    checkBody(input.body);
    const commands = await this.quickActions(services, n, input.body);
    if (commands?.only) return { created: null, commands: await commands.apply() };
    const createdAt = await this.createdAt(kind, services, n, input.createdAt);
    const hook = await this.hookContext(services, n);
    const note = await this.base.db.$transaction(async (tx) => {
      await lockThread(tx, thread.id);
      // IndividualNoteDiscussion#convert_to_discussion!: the comment becomes the thread's first DiscussionNote.
      if (!partOfDiscussion) await tx.note.updateMany({ where: { id: first.id }, data: { type: 'DiscussionNote' } });
      // A reply is internal when its thread is (BuildService#new_note's parent_confidential), whatever it asked.
      const reply = await this.insert(
        services,
        n,
        { discussionId: thread.id, type: 'DiscussionNote', note: commands?.content ?? input.body, authorId, internal: first.internal, ...(createdAt ? { createdAt, updatedAt: createdAt } : {}) },
        tx,
        hook,
      );
      // The note that started the thread may have been deleted since it was read.
      await keepThreadStarted(tx, thread.id);
      return reply;
    });
    await services.todos.noteCreated(n, note);
    return this.applyCommands(note, commands);
  }

  /**
   * A comment through the Commits API: a plain note, or a LegacyDiffNote on the line of the commit's diff that
   * `path`, `line` and `lineType` name (when they name none, a plain note, as GitLab makes it). The Notes API's and
   * createNote's comments too, internal when asked by one who may (`internalOf`).
   */
  async createComment(services: Services, n: Noteable, input: CommitCommentInput): Promise<NoteCreation<CreatedNote>> {
    const kind = this.kind(n.type);
    const authorId = await this.authorizeCreate(kind, services, n);
    checkBody(input.note);
    const commands = await this.quickActions(services, n, input.note, input.mergeRequestDiffHeadSha);
    if (commands?.only) return { created: null, commands: await commands.apply() };
    let legacy: { path: string; line: number; lineType: string; lineCode: string } | null = null;
    // Grape's `given :path do requires :line; requires :line_type, values: %w[new old], default: 'new' end`.
    if (input.path != null && input.line == null) throw missing('line');
    if (input.path != null && input.lineType != null && !['new', 'old'].includes(input.lineType)) throw invalidArgument('lineType');
    if (input.path != null && n.project && n.commitId) {
      const lineType = (input.lineType ?? 'new') as 'new' | 'old';
      const line = input.line!;
      for (let offset = 0; !legacy; offset += 100) {
        const page = await this.repositories.history.diff(n.project, n.commitId, false, { first: 100, after: offset ? encodeCursor(offset - 1) : null });
        const diffs = await page.nodes;
        for (const diff of diffs) {
          if (diff.newPath !== input.path) continue;
          const found = findDiffLine(diff.diff, line, lineType);
          if (found) {
            const digest = createHash('sha1').update(diff.newPath).digest('hex');
            legacy = { path: diff.newPath, line, lineType, lineCode: `${digest}_${found.oldPos}_${found.newPos}` };
          }
          break;
        }
        if (diffs.length < 100) break;
      }
    }
    const internal = await this.internalOf(kind, n, input, legacy ? 'LegacyDiffNote' : null);
    const createdAt = await this.createdAt(kind, services, n, input.createdAt);
    const hook = await this.hookContext(services, n);
    const note = await this.base.db.$transaction((tx) =>
      this.insert(
        services,
        n,
        { discussionId: newDiscussionId(n), startsDiscussion: true, type: legacy ? 'LegacyDiffNote' : null, note: commands?.content ?? input.note, authorId, internal, ...(legacy ?? {}), ...(createdAt ? { createdAt, updatedAt: createdAt } : {}) },
        tx,
        hook,
      ),
    );
    await services.todos.noteCreated(n, note);
    return this.applyCommands(note, commands);
  }

  /** NotePolicy's `admin_note` on one note of the noteable. */
  private async authorizeAdmin(n: Noteable, note: NoteRow): Promise<void> {
    if (!this.base.viewer) throw unauthenticated();
    if (!(await this.mayAdmin(n.project, note))) throw forbidden();
  }

  /**
   * NotePolicy's `admin_note`: on a project's noteable the project's rule; on one of no project (a personal snippet)
   * its author and administrators, never a system note.
   */
  private async mayAdmin(project: Noteable['project'], note: NoteRow): Promise<boolean> {
    const viewer = this.base.viewer;
    // NotePolicy's `internal & ~can_read_internal_note` prevents `admin_note`, even to the note's author.
    if (note.internal && !(await this.canReadInternal({ project, groupId: note.groupId }))) return false;
    if (!project) return !note.system && !!viewer && (this.base.access.allowed('admin_all_resources') || note.authorId === viewer.id);
    return this.base.access.can('admin_note', { authorId: note.authorId, system: note.system, project });
  }

  /** Whether the viewer may edit and delete the note (GraphQL's `userPermissions.adminNote`). */
  async canAdmin(note: NoteRow): Promise<boolean> {
    const project = note.projectId === null ? null : await this.projects.find({ id: note.projectId });
    if (note.projectId !== null && !project) return false;
    return this.mayAdmin(project, note);
  }

  /** The Discussions API's `PUT …/notes/:note_id`: exactly one of `body` (a change of text) and `resolved`. */
  async updateOrResolve(services: Services, n: Noteable, id: number, body: string | null | undefined, resolved: boolean | null | undefined, confidential?: boolean | null): Promise<NoteRow> {
    // The Notes API's `PUT …/notes/:note_id` takes `body` and the deprecated `confidential`, neither required.
    if (resolved == null && confidential != null) return this.update(services, n, id, body, confidential);
    if (body == null && resolved == null) throw exactlyOneOf('body', 'resolved');
    if (body != null && resolved != null) throw mutuallyExclusive('body', 'resolved');
    if (body != null) return this.update(services, n, id, body, confidential);
    // API::Helpers::NotesHelpers#resolve_note: `resolve_note` on the note, then the note must be resolvable.
    const note = await this.find(n, id);
    if (!this.base.viewer) throw unauthenticated();
    if (!(await this.mayResolve(n, note))) throw forbidden();
    if (!isResolvable(note)) throw badRequest('400 Bad request - Note is not resolvable');
    await this.setResolved(services, n, [note], resolved!);
    return (await this.base.db.note.findUnique({ where: { id: note.id } })) ?? note;
  }

  /**
   * `resolve_note` (notes/policy.ts): Developers of the project, the noteable's author and, for one note, its author.
   * Off a project (a personal snippet), NotePolicy's own rule: the note's author.
   */
  async mayResolve(n: Pick<Noteable, 'project' | 'groupId' | 'authorId'>, note: { authorId: number; internal?: boolean } | null): Promise<boolean> {
    const viewer = this.base.viewer;
    if (note?.internal && !(await this.canReadInternal(n))) return false;
    if (!n.project) return !!viewer && (this.base.access.allowed('admin_all_resources') || note?.authorId === viewer.id);
    return this.base.access.can('resolve_note', { project: n.project, authorIds: [n.authorId, note?.authorId] });
  }

  /**
   * The Discussions API's `PUT …/discussions/:discussion_id` with `resolved` and GraphQL's discussionToggleResolve
   * (Discussions::ResolveService, UnresolveService): every resolvable note of the thread. Discussion#can_resolve? asks
   * for a signed-in user, a resolvable thread, and the noteable's author or `resolve_note` in the project: 403 otherwise.
   */
  async resolveDiscussion(services: Services, n: Noteable, discussionId: string, resolved: boolean): Promise<DiscussionRow> {
    const thread = await this.discussion(n, discussionId);
    if (!this.base.viewer) throw unauthenticated();
    const notes = thread.notes.filter(isResolvable);
    if (!notes.length || !(await this.mayResolve(n, null))) throw forbidden();
    await this.setResolved(services, n, notes, resolved);
    return this.discussion(n, discussionId);
  }

  /**
   * The threads a follow-up issue addresses (Issues::ResolveDiscussions#discussions_to_resolve): the one named, as it
   * is, when `discussionId` is given (none when the noteable has no such thread); otherwise every thread still to be
   * resolved (Noteable#discussions_to_be_resolved), oldest first.
   */
  async threadsToResolve(n: Noteable, discussionId: string | null): Promise<DiscussionRow[]> {
    if (discussionId !== null) return DISCUSSION_ID.test(discussionId) ? this.threads(n, [discussionId]) : [];
    const open = await this.base.db.note.findMany({
      where: { AND: [this.where(n), { system: false, type: { in: ['DiffNote', 'DiscussionNote'] }, resolvedAt: null }] },
      select: { discussionId: true },
    });
    const threads = await this.threads(n, [...new Set(open.map((note) => note.discussionId))]);
    const start = (t: DiscussionRow) => t.notes[0];
    return threads
      .filter((t) => t.notes.some(isResolvable))
      .sort((a, b) => start(a).createdAt.getTime() - start(b).createdAt.getTime() || start(a).id - start(b).id);
  }

  /**
   * Discussions::ResolveService with a follow-up issue: each thread the viewer may resolve (Discussion#can_resolve?)
   * is resolved, and a system note in it says where it continues (SystemNoteService.discussion_continued_in_issue:
   * `created #12 to continue this discussion`); the others are left as they are.
   */
  async continueInIssue(services: Services, n: Noteable, threads: readonly DiscussionRow[], issueReference: string): Promise<void> {
    const viewer = this.base.access.requireViewer();
    if (!(await this.mayResolve(n, null))) return;
    const kind = this.kind(n.type);
    const now = new Date();
    await this.base.db.$transaction(async (tx) => {
      for (const thread of threads) {
        const open = thread.notes.filter((note) => isResolvable(note) && note.resolvedAt === null);
        if (!open.length) continue;
        await tx.note.updateMany({ where: { id: { in: open.map((note) => note.id) } }, data: { resolvedAt: now, resolvedById: viewer.id } });
        const first = thread.notes[0];
        await tx.note.create({
          data: {
            noteableType: first.noteableType,
            noteableId: first.noteableId,
            projectId: first.projectId,
            groupId: first.groupId,
            discussionId: thread.id,
            type: 'DiscussionNote',
            note: `created ${issueReference} to continue this discussion`,
            authorId: viewer.id,
            system: true,
            createdAt: now,
            updatedAt: now,
          },
        });
      }
      await kind.resolutionChanged?.(this.ctx(services), n, tx);
    });
  }

  /**
   * Discussion#resolve! or #unresolve! of a whole thread, its resolvable notes, without an ability check (the caller
   * decided, as DraftNotes::PublishService does with Discussion#can_resolve?).
   */
  async setThreadResolved(services: Services, n: Noteable, discussionId: string, resolved: boolean): Promise<void> {
    const thread = await this.discussion(n, discussionId);
    await this.setResolved(services, n, thread.notes.filter(isResolvable), resolved);
  }

  /** Resolves (by the viewer, now) or unresolves those of `notes` not already so; the merge request's status follows. */
  private async setResolved(services: Services, n: Noteable, notes: NoteRow[], resolved: boolean): Promise<void> {
    const ids = notes.filter((note) => (note.resolvedAt !== null) !== resolved).map((note) => note.id);
    if (!ids.length) return;
    const data = resolved ? { resolvedAt: new Date(), resolvedById: this.base.viewer!.id } : { resolvedAt: null, resolvedById: null };
    const kind = this.kind(n.type);
    await this.base.db.$transaction(async (tx) => {
      await tx.note.updateMany({ where: { id: { in: ids } }, data });
      await kind.resolutionChanged?.(this.ctx(services), n, tx);
    });
  }

  /**
   * Changes a note's text (Notes::UpdateService): its author or a Maintainer. `confidential`, deprecated, may only
   * say what the note already is (Note's ensure_confidentiality_not_changed: `can not be changed for existing notes`).
   */
  async update(services: Services, n: Noteable, id: number, body: string | null | undefined, confidential?: boolean | null): Promise<NoteRow> {
    const note = await this.find(n, id);
    await this.authorizeAdmin(n, note);
    if (confidential != null && confidential !== note.internal) throw invalid({ confidential: ['can not be changed for existing notes'] }, { badRecord: 'Note' });
    if (body == null) return note;
    checkBody(body);
    if (body === note.note) return note;
    const now = new Date();
    const hook = await this.hookContext(services, n);
    return this.base.db.$transaction(async (tx) => {
      const updated = await tx.note.update({ where: { id: note.id }, data: { note: body, lastEditedAt: now, updatedById: this.base.viewer!.id, updatedAt: now } });
      await this.queueHook(n, updated, 'update', hook, tx);
      return updated;
    });
  }

  /** Deletes a note (Notes::DestroyService): its author or a Maintainer. */
  async destroy(n: Noteable, id: number): Promise<NoteRow> {
    const note = await this.find(n, id);
    await this.authorizeAdmin(n, note);
    await this.base.db.$transaction(async (tx) => {
      await lockThread(tx, note.discussionId);
      await tx.note.deleteMany({ where: { id: note.id } });
      await keepThreadStarted(tx, note.discussionId);
    });
    return note;
  }

  /** The note's text as HTML, its references resolved for this viewer (markdown.ts). */
  bodyHtml(services: Services, note: NoteRow): Promise<string> {
    return this.markdownHtml(services, note.note, note.projectId);
  }

  /**
   * Any Markdown text of a project (or of no project: a group's, a user's) as HTML, GitLab's references (`@user`,
   * `#12`, `!3`, …) resolved for this viewer: notes' `bodyHtml` and every other `descriptionHtml` use it.
   */
  async markdownHtml(services: Services, text: string, projectId: number | null): Promise<string> {
    const resolvers = referenceResolversInUse();
    const { usernames, numbers } = referencedIn(text, resolvers.map((r) => r.prefix));
    // Mentions and every kind of numbered reference are looked up side by side, so the texts of a list reach each
    // loader together (one batch per kind, whichever references each text makes).
    const [users, numbered, project] = await Promise.all([
      usernames.length ? this.base.loaders.notes.usersByUsername.loadMany(usernames) : [],
      this.numberedReferences(services, resolvers, numbers, projectId),
      // Links to uploads name their project's path (markdown.ts).
      projectId !== null && text.includes('/uploads/') ? this.projects.find({ id: projectId }) : null,
    ]);
    const found = new Map<string, { id: number; username: string; name: string }>();
    for (const user of users) if (user && !(user instanceof Error)) found.set(user.username.toLowerCase(), user);
    return renderMarkdown(text, { users: found, numbered, externalUrl: this.base.app.config.externalUrl, projectPath: project?.fullPath ?? null });
  }

  /** What a text's numbered references (`#12`, `!3`) name in its project, by prefix, for this viewer. */
  private async numberedReferences(services: Services, resolvers: ReferenceResolver[], numbers: Map<string, number[]>, projectId: number | null) {
    const numbered = new Map<string, Map<number, NumberedReference>>();
    if (!numbers.size) return numbered;
    const project = projectId === null ? null : await this.projects.find({ id: projectId });
    await Promise.all(
      resolvers.map(async (resolver) => {
        const wanted = numbers.get(resolver.prefix);
        if (wanted) numbered.set(resolver.prefix, await resolver.resolve(this.ctx(services), project, wanted, this.base.app.config.externalUrl));
      }),
    );
    return numbered;
  }
}
