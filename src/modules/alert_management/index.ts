/**
 * Alert management: per-project alert integrations (HTTP and Prometheus) with their notify endpoints (http.ts, outside
 * /api/v4), ingestion with GitLab's grouping, severity and resolution rules, and reading and working alerts.
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
  uses: ['users'],
  service: (base, uses) => new AlertManagementService(base, uses.users),
});
