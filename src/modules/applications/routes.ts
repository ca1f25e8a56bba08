/** Instance-wide OAuth applications (GitLab's `lib/api/applications.rb`); the OAuth endpoints themselves are in http.ts. */
import type { RestRoute } from '../../rest/route.js';

export const applicationRoutes: RestRoute[] = [
  // The spec answers 200 on creation and renewal (GitLab's docs); its request specs expect Grape's 201.
  { method: 'POST', path: '/applications', operation: 'RestCreateApplication', result: 'oauthApplicationCreate.oauthApplication', status: 200 },
  { method: 'GET', path: '/applications', operation: 'RestListApplications' },
  { method: 'DELETE', path: '/applications/:id', operation: 'RestDeleteApplication', result: 'oauthApplicationDelete.oauthApplication', status: 204 },
  { method: 'POST', path: '/applications/:id/renew-secret', operation: 'RestRenewApplicationSecret', result: 'oauthApplicationRenewSecret.oauthApplication', status: 200 },
];
