/** Instance-wide OAuth applications and the OAuth 2 provider behind them (http.ts serves /oauth). */
import { defineModule } from '../module.js';
import { applicationResolvers } from './resolvers.js';
import { OauthApplicationPolicy } from './policy.js';
import { applicationRoutes } from './routes.js';
import { ApplicationsService } from './service.js';

declare module '../module.js' {
  interface Services {
    applications: ApplicationsService;
  }
}

export const applicationsModule = defineModule({
  name: 'applications',
  schema: ['applications.graphql'],
  operations: ['applications.graphql'],
  resolvers: applicationResolvers,
  policy: OauthApplicationPolicy,
  routes: applicationRoutes,
  uses: [],
  service: (base) => new ApplicationsService(base),
});
