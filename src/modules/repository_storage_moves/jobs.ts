/** Background work of storage moves: one move carried out (mover.ts), and a bulk move's scheduling of each. */
import type { JobHandlers } from '../../jobs/queue.js';
import type { JobEnvironment } from '../module.js';
import { runMove } from './mover.js';
import { BULK_JOB, MOVE_JOB, scheduleBulk, type BulkPayload, type MovePayload } from './service.js';

export function repositoryStorageMoveJobs({ app }: JobEnvironment): JobHandlers {
  return {
    [MOVE_JOB]: async (payload, _job, db) => {
      const { type, id } = payload as MovePayload;
      await runMove(app, db, type, id);
    },
    [BULK_JOB]: async (payload, _job, db) => {
      await scheduleBulk(db, app, payload as BulkPayload);
    },
  };
}
