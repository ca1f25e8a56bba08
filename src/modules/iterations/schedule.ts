/**
 * EE's Iterations::Cadences::CreateIterationsInAdvanceService with Iterations::Cadence's scheduling: an automatic
 * cadence keeps `iterationsInAdvance` upcoming iterations ahead, back to back, each `durationInWeeks` long (a week is
 * 7 days ending the day before the next starts), the first on the cadence's start date (iterations past since then
 * are backfilled), later ones on the start date's weekday after the latest iteration's due date. Upcoming iterations
 * are re-aligned first when the cadence's settings changed. Then the sequences are renumbered and the cadence's next
 * run date set. Idempotent: a second run on the same day finds nothing to make.
 */
import type { PrismaClient, Prisma } from '../../db/database.js';
import { addDays, computeState, daysBetween, nextOccurring } from './dates.js';
import type { CadenceRow, IterationRow } from './service.js';

/** The background job that schedules one cadence ahead (Iterations::Cadences::CreateIterationsWorker). */
export const CREATE_IN_ADVANCE_JOB = 'iterations.create_in_advance';

type Tx = Prisma.TransactionClient;

export async function scheduleAhead(db: PrismaClient, cadenceId: number, on: Date): Promise<void> {
  await db.$transaction(async (tx) => {
    // One run per cadence at a time, and iids of the group handed out in order.
    await tx.$queryRaw`SELECT "id" FROM "iterations_cadences" WHERE "id" = ${cadenceId} FOR UPDATE`;
    const cadence = await tx.iterationCadence.findUnique({ where: { id: cadenceId } });
    if (!cadence || !(cadence.active && cadence.automatic && (cadence.durationInWeeks ?? 0) > 0 && (cadence.iterationsInAdvance ?? 0) > 0)) return;
    await tx.$queryRaw`SELECT "id" FROM "namespaces" WHERE "id" = ${cadence.groupId} FOR UPDATE`;
    const days = cadence.durationInWeeks! * 7;
    const inAdvance = cadence.iterationsInAdvance!;
    const start = cadence.startDate!;
    const weekday = start.getUTCDay();

    await realignUpcoming(tx, cadence, days, on);
    const iterations = await tx.iteration.findMany({ where: { iterationsCadenceId: cadence.id }, orderBy: [{ dueDate: 'asc' }, { id: 'asc' }] });
    const latest = iterations[iterations.length - 1];
    let next = latest ? nextOccurring(latest.dueDate, weekday) : start;
    const open = iterations.filter((it) => it.startDate <= on && it.dueDate >= on);
    const count = scheduleCount(next, { start, days, inAdvance, on, openDue: open[0]?.dueDate ?? null });

    const last = await tx.iteration.aggregate({ where: { groupId: cadence.groupId }, _max: { iid: true } });
    let iid = last._max.iid ?? 0;
    const now = new Date();
    const rows: Prisma.IterationCreateManyInput[] = [];
    for (let i = 0; i < count; i++) {
      const dueDate = addDays(next, days - 1);
      rows.push({ iid: ++iid, groupId: cadence.groupId, iterationsCadenceId: cadence.id, startDate: next, dueDate, createdAt: now, updatedAt: now });
      next = addDays(dueDate, 1);
    }
    if (rows.length) await tx.iteration.createMany({ data: rows });
    await updateSequences(tx, cadence.id);

    // compute_next_run_date: when the last iteration is the only one left in advance.
    const newest = await tx.iteration.findFirst({ where: { iterationsCadenceId: cadence.id }, orderBy: [{ dueDate: 'desc' }, { id: 'desc' }] });
    const nextRunDate = newest ? addDays(newest.startDate, -(inAdvance - 1) * days) : on;
    await tx.iterationCadence.update({ where: { id: cadence.id }, data: { nextRunDate } });
  });
}

/** Cadence#schedule_count: how many iterations to make from `next`. */
function scheduleCount(next: Date, c: { start: Date; days: number; inAdvance: number; on: Date; openDue: Date | null }): number {
  const due = addDays(next, c.days - 1);
  if (next <= c.on && due >= c.on) return 1 + c.inAdvance;
  if (due < c.on) return Math.floor(daysBetween(next, c.on) / c.days) + 1 + c.inAdvance;
  if (c.start.getTime() === next.getTime()) return c.inAdvance;
  const future = Math.floor((daysBetween(c.openDue ?? c.on, next) - 1) / c.days);
  return Math.max(0, c.inAdvance - future);
}

/**
 * update_existing_iterations!: the upcoming iterations, laid out again back to back from the first open start date
 * (Cadence#next_open_iteration_start_date) with the cadence's duration.
 */
async function realignUpcoming(tx: Tx, cadence: CadenceRow, days: number, on: Date): Promise<void> {
  const all = await tx.iteration.findMany({ where: { iterationsCadenceId: cadence.id }, orderBy: [{ dueDate: 'asc' }, { id: 'asc' }] });
  const upcoming = all.filter((it) => it.startDate > on);
  if (!upcoming.length) return;
  let next = nextOpenStart(cadence, all, days, on);
  const moved: IterationRow[] = [];
  for (const it of upcoming) {
    const dueDate = addDays(next, days - 1);
    if (it.startDate.getTime() !== next.getTime() || it.dueDate.getTime() !== dueDate.getTime()) moved.push({ ...it, startDate: next, dueDate });
    next = addDays(dueDate, 1);
  }
  for (const it of moved) await tx.iteration.update({ where: { id: it.id }, data: { startDate: it.startDate, dueDate: it.dueDate, updatedAt: new Date() } });
}

/** Cadence#next_open_iteration_start_date. */
function nextOpenStart(cadence: CadenceRow, iterations: IterationRow[], days: number, on: Date): Date {
  const start = cadence.startDate!;
  if (start > on) return start;
  const weekday = start.getUTCDay();
  const open = iterations.filter((it) => computeState(it.startDate, it.dueDate, on) === 'current');
  if (open.length) return nextOccurring(open[0].dueDate, weekday);
  const past = iterations.filter((it) => it.dueDate < on);
  if (!past.length) return start;
  let openStart = nextOccurring(past[past.length - 1].dueDate, weekday);
  if (addDays(openStart, days - 1) < on) {
    const between = Math.floor(daysBetween(openStart, on) / days);
    openStart = nextOccurring(addDays(openStart, between * days - 1), weekday);
  }
  return openStart;
}

/** Iterations::Cadence#update_iteration_sequences: 1, 2, … by start date within the cadence. */
export async function updateSequences(tx: Tx, cadenceId: number): Promise<void> {
  await tx.$executeRaw`
    UPDATE "sprints" SET "sequence" = t.n
    FROM (SELECT "id", row_number() OVER (ORDER BY "startDate", "id") AS n FROM "sprints" WHERE "iterationsCadenceId" = ${cadenceId}) AS t
    WHERE t."id" = "sprints"."id" AND "sprints"."sequence" IS DISTINCT FROM t.n`;
}
