/** GitLab's Iterations API (`ee/lib/api/iterations.rb`): the iterations of a group and of a project's group. */
import type { RestRoute } from '../../rest/route.js';

export const iterationRoutes: RestRoute[] = [
  { method: 'GET', path: '/groups/:id/iterations', operation: 'RestListGroupIterations', result: 'group.iterations', paginate: true, notFound: 'Group' },
  { method: 'GET', path: '/projects/:id/iterations', operation: 'RestListProjectIterations', result: 'project.iterations', paginate: true, notFound: 'Project' },
];
