/** Compute minutes (GitLab EE's CI minutes): what jobs on instance runners cost their namespace and project each month. */
import { defineModule } from '../module.js';
import { ciMinutesJobs } from './jobs.js';
import { createCiMinutesLoaders, type CiMinutesLoaders } from './loaders.js';
import { ciMinutesPolicy } from './policy.js';
import { ciMinutesResolvers } from './resolvers.js';
import { CiMinutesService } from './service.js';

declare module '../module.js' {
  interface Services {
    ci_minutes: CiMinutesService;
  }
  interface Loaders {
    ci_minutes: CiMinutesLoaders;
  }
}

export const ciMinutesModule = defineModule({
  name: 'ci_minutes',
  schema: ['ci_minutes.graphql'],
  operations: [],
  resolvers: ciMinutesResolvers,
  policy: ciMinutesPolicy,
  routes: [],
  loaders: (db) => createCiMinutesLoaders(db),
  uses: ['namespaces'],
  service: (base, uses) => new CiMinutesService(base, uses.namespaces),
  jobs: ciMinutesJobs,
});
