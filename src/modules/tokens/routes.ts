/** Personal access tokens (GitLab's `lib/api/personal_access_tokens*.rb` and `POST /users/:id/personal_access_tokens`). */
import type { RestRoute } from '../../rest/route.js';

export const tokenRoutes: RestRoute[] = [
  { method: 'POST', path: '/users/:id/personal_access_tokens', operation: 'RestCreatePersonalAccessToken', result: 'personalAccessTokenCreate.personalAccessToken' },
  { method: 'GET', path: '/personal_access_tokens', operation: 'RestListPersonalAccessTokens', paginate: true },
  { method: 'GET', path: '/personal_access_tokens/self', operation: 'RestGetOwnPersonalAccessToken' },
  { method: 'DELETE', path: '/personal_access_tokens/self', operation: 'RestRevokeOwnPersonalAccessToken', result: 'personalAccessTokenSelfRevoke.personalAccessToken', status: 204 },
  { method: 'GET', path: '/personal_access_tokens/:id', operation: 'RestGetPersonalAccessToken' },
  { method: 'DELETE', path: '/personal_access_tokens/:id', operation: 'RestRevokePersonalAccessToken', result: 'personalAccessTokenRevoke.personalAccessToken', status: 204 },
];
