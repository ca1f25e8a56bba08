/** GitLab's Issue Links API (`lib/api/issue_links.rb`, every call behind `authenticate!`). */
import type { RestRoute } from '../../rest/route.js';

const links = '/projects/:id/issues/:issue_iid/links';

export const issueLinkRoutes: RestRoute[] = [
  { method: 'GET', path: links, operation: 'RestListIssueLinks', result: 'relatedIssues', authenticate: true },
  { method: 'GET', path: `${links}/:issue_link_id`, operation: 'RestGetIssueLink', result: 'issueLink', authenticate: true },
  { method: 'POST', path: links, operation: 'RestCreateIssueLink', result: 'issueLinkCreate.issueLink', authenticate: true },
  { method: 'DELETE', path: `${links}/:issue_link_id`, operation: 'RestDeleteIssueLink', result: 'issueLinkDestroy.issueLink', status: 200, authenticate: true },
];
