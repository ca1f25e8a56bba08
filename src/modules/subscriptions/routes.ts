/** GitLab's subscriptions API (lib/api/subscriptions.rb) on issues and merge requests: 201 with the entity, 304 when nothing would change. */
import type { RestRoute } from '../../rest/route.js';

const issue = '/projects/:id/issues/:issue_iid';
const mr = '/projects/:id/merge_requests/:merge_request_iid';

export const subscriptionRoutes: RestRoute[] = [
  { method: 'POST', path: `${issue}/subscribe`, operation: 'RestSubscribeIssue', result: 'issueSetSubscription.issue', authenticate: true },
  { method: 'POST', path: `${issue}/unsubscribe`, operation: 'RestUnsubscribeIssue', result: 'issueSetSubscription.issue', authenticate: true },
  { method: 'POST', path: `${mr}/subscribe`, operation: 'RestSubscribeMergeRequest', result: 'mergeRequestSetSubscription.mergeRequest', authenticate: true },
  { method: 'POST', path: `${mr}/unsubscribe`, operation: 'RestUnsubscribeMergeRequest', result: 'mergeRequestSetSubscription.mergeRequest', authenticate: true },
];
