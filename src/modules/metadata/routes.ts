/** `/version` and `/metadata` (GitLab's `lib/api/metadata.rb`). */
import type { RestRoute } from '../../rest/route.js';

export const metadataRoutes: RestRoute[] = [
  { method: 'GET', path: '/version', operation: 'RestVersion' },
  { method: 'GET', path: '/metadata', operation: 'RestMetadata' },
];
