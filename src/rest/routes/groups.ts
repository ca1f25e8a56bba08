/** Groups, subgroups and group members. */
import type { RestRoute } from '../route.js';

export const groupRoutes: RestRoute[] = [
  { method: 'GET', path: '/groups', operation: 'RestListGroups', paginate: true },
  { method: 'POST', path: '/groups', operation: 'RestCreateGroup', authenticate: true },
  { method: 'GET', path: '/groups/:id', operation: 'RestGetGroup', notFound: 'Group' },
  { method: 'GET', path: '/groups/:id/subgroups', operation: 'RestListSubgroups', result: 'group.subgroups', paginate: true, notFound: 'Group' },
  { method: 'GET', path: '/groups/:id/projects', operation: 'RestListGroupProjects', result: 'group.projects', paginate: true, notFound: 'Group' },
  { method: 'GET', path: '/groups/:id/members', operation: 'RestListGroupMembers', result: 'group.groupMembers', paginate: true, notFound: 'Group' },
  { method: 'GET', path: '/groups/:id/members/all', operation: 'RestListAllGroupMembers', result: 'group.groupMembers', paginate: true, notFound: 'Group' },
  { method: 'POST', path: '/groups/:id/members', operation: 'RestCreateGroupMember', authenticate: true },
];
