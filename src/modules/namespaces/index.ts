/** Namespaces: personal namespaces and groups as the namespaces API shows them, lookups and path checks. */
import { defineModule } from '../module.js';
import { createNamespaceLoaders, type NamespaceLoaders } from './loaders.js';
import { namespaceResolvers } from './resolvers.js';
import { namespaceRoutes } from './routes.js';
import { NamespacesService } from './service.js';
import { namespacePolicy } from './policy.js';

declare module '../module.js' {
  interface Services {
    namespaces: NamespacesService;
  }
  interface Loaders {
    namespaces: NamespaceLoaders;
  }
}

export const namespacesModule = defineModule({
  name: 'namespaces',
  schema: ['namespaces.graphql'],
  operations: ['namespaces.graphql'],
  resolvers: namespaceResolvers,
  policy: namespacePolicy,
  routes: namespaceRoutes,
  loaders: createNamespaceLoaders,
  uses: [],
  service: (base) => new NamespacesService(base),
});
