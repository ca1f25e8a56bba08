/**
 * Background work of iterations: one cadence scheduled ahead (Iterations::Cadences::CreateIterationsWorker, queued when
 * an automatic cadence is made or its automation changes), and the recurring look for automatic cadences whose next
 * run date has come (Iterations::Cadences::ScheduleCreateIterationsWorker, GitLab's daily cron; hourly here, so a
 * day's turn is never missed for long), each scheduled in turn, then the roll-over of closed iterations' open issues
 * (Iterations::RollOverIssuesWorker).
 */
import type { JobHandlers } from '../../jobs/queue.js';
import type { JobEnvironment } from '../module.js';
import { CREATE_IN_ADVANCE_JOB } from './schedule.js';

/** The recurring job's kind. */
export const DUE_CADENCES_JOB = 'iterations.due_cadences';
const DUE_EVERY_MS = 3_600_000;
const BATCH = 100;

export function iterationJobs({ contextFor }: JobEnvironment): JobHandlers {
  return {
    [CREATE_IN_ADVANCE_JOB]: async (payload) => {
      const { cadenceId } = payload as { cadenceId: number };
      await contextFor(null).services.iterations.scheduleCadence(cadenceId);
    },
    [DUE_CADENCES_JOB]: {
      everyMs: DUE_EVERY_MS,
      run: async () => {
        const { iterations } = contextFor(null).services;
        // Each run moves a cadence's next run date past today, so the look ends.
        for (let ids = await iterations.dueCadences(BATCH), seen = new Set<number>(); ids.some((id) => !seen.has(id)); ids = await iterations.dueCadences(BATCH)) {
          for (const id of ids) {
            if (seen.has(id)) continue;
            seen.add(id);
            await iterations.scheduleCadence(id);
          }
        }
        // Then the open issues of iterations that have closed move on, where their cadence rolls over.
        await iterations.rollOverClosed(BATCH);
      },
    },
  };
}
