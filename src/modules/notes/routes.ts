/**
 * The Commits API's comments (GitLab's `lib/api/commits.rb`) and the Discussions API on commits (`lib/api/discussions.rb`,
 * every route behind `authenticate!`). A kind registered later adds its six discussion routes the same way, naming
 * itself in the operations' `noteableType`.
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
