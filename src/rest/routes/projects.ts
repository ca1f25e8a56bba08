/** Projects and project members. */
import type { RestRoute } from '../route.js';

export const projectRoutes: RestRoute[] = [
  { method: 'GET', path: '/projects', operation: 'RestListProjects', paginate: true },
  { method: 'POST', path: '/projects', operation: 'RestCreateProject', authenticate: true },
  { method: 'GET', path: '/projects/:id', operation: 'RestGetProject', notFound: 'Project' },
  { method: 'GET', path: '/projects/:id/members', operation: 'RestListProjectMembers', result: 'project.projectMembers', paginate: true, notFound: 'Project' },
  { method: 'GET', path: '/projects/:id/members/all', operation: 'RestListAllProjectMembers', result: 'project.projectMembers', paginate: true, notFound: 'Project' },
  { method: 'POST', path: '/projects/:id/members', operation: 'RestCreateProjectMember', authenticate: true },
];
