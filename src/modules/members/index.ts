/** Memberships of users in groups and projects, and the access levels they grant. */
import { defineModule } from '../module.js';
import { createMemberLoaders, type MemberLoaders } from './loaders.js';
import { memberResolvers } from './resolvers.js';
import { memberRoutes } from './routes.js';
import { MembersService } from './service.js';
import { memberPolicy } from './policy.js';

declare module '../module.js' {
  interface Services {
    members: MembersService;
  }
  interface Loaders {
    members: MemberLoaders;
  }
}

export const membersModule = defineModule({
  name: 'members',
  schema: ['members.graphql'],
  operations: ['members.graphql'],
  resolvers: memberResolvers,
  policy: memberPolicy,
  routes: memberRoutes,
  loaders: createMemberLoaders,
  uses: ['users', 'activity'],
  service: (base, { users, activity }) => new MembersService(base, users, activity),
});
