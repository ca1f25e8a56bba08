/** Project access tokens (GitLab's `lib/api/resource_access_tokens.rb` for projects, with its self-rotation). */
import type { RestRoute } from '../../rest/route.js';

const tokens = '/projects/:id/access_tokens';
const token = `${tokens}/:token_id`;

export const projectAccessTokenRoutes: RestRoute[] = [
  { method: 'GET', path: tokens, operation: 'RestListProjectAccessTokens', paginate: true },
  { method: 'GET', path: token, operation: 'RestGetProjectAccessToken' },
  { method: 'POST', path: tokens, operation: 'RestCreateProjectAccessToken', result: 'projectAccessTokenCreate.projectAccessToken' },
  // GitLab sets 200 explicitly on both rotations.
  { method: 'POST', path: `${token}/rotate`, operation: 'RestRotateProjectAccessToken', result: 'projectAccessTokenRotate.projectAccessToken', status: 200 },
  { method: 'POST', path: `${tokens}/self/rotate`, operation: 'RestSelfRotateProjectAccessToken', result: 'projectAccessTokenSelfRotate.projectAccessToken', status: 200 },
  { method: 'DELETE', path: token, operation: 'RestRevokeProjectAccessToken', result: 'projectAccessTokenRevoke.projectAccessToken', status: 204 },
];
