/**
 * GitLab's Merge Requests API (`lib/api/merge_requests.rb`: project, group and instance lists, one merge request,
 * create, update, delete, participants, time stats, commits, changes, diffs, merge) and the Notes and Discussions
 * APIs on merge requests (`lib/api/notes.rb`, `discussions.rb`), through the notes engine.
 */
import type { RestRoute } from '../../rest/route.js';
import { noteRoutes } from '../notes/routes.js';

const project = '/projects/:id/merge_requests';
const mr = `${project}/:merge_request_iid`;

export const mergeRequestRoutes: RestRoute[] = [
  { method: 'GET', path: project, operation: 'RestListProjectMergeRequests', result: 'project.mergeRequests', paginate: true, notFound: 'Project' },
  { method: 'GET', path: '/groups/:id/merge_requests', operation: 'RestListGroupMergeRequests', result: 'group.mergeRequests', paginate: true, notFound: 'Group' },
  { method: 'GET', path: '/merge_requests', operation: 'RestListMergeRequests', result: 'mergeRequests', paginate: true },
  { method: 'GET', path: mr, operation: 'RestGetProjectMergeRequest', result: 'projectMergeRequest' },
  { method: 'POST', path: project, operation: 'RestCreateProjectMergeRequest', result: 'mergeRequestCreate.mergeRequest', authenticate: true },
  { method: 'PUT', path: mr, operation: 'RestUpdateProjectMergeRequest', result: 'mergeRequestUpdate.mergeRequest', authenticate: true },
  { method: 'DELETE', path: mr, operation: 'RestDeleteProjectMergeRequest', result: 'mergeRequestDestroy.mergeRequest', status: 204, authenticate: true },
  { method: 'GET', path: `${mr}/participants`, operation: 'RestListMergeRequestParticipants', result: 'projectMergeRequest.participants.nodes' },
  { method: 'GET', path: `${mr}/time_stats`, operation: 'RestGetMergeRequestTimeStats', result: 'projectMergeRequest.timeStats', authenticate: true },
  { method: 'POST', path: `${mr}/time_estimate`, operation: 'RestSetMergeRequestTimeEstimate', result: 'mergeRequestTimeTracking.mergeRequest.timeStats', status: 200, authenticate: true },
  { method: 'POST', path: `${mr}/reset_time_estimate`, operation: 'RestResetMergeRequestTimeEstimate', result: 'mergeRequestTimeTracking.mergeRequest.timeStats', status: 200, authenticate: true },
  { method: 'POST', path: `${mr}/add_spent_time`, operation: 'RestAddMergeRequestSpentTime', result: 'mergeRequestTimeTracking.mergeRequest.timeStats', status: 201, authenticate: true },
  { method: 'POST', path: `${mr}/reset_spent_time`, operation: 'RestResetMergeRequestSpentTime', result: 'mergeRequestTimeTracking.mergeRequest.timeStats', status: 200, authenticate: true },
  { method: 'GET', path: `${mr}/commits`, operation: 'RestListMergeRequestCommits', result: 'projectMergeRequest.commits', paginate: true },
  { method: 'GET', path: `${mr}/changes`, operation: 'RestGetMergeRequestChanges', result: 'projectMergeRequest' },
  { method: 'GET', path: `${mr}/diffs`, operation: 'RestListMergeRequestDiffs', result: 'projectMergeRequest.diffs', paginate: true },
  { method: 'GET', path: `${mr}/merge_ref`, operation: 'RestGetMergeRequestMergeRef', result: 'projectMergeRequest' },
  { method: 'POST', path: `${mr}/cancel_merge_when_pipeline_succeeds`, operation: 'RestCancelMergeWhenPipelineSucceeds', result: 'mergeRequestCancelAutoMerge', authenticate: true },
  { method: 'PUT', path: `${mr}/rebase`, operation: 'RestRebaseProjectMergeRequest', result: 'mergeRequestRebase', status: 202, authenticate: true },
  { method: 'PUT', path: `${mr}/merge`, operation: 'RestMergeProjectMergeRequest', result: 'mergeRequestAccept.mergeRequest', authenticate: true },
  { method: 'GET', path: '/projects/:id/milestones/:milestone_id/merge_requests', operation: 'RestListProjectMilestoneMergeRequests', result: 'project.milestone.mergeRequests', paginate: true, notFound: 'Project', authenticate: true },
  { method: 'GET', path: '/groups/:id/milestones/:milestone_id/merge_requests', operation: 'RestListGroupMilestoneMergeRequests', result: 'group.milestone.mergeRequests', paginate: true, notFound: 'Group', authenticate: true },
  // Context commits (MergeRequestContextCommit): reading is open to whoever may read the merge request, as GitLab's.
  { method: 'GET', path: `${mr}/context_commits`, operation: 'RestListMergeRequestContextCommits', result: 'projectMergeRequest.contextCommits', paginate: true },
  { method: 'POST', path: `${mr}/context_commits`, operation: 'RestAddMergeRequestContextCommits', result: 'mergeRequestAddContextCommits.commits', authenticate: true },
  { method: 'DELETE', path: `${mr}/context_commits`, operation: 'RestRemoveMergeRequestContextCommits', result: 'mergeRequestRemoveContextCommits.mergeRequest', status: 204, authenticate: true },
  { method: 'GET', path: `${mr}/closes_issues`, operation: 'RestListMergeRequestClosesIssues', result: 'projectMergeRequest.closesIssues', paginate: true, authenticate: true },
  { method: 'GET', path: `${mr}/reviewers`, operation: 'RestListMergeRequestReviewers', result: 'projectMergeRequest.reviewerDetails', paginate: true },
  { method: 'GET', path: `${mr}/related_issues`, operation: 'RestListMergeRequestRelatedIssues', result: 'projectMergeRequest.relatedIssues', paginate: true },
  { method: 'GET', path: '/projects/:id/issues/:issue_iid/closed_by', operation: 'RestListIssueClosedBy', result: 'projectIssue.closingMergeRequests', paginate: true, authenticate: true },
  { method: 'GET', path: '/projects/:id/issues/:issue_iid/related_merge_requests', operation: 'RestListIssueRelatedMergeRequests', result: 'projectIssue.relatedMergeRequests', paginate: true, authenticate: true },
  { method: 'GET', path: `${mr}/approvals`, operation: 'RestGetMergeRequestApprovals', result: 'projectMergeRequest' },
  { method: 'POST', path: `${mr}/approve`, operation: 'RestApproveMergeRequest', result: 'mergeRequestApprove.mergeRequest', authenticate: true },
  { method: 'POST', path: `${mr}/unapprove`, operation: 'RestUnapproveMergeRequest', result: 'mergeRequestUnapprove.mergeRequest', authenticate: true },
  { method: 'PUT', path: `${mr}/reset_approvals`, operation: 'RestResetMergeRequestApprovals', result: 'mergeRequestResetApprovals.status', status: 202, authenticate: true },
  ...noteRoutes(`${project}/:noteable_id`, 'MERGE_REQUEST'),
  // Resolving a thread (lib/api/discussions.rb): merge requests' threads are the ones that resolve.
  {
    method: 'PUT',
    path: `${project}/:noteable_id/discussions/:discussion_id`,
    operation: 'RestResolveNoteableDiscussion',
    result: 'noteableDiscussionResolve.discussion',
    variables: { noteableType: 'MERGE_REQUEST', groupId: null },
    authenticate: true,
  },
  // lib/api/merge_request_diffs.rb (`before { authenticate! }`); `raw_diffs` is a byte stream: src/http/merge-request-raw-diffs.ts.
  { method: 'GET', path: `${mr}/versions`, operation: 'RestListMergeRequestDiffVersions', result: 'projectMergeRequest.diffVersions', paginate: true, authenticate: true },
  { method: 'GET', path: `${mr}/versions/:version_id`, operation: 'RestGetMergeRequestDiffVersion', result: 'projectMergeRequest.diffVersion', authenticate: true },
];
