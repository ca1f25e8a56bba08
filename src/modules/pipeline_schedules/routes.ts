/** Pipeline schedules (GitLab's `lib/api/ci/pipeline_schedules.rb`, whose `before { authenticate! }` gives anonymous reads a 401). */
import type { RestRoute } from '../../rest/route.js';

const schedules = '/projects/:id/pipeline_schedules';
const schedule = `${schedules}/:pipeline_schedule_id`;

export const pipelineScheduleRoutes: RestRoute[] = [
  { method: 'GET', path: schedules, operation: 'RestListPipelineSchedules', result: 'project.pipelineSchedules', paginate: true, notFound: 'Project', authenticate: true },
  { method: 'GET', path: schedule, operation: 'RestGetPipelineSchedule', result: 'project.pipelineSchedule', notFound: 'Project', authenticate: true },
  { method: 'GET', path: `${schedule}/pipelines`, operation: 'RestListPipelineSchedulePipelines', result: 'project.pipelineSchedule.pipelines', paginate: true, notFound: 'Project', authenticate: true },
  { method: 'POST', path: schedules, operation: 'RestCreatePipelineSchedule', result: 'pipelineScheduleCreate.pipelineSchedule' },
  { method: 'PUT', path: schedule, operation: 'RestUpdatePipelineSchedule', result: 'pipelineScheduleUpdate.pipelineSchedule' },
  { method: 'POST', path: `${schedule}/take_ownership`, operation: 'RestTakeOwnershipPipelineSchedule', result: 'pipelineScheduleTakeOwnership.pipelineSchedule' },
  // The spec answers the deleted schedule (GitLab's docs show it too; its code has answered 204 since 10.x).
  { method: 'DELETE', path: schedule, operation: 'RestDeletePipelineSchedule', result: 'pipelineScheduleDelete.pipelineSchedule', status: 200 },
  { method: 'POST', path: `${schedule}/play`, operation: 'RestPlayPipelineSchedule', result: 'pipelineSchedulePlay' },
  { method: 'GET', path: `${schedule}/variables/:key`, operation: 'RestGetPipelineScheduleVariable', result: 'project.pipelineSchedule.variable', notFound: 'Pipeline Schedule Variable', authenticate: true },
  { method: 'POST', path: `${schedule}/variables`, operation: 'RestCreatePipelineScheduleVariable', result: 'pipelineScheduleVariableCreate.pipelineScheduleVariable' },
  { method: 'PUT', path: `${schedule}/variables/:key`, operation: 'RestUpdatePipelineScheduleVariable', result: 'pipelineScheduleVariableUpdate.pipelineScheduleVariable' },
  // GitLab answers 202 Accepted with the deleted variable.
  { method: 'DELETE', path: `${schedule}/variables/:key`, operation: 'RestDeletePipelineScheduleVariable', result: 'pipelineScheduleVariableDelete.pipelineScheduleVariable', status: 202 },
];
