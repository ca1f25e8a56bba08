/** Groups and subgroups (GitLab's `lib/api/groups.rb`). */
import type { KeysetPagination, RestRoute } from '../../rest/route.js';

/** GitLab's cursor-based keyset for groups: by name ascending, for anonymous callers only (signed-in ones page by offset). */
const GROUPS_KEYSET: KeysetPagination = { link: 'cursor', orders: { name: ['asc'] }, defaultOrder: 'name', defaultSort: 'asc', anonymousOnly: true, model: 'Group' };

export const groupRoutes: RestRoute[] = [
  { method: 'GET', path: '/groups', operation: 'RestListGroups', paginate: true, keyset: GROUPS_KEYSET },
  { method: 'POST', path: '/groups', operation: 'RestCreateGroup', result: 'groupCreate.group' },
  { method: 'GET', path: '/groups/:id', operation: 'RestGetGroup', notFound: 'Group' },
  { method: 'PUT', path: '/groups/:id', operation: 'RestUpdateGroup', result: 'groupUpdate.group' },
  { method: 'DELETE', path: '/groups/:id', operation: 'RestDeleteGroup', status: 202 },
  { method: 'POST', path: '/groups/:id/transfer', operation: 'RestTransferGroup', result: 'groupTransfer.group' },
  { method: 'GET', path: '/groups/:id/subgroups', operation: 'RestListSubgroups', result: 'group.subgroups', paginate: true, notFound: 'Group' },
  { method: 'GET', path: '/groups/:id/descendant_groups', operation: 'RestListDescendantGroups', result: 'group.descendantGroups', paginate: true, notFound: 'Group' },
  { method: 'GET', path: '/groups/:id/projects', operation: 'RestListGroupProjects', result: 'group.projects', paginate: true, notFound: 'Group' },
  {
    method: 'GET',
    path: '/groups/:id/avatar',
    operation: 'RestGetGroupAvatar',
    result: 'group.avatarFile',
    notFound: 'Group',
    raw: true,
    headers: { 'Content-Disposition': 'content_disposition' },
  },
];
