/**
 * Issues of projects (GitLab's Issue): iids per project, assignees, label links, milestones, state events, time
 * tracking, IssuePolicy (policy.ts), and issues as noteables of the notes engine (noteable.ts).
 */
import { defineModule } from '../module.js';
import { createIssueLoaders, type IssueLoaders } from './loaders.js';
import './activity.js';
import './noteable.js';
import { issuePolicy } from './policy.js';
import { issueResolvers } from './resolvers.js';
import { timelogResolvers } from './timelog-resolvers.js';
import { issueRoutes } from './routes.js';
import { IssuesService } from './service.js';

declare module '../module.js' {
  interface Services {
    issues: IssuesService;
  }
  interface Loaders {
    issues: IssueLoaders;
  }
}

export const issuesModule = defineModule({
  name: 'issues',
  schema: ['issues.graphql', 'timelogs.graphql'],
  operations: ['issues.graphql'],
  resolvers: {
    ...issueResolvers,
    ...timelogResolvers,
    Issue: { ...issueResolvers.Issue, ...timelogResolvers.Issue },
    Project: { ...issueResolvers.Project, ...timelogResolvers.Project },
    Group: { ...issueResolvers.Group, ...timelogResolvers.Group },
    Query: { ...issueResolvers.Query, ...timelogResolvers.Query },
    Mutation: { ...issueResolvers.Mutation, ...timelogResolvers.Mutation },
  },
  policy: issuePolicy,
  routes: issueRoutes,
  loaders: (db) => createIssueLoaders(db),
  uses: ['projects', 'labels', 'milestones', 'activity', 'notes', 'todos', 'resource_events'],
  service: (base, { labels, activity, todos, resource_events, notes }) => new IssuesService(base, labels, activity, todos, resource_events, notes),
});
