/** Activity events: the recorder every module writes through, the Events API, retention, and the live subscription. */
import { defineModule } from '../module.js';
import { activityJobs } from './jobs.js';
import { activityResolvers } from './resolvers.js';
import { activityRoutes } from './routes.js';
import { ActivityService } from './service.js';

declare module '../module.js' {
  interface Services {
    activity: ActivityService;
  }
}

export const activityModule = defineModule({
  name: 'activity',
  schema: ['activity.graphql'],
  operations: ['activity.graphql'],
  resolvers: activityResolvers,
  routes: activityRoutes,
  uses: [],
  service: (base) => new ActivityService(base),
  jobs: activityJobs,
});
