/** Environments and deployments (GitLab's `lib/api/environments.rb` and `lib/api/deployments.rb`, both behind `authenticate!`). */
import type { RestRoute } from '../../rest/route.js';

const environments = '/projects/:id/environments';
const environment = `${environments}/:environment_id`;
const deployments = '/projects/:id/deployments';
const deployment = `${deployments}/:deployment_id`;

export const environmentRoutes: RestRoute[] = [
  { method: 'GET', path: environments, operation: 'RestListEnvironments', result: 'project.environments', paginate: true, notFound: 'Project', authenticate: true },
  { method: 'POST', path: `${environments}/stop_stale`, operation: 'RestStopStaleEnvironments', result: 'environmentsStopStale', status: 200, authenticate: true },
  // Before `:environment_id`, as Grape declares it; GitLab answers 200 on a dry run and when scheduling alike.
  { method: 'DELETE', path: `${environments}/review_apps`, operation: 'RestDeleteReviewApps', result: 'environmentsDeleteReviewApps', status: 200, authenticate: true },
  { method: 'GET', path: environment, operation: 'RestGetEnvironment', result: 'project.environmentById', notFound: 'Project', authenticate: true },
  { method: 'POST', path: environments, operation: 'RestCreateEnvironment', result: 'environmentCreate.environment', authenticate: true },
  { method: 'PUT', path: environment, operation: 'RestUpdateEnvironment', result: 'environmentUpdate.environment', authenticate: true },
  { method: 'DELETE', path: environment, operation: 'RestDeleteEnvironment', result: 'environmentDelete.environment', status: 204, authenticate: true },
  { method: 'POST', path: `${environment}/stop`, operation: 'RestStopEnvironment', result: 'environmentStop.environment', status: 200, authenticate: true },
  { method: 'GET', path: deployments, operation: 'RestListDeployments', result: 'project.deploymentList', paginate: true, notFound: 'Project', authenticate: true },
  { method: 'GET', path: deployment, operation: 'RestGetDeployment', result: 'project.deploymentById', notFound: 'Project', authenticate: true },
  { method: 'POST', path: deployments, operation: 'RestCreateDeployment', result: 'deploymentCreate.deployment', authenticate: true },
  { method: 'PUT', path: deployment, operation: 'RestUpdateDeployment', result: 'deploymentUpdate.deployment', authenticate: true },
  { method: 'DELETE', path: deployment, operation: 'RestDeleteDeployment', result: 'deploymentDelete.deployment', status: 204, authenticate: true },
];
