/**
 * Owns alert integrations and alerts (GitLab's AlertManagement::HttpIntegration and AlertManagement::Alert): the
 * integrations' setup (Maintainers), ingestion from the notify endpoints (http.ts; authorized by an integration's
 * key, not a user), and reading and working alerts (Reporters read, Developers change).
 *
 * Grouping is the database's: an occurrence first increments the project's unresolved alert of its fingerprint in
 * one statement; only when there is none does it take the project's alert lock (an advisory lock, for the next
 * iid) and insert, and the partial unique index on unresolved fingerprints turns a concurrent twin into an
 * increment (ON CONFLICT). So many senders of one fingerprint make exactly one alert with the exact count, on every
 * replica.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { Prisma, type PrismaClient } from '../../db/database.js';
import { badRequest, forbidden, invalid, missing, notFound, unauthenticated } from '../../errors.js';
import { AVATAR_EXTENSIONS, avatarFileName } from '../../uploads/avatars.js';
import { UploadedFile } from '../../uploads/storage.js';
import { connection, type PageArgs } from '../../graphql/connection.js';
import { containsIgnoringCase } from '../../db/text.js';
import { can, projectSubject } from '../../auth/policy.js';
import { liveActor } from '../../auth/memberships.js';
import { rowIdSlot } from '../../events/bus.js';
import type { ServiceBase } from '../module.js';
import type { ProjectRow, ProjectsService } from '../projects/service.js';
import type { UsersService } from '../users/service.js';
import { issueSubject, type IssuesService, type IssueRow } from '../issues/service.js';
import type { Severity as IssueSeverity } from '../issues/incidents.js';
import type { TodosService, TodoRow } from '../todos/service.js';
import { alertBot } from '../users/internal.js';
import { issueDescription, incidentTitle } from './incident-text.js';
import { ALERT_CHANGED, type AlertChangedMessage } from './events.js';
import {
  MAPPABLE_FIELDS,
  PAYLOAD_MAX_DEPTH,
  depthOf,
  isPrometheusPayload,
  parseGeneric,
  parsePrometheusItem,
  prometheusProblems,
  type AttributeMapping,
  type FieldMapping,
  type JsonObject,
  type MappableField,
  type ParsedAlert,
} from './payload.js';

export type IntegrationRow = Awaited<ReturnType<PrismaClient['alertManagementHttpIntegration']['findUniqueOrThrow']>>;
export type AlertRow = Awaited<ReturnType<PrismaClient['alertManagementAlert']['findUniqueOrThrow']>>;

export type AlertStatus = 'triggered' | 'acknowledged' | 'resolved' | 'ignored';
export const ALERT_STATUSES: readonly AlertStatus[] = ['triggered', 'acknowledged', 'resolved', 'ignored'];


/** The endpoint identifiers of the integrations behind the fixed URLs (GitLab's). */
export const LEGACY_HTTP = 'legacy';
export const LEGACY_PROMETHEUS = 'legacy-prometheus';

/** Which integration a notify URL names. */
export type NotifyTarget = { kind: 'http'; endpointIdentifier: string } | { kind: 'legacy' } | { kind: 'prometheus' };


export interface IntegrationInput {
  name?: string | null;
  active?: boolean | null;
  apiUrl?: string | null;
  payloadExample?: string | null;
  payloadAttributeMappings?: Array<{ fieldName: MappableField; path: (string | number)[]; type: string; label?: string | null }> | null;
}

export interface AlertFilters {
  iid?: number | null;
  statuses?: AlertStatus[] | null;
  search?: string | null;
  assigneeUsername?: string | null;
  sort?: AlertSort | null;
  /** Alerts of this incident only. */
  issueId?: number | null;
}
export type AlertSort = `${'started_at' | 'ended_at' | 'created_at' | 'updated_at' | 'events' | 'severity' | 'status'}_${'asc' | 'desc'}`;

const newToken = () => randomBytes(16).toString('hex');
const newEndpointIdentifier = () => randomBytes(8).toString('hex');

/** Gitlab::Utils.slugify. */
export function slugify(name: string): string {
  return name
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '-')
    .slice(0, 63)
    .replace(/^-+|-+$/g, '');
}

const COLUMNS: Record<string, 'startedAt' | 'endedAt' | 'createdAt' | 'updatedAt' | 'events'> = { started_at: 'startedAt', ended_at: 'endedAt', created_at: 'createdAt', updated_at: 'updatedAt', events: 'events' };

/** Constant-time comparison of a presented key with the integration's. */
function sameKey(presented: string | null, token: string): boolean {
  if (presented === null) return false;
  const a = Buffer.from(presented);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** A lock key of its own for a project's alert numbering (pg_advisory_xact_lock's first key). */
const ALERT_IID_LOCK = 0x616c7274;

/** An alert an occurrence counted, resolved or opened, with its incident. */
type AlertRecorded = { id: number; iid: number; title: string; created: boolean; issueId: number | null; resolved: boolean };

/** What a project's incident settings ask of ingestion (GitLab's create_issue and auto_close_incident). */
interface IncidentSettings {
  createIssue: boolean;
  autoCloseIncident: boolean;
}

/** The link of an alert to an incident was taken while the incident was being made. */
class AlreadyLinked extends Error {}

/** GitLab's refusal of an incident for an alert that has one (AlertManagement::CreateAlertIssueService). */
const ISSUE_EXISTS = 'An issue already exists';

/** Alert severities an incident takes (IssuableSeverity has no `info`: such an incident's severity stays unknown). */
const incidentSeverity = (severity: string): IssueSeverity => (severity === 'info' ? 'unknown' : (severity as IssueSeverity));

export class AlertManagementService {
  constructor(
    private readonly base: ServiceBase,
    private readonly users: UsersService,
    private readonly projects: ProjectsService,
    private readonly issues: IssuesService,
    private readonly todos: TodosService,
  ) {}

  // Integrations (Maintainers: GitLab's admin_operations).

  /** The URL an integration advertises. */
  url(integration: IntegrationRow, projectFullPath: string): string {
    const root = `${this.base.app.config.externalUrl}/${projectFullPath}`;
    if (integration.endpointIdentifier === LEGACY_PROMETHEUS) return `${root}/prometheus/alerts/notify.json`;
    if (integration.endpointIdentifier === LEGACY_HTTP) return `${root}/alerts/notify.json`;
    return `${root}/alerts/notify/${slugify(integration.name) || 'http-endpoint'}/${integration.endpointIdentifier}.json`;
  }

  async integrations(project: ProjectRow, filter: { types?: string[] | null; id?: number | null }, page: PageArgs) {
    await this.base.access.authorize('admin_operations', project);
    const where: Prisma.AlertManagementHttpIntegrationWhereInput = { projectId: project.id };
    if (filter.types) where.typeIdentifier = { in: filter.types };
    if (filter.id != null) where.id = filter.id;
    const db = this.base.db;
    return connection(page, ({ skip, take }) => db.alertManagementHttpIntegration.findMany({ where, orderBy: { id: 'asc' }, skip, take }), () => db.alertManagementHttpIntegration.count({ where }));
  }

  /** The integration and its project, for a Maintainer of it; hidden or missing is "not found". */
  async integration(id: number): Promise<{ integration: IntegrationRow; project: ProjectRow }> {
    const row = await this.base.db.alertManagementHttpIntegration.findUnique({ where: { id } });
    const project = row ? await this.base.loaders.projects.byId.load(row.projectId) : null;
    if (!row || !project || !(await this.base.access.can('admin_operations', project))) throw notFound('Integration');
    return { integration: row, project };
  }

  private validate(input: IntegrationInput, creating: boolean): { data: Prisma.AlertManagementHttpIntegrationUncheckedUpdateInput } {
    const errors: Record<string, string[]> = {};
    const data: Prisma.AlertManagementHttpIntegrationUncheckedUpdateInput = {};
    if (input.name !== undefined && input.name !== null) {
      if (!input.name.trim()) errors.name = ["can't be blank"];
      else if (input.name.length > 255) errors.name = ['is too long (maximum is 255 characters)'];
      else data.name = input.name;
    } else if (creating) errors.name = ["can't be blank"];
    if (input.active != null) data.active = input.active;
    if (input.apiUrl !== undefined) {
      if (input.apiUrl && !/^https?:\/\/[^\s]+$/i.test(input.apiUrl)) errors.api_url = ['is blocked: Only allowed schemes are http, https'];
      else data.apiUrl = input.apiUrl || null;
    }
    if (input.payloadExample != null) {
      let example: unknown;
      try {
        example = JSON.parse(input.payloadExample);
      } catch {
        errors.payload_example = ['must be a valid json schema'];
      }
      if (example !== undefined) {
        if (typeof example !== 'object' || example === null || Array.isArray(example)) errors.payload_example = ['must be a valid json schema'];
        else if (input.payloadExample.length > 1024 * 1024 || depthOf(example, PAYLOAD_MAX_DEPTH) > PAYLOAD_MAX_DEPTH) errors.payload_example = ['JSON is too big'];
        else data.payloadExample = example as Prisma.InputJsonObject;
      }
    }
    if (input.payloadAttributeMappings != null) {
      const mapping: Record<string, FieldMapping> = {};
      for (const m of input.payloadAttributeMappings) {
        const allowed = MAPPABLE_FIELDS[m.fieldName] as readonly string[] | undefined;
        if (!allowed || !allowed.includes(m.type) || !m.path.length) {
          errors.payload_attribute_mapping = ['must be a valid json schema'];
          break;
        }
        mapping[m.fieldName] = { path: m.path, type: m.type, label: m.label ?? null };
      }
      data.payloadAttributeMapping = mapping as unknown as Prisma.InputJsonObject;
    }
    if (Object.keys(errors).length) throw invalid(errors);
    return { data };
  }

  async createHttp(project: ProjectRow, input: IntegrationInput): Promise<IntegrationRow> {
    await this.base.access.authorize('admin_operations', project);
    const { data } = this.validate(input, true);
    return this.base.db.alertManagementHttpIntegration.create({
      data: { ...(data as Prisma.AlertManagementHttpIntegrationUncheckedCreateInput), projectId: project.id, typeIdentifier: 'http', endpointIdentifier: newEndpointIdentifier(), token: newToken(), active: input.active ?? false },
    });
  }

  async createPrometheus(project: ProjectRow, input: IntegrationInput): Promise<IntegrationRow> {
    await this.base.access.authorize('admin_operations', project);
    const { data } = this.validate({ ...input, name: 'Prometheus' }, true);
    const existing = await this.base.db.alertManagementHttpIntegration.findFirst({ where: { projectId: project.id, typeIdentifier: 'prometheus' }, select: { id: true } });
    if (existing) throw invalid({ base: ['Multiple Prometheus integrations are not supported'] });
    try {
      return await this.base.db.alertManagementHttpIntegration.create({
        data: { ...(data as Prisma.AlertManagementHttpIntegrationUncheckedCreateInput), name: 'Prometheus', projectId: project.id, typeIdentifier: 'prometheus', endpointIdentifier: LEGACY_PROMETHEUS, token: newToken(), active: input.active ?? false },
      });
    } catch (error) {
      if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002') throw invalid({ base: ['Multiple Prometheus integrations are not supported'] });
      throw error;
    }
  }

  async update(id: number, type: 'http' | 'prometheus', input: IntegrationInput): Promise<IntegrationRow> {
    const { integration } = await this.ofType(id, type);
    const { data } = this.validate(type === 'prometheus' ? { ...input, name: undefined } : input, false);
    return this.base.db.alertManagementHttpIntegration.update({ where: { id: integration.id }, data });
  }

  async resetToken(id: number, type: 'http' | 'prometheus'): Promise<IntegrationRow> {
    const { integration } = await this.ofType(id, type);
    return this.base.db.alertManagementHttpIntegration.update({ where: { id: integration.id }, data: { token: newToken() } });
  }

  async destroy(id: number): Promise<IntegrationRow> {
    const { integration } = await this.ofType(id, 'http');
    await this.base.db.alertManagementHttpIntegration.deleteMany({ where: { id: integration.id } });
    return integration;
  }

  private async ofType(id: number, type: 'http' | 'prometheus') {
    const found = await this.integration(id);
    if (found.integration.typeIdentifier !== type) throw notFound('Integration');
    return found;
  }

  // Ingestion (the notify endpoints; no user).

  /**
   * One notification: the integration the URL names (active), the key, then the payload, processed as GitLab's
   * controller chooses from its shape (an Alertmanager webhook, or a generic payload). All its alerts or none.
   */
  async notify(projectFullPath: string, target: NotifyTarget, key: string | null, payload: unknown): Promise<{ iid: number; title: string }[]> {
    const found = await this.notifyIntegration(projectFullPath, target);
    if (!found || found.pendingDelete) throw notFound('Project');
    const { projectId, integration, settings } = found;
    // GitLab's order: a missing, inactive or unavailable integration is 403, then a wrong key 401.
    if (!integration || !integration.active) throw forbidden();
    if (!sameKey(key, integration.token)) throw unauthenticated();
    if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) throw badRequest('The payload must be a JSON object');
    if (depthOf(payload, PAYLOAD_MAX_DEPTH) > PAYLOAD_MAX_DEPTH) throw badRequest(`The payload is nested more than ${PAYLOAD_MAX_DEPTH} levels deep`);
    const now = new Date();
    const body = payload as JsonObject;
    let parsed: ParsedAlert[];
    const prometheus = isPrometheusPayload(body);
    if (prometheus || target.kind === 'prometheus') {
      const problems = prometheusProblems(body);
      if (problems.length) throw badRequest(`Invalid Alertmanager payload: ${problems.join(', ')}`);
      // Items without what GitLab requires of them (a title, startsAt) are skipped, as GitLab's batch skips them.
      parsed = (body.alerts as JsonObject[]).map((item) => parsePrometheusItem(item, now)).filter((a): a is ParsedAlert => a !== null);
      const alerts = await this.record(projectId, parsed);
      await this.afterRecording(projectId, alerts, settings);
      return alerts.map(({ iid, title }) => ({ iid, title }));
    }
    parsed = [parseGeneric(body, (integration.payloadAttributeMapping ?? {}) as AttributeMapping, now)];
    const alerts = await this.record(projectId, parsed);
    // A resolving generic payload with no open alert to resolve leaves no alert: GitLab's 400.
    if (!alerts.length) throw badRequest('No open alert has the fingerprint of this resolving payload');
    await this.afterRecording(projectId, alerts, settings);
    return alerts.map(({ iid, title }) => ({ iid, title }));
  }

  /**
   * AlertProcessing's post-processing, as the alert bot: with `createIssue` on, each open alert the notification
   * counted that has no incident gets one (IncidentManagement::ProcessAlertWorkerV2); with `autoCloseIncident` on, each
   * alert it resolved closes its incident (IncidentManagement::CloseIncidentWorker). Done before the notification is
   * answered, so its sender and the next request see the incident.
   */
  private async afterRecording(projectId: number, alerts: readonly AlertRecorded[], settings: IncidentSettings): Promise<void> {
    const toOpen = settings.createIssue ? alerts.filter((a) => !a.resolved && a.issueId === null) : [];
    const toClose = settings.autoCloseIncident ? alerts.filter((a) => a.resolved && a.issueId !== null) : [];
    if (!toOpen.length && !toClose.length) return;
    const project = await this.base.loaders.projects.byId.load(projectId);
    if (!project) return;
    const host = new URL(this.base.app.config.externalUrl).host;
    const bot = await this.base.db.$transaction((tx) => alertBot(tx, host));
    for (const recorded of toOpen) {
      const alert = await this.base.db.alertManagementAlert.findUnique({ where: { id: recorded.id } });
      if (!alert || alert.issueId !== null || alert.status === 'resolved') continue;
      await this.openIncident(project, alert, bot.id).catch((error: unknown) => {
        // Another notification of the same alert made its incident first.
        if (!(error instanceof AlreadyLinked)) throw error;
      });
    }
    for (const recorded of toClose) {
      await this.base.db.$transaction((tx) => this.issues.closeResolvedIncident(tx, recorded.issueId!, bot.id));
    }
  }

  /**
   * The incident of an alert (IncidentManagement::Incidents::CreateService with the alert): its title (`New: Incident
   * <iid>` for an untitled alert), GitLab's description of it, its severity; linked to the alert in the same
   * transaction, unless another link came first (AlreadyLinked, and no incident).
   */
  private async openIncident(project: ProjectRow, alert: AlertRow, authorId: number): Promise<{ issue: IssueRow; alert: AlertRow }> {
    let linked: AlertRow | null = null;
    const issue = await this.issues.createIncident(
      project,
      { title: (iid) => incidentTitle(alert.title, iid), description: issueDescription(alert, this.alertUrl(project, alert)), severity: incidentSeverity(alert.severity) },
      authorId,
      async (tx, incident) => {
        const rows = await tx.alertManagementAlert.updateManyAndReturn({ where: { id: alert.id, issueId: null }, data: { issueId: incident.id, updatedAt: new Date() } });
        if (!rows.length) throw new AlreadyLinked();
        linked = rows[0]!;
        await this.base.publish(ALERT_CHANGED, { projectId: project.id, alertId: alert.id, iid: alert.iid, created: false } satisfies AlertChangedMessage, tx);
      },
    );
    return { issue, alert: linked! };
  }

  /** The alert's detail page (GitLab's details_url). */
  alertUrl(project: Pick<ProjectRow, 'fullPath'>, alert: Pick<AlertRow, 'iid'>): string {
    return `${this.base.app.config.externalUrl}/${project.fullPath}/-/alert_management/${alert.iid}/details`;
  }

  /**
   * The project a notify URL names and the integration it selects, in one statement (every notification asks it):
   * an HTTP integration by its identifier, the project's Prometheus integration, or for the legacy URL the `legacy`
   * integration, else the project's first HTTP integration (GitLab's Free tier serves the first of each type).
   */
  private async notifyIntegration(fullPath: string, target: NotifyTarget) {
    type Found = {
      projectId: number;
      pendingDelete: boolean;
      active: boolean | null;
      token: string | null;
      payloadAttributeMapping: Prisma.JsonValue;
      createIssue: boolean | null;
      autoCloseIncident: boolean | null;
    };
    const selected =
      target.kind === 'http'
        ? Prisma.sql`i."endpointIdentifier" = ${target.endpointIdentifier} ORDER BY i."id"`
        : target.kind === 'prometheus'
          ? Prisma.sql`i."typeIdentifier" = 'prometheus' ORDER BY i."id"`
          : Prisma.sql`(i."endpointIdentifier" = ${LEGACY_HTTP} OR i."typeIdentifier" = 'http') ORDER BY (i."endpointIdentifier" = ${LEGACY_HTTP}) DESC, i."id"`;
    const [row] = await this.base.db.$queryRaw<Found[]>`
      SELECT p."id" AS "projectId", p."pendingDelete", i."active", i."token", i."payloadAttributeMapping", s."createIssue", s."autoCloseIncident"
      FROM "projects" p
      LEFT JOIN LATERAL (SELECT * FROM "alert_management_http_integrations" i WHERE i."projectId" = p."id" AND ${selected} LIMIT 1) i ON true
      LEFT JOIN "project_incident_management_settings" s ON s."projectId" = p."id"
      WHERE p."fullPath" = ${fullPath}`;
    if (!row) return null;
    const integration = row.active === null || row.token === null ? null : { active: row.active, token: row.token, payloadAttributeMapping: row.payloadAttributeMapping };
    // A project without settings has GitLab's defaults: no incident per alert, incidents closed with their alerts.
    const settings: IncidentSettings = { createIssue: row.createIssue ?? false, autoCloseIncident: row.autoCloseIncident ?? true };
    return { projectId: row.projectId, pendingDelete: row.pendingDelete, integration, settings };
  }

  /**
   * Records each occurrence (GitLab's AlertProcessing), in one transaction; what it created or matched. A single
   * occurrence of an open alert (most notifications: a repeat) is one statement that counts it and announces the
   * change, with no transaction around it.
   */
  private async record(projectId: number, alerts: readonly ParsedAlert[]): Promise<AlertRecorded[]> {
    if (!alerts.length) return [];
    if (alerts.length === 1 && alerts[0]!.fingerprint) {
      const matched = await this.matchOpen(this.base.db, projectId, alerts[0]!, true);
      if (matched) return [matched];
    }
    const out: AlertRecorded[] = [];
    await this.base.db.$transaction(async (tx) => {
      let locked = false;
      for (const alert of alerts) {
        const row = await this.recordOne(tx, projectId, alert, async () => {
          if (locked) return;
          await tx.$executeRaw`SELECT pg_advisory_xact_lock(${ALERT_IID_LOCK}::int4, ${projectId}::int4)`;
          locked = true;
        });
        if (!row) continue;
        out.push(row);
        await this.base.publish(ALERT_CHANGED, { projectId, alertId: row.id, iid: row.iid, created: row.created } satisfies AlertChangedMessage, tx);
      }
    });
    return out;
  }

  /**
   * The open alert of the occurrence's fingerprint, counted (or resolved, for a resolving occurrence); null when none
   * is open. `announce`: the statement announces the change itself (outside a transaction); otherwise the caller does.
   */
  private async matchOpen(db: Prisma.TransactionClient, projectId: number, a: ParsedAlert, announce: boolean): Promise<AlertRecorded | null> {
    const change = a.resolving ? Prisma.sql`"status" = 'resolved', "endedAt" = ${a.endedAt}` : Prisma.sql`"events" = "events" + 1`;
    const update = Prisma.sql`
      UPDATE "alert_management_alerts" SET ${change}, "updatedAt" = now()
      WHERE "projectId" = ${projectId} AND "fingerprint" = ${a.fingerprint} AND "status" <> 'resolved'
      RETURNING "id", "iid", "title", "issueId"`;
    if (!announce) {
      const [row] = await db.$queryRaw<AlertRecorded[]>`${update}`;
      return row ? { ...row, created: false, resolved: a.resolving } : null;
    }
    const message = { projectId, alertId: rowIdSlot('alert'), iid: rowIdSlot('iid'), created: false };
    const announcement = { topic: ALERT_CHANGED, payload: message, ids: { alert: Prisma.sql`"matched"."id"`, iid: Prisma.sql`"matched"."iid"` } };
    const [row] = await this.base.announce([announcement], (notify) =>
      db.$queryRaw<AlertRecorded[]>`WITH "matched" AS (${update}) SELECT "matched"."id", "matched"."iid", "matched"."title", "matched"."issueId" FROM "matched" CROSS JOIN LATERAL ${notify}`,
      (rows) => rows.length > 0,
    );
    return row ? { ...row, created: false, resolved: a.resolving } : null;
  }

  private async recordOne(tx: Prisma.TransactionClient, projectId: number, a: ParsedAlert, lock: () => Promise<void>) {
    type Row = Omit<AlertRecorded, 'resolved'>;
    if (a.fingerprint) {
      const existing = await this.matchOpen(tx, projectId, a, false);
      if (existing) return existing;
    }
    // A resolving occurrence with no open alert creates nothing (GitLab's current AlertProcessing).
    if (a.resolving) return null;
    await lock();
    const [row] = await tx.$queryRaw<Row[]>`
      INSERT INTO "alert_management_alerts"
        ("projectId", "iid", "title", "description", "service", "monitoringTool", "hosts", "severity", "status", "startedAt", "events", "fingerprint", "environment", "payload", "updatedAt")
      VALUES (${projectId}, (SELECT COALESCE(MAX("iid"), 0) + 1 FROM "alert_management_alerts" WHERE "projectId" = ${projectId}),
        ${a.title}, ${a.description}, ${a.service}, ${a.monitoringTool}, ${a.hosts}::text[], ${a.severity}::"AlertManagementSeverity", 'triggered', ${a.startedAt}, 1,
        ${a.fingerprint}, ${a.environment}, ${JSON.stringify(a.payload)}::jsonb, now())
      ON CONFLICT ("projectId", "fingerprint") WHERE "status" <> 'resolved' AND "fingerprint" IS NOT NULL
      DO UPDATE SET "events" = "alert_management_alerts"."events" + 1, "updatedAt" = now()
      RETURNING "id", "iid", "title", (xmax = 0) AS "created", "issueId"`;
    return { ...row!, resolved: false };
  }

  // Reading and working alerts.

  private async readable(project: ProjectRow) {
    await this.base.access.authorize('read_alert_management_alert', project);
  }

  private async filterWhere(project: ProjectRow, f: AlertFilters): Promise<Prisma.AlertManagementAlertWhereInput> {
    const and: Prisma.AlertManagementAlertWhereInput[] = [{ projectId: project.id }];
    if (f.iid != null) and.push({ iid: f.iid });
    if (f.issueId != null) and.push({ issueId: f.issueId });
    if (f.statuses?.length) and.push({ status: { in: f.statuses } });
    if (f.search) {
      const contains = containsIgnoringCase(f.search);
      and.push({ OR: [{ title: contains }, { description: contains }, { service: contains }, { monitoringTool: contains }, { hosts: { has: f.search } }] });
    }
    if (f.assigneeUsername) {
      const user = await this.users.find({ path: f.assigneeUsername });
      and.push(user ? { assignees: { some: { userId: user.id } } } : { id: -1 });
    }
    return { AND: and };
  }

  async list(project: ProjectRow, f: AlertFilters, page: PageArgs) {
    await this.readable(project);
    const where = await this.filterWhere(project, f);
    const db = this.base.db;
    const sort = f.sort ?? 'created_at_desc';
    const dir = sort.endsWith('_asc') ? 'asc' : 'desc';
    const field = sort.slice(0, sort.lastIndexOf('_'));
    // Severity and status sort by their enums' order (GitLab's integers): ascending is least critical first, and
    // ignored > resolved > acknowledged > triggered (GitLab's order_severity, order_status).
    const enumDir = dir === 'asc' ? 'desc' : 'asc';
    const order: Prisma.AlertManagementAlertOrderByWithRelationInput[] =
      field === 'severity' || field === 'status'
        ? [{ [field]: enumDir }, { id: dir }]
        : [{ [COLUMNS[field] ?? 'createdAt']: field === 'ended_at' ? { sort: dir, nulls: 'last' } : dir }, { id: dir }];
    return connection(
      page,
      ({ skip, take }) => db.alertManagementAlert.findMany({ where, orderBy: order, skip, take }),
      () => db.alertManagementAlert.count({ where }),
    );
  }
  /** GitLab's AlertStatusCounts: each status, `open` (triggered and acknowledged) and `all`, under the same filters. */
  async statusCounts(project: ProjectRow, f: AlertFilters) {
    await this.readable(project);
    const where = await this.filterWhere(project, { ...f, statuses: null, iid: null });
    const groups = await this.base.db.alertManagementAlert.groupBy({ by: ['status'], where, _count: { _all: true } });
    const count = (s: string) => groups.find((g) => g.status === s)?._count._all ?? 0;
    return {
      all: groups.reduce((n, g) => n + g._count._all, 0),
      open: count('triggered') + count('acknowledged'),
      triggered: count('triggered'),
      acknowledged: count('acknowledged'),
      resolved: count('resolved'),
      ignored: count('ignored'),
    };
  }

  async get(project: ProjectRow, iid: number): Promise<AlertRow> {
    await this.readable(project);
    const row = await this.base.db.alertManagementAlert.findUnique({ where: { projectId_iid: { projectId: project.id, iid } } });
    if (!row) throw notFound('Alert');
    return row;
  }

  async find(project: ProjectRow, iid: number): Promise<AlertRow | null> {
    if (!(await this.base.access.can('read_alert_management_alert', project))) return null;
    return this.base.db.alertManagementAlert.findUnique({ where: { projectId_iid: { projectId: project.id, iid } } });
  }

  private async updatable(project: ProjectRow, iid: number): Promise<AlertRow> {
    const alert = await this.get(project, iid);
    await this.base.access.authorize('update_alert_management_alert', project);
    return alert;
  }

  /**
   * GitLab's UpdateAlertStatus: any status to any other; resolving sets ended_at, leaving it clears it, and resolving
   * marks the viewer's pending to-do items about the alert done (the newest of them is the payload's `todo`).
   */
  async setStatus(project: ProjectRow, iid: number, status: AlertStatus): Promise<{ alert: AlertRow; todo: TodoRow | null }> {
    const alert = await this.updatable(project, iid);
    if (alert.status === status) return { alert, todo: null };
    const updated = await this.base.db.$transaction(async (tx) => {
      try {
        const row = await tx.alertManagementAlert.update({ where: { id: alert.id }, data: { status, endedAt: status === 'resolved' ? new Date() : null } });
        await this.base.publish(ALERT_CHANGED, { projectId: project.id, alertId: row.id, iid: row.iid, created: false } satisfies AlertChangedMessage, tx);
        return row;
      } catch (error) {
        if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002') throw invalid({ fingerprint: ['Cannot have multiple unresolved alerts'] });
        throw error;
      }
    });
    return { alert: updated, todo: status === 'resolved' ? await this.todos.alertResolved(updated) : null };
  }

  /**
   * GitLab's AlertSetAssignees: APPEND, REMOVE or REPLACE (the default); assignees must be able to read alerts. Each
   * user newly assigned gets an `assigned` to-do item (TodoService#reassigned_assignable); the payload's `todo` is the
   * viewer's, when they assigned themselves.
   */
  async setAssignees(project: ProjectRow, iid: number, usernames: string[], mode: 'append' | 'remove' | 'replace'): Promise<{ alert: AlertRow; todo: TodoRow | null }> {
    const alert = await this.updatable(project, iid);
    const users = await Promise.all(usernames.map((u) => this.users.find({ path: u })));
    const ids = users.filter((u): u is NonNullable<typeof u> => !!u).map((u) => u.id);
    const before = new Set((await this.base.db.alertManagementAlertAssignee.findMany({ where: { alertId: alert.id }, select: { userId: true } })).map((a) => a.userId));
    const updated = await this.base.db.$transaction(async (tx) => {
      if (mode === 'replace') await tx.alertManagementAlertAssignee.deleteMany({ where: { alertId: alert.id } });
      if (mode === 'remove') await tx.alertManagementAlertAssignee.deleteMany({ where: { alertId: alert.id, userId: { in: ids } } });
      else if (ids.length) await tx.alertManagementAlertAssignee.createMany({ data: ids.map((userId) => ({ alertId: alert.id, userId })), skipDuplicates: true });
      const row = await tx.alertManagementAlert.update({ where: { id: alert.id }, data: { updatedAt: new Date() } });
      await this.base.publish(ALERT_CHANGED, { projectId: project.id, alertId: row.id, iid: row.iid, created: false } satisfies AlertChangedMessage, tx);
      return row;
    });
    const added = mode === 'remove' ? [] : ids.filter((id) => !before.has(id));
    const todos = await this.todos.alertAssigned(updated, added);
    const viewerId = this.base.access.requireViewer().id;
    return { alert: updated, todo: todos.find((t) => t.userId === viewerId) ?? null };
  }

  // Incidents of alerts (GitLab's alert_management_alerts.issue_id).

  /** The alert's incident, when the viewer may read it (AlertType#issue); batched across a page of alerts. */
  async issueOf(alert: AlertRow): Promise<IssueRow | null> {
    if (alert.issueId === null) return null;
    const issue = await this.base.loaders.issues.byId.load(alert.issueId);
    return issue && (await this.issues.canRead(issue)) ? issue : null;
  }

  /**
   * GitLab's CreateAlertIssue (AlertManagement::CreateAlertIssueService): Developers (`update_alert_management_alert`,
   * else ResourceNotAvailable) who may create issues make an incident of the alert, written by them, linked to it.
   * An alert with an incident keeps it: `An issue already exists`, in the payload with the alert.
   */
  async createIssue(project: ProjectRow, iid: number): Promise<{ alert: AlertRow; issue: IssueRow | null; errors: string[] }> {
    const alert = await this.updatable(project, iid);
    if (!(await this.base.access.can('create_issue', project))) return { alert, issue: null, errors: ['You have no permissions'] };
    if (alert.issueId !== null) return { alert, issue: null, errors: [ISSUE_EXISTS] };
    try {
      const made = await this.openIncident(project, alert, this.base.access.requireViewer().id);
      return { ...made, errors: [] };
    } catch (error) {
      if (!(error instanceof AlreadyLinked)) throw error;
      return { alert: (await this.find(project, iid)) ?? alert, issue: null, errors: [ISSUE_EXISTS] };
    }
  }

  /** An incident its viewer may manage (`admin_issue`, GitLab's authorize on IssueLinkAlerts and IssueUnlinkAlert). */
  private async manageableIncident(project: ProjectRow, iid: number): Promise<IssueRow> {
    const issue = await this.issues.get(project, iid);
    await this.base.access.authorize('admin_issue', issueSubject(project, issue));
    return issue;
  }

  /**
   * GitLab's IssueLinkAlerts (IncidentManagement::LinkAlerts::CreateService): the alerts the references name, among
   * those the viewer may read (`^alert#<iid>`, `<project path>^alert#<iid>`, or an alert's detail page URL), become the
   * incident's, leaving any incident they had. References that name nothing readable are passed over.
   */
  async linkAlerts(project: ProjectRow, iid: number, references: readonly string[]): Promise<IssueRow> {
    const issue = await this.manageableIncident(project, iid);
    const alerts = await this.referencedAlerts(project, references);
    if (alerts.length) {
      await this.base.db.$transaction(async (tx) => {
        for (const alert of alerts) {
          if (alert.issueId === issue.id) continue;
          await tx.alertManagementAlert.update({ where: { id: alert.id }, data: { issueId: issue.id } });
          await this.base.publish(ALERT_CHANGED, { projectId: alert.projectId, alertId: alert.id, iid: alert.iid, created: false } satisfies AlertChangedMessage, tx);
        }
      });
    }
    return issue;
  }

  /** The alerts of these references the viewer may read, each once. */
  private async referencedAlerts(project: ProjectRow, references: readonly string[]): Promise<AlertRow[]> {
    const root = this.base.app.config.externalUrl.replace(/\/+$/, '');
    const found = new Map<number, AlertRow>();
    for (const text of references.join(' ').split(/\s+/)) {
      if (!text) continue;
      let path: string | null = null;
      let number: string | null = null;
      const short = /^(?:([\w.\-/]+))?\^alert#(\d{1,10})$/.exec(text);
      if (short) [path, number] = [short[1] ?? null, short[2]!];
      else if (text.startsWith(`${root}/`)) {
        const url = /^(.+)\/-\/alert_management\/(\d{1,10})\/details\/?$/.exec(text.slice(root.length + 1));
        if (url) [path, number] = [url[1]!, url[2]!];
      }
      if (number === null) continue;
      const target = path === null || path === project.fullPath ? project : await this.projects.find({ path });
      if (!target) continue;
      const alert = await this.find(target, Number(number));
      if (alert) found.set(alert.id, alert);
    }
    return [...found.values()];
  }

  /**
   * GitLab's IssueUnlinkAlert (IncidentManagement::LinkAlerts::DestroyService): the alert leaves the incident; an
   * alert of another incident, or of none, is left as it is. An alert that does not exist is ResourceNotAvailable.
   */
  async unlinkAlert(project: ProjectRow, iid: number, alertId: number): Promise<IssueRow> {
    const issue = await this.manageableIncident(project, iid);
    const alert = await this.base.db.alertManagementAlert.findUnique({ where: { id: alertId } });
    if (!alert) throw notFound('Alert');
    await this.base.db.$transaction(async (tx) => {
      const rows = await tx.alertManagementAlert.updateMany({ where: { id: alert.id, issueId: issue.id }, data: { issueId: null } });
      if (rows.count) await this.base.publish(ALERT_CHANGED, { projectId: alert.projectId, alertId: alert.id, iid: alert.iid, created: false } satisfies AlertChangedMessage, tx);
    });
    return issue;
  }

  /** The incident's alerts the viewer may read (Issue.alertManagementAlerts): its project's, under the list's filters. */
  async alertsOfIssue(issue: IssueRow, f: AlertFilters, page: PageArgs) {
    const project = await this.base.loaders.projects.byId.load(issue.projectId);
    if (!project || !(await this.base.access.can('read_alert_management_alert', project))) return null;
    return this.list(project, { ...f, issueId: issue.id }, page);
  }

  async assignees(alert: AlertRow, page: PageArgs) {
    const db = this.base.db;
    const where = { alertId: alert.id };
    return connection(
      page,
      async ({ skip, take }) => {
        const rows = await db.alertManagementAlertAssignee.findMany({ where, orderBy: { userId: 'asc' }, skip, take, select: { userId: true } });
        return (await this.base.loaders.users.byId.loadMany(rows.map((r) => r.userId))).filter((u) => u && !(u instanceof Error));
      },
      () => db.alertManagementAlertAssignee.count({ where }),
    );
  }

  /**
   * New and changed alerts of a project, as they commit (alertManagementAlertUpdated): for those who read its
   * alerts, checked again on every message against their memberships and the project as the App remembers them.
   */
  async watch(project: ProjectRow): Promise<AsyncGenerator<{ alertManagementAlertUpdated: AlertRow }>> {
    await this.readable(project);
    const { app, db, viewer } = this.base;
    const actor = liveActor(app.memberships, viewer);
    const subject = projectSubject(project);
    const messages = app.bus.iterate<AlertChangedMessage>(ALERT_CHANGED, (m) => m.projectId === subject.id);
    return (async function* () {
      try {
        for await (const message of messages) {
          const current = await app.projectSubjects.of(subject.id);
          if (!current || !can(await actor.get(), 'read_alert_management_alert', current)) return;
          const row = await db.alertManagementAlert.findUnique({ where: { id: message.alertId } });
          if (!row) continue;
          await app.bus.turn();
          yield { alertManagementAlertUpdated: row };
        }
      } finally {
        await messages.return?.();
      }
    })();
  }

  // Metric images (GitLab's AlertManagement::MetricImage): files stored like uploads, at
  // `-/system/alert_metric_image/file/<id>/<name>`.

  async metricImages(project: ProjectRow, alert: AlertRow): Promise<MetricImageRow[]> {
    await this.base.access.authorize('read_alert_management_metric_image', project);
    return this.base.db.alertManagementMetricImage.findMany({ where: { alertId: alert.id }, orderBy: { id: 'asc' }, take: METRIC_IMAGES_MAX });
  }

  /** GitLab's UploadMetricImageService: an image file of at most 1 MB, with an optional link and its text. */
  async uploadMetricImage(project: ProjectRow, iid: number, input: { file: UploadedFile | null; url?: string | null; urlText?: string | null }): Promise<MetricImageRow> {
    const alert = await this.get(project, iid);
    await this.base.access.authorize('upload_alert_management_metric_image', project);
    const file = input.file;
    if (!file || file === UploadedFile.BLANK) throw missing('file');
    if (file.size > METRIC_IMAGE_MAX_BYTES) throw badRequest('File is too large');
    const name = avatarFileName(file);
    if (!(AVATAR_EXTENSIONS as readonly string[]).includes(name.slice(name.lastIndexOf('.') + 1).toLowerCase())) {
      throw invalid({ file: [`file format is not supported. Please try one of the following supported formats: ${AVATAR_EXTENSIONS.join(', ')}`] });
    }
    const data = metricImageLink(input);
    const count = await this.base.db.alertManagementMetricImage.count({ where: { alertId: alert.id } });
    if (count >= METRIC_IMAGES_MAX) throw badRequest(`An alert has at most ${METRIC_IMAGES_MAX} metric images`);
    const row = await this.base.db.alertManagementMetricImage.create({ data: { alertId: alert.id, file: name, url: data.url ?? null, urlText: data.urlText ?? null } });
    try {
      await this.base.app.uploads.storeSystemFile(METRIC_IMAGE_MODEL, 'file', row.id, name, file);
    } catch (error) {
      await this.base.db.alertManagementMetricImage.deleteMany({ where: { id: row.id } });
      throw error;
    }
    return row;
  }

  private async metricImage(project: ProjectRow, iid: number, id: number, ability: 'update_alert_management_metric_image' | 'destroy_alert_management_metric_image'): Promise<MetricImageRow> {
    const alert = await this.get(project, iid);
    await this.base.access.authorize(ability, project);
    const row = await this.base.db.alertManagementMetricImage.findFirst({ where: { id, alertId: alert.id } });
    if (!row) throw notFound('Metric image');
    return row;
  }

  async updateMetricImage(project: ProjectRow, iid: number, id: number, input: { url?: string | null; urlText?: string | null }): Promise<MetricImageRow> {
    const row = await this.metricImage(project, iid, id, 'update_alert_management_metric_image');
    return this.base.db.alertManagementMetricImage.update({ where: { id: row.id }, data: metricImageLink(input) });
  }

  async destroyMetricImage(project: ProjectRow, iid: number, id: number): Promise<MetricImageRow> {
    const row = await this.metricImage(project, iid, id, 'destroy_alert_management_metric_image');
    await this.base.db.alertManagementMetricImage.deleteMany({ where: { id: row.id } });
    await this.base.app.uploads.removeSystemFiles(METRIC_IMAGE_MODEL, 'file', row.id);
    return row;
  }

  /** A metric image file, for one who may read the alert's images; null otherwise (the same 404). */
  async metricImageFile(id: number, filename: string): Promise<{ path: string; size: number } | null> {
    const row = await this.base.db.alertManagementMetricImage.findUnique({ where: { id }, include: { alert: { select: { projectId: true } } } });
    if (!row || row.file !== filename) return null;
    const project = await this.base.loaders.projects.byId.load(row.alert.projectId);
    if (!project || project.pendingDelete || !(await this.base.access.can('read_alert_management_metric_image', project))) return null;
    return this.base.app.uploads.systemFile(METRIC_IMAGE_MODEL, 'file', row.id, filename);
  }
}

/** The folder model name of metric images, as GitLab's file_path shows it. */
export const METRIC_IMAGE_MODEL = 'alert_metric_image';
const METRIC_IMAGE_MAX_BYTES = 1024 * 1024;
/** Our bound on one alert's images (GitLab sets none; lists stay bounded). */
const METRIC_IMAGES_MAX = 100;

export type MetricImageRow = Awaited<ReturnType<PrismaClient['alertManagementMetricImage']['findUniqueOrThrow']>>;

/** The link of a metric image: an http(s) URL, and its text of at most 128 characters. */
function metricImageLink(input: { url?: string | null; urlText?: string | null }): { url?: string | null; urlText?: string | null } {
  const errors: Record<string, string[]> = {};
  if (input.url) {
    let ok = false;
    try {
      ok = ['http:', 'https:'].includes(new URL(input.url).protocol) && input.url.length <= 255;
    } catch {
      ok = false;
    }
    if (!ok) errors.url = ['is not a valid URL'];
  }
  if (input.urlText && input.urlText.length > 128) errors.url_text = ['is too long (maximum is 128 characters)'];
  if (Object.keys(errors).length) throw invalid(errors);
  const out: { url?: string | null; urlText?: string | null } = {};
  if (input.url !== undefined) out.url = input.url || null;
  if (input.urlText !== undefined) out.urlText = input.urlText || null;
  return out;
}
