import { beforeAll, describe, expect, it } from 'vitest';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { suiteServer } from '../support/server.js';
import { createUser, type TestUser } from '../support/factories.js';

// The bounds of /api/graphql apply to every graphql-ws operation; one connection also runs at most 100
// operations at a time and sends at most 600 messages a minute (the defaults).
const t = suiteServer();
let alice: TestUser;
beforeAll(async () => {
  alice = await createUser(t);
});

const wsUrl = () => `${t.url.replace('http', 'ws')}/api/graphql`;
const clientOf = (token: string): Client =>
  createClient({ url: wsUrl(), webSocketImpl: WebSocket, connectionParams: { 'PRIVATE-TOKEN': token }, retryAttempts: 0 });

/** The first answer of an operation: its data, or its errors. */
function first<T = Record<string, unknown>>(client: Client, query: string): Promise<{ data?: T; errors?: unknown }> {
  return new Promise((resolve) => {
    const stop = client.subscribe<T>(
      { query },
      {
        next: (msg) => {
          stop();
          resolve(msg.errors ? { errors: msg.errors } : { data: msg.data as T });
        },
        error: (errors) => resolve({ errors }),
        complete: () => {},
      },
    );
  });
}

const refusal = (message: string) => expect.objectContaining({ message, extensions: { code: 'LIMIT_EXCEEDED' } });

describe('operation bounds over graphql-ws', () => {
  it('refuses a subscription over the complexity limit with GitLab\'s message', async () => {
    const client = clientOf(alice.token);
    try {
      const fields = Array.from({ length: 130 }, (_, i) => `f${i}: id`).join(' ');
      const outcome = await first(client, `subscription { activityEventRecorded { author { namespace { projects(first: 100) { nodes { ${fields} } } } } } }`);
      expect(outcome.errors).toEqual([refusal('Query has complexity of 267, which exceeds max complexity of 250')]);
    } finally {
      await client.dispose();
    }
  });

  it('refuses a recursive subscription and a query over the size limit, and keeps the connection', async () => {
    const client = clientOf(alice.token);
    try {
      const recursive = await first(client, 'subscription { activityEventRecorded { author { namespace { projects(first: 2) { nodes { group { projects(first: 2) { nodes { group { projects(first: 2) { nodes { group { id } } } } } } } } } } } } }');
      expect(recursive.errors).toEqual([
        refusal(`Recursive query - too many of fields '{"projects"=>3, "group"=>3}' detected\nin single branch of the query")\n`),
      ]);
      expect((await first(client, `{ __typename }${' '.repeat(9_987)}`)).errors).toEqual([refusal('Query too large')]);
      expect(await first(client, '{ queryComplexity { limit score } }')).toEqual({ data: { queryComplexity: { limit: 250, score: 3 } } });
    } finally {
      await client.dispose();
    }
  });

  it('answers syntax and validation errors as the operation\'s errors, with Apollo\'s codes, and keeps the connection', async () => {
    const client = clientOf(alice.token);
    try {
      const outcome = await first(client, '{ currentUser {');
      expect(outcome.errors).toEqual([expect.objectContaining({ extensions: { code: 'GRAPHQL_PARSE_FAILED' } })]);
      expect((await first(client, '{ nothing }')).errors).toEqual([
        expect.objectContaining({ message: 'Cannot query field "nothing" on type "Query".', extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } }),
      ]);
      expect(await first(client, '{ currentUser { username } }')).toEqual({ data: { currentUser: { username: alice.username } } });
    } finally {
      await client.dispose();
    }
  });
});

describe('one connection', () => {
  it('runs 100 subscriptions at a time and refuses the next until one ends', async () => {
    const client = clientOf(alice.token);
    try {
      const stops: (() => void)[] = [];
      const live = Array.from({ length: 100 }, () =>
        new Promise<void>((resolve, reject) => {
          stops.push(client.subscribe({ query: 'subscription { heartbeat(intervalSeconds: 1) }' }, { next: () => resolve(), error: reject, complete: () => {} }));
        }),
      );
      const refused = await first(client, 'subscription { activityEventRecorded { id } }');
      expect(refused.errors).toEqual([refusal('Too many subscriptions: at most 100 operations may run at a time on one connection')]);
      await Promise.all(live);
      stops[0]();
      expect(await first(client, 'subscription { heartbeat(intervalSeconds: 1) }')).toMatchObject({ data: { heartbeat: expect.any(String) } });
    } finally {
      await client.dispose();
    }
  });

  it('closes a connection that sends more than 600 messages a minute (2,000 subscriptions at once), and only that one', async () => {
    const socket = new WebSocket(wsUrl(), 'graphql-transport-ws');
    const errors = new Map<string, unknown>();
    const acknowledged = new Promise<void>((resolve) => {
      socket.on('message', (raw) => {
        const message = JSON.parse(String(raw)) as { type: string; id?: string; payload?: unknown };
        if (message.type === 'connection_ack') resolve();
        if (message.type === 'error' && message.id) errors.set(message.id, message.payload);
      });
    });
    const closed = new Promise<{ code: number; reason: string }>((resolve) => socket.on('close', (code, reason) => resolve({ code, reason: String(reason) })));
    await new Promise((resolve) => socket.once('open', resolve));
    socket.send(JSON.stringify({ type: 'connection_init', payload: { 'PRIVATE-TOKEN': alice.token } }));
    await acknowledged;
    for (let id = 1; id <= 2000; id++) {
      socket.send(JSON.stringify({ id: String(id), type: 'subscribe', payload: { query: 'subscription { activityEventRecorded { id } }' } }));
    }
    expect(await closed).toEqual({ code: 1008, reason: 'Too many messages: at most 600 per minute' });
    // connection_init and 599 subscriptions were read: the first 100 ran, the others were refused (the refusals
    // still being sent when the socket closed are lost), and nothing after was handled.
    for (const [id, payload] of errors) {
      expect(Number(id)).toBeGreaterThan(100);
      expect(Number(id)).toBeLessThanOrEqual(600);
      expect(payload).toEqual([refusal('Too many subscriptions: at most 100 operations may run at a time on one connection')]);
    }
    const other = clientOf(alice.token);
    try {
      expect(await first(other, '{ currentUser { username } }')).toEqual({ data: { currentUser: { username: alice.username } } });
    } finally {
      await other.dispose();
    }
    expect((await t.api('GET', '/version', { token: alice.token })).status).toBe(200);
  });
});
