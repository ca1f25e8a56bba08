/**
 * GitLab's Epics API (`ee/lib/api/epics.rb`: GETs open to anonymous callers of public groups, writes authenticated),
 * Epic Issues API (`ee/lib/api/epic_issues.rb`, every call authenticated) and the Notes and Discussions APIs on epics
 * (`lib/api/notes.rb`, `discussions.rb`, `:epic_id` being the epic's id), through the notes engine.
 */
import type { RestRoute } from '../../rest/route.js';

const epics = '/groups/:id/epics';
const epic = `${epics}/:epic_iid`;
const link = `${epic}/issues/:epic_issue_id`;

export const epicRoutes: RestRoute[] = [
  { method: 'GET', path: epics, operation: 'RestListGroupEpics', result: 'group.epics', paginate: true, notFound: 'Group' },
  { method: 'GET', path: epic, operation: 'RestGetGroupEpic', result: 'groupEpic' },
  { method: 'POST', path: epics, operation: 'RestCreateGroupEpic', result: 'createEpic.epic', authenticate: true },
  { method: 'PUT', path: epic, operation: 'RestUpdateGroupEpic', result: 'updateEpic.epic', authenticate: true },
  { method: 'DELETE', path: epic, operation: 'RestDeleteGroupEpic', result: 'epicDestroy.epic', status: 204, authenticate: true },
  { method: 'GET', path: `${epic}/issues`, operation: 'RestListEpicIssues', result: 'groupEpic.issues', paginate: true, authenticate: true },
  { method: 'POST', path: `${epic}/issues/:issue_id`, operation: 'RestAddEpicIssue', result: 'epicAddIssue.epicIssue', authenticate: true },
  { method: 'DELETE', path: link, operation: 'RestRemoveEpicIssue', result: 'epicRemoveIssue.epicIssue', status: 200, authenticate: true },
  { method: 'PUT', path: link, operation: 'RestMoveEpicIssue', result: 'epicMoveIssue.epic.issues', paginate: true, authenticate: true },
];
