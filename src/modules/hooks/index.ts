/** Webhooks: system hooks and project hooks, one delivery engine on the job queue. */
import { defineModule } from '../module.js';
import { hookJobs } from './jobs.js';
import { hookResolvers } from './resolvers.js';
import { hookPolicy } from './policy.js';
import { hookRoutes } from './routes.js';
import { HooksService } from './service.js';

declare module '../module.js' {
  interface Services {
    hooks: HooksService;
  }
}

export const hooksModule = defineModule({
  name: 'hooks',
  schema: ['hooks.graphql'],
  operations: ['hooks.graphql'],
  resolvers: hookResolvers,
  policy: hookPolicy,
  routes: hookRoutes,
  uses: ['projects', 'users', 'repositories', 'pipelines', 'groups'],
  service: (base, uses) => new HooksService(base, uses.projects, uses.users, uses.repositories, uses.pipelines, uses.groups),
  jobs: hookJobs,
});
