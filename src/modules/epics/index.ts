/**
 * Epics of groups (GitLab's Epic, a licensed feature: EPICS_ENABLED): iids per group, parents, label links, fixed
 * dates, state events, the issues in them ordered by relative position, EpicPolicy (policy.ts), and epics as
 * noteables of the notes engine (noteable.ts).
 */
import { defineModule } from '../module.js';
import { resourceEventRoutes } from '../resource_events/routes.js';
import { createEpicLoaders, type EpicLoaders } from './loaders.js';
import './noteable.js';
import { epicPolicy } from './policy.js';
import { epicResolvers } from './resolvers.js';
import { epicLinkResolvers } from './links-resolvers.js';
import { noteRoutes } from '../notes/routes.js';
import { epicRoutes } from './routes.js';
import { EpicsService } from './service.js';

declare module '../module.js' {
  interface Services {
    epics: EpicsService;
  }
  interface Loaders {
    epics: EpicLoaders;
  }
}

export const epicsModule = defineModule({
  name: 'epics',
  schema: ['epics.graphql', 'epic_links.graphql'],
  operations: ['epics.graphql', 'epic_resource_events.graphql', 'epic_links.graphql'],
  resolvers: {
    ...epicResolvers,
    ...epicLinkResolvers,
    Epic: { ...epicResolvers.Epic, ...epicLinkResolvers.Epic },
    Mutation: { ...epicResolvers.Mutation, ...epicLinkResolvers.Mutation },
  },
  policy: epicPolicy,
  // GitLab's resource label and state events of epics (lib/api/resource_label_events.rb, resource_state_events.rb):
  // the resource events module's routes.
  routes: [...epicRoutes, ...noteRoutes('/groups/:id/epics/:noteable_id', 'EPIC', 'group'), ...resourceEventRoutes('/groups/:id/epics/:epic_id', 'Epic', ['Label', 'State'])],
  loaders: (db) => createEpicLoaders(db),
  uses: ['groups', 'labels', 'issues', 'notes', 'resource_events', 'activity', 'todos'],
  service: (base, { groups, labels, issues, resource_events, activity, notes, todos }) => new EpicsService(base, groups, labels, issues, resource_events, activity, notes, todos),
});
