/** Projects (GitLab's `lib/api/projects.rb`). */
import type { KeysetPagination, RestRoute } from '../../rest/route.js';

/** GitLab's Gitlab::Pagination::Keyset: projects by ID only, either way, linked by `id_after`/`id_before`. */
const PROJECTS_KEYSET: KeysetPagination = { link: 'id', orders: { id: ['asc', 'desc'] }, defaultOrder: 'created_at', defaultSort: 'desc', model: 'Project' };

export const projectRoutes: RestRoute[] = [
  { method: 'GET', path: '/projects', operation: 'RestListProjects', paginate: true, keyset: PROJECTS_KEYSET },
  { method: 'POST', path: '/projects', operation: 'RestCreateProject' },
  { method: 'GET', path: '/projects/:id', operation: 'RestGetProject', notFound: 'Project' },
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
