/** CI Lint (GitLab's `lib/api/lint.rb`): a given configuration, or the project's own. */
import type { RestRoute } from '../../rest/route.js';

export const ciLintRoutes: RestRoute[] = [
  { method: 'POST', path: '/projects/:id/ci/lint', operation: 'RestLintCiConfig', status: 200 },
  { method: 'GET', path: '/projects/:id/ci/lint', operation: 'RestLintProjectCiConfig' },
];
