/** Milestones of projects and groups, with iids, states and promotion; what issues and merge requests will name. */
import { defineModule } from '../module.js';
import { milestonePolicy } from './policy.js';
import { milestoneResolvers } from './resolvers.js';
import { milestoneRoutes } from './routes.js';
import { MilestonesService } from './service.js';

declare module '../module.js' {
  interface Services {
    milestones: MilestonesService;
  }
}

export const milestonesModule = defineModule({
  name: 'milestones',
  schema: ['milestones.graphql'],
  operations: ['milestones.graphql'],
  resolvers: milestoneResolvers,
  policy: milestonePolicy,
  routes: milestoneRoutes,
  uses: ['activity', 'labels', 'groups', 'projects', 'resource_events'],
  service: (base, uses) => new MilestonesService(base, uses.activity, uses.groups, uses.projects, uses.resource_events),
});
