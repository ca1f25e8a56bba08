/**
 * The Discussions API (`lib/api/discussions.rb`, every route behind `authenticate!`) and the Notes API
 * (`lib/api/notes.rb`) on project snippets, run by the notes engine with `noteableType: SNIPPET`.
 */
import type { RestRoute } from '../../rest/route.js';

const snippet = '/projects/:id/snippets/:snippet_id';
const discussions = `${snippet}/discussions`;
const discussionNote = `${discussions}/:discussion_id/notes/:note_id`;
const notes = `${snippet}/notes`;

export const snippetNoteRoutes: RestRoute[] = [
  { method: 'GET', path: discussions, operation: 'RestListSnippetDiscussions', result: 'noteableThreads.discussions', paginate: true, authenticate: true },
  { method: 'GET', path: `${discussions}/:discussion_id`, operation: 'RestGetSnippetDiscussion', result: 'noteableThreads.discussion', authenticate: true },
  { method: 'POST', path: discussions, operation: 'RestCreateSnippetDiscussion', result: 'noteableDiscussionCreate.discussion', authenticate: true },
  { method: 'GET', path: `${discussions}/:discussion_id/notes`, operation: 'RestListSnippetDiscussionNotes', result: 'noteableThreads.discussionNotes', authenticate: true },
  { method: 'POST', path: `${discussions}/:discussion_id/notes`, operation: 'RestCreateSnippetDiscussionNote', result: 'noteableDiscussionReply.note', authenticate: true },
  { method: 'GET', path: discussionNote, operation: 'RestGetSnippetDiscussionNote', result: 'noteableThreads.note', authenticate: true },
  { method: 'PUT', path: discussionNote, operation: 'RestUpdateSnippetDiscussionNote', result: 'noteableNoteUpdate.note', authenticate: true },
  { method: 'DELETE', path: discussionNote, operation: 'RestDeleteSnippetDiscussionNote', result: 'noteableNoteDestroy.note', status: 204, authenticate: true },
  { method: 'GET', path: notes, operation: 'RestListSnippetNotes', result: 'noteableThreads.notes', paginate: true },
  { method: 'GET', path: `${notes}/:note_id`, operation: 'RestGetSnippetNote', result: 'noteableThreads.note' },
  { method: 'POST', path: notes, operation: 'RestCreateSnippetNote', result: 'noteableNoteCreate.note' },
  { method: 'PUT', path: `${notes}/:note_id`, operation: 'RestUpdateSnippetNote', result: 'noteableNoteUpdate.note' },
  { method: 'DELETE', path: `${notes}/:note_id`, operation: 'RestDeleteSnippetNote', result: 'noteableNoteDestroy.note', status: 204 },
];
