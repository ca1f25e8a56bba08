/**
 * Incident management of projects beyond the incidents themselves (issues of type incident: src/modules/issues):
 * the project's incident management settings and the SLA countdown timer of its incidents (sla.ts), read as
 * `Issue.slaDueAt` and sorted by in issue lists, and the recurring check that labels incidents past their SLA (jobs.ts).
 */
import { defineModule } from '../module.js';
import { incidentManagementJobs } from './jobs.js';
import { createIncidentManagementLoaders, type IncidentManagementLoaders } from './loaders.js';
import { incidentManagementResolvers } from './resolvers.js';
import { IncidentManagementService } from './service.js';

declare module '../module.js' {
  interface Services {
    incident_management: IncidentManagementService;
  }
  interface Loaders {
    incident_management: IncidentManagementLoaders;
  }
}

export const incidentManagementModule = defineModule({
  name: 'incident_management',
  schema: ['incident_management.graphql'],
  operations: [],
  resolvers: incidentManagementResolvers,
  routes: [],
  loaders: (db) => createIncidentManagementLoaders(db),
  uses: ['projects', 'resource_events'],
  service: (base, { resource_events }) => new IncidentManagementService(base, resource_events),
  jobs: incidentManagementJobs,
});
