/** CI/CD job token scopes (GitLab's `lib/api/project_job_token_scope.rb`). */
import type { RestRoute } from '../../rest/route.js';

export const jobTokenScopeRoutes: RestRoute[] = [
  { method: 'GET', path: '/projects/:id/job_token_scope', operation: 'RestGetJobTokenScope', result: 'project.ciCdSettings', notFound: 'Project' },
  { method: 'PATCH', path: '/projects/:id/job_token_scope', operation: 'RestUpdateJobTokenScope', status: 204 },
  {
    method: 'GET',
    path: '/projects/:id/job_token_scope/allowlist',
    operation: 'RestListJobTokenScopeAllowlist',
    result: 'project.ciJobTokenScope.inboundAllowlist',
    paginate: true,
    notFound: 'Project',
  },
  { method: 'POST', path: '/projects/:id/job_token_scope/allowlist', operation: 'RestAddJobTokenScopeProject', result: 'ciJobTokenScopeAddProject.ciJobTokenScopeAllowlistEntry' },
  { method: 'DELETE', path: '/projects/:id/job_token_scope/allowlist/:target_project_id', operation: 'RestRemoveJobTokenScopeProject', status: 204 },
  {
    method: 'GET',
    path: '/projects/:id/job_token_scope/groups_allowlist',
    operation: 'RestListJobTokenScopeGroupsAllowlist',
    result: 'project.ciJobTokenScope.groupsAllowlist',
    paginate: true,
    notFound: 'Project',
  },
  {
    method: 'POST',
    path: '/projects/:id/job_token_scope/groups_allowlist',
    operation: 'RestAddJobTokenScopeGroup',
    result: 'ciJobTokenScopeAddGroupOrProject.ciJobTokenScopeAllowlistEntry',
  },
  { method: 'DELETE', path: '/projects/:id/job_token_scope/groups_allowlist/:target_group_id', operation: 'RestRemoveJobTokenScopeGroup', status: 204 },
];
