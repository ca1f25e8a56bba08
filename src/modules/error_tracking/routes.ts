/** Settings and client keys of the integrated error tracking (GitLab's `lib/api/error_tracking/client_keys.rb`); the collector is http.ts. */
import type { RestRoute } from '../../rest/route.js';

const keys = '/projects/:id/error_tracking/client_keys';

const settings = '/projects/:id/error_tracking/settings';

export const errorTrackingRoutes: RestRoute[] = [
  // lib/api/error_tracking/project_settings.rb: Maintainers; a hidden project is 404 Project, one without a setting
  // GitLab's 404 Error Tracking Setting.
  { method: 'GET', path: settings, operation: 'RestGetErrorTrackingSetting', notFound: 'Error Tracking Setting' },
  { method: 'PATCH', path: settings, operation: 'RestUpdateErrorTrackingSetting', result: 'projectErrorTrackingSettingsUpdate.errorTrackingSetting' },
  // PUT (GitLab 15.10) creates the setting when the project has none.
  { method: 'PUT', path: settings, operation: 'RestPutErrorTrackingSetting', result: 'projectErrorTrackingSettingsUpdate.errorTrackingSetting' },
  { method: 'GET', path: keys, operation: 'RestListErrorTrackingClientKeys', result: 'project.errorTrackingClientKeys', paginate: true, notFound: 'Project' },
  { method: 'POST', path: keys, operation: 'RestCreateErrorTrackingClientKey', result: 'errorTrackingClientKeyCreate.clientKey' },
  // GitLab presents the deleted key, with 200.
  { method: 'DELETE', path: `${keys}/:key_id`, operation: 'RestDeleteErrorTrackingClientKey', result: 'errorTrackingClientKeyDestroy.clientKey', status: 200 },
];
