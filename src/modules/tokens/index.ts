/** Personal access tokens: authentication, creation, listing and revocation. */
import { defineModule } from '../module.js';
import { tokenResolvers } from './resolvers.js';
import { tokenRoutes } from './routes.js';
import { TokensService } from './service.js';
import { personalAccessTokenPolicy } from './policy.js';

declare module '../module.js' {
  interface Services {
    tokens: TokensService;
  }
}

export const tokensModule = defineModule({
  name: 'tokens',
  schema: ['tokens.graphql'],
  operations: ['tokens.graphql'],
  resolvers: tokenResolvers,
  policy: personalAccessTokenPolicy,
  routes: tokenRoutes,
  uses: ['users'],
  service: (base, { users }) => new TokensService(base, users),
});
