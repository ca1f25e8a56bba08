/**
 * Integrated error tracking (GitLab's ErrorTracking::ClientKey, ErrorTracking::Error and ErrorEvent, and
 * CollectErrorService): a project's client keys (the DSNs its SDKs send with), the events the collector (http.ts)
 * receives grouped into errors, and the reads, resolution and ignoring of those errors.
 */
import { createHash, randomBytes } from 'node:crypto';
import { Prisma, type PrismaClient } from '../../db/database.js';
import { queryRows } from '../../db/direct-reads.js';
import { containsIgnoringCase } from '../../db/text.js';
import { notFound, recordNotFound } from '../../errors.js';
import { connection, type PageArgs } from '../../graphql/connection.js';
import type { ServiceBase } from '../module.js';
import type { ProjectRow } from '../projects/service.js';
import type { CollectedEvent, CollectedSession } from './collector.js';

export type ClientKeyRow = Awaited<ReturnType<PrismaClient['errorTrackingClientKey']['findUniqueOrThrow']>>;
export type SettingRow = Awaited<ReturnType<PrismaClient['errorTrackingSetting']['findUniqueOrThrow']>>;
export type ErrorRow = Awaited<ReturnType<PrismaClient['errorTrackingError']['findUniqueOrThrow']>>;
export type ErrorEventRow = Awaited<ReturnType<PrismaClient['errorTrackingErrorEvent']['findUniqueOrThrow']>>;

export const ERROR_STATUSES = ['unresolved', 'resolved', 'ignored'] as const;
export type ErrorStatus = (typeof ERROR_STATUSES)[number];

/** How long errors, their events and sessions are kept (seed 8). */
export const RETENTION_DAYS = 90;
/** Rows the retention job removes per statement. */
const RETENTION_BATCH = 1000;

/** GitLab's ClientKey#generate_key: `glet_` and SecureRandom.hex. */
const generatePublicKey = () => `glet_${randomBytes(16).toString('hex')}`;

/**
 * GitLab's Dsn.build_url for the Rails collector: the key as the URL's user, the server's external URL (its port
 * only when not the scheme's own, its relative root kept) and the collector's path with the project's id.
 */
export function sentryDsn(externalUrl: string, publicKey: string, projectId: number): string {
  const url = new URL(externalUrl);
  const root = url.pathname.replace(/\/+$/, '');
  return `${url.protocol}//${publicKey}@${url.host}${root}/api/v4/error_tracking/collector/${projectId}`;
}

/** GitLab groups the events of one name, actor and platform into one error (the description is the latest's). */
export function errorFingerprint(event: Pick<CollectedEvent, 'name' | 'actor' | 'platform'>): string {
  return createHash('sha1').update(JSON.stringify([event.name, event.actor, event.platform ?? null])).digest('hex');
}

export interface ErrorFilters {
  status?: ErrorStatus | null;
  searchTerm?: string | null;
  sort?: 'last_seen' | 'first_seen' | 'frequency' | null;
}

export class ErrorTrackingService {
  constructor(private readonly base: ServiceBase) {}

  // --- settings (lib/api/error_tracking/project_settings.rb) ---

  /** The project's setting, or null when it has none. Maintainers. */
  async getSetting(project: ProjectRow): Promise<SettingRow | null> {
    await this.base.access.authorize('admin_operations', project);
    return this.base.db.errorTrackingSetting.findUnique({ where: { projectId: project.id } });
  }

  /**
   * Sets whether error tracking is enabled and, when given, whether its backend is the integrated one. GitLab's
   * PATCH changes an existing setting only (404 Error Tracking Setting without one); its PUT creates it too.
   */
  async updateSetting(project: ProjectRow, change: { active: boolean; integrated?: boolean | null; create?: boolean | null }): Promise<SettingRow> {
    await this.base.access.authorize('admin_operations', project);
    const data = { enabled: change.active, ...(change.integrated != null ? { integrated: change.integrated } : {}) };
    const where = { projectId: project.id };
    if (change.create) return this.base.db.errorTrackingSetting.upsert({ where, create: { ...where, ...data }, update: data });
    const { count } = await this.base.db.errorTrackingSetting.updateMany({ where, data });
    if (!count) throw notFound('Error Tracking Setting');
    return this.base.db.errorTrackingSetting.findUniqueOrThrow({ where });
  }

  // --- client keys (lib/api/error_tracking/client_keys.rb) ---

  async listKeys(project: ProjectRow, page: PageArgs) {
    await this.base.access.authorize('admin_operations', project);
    const { db } = this.base;
    const where = { projectId: project.id };
    return connection(
      page,
      ({ skip, take }) => db.errorTrackingClientKey.findMany({ where, orderBy: { id: 'asc' }, skip, take }),
      () => db.errorTrackingClientKey.count({ where }),
    );
  }

  async createKey(project: ProjectRow): Promise<ClientKeyRow> {
    await this.base.access.authorize('admin_operations', project);
    return this.base.db.errorTrackingClientKey.create({ data: { projectId: project.id, publicKey: generatePublicKey() } });
  }

  /** Deletes a key (GitLab answers with it); the collector looks keys up on every request, so it stops at once. */
  async deleteKey(project: ProjectRow, id: number): Promise<ClientKeyRow> {
    await this.base.access.authorize('admin_operations', project);
    const [key] = await queryRows<ClientKeyRow>(
      this.base.db,
      Prisma.sql`DELETE FROM error_tracking_client_keys WHERE id = ${id} AND "projectId" = ${project.id} RETURNING *`,
    );
    if (!key) throw recordNotFound();
    return key;
  }

  /**
   * The project a collector request names (its id or full path; one being deleted is gone), whether its integrated
   * error tracking is enabled (GitLab's `integrated_enabled?`: a setting both active and integrated), and whether
   * `publicKey` is one of its active keys: one statement, on every request, so a deleted key or a disabled setting
   * stops the collector at once.
   */
  async collectorProject(projectRef: string, publicKey: string): Promise<{ projectId: number | null; enabled: boolean; keyFound: boolean }> {
    const numeric = /^\d+$/.test(projectRef);
    // An id beyond the column's range names no project.
    if (numeric && Number(projectRef) > 2 ** 31 - 1) return { projectId: null, enabled: false, keyFound: false };
    const byRef = numeric ? Prisma.sql`p.id = ${Number(projectRef)}` : Prisma.sql`p."fullPath" = ${projectRef}`;
    const [row] = await queryRows<{ id: number; enabled: boolean | null; keyId: number | null }>(
      this.base.db,
      Prisma.sql`SELECT p.id, s.enabled AND s.integrated AS enabled, k.id AS "keyId" FROM projects p
        LEFT JOIN project_error_tracking_settings s ON s."projectId" = p.id
        LEFT JOIN error_tracking_client_keys k ON k."projectId" = p.id AND k."publicKey" = ${publicKey} AND k.active
        WHERE ${byRef} AND NOT p."pendingDelete" LIMIT 1`,
    );
    return { projectId: row?.id ?? null, enabled: row?.enabled === true, keyFound: row?.keyId != null };
  }

  /**
   * Stores what one request brought: each event grouped into its error in one statement (the error's row upserted
   * on its fingerprint, the count and last seen moved, the event inserted), so concurrent duplicates count exactly;
   * sessions keep their latest update.
   */
  async collect(projectId: number, events: readonly CollectedEvent[], sessions: readonly CollectedSession[]): Promise<void> {
    const { db } = this.base;
    for (const event of events) {
      const fingerprint = errorFingerprint(event);
      await db.$executeRaw`
        WITH error AS (
          INSERT INTO error_tracking_errors ("projectId", fingerprint, name, description, actor, platform, "eventsCount", "firstSeenAt", "lastSeenAt", "updatedAt")
          VALUES (${projectId}, ${fingerprint}, ${event.name}, ${event.description}, ${event.actor}, ${event.platform}, 1, ${event.occurredAt}, ${event.occurredAt}, now())
          ON CONFLICT ("projectId", fingerprint) DO UPDATE SET
            "eventsCount" = error_tracking_errors."eventsCount" + 1,
            description = EXCLUDED.description,
            "firstSeenAt" = LEAST(error_tracking_errors."firstSeenAt", EXCLUDED."firstSeenAt"),
            "lastSeenAt" = GREATEST(error_tracking_errors."lastSeenAt", EXCLUDED."lastSeenAt"),
            "updatedAt" = now()
          RETURNING id
        )
        INSERT INTO error_tracking_error_events ("errorId", description, environment, level, "occurredAt", "userIdentity", payload)
        SELECT id, ${event.description}, ${event.environment}, ${event.level}, ${event.occurredAt}, ${event.userIdentity}, ${JSON.stringify(event.payload)}::jsonb FROM error`;
    }
    for (const s of sessions) {
      await db.$executeRaw`
        INSERT INTO error_tracking_sessions ("projectId", sid, status, errors, release, environment, "distinctId", "startedAt", "updatedAt")
        VALUES (${projectId}, ${s.sid}, ${s.status}, ${s.errors}, ${s.release}, ${s.environment}, ${s.distinctId}, ${s.startedAt}, ${s.updatedAt})
        ON CONFLICT ("projectId", sid) DO UPDATE SET
          status = EXCLUDED.status, errors = GREATEST(error_tracking_sessions.errors, EXCLUDED.errors),
          release = COALESCE(EXCLUDED.release, error_tracking_sessions.release),
          environment = COALESCE(EXCLUDED.environment, error_tracking_sessions.environment),
          "distinctId" = COALESCE(EXCLUDED."distinctId", error_tracking_sessions."distinctId"),
          "updatedAt" = GREATEST(error_tracking_sessions."updatedAt", EXCLUDED."updatedAt")`;
    }
  }

  // --- errors (GitLab's SentryErrorCollection over the integrated backend) ---

  async listErrors(project: ProjectRow, filters: ErrorFilters, page: PageArgs) {
    await this.base.access.authorize('read_sentry_issue', project);
    const { db } = this.base;
    const where: Prisma.ErrorTrackingErrorWhereInput = { projectId: project.id };
    if (filters.status) where.status = filters.status;
    if (filters.searchTerm) {
      const contains = containsIgnoringCase(filters.searchTerm);
      where.OR = [{ name: contains }, { description: contains }];
    }
    // GitLab's sort_by_attribute: last seen, first seen or frequency, newest (or most frequent) first; else id desc.
    const orderBy: Prisma.ErrorTrackingErrorOrderByWithRelationInput[] =
      filters.sort === 'first_seen'
        ? [{ firstSeenAt: 'desc' }, { id: 'desc' }]
        : filters.sort === 'frequency'
          ? [{ eventsCount: 'desc' }, { id: 'desc' }]
          : filters.sort === 'last_seen'
            ? [{ lastSeenAt: 'desc' }, { id: 'desc' }]
            : [{ id: 'desc' }];
    return connection(
      page,
      ({ skip, take }) => db.errorTrackingError.findMany({ where, orderBy, skip, take }),
      () => db.errorTrackingError.count({ where }),
    );
  }

  async getError(project: ProjectRow, id: number): Promise<ErrorRow | null> {
    await this.base.access.authorize('read_sentry_issue', project);
    return this.base.db.errorTrackingError.findFirst({ where: { id, projectId: project.id } });
  }

  /** Resolves, ignores or reopens an error (GitLab's ErrorTracking::IssueUpdateService on the integrated backend). */
  async updateStatus(project: ProjectRow, id: number, status: ErrorStatus): Promise<ErrorRow> {
    await this.base.access.authorize('update_sentry_issue', project);
    const { count } = await this.base.db.errorTrackingError.updateMany({ where: { id, projectId: project.id }, data: { status } });
    if (!count) throw recordNotFound();
    return this.base.db.errorTrackingError.findUniqueOrThrow({ where: { id } });
  }

  /** An error's events, newest first. */
  async listEvents(error: ErrorRow, page: PageArgs) {
    const { db } = this.base;
    const where = { errorId: error.id };
    return connection(
      page,
      ({ skip, take }) => db.errorTrackingErrorEvent.findMany({ where, orderBy: [{ occurredAt: 'desc' }, { id: 'desc' }], skip, take }),
      () => db.errorTrackingErrorEvent.count({ where }),
    );
  }

  /** Sessions a project's SDKs reported, newest first. */
  async listSessions(project: ProjectRow, page: PageArgs) {
    await this.base.access.authorize('read_sentry_issue', project);
    const { db } = this.base;
    const where = { projectId: project.id };
    return connection(
      page,
      ({ skip, take }) => db.errorTrackingSession.findMany({ where, orderBy: [{ updatedAt: 'desc' }, { id: 'desc' }], skip, take }),
      () => db.errorTrackingSession.count({ where }),
    );
  }

  /**
   * Removes what is older than the retention period: events that occurred before it (their errors' counts follow),
   * errors left with no event, and sessions not updated since. Batched; idempotent.
   */
  async enforceRetention(now: Date): Promise<number> {
    const { db } = this.base;
    const cutoff = new Date(now.getTime() - RETENTION_DAYS * 86_400_000);
    let removed = 0;
    for (;;) {
      const rows = await queryRows<{ errorId: number }>(
        db,
        Prisma.sql`DELETE FROM error_tracking_error_events WHERE id IN (
          SELECT id FROM error_tracking_error_events WHERE "occurredAt" < ${cutoff} LIMIT ${RETENTION_BATCH}) RETURNING "errorId"`,
      );
      if (!rows.length) break;
      removed += rows.length;
      const ids = [...new Set(rows.map((r) => r.errorId))];
      await db.$executeRaw`UPDATE error_tracking_errors e SET "eventsCount" = (SELECT count(*) FROM error_tracking_error_events v WHERE v."errorId" = e.id)
        WHERE e.id IN (${Prisma.join(ids)})`;
    }
    removed += await db.$executeRaw`DELETE FROM error_tracking_errors WHERE "lastSeenAt" < ${cutoff}
      AND NOT EXISTS (SELECT 1 FROM error_tracking_error_events v WHERE v."errorId" = error_tracking_errors.id)`;
    removed += await db.$executeRaw`DELETE FROM error_tracking_sessions WHERE "updatedAt" < ${cutoff}`;
    return removed;
  }
}
