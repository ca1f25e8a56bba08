/**
 * Iterations (EE's Iterations::Cadence and Iteration, a licensed feature: ITERATIONS_ENABLED): cadences of a group,
 * their iterations numbered by iid within the group with sequences and states from their dates, automatic cadences
 * scheduled ahead by a background job (schedule.ts, jobs.ts), the Iterations API, and the iteration of an issue.
 */
import { defineModule } from '../module.js';
import { iterationJobs } from './jobs.js';
import { createIterationLoaders, type IterationLoaders } from './loaders.js';
import { iterationPolicy } from './policy.js';
import { iterationResolvers } from './resolvers.js';
import { iterationRoutes } from './routes.js';
import { IterationsService } from './service.js';

declare module '../module.js' {
  interface Services {
    iterations: IterationsService;
  }
  interface Loaders {
    iterations: IterationLoaders;
  }
}

export const iterationsModule = defineModule({
  name: 'iterations',
  schema: ['iterations.graphql'],
  operations: ['iterations.graphql'],
  resolvers: iterationResolvers,
  policy: iterationPolicy,
  routes: iterationRoutes,
  loaders: (db) => createIterationLoaders(db),
  uses: ['groups', 'issues', 'resource_events', 'milestones'],
  service: (base, { groups, issues, resource_events, milestones }) => new IterationsService(base, groups, issues, resource_events, milestones),
  jobs: iterationJobs,
});
