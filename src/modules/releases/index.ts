/** Releases: notes, milestones, asset links and evidence on the tags of a project's repository (GitLab's Releases API). */
import { defineModule } from '../module.js';
import { createReleaseLoaders, type ReleaseLoaders } from './loaders.js';
import { releasePolicy } from './policy.js';
import { releaseResolvers } from './resolvers.js';
import { releaseRoutes } from './routes.js';
import { ReleasesService } from './service.js';

declare module '../module.js' {
  interface Services {
    releases: ReleasesService;
  }
  interface Loaders {
    releases: ReleaseLoaders;
  }
}

export const releasesModule = defineModule({
  name: 'releases',
  schema: ['releases.graphql'],
  operations: ['releases.graphql'],
  resolvers: releaseResolvers,
  policy: releasePolicy,
  routes: releaseRoutes,
  loaders: (db) => createReleaseLoaders(db),
  uses: ['repositories'],
  service: (base, { repositories }) => new ReleasesService(base, repositories),
});
