/** Server metadata (`GET /version`) and the heartbeat subscription. */
import { setTimeout as sleep } from 'node:timers/promises';
import { invalidValue } from '../../errors.js';

const API_VERSION = '18.6.0';
const REVISION = 'gitlab-compatible';

async function* beats(intervalSeconds: number): AsyncGenerator<{ heartbeat: Date }> {
  if (intervalSeconds < 1 || intervalSeconds > 60) throw invalidValue('intervalSeconds');
  for (;;) {
    await sleep(intervalSeconds * 1000);
    yield { heartbeat: new Date() };
  }
}

export const metadataResolvers = {
  Query: {
    metadata: () => ({ version: API_VERSION, revision: REVISION, enterprise: false }),
  },
  Subscription: {
    heartbeat: { subscribe: (_: unknown, args: { intervalSeconds: number }) => beats(args.intervalSeconds) },
  },
};
