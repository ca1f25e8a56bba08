/** GraphQL resolvers of alert integrations and alerts. */
import { GraphQLError, GraphQLScalarType, Kind } from 'graphql';
import type { Context } from '../../context.js';
import type { PageArgs } from '../../graphql/connection.js';
import { globalId, iidOf, parseRef } from '../../graphql/ids.js';
import type { IssueRow } from '../issues/service.js';
import type { TodoRow } from '../todos/service.js';
import { badRequest } from '../../errors.js';
import type { ProjectRow } from '../projects/service.js';
import type { UploadedFile } from '../../uploads/storage.js';
import { MAPPABLE_FIELDS, dig, parseTime, prometheusExtras, type AttributeMapping, type Json, type JsonObject, type MappableField } from './payload.js';
import { METRIC_IMAGE_MODEL, type MetricImageRow, type AlertFilters, type AlertRow, type AlertSort, type AlertStatus, type IntegrationInput, type IntegrationRow } from './service.js';

/** GitLab's JsonString: a JSON object as a string, both ways. */
const JsonString = new GraphQLScalarType({
  name: 'JsonString',
  description: 'JSON object as a string.',
  serialize: (v) => JSON.stringify(v),
  parseValue: (v) => {
    if (typeof v !== 'string') throw new GraphQLError('JsonString must be a string');
    return v;
  },
  parseLiteral: (ast) => {
    if (ast.kind !== Kind.STRING) throw new GraphQLError('JsonString must be a string');
    return ast.value;
  },
});

/** A path segment: a string key or an integer index. */
const PayloadAlertFieldPathSegment = new GraphQLScalarType({
  name: 'PayloadAlertFieldPathSegment',
  description: 'String or integer: a segment of a path into an alert payload.',
  serialize: (v) => v,
  parseValue: (v) => {
    if (typeof v === 'string' || (typeof v === 'number' && Number.isInteger(v))) return v;
    throw new GraphQLError('PayloadAlertFieldPathSegment must be a string or an integer');
  },
  parseLiteral: (ast) => {
    if (ast.kind === Kind.STRING) return ast.value;
    if (ast.kind === Kind.INT) return Number(ast.value);
    throw new GraphQLError('PayloadAlertFieldPathSegment must be a string or an integer');
  },
});

const project = (ctx: Context, path: string) => ctx.services.projects.get(parseRef(path, 'Project', 'projectPath'));

const SORTS: Record<string, AlertSort> = {
  STARTED_AT_ASC: 'started_at_asc',
  STARTED_AT_DESC: 'started_at_desc',
  ENDED_AT_ASC: 'ended_at_asc',
  ENDED_AT_DESC: 'ended_at_desc',
  CREATED_TIME_ASC: 'created_at_asc',
  CREATED_TIME_DESC: 'created_at_desc',
  UPDATED_TIME_ASC: 'updated_at_asc',
  UPDATED_TIME_DESC: 'updated_at_desc',
  EVENT_COUNT_ASC: 'events_asc',
  EVENT_COUNT_DESC: 'events_desc',
  SEVERITY_ASC: 'severity_asc',
  SEVERITY_DESC: 'severity_desc',
  STATUS_ASC: 'status_asc',
  STATUS_DESC: 'status_desc',
  UPDATED_ASC: 'updated_at_asc',
  UPDATED_DESC: 'updated_at_desc',
  CREATED_ASC: 'created_at_asc',
  CREATED_DESC: 'created_at_desc',
  updated_asc: 'updated_at_asc',
  updated_desc: 'updated_at_desc',
  created_asc: 'created_at_asc',
  created_desc: 'created_at_desc',
};

interface AlertArgs {
  iid?: string | null;
  statuses?: AlertStatus[] | null;
  sort?: string | null;
  search?: string | null;
  assigneeUsername?: string | null;
}

function filters(args: AlertArgs): AlertFilters {
  let iid: number | null = null;
  if (args.iid != null) {
    if (!/^\d{1,10}$/.test(args.iid)) throw badRequest('iid must be a number');
    iid = Number(args.iid);
  }
  return { iid, statuses: args.statuses, search: args.search, assigneeUsername: args.assigneeUsername, sort: args.sort ? SORTS[args.sort] : null };
}

function parseIid(iid: string): number {
  if (!/^\d{1,10}$/.test(iid)) throw badRequest('iid must be a number');
  return Number(iid);
}

interface MappingIn {
  fieldName: string;
  path: (string | number)[];
  type: string;
  label?: string | null;
}
interface IntegrationArgs {
  name?: string | null;
  active?: boolean | null;
  apiUrl?: string | null;
  payloadExample?: string | null;
  payloadAttributeMappings?: MappingIn[] | null;
}
function integrationInput(args: IntegrationArgs): IntegrationInput {
  return {
    name: args.name,
    active: args.active,
    apiUrl: args.apiUrl,
    payloadExample: args.payloadExample,
    payloadAttributeMappings: args.payloadAttributeMappings?.map((m) => ({ fieldName: m.fieldName.toLowerCase() as MappableField, path: m.path, type: m.type.toLowerCase(), label: m.label })),
  };
}

/** The fields of a payload example that a mapping could name (GitLab's payloadAlertFields): each leaf path. */
function payloadAlertFields(example: Json): { label: string; path: (string | number)[]; type: string }[] {
  const out: { label: string; path: (string | number)[]; type: string }[] = [];
  const walk = (v: Json, path: (string | number)[]) => {
    if (out.length >= 1000) return;
    if (Array.isArray(v)) out.push({ label: path.join('/'), path, type: 'array' });
    else if (v !== null && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, [...path, k]);
    else if (path.length) out.push({ label: path.join('/'), path, type: typeof v === 'string' && parseTime(v) && /\d{4}-\d{2}-\d{2}/.test(v) ? 'datetime' : 'string' });
  };
  walk(example, []);
  return out;
}

const integrationFields = {
  id: (i: IntegrationRow) => globalId('AlertManagement::HttpIntegration', i.id),
  type: (i: IntegrationRow) => (i.typeIdentifier === 'prometheus' ? 'PROMETHEUS' : 'HTTP'),
  url: async (i: IntegrationRow, _: unknown, ctx: Context) => ctx.services.alert_management.url(i, (await ctx.loaders.projects.byId.load(i.projectId))!.fullPath),
  apiUrl: (i: IntegrationRow) => (i.typeIdentifier === 'prometheus' ? i.apiUrl : null),
};

export const alertManagementResolvers = {
  JsonString,
  PayloadAlertFieldPathSegment,
  AlertManagementSeverity: { CRITICAL: 'critical', HIGH: 'high', MEDIUM: 'medium', LOW: 'low', INFO: 'info', UNKNOWN: 'unknown' },
  AlertManagementStatus: { TRIGGERED: 'triggered', ACKNOWLEDGED: 'acknowledged', RESOLVED: 'resolved', IGNORED: 'ignored' },
  AlertManagementPayloadAlertFieldType: { ARRAY: 'array', DATETIME: 'datetime', STRING: 'string' },
  AlertManagementIntegration: { __resolveType: (i: IntegrationRow) => (i.typeIdentifier === 'prometheus' ? 'AlertManagementPrometheusIntegration' : 'AlertManagementHttpIntegration') },
  // GitLab's Prometheus integration is an Integrations::Prometheus record; here it is the project's integration of that type.
  AlertManagementPrometheusIntegration: { ...integrationFields, id: (i: IntegrationRow) => globalId('Integrations::Prometheus', i.id) },
  AlertManagementHttpIntegration: {
    ...integrationFields,
    payloadExample: (i: IntegrationRow) => i.payloadExample,
    payloadAttributeMappings: (i: IntegrationRow) =>
      Object.entries((i.payloadAttributeMapping ?? {}) as AttributeMapping).map(([fieldName, m]) => ({ fieldName: fieldName.toUpperCase(), path: m!.path, type: m!.type, label: m!.label ?? null })),
    payloadAlertFields: (i: IntegrationRow) => payloadAlertFields(i.payloadExample as Json),
  },
  AlertManagementPayloadAlertMappingField: {
    type: (m: { type: string }) => m.type,
  },
  AlertManagementAlert: {
    id: (a: AlertRow) => globalId('AlertManagement::Alert', a.id),
    iid: (a: AlertRow) => String(a.iid),
    eventCount: (a: AlertRow) => a.events,
    details: (a: AlertRow) => details(a),
    runbook: (a: AlertRow) => {
      const payload = a.payload as JsonObject;
      const v = a.monitoringTool === 'Prometheus' ? prometheusExtras(payload).runbook : dig(payload, ['runbook']);
      return typeof v === 'string' ? v : null;
    },
    reference: async (a: AlertRow, args: { full?: boolean }, ctx: Context) => (args.full ? `${(await ctx.loaders.projects.byId.load(a.projectId))!.fullPath}^alert#${a.iid}` : `^alert#${a.iid}`),
    webUrl: async (a: AlertRow, _: unknown, ctx: Context) => ctx.services.alert_management.alertUrl((await ctx.loaders.projects.byId.load(a.projectId))!, a),
    issue: (a: AlertRow, _: unknown, ctx: Context) => ctx.services.alert_management.issueOf(a),
    // AlertType#issue_iid: the linked issue's iid, as GitLab shows it whoever reads the alert.
    issueIid: async (a: AlertRow, _: unknown, ctx: Context) => (a.issueId === null ? null : ((await ctx.services.issues.iidOf(a.issueId)) ?? null)),
    assignees: (a: AlertRow, args: PageArgs, ctx: Context) => ctx.services.alert_management.assignees(a, args),
    metricImages: async (a: AlertRow, _: unknown, ctx: Context) => ctx.services.alert_management.metricImages((await ctx.loaders.projects.byId.load(a.projectId))!, a),
  },
  MetricImage: {
    id: (m: MetricImageRow) => globalId('AlertManagement::MetricImage', m.id),
    databaseId: (m: MetricImageRow) => m.id,
    fileName: (m: MetricImageRow) => m.file,
    filePath: (m: MetricImageRow) => `/uploads/-/system/${METRIC_IMAGE_MODEL}/file/${m.id}/${encodeURIComponent(m.file)}`,
    url: (m: MetricImageRow) => m.url ?? '',
    sourceUrl: (m: MetricImageRow) => m.url,
  },
  Project: {
    alertManagementIntegrations: (p: ProjectRow, args: { id?: number | null } & PageArgs, ctx: Context) => ctx.services.alert_management.integrations(p, { id: args.id }, args),
    alertManagementHttpIntegrations: (p: ProjectRow, args: { id?: number | null; types?: string[] | null } & PageArgs, ctx: Context) =>
      ctx.services.alert_management.integrations(p, { id: args.id, types: (args.types ?? ['HTTP']).map((t) => t.toLowerCase()) }, args),
    alertManagementAlerts: (p: ProjectRow, args: AlertArgs & PageArgs, ctx: Context) => ctx.services.alert_management.list(p, filters(args), args),
    alertManagementAlert: async (p: ProjectRow, args: AlertArgs, ctx: Context) => {
      const nodes = await (await ctx.services.alert_management.list(p, filters(args), { first: 1 })).nodes;
      return nodes[0] ?? null;
    },
    alertManagementAlertStatusCounts: (p: ProjectRow, args: AlertArgs, ctx: Context) => ctx.services.alert_management.statusCounts(p, filters(args)),
  },
  Issue: {
    alertManagementAlerts: (i: IssueRow, args: AlertArgs & PageArgs, ctx: Context) => ctx.services.alert_management.alertsOfIssue(i, filters(args), args),
    alertManagementAlert: async (i: IssueRow, _: unknown, ctx: Context) => {
      const page = await ctx.services.alert_management.alertsOfIssue(i, {}, { first: 1 });
      return page ? ((await page.nodes)[0] ?? null) : null;
    },
  },
  Mutation: {
    httpIntegrationCreate: async (_: unknown, args: IntegrationArgs & { projectPath: string; type?: string | null }, ctx: Context) => {
      const p = await project(ctx, args.projectPath);
      const service = ctx.services.alert_management;
      return { integration: args.type === 'PROMETHEUS' ? await service.createPrometheus(p, integrationInput(args)) : await service.createHttp(p, integrationInput(args)) };
    },
    httpIntegrationUpdate: async (_: unknown, args: IntegrationArgs & { id: number }, ctx: Context) => ({ integration: await ctx.services.alert_management.update(args.id, 'http', integrationInput(args)) }),
    httpIntegrationResetToken: async (_: unknown, args: { id: number }, ctx: Context) => ({ integration: await ctx.services.alert_management.resetToken(args.id, 'http') }),
    httpIntegrationDestroy: async (_: unknown, args: { id: number }, ctx: Context) => ({ integration: await ctx.services.alert_management.destroy(args.id) }),
    prometheusIntegrationCreate: async (_: unknown, args: IntegrationArgs & { projectPath: string }, ctx: Context) => ({
      integration: await ctx.services.alert_management.createPrometheus(await project(ctx, args.projectPath), integrationInput(args)),
    }),
    prometheusIntegrationUpdate: async (_: unknown, args: IntegrationArgs & { id: number }, ctx: Context) => ({ integration: await ctx.services.alert_management.update(args.id, 'prometheus', integrationInput(args)) }),
    prometheusIntegrationResetToken: async (_: unknown, args: { id: number }, ctx: Context) => ({ integration: await ctx.services.alert_management.resetToken(args.id, 'prometheus') }),
    alertMetricImageUpload: async (_: unknown, args: { projectPath: string; iid: string; file?: UploadedFile | null; url?: string | null; urlText?: string | null }, ctx: Context) => ({
      metricImage: await ctx.services.alert_management.uploadMetricImage(await project(ctx, args.projectPath), parseIid(args.iid), { file: args.file ?? null, url: args.url, urlText: args.urlText }),
    }),
    alertMetricImageUpdate: async (_: unknown, args: { projectPath: string; iid: string; id: number; url?: string | null; urlText?: string | null }, ctx: Context) => ({
      metricImage: await ctx.services.alert_management.updateMetricImage(await project(ctx, args.projectPath), parseIid(args.iid), args.id, { url: args.url, urlText: args.urlText }),
    }),
    alertMetricImageDestroy: async (_: unknown, args: { projectPath: string; iid: string; id: number }, ctx: Context) => ({
      metricImage: await ctx.services.alert_management.destroyMetricImage(await project(ctx, args.projectPath), parseIid(args.iid), args.id),
    }),
    updateAlertStatus: async (_: unknown, args: { projectPath: string; iid: string; status: AlertStatus }, ctx: Context) =>
      withIncident(ctx, await ctx.services.alert_management.setStatus(await project(ctx, args.projectPath), parseIid(args.iid), args.status)),
    alertSetAssignees: async (_: unknown, args: { projectPath: string; iid: string; assigneeUsernames: string[]; operationMode?: string | null }, ctx: Context) =>
      withIncident(
        ctx,
        await ctx.services.alert_management.setAssignees(
          await project(ctx, args.projectPath),
          parseIid(args.iid),
          args.assigneeUsernames,
          (args.operationMode ?? 'REPLACE').toLowerCase() as 'append' | 'remove' | 'replace',
        ),
      ),
    createAlertIssue: async (_: unknown, args: { projectPath: string; iid: string }, ctx: Context) =>
      ctx.services.alert_management.createIssue(await project(ctx, args.projectPath), parseIid(args.iid)),
    issueLinkAlerts: async (_: unknown, args: { projectPath: string; iid: string; alertReferences: string[] }, ctx: Context) => ({
      issue: await ctx.services.alert_management.linkAlerts(await project(ctx, args.projectPath), iidOf(args.iid), args.alertReferences),
    }),
    issueUnlinkAlert: async (_: unknown, args: { projectPath: string; iid: string; alertId: number }, ctx: Context) => ({
      issue: await ctx.services.alert_management.unlinkAlert(await project(ctx, args.projectPath), iidOf(args.iid), args.alertId),
    }),
  },
  Subscription: {
    alertManagementAlertUpdated: {
      subscribe: async (_: unknown, args: { projectPath: string }, ctx: Context) => ctx.services.alert_management.watch(await project(ctx, args.projectPath)),
    },
  },
};

/** A working mutation's payload: the alert, the to-do item it made or resolved, and the alert's incident as the viewer may read it. */
async function withIncident(ctx: Context, result: { alert: AlertRow; todo: TodoRow | null }) {
  return { ...result, issue: await ctx.services.alert_management.issueOf(result.alert) };
}

/** GitLab's AlertManagement::Alert#details: the payload without what the columns show, keys as the payload has them. */
function details(a: AlertRow): JsonObject {
  const payload = (a.payload ?? {}) as JsonObject;
  const out: JsonObject = {};
  const skip = a.monitoringTool === 'Prometheus' ? [] : Object.keys(MAPPABLE_FIELDS);
  for (const [k, v] of Object.entries(payload)) if (!skip.includes(k)) out[k] = v;
  return out;
}

