/** Protected branches (GitLab's `lib/api/protected_branches.rb`). */
import type { RestRoute } from '../../rest/route.js';

export const protectedBranchRoutes: RestRoute[] = [
  { method: 'GET', path: '/projects/:id/protected_branches', operation: 'RestListProtectedBranches', result: 'project.protectedBranches', paginate: true, notFound: 'Project' },
  { method: 'GET', path: '/projects/:id/protected_branches/:name', operation: 'RestGetProtectedBranch', result: 'project.protectedBranch', notFound: 'Project' },
  { method: 'POST', path: '/projects/:id/protected_branches', operation: 'RestCreateProtectedBranch', result: 'protectedBranchCreate.protectedBranch' },
  { method: 'PATCH', path: '/projects/:id/protected_branches/:name', operation: 'RestUpdateProtectedBranch', result: 'protectedBranchUpdate.protectedBranch' },
  { method: 'DELETE', path: '/projects/:id/protected_branches/:name', operation: 'RestDeleteProtectedBranch', result: 'protectedBranchDelete.protectedBranch', status: 204 },
];
