/**
 * GitLab's Epics API (`ee/lib/api/epics.rb`: GETs open to anonymous callers of public groups, writes authenticated),
 * Epic Issues API (`ee/lib/api/epic_issues.rb`, every call authenticated), Epic Links API (`ee/lib/api/epic_links.rb`,
 * every call authenticated), Related Epic Links API (`ee/lib/api/related_epic_links.rb`, GETs open to anonymous
 * readers) and the Notes and Discussions APIs on epics (`lib/api/notes.rb`, `discussions.rb`, `:epic_id` being the
 * epic's id), through the notes engine.
 */
import type { RestRoute } from '../../rest/route.js';

const epics = '/groups/:id/epics';
const epic = `${epics}/:epic_iid`;
const link = `${epic}/issues/:epic_issue_id`;
const child = `${epic}/epics/:child_epic_id`;
const related = `${epic}/related_epics`;

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
  { method: 'GET', path: `${epic}/epics`, operation: 'RestListEpicChildren', result: 'groupEpic.childEpics.nodes', authenticate: true },
  { method: 'POST', path: child, operation: 'RestAssignEpicChild', result: 'epicChildAssign.epic', authenticate: true },
  { method: 'POST', path: `${epic}/epics`, operation: 'RestCreateEpicChild', result: 'epicChildCreate.epic', authenticate: true },
  { method: 'PUT', path: child, operation: 'RestMoveEpicChild', result: 'epicChildMove.epic.childEpics.nodes', authenticate: true },
  { method: 'DELETE', path: child, operation: 'RestRemoveEpicChild', result: 'epicChildRemove.epic', status: 200, authenticate: true },
  { method: 'GET', path: related, operation: 'RestListRelatedEpics', result: 'groupEpic.relatedEpics' },
  { method: 'POST', path: related, operation: 'RestCreateRelatedEpicLink', result: 'relatedEpicLinkCreate.relatedEpicLink', authenticate: true },
  { method: 'DELETE', path: `${related}/:related_epic_link_id`, operation: 'RestDeleteRelatedEpicLink', result: 'relatedEpicLinkDestroy.relatedEpicLink', status: 200, authenticate: true },
];
