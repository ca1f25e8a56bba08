/**
 * Merge requests as noteables of the notes engine (GitLab's MergeRequest is a Noteable): found by iid in their
 * project, read by whoever may read the merge request, commented on by those who may read it and create notes in the
 * project, unless its discussion is locked (then those who may administer it). Their threads resolve
 * (Noteable.resolvable_types), may start on a line of the diff (a DiffNote with its `position`), and a single comment
 * may be replied to.
 */
import { registerIidReferences, registerNoteable, type Noteable, type NoteableContext, type NoteableKind } from '../notes/noteables.js';
import type { ProjectRow } from '../projects/service.js';
import { MERGE_REQUEST, mergeRequestSubject, type MergeRequestRow } from './service.js';

type MergeRequestNoteable = Noteable & { mergeRequest: MergeRequestRow };

function noteableOf(project: ProjectRow, mr: MergeRequestRow): MergeRequestNoteable {
  return { type: MERGE_REQUEST, project, groupId: null, id: mr.id, commitId: null, iid: mr.iid, title: mr.title, authorId: mr.authorId, mergeRequest: mr };
}

const subjectOf = (noteable: Noteable) => mergeRequestSubject(noteable.project!, (noteable as MergeRequestNoteable).mergeRequest);

const fromRow = async (ctx: NoteableContext, mr: MergeRequestRow) => noteableOf(await ctx.services.projects.get({ id: mr.projectId }), mr);

export const mergeRequestNoteables: NoteableKind = {
  type: MERGE_REQUEST,
  enumValue: 'MERGE_REQUEST',
  resource: 'Merge Request',
  replyable: true,
  resolvable: true,
  diffNotes: true,
  async find(ctx, project, key) {
    if (!/^\d{1,9}$/.test(key)) return null;
    const mr = await ctx.services.merge_requests.find(project, Number(key));
    return mr && noteableOf(project, mr);
  },
  fromRow: (ctx, row) => fromRow(ctx, row as MergeRequestRow),
  async ofNote(ctx, note) {
    const mr = note.noteableId === null ? null : await ctx.services.merge_requests.byId(note.noteableId);
    return mr && fromRow(ctx, mr);
  },
  readableIds: (ctx, ids) => ctx.services.merge_requests.readableIds(ids),
  async canRead(ctx, noteable) {
    return !!noteable.project && ctx.access.can('read_merge_request', subjectOf(noteable));
  },
  async canCreateNote(ctx, noteable) {
    if (!noteable.project || !(await ctx.access.can('read_merge_request', subjectOf(noteable)))) return false;
    if (!(await ctx.access.can('create_note', noteable.project))) return false;
    return !(noteable as MergeRequestNoteable).mergeRequest.discussionLocked || ctx.access.can('admin_merge_request', subjectOf(noteable));
  },
  async canSetCreatedAt(ctx, noteable) {
    return !!noteable.project && ctx.access.can('set_note_created_at', noteable.project);
  },
  async hookAttrs(ctx, noteable) {
    const mr = (noteable as MergeRequestNoteable).mergeRequest;
    return { key: 'merge_request', attrs: await ctx.services.merge_requests.hookAttrs(noteable.project!, mr), confidential: false };
  },
  async resolutionChanged(ctx, noteable, tx) {
    await ctx.services.merge_requests.announce(tx, (noteable as MergeRequestNoteable).mergeRequest, ['mergeStatus']);
  },
  async discussionStarted(ctx, noteable, tx) {
    await ctx.services.merge_requests.markReviewed(tx, (noteable as MergeRequestNoteable).mergeRequest);
  },
  async reviewPublished(ctx, noteable, tx) {
    await ctx.services.merge_requests.markReviewed(tx, (noteable as MergeRequestNoteable).mergeRequest);
  },
  async iidOf(ctx, noteableId) {
    return (await ctx.services.merge_requests.iidOf(noteableId)) ?? null;
  },
};

registerNoteable(mergeRequestNoteables);
registerIidReferences({ prefix: '!', referenceType: 'merge_request', route: 'merge_requests', readable: (ctx, project, iids) => ctx.services.merge_requests.readableByIids(project, iids) });
