/** Activity events: the recorder every module writes through, and the live activity subscription. */
import { defineModule } from '../module.js';
import { activityResolvers } from './resolvers.js';
import { ActivityService } from './service.js';

declare module '../module.js' {
  interface Services {
    activity: ActivityService;
  }
}

export const activityModule = defineModule({
  name: 'activity',
  schema: ['activity.graphql'],
  operations: [],
  resolvers: activityResolvers,
  routes: [],
  uses: [],
  service: (base) => new ActivityService(base),
});
