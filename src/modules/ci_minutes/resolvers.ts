/** GraphQL resolvers of compute usage (GitLab's Query.ciMinutesUsage and its monthly usage types). */
import type { Context } from '../../context.js';
import type { PageArgs } from '../../graphql/connection.js';
import { monthName } from './cost.js';
import type { NamespaceUsageRow, ProjectUsageRow } from './service.js';

/** GitLab's `minutes`: the compute minutes used, as an Int (`amount_used.to_i`). */
const minutes = (row: { amountUsed: number }) => Math.trunc(row.amountUsed);

const projectOf = (row: ProjectUsageRow, ctx: Context) => ctx.services.projects.find({ id: row.projectId });

export const ciMinutesResolvers = {
  Query: {
    ciMinutesUsage: (_: unknown, args: PageArgs & { namespaceId?: number | null; date?: Date | null }, ctx: Context) =>
      ctx.services.ci_minutes.usage(args.namespaceId ?? null, args.date ?? null, args),
  },
  CiMinutesNamespaceMonthlyUsage: {
    minutes,
    month: (row: NamespaceUsageRow) => monthName(row.date),
    monthIso8601: (row: NamespaceUsageRow) => row.date,
    projects: (row: NamespaceUsageRow, args: PageArgs, ctx: Context) => ctx.services.ci_minutes.projects(row, args),
  },
  CiMinutesProjectMonthlyUsage: {
    minutes,
    name: async (row: ProjectUsageRow, _a: unknown, ctx: Context) => (await projectOf(row, ctx))?.name ?? null,
    project: (row: ProjectUsageRow, _a: unknown, ctx: Context) => projectOf(row, ctx),
  },
};
