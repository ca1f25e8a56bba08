/**
 * Incident SLAs (EE's IssuableSla), the seam the issues service calls inside its own transactions: an incident gets
 * one when it is created, or an issue becomes one, while its project's SLA timer is on
 * (IncidentManagement::Incidents::CreateSlaService, from Issues::AfterCreateService and do_handle_issue_type_change),
 * due the timer's minutes after the issue's creation; closing and reopening the issue mark it
 * (IssuableBaseService#update_issuable_sla: `issuable_closed`).
 */
import type { Prisma } from '../../db/database.js';

type Tx = Prisma.TransactionClient;

/** One year in minutes, as GitLab counts it (`1.year / 1.minute`): the longest SLA timer. */
export const ONE_YEAR_IN_MINUTES = 525_949;
/** The shortest SLA timer. */
export const MIN_SLA_TIMER_MINUTES = 15;

/**
 * Gives an incident its SLA when the project's timer is on; does nothing for other issues, when the timer is off, or
 * when the incident has one already (an issue that was an incident before keeps the SLA it got then: GitLab's
 * `build_issuable_sla` would try, and fail, to detach the old row).
 */
export async function startIssuableSla(tx: Tx, issue: { id: number; projectId: number; issueType: string; createdAt: Date; state: string }): Promise<void> {
  if (issue.issueType !== 'incident') return;
  const setting = await tx.projectIncidentManagementSetting.findUnique({ where: { projectId: issue.projectId } });
  if (!setting?.slaTimer || setting.slaTimerMinutes == null) return;
  const dueAt = new Date(issue.createdAt.getTime() + setting.slaTimerMinutes * 60_000);
  await tx.issuableSla.createMany({ data: [{ issueId: issue.id, dueAt, issuableClosed: issue.state === 'closed' }], skipDuplicates: true });
}

/** Records whether the issue of an SLA is closed, as its state changes (whatever its type now). */
export async function markIssuableSlaClosed(tx: Tx, issueId: number, closed: boolean): Promise<void> {
  await tx.issuableSla.updateMany({ where: { issueId }, data: { issuableClosed: closed } });
}
