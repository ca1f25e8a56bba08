/** PGLITE_WORKER: the real server answers reads, writes and subscriptions alike with PGlite in a worker thread or not. */
import { beforeAll, describe, expect, it } from 'vitest';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { ConfigError, loadConfig } from '../../src/config.js';
import { suiteServer } from '../support/server.js';
import { createUser, unique, type TestUser } from '../support/factories.js';

describe('PGLITE_WORKER', () => {
  it('is on unless set to 0 or false, and refuses other values', () => {
    expect(loadConfig({}).pgliteWorker).toBe(true);
    expect(loadConfig({ PGLITE_WORKER: '0' }).pgliteWorker).toBe(false);
    expect(loadConfig({ PGLITE_WORKER: 'false' }).pgliteWorker).toBe(false);
    expect(loadConfig({ PGLITE_WORKER: '1' }).pgliteWorker).toBe(true);
    expect(() => loadConfig({ PGLITE_WORKER: 'yes' })).toThrow(ConfigError);
  });
});

// The suite runs in a worker thread by default; the server's own thread gets the same checks here.
describe.skipIf(Boolean(process.env.TEST_DATABASE_URL)).each([
  { pgliteWorker: true, where: 'in a worker thread' },
  { pgliteWorker: false, where: "in the server's thread" },
])('PGlite $where', ({ pgliteWorker }) => {
  const t = suiteServer({ pgliteWorker });
  let alice: TestUser;
  beforeAll(async () => {
    alice = await createUser(t);
  });

  it('delivers an activity event, sent by NOTIFY on commit, to a graphql-ws subscriber', async () => {
    const client = createClient({ url: `${t.url.replace('http', 'ws')}/api/graphql`, webSocketImpl: WebSocket, connectionParams: { 'PRIVATE-TOKEN': alice.token } });
    try {
      const connected = new Promise<void>((resolve) => client.on('connected', () => resolve()));
      const event = new Promise<{ action: string; projectId: number; createdAt: string }>((resolve, reject) => {
        client.subscribe<{ activityEventRecorded: { action: string; projectId: number; createdAt: string } }>(
          { query: 'subscription { activityEventRecorded { action projectId createdAt } }' },
          { next: (result) => (result.data ? resolve(result.data.activityEventRecorded) : reject(new Error(JSON.stringify(result.errors)))), error: reject, complete: () => {} },
        );
      });
      await connected;
      // The subscription is registered a moment after the socket connects; create projects until one is seen.
      const created: number[] = [];
      let seen = false;
      const creating = (async () => {
        while (!seen) {
          const res = await t.api('POST', '/projects', { token: alice.token, body: { name: unique('seen') } });
          created.push(res.body.id);
          await new Promise((r) => setTimeout(r, 100));
        }
      })();
      const recorded = await event;
      seen = true;
      await creating;
      expect(recorded.action).toBe('CREATED');
      expect(created).toContain(recorded.projectId);
      expect(Number.isNaN(Date.parse(recorded.createdAt))).toBe(false);
    } finally {
      await client.dispose();
    }
  });

  it('runs concurrent transactions without mixing their statements, and reads back what they wrote', async () => {
    const names = Array.from({ length: 8 }, () => unique('concurrent'));
    const writes = await Promise.all(names.map((name) => t.api('POST', '/projects', { token: alice.token, body: { name } })));
    expect(writes.map((w) => w.status)).toEqual(names.map(() => 201));
    const reads = await Promise.all(writes.map((w) => t.api('GET', `/projects/${w.body.id}`, { token: alice.token })));
    expect(reads.map((r) => r.body.name)).toEqual(names);
    expect(reads.map((r) => r.body.created_at)).toEqual(writes.map((w) => w.body.created_at));
  });

  it('refuses a second project of the same name as GitLab does, and keeps one', async () => {
    const name = unique('twice');
    expect((await t.api('POST', '/projects', { token: alice.token, body: { name } })).status).toBe(201);
    const again = await t.api('POST', '/projects', { token: alice.token, body: { name } });
    expect(again.status).toBe(400);
    expect(again.body.message.name).toEqual(['has already been taken']);
    const listed = await t.api('GET', `/projects?owned=true&search=${name}&per_page=100`, { token: alice.token });
    expect(listed.body.filter((p: { name: string }) => p.name === name)).toHaveLength(1);
  });
});
