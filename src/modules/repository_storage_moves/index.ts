/** Repository storage moves: a project's repository or a group's wiki repository copied to another storage. */
import { defineModule } from '../module.js';
import { repositoryStorageMoveJobs } from './jobs.js';
import { repositoryStorageMoveResolvers } from './resolvers.js';
import { RepositoryStorageMovePolicy } from './policy.js';
import { repositoryStorageMoveRoutes } from './routes.js';
import { RepositoryStorageMovesService } from './service.js';

declare module '../module.js' {
  interface Services {
    repository_storage_moves: RepositoryStorageMovesService;
  }
}

export const repositoryStorageMovesModule = defineModule({
  name: 'repository_storage_moves',
  schema: ['repository_storage_moves.graphql'],
  operations: ['repository_storage_moves.graphql'],
  resolvers: repositoryStorageMoveResolvers,
  policy: RepositoryStorageMovePolicy,
  routes: repositoryStorageMoveRoutes,
  uses: ['projects', 'groups'],
  service: (base) => new RepositoryStorageMovesService(base),
  jobs: repositoryStorageMoveJobs,
});
