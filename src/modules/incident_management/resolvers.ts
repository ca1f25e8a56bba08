/** GraphQL resolvers of incident management settings and of an issue's SLA. */
import type { Context } from '../../context.js';
import { parseRef } from '../../graphql/ids.js';
import type { IssueRow } from '../issues/service.js';
import type { ProjectRow } from '../projects/service.js';
import type { IncidentManagementSettingChanges } from './service.js';

export const incidentManagementResolvers = {
  Project: {
    incidentManagementSetting: (p: ProjectRow, _a: unknown, ctx: Context) => ctx.services.incident_management.setting(p),
  },
  Issue: {
    // EE's Issue#sla_due_at: the SLA's due time, whatever the issue's type now.
    slaDueAt: async (i: IssueRow, _a: unknown, ctx: Context) => (await ctx.loaders.incident_management.slaByIssue.load(i.id))?.dueAt ?? null,
  },
  Mutation: {
    projectIncidentManagementSettingUpdate: async (_: unknown, args: { fullPath: string } & IncidentManagementSettingChanges, ctx: Context) => {
      const project = await ctx.services.projects.get(parseRef(args.fullPath, 'Project', 'fullPath'));
      return { incidentManagementSetting: await ctx.services.incident_management.update(project, { slaTimer: args.slaTimer, slaTimerMinutes: args.slaTimerMinutes }) };
    },
  },
};
