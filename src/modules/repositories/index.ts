/** Repositories: each project's bare Git repository, who may read and push it, and what a push records. */
import { defineModule } from '../module.js';
import { repositoryResolvers } from './resolvers.js';
import { repositoryRoutes } from './routes.js';
import { RepositoriesService } from './service.js';
import { repositoryPolicy } from './policy.js';
import { repositoryHistoryResolvers } from './history-resolvers.js';
import { repositoryHistoryRoutes } from './history-routes.js';

declare module '../module.js' {
  interface Services {
    repositories: RepositoriesService;
  }
}

export const repositoriesModule = defineModule({
  name: 'repositories',
  schema: ['repositories.graphql', 'repository_history.graphql'],
  operations: ['repositories.graphql', 'repository_history.graphql'],
  resolvers: {
    ...repositoryResolvers,
    ...repositoryHistoryResolvers,
    Mutation: { ...repositoryResolvers.Mutation, ...repositoryHistoryResolvers.Mutation },
    Repository: { ...repositoryResolvers.Repository, ...repositoryHistoryResolvers.Repository },
  },
  policy: repositoryPolicy,
  routes: [...repositoryRoutes, ...repositoryHistoryRoutes],
  uses: ['projects', 'activity', 'protected_branches', 'users'],
  service: (base, { projects, activity, protected_branches, users }) => new RepositoriesService(base, projects, activity, protected_branches, users),
});
