/** Sharing groups and projects with groups (GitLab's `lib/api/groups.rb` and `lib/api/projects.rb`). */
import type { RestRoute } from '../../rest/route.js';

export const sharingRoutes: RestRoute[] = [
  { method: 'POST', path: '/groups/:id/share', operation: 'RestShareGroup', result: 'groupShare.group' },
  { method: 'DELETE', path: '/groups/:id/share/:group_id', operation: 'RestUnshareGroup', status: 204 },
  { method: 'GET', path: '/groups/:id/groups/shared', operation: 'RestListSharedGroups', result: 'group.sharedGroups', paginate: true, notFound: 'Group' },
  { method: 'POST', path: '/projects/:id/share', operation: 'RestShareProject', result: 'projectShare.link' },
  { method: 'DELETE', path: '/projects/:id/share/:group_id', operation: 'RestUnshareProject', status: 204 },
  { method: 'GET', path: '/projects/:id/groups', operation: 'RestListProjectGroups', result: 'project.groups', paginate: true, notFound: 'Project' },
];
