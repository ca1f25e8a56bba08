/** Environments and deployments: made by jobs with `environment:` and through their APIs; stopped by `on_stop` jobs, by hand, when stale, or when `auto_stop_in` passes. */
import { defineModule } from '../module.js';
import { environmentJobs } from './jobs.js';
import { createEnvironmentLoaders, type EnvironmentLoaders } from './loaders.js';
import { environmentPolicy } from './policy.js';
import { environmentResolvers } from './resolvers.js';
import { environmentRoutes } from './routes.js';
import { EnvironmentsService } from './service.js';

declare module '../module.js' {
  interface Services {
    environments: EnvironmentsService;
  }
  interface Loaders {
    environments: EnvironmentLoaders;
  }
}

export const environmentsModule = defineModule({
  name: 'environments',
  schema: ['environments.graphql'],
  operations: ['environments.graphql'],
  resolvers: environmentResolvers,
  policy: environmentPolicy,
  routes: environmentRoutes,
  loaders: (db) => createEnvironmentLoaders(db),
  uses: ['pipelines', 'repositories'],
  service: (base, uses) => new EnvironmentsService(base, uses.pipelines, uses.repositories),
  jobs: environmentJobs,
});
