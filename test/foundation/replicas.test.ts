import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { startTestServer, type TestServer } from '../support/server.js';
import { unique } from '../support/factories.js';

interface Activity {
  action: string;
  actionName: string;
  projectId: number;
}

/**
 * Subscribes on `subscriber`, then creates projects on `publisher` until an event arrives: graphql-ws does not
 * acknowledge a subscription, so the first projects may be created before it is listening.
 */
async function firstActivity(subscriber: TestServer, publisher: TestServer): Promise<{ event: Activity; created: number[] }> {
  const client = createClient({ url: `${subscriber.url.replace('http', 'ws')}/api/graphql`, webSocketImpl: WebSocket, connectionParams: { 'PRIVATE-TOKEN': subscriber.rootToken } });
  try {
    const event = new Promise<Activity>((resolve, reject) => {
      client.subscribe<{ activityEventRecorded: Activity }>(
        { query: 'subscription { activityEventRecorded { action actionName projectId } }' },
        { next: (msg) => msg.data && resolve(msg.data.activityEventRecorded), error: reject, complete: () => {} },
      );
    });
    const created: number[] = [];
    let received: Activity | undefined;
    void event.then((e) => (received = e));
    for (let i = 0; i < 40 && !received; i++) {
      const res = await publisher.api('POST', '/projects', { body: { name: unique('live') } });
      expect(res.status).toBe(201);
      created.push(res.body.id);
      await Promise.race([event, new Promise((r) => setTimeout(r, 250))]);
    }
    return { event: await event, created };
  } finally {
    await client.dispose();
  }
}

describe('live events', () => {
  let a: TestServer;
  let b: TestServer | undefined;
  beforeAll(async () => {
    a = await startTestServer();
    if (a.databaseUrl) b = await startTestServer({}, { replicaOf: a });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it('delivers an activity event to a subscriber on the same server', async () => {
    const { event, created } = await firstActivity(a, a);
    expect(event).toMatchObject({ action: 'CREATED', actionName: 'created' });
    expect(created).toContain(event.projectId);
  });

  it('delivers an event published on one replica to a subscriber on another (PostgreSQL)', async (ctx) => {
    if (!b) return ctx.skip();
    const { event, created } = await firstActivity(b, a);
    expect(event).toMatchObject({ action: 'CREATED', actionName: 'created' });
    expect(created).toContain(event.projectId);
    expect((await b.api('GET', `/projects/${event.projectId}`)).status).toBe(200);
  });

  it('does not deliver events of projects the subscriber cannot read', async () => {
    const outsider = await a.api('POST', '/users', { body: { username: unique('out'), name: 'Out', email: `${unique('out')}@example.com` } });
    const token = await a.api('POST', `/users/${outsider.body.id}/personal_access_tokens`, { body: { name: 't', scopes: ['api'] } });
    const client = createClient({ url: `${a.url.replace('http', 'ws')}/api/graphql`, webSocketImpl: WebSocket, connectionParams: { 'PRIVATE-TOKEN': token.body.token } });
    const seen: Activity[] = [];
    client.subscribe<{ activityEventRecorded: Activity }>(
      { query: 'subscription { activityEventRecorded { action actionName projectId } }' },
      { next: (msg) => msg.data && seen.push(msg.data.activityEventRecorded), error: () => {}, complete: () => {} },
    );
    // Root's private projects stay invisible to the outsider; a public one (after it listens) gets through.
    const { created } = await firstActivity(a, a);
    const pub = await a.api('POST', '/projects', { body: { name: unique('public'), visibility: 'public' } });
    await new Promise((r) => setTimeout(r, 500));
    await client.dispose();
    expect(seen.every((e) => !created.includes(e.projectId))).toBe(true);
    expect(seen.map((e) => e.projectId)).toContain(pub.body.id);
  });
});

describe('first start', () => {
  it('creates exactly one root when replicas start together on an empty database (PostgreSQL)', async (ctx) => {
    if (!process.env.TEST_DATABASE_URL) return ctx.skip();
    const { freshDatabase } = await import('../support/db.js');
    const { openDatabase } = await import('../../src/db/database.js');
    const { ensureRootUser } = await import('../../src/modules/users/service.js');
    const fresh = await freshDatabase('seed');
    const others = await Promise.all([1, 2, 3].map(() => openDatabase({ databaseUrl: fresh.databaseUrl })));
    try {
      const tokens = await Promise.all([fresh.db, ...others].map((d) => ensureRootUser(d.prisma, undefined)));
      expect(tokens.filter((t) => t !== null)).toHaveLength(1);
      expect(await fresh.db.prisma.user.count({ where: { username: 'root' } })).toBe(1);
    } finally {
      for (const d of others) await d.close();
      await fresh.cleanup();
    }
  });
});
