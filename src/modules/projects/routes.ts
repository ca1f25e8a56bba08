/** Projects (GitLab's `lib/api/projects.rb`). */
import type { KeysetPagination, RestRoute } from '../../rest/route.js';

/** GitLab's Gitlab::Pagination::Keyset: projects by ID only, either way, linked by `id_after`/`id_before`. */
const PROJECTS_KEYSET: KeysetPagination = { link: 'id', orders: { id: ['asc', 'desc'] }, defaultOrder: 'created_at', defaultSort: 'desc', model: 'Project' };

export const projectRoutes: RestRoute[] = [
  { method: 'GET', path: '/projects', operation: 'RestListProjects', paginate: true, keyset: PROJECTS_KEYSET },
  { method: 'POST', path: '/projects', operation: 'RestCreateProject', result: 'projectCreate.project' },
  { method: 'POST', path: '/projects/user/:user_id', operation: 'RestCreateProjectForUser', result: 'projectCreate.project' },
  { method: 'GET', path: '/projects/:id', operation: 'RestGetProject', notFound: 'Project' },
  { method: 'PUT', path: '/projects/:id', operation: 'RestUpdateProject', result: 'projectUpdate.project' },
  // GitLab self-managed without delayed deletion: accepted, removed by a background worker.
  { method: 'DELETE', path: '/projects/:id', operation: 'RestDeleteProject', status: 202 },
  { method: 'POST', path: '/projects/:id/archive', operation: 'RestArchiveProject', result: 'projectArchive.project' },
  { method: 'POST', path: '/projects/:id/unarchive', operation: 'RestUnarchiveProject', result: 'projectUnarchive.project' },
  { method: 'PUT', path: '/projects/:id/transfer', operation: 'RestTransferProject', result: 'projectTransfer.project' },
  // `authenticated_as_admin!`: 401 for anonymous callers, 403 for others (the field refuses them).
  { method: 'GET', path: '/projects/:id/storage', operation: 'RestGetProjectStorage', result: 'projectRepositoryStorage', notFound: 'Project', authenticate: true },
  { method: 'POST', path: '/projects/:id/fork', operation: 'RestForkProject', result: 'projectFork.project' },
  { method: 'GET', path: '/projects/:id/forks', operation: 'RestListProjectForks', result: 'project.forks', paginate: true, notFound: 'Project' },
  { method: 'DELETE', path: '/projects/:id/fork', operation: 'RestDeleteProjectForkRelation', result: 'projectForkRelationDelete.deleted', status: 204 },
  { method: 'POST', path: '/projects/:id/fork/:forked_from_id', operation: 'RestCreateProjectForkRelation', result: 'projectForkRelationCreate.project' },
  { method: 'POST', path: '/projects/:id/star', operation: 'RestStarProject', result: 'projectStar.project' },
  { method: 'POST', path: '/projects/:id/unstar', operation: 'RestUnstarProject', result: 'projectUnstar.project' },
  { method: 'GET', path: '/projects/:id/starrers', operation: 'RestListProjectStarrers', result: 'project.starrers', paginate: true, notFound: 'Project' },
  { method: 'GET', path: '/projects/:id/users', operation: 'RestListProjectUsers', result: 'project.users', paginate: true, notFound: 'Project' },
  { method: 'GET', path: '/users/:id/starred_projects', operation: 'RestListUserStarredProjects', result: 'user.starredProjects', paginate: true, notFound: 'User' },
  {
    method: 'GET',
    path: '/projects/:id/avatar',
    operation: 'RestGetProjectAvatar',
    result: 'project.avatarFile',
    notFound: 'Project',
    raw: true,
    headers: { 'Content-Disposition': 'content_disposition' },
  },
];
