/**
 * Merge trains (GitLab Premium's MergeTrains::Car, Train and RefreshService): merge requests queued per target
 * branch, each tested by a pipeline on its train ref (the target merged with every car ahead and itself) and merged in
 * order by fast-forwarding the target to that ref; settings (settings.ts), the train's background refresh
 * (train.ts, jobs.ts), abilities (policy.ts).
 */
import { defineModule } from '../module.js';
import { mergeTrainJobs } from './jobs.js';
import { createMergeTrainLoaders, type MergeTrainLoaders } from './loaders.js';
import { mergeTrainPolicy } from './policy.js';
import { mergeTrainResolvers } from './resolvers.js';
import { mergeTrainRoutes } from './routes.js';
import { MergeTrainsService } from './service.js';
import { registerAutoMergeAborter } from '../merge_requests/service.js';

// MergeRequests::CloseService#abort_auto_merge with a train strategy, whichever way the merge request is closed.
registerAutoMergeAborter((deps, project, mr, reason) => new MergeTrainsService(deps.base, deps.mergeRequests, deps.pipelines, deps.repositories, deps.notes).abort(project, mr, reason));

declare module '../module.js' {
  interface Services {
    merge_trains: MergeTrainsService;
  }
  interface Loaders {
    merge_trains: MergeTrainLoaders;
  }
}

export const mergeTrainsModule = defineModule({
  name: 'merge_trains',
  schema: ['merge_trains.graphql'],
  operations: ['merge_trains.graphql'],
  resolvers: mergeTrainResolvers,
  policy: mergeTrainPolicy,
  routes: mergeTrainRoutes,
  jobs: mergeTrainJobs,
  loaders: (db) => createMergeTrainLoaders(db),
  uses: ['merge_requests', 'pipelines', 'repositories', 'notes'],
  service: (base, { merge_requests, pipelines, repositories, notes }) => new MergeTrainsService(base, merge_requests, pipelines, repositories, notes),
});
