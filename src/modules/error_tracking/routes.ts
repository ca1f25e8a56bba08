/** Client keys of the integrated error tracking (GitLab's `lib/api/error_tracking/client_keys.rb`); the collector is http.ts. */
import type { RestRoute } from '../../rest/route.js';

const keys = '/projects/:id/error_tracking/client_keys';

export const errorTrackingRoutes: RestRoute[] = [
  { method: 'GET', path: keys, operation: 'RestListErrorTrackingClientKeys', result: 'project.errorTrackingClientKeys', paginate: true, notFound: 'Project' },
  { method: 'POST', path: keys, operation: 'RestCreateErrorTrackingClientKey', result: 'errorTrackingClientKeyCreate.clientKey' },
  // GitLab presents the deleted key, with 200.
  { method: 'DELETE', path: `${keys}/:key_id`, operation: 'RestDeleteErrorTrackingClientKey', result: 'errorTrackingClientKeyDestroy.clientKey', status: 200 },
];
