/** Groups: the group namespaces, their subgroups, creation, settings and transfers. */
import { defineModule } from '../module.js';
import { createGroupLoaders, type GroupLoaders } from './loaders.js';
import { groupResolvers } from './resolvers.js';
import { groupJobs } from './jobs.js';
import { groupRoutes } from './routes.js';
import { GroupsService } from './service.js';
import { groupPolicy } from './policy.js';

declare module '../module.js' {
  interface Services {
    groups: GroupsService;
  }
  interface Loaders {
    groups: GroupLoaders;
  }
}

export const groupsModule = defineModule({
  name: 'groups',
  schema: ['groups.graphql'],
  operations: ['groups.graphql'],
  resolvers: groupResolvers,
  policy: groupPolicy,
  routes: groupRoutes,
  loaders: createGroupLoaders,
  uses: ['namespaces', 'members', 'projects'],
  service: (base, { namespaces, members, projects }) => new GroupsService(base, namespaces, members, projects),
  jobs: groupJobs,
});
