/**
 * A project's incident management settings (GitLab's IncidentManagement::ProjectIncidentManagementSetting): the SLA
 * countdown timer of its incidents, which sla.ts applies as incidents are made, and whether alerts get incidents of
 * their own as they come in (`createIssue`) and close them when the integration resolves them (`autoCloseIncident`),
 * which alert ingestion reads (src/modules/alert_management). Maintainers manage them (`admin_operations`, as GitLab's
 * Settings > Monitor page).
 */
import { invalid } from '../../errors.js';
import type { ServiceBase } from '../module.js';
import type { ProjectRow } from '../projects/service.js';
import type { ResourceEventsService } from '../resource_events/service.js';
import { alertBot } from '../users/internal.js';
import { MIN_SLA_TIMER_MINUTES, ONE_YEAR_IN_MINUTES } from './sla.js';

/** The label of incidents that missed their SLA (IncidentManagement::CreateIncidentSlaExceededLabelService). */
export const SLA_EXCEEDED_LABEL = {
  title: 'missed::SLA',
  color: '#D9534F',
  description:
    'Incidents that have missed the targeted SLA (Service Level Agreement). https://docs.gitlab.com/ee/operations/incident_management/incidents.html#service-level-agreement-countdown-timer',
};

/** SLAs looked at per batch (the check worker's each_batch of 1000). */
const BATCH = 1000;

/** The settings as read: a project without a row has GitLab's column defaults. */
export interface IncidentManagementSetting {
  slaTimer: boolean;
  slaTimerMinutes: number | null;
  createIssue: boolean;
  autoCloseIncident: boolean;
}

export interface IncidentManagementSettingChanges {
  slaTimer?: boolean | null;
  slaTimerMinutes?: number | null;
  createIssue?: boolean | null;
  autoCloseIncident?: boolean | null;
}

/** GitLab's column defaults: no SLA, no incident per alert, incidents closed with their alerts. */
const DEFAULTS: IncidentManagementSetting = { slaTimer: false, slaTimerMinutes: null, createIssue: false, autoCloseIncident: true };

const settingOf = (row: IncidentManagementSetting): IncidentManagementSetting => ({
  slaTimer: row.slaTimer,
  slaTimerMinutes: row.slaTimerMinutes,
  createIssue: row.createIssue,
  autoCloseIncident: row.autoCloseIncident,
});

export class IncidentManagementService {
  constructor(
    private readonly base: ServiceBase,
    private readonly events: ResourceEventsService,
  ) {}

  private get db() {
    return this.base.db;
  }

  /** The project's settings, or null when the viewer may not manage its operations settings. */
  async setting(project: ProjectRow): Promise<IncidentManagementSetting | null> {
    if (!(await this.base.access.can('admin_operations', project))) return null;
    return this.read(project.id);
  }

  /** The project's settings as the server acts on them (no viewer's check: ingestion reads them). */
  async read(projectId: number): Promise<IncidentManagementSetting> {
    const row = await this.db.projectIncidentManagementSetting.findUnique({ where: { projectId } });
    return row ? settingOf(row) : DEFAULTS;
  }

  /**
   * Changes the settings. GitLab's model validation: with the timer on, its minutes are required, from 15 to a year;
   * with it off, any minutes are kept as given. Turning the timer on gives no SLA to incidents already open.
   */
  async update(project: ProjectRow, changes: IncidentManagementSettingChanges): Promise<IncidentManagementSetting> {
    await this.base.access.authorize('admin_operations', project);
    const current = await this.read(project.id);
    const next: IncidentManagementSetting = {
      slaTimer: changes.slaTimer ?? current.slaTimer,
      slaTimerMinutes: changes.slaTimerMinutes !== undefined ? changes.slaTimerMinutes : current.slaTimerMinutes,
      createIssue: changes.createIssue ?? current.createIssue,
      autoCloseIncident: changes.autoCloseIncident ?? current.autoCloseIncident,
    };
    if (next.slaTimer) {
      const minutes = next.slaTimerMinutes;
      if (minutes == null) throw invalid({ slaTimerMinutes: ["can't be blank"] });
      if (minutes < MIN_SLA_TIMER_MINUTES) throw invalid({ slaTimerMinutes: [`must be greater than or equal to ${MIN_SLA_TIMER_MINUTES}`] });
      if (minutes > ONE_YEAR_IN_MINUTES) throw invalid({ slaTimerMinutes: [`must be less than or equal to ${ONE_YEAR_IN_MINUTES}`] });
    }
    const row = await this.db.projectIncidentManagementSetting.upsert({
      where: { projectId: project.id },
      create: { projectId: project.id, ...next },
      update: next,
    });
    return settingOf(row);
  }

  /**
   * The SLA check (IncidentSlaExceededCheckWorker, then ApplyIncidentSlaExceededLabelWorker for each): every open
   * incident whose SLA is past due and not yet labelled gets the project's `missed::SLA` label, found among the labels
   * it may use or made in the project, added by the alert bot with its label event unless the incident has it
   * already; either way its SLA is marked `label_applied`, so it is labelled once. Returns the SLAs marked.
   */
  async applyExceededSlaLabels(now: Date): Promise<number> {
    let marked = 0;
    let after = { dueAt: new Date(0), id: 0 };
    for (;;) {
      const batch = await this.db.issuableSla.findMany({
        where: {
          labelApplied: false,
          issuableClosed: false,
          dueAt: { lt: now },
          OR: [{ dueAt: { gt: after.dueAt } }, { dueAt: after.dueAt, id: { gt: after.id } }],
        },
        orderBy: [{ dueAt: 'asc' }, { id: 'asc' }],
        take: BATCH,
        select: { id: true, dueAt: true, issueId: true },
      });
      for (const sla of batch) if (await this.applyExceededSlaLabel(sla.id)) marked++;
      if (batch.length < BATCH) return marked;
      after = batch[batch.length - 1];
    }
  }

  private applyExceededSlaLabel(slaId: number): Promise<boolean> {
    const host = new URL(this.base.app.config.externalUrl).host;
    return this.db.$transaction(async (tx) => {
      // Claimed under lock, so a label is added once even if two replicas check at the same time.
      const [claimed] = await tx.$queryRaw<{ issueId: number }[]>`
        SELECT "issueId" FROM "issuable_slas" WHERE "id" = ${slaId} AND NOT "labelApplied" AND NOT "issuableClosed" FOR UPDATE SKIP LOCKED`;
      if (!claimed) return false;
      const issue = await tx.issue.findUnique({ where: { id: claimed.issueId }, include: { project: { include: { namespace: true } } } });
      // An issue that is no longer an incident keeps its SLA but is not labelled (sla_available?).
      if (!issue || issue.issueType !== 'incident') return false;
      const groups = issue.project.namespace.kind === 'group' ? issue.project.namespace.traversalIds : [];
      const label =
        (await tx.label.findFirst({
          where: { title: SLA_EXCEEDED_LABEL.title, OR: [{ projectId: issue.projectId }, { groupId: { in: groups } }] },
          orderBy: { id: 'asc' },
        })) ?? (await tx.label.upsert({ where: { projectId_title: { projectId: issue.projectId, title: SLA_EXCEEDED_LABEL.title } }, create: { ...SLA_EXCEEDED_LABEL, projectId: issue.projectId }, update: {} }));
      const linked = await tx.labelLink.findFirst({ where: { issueId: issue.id, labelId: label.id }, select: { id: true } });
      if (!linked) {
        const bot = await alertBot(tx, host);
        await tx.labelLink.create({ data: { issueId: issue.id, labelId: label.id } });
        await this.events.recordLabelChanges(tx, { type: 'Issue', id: issue.id, projectId: issue.projectId, groupId: null }, { added: [label.id], removed: [] }, bot.id);
      }
      await tx.issuableSla.update({ where: { id: slaId }, data: { labelApplied: true } });
      return true;
    });
  }
}
