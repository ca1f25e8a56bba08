/** CI pipelines and their jobs: created from `.gitlab-ci.yml` on push and through the API, processed stage by stage. */
import { defineModule } from '../module.js';
import { pipelineJobs } from './jobs.js';
import { pipelineResolvers } from './resolvers.js';
import { pipelineRoutes } from './routes.js';
import { PipelinesService } from './service.js';
import { createPipelineLoaders, type PipelineLoaders } from './loaders.js';
import { pipelinePolicy } from './policy.js';

declare module '../module.js' {
  interface Services {
    pipelines: PipelinesService;
  }
  interface Loaders {
    pipelines: PipelineLoaders;
  }
}

export const pipelinesModule = defineModule({
  name: 'pipelines',
  schema: ['pipelines.graphql'],
  operations: ['pipelines.graphql'],
  resolvers: pipelineResolvers,
  policy: pipelinePolicy,
  routes: pipelineRoutes,
  loaders: (db) => createPipelineLoaders(db),
  uses: ['users', 'projects', 'repositories', 'protected_branches', 'ci_variables', 'ci_lint'],
  service: (base, uses) => new PipelinesService(base, uses.repositories, uses.protected_branches, uses.projects, uses.users, uses.ci_variables, uses.ci_lint),
  jobs: pipelineJobs,
});
