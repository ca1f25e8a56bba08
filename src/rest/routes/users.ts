/** Version, users and personal access tokens. */
import type { RestRoute } from '../route.js';

export const userRoutes: RestRoute[] = [
  { method: 'GET', path: '/version', operation: 'RestVersion', authenticate: true, scopes: ['read_user'] },
  { method: 'GET', path: '/metadata', operation: 'RestMetadata', authenticate: true, scopes: ['read_user'] },
  { method: 'GET', path: '/user', operation: 'RestCurrentUser', authenticate: true, scopes: ['read_user'] },
  { method: 'GET', path: '/users', operation: 'RestListUsers', paginate: true, scopes: ['read_user'] },
  { method: 'POST', path: '/users', operation: 'RestCreateUser' },
  { method: 'GET', path: '/users/:id', operation: 'RestGetUser', notFound: 'User', scopes: ['read_user'] },
  { method: 'POST', path: '/users/:id/personal_access_tokens', operation: 'RestCreatePersonalAccessToken' },
  { method: 'GET', path: '/personal_access_tokens', operation: 'RestListPersonalAccessTokens', paginate: true, authenticate: true },
  { method: 'GET', path: '/personal_access_tokens/self', operation: 'RestGetOwnPersonalAccessToken', authenticate: true, scopes: ['read_user'] },
  { method: 'DELETE', path: '/personal_access_tokens/self', operation: 'RestRevokeOwnPersonalAccessToken', status: 204, authenticate: true, scopes: ['read_api', 'read_user'] },
  { method: 'GET', path: '/personal_access_tokens/:id', operation: 'RestGetPersonalAccessToken', authenticate: true },
  { method: 'DELETE', path: '/personal_access_tokens/:id', operation: 'RestRevokePersonalAccessToken', status: 204, authenticate: true },
];
