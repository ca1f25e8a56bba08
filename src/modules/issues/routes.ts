/**
 * GitLab's Issues API (`lib/api/issues.rb`: project, group and instance lists, one issue, create, update, delete,
 * time tracking) and the Notes and Discussions APIs on issues (`lib/api/notes.rb`, `discussions.rb`), through the notes engine.
 */
import type { RestRoute } from '../../rest/route.js';

const project = '/projects/:id/issues';
const issue = `${project}/:issue_iid`;
const discussions = `${issue}/discussions`;
const note = `${discussions}/:discussion_id/notes/:note_id`;

export const issueRoutes: RestRoute[] = [
  { method: 'GET', path: project, operation: 'RestListProjectIssues', result: 'project.issues', paginate: true, notFound: 'Project' },
  { method: 'GET', path: '/groups/:id/issues', operation: 'RestListGroupIssues', result: 'group.issues', paginate: true, notFound: 'Group' },
  { method: 'GET', path: '/issues', operation: 'RestListIssues', result: 'issues', paginate: true },
  { method: 'GET', path: issue, operation: 'RestGetProjectIssue', result: 'projectIssue' },
  { method: 'POST', path: project, operation: 'RestCreateProjectIssue', result: 'createIssue.issue', authenticate: true },
  { method: 'PUT', path: issue, operation: 'RestUpdateProjectIssue', result: 'updateIssue.issue', authenticate: true },
  { method: 'DELETE', path: issue, operation: 'RestDeleteProjectIssue', result: 'issueDestroy.issue', status: 204, authenticate: true },
  { method: 'GET', path: `${issue}/participants`, operation: 'RestListIssueParticipants', result: 'projectIssue.participants.nodes', authenticate: true },
  { method: 'GET', path: `${issue}/time_stats`, operation: 'RestGetIssueTimeStats', result: 'projectIssue.timeStats', authenticate: true },
  { method: 'POST', path: `${issue}/time_estimate`, operation: 'RestSetIssueTimeEstimate', result: 'issueTimeTracking.issue.timeStats', status: 200, authenticate: true },
  { method: 'POST', path: `${issue}/reset_time_estimate`, operation: 'RestResetIssueTimeEstimate', result: 'issueTimeTracking.issue.timeStats', status: 200, authenticate: true },
  { method: 'POST', path: `${issue}/add_spent_time`, operation: 'RestAddIssueSpentTime', result: 'issueTimeTracking.issue.timeStats', status: 201, authenticate: true },
  { method: 'POST', path: `${issue}/reset_spent_time`, operation: 'RestResetIssueSpentTime', result: 'issueTimeTracking.issue.timeStats', status: 200, authenticate: true },
  { method: 'GET', path: discussions, operation: 'RestListIssueDiscussions', result: 'noteableThreads.discussions', paginate: true, authenticate: true },
  { method: 'GET', path: `${discussions}/:discussion_id`, operation: 'RestGetIssueDiscussion', result: 'noteableThreads.discussion', authenticate: true },
  { method: 'POST', path: discussions, operation: 'RestCreateIssueDiscussion', result: 'noteableDiscussionCreate.discussion', authenticate: true },
  { method: 'GET', path: `${discussions}/:discussion_id/notes`, operation: 'RestListIssueDiscussionNotes', result: 'noteableThreads.discussionNotes', authenticate: true },
  { method: 'POST', path: `${discussions}/:discussion_id/notes`, operation: 'RestCreateIssueDiscussionNote', result: 'noteableDiscussionReply.note', authenticate: true },
  { method: 'GET', path: note, operation: 'RestGetIssueDiscussionNote', result: 'noteableThreads.note', authenticate: true },
  { method: 'PUT', path: note, operation: 'RestUpdateIssueDiscussionNote', result: 'noteableNoteUpdate.note', authenticate: true },
  { method: 'DELETE', path: note, operation: 'RestDeleteIssueDiscussionNote', result: 'noteableNoteDestroy.note', status: 204, authenticate: true },
  { method: 'GET', path: `${issue}/notes`, operation: 'RestListIssueNotes', result: 'noteableThreads.notes', paginate: true, authenticate: true },
  { method: 'GET', path: `${issue}/notes/:note_id`, operation: 'RestGetIssueNote', result: 'noteableThreads.note', authenticate: true },
  { method: 'POST', path: `${issue}/notes`, operation: 'RestCreateIssueNote', result: 'noteableNoteCreate.note', authenticate: true },
  { method: 'PUT', path: `${issue}/notes/:note_id`, operation: 'RestUpdateIssueNote', result: 'noteableNoteUpdate.note', authenticate: true },
  { method: 'DELETE', path: `${issue}/notes/:note_id`, operation: 'RestDeleteIssueNote', result: 'noteableNoteDestroy.note', status: 204, authenticate: true },
];
