/**
 * The seam the issues service calls inside its own transactions when an incident closes (Issues::CloseService#
 * resolve_alerts): each alert linked to it that is not resolved yet becomes resolved, ended now, and is announced as
 * any changed alert is.
 */
import type { Prisma } from '../../db/database.js';
import type { ServiceBase } from '../module.js';
import { ALERT_CHANGED, type AlertChangedMessage } from './events.js';

export async function resolveIncidentAlerts(tx: Prisma.TransactionClient, base: Pick<ServiceBase, 'publish'>, issueId: number): Promise<void> {
  const resolved = await tx.$queryRaw<{ id: number; iid: number; projectId: number }[]>`
    UPDATE "alert_management_alerts" SET "status" = 'resolved', "endedAt" = now(), "updatedAt" = now()
    WHERE "issueId" = ${issueId} AND "status" <> 'resolved'
    RETURNING "id", "iid", "projectId"`;
  for (const alert of resolved) {
    await base.publish(ALERT_CHANGED, { projectId: alert.projectId, alertId: alert.id, iid: alert.iid, created: false } satisfies AlertChangedMessage, tx);
  }
}
