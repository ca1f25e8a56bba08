/** The Events API (GitLab's `lib/api/events.rb` and `lib/api/project_events.rb`). */
import type { RestRoute } from '../../rest/route.js';

export const activityRoutes: RestRoute[] = [
  { method: 'GET', path: '/events', operation: 'RestListEvents', result: 'currentUser.events', paginate: true, whenNull: 'unauthenticated' },
  { method: 'GET', path: '/users/:id/events', operation: 'RestListUserEvents', result: 'user.events', paginate: true, notFound: 'User' },
  { method: 'GET', path: '/projects/:id/events', operation: 'RestListProjectEvents', result: 'project.events', paginate: true, notFound: 'Project' },
];
