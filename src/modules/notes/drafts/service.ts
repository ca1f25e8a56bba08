/**
 * Merge request draft notes (GitLab's DraftNote, DraftNotes::CreateService, DestroyService and PublishService, and the
 * Draft Notes API's `lib/api/draft_notes.rb`): a reviewer's pending comments, each seen by its author alone (every
 * lookup is by merge request and author: anyone else's is not found), published as real notes through the notes
 * engine (a reply in the thread it names, a diff thread at its position, else a comment), with their events, hooks,
 * to-do items and quick actions, then deleted. Publishing them all is a review: the reviewer is marked as having
 * reviewed the merge request.
 */
import { Prisma } from '../../../db/database.js';
import { argumentRefused, badRequest, forbidden, invalid, recordNotFound } from '../../../errors.js';
import type { Ref } from '../../../graphql/ids.js';
import { connection, listConnection, type PageArgs } from '../../../graphql/connection.js';
import type { ServiceBase, Services } from '../../module.js';
import { noteableKind, type Noteable } from '../noteables.js';
import { isResolvable, type NotesService } from '../service.js';

export type DraftNoteRow = Prisma.DraftNoteGetPayload<object>;

/** What `POST …/draft_notes` takes (DraftNotes::CreateService's params). */
export interface DraftNoteInput {
  note: string;
  commitId?: string | null;
  inReplyToDiscussionId?: string | null;
  resolveDiscussion?: boolean | null;
  position?: Record<string, unknown> | null;
}

const DISCUSSION_ID = /^[0-9a-f]{40}$/;

/** Gitlab::Diff::Position#complete?: the diff refs and the type are there (DraftNote#on_diff?). */
function onDiff(position: unknown): position is Record<string, unknown> {
  if (!position || typeof position !== 'object') return false;
  const p = position as Record<string, unknown>;
  return ['start_sha', 'head_sha', 'position_type'].every((k) => p[k] != null && p[k] !== '');
}

/**
 * The entity's `position` (Gitlab::Diff::Position#to_h of the draft's position, an empty one when it has none): its
 * refs, paths and type, with a text position's lines and line range or an image's size and point.
 */
export function draftPositionHash(position: unknown): Record<string, unknown> {
  const p = (position && typeof position === 'object' ? position : {}) as Record<string, unknown>;
  const text = (v: unknown) => (typeof v === 'string' && v !== '' ? v : null);
  const int = (v: unknown) => {
    const n = typeof v === 'number' ? v : typeof v === 'string' && /^-?\d+$/.test(v) ? Number(v) : NaN;
    return Number.isSafeInteger(n) ? n : null;
  };
  const type = text(p.position_type) ?? 'text';
  const hash: Record<string, unknown> = {
    base_sha: text(p.base_sha),
    start_sha: text(p.start_sha),
    head_sha: text(p.head_sha),
    old_path: text(p.old_path),
    new_path: text(p.new_path),
    position_type: type,
  };
  if (type === 'image') return { ...hash, width: int(p.width), height: int(p.height), x: int(p.x), y: int(p.y) };
  if (type === 'file') return hash;
  return { ...hash, old_line: int(p.old_line), new_line: int(p.new_line), line_range: p.line_range && typeof p.line_range === 'object' ? p.line_range : null };
}

export class DraftNotes {
  constructor(
    private readonly base: ServiceBase,
    private readonly notes: NotesService,
  ) {}

  private get db() {
    return this.base.db;
  }

  /**
   * The Draft Notes API's merge request (API::Helpers#find_project_merge_request, through MergeRequestsFinder): the
   * project (`404 Project Not Found` when hidden), then a merge request of it the viewer may read, else ActiveRecord's
   * `404 Not found` (a Guest of a private project included).
   */
  async mergeRequest(services: Services, projectRef: Ref, iid: string): Promise<Noteable> {
    const kind = noteableKind('MergeRequest')!;
    const project = await services.projects.get(projectRef);
    const ctx = { access: this.base.access, services };
    const found = await kind.find(ctx, project, iid);
    if (!found || !(await kind.canRead(ctx, found))) throw recordNotFound();
    return found;
  }

  /** DraftNote.authored_by(current_user) on the merge request. */
  private own(mergeRequestId: number): Prisma.DraftNoteWhereInput {
    const viewer = this.base.access.requireViewer();
    return { mergeRequestId, authorId: viewer.id };
  }

  /** `GET …/draft_notes`: the viewer's drafts on the merge request, oldest first; none for anonymous callers. */
  list(mergeRequestId: number, page: PageArgs) {
    if (!this.base.viewer) return listConnection(page, []);
    const where = this.own(mergeRequestId);
    return connection(
      page,
      ({ skip, take }) => this.db.draftNote.findMany({ where, orderBy: { id: 'asc' }, skip, take }),
      () => this.db.draftNote.count({ where }),
    );
  }

  /** One of the viewer's drafts on the merge request: `404 Not found` for anyone else's (ActiveRecord's find); null for anonymous callers. */
  async find(mergeRequestId: number, id: number): Promise<DraftNoteRow | null> {
    if (!this.base.viewer) return null;
    const draft = await this.db.draftNote.findFirst({ where: { AND: [this.own(mergeRequestId), { id }] } });
    if (!draft) throw recordNotFound();
    return draft;
  }

  private async get(n: Noteable, id: number): Promise<DraftNoteRow> {
    this.base.access.requireViewer();
    return (await this.find(n.id!, id))!;
  }

  /** The first note of a thread of the merge request, and whether any of its notes resolves, or null. */
  private async thread(n: Noteable, discussionId: string): Promise<{ system: boolean; resolvable: boolean } | null> {
    if (!DISCUSSION_ID.test(discussionId)) return null;
    const notes = await this.db.note.findMany({
      where: { noteableType: n.type, noteableId: n.id, discussionId },
      select: { system: true, type: true, noteableType: true },
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    });
    if (!notes.length) return null;
    return { system: notes[0].system, resolvable: notes.some(isResolvable) };
  }

  /**
   * Discussion#can_resolve? for the viewer: a thread with a resolvable note, and the merge request's author or
   * `resolve_note` in its project.
   */
  private async canResolve(n: Noteable, thread: { resolvable: boolean } | null): Promise<boolean> {
    return !!thread?.resolvable && (await this.notes.mayResolve(n, null));
  }

  /**
   * `POST …/draft_notes` (DraftNotes::CreateService): `create_note` on the merge request (403 otherwise); a reply
   * names a thread of it that is not a system note's; resolving needs a thread the viewer may resolve; one draft per
   * author and thread.
   */
  async create(services: Services, n: Noteable, input: DraftNoteInput): Promise<DraftNoteRow> {
    const viewer = this.base.access.requireViewer();
    await this.authorizeNote(services, n);
    let discussionId: string | null = null;
    let thread: { system: boolean; resolvable: boolean } | null = null;
    if (input.inReplyToDiscussionId) {
      thread = await this.thread(n, input.inReplyToDiscussionId);
      if (!thread) throw invalid({ base: ['Thread to reply to cannot be found'] });
      if (thread.system) throw invalid({ base: ['Replies to system notes are not allowed'] });
      discussionId = input.inReplyToDiscussionId;
    }
    if (input.resolveDiscussion && !(await this.canResolve(n, thread))) throw invalid({ base: ['User is not allowed to resolve thread'] });
    if (discussionId && (await this.db.draftNote.count({ where: { mergeRequestId: n.id!, authorId: viewer.id, discussionId } }))) {
      throw invalid({ authorId: ['has already been taken'] });
    }
    const at = new Date();
    return this.db.draftNote.create({
      data: {
        mergeRequestId: n.id!,
        authorId: viewer.id,
        note: input.note,
        discussionId,
        resolveDiscussion: input.resolveDiscussion ?? false,
        commitId: input.commitId && input.commitId !== 'undefined' ? input.commitId : null,
        position: (input.position ?? undefined) as Prisma.InputJsonValue | undefined,
        createdAt: at,
        updatedAt: at,
      },
    });
  }

  /**
   * `PUT …/draft_notes/:draft_note_id`: a new text (required, `Missing params to modify` without one) and the position
   * given, none when none is (GitLab's `update!(note:, position:)`).
   */
  async update(n: Noteable, id: number, note: string | null | undefined, position: Record<string, unknown> | null | undefined): Promise<DraftNoteRow> {
    this.base.access.requireViewer();
    // Grape's `allow_blank: false`, then the route's own `bad_request!` when no text is given.
    if (note != null && note.trim() === '') throw argumentRefused('note', 'is empty');
    if (note == null) throw badRequest('400 Bad request - Missing params to modify');
    const draft = await this.get(n, id);
    return this.db.draftNote.update({
      where: { id: draft.id },
      data: { note, position: position ? (position as Prisma.InputJsonValue) : Prisma.DbNull, updatedAt: new Date() },
    });
  }

  /** `DELETE …/draft_notes/:draft_note_id` (DraftNotes::DestroyService): the draft as it was. */
  async destroy(n: Noteable, id: number): Promise<DraftNoteRow> {
    const draft = await this.get(n, id);
    await this.db.draftNote.deleteMany({ where: { id: draft.id } });
    return draft;
  }

  /**
   * `create_note` on the merge request, as CreateService asks it and PublishService asks it again (403; GitLab's
   * publish answers an empty 500).
   */
  private async authorizeNote(services: Services, n: Noteable): Promise<void> {
    if (!(await noteableKind(n.type)!.canCreateNote({ access: this.base.access, services }, n))) throw forbidden();
  }

  /**
   * DraftNotes::PublishService#create_note_from_draft: the note as Notes::CreateService makes it from the draft's
   * publish_params (a reply in its thread, a DiffNote thread when its position is complete, else a comment), then
   * its thread resolved when the draft asked and the viewer may, else unresolved.
   */
  private async publishOne(services: Services, n: Noteable, draft: DraftNoteRow): Promise<void> {
    if (draft.discussionId) {
      await this.notes.reply(services, n, draft.discussionId, { body: draft.note });
      const thread = await this.thread(n, draft.discussionId);
      const resolve = draft.resolveDiscussion && (await this.canResolve(n, thread));
      if (thread?.resolvable) await this.notes.setThreadResolved(services, n, draft.discussionId, resolve);
    } else if (onDiff(draft.position)) {
      await this.notes.createDiscussion(services, n, { body: draft.note, position: draft.position }, { baseShaOptional: true });
    } else {
      await this.notes.createComment(services, n, { note: draft.note });
    }
    await this.db.draftNote.deleteMany({ where: { id: draft.id } });
  }

  /** `PUT …/draft_notes/:draft_note_id/publish`: that draft alone. */
  async publish(services: Services, n: Noteable, id: number): Promise<void> {
    const draft = await this.get(n, id);
    await this.authorizeNote(services, n);
    await this.publishOne(services, n, draft);
  }

  /**
   * `POST …/draft_notes/bulk_publish` (PublishService#publish_draft_notes): every draft of the viewer's on the merge
   * request, oldest first, then the viewer marked as having reviewed it (MarkReviewerReviewedService). Nothing when
   * there are none.
   */
  async publishAll(services: Services, n: Noteable): Promise<void> {
    const where = this.own(n.id!);
    await this.authorizeNote(services, n);
    const drafts = await this.db.draftNote.findMany({ where, orderBy: { id: 'asc' } });
    if (!drafts.length) return;
    for (const draft of drafts) await this.publishOne(services, n, draft);
    const kind = noteableKind(n.type)!;
    if (kind.reviewPublished) await this.db.$transaction((tx) => kind.reviewPublished!({ access: this.base.access, services }, n, tx));
  }
}
