/** Sharing: groups and projects shared with groups, and the access their members get through the shares. */
import { defineModule } from '../module.js';
import { createSharingLoaders, type SharingLoaders } from './loaders.js';
import { sharingResolvers } from './resolvers.js';
import { sharingRoutes } from './routes.js';
import { SharingService } from './service.js';

declare module '../module.js' {
  interface Services {
    sharing: SharingService;
  }
  interface Loaders {
    sharing: SharingLoaders;
  }
}

export const sharingModule = defineModule({
  name: 'sharing',
  schema: ['sharing.graphql'],
  operations: ['sharing.graphql'],
  resolvers: sharingResolvers,
  routes: sharingRoutes,
  loaders: createSharingLoaders,
  uses: ['groups'],
  service: (base, { groups }) => new SharingService(base, groups),
});
