/** GitLab's lib/api/alert_management_alerts.rb: an alert's metric images. */
import type { RestRoute } from '../../rest/route.js';

const images = '/projects/:id/alert_management_alerts/:alert_iid/metric_images';
const image = `${images}/:metric_image_id`;

export const alertManagementRoutes: RestRoute[] = [
  { method: 'GET', path: images, operation: 'RestListAlertMetricImages', result: 'project.alertManagementAlert.metricImages', notFound: 'Alert' },
  { method: 'POST', path: images, operation: 'RestUploadAlertMetricImage', result: 'alertMetricImageUpload.metricImage', status: 201 },
  { method: 'PUT', path: image, operation: 'RestUpdateAlertMetricImage', result: 'alertMetricImageUpdate.metricImage' },
  { method: 'DELETE', path: image, operation: 'RestDeleteAlertMetricImage', result: 'alertMetricImageDestroy.metricImage', status: 204 },
];
