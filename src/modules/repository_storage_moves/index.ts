/** Repository storage moves: a project's repository, a group's wiki repository or a snippet's repository copied to another storage. */
import { defineModule } from '../module.js';
import { repositoryStorageMoveJobs } from './jobs.js';
import { repositoryStorageMoveResolvers } from './resolvers.js';
import { RepositoryStorageMovePolicy } from './policy.js';
import { repositoryStorageMoveRoutes } from './routes.js';
import { RepositoryStorageMovesService } from './service.js';
import { snippetMoveResolvers, snippetMoveRoutes } from './snippets.js';

declare module '../module.js' {
  interface Services {
    repository_storage_moves: RepositoryStorageMovesService;
  }
}

export const repositoryStorageMovesModule = defineModule({
  name: 'repository_storage_moves',
  schema: ['repository_storage_moves.graphql', 'snippet_repository_storage_moves.graphql'],
  operations: ['repository_storage_moves.graphql', 'snippet_repository_storage_moves.graphql'],
  resolvers: {
    ...repositoryStorageMoveResolvers,
    ...snippetMoveResolvers,
    Query: { ...repositoryStorageMoveResolvers.Query, ...snippetMoveResolvers.Query },
    Mutation: { ...repositoryStorageMoveResolvers.Mutation, ...snippetMoveResolvers.Mutation },
  },
  policy: RepositoryStorageMovePolicy,
  routes: [...repositoryStorageMoveRoutes, ...snippetMoveRoutes],
  uses: ['projects', 'groups'],
  service: (base) => new RepositoryStorageMovesService(base),
  jobs: repositoryStorageMoveJobs,
});
