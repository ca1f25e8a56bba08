/**
 * GitLab's Iterations API (`ee/lib/api/iterations.rb`): the iterations of a group and of a project's group; and the
 * Resource iteration events API of issues (`ee/lib/api/resource_iteration_events.rb`), through the resource events
 * module's routes.
 */
import type { RestRoute } from '../../rest/route.js';
import { resourceEventRoutes } from '../resource_events/routes.js';

export const iterationRoutes: RestRoute[] = [
  { method: 'GET', path: '/groups/:id/iterations', operation: 'RestListGroupIterations', result: 'group.iterations', paginate: true, notFound: 'Group' },
  { method: 'GET', path: '/projects/:id/iterations', operation: 'RestListProjectIterations', result: 'project.iterations', paginate: true, notFound: 'Project' },
  ...resourceEventRoutes('/projects/:id/issues/:issue_iid', 'Issue', ['Iteration']),
];
