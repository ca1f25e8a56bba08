/** GitLab's Features API (lib/api/features.rb, administrators) and the experiments listing (ee/lib/api/experiments.rb). */
import type { RestRoute } from '../../rest/route.js';

export const featureRoutes: RestRoute[] = [
  { method: 'GET', path: '/features', operation: 'RestListFeatures' },
  { method: 'GET', path: '/features/definitions', operation: 'RestListFeatureDefinitions' },
  // Grape's POST answers 201, as GitLab's request specs expect.
  { method: 'POST', path: '/features/:name', operation: 'RestSetFeature', result: 'featureSet.feature' },
  { method: 'DELETE', path: '/features/:name', operation: 'RestDeleteFeature', result: 'featureDelete', status: 204 },
  { method: 'GET', path: '/experiments', operation: 'RestListExperiments', authenticate: true },
];
