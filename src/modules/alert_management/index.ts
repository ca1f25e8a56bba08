/**
 * Alert management: per-project alert integrations (HTTP and Prometheus) with their notify endpoints (http.ts, outside
 * /api/v4), ingestion with GitLab's grouping, severity and resolution rules, reading and working alerts, and their
 * incidents: made from an alert (createAlertIssue, or on ingestion with the project's create_issue setting), linked and
 * unlinked (issueLinkAlerts, issueUnlinkAlert), closed when the integration resolves the alert (auto_close_incident),
 * and resolving their alerts when closed (incidents.ts, called by the issues service).
 */
import { defineModule } from '../module.js';
import { alertManagementPolicy } from './policy.js';
import { alertManagementResolvers } from './resolvers.js';
import { alertManagementRoutes } from './routes.js';
import { AlertManagementService } from './service.js';

declare module '../module.js' {
  interface Services {
    alert_management: AlertManagementService;
  }
}

export const alertManagementModule = defineModule({
  name: 'alert_management',
  schema: ['alert_management.graphql'],
  operations: ['alert_management.graphql'],
  resolvers: alertManagementResolvers,
  policy: alertManagementPolicy,
  routes: alertManagementRoutes,
  uses: ['users', 'projects', 'issues', 'todos'],
  service: (base, uses) => new AlertManagementService(base, uses.users, uses.projects, uses.issues, uses.todos),
});
