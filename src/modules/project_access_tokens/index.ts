/** Project access tokens: bot users with a personal access token each, members of one project at the token's level. */
import { defineModule } from '../module.js';
import { createProjectAccessTokenLoaders, type ProjectAccessTokenLoaders } from './loaders.js';
import { projectAccessTokenResolvers } from './resolvers.js';
import { ProjectAccessTokensPolicy } from './policy.js';
import { projectAccessTokenRoutes } from './routes.js';
import { ProjectAccessTokensService } from './service.js';

declare module '../module.js' {
  interface Services {
    project_access_tokens: ProjectAccessTokensService;
  }
  interface Loaders {
    project_access_tokens: ProjectAccessTokenLoaders;
  }
}

export const projectAccessTokensModule = defineModule({
  name: 'project_access_tokens',
  schema: ['project_access_tokens.graphql'],
  operations: ['project_access_tokens.graphql'],
  resolvers: projectAccessTokenResolvers,
  policy: ProjectAccessTokensPolicy,
  routes: projectAccessTokenRoutes,
  loaders: (db) => createProjectAccessTokenLoaders(db),
  uses: ['tokens', 'members', 'projects'],
  service: (base, { members }) => new ProjectAccessTokensService(base, members),
});
