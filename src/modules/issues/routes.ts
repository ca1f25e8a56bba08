/**
 * GitLab's Issues API (`lib/api/issues.rb`: project, group and instance lists, one issue, create, update, delete,
 * time tracking, reorder, move and clone) and the Notes and Discussions APIs on issues (`lib/api/notes.rb`, `discussions.rb`), through the notes engine.
 */
import type { RestRoute } from '../../rest/route.js';
import { noteRoutes } from '../notes/routes.js';

const project = '/projects/:id/issues';
const issue = `${project}/:issue_iid`;

export const issueRoutes: RestRoute[] = [
  { method: 'GET', path: project, operation: 'RestListProjectIssues', result: 'project.issues', paginate: true, notFound: 'Project' },
  { method: 'GET', path: '/groups/:id/issues', operation: 'RestListGroupIssues', result: 'group.issues', paginate: true, notFound: 'Group' },
  { method: 'GET', path: '/issues', operation: 'RestListIssues', result: 'issues', paginate: true },
  { method: 'GET', path: '/issues/:id', operation: 'RestGetIssueAsAdmin', result: 'adminIssue', authenticate: true },
  { method: 'GET', path: '/issues_statistics', operation: 'RestIssuesStatistics', variables: { projectId: null, groupId: null } },
  { method: 'GET', path: '/projects/:id/issues_statistics', operation: 'RestIssuesStatistics', variables: { groupId: null }, notFound: 'Project' },
  { method: 'GET', path: '/groups/:id/issues_statistics', operation: 'RestIssuesStatistics', variables: { projectId: null }, notFound: 'Group' },
  { method: 'GET', path: issue, operation: 'RestGetProjectIssue', result: 'projectIssue' },
  { method: 'POST', path: project, operation: 'RestCreateProjectIssue', result: 'createIssue.issue', authenticate: true },
  { method: 'PUT', path: issue, operation: 'RestUpdateProjectIssue', result: 'updateIssue.issue', authenticate: true },
  { method: 'DELETE', path: issue, operation: 'RestDeleteProjectIssue', result: 'issueDestroy.issue', status: 204, authenticate: true },
  { method: 'PUT', path: `${issue}/reorder`, operation: 'RestReorderProjectIssue', result: 'issueReorder.issue', authenticate: true },
  { method: 'POST', path: `${issue}/move`, operation: 'RestMoveProjectIssue', result: 'issueMove.issue', authenticate: true },
  { method: 'POST', path: `${issue}/clone`, operation: 'RestCloneProjectIssue', result: 'issueClone.issue', authenticate: true },
  { method: 'GET', path: `${issue}/participants`, operation: 'RestListIssueParticipants', result: 'projectIssue.participants.nodes', authenticate: true },
  { method: 'GET', path: `${issue}/time_stats`, operation: 'RestGetIssueTimeStats', result: 'projectIssue.timeStats', authenticate: true },
  { method: 'POST', path: `${issue}/time_estimate`, operation: 'RestSetIssueTimeEstimate', result: 'issueTimeTracking.issue.timeStats', status: 200, authenticate: true },
  { method: 'POST', path: `${issue}/reset_time_estimate`, operation: 'RestResetIssueTimeEstimate', result: 'issueTimeTracking.issue.timeStats', status: 200, authenticate: true },
  { method: 'POST', path: `${issue}/add_spent_time`, operation: 'RestAddIssueSpentTime', result: 'issueTimeTracking.issue.timeStats', status: 201, authenticate: true },
  { method: 'POST', path: `${issue}/reset_spent_time`, operation: 'RestResetIssueSpentTime', result: 'issueTimeTracking.issue.timeStats', status: 200, authenticate: true },
  { method: 'GET', path: '/projects/:id/milestones/:milestone_id/issues', operation: 'RestListProjectMilestoneIssues', result: 'project.milestone.issues', paginate: true, notFound: 'Project', authenticate: true },
  { method: 'GET', path: '/groups/:id/milestones/:milestone_id/issues', operation: 'RestListGroupMilestoneIssues', result: 'group.milestone.issues', paginate: true, notFound: 'Group', authenticate: true },
  ...noteRoutes(`${project}/:noteable_id`, 'ISSUE'),
];
