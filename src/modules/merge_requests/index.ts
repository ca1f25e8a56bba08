/**
 * Merge requests of projects (GitLab's MergeRequest): iids per project, source and target branches of the same
 * project, assignees, reviewers, label links, milestones, state events, their git side (commits, diffs,
 * mergeability, merging: git.ts), MergeRequestPolicy (policy.ts), and merge requests as noteables (noteable.ts).
 */
import { defineModule } from '../module.js';
import { autoMergeJobs } from './auto_merge.js';
import { mergeRequestPipelineJobs } from './pipelines.js';
import { rebaseJobs } from './rebase.js';
import './activity.js';
import { createMergeRequestLoaders, type MergeRequestLoaders } from './loaders.js';
import './noteable.js';
import { mergeRequestPolicy } from './policy.js';
import { mergeRequestResolvers } from './resolvers.js';
import { mergeRequestRoutes } from './routes.js';
import { MergeRequestsService } from './service.js';

declare module '../module.js' {
  interface Services {
    merge_requests: MergeRequestsService;
  }
  interface Loaders {
    merge_requests: MergeRequestLoaders;
  }
}

export const mergeRequestsModule = defineModule({
  name: 'merge_requests',
  schema: ['merge_requests.graphql'],
  operations: ['merge_requests.graphql'],
  resolvers: mergeRequestResolvers,
  policy: mergeRequestPolicy,
  routes: mergeRequestRoutes,
  jobs: (env) => ({ ...autoMergeJobs(env), ...rebaseJobs(env), ...mergeRequestPipelineJobs(env) }),
  loaders: (db) => createMergeRequestLoaders(db),
  uses: ['projects', 'labels', 'milestones', 'activity', 'notes', 'repositories', 'issues', 'resource_events', 'pipelines', 'todos'],
  service: (base, { labels, activity, repositories, issues, resource_events, notes, pipelines, todos }) =>
    new MergeRequestsService(base, labels, activity, repositories, issues, resource_events, notes, pipelines, todos),
});
