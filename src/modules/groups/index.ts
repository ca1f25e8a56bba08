/** Groups: the group namespaces, their subgroups and creation. */
import { defineModule } from '../module.js';
import { groupResolvers } from './resolvers.js';
import { groupRoutes } from './routes.js';
import { GroupsService } from './service.js';

declare module '../module.js' {
  interface Services {
    groups: GroupsService;
  }
}

export const groupsModule = defineModule({
  name: 'groups',
  schema: ['groups.graphql'],
  operations: ['groups.graphql'],
  resolvers: groupResolvers,
  routes: groupRoutes,
  uses: ['namespaces', 'members'],
  service: (base, { namespaces, members }) => new GroupsService(base, namespaces, members),
});
