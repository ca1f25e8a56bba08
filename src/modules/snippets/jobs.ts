/** `snippets.destroy`: removes a deleted snippet's repository, then its row; idempotent. */
import type { JobHandlers } from '../../jobs/queue.js';
import type { JobEnvironment } from '../module.js';
import { DESTROY_JOB } from './service.js';

export const snippetJobs = ({ contextFor }: JobEnvironment): JobHandlers => ({
  [DESTROY_JOB]: async (payload) => {
    await contextFor(null).services.snippets.purge((payload as { snippetId: number }).snippetId);
  },
});
