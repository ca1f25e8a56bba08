/** The package registry: packages and their files (content-addressed on disk), generic packages' uploads and downloads. */
import { defineModule } from '../module.js';
import { packageJobs } from './jobs.js';
import { createPackageLoaders, type PackageLoaders } from './loaders.js';
import { PackagesPolicy } from './policy.js';
import { packageResolvers } from './resolvers.js';
import { packageRoutes } from './routes.js';
import { PackagesService } from './service.js';

declare module '../module.js' {
  interface Services {
    packages: PackagesService;
  }
  interface Loaders {
    packages: PackageLoaders;
  }
}

export const packagesModule = defineModule({
  name: 'packages',
  schema: ['packages.graphql'],
  operations: ['packages.graphql'],
  resolvers: packageResolvers,
  policy: PackagesPolicy,
  routes: packageRoutes,
  loaders: (db) => createPackageLoaders(db),
  uses: ['projects', 'groups', 'pipelines'],
  service: (base) => new PackagesService(base),
  jobs: packageJobs,
  projectTeardown: ({ contextFor }, projectId) => contextFor(null).services.packages.teardownProject(projectId),
});
