/** System hooks (GitLab's `lib/api/system_hooks.rb`) and project hooks (`lib/api/project_hooks.rb`). */
import type { RestRoute } from '../../rest/route.js';

const projectHooks = '/projects/:id/hooks';
const projectHook = `${projectHooks}/:hook_id`;

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
];
