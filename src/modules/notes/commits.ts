/**
 * Commits as noteables (GitLab's Commit, a Noteable without a row: its notes carry the project and `commit_id`).
 * Reading a commit's notes needs its code (CommitPolicy's `read_commit` is ProjectPolicy's `download_code`);
 * commenting needs `create_note` on the project besides. GitLab lets no single commit comment be replied to
 * (Commit is not among `Noteable.replyable_types`) and no commit thread be resolved.
 */
import type { ProjectRow } from '../projects/service.js';
import { registerNoteable, type Noteable, type NoteableContext, type NoteableKind } from './noteables.js';

export const COMMIT = 'Commit';

function commitNoteable(project: ProjectRow, sha: string, title: string | null): Noteable {
  return { type: COMMIT, project, groupId: null, id: null, commitId: sha, iid: null, title };
}

const readable = (ctx: NoteableContext, noteable: Noteable) => (noteable.project ? ctx.access.can('download_code', noteable.project) : Promise.resolve(false));

export const commitNoteables: NoteableKind = {
  type: COMMIT,
  enumValue: 'COMMIT',
  resource: 'Commit',
  replyable: false,
  resolvable: false,
  diffNotes: true,
  async find(ctx, project, key) {
    // `user_project.commit(params[:noteable_id])`: a SHA, or a branch or tag name.
    const repository = await ctx.services.repositories.open(project);
    const commit = await repository.commit(key);
    return commit && commitNoteable(project, commit.sha, commit.message.split('\n', 1)[0]);
  },
  async ofNote(ctx, note) {
    if (note.projectId === null || note.commitId === null) return null;
    const project = await ctx.services.projects.get({ id: note.projectId });
    return commitNoteable(project, note.commitId, null);
  },
  canRead: readable,
  async canCreateNote(ctx, noteable) {
    return !!noteable.project && (await readable(ctx, noteable)) && (await ctx.access.can('create_note', noteable.project));
  },
  async canSetCreatedAt(ctx, noteable) {
    return !!noteable.project && ctx.access.can('set_note_created_at', noteable.project);
  },
};

registerNoteable(commitNoteables);
