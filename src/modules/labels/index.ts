/** Labels of projects and groups: priorities, subscriptions, promotion; what issues and merge requests will carry. */
import { defineModule } from '../module.js';
import { createLabelLoaders, type LabelLoaders } from './loaders.js';
import { labelPolicy } from './policy.js';
import { labelResolvers } from './resolvers.js';
import { labelRoutes } from './routes.js';
import { LabelsService } from './service.js';

declare module '../module.js' {
  interface Services {
    labels: LabelsService;
  }
  interface Loaders {
    labels: LabelLoaders;
  }
}

export const labelsModule = defineModule({
  name: 'labels',
  schema: ['labels.graphql'],
  operations: ['labels.graphql'],
  resolvers: labelResolvers,
  policy: labelPolicy,
  routes: labelRoutes,
  loaders: (db) => createLabelLoaders(db),
  uses: ['projects', 'groups'],
  service: (base) => new LabelsService(base),
});
