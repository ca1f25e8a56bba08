/** The current user and users (GitLab's `lib/api/users.rb`). */
import type { KeysetPagination, RestRoute } from '../../rest/route.js';

/** GitLab's cursor-based keyset for users: by ID, name, username, creation or update, either way. */
const USERS_KEYSET: KeysetPagination = {
  link: 'cursor',
  orders: { id: ['asc', 'desc'], name: ['asc', 'desc'], username: ['asc', 'desc'], created_at: ['asc', 'desc'], updated_at: ['asc', 'desc'] },
  defaultOrder: 'id',
  defaultSort: 'desc',
  model: 'User',
};

export const userRoutes: RestRoute[] = [
  { method: 'GET', path: '/user', operation: 'RestCurrentUser', whenNull: 'unauthenticated' },
  { method: 'GET', path: '/users', operation: 'RestListUsers', paginate: true, keyset: USERS_KEYSET },
  { method: 'POST', path: '/users', operation: 'RestCreateUser' },
  { method: 'PUT', path: '/user/avatar', operation: 'RestSetOwnAvatar' },
  { method: 'GET', path: '/users/:id', operation: 'RestGetUser', notFound: 'User' },
  { method: 'POST', path: '/users/:id/block', operation: 'RestBlockUser' },
  { method: 'POST', path: '/users/:id/unblock', operation: 'RestUnblockUser' },
];
