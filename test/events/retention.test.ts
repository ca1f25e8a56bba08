/** Event retention: the recurring `activity.prune` job removes events older than three years, in bounded batches. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recurringKey } from '../../src/jobs/queue.js';
import { activityJobs } from '../../src/modules/activity/jobs.js';
import { ActivityService, EVENT_RETENTION_YEARS } from '../../src/modules/activity/service.js';
import { serviceHarness, type ServiceHarness } from '../support/context.js';

let h: ServiceHarness;
beforeAll(async () => {
  h = await serviceHarness();
});
afterAll(() => h?.close());

const DAY_MS = 24 * 60 * 60 * 1000;

function yearsAgo(now: Date, years: number, plusDays: number): Date {
  const date = new Date(now);
  date.setUTCFullYear(date.getUTCFullYear() - years);
  return new Date(date.getTime() + plusDays * DAY_MS);
}

async function eventsAt(authorId: number, dates: Date[]): Promise<number[]> {
  const ids: number[] = [];
  for (const createdAt of dates) ids.push((await h.app.db.event.create({ data: { action: 'created', authorId, targetType: null, createdAt } })).id);
  return ids;
}

describe('event retention', () => {
  it('removes events older than three years in batches and keeps newer ones', async () => {
    const { row } = await h.user();
    const now = new Date();
    const old = await eventsAt(row.id, [1, 2, 3, 4, 5].map((d) => yearsAgo(now, EVENT_RETENTION_YEARS, -d)));
    const kept = await eventsAt(row.id, [yearsAgo(now, EVENT_RETENTION_YEARS, 1), now]);
    expect(await ActivityService.prune(h.app.db, now, 2)).toBe(old.length);
    const left = await h.app.db.event.findMany({ where: { authorId: row.id }, orderBy: { id: 'asc' } });
    expect(left.map((e) => e.id)).toEqual(kept);
    expect(await ActivityService.prune(h.app.db, now, 2)).toBe(0);
  });

  it('is a recurring job of the queue, one row for every replica, that prunes when it runs', async () => {
    const { row } = await h.user();
    const [old] = await eventsAt(row.id, [yearsAgo(new Date(), EVENT_RETENTION_YEARS, -1)]);
    const prune = activityJobs['activity.prune'];
    expect(typeof prune === 'object' && prune.everyMs).toBeGreaterThan(0);
    h.app.jobs.register('activity.prune', prune);
    await h.app.jobs.scheduleRecurring();
    await h.app.jobs.scheduleRecurring();
    expect(await h.app.db.job.count({ where: { kind: 'activity.prune' } })).toBe(1);
    await h.app.db.job.update({ where: { uniqueKey: recurringKey('activity.prune') }, data: { runAt: new Date() } });
    await h.app.jobs.drain();
    expect(await h.app.db.event.findUnique({ where: { id: old } })).toBeNull();
    const job = await h.app.db.job.findUniqueOrThrow({ where: { uniqueKey: recurringKey('activity.prune') } });
    expect(job.status).toBe('queued');
    expect(job.runAt.getTime()).toBeGreaterThan(Date.now() + 60 * 60 * 1000);
  });
});
