/** Runners: the runners API, GitLab's runner protocol (with src/http/runner-api.ts), job artifacts, stuck jobs. */
import { defineModule } from '../module.js';
import { runnerJobs } from './jobs.js';
import { createRunnerLoaders, type RunnerLoaders } from './loaders.js';
import { runnerResolvers } from './resolvers.js';
import { runnerRoutes } from './routes.js';
import { RunnersService } from './service.js';
import { runnerPolicy } from './policy.js';

declare module '../module.js' {
  interface Services {
    runners: RunnersService;
  }
  interface Loaders {
    runners: RunnerLoaders;
  }
}

export const runnersModule = defineModule({
  name: 'runners',
  schema: ['runners.graphql'],
  operations: ['runners.graphql'],
  resolvers: runnerResolvers,
  policy: runnerPolicy,
  routes: runnerRoutes,
  loaders: (db) => createRunnerLoaders(db),
  uses: ['pipelines', 'repositories', 'protected_branches', 'ci_variables'],
  service: (base, uses) => new RunnersService(base, uses.pipelines, uses.repositories, uses.protected_branches, uses.ci_variables),
  jobs: runnerJobs,
});
