/**
 * Subscriptions (GitLab's Subscribable) to issues, merge requests and epics: users' own choices, which win over
 * participation: GitLab's subscriptions API (`POST …/subscribe`, `…/unsubscribe`) and `issueSetSubscription`,
 * `mergeRequestSetSubscription`, `epicSetSubscription`. The issuable modules' `subscribed` fields ask this service.
 */
import { defineModule } from '../module.js';
import { createSubscriptionLoaders, type SubscriptionLoaders } from './loaders.js';
import { subscriptionResolvers } from './resolvers.js';
import { subscriptionRoutes } from './routes.js';
import { SubscriptionsService } from './service.js';

declare module '../module.js' {
  interface Services {
    subscriptions: SubscriptionsService;
  }
  interface Loaders {
    subscriptions: SubscriptionLoaders;
  }
}

export const subscriptionsModule = defineModule({
  name: 'subscriptions',
  schema: ['subscriptions.graphql'],
  operations: ['subscriptions.graphql'],
  resolvers: subscriptionResolvers,
  routes: subscriptionRoutes,
  loaders: (db) => createSubscriptionLoaders(db),
  uses: [],
  service: (base) => new SubscriptionsService(base),
});
