/** Pipelines and jobs (GitLab's `lib/api/ci/pipelines.rb` and `lib/api/ci/jobs.rb`). */
import type { KeysetPagination, RestRoute } from '../../rest/route.js';

const pipeline = '/projects/:id/pipelines/:pipeline_id';
const job = '/projects/:id/jobs/:job_id';
/** GitLab 15.9+'s cursor-based keyset for a project's jobs: by ID, newest first only; offset pages stay unlimited. */
const JOBS_KEYSET: KeysetPagination = { link: 'cursor', orders: { id: ['desc'] }, defaultOrder: 'id', defaultSort: 'desc', model: 'Ci::Build', enforced: false };

export const pipelineRoutes: RestRoute[] = [
  // `jobToken`: GitLab's job_token_allowed routes of these two files (its job_token_policies aside).
  { method: 'GET', path: '/projects/:id/pipelines', operation: 'RestListPipelines', result: 'project.pipelines', paginate: true, notFound: 'Project', jobToken: true },
  { method: 'GET', path: '/projects/:id/pipelines/latest', operation: 'RestLatestPipeline', result: 'project.latestPipeline', notFound: 'Project' },
  { method: 'GET', path: pipeline, operation: 'RestGetPipeline', result: 'project.pipeline', notFound: 'Project', jobToken: true },
  { method: 'GET', path: `${pipeline}/variables`, operation: 'RestPipelineVariables', result: 'project.pipeline.variables', notFound: 'Project' },
  { method: 'GET', path: `${pipeline}/test_report`, operation: 'RestPipelineTestReport', result: 'project.pipeline.testReport', notFound: 'Project' },
  { method: 'GET', path: `${pipeline}/test_report_summary`, operation: 'RestPipelineTestReportSummary', result: 'project.pipeline.testReportSummary', notFound: 'Project' },
  { method: 'GET', path: `${pipeline}/jobs`, operation: 'RestPipelineJobs', result: 'project.pipelineJobs', paginate: true, notFound: 'Project', jobToken: true },
  { method: 'GET', path: `${pipeline}/bridges`, operation: 'RestPipelineBridges', result: 'project.pipelineJobs', paginate: true, notFound: 'Project', jobToken: true },
  { method: 'GET', path: '/projects/:id/merge_requests/:merge_request_iid/pipelines', operation: 'RestListMergeRequestPipelines', result: 'projectMergeRequest.pipelines', paginate: true, notFound: 'Merge Request' },
  { method: 'POST', path: '/projects/:id/merge_requests/:merge_request_iid/pipelines', operation: 'RestCreateMergeRequestPipeline', result: 'mergeRequestCreatePipeline.pipeline' },
  { method: 'POST', path: '/projects/:id/pipeline', operation: 'RestCreatePipeline', result: 'pipelineCreate.pipeline' },
  { method: 'POST', path: `${pipeline}/retry`, operation: 'RestRetryPipeline', result: 'pipelineRetry.pipeline' },
  // GitLab answers 200 to a cancel, canceled or not.
  { method: 'POST', path: `${pipeline}/cancel`, operation: 'RestCancelPipeline', result: 'pipelineCancel.pipeline', status: 200 },
  { method: 'DELETE', path: pipeline, operation: 'RestDeletePipeline', status: 204 },
  { method: 'PUT', path: `${pipeline}/metadata`, operation: 'RestUpdatePipelineMetadata', result: 'pipelineUpdateMetadata.pipeline' },
  { method: 'GET', path: '/projects/:id/triggers', operation: 'RestListTriggers', result: 'project.pipelineTriggers', paginate: true, notFound: 'Project' },
  { method: 'GET', path: '/projects/:id/triggers/:trigger_id', operation: 'RestGetTrigger', result: 'project.pipelineTrigger', notFound: 'Project' },
  { method: 'POST', path: '/projects/:id/triggers', operation: 'RestCreateTrigger', result: 'pipelineTriggerCreate.pipelineTrigger' },
  { method: 'PUT', path: '/projects/:id/triggers/:trigger_id', operation: 'RestUpdateTrigger', result: 'pipelineTriggerUpdate.pipelineTrigger' },
  { method: 'DELETE', path: '/projects/:id/triggers/:trigger_id', operation: 'RestDeleteTrigger', result: 'pipelineTriggerDelete.pipelineTrigger', status: 204 },
  { method: 'POST', path: '/projects/:id/trigger/pipeline', operation: 'RestRunTrigger', result: 'pipelineTriggerRun.pipeline' },
  { method: 'POST', path: '/projects/:id/ref/:ref/trigger/pipeline', operation: 'RestRunTrigger', result: 'pipelineTriggerRun.pipeline' },
  { method: 'POST', path: '/projects/:id/statuses/:sha', operation: 'RestCreateCommitStatus', result: 'commitStatusCreate.commitStatus' },
  { method: 'GET', path: '/projects/:id/repository/commits/:sha/statuses', operation: 'RestListCommitStatuses', result: 'project.commitStatuses', paginate: true, notFound: 'Project' },
  // GitLab's lib/api/ci/resource_groups.rb (`before { authenticate! }`).
  { method: 'GET', path: '/projects/:id/resource_groups', operation: 'RestListResourceGroups', result: 'project.ciResourceGroups', paginate: true, notFound: 'Project', authenticate: true },
  { method: 'GET', path: '/projects/:id/resource_groups/:key', operation: 'RestGetResourceGroup', result: 'project.ciResourceGroup', notFound: 'Project', authenticate: true },
  { method: 'GET', path: '/projects/:id/resource_groups/:key/current_job', operation: 'RestResourceGroupCurrentJob', result: 'project.ciResourceGroup.currentJob', whenNull: 'send', authenticate: true },
  { method: 'GET', path: '/projects/:id/resource_groups/:key/upcoming_jobs', operation: 'RestResourceGroupUpcomingJobs', result: 'project.ciResourceGroup.upcomingJobs', paginate: true, notFound: 'Project', authenticate: true },
  { method: 'PUT', path: '/projects/:id/resource_groups/:key', operation: 'RestUpdateResourceGroup', result: 'ciResourceGroupUpdate.resourceGroup', authenticate: true },
  { method: 'GET', path: '/job', operation: 'RestCurrentJob', result: 'currentJob' },
  { method: 'GET', path: '/projects/:id/jobs', operation: 'RestListJobs', result: 'project.jobs', paginate: true, keyset: JOBS_KEYSET, notFound: 'Project', jobToken: true },
  { method: 'GET', path: job, operation: 'RestGetJob', result: 'project.job', notFound: 'Project' },
  { method: 'GET', path: `${job}/trace`, operation: 'RestGetJobTrace', result: 'project.job', notFound: 'Project', raw: true },
  { method: 'POST', path: `${job}/play`, operation: 'RestPlayJob', result: 'jobPlay.job', status: 200 },
  { method: 'POST', path: `${job}/cancel`, operation: 'RestCancelJob', result: 'jobCancel.job' },
  { method: 'POST', path: `${job}/retry`, operation: 'RestRetryJob', result: 'jobRetry.job' },
  { method: 'POST', path: `${job}/erase`, operation: 'RestEraseJob', result: 'jobErase.job' },
];
