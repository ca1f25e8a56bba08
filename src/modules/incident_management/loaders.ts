/** Batched reads of incidents' SLAs, by issue id. */
import type { PrismaClient } from '../../db/database.js';
import { byKeyLoader } from '../../db/loader.js';

export function createIncidentManagementLoaders(db: PrismaClient) {
  return {
    /** Each issue's SLA, or null. */
    slaByIssue: byKeyLoader((ids: readonly number[]) => db.issuableSla.findMany({ where: { issueId: { in: [...ids] } } }), (s) => s.issueId),
  };
}

export type IncidentManagementLoaders = ReturnType<typeof createIncidentManagementLoaders>;
