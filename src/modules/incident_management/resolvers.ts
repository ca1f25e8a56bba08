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
    // EE's IssuePresenter#sla_due_at: the SLA's due time, for incidents only (an issue that was one keeps its SLA).
    slaDueAt: async (i: IssueRow, _a: unknown, ctx: Context) =>
      i.issueType === 'incident' ? ((await ctx.loaders.incident_management.slaByIssue.load(i.id))?.dueAt ?? null) : null,
  },
  Mutation: {
    projectIncidentManagementSettingUpdate: async (_: unknown, args: { fullPath: string } & IncidentManagementSettingChanges, ctx: Context) => {
      const project = await ctx.services.projects.get(parseRef(args.fullPath, 'Project', 'fullPath'));
      return { incidentManagementSetting: await ctx.services.incident_management.update(project, {
          slaTimer: args.slaTimer,
          slaTimerMinutes: args.slaTimerMinutes,
          createIssue: args.createIssue,
          autoCloseIncident: args.autoCloseIncident,
        }) };
    },
  },
};
