/** System hooks (GitLab's `lib/api/system_hooks.rb`) and project hooks (`lib/api/project_hooks.rb`) and group hooks (`ee/lib/api/group_hooks.rb`). */
import type { RestRoute } from '../../rest/route.js';

/** A project's or a group's hooks: the same routes over `Rest…<Parent>Hook…` operations. */
function parentHookRoutes(parent: 'Project' | 'Group'): RestRoute[] {
  const field = parent.toLowerCase();
  const hooks = `/${field}s/:id/hooks`;
  const hook = `${hooks}/:hook_id`;
  return [
    { method: 'GET', path: hooks, operation: `RestList${parent}Hooks`, result: `${field}.hooks`, paginate: true, notFound: parent },
    { method: 'GET', path: hook, operation: `RestGet${parent}Hook`, result: `${field}.hook`, notFound: parent },
    { method: 'GET', path: `${hook}/events`, operation: `RestList${parent}HookEvents`, result: `${field}.hook.events`, paginate: true, notFound: parent },
    { method: 'POST', path: hooks, operation: `RestCreate${parent}Hook`, result: `${field}HookCreate.${field}Hook` },
    { method: 'PUT', path: hook, operation: `RestUpdate${parent}Hook`, result: `${field}HookUpdate.${field}Hook` },
    { method: 'DELETE', path: hook, operation: `RestDelete${parent}Hook`, result: `${field}HookDelete.${field}Hook`, status: 204 },
    { method: 'POST', path: `${hook}/test/:trigger`, operation: `RestTest${parent}Hook`, result: `${field}HookTest` },
    { method: 'POST', path: `${hook}/events/:hook_log_id/resend`, operation: `RestResend${parent}HookEvent`, result: `${field}HookEventResend` },
    ...keyedSettingRoutes(hook, parent),
  ];
}

/** GitLab's API::Hooks::UrlVariables and API::Hooks::CustomHeaders under a hook's path. */
function keyedSettingRoutes(hook: string, kind: 'System' | 'Project' | 'Group'): RestRoute[] {
  return [
    ['url_variables', 'URL_VARIABLE'],
    ['custom_headers', 'CUSTOM_HEADER'],
  ].flatMap(([segment, setting]): RestRoute[] => [
    { method: 'PUT', path: `${hook}/${segment}/:key`, operation: `RestSet${kind}HookKeyed`, variables: { setting }, result: 'webHookKeyedSettingSet.hook', status: 204 },
    { method: 'DELETE', path: `${hook}/${segment}/:key`, operation: `RestDelete${kind}HookKeyed`, variables: { setting }, result: 'webHookKeyedSettingDelete.hook', status: 204 },
  ]);
}

export const hookRoutes: RestRoute[] = [
  { method: 'GET', path: '/hooks', operation: 'RestListSystemHooks', paginate: true },
  { method: 'GET', path: '/hooks/:hook_id', operation: 'RestGetSystemHook' },
  { method: 'POST', path: '/hooks', operation: 'RestCreateSystemHook', result: 'systemHookCreate.systemHook' },
  { method: 'PUT', path: '/hooks/:hook_id', operation: 'RestUpdateSystemHook', result: 'systemHookUpdate.systemHook' },
  { method: 'DELETE', path: '/hooks/:hook_id', operation: 'RestDeleteSystemHook', result: 'systemHookDelete.systemHook', status: 204 },
  { method: 'POST', path: '/hooks/:hook_id', operation: 'RestTestSystemHook', result: 'systemHookTest.sample' },
  ...keyedSettingRoutes('/hooks/:hook_id', 'System'),
  ...parentHookRoutes('Project'),
  ...parentHookRoutes('Group'),
];
