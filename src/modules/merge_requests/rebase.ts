/**
 * Rebasing a merge request in the background (GitLab's RebaseWorker with MergeRequests::RebaseService): `PUT …/rebase`
 * marks the rebase as in progress and queues this job (MergeRequestsService#queueRebase); the job replays the source
 * branch onto the target as the user who asked (git.ts), keeps GitLab's merge_error when that fails, and always lets
 * the in-progress mark go.
 */
import { userViewer } from '../../auth/viewer.js';
import type { JobHandlers } from '../../jobs/queue.js';
import type { JobEnvironment } from '../module.js';
import { REBASE_ERROR } from './git.js';

export const REBASE_JOB = 'merge_requests.rebase';

export interface RebaseJobPayload {
  mergeRequestId: number;
  userId: number;
  skipCi: boolean;
  /** The merge request's rebaseJid while this job is its rebase. */
  jid: string;
}

export function rebaseJobs({ app, contextFor }: JobEnvironment): JobHandlers {
  return {
    [REBASE_JOB]: async (payload) => {
      const { mergeRequestId, userId, skipCi, jid } = payload as RebaseJobPayload;
      const viewer = await userViewer(app.db, userId);
      const { services } = contextFor(viewer);
      let error: string | null = REBASE_ERROR;
      try {
        const mr = viewer ? await services.merge_requests.byId(mergeRequestId) : null;
        if (mr && mr.rebaseJid === jid) {
          await services.merge_requests.git.rebase(await services.merge_requests.projectOf(mr), mr, skipCi);
          error = null;
        }
      } catch (err) {
        app.logger.info({ err, mergeRequestId }, 'merge request rebase failed');
      } finally {
        await services.merge_requests.finishRebase(mergeRequestId, jid, error);
      }
    },
  };
}
