/** Instance feature flags (GitLab's Features API over Flipper's tables) and the experiment registry read from YAML. */
import { defineModule } from '../module.js';
import { FeaturePolicy } from './policy.js';
import { featureResolvers } from './resolvers.js';
import { featureRoutes } from './routes.js';
import { FeaturesService } from './service.js';

declare module '../module.js' {
  interface Services {
    features: FeaturesService;
  }
}

export const featuresModule = defineModule({
  name: 'features',
  schema: ['features.graphql'],
  operations: ['features.graphql'],
  resolvers: featureResolvers,
  policy: FeaturePolicy,
  routes: featureRoutes,
  uses: ['users', 'namespaces', 'projects'],
  service: (base, uses) => new FeaturesService(base, uses.users, uses.namespaces, uses.projects),
});
