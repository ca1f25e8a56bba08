/**
 * A project's incident management settings (GitLab's IncidentManagement::ProjectIncidentManagementSetting): the SLA
 * countdown timer of its incidents, which sla.ts applies as incidents are made. Maintainers manage them
 * (`admin_operations`, as GitLab's Settings > Monitor page).
 */
import { invalid } from '../../errors.js';
import type { ServiceBase } from '../module.js';
import type { ProjectRow } from '../projects/service.js';
import { MIN_SLA_TIMER_MINUTES, ONE_YEAR_IN_MINUTES } from './sla.js';

/** The settings as read: a project without a row has GitLab's column defaults. */
export interface IncidentManagementSetting {
  slaTimer: boolean;
  slaTimerMinutes: number | null;
}

export interface IncidentManagementSettingChanges {
  slaTimer?: boolean | null;
  slaTimerMinutes?: number | null;
}

const DEFAULTS: IncidentManagementSetting = { slaTimer: false, slaTimerMinutes: null };

export class IncidentManagementService {
  constructor(private readonly base: ServiceBase) {}

  private get db() {
    return this.base.db;
  }

  /** The project's settings, or null when the viewer may not manage its operations settings. */
  async setting(project: ProjectRow): Promise<IncidentManagementSetting | null> {
    if (!(await this.base.access.can('admin_operations', project))) return null;
    return this.read(project.id);
  }

  private async read(projectId: number): Promise<IncidentManagementSetting> {
    const row = await this.db.projectIncidentManagementSetting.findUnique({ where: { projectId } });
    return row ? { slaTimer: row.slaTimer, slaTimerMinutes: row.slaTimerMinutes } : DEFAULTS;
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
    return { slaTimer: row.slaTimer, slaTimerMinutes: row.slaTimerMinutes };
  }
}
