/** CI/CD variables (GitLab's `lib/api/ci/variables.rb`, `lib/api/group_variables.rb`, `lib/api/admin/ci/variables.rb`). */
import type { RestRoute } from '../../rest/route.js';

export const ciVariableRoutes: RestRoute[] = [
  { method: 'GET', path: '/projects/:id/variables', operation: 'RestListProjectVariables', result: 'project.ciVariables', paginate: true, notFound: 'Project' },
  { method: 'GET', path: '/projects/:id/variables/:key', operation: 'RestGetProjectVariable', result: 'project.ciVariable', notFound: 'Project' },
  { method: 'POST', path: '/projects/:id/variables', operation: 'RestCreateProjectVariable', result: 'ciProjectVariableCreate.ciProjectVariable' },
  { method: 'PUT', path: '/projects/:id/variables/:key', operation: 'RestUpdateProjectVariable', result: 'ciProjectVariableUpdate.ciProjectVariable' },
  { method: 'DELETE', path: '/projects/:id/variables/:key', operation: 'RestDeleteProjectVariable', result: 'ciProjectVariableDelete.ciProjectVariable', status: 204 },
  { method: 'GET', path: '/groups/:id/variables', operation: 'RestListGroupVariables', result: 'group.ciVariables', paginate: true, notFound: 'Group' },
  { method: 'GET', path: '/groups/:id/variables/:key', operation: 'RestGetGroupVariable', result: 'group.ciVariable', notFound: 'Group' },
  { method: 'POST', path: '/groups/:id/variables', operation: 'RestCreateGroupVariable', result: 'ciGroupVariableCreate.ciGroupVariable' },
  { method: 'PUT', path: '/groups/:id/variables/:key', operation: 'RestUpdateGroupVariable', result: 'ciGroupVariableUpdate.ciGroupVariable' },
  { method: 'DELETE', path: '/groups/:id/variables/:key', operation: 'RestDeleteGroupVariable', result: 'ciGroupVariableDelete.ciGroupVariable', status: 204 },
  { method: 'GET', path: '/admin/ci/variables', operation: 'RestListInstanceVariables', paginate: true },
  { method: 'GET', path: '/admin/ci/variables/:key', operation: 'RestGetInstanceVariable' },
  { method: 'POST', path: '/admin/ci/variables', operation: 'RestCreateInstanceVariable', result: 'ciInstanceVariableCreate.ciInstanceVariable' },
  { method: 'PUT', path: '/admin/ci/variables/:key', operation: 'RestUpdateInstanceVariable', result: 'ciInstanceVariableUpdate.ciInstanceVariable' },
  { method: 'DELETE', path: '/admin/ci/variables/:key', operation: 'RestDeleteInstanceVariable', result: 'ciInstanceVariableDelete.ciInstanceVariable', status: 204 },
];
