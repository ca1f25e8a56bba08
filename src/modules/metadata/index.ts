/** The server's version and metadata, and the heartbeat subscription. */
import { defineModule } from '../module.js';
import { metadataResolvers } from './resolvers.js';
import { metadataRoutes } from './routes.js';
import { MetadataService } from './service.js';

declare module '../module.js' {
  interface Services {
    metadata: MetadataService;
  }
}

export const metadataModule = defineModule({
  name: 'metadata',
  schema: ['metadata.graphql'],
  operations: ['metadata.graphql'],
  resolvers: metadataResolvers,
  routes: metadataRoutes,
  uses: [],
  service: (base) => new MetadataService(base),
});
