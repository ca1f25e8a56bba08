/** Group and project members (GitLab's `lib/api/members.rb`, whose `before { authenticate! }` answers anonymous callers 401). */
import type { RestRoute } from '../../rest/route.js';

export const memberRoutes: RestRoute[] = [
  { method: 'GET', path: '/groups/:id/members', operation: 'RestListGroupMembers', result: 'group.groupMembers', paginate: true, notFound: 'Group', authenticate: true },
  { method: 'GET', path: '/groups/:id/members/all', operation: 'RestListAllGroupMembers', result: 'group.groupMembers', paginate: true, notFound: 'Group', authenticate: true },
  { method: 'GET', path: '/groups/:id/members/:user_id', operation: 'RestGetGroupMember', result: 'group.groupMember', notFound: 'Group', authenticate: true },
  { method: 'GET', path: '/groups/:id/members/all/:user_id', operation: 'RestGetAllGroupMember', result: 'group.groupMember', notFound: 'Group', authenticate: true },
  { method: 'POST', path: '/groups/:id/members', operation: 'RestCreateGroupMember', result: 'groupMembersAdd.membersAddResult' },
  { method: 'PUT', path: '/groups/:id/members/:user_id', operation: 'RestUpdateGroupMember', result: 'groupMemberUpdate.groupMember' },
  { method: 'DELETE', path: '/groups/:id/members/:user_id', operation: 'RestDeleteGroupMember', result: 'groupMemberDelete.groupMember', status: 204 },
  { method: 'GET', path: '/projects/:id/members', operation: 'RestListProjectMembers', result: 'project.projectMembers', paginate: true, notFound: 'Project', authenticate: true },
  { method: 'GET', path: '/projects/:id/members/all', operation: 'RestListAllProjectMembers', result: 'project.projectMembers', paginate: true, notFound: 'Project', authenticate: true },
  { method: 'GET', path: '/projects/:id/members/:user_id', operation: 'RestGetProjectMember', result: 'project.projectMember', notFound: 'Project', authenticate: true },
  { method: 'GET', path: '/projects/:id/members/all/:user_id', operation: 'RestGetAllProjectMember', result: 'project.projectMember', notFound: 'Project', authenticate: true },
  { method: 'POST', path: '/projects/:id/members', operation: 'RestCreateProjectMember', result: 'projectMembersAdd.membersAddResult' },
  { method: 'PUT', path: '/projects/:id/members/:user_id', operation: 'RestUpdateProjectMember', result: 'projectMemberUpdate.projectMember' },
  { method: 'DELETE', path: '/projects/:id/members/:user_id', operation: 'RestDeleteProjectMember', result: 'projectMemberDelete.projectMember', status: 204 },
];
