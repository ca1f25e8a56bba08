/** CI/CD job token scopes: the inbound allowlists of projects and groups whose jobs' tokens may reach a project. */
import { defineModule } from '../module.js';
import { jobTokenScopeResolvers } from './resolvers.js';
import { jobTokenScopeRoutes } from './routes.js';
import { JobTokenScopeService } from './service.js';

declare module '../module.js' {
  interface Services {
    job_token_scope: JobTokenScopeService;
  }
}

export const jobTokenScopeModule = defineModule({
  name: 'job_token_scope',
  schema: ['job_token_scope.graphql'],
  operations: ['job_token_scope.graphql'],
  resolvers: jobTokenScopeResolvers,
  routes: jobTokenScopeRoutes,
  uses: ['namespaces', 'projects', 'groups'],
  service: (base, uses) => new JobTokenScopeService(base, uses.namespaces, uses.projects, uses.groups),
});
