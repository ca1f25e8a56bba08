/** Batched reads of what a listed issue shows of its links: how many open issues it blocks. */
import type { PrismaClient } from '../../db/database.js';
import { countLoader } from '../../db/loader.js';

export function createIssueLinkLoaders(db: PrismaClient) {
  return {
    /** Open issues each issue blocks (EE's Issue#blocking_issues_count, IssueLink.blocking_issuables_for_collection). */
    blockingCount: countLoader(async (ids) => {
      const rows = await db.issueLink.groupBy({ by: ['sourceId'], where: { sourceId: { in: ids }, linkType: 'blocks', target: { is: { state: 'opened' } } }, _count: { _all: true } });
      return rows.map((r) => ({ key: r.sourceId, count: r._count._all }));
    }),
  };
}

export type IssueLinkLoaders = ReturnType<typeof createIssueLinkLoaders>;
