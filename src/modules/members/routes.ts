/** Group and project members (GitLab's `lib/api/members.rb`). */
import type { RestRoute } from '../../rest/route.js';

export const memberRoutes: RestRoute[] = [
  { method: 'GET', path: '/groups/:id/members', operation: 'RestListGroupMembers', result: 'group.groupMembers', paginate: true, notFound: 'Group' },
  { method: 'GET', path: '/groups/:id/members/all', operation: 'RestListAllGroupMembers', result: 'group.groupMembers', paginate: true, notFound: 'Group' },
  { method: 'POST', path: '/groups/:id/members', operation: 'RestCreateGroupMember' },
  { method: 'GET', path: '/projects/:id/members', operation: 'RestListProjectMembers', result: 'project.projectMembers', paginate: true, notFound: 'Project' },
  { method: 'GET', path: '/projects/:id/members/all', operation: 'RestListAllProjectMembers', result: 'project.projectMembers', paginate: true, notFound: 'Project' },
  { method: 'POST', path: '/projects/:id/members', operation: 'RestCreateProjectMember' },
];
