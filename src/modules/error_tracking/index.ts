/**
 * Integrated error tracking: client keys (DSNs), the Sentry-compatible collector (http.ts, collector.ts) grouping
 * events into errors, their reads and status, and the 90-day retention (jobs.ts).
 */
import { defineModule } from '../module.js';
import { errorTrackingJobs } from './jobs.js';
import { createErrorTrackingLoaders, type ErrorTrackingLoaders } from './loaders.js';
import { ErrorTrackingPolicy } from './policy.js';
import { errorTrackingResolvers } from './resolvers.js';
import { errorTrackingRoutes } from './routes.js';
import { ErrorTrackingService } from './service.js';

declare module '../module.js' {
  interface Services {
    error_tracking: ErrorTrackingService;
  }
  interface Loaders {
    error_tracking: ErrorTrackingLoaders;
  }
}

export const errorTrackingModule = defineModule({
  name: 'error_tracking',
  schema: ['error_tracking.graphql'],
  operations: ['error_tracking.graphql'],
  resolvers: errorTrackingResolvers,
  policy: ErrorTrackingPolicy,
  routes: errorTrackingRoutes,
  loaders: (db) => createErrorTrackingLoaders(db),
  uses: ['projects'],
  service: (base) => new ErrorTrackingService(base),
  jobs: errorTrackingJobs,
});
