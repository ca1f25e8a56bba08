/** Users: the current user, lookups, lists, creation, changes, states and deletion; SSH keys, e-mail addresses, status, preferences and impersonation tokens. */
import { defineModule } from '../module.js';
import { createUserLoaders, type UserLoaders } from './loaders.js';
import { userResolvers } from './resolvers.js';
import { userRoutes } from './routes.js';
import { UsersService } from './service.js';
import { userPolicy } from './policy.js';

declare module '../module.js' {
  interface Services {
    users: UsersService;
  }
  interface Loaders {
    users: UserLoaders;
  }
}

export const usersModule = defineModule({
  name: 'users',
  schema: ['users.graphql'],
  operations: ['users.graphql'],
  resolvers: userResolvers,
  policy: userPolicy,
  routes: userRoutes,
  loaders: createUserLoaders,
  uses: ['namespaces'],
  service: (base, { namespaces }) => new UsersService(base, namespaces),
});
