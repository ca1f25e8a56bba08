/**
 * Issue links (GitLab's IssueLink): relations between issues (`relates_to`, `blocks`, `is_blocked_by`), the Issue
 * Links API, their system notes, IssuePolicy's `admin_issue_link` (policy.ts), and what an issue shows of them
 * (`blocking_issues_count`, GraphQL's `blocked`, `blockedByIssues`, `blockingCount`).
 */
import { defineModule } from '../module.js';
import { issueLinksPolicy } from './policy.js';
import { issueLinkResolvers } from './resolvers.js';
import { issueLinkRoutes } from './routes.js';
import { IssueLinksService } from './service.js';

declare module '../module.js' {
  interface Services {
    issue_links: IssueLinksService;
  }
}

export const issueLinksModule = defineModule({
  name: 'issue_links',
  schema: ['issue_links.graphql'],
  operations: ['issue_links.graphql'],
  resolvers: issueLinkResolvers,
  policy: issueLinksPolicy,
  routes: issueLinkRoutes,
  uses: ['issues', 'projects', 'notes'],
  service: (base, { issues, projects, notes }) => new IssueLinksService(base, issues, projects, notes),
});
