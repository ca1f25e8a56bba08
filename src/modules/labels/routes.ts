/** Project and group labels (GitLab's `lib/api/labels.rb`, `group_labels.rb` and the labels' subscriptions), all behind `authenticate!`. */
import type { RestRoute } from '../../rest/route.js';

const project = '/projects/:id/labels';
const group = '/groups/:id/labels';

export const labelRoutes: RestRoute[] = [
  { method: 'GET', path: project, operation: 'RestListProjectLabels', result: 'project.labels', paginate: true, notFound: 'Project', authenticate: true },
  { method: 'GET', path: `${project}/:label_id`, operation: 'RestGetProjectLabel', result: 'project.labelByIdOrTitle', notFound: 'Project', authenticate: true },
  { method: 'POST', path: project, operation: 'RestCreateProjectLabel', result: 'labelCreate.label', authenticate: true },
  { method: 'PUT', path: `${project}/:label_id`, operation: 'RestUpdateProjectLabel', result: 'labelUpdate.label', authenticate: true },
  { method: 'DELETE', path: `${project}/:label_id`, operation: 'RestDeleteProjectLabel', result: 'labelDestroy.label', status: 204, authenticate: true },
  { method: 'PUT', path: `${project}/:label_id/promote`, operation: 'RestPromoteProjectLabel', result: 'labelPromote.label', authenticate: true },
  { method: 'POST', path: `${project}/:label_id/subscribe`, operation: 'RestSubscribeProjectLabel', result: 'labelSubscribe.label', authenticate: true },
  { method: 'POST', path: `${project}/:label_id/unsubscribe`, operation: 'RestUnsubscribeProjectLabel', result: 'labelUnsubscribe.label', authenticate: true },
  // GitLab's deprecated forms naming the label in the body or query (`label_id` or `name`), which python-gitlab uses.
  { method: 'PUT', path: project, operation: 'RestUpdateProjectLabelNamed', result: 'labelUpdate.label', authenticate: true },
  { method: 'DELETE', path: project, operation: 'RestDeleteProjectLabelNamed', result: 'labelDestroy.label', status: 204, authenticate: true },
  { method: 'PUT', path: `${project}/promote`, operation: 'RestPromoteProjectLabelNamed', result: 'labelPromote.label', authenticate: true },
  { method: 'PUT', path: group, operation: 'RestUpdateGroupLabelNamed', result: 'labelUpdate.label', authenticate: true },
  { method: 'DELETE', path: group, operation: 'RestDeleteGroupLabelNamed', result: 'labelDestroy.label', status: 204, authenticate: true },
  { method: 'GET', path: group, operation: 'RestListGroupLabels', result: 'group.labels', paginate: true, notFound: 'Group', authenticate: true },
  { method: 'GET', path: `${group}/:label_id`, operation: 'RestGetGroupLabel', result: 'group.labelByIdOrTitle', notFound: 'Group', authenticate: true },
  { method: 'POST', path: group, operation: 'RestCreateGroupLabel', result: 'labelCreate.label', authenticate: true },
  { method: 'PUT', path: `${group}/:label_id`, operation: 'RestUpdateGroupLabel', result: 'labelUpdate.label', authenticate: true },
  { method: 'DELETE', path: `${group}/:label_id`, operation: 'RestDeleteGroupLabel', result: 'labelDestroy.label', status: 204, authenticate: true },
  { method: 'POST', path: `${group}/:label_id/subscribe`, operation: 'RestSubscribeGroupLabel', result: 'labelSubscribe.label', authenticate: true },
  { method: 'POST', path: `${group}/:label_id/unsubscribe`, operation: 'RestUnsubscribeGroupLabel', result: 'labelUnsubscribe.label', authenticate: true },
];
