/** Project and group milestones (GitLab's `lib/api/project_milestones.rb`, `group_milestones.rb`), behind `authenticate!`. */
import type { RestRoute } from '../../rest/route.js';

const project = '/projects/:id/milestones';
const group = '/groups/:id/milestones';

export const milestoneRoutes: RestRoute[] = [
  { method: 'GET', path: project, operation: 'RestListProjectMilestones', result: 'project.milestones', paginate: true, notFound: 'Project', authenticate: true },
  { method: 'GET', path: `${project}/:milestone_id`, operation: 'RestGetProjectMilestone', result: 'project.milestone', notFound: 'Project', authenticate: true },
  { method: 'POST', path: project, operation: 'RestCreateProjectMilestone', result: 'milestoneCreate.milestone', authenticate: true },
  { method: 'PUT', path: `${project}/:milestone_id`, operation: 'RestUpdateProjectMilestone', result: 'milestoneUpdate.milestone', authenticate: true },
  { method: 'DELETE', path: `${project}/:milestone_id`, operation: 'RestDeleteProjectMilestone', result: 'milestoneDestroy.milestone', status: 204, authenticate: true },
  // GitLab answers the promotion with `status(200)` and no entity.
  { method: 'POST', path: `${project}/:milestone_id/promote`, operation: 'RestPromoteProjectMilestone', result: 'milestonePromote.milestone', status: 200, authenticate: true },
  { method: 'GET', path: group, operation: 'RestListGroupMilestones', result: 'group.milestones', paginate: true, notFound: 'Group', authenticate: true },
  { method: 'GET', path: `${group}/:milestone_id`, operation: 'RestGetGroupMilestone', result: 'group.milestone', notFound: 'Group', authenticate: true },
  { method: 'POST', path: group, operation: 'RestCreateGroupMilestone', result: 'milestoneCreate.milestone', authenticate: true },
  { method: 'PUT', path: `${group}/:milestone_id`, operation: 'RestUpdateGroupMilestone', result: 'milestoneUpdate.milestone', authenticate: true },
  { method: 'DELETE', path: `${group}/:milestone_id`, operation: 'RestDeleteGroupMilestone', result: 'milestoneDestroy.milestone', status: 204, authenticate: true },
];
