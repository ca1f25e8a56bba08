/**
 * EE's Iterations::RollOverIssuesWorker and RollOverIssuesService: when an iteration of an automatic cadence with
 * roll-over closes (its due date has passed), its open issues move to the cadence's next open iteration (the first not
 * closed starting on or after the closed one's due date; the cadence is scheduled ahead first when it has none), as
 * the automation bot: each issue's iteration changes, with a `remove` event for the old iteration and an `add` for the
 * new one, in batches of 100. The new iteration must still be open past today.
 */
import type { PrismaClient } from '../../db/database.js';
import { automationBot } from '../users/internal.js';
import type { IterationRow } from './service.js';

const BATCH = 100;

/** Closed iterations of roll-over cadences that still hold open issues, oldest first. */
export function closedWithOpenIssues(db: PrismaClient, on: Date, limit: number): Promise<IterationRow[]> {
  return db.iteration.findMany({
    where: { dueDate: { lt: on }, cadence: { automatic: true, rollOver: true }, issues: { some: { state: 'opened' } } },
    orderBy: [{ dueDate: 'asc' }, { id: 'asc' }],
    take: limit,
  });
}

/** Iterations::Cadence#next_open_iteration: the first iteration not closed starting on or after `date`. */
export function nextOpenIteration(db: PrismaClient, cadenceId: number, date: Date, on: Date): Promise<IterationRow | null> {
  return db.iteration.findFirst({
    where: { iterationsCadenceId: cadenceId, startDate: { gte: date }, dueDate: { gte: on } },
    orderBy: [{ startDate: 'asc' }, { id: 'asc' }],
  });
}

/** RollOverIssuesService#execute: moves `from`'s open issues to `to`; false when `to` may not take them. */
export async function rollOverIssues(db: PrismaClient, from: IterationRow, to: IterationRow, host: string, on: Date): Promise<boolean> {
  if (to.dueDate <= on) return false;
  const bot = await db.$transaction((tx) => automationBot(tx, host));
  for (;;) {
    const moved = await db.$transaction(async (tx) => {
      const issues = await tx.issue.findMany({ where: { sprintId: from.id, state: 'opened' }, select: { id: true }, orderBy: { id: 'asc' }, take: BATCH });
      if (!issues.length) return 0;
      const at = new Date();
      const ids = issues.map((i) => i.id);
      await tx.issue.updateMany({ where: { id: { in: ids } }, data: { sprintId: to.id, updatedAt: at } });
      const event = (issueId: number, iterationId: number, action: 'add' | 'remove') => ({ issueId, iterationId, action, userId: bot.id, createdAt: at });
      await tx.resourceIterationEvent.createMany({ data: ids.map((id) => event(id, from.id, 'remove')) });
      await tx.resourceIterationEvent.createMany({ data: ids.map((id) => event(id, to.id, 'add')) });
      return ids.length;
    });
    if (moved < BATCH) return true;
  }
}
