/** Projects (GitLab's `lib/api/projects.rb`). */
import type { RestRoute } from '../../rest/route.js';

export const projectRoutes: RestRoute[] = [
  { method: 'GET', path: '/projects', operation: 'RestListProjects', paginate: true },
  { method: 'POST', path: '/projects', operation: 'RestCreateProject' },
  { method: 'GET', path: '/projects/:id', operation: 'RestGetProject', notFound: 'Project' },
];
