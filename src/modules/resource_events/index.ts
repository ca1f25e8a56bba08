/**
 * Resource events: label, weight, milestone and state changes of issues (later epics and merge requests), recorded by
 * their services inside their transactions (service.ts), what else an issue's change leaves behind as system notes
 * (issuables.ts), and the resource events APIs (routes.ts).
 */
import { defineModule } from '../module.js';
import { resourceEventsResolvers } from './resolvers.js';
import { resourceEventsRoutes } from './routes.js';
import { ResourceEventsService } from './service.js';

declare module '../module.js' {
  interface Services {
    resource_events: ResourceEventsService;
  }
}

export const resourceEventsModule = defineModule({
  name: 'resource_events',
  schema: ['resource_events.graphql'],
  operations: ['resource_events.graphql'],
  resolvers: resourceEventsResolvers,
  routes: resourceEventsRoutes,
  uses: ['notes'],
  service: (base, { notes }) => new ResourceEventsService(base, notes),
});
