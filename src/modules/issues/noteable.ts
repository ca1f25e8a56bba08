/**
 * Issues as noteables of the notes engine (GitLab's Issue is a Noteable): found by iid in their project, read by
 * whoever may read the issue (a confidential issue hides its notes with it), commented on by those who may read it
 * and create notes in the project, unless its discussion is locked (then Reporters and above only, as GitLab's
 * IssuePolicy allows). A single issue comment may be replied to, turning it into a thread (Noteable.replyable_types).
 */
import { registerIidReferences, registerNoteable, type Noteable, type NoteableContext, type NoteableKind } from '../notes/noteables.js';
import type { ProjectRow } from '../projects/service.js';
import { ISSUE, issueSubject, type IssueRow } from './service.js';

function issueNoteable(project: ProjectRow, issue: IssueRow): Noteable & { issue: IssueRow } {
  return { type: ISSUE, project, groupId: null, id: issue.id, commitId: null, iid: issue.iid, title: issue.title, issue };
}

const subjectOf = (noteable: Noteable) => issueSubject(noteable.project!, (noteable as Noteable & { issue: IssueRow }).issue);

const fromRow = async (ctx: NoteableContext, issue: IssueRow) => issueNoteable(await ctx.services.projects.get({ id: issue.projectId }), issue);

export const issueNoteables: NoteableKind = {
  type: ISSUE,
  enumValue: 'ISSUE',
  resource: 'Issue',
  replyable: true,
  resolvable: false,
  internalNotes: true,
  async find(ctx, project, key) {
    if (!/^\d{1,9}$/.test(key)) return null;
    const issue = await ctx.services.issues.find(project, Number(key));
    return issue && issueNoteable(project, issue);
  },
  fromRow: (ctx, row) => fromRow(ctx, row as IssueRow),
  async ofNote(ctx, note) {
    const issue = note.noteableId === null ? null : await ctx.services.issues.byId(note.noteableId);
    return issue && fromRow(ctx, issue);
  },
  readableIds: (ctx, ids) => ctx.services.issues.readableIds(ids),
  async canRead(ctx: NoteableContext, noteable: Noteable) {
    return !!noteable.project && ctx.access.can('read_issue', subjectOf(noteable));
  },
  async canCreateNote(ctx, noteable) {
    if (!noteable.project || !(await ctx.access.can('read_issue', subjectOf(noteable)))) return false;
    if (!(await ctx.access.can('create_note', noteable.project))) return false;
    const issue = (noteable as Noteable & { issue: IssueRow }).issue;
    return !issue.discussionLocked || ctx.access.can('admin_issue', subjectOf(noteable));
  },
  async canSetCreatedAt(ctx, noteable) {
    return !!noteable.project && ctx.access.can('set_note_created_at', noteable.project);
  },
  async hookAttrs(ctx, noteable, externalUrl) {
    const issue = (noteable as Noteable & { issue: IssueRow }).issue;
    return { key: 'issue', attrs: await ctx.services.issues.hookAttrs(noteable.project!, issue, externalUrl), confidential: issue.confidential };
  },
  async iidOf(ctx, noteableId) {
    return (await ctx.services.issues.iidOf(noteableId)) ?? null;
  },
};

registerNoteable(issueNoteables);
registerIidReferences({ prefix: '#', referenceType: 'issue', route: 'issues', readable: (ctx, project, iids) => ctx.services.issues.readableByIids(project, iids) });
