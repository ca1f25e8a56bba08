/**
 * The Commits API's comments (GitLab's `lib/api/commits.rb`) and the Discussions API on commits (`lib/api/discussions.rb`,
 * every route behind `authenticate!`); `noteRoutes` makes the Discussions and Notes APIs (`lib/api/notes.rb`, also
 * behind `authenticate!`) of every other noteable kind, each kind adding its routes with one call.
 */
import type { RestRoute } from '../../rest/route.js';

const commit = '/projects/:id/repository/commits/:sha';
const discussions = `${commit}/discussions`;
const note = `${discussions}/:discussion_id/notes/:note_id`;

export const notesRoutes: RestRoute[] = [
  { method: 'GET', path: `${commit}/comments`, operation: 'RestListCommitComments', result: 'projectRepository.commit.comments', paginate: true, notFound: 'Commit' },
  { method: 'POST', path: `${commit}/comments`, operation: 'RestCreateCommitComment', result: 'commitCommentCreate.note' },
  { method: 'GET', path: discussions, operation: 'RestListCommitDiscussions', result: 'noteableThreads.discussions', paginate: true, authenticate: true },
  { method: 'GET', path: `${discussions}/:discussion_id`, operation: 'RestGetCommitDiscussion', result: 'noteableThreads.discussion', authenticate: true },
  { method: 'POST', path: discussions, operation: 'RestCreateCommitDiscussion', result: 'noteableDiscussionCreate.discussion', authenticate: true },
  { method: 'GET', path: `${discussions}/:discussion_id/notes`, operation: 'RestListCommitDiscussionNotes', result: 'noteableThreads.discussionNotes', authenticate: true },
  { method: 'POST', path: `${discussions}/:discussion_id/notes`, operation: 'RestCreateCommitDiscussionNote', result: 'noteableDiscussionReply.note', authenticate: true },
  { method: 'GET', path: note, operation: 'RestGetCommitDiscussionNote', result: 'noteableThreads.note', authenticate: true },
  { method: 'PUT', path: note, operation: 'RestUpdateCommitDiscussionNote', result: 'noteableNoteUpdate.note', authenticate: true },
  { method: 'DELETE', path: note, operation: 'RestDeleteCommitDiscussionNote', result: 'noteableNoteDestroy.note', status: 204, authenticate: true },
];

/**
 * The Discussions API's and the Notes API's thirteen routes on a noteable kind, under `parent` (a path ending in
 * `/:noteable_id`, GitLab's parameter in both files: `/projects/:id/issues/:noteable_id`), run by the one set of
 * `RestListNoteable…` operations with the kind fixed by the route and `:id` naming a project, or for group noteables
 * (epics) a group.
 */
export function noteRoutes(parent: string, noteableType: string, on: 'project' | 'group' = 'project'): RestRoute[] {
  if (!parent.endsWith('/:noteable_id')) throw new Error(`noteRoutes: ${parent} must end in /:noteable_id`);
  const variables = { noteableType, ...(on === 'project' ? { groupId: null } : { projectId: null }) };
  const discussions = `${parent}/discussions`;
  const discussionNote = `${discussions}/:discussion_id/notes/:note_id`;
  const notes = `${parent}/notes`;
  const routes: Omit<RestRoute, 'variables' | 'authenticate'>[] = [
    { method: 'GET', path: discussions, operation: 'RestListNoteableDiscussions', result: 'noteableThreads.discussions', paginate: true },
    { method: 'GET', path: `${discussions}/:discussion_id`, operation: 'RestGetNoteableDiscussion', result: 'noteableThreads.discussion' },
    { method: 'POST', path: discussions, operation: 'RestCreateNoteableDiscussion', result: 'noteableDiscussionCreate.discussion', accepted: 'noteableDiscussionCreate.commands' },
    { method: 'GET', path: `${discussions}/:discussion_id/notes`, operation: 'RestListNoteableDiscussionNotes', result: 'noteableThreads.discussionNotes' },
    { method: 'POST', path: `${discussions}/:discussion_id/notes`, operation: 'RestCreateNoteableDiscussionNote', result: 'noteableDiscussionReply.note', accepted: 'noteableDiscussionReply.commands' },
    { method: 'GET', path: discussionNote, operation: 'RestGetNoteableDiscussionNote', result: 'noteableThreads.note' },
    { method: 'PUT', path: discussionNote, operation: 'RestUpdateNoteableDiscussionNote', result: 'noteableNoteUpdate.note' },
    { method: 'DELETE', path: discussionNote, operation: 'RestDeleteNoteableDiscussionNote', result: 'noteableNoteDestroy.note', status: 204 },
    { method: 'GET', path: notes, operation: 'RestListNoteableNotes', result: 'noteableThreads.notes', paginate: true },
    { method: 'GET', path: `${notes}/:note_id`, operation: 'RestGetNoteableNote', result: 'noteableThreads.note' },
    { method: 'POST', path: notes, operation: 'RestCreateNoteableNote', result: 'noteableNoteCreate.note', accepted: 'noteableNoteCreate.commands' },
    { method: 'PUT', path: `${notes}/:note_id`, operation: 'RestUpdateNoteableNote', result: 'noteableNoteUpdate.note' },
    { method: 'DELETE', path: `${notes}/:note_id`, operation: 'RestDeleteNoteableNote', result: 'noteableNoteDestroy.note', status: 204 },
  ];
  return routes.map((route) => ({ ...route, variables, authenticate: true }));
}

const drafts = '/projects/:id/merge_requests/:merge_request_iid/draft_notes';

/** GitLab's Draft Notes API (`lib/api/draft_notes.rb`, every route behind `authenticate!`). */
export const draftNoteRoutes: RestRoute[] = [
  { method: 'GET', path: drafts, operation: 'RestListDraftNotes', result: 'mergeRequestDraftNotes', paginate: true, authenticate: true },
  { method: 'GET', path: `${drafts}/:draft_note_id`, operation: 'RestGetDraftNote', result: 'mergeRequestDraftNote', authenticate: true },
  { method: 'POST', path: drafts, operation: 'RestCreateDraftNote', result: 'draftNoteCreate.draftNote', authenticate: true },
  { method: 'PUT', path: `${drafts}/:draft_note_id`, operation: 'RestUpdateDraftNote', result: 'draftNoteUpdate.draftNote', authenticate: true },
  { method: 'DELETE', path: `${drafts}/:draft_note_id`, operation: 'RestDeleteDraftNote', result: 'draftNoteDestroy.draftNote', status: 204, authenticate: true },
  { method: 'PUT', path: `${drafts}/:draft_note_id/publish`, operation: 'RestPublishDraftNote', result: 'draftNotePublish', status: 204, authenticate: true },
  { method: 'POST', path: `${drafts}/bulk_publish`, operation: 'RestBulkPublishDraftNotes', result: 'draftNotePublish', status: 204, authenticate: true },
];
