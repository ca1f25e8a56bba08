import { beforeAll, describe, expect, it } from 'vitest';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { suiteServer } from '../support/server.js';
import { createGroup, createProject, createUser, type TestUser } from '../support/factories.js';

const t = suiteServer();
let alice: TestUser;
beforeAll(async () => {
  alice = await createUser(t);
});

describe('GraphQL over HTTP', () => {
  it('answers currentUser with GitLab global IDs', async () => {
    const res = await t.graphql('{ currentUser { id username webUrl namespace { fullPath kind } } }', {}, alice.token);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      currentUser: { id: `gid://gitlab/User/${alice.id}`, username: alice.username, webUrl: `http://gitlab.example.com/${alice.username}`, namespace: { fullPath: alice.username, kind: 'user' } },
    });
  });

  it('reads project(fullPath:) and group(fullPath:) with connections', async () => {
    const group = await createGroup(t, alice.token);
    const project = await createProject(t, alice.token, { namespaceId: group.id });
    const res = await t.graphql(
      `query($g: ID!, $p: ID!) {
        group(fullPath: $g) { fullPath projects { count nodes { fullPath } pageInfo { hasNextPage } } groupMembers { nodes { accessLevel { integerValue stringValue } user { username } } } }
        project(fullPath: $p) { name visibility namespace { fullPath } }
      }`,
      { g: group.full_path, p: project.path_with_namespace },
      alice.token,
    );
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data).toEqual({
      group: {
        fullPath: group.full_path,
        projects: { count: 1, nodes: [{ fullPath: project.path_with_namespace }], pageInfo: { hasNextPage: false } },
        groupMembers: { nodes: [{ accessLevel: { integerValue: 50, stringValue: 'OWNER' }, user: { username: alice.username } }] },
      },
      project: { name: project.name, visibility: 'private', namespace: { fullPath: group.full_path } },
    });
  });

  it('returns null for a project the viewer cannot see, like GitLab', async () => {
    const project = await createProject(t, alice.token);
    const res = await t.graphql('query($p: ID!) { project(fullPath: $p) { id } }', { p: project.path_with_namespace }, null);
    expect(res.body).toEqual({ data: { project: null } });
  });

  it('reports coded errors with extensions.code and no stack trace', async () => {
    const res = await t.graphql('mutation { userCreate(input: { email: "a@b.c", username: "nope", name: "N" }) { user { id } errors } }', {}, alice.token);
    expect(res.status).toBe(200);
    expect(res.body.errors?.[0].extensions).toEqual({ code: 'FORBIDDEN' });
  });

  it('refuses mutations to a read_api token', async () => {
    const reader = await createUser(t, { scopes: ['read_api'] });
    const res = await t.graphql('mutation { projectCreate(input: { name: "x" }) { project { id } errors } }', {}, reader.token);
    expect(res.body.errors?.[0].extensions?.code).toBe('INSUFFICIENT_SCOPE');
  });

  it('answers 401 to a bad token', async () => {
    const res = await t.graphql('{ currentUser { id } }', {}, 'glpat-wrong');
    expect(res.status).toBe(401);
  });

  it('serves no landing page', async () => {
    const res = await fetch(`${t.url}/api/graphql`, { headers: { accept: 'text/html' } });
    expect(res.status).toBe(400);
  });
});

describe('GraphQL subscriptions over graphql-ws', () => {
  it('authenticates with connectionParams and streams heartbeats', async () => {
    const client = createClient({ url: `${t.url.replace('http', 'ws')}/api/graphql`, webSocketImpl: WebSocket, connectionParams: { 'PRIVATE-TOKEN': alice.token } });
    try {
      const beats: string[] = [];
      await new Promise<void>((resolve, reject) => {
        const stop = client.subscribe<{ heartbeat: string }>(
          { query: 'subscription { heartbeat(intervalSeconds: 1) }' },
          {
            next: (msg) => {
              if (msg.data) beats.push(msg.data.heartbeat);
              if (beats.length === 2) {
                stop();
                resolve();
              }
            },
            error: reject,
            complete: () => {},
          },
        );
      });
      expect(beats).toHaveLength(2);
      expect(Date.parse(beats[1])).toBeGreaterThan(Date.parse(beats[0]));
    } finally {
      await client.dispose();
    }
  });

  it('refuses a connection with a bad token', async () => {
    const client = createClient({ url: `${t.url.replace('http', 'ws')}/api/graphql`, webSocketImpl: WebSocket, connectionParams: { 'PRIVATE-TOKEN': 'glpat-bad' }, retryAttempts: 0 });
    const outcome = await new Promise<string>((resolve) => {
      client.subscribe({ query: 'subscription { heartbeat(intervalSeconds: 1) }' }, { next: () => resolve('data'), error: () => resolve('error'), complete: () => resolve('complete') });
    });
    expect(outcome).toBe('error');
    await client.dispose();
  });
});

describe('GraphQL subscription errors', () => {
  it('reports a coded error for a project the subscriber cannot see', async () => {
    const client = createClient({ url: `${t.url.replace('http', 'ws')}/api/graphql`, webSocketImpl: WebSocket, connectionParams: { 'PRIVATE-TOKEN': alice.token } });
    const errors = await new Promise<unknown>((resolve) => {
      client.subscribe(
        { query: 'subscription { activityEventRecorded(projectPath: "nobody/nothing") { id } }' },
        { next: (msg) => resolve(msg.errors), error: resolve, complete: () => resolve('complete') },
      );
    });
    await client.dispose();
    expect(errors).toEqual([expect.objectContaining({ message: '404 Project Not Found', extensions: { code: 'NOT_FOUND', resource: 'Project' } })]);
  });
});
