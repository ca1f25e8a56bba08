/** Repositories: each project's bare Git repository, who may read and push it, and what a push records. */
import { defineModule } from '../module.js';
import { repositoryResolvers } from './resolvers.js';
import { repositoryRoutes } from './routes.js';
import { RepositoriesService } from './service.js';
import { repositoryPolicy } from './policy.js';

declare module '../module.js' {
  interface Services {
    repositories: RepositoriesService;
  }
}

export const repositoriesModule = defineModule({
  name: 'repositories',
  schema: ['repositories.graphql'],
  operations: ['repositories.graphql'],
  resolvers: repositoryResolvers,
  policy: repositoryPolicy,
  routes: repositoryRoutes,
  uses: ['projects', 'activity', 'protected_branches'],
  service: (base, { projects, activity, protected_branches }) => new RepositoriesService(base, projects, activity, protected_branches),
});
