/**
 * The Discussions API (`lib/api/discussions.rb`, every route behind `authenticate!`) and the Notes API
 * (`lib/api/notes.rb`) on group epics, run by the notes engine with `noteableType: EPIC` and the group as the noteable's parent;
 * `:epic_id` is the epic's id, as GitLab's NotesHelpers takes it.
 */
import type { RestRoute } from '../../rest/route.js';

const epic = '/groups/:id/epics/:epic_id';
const discussions = `${epic}/discussions`;
const discussionNote = `${discussions}/:discussion_id/notes/:note_id`;
const notes = `${epic}/notes`;

export const epicNoteRoutes: RestRoute[] = [
  { method: 'GET', path: discussions, operation: 'RestListEpicDiscussions', result: 'noteableThreads.discussions', paginate: true, authenticate: true },
  { method: 'GET', path: `${discussions}/:discussion_id`, operation: 'RestGetEpicDiscussion', result: 'noteableThreads.discussion', authenticate: true },
  { method: 'POST', path: discussions, operation: 'RestCreateEpicDiscussion', result: 'noteableDiscussionCreate.discussion', authenticate: true },
  { method: 'GET', path: `${discussions}/:discussion_id/notes`, operation: 'RestListEpicDiscussionNotes', result: 'noteableThreads.discussionNotes', authenticate: true },
  { method: 'POST', path: `${discussions}/:discussion_id/notes`, operation: 'RestCreateEpicDiscussionNote', result: 'noteableDiscussionReply.note', authenticate: true },
  { method: 'GET', path: discussionNote, operation: 'RestGetEpicDiscussionNote', result: 'noteableThreads.note', authenticate: true },
  { method: 'PUT', path: discussionNote, operation: 'RestUpdateEpicDiscussionNote', result: 'noteableNoteUpdate.note', authenticate: true },
  { method: 'DELETE', path: discussionNote, operation: 'RestDeleteEpicDiscussionNote', result: 'noteableNoteDestroy.note', status: 204, authenticate: true },
  { method: 'GET', path: notes, operation: 'RestListEpicNotes', result: 'noteableThreads.notes', paginate: true },
  { method: 'GET', path: `${notes}/:note_id`, operation: 'RestGetEpicNote', result: 'noteableThreads.note' },
  { method: 'POST', path: notes, operation: 'RestCreateEpicNote', result: 'noteableNoteCreate.note' },
  { method: 'PUT', path: `${notes}/:note_id`, operation: 'RestUpdateEpicNote', result: 'noteableNoteUpdate.note' },
  { method: 'DELETE', path: `${notes}/:note_id`, operation: 'RestDeleteEpicNote', result: 'noteableNoteDestroy.note', status: 204 },
];
