/** System hooks (GitLab's `lib/api/system_hooks.rb`) and project hooks (`lib/api/project_hooks.rb`) and group hooks (`ee/lib/api/group_hooks.rb`). */
import type { RestRoute } from '../../rest/route.js';

const projectHooks = '/projects/:id/hooks';
const projectHook = `${projectHooks}/:hook_id`;
const groupHooks = '/groups/:id/hooks';
const groupHook = `${groupHooks}/:hook_id`;

export const hookRoutes: RestRoute[] = [
  { method: 'GET', path: '/hooks', operation: 'RestListSystemHooks', paginate: true },
  { method: 'GET', path: '/hooks/:hook_id', operation: 'RestGetSystemHook' },
  { method: 'POST', path: '/hooks', operation: 'RestCreateSystemHook', result: 'systemHookCreate.systemHook' },
  { method: 'PUT', path: '/hooks/:hook_id', operation: 'RestUpdateSystemHook', result: 'systemHookUpdate.systemHook' },
  { method: 'DELETE', path: '/hooks/:hook_id', operation: 'RestDeleteSystemHook', result: 'systemHookDelete.systemHook', status: 204 },
  { method: 'POST', path: '/hooks/:hook_id', operation: 'RestTestSystemHook', result: 'systemHookTest.sample' },
  { method: 'GET', path: projectHooks, operation: 'RestListProjectHooks', result: 'project.hooks', paginate: true, notFound: 'Project' },
  { method: 'GET', path: projectHook, operation: 'RestGetProjectHook', result: 'project.hook', notFound: 'Project' },
  { method: 'GET', path: `${projectHook}/events`, operation: 'RestListProjectHookEvents', result: 'project.hook.events', paginate: true, notFound: 'Project' },
  { method: 'POST', path: projectHooks, operation: 'RestCreateProjectHook', result: 'projectHookCreate.projectHook' },
  { method: 'PUT', path: projectHook, operation: 'RestUpdateProjectHook', result: 'projectHookUpdate.projectHook' },
  { method: 'DELETE', path: projectHook, operation: 'RestDeleteProjectHook', result: 'projectHookDelete.projectHook', status: 204 },
  { method: 'POST', path: `${projectHook}/test/:trigger`, operation: 'RestTestProjectHook', result: 'projectHookTest' },
  { method: 'POST', path: `${projectHook}/events/:hook_log_id/resend`, operation: 'RestResendProjectHookEvent', result: 'projectHookEventResend' },
  { method: 'GET', path: groupHooks, operation: 'RestListGroupHooks', result: 'group.hooks', paginate: true, notFound: 'Group' },
  { method: 'GET', path: groupHook, operation: 'RestGetGroupHook', result: 'group.hook', notFound: 'Group' },
  { method: 'GET', path: `${groupHook}/events`, operation: 'RestListGroupHookEvents', result: 'group.hook.events', paginate: true, notFound: 'Group' },
  { method: 'POST', path: groupHooks, operation: 'RestCreateGroupHook', result: 'groupHookCreate.groupHook' },
  { method: 'PUT', path: groupHook, operation: 'RestUpdateGroupHook', result: 'groupHookUpdate.groupHook' },
  { method: 'DELETE', path: groupHook, operation: 'RestDeleteGroupHook', result: 'groupHookDelete.groupHook', status: 204 },
  { method: 'POST', path: `${groupHook}/test/:trigger`, operation: 'RestTestGroupHook', result: 'groupHookTest' },
  { method: 'POST', path: `${groupHook}/events/:hook_log_id/resend`, operation: 'RestResendGroupHookEvent', result: 'groupHookEventResend' },
  // GitLab's API::Hooks::UrlVariables and API::Hooks::CustomHeaders for each kind of hook.
  { method: 'PUT', path: `${projectHook}/url_variables/:key`, operation: 'RestSetProjectHookKeyed', variables: { setting: 'URL_VARIABLE' }, result: 'webHookKeyedSettingSet.hook', status: 204 },
  { method: 'DELETE', path: `${projectHook}/url_variables/:key`, operation: 'RestDeleteProjectHookKeyed', variables: { setting: 'URL_VARIABLE' }, result: 'webHookKeyedSettingDelete.hook', status: 204 },
  { method: 'PUT', path: `${projectHook}/custom_headers/:key`, operation: 'RestSetProjectHookKeyed', variables: { setting: 'CUSTOM_HEADER' }, result: 'webHookKeyedSettingSet.hook', status: 204 },
  { method: 'DELETE', path: `${projectHook}/custom_headers/:key`, operation: 'RestDeleteProjectHookKeyed', variables: { setting: 'CUSTOM_HEADER' }, result: 'webHookKeyedSettingDelete.hook', status: 204 },
  { method: 'PUT', path: `${groupHook}/url_variables/:key`, operation: 'RestSetGroupHookKeyed', variables: { setting: 'URL_VARIABLE' }, result: 'webHookKeyedSettingSet.hook', status: 204 },
  { method: 'DELETE', path: `${groupHook}/url_variables/:key`, operation: 'RestDeleteGroupHookKeyed', variables: { setting: 'URL_VARIABLE' }, result: 'webHookKeyedSettingDelete.hook', status: 204 },
  { method: 'PUT', path: `${groupHook}/custom_headers/:key`, operation: 'RestSetGroupHookKeyed', variables: { setting: 'CUSTOM_HEADER' }, result: 'webHookKeyedSettingSet.hook', status: 204 },
  { method: 'DELETE', path: `${groupHook}/custom_headers/:key`, operation: 'RestDeleteGroupHookKeyed', variables: { setting: 'CUSTOM_HEADER' }, result: 'webHookKeyedSettingDelete.hook', status: 204 },
  { method: 'PUT', path: `/hooks/:hook_id/url_variables/:key`, operation: 'RestSetSystemHookKeyed', variables: { setting: 'URL_VARIABLE' }, result: 'webHookKeyedSettingSet.hook', status: 204 },
  { method: 'DELETE', path: `/hooks/:hook_id/url_variables/:key`, operation: 'RestDeleteSystemHookKeyed', variables: { setting: 'URL_VARIABLE' }, result: 'webHookKeyedSettingDelete.hook', status: 204 },
  { method: 'PUT', path: `/hooks/:hook_id/custom_headers/:key`, operation: 'RestSetSystemHookKeyed', variables: { setting: 'CUSTOM_HEADER' }, result: 'webHookKeyedSettingSet.hook', status: 204 },
  { method: 'DELETE', path: `/hooks/:hook_id/custom_headers/:key`, operation: 'RestDeleteSystemHookKeyed', variables: { setting: 'CUSTOM_HEADER' }, result: 'webHookKeyedSettingDelete.hook', status: 204 },
];
