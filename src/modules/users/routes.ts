/** The current user and users (GitLab's `lib/api/users.rb`). */
import type { RestRoute } from '../../rest/route.js';

export const userRoutes: RestRoute[] = [
  { method: 'GET', path: '/user', operation: 'RestCurrentUser', whenNull: 'unauthenticated' },
  { method: 'GET', path: '/users', operation: 'RestListUsers', paginate: true },
  { method: 'POST', path: '/users', operation: 'RestCreateUser' },
  { method: 'PUT', path: '/user/avatar', operation: 'RestSetOwnAvatar' },
  { method: 'GET', path: '/users/:id', operation: 'RestGetUser', notFound: 'User' },
  { method: 'POST', path: '/users/:id/block', operation: 'RestBlockUser' },
  { method: 'POST', path: '/users/:id/unblock', operation: 'RestUnblockUser' },
];
