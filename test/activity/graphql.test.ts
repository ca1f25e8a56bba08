import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { MEMBERSHIPS_CHANGED } from '../../src/auth/memberships.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { addMember, createProject, createUser, type TestUser } from '../support/factories.js';

interface Activity {
  action: string;
  projectId: number;
  author: { username: string };
}

const QUERY = 'subscription { activityEventRecorded { action projectId author { username } } }';

/** The events one subscription has received, and a way to await the next one that matches. */
interface Stream {
  received: Activity[];
  next(match: (a: Activity) => boolean): Promise<Activity>;
}

function subscribe(client: Client): Stream {
  const received: Activity[] = [];
  const waiters: { match: (a: Activity) => boolean; resolve: (a: Activity) => void }[] = [];
  client.subscribe<{ activityEventRecorded: Activity }>(
    { query: QUERY },
    {
      next: (msg) => {
        const activity = msg.data?.activityEventRecorded;
        if (!activity) return;
        received.push(activity);
        for (const w of waiters.filter((w) => w.match(activity))) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(activity);
        }
      },
      error: () => {},
      complete: () => {},
    },
  );
  return {
    received,
    next: (match) => {
      const seen = received.find(match);
      return seen ? Promise.resolve(seen) : new Promise((resolve) => waiters.push({ match, resolve }));
    },
  };
}

function connect(t: TestServer, token: string): Client {
  return createClient({ url: `${t.url.replace('http', 'ws')}/api/graphql`, webSocketImpl: WebSocket, connectionParams: { 'PRIVATE-TOKEN': token }, retryAttempts: 0 });
}

/**
 * Creates public projects until every stream has heard of one: graphql-ws does not acknowledge a subscription,
 * so the first may be created before the streams listen. Returns the project every stream heard of.
 */
async function listening(t: TestServer, streams: Stream[]): Promise<number> {
  for (let attempt = 0; ; attempt++) {
    const project = await createProject(t, t.rootToken, { visibility: 'public' });
    const heard = Promise.all(streams.map((s) => s.next((a) => a.projectId === project.id)));
    const outcome = await Promise.race([heard, new Promise((r) => setTimeout(r, 250, 'not yet'))]);
    if (outcome !== 'not yet' || attempt === 40) {
      await heard;
      return project.id;
    }
  }
}

describe('activity subscriptions fan out without a query per subscriber', () => {
  let t: TestServer;
  let counting = false;
  const queries: string[] = [];
  beforeAll(async () => {
    t = await startTestServer({}, { onQuery: (sql) => counting && queries.push(sql) });
  });
  afterAll(() => t?.close());

  /** Statements the server runs while one public project is created and every stream hears of it. */
  async function queriesToDeliver(streams: Stream[]): Promise<string[]> {
    queries.length = 0;
    counting = true;
    try {
      await listening(t, streams);
    } finally {
      counting = false;
    }
    // The job queue polls on its own schedule, and runs the project's system hook event (dispatch reads the hooks)
    // when it gets to it: neither is part of the delivery.
    return queries.filter((sql) => !sql.includes('"jobs"') && !sql.includes('"web_hooks"'));
  }

  it('costs the same queries for 20 subscribers as for 2', async () => {
    const user = await createUser(t);
    const client = connect(t, user.token);
    try {
      const few = [subscribe(client), subscribe(client)];
      await listening(t, few);
      const forFew = await queriesToDeliver(few);
      const many = [...few, ...Array.from({ length: 18 }, () => subscribe(client))];
      await listening(t, many);
      const forMany = await queriesToDeliver(many);
      expect(forMany.length).toBe(forFew.length);
      expect(forMany.filter((sql) => sql.includes('"events"')).length).toBe(forFew.filter((sql) => sql.includes('"events"')).length);
    } finally {
      await client.dispose();
    }
  });
});

describe('activity subscriptions follow memberships and visibility', () => {
  let t: TestServer;
  let subscriber: TestUser;
  let client: Client;
  let stream: Stream;
  beforeAll(async () => {
    t = await startTestServer();
    subscriber = await createUser(t);
    client = connect(t, subscriber.token);
    stream = subscribe(client);
    await listening(t, [stream]);
  });
  afterAll(async () => {
    await client?.dispose();
    await t?.close();
  });

  /** Everything the subscriber heard of the project, once an event after it (a public project's) has arrived. */
  async function heardOf(projectId: number): Promise<Activity[]> {
    await listening(t, [stream]);
    return stream.received.filter((a) => a.projectId === projectId);
  }

  it('delivers the event that follows a membership granted while subscribed', async () => {
    const project = await createProject(t, t.rootToken);
    await addMember(t, t.rootToken, 'projects', project.id, subscriber.id, 10);
    await stream.next((a) => a.projectId === project.id && a.action === 'JOINED');
    expect((await heardOf(project.id)).map((a) => a.action)).toEqual(['JOINED']);
  });

  it('stops delivering once a membership is removed', async () => {
    const project = await createProject(t, t.rootToken);
    await addMember(t, t.rootToken, 'projects', project.id, subscriber.id, 10);
    await stream.next((a) => a.projectId === project.id && a.action === 'JOINED');
    // No route removes a member yet: remove the row and announce it as a removal would, in one transaction.
    await t.server.database.prisma.$transaction(async (tx) => {
      await tx.member.deleteMany({ where: { projectId: project.id, userId: subscriber.id } });
      await t.server.app.bus.publish(MEMBERSHIPS_CHANGED, { userIds: [subscriber.id] }, tx);
    });
    const other = await createUser(t);
    await addMember(t, t.rootToken, 'projects', project.id, other.id, 10);
    expect(await heardOf(project.id)).toEqual([{ action: 'JOINED', projectId: project.id, author: { username: subscriber.username } }]);
  });

  it('stops delivering events of a project made private, by the visibility the event carries', async () => {
    const project = await createProject(t, t.rootToken, { visibility: 'public' });
    const first = await createUser(t);
    await addMember(t, t.rootToken, 'projects', project.id, first.id, 10);
    await stream.next((a) => a.projectId === project.id && a.action === 'JOINED');
    await t.server.database.prisma.project.update({ where: { id: project.id }, data: { visibility: 'private' } });
    const second = await createUser(t);
    await addMember(t, t.rootToken, 'projects', project.id, second.id, 10);
    expect((await heardOf(project.id)).map((a) => a.author.username)).toEqual([expect.any(String), first.username]);
  });
  it('delivers a confidential issue\'s events and comments only to those who may read the issue', async () => {
    const project = await createProject(t, t.rootToken, { visibility: 'public' });
    const reporter = await createUser(t);
    await addMember(t, t.rootToken, 'projects', project.id, reporter.id, 20);
    const reporterClient = connect(t, reporter.token);
    try {
      const reporterStream = subscribe(reporterClient);
      await listening(t, [stream, reporterStream]);
      const issues = `/projects/${project.id}/issues`;
      const secret = await t.api('POST', issues, { token: t.rootToken, body: { title: 'secret', confidential: true } });
      await t.api('POST', `${issues}/${secret.body.iid}/notes`, { token: t.rootToken, body: { body: 'hush' } });
      const open = await t.api('POST', issues, { token: t.rootToken, body: { title: 'open' } });
      await t.api('POST', `${issues}/${open.body.iid}/notes`, { token: t.rootToken, body: { body: 'hello' } });
      await reporterStream.next((a) => a.projectId === project.id && a.action === 'COMMENTED' && reporterStream.received.filter((r) => r.projectId === project.id).length === 4);
      await stream.next((a) => a.projectId === project.id && a.action === 'COMMENTED');
      const actions = (received: Activity[]) => received.filter((a) => a.projectId === project.id).map((a) => a.action);
      // The reporter (subscribed after joining): both issues' opening and comment; the outsider: the open issue's only.
      expect(actions(reporterStream.received)).toEqual(['CREATED', 'COMMENTED', 'CREATED', 'COMMENTED']);
      // The outsider: the project's creation, the reporter joining, and the open issue's opening and comment.
      expect((await heardOf(project.id)).map((a) => a.action)).toEqual(['CREATED', 'JOINED', 'CREATED', 'COMMENTED']);
    } finally {
      await reporterClient.dispose();
    }
  });
});
