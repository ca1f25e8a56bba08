/**
 * Runners (GitLab's `lib/api/ci/runners.rb`, `POST /user/runners` of `lib/api/users.rb`) and the deletion of a job's
 * artifacts (`lib/api/ci/job_artifacts.rb`). The runner protocol and artifact downloads carry bytes and protocol
 * headers: src/http/runner-api.ts serves them.
 */
import type { RestRoute } from '../../rest/route.js';

export const runnerRoutes: RestRoute[] = [
  { method: 'POST', path: '/user/runners', operation: 'RestCreateUserRunner', result: 'runnerCreate.runner' },
  { method: 'GET', path: '/runners', operation: 'RestListOwnedRunners', paginate: true },
  { method: 'GET', path: '/runners/all', operation: 'RestListAllRunners', paginate: true },
  { method: 'GET', path: '/runners/:id', operation: 'RestGetRunner', notFound: 'Runner' },
  { method: 'PUT', path: '/runners/:id', operation: 'RestUpdateRunner', result: 'runnerUpdate.runner' },
  { method: 'DELETE', path: '/runners/:id', operation: 'RestDeleteRunner', status: 204 },
  { method: 'GET', path: '/runners/:id/jobs', operation: 'RestListRunnerJobs', result: 'runner.jobs', paginate: true, notFound: 'Runner' },
  { method: 'GET', path: '/projects/:id/runners', operation: 'RestListProjectRunners', result: 'project.runners', paginate: true, notFound: 'Project' },
  { method: 'POST', path: '/projects/:id/runners', operation: 'RestAssignProjectRunner', result: 'runnerAssignToProject.runner' },
  { method: 'DELETE', path: '/projects/:id/runners/:runner_id', operation: 'RestUnassignProjectRunner', status: 204 },
  { method: 'GET', path: '/groups/:id/runners', operation: 'RestListGroupRunners', result: 'group.runners', paginate: true, notFound: 'Group' },
  { method: 'DELETE', path: '/projects/:id/jobs/:job_id/artifacts', operation: 'RestDeleteJobArtifacts', status: 204 },
  { method: 'POST', path: '/projects/:id/jobs/:job_id/artifacts/keep', operation: 'RestKeepJobArtifacts', result: 'jobArtifactsKeep.job', status: 200 },
  // GitLab's `accepted!`: `{"message": "202 Accepted"}`; the expired artifacts go with the next removal of expired ones.
  { method: 'DELETE', path: '/projects/:id/artifacts', operation: 'RestExpireProjectArtifacts', result: 'projectArtifactsExpire', status: 202 },
];
