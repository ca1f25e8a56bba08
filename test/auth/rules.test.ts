import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { describe, expect, it } from 'vitest';
import { startTestServer, suiteServer } from '../support/server.js';
import { addMember, createGroup, createProject, createUser, unique } from '../support/factories.js';

// GitLab's rules the shared layers used to skip, each as one request would show it.
const t = suiteServer({ rateLimitPerMinute: 0 });

describe('GitLab rules over REST and GraphQL', () => {
  it('finds users by e-mail only for administrators (no e-mail search oracle)', async () => {
    const secret = unique('secret-corp');
    const user = await createUser(t);
    await t.server.database.prisma.user.update({ where: { id: user.id }, data: { email: `someone@${secret}.example` } });
    const someone = await createUser(t);
    // Anonymous callers may not list users at all, only look one up by username (GitLab's read_users_list rule).
    expect(await t.api('GET', `/users?search=${secret}`, { token: null })).toMatchObject({ status: 403, body: { message: '403 Forbidden - Not authorized to access /api/v4/users' } });
    expect((await t.api('GET', `/users?search=${secret}`, { token: someone.token })).body).toEqual([]);
    expect((await t.graphql(`{ users(search: "${secret}") { count } }`, {}, null)).body.errors?.[0].message).toBe('403 Forbidden - Not authorized to access /api/v4/users');
    expect((await t.api('GET', `/users?search=${secret}`)).body.map((u: { id: number }) => u.id)).toEqual([user.id]);
    expect((await t.api('GET', `/users?username=${user.username}`, { token: null })).body.map((u: { id: number }) => u.id)).toEqual([user.id]);
  });

  it('holds a user to projects_limit for personal projects, as GitLab words it', async () => {
    const none = await createUser(t);
    await t.server.database.prisma.user.update({ where: { id: none.id }, data: { projectsLimit: 0 } });
    const refused = await t.api('POST', '/projects', { token: none.token, body: { name: unique('p') } });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ message: { limit_reached: ['You cannot create projects in your personal namespace. Contact your GitLab administrator.'] } });
    // Group projects do not count against it.
    const group = await createGroup(t, t.rootToken);
    await addMember(t, t.rootToken, 'groups', group.id, none.id, 30);
    expect((await t.api('POST', '/projects', { token: none.token, body: { name: unique('p'), namespace_id: group.id } })).status).toBe(201);

    const one = await createUser(t);
    await t.server.database.prisma.user.update({ where: { id: one.id }, data: { projectsLimit: 1 } });
    expect((await t.api('POST', '/projects', { token: one.token, body: { name: unique('p') } })).status).toBe(201);
    const second = await t.api('POST', '/projects', { token: one.token, body: { name: unique('p') } });
    expect(second.body).toEqual({ message: { limit_reached: ["You've reached your limit of 1 projects created. Contact your GitLab administrator."] } });
  });

  it('refuses a membership that expires in the past', async () => {
    const owner = await createUser(t);
    const other = await createUser(t);
    const project = await createProject(t, owner.token);
    const res = await t.api('POST', `/projects/${project.id}/members`, { token: owner.token, body: { user_id: other.id, access_level: 30, expires_at: '2020-01-01' } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: { expires_at: ['cannot be a date in the past'] } });
  });

  it('lets members of a project or subgroup read the private group above it, over REST and GraphQL alike', async () => {
    const owner = await createUser(t);
    const dev = await createUser(t);
    const subMember = await createUser(t);
    const stranger = await createUser(t);
    const group = await createGroup(t, owner.token, { visibility: 'private' });
    const sub = await createGroup(t, owner.token, { parentId: group.id, visibility: 'private' });
    const project = await createProject(t, owner.token, { namespaceId: group.id });
    await addMember(t, owner.token, 'projects', project.id, dev.id, 30);
    await addMember(t, owner.token, 'groups', sub.id, subMember.id, 10);
    for (const reader of [dev, subMember]) {
      expect((await t.api('GET', `/groups/${group.id}`, { token: reader.token })).status).toBe(200);
    }
    expect((await t.api('GET', `/groups/${group.id}`, { token: stranger.token })).status).toBe(404);
    const viaProject = await t.graphql(`{ project(fullPath: "${project.path_with_namespace}") { group { fullPath } } }`, {}, dev.token);
    expect(viaProject.body.data?.project.group).toEqual({ fullPath: group.full_path });
    const viaSub = await t.graphql(`{ group(fullPath: "${sub.full_path}") { parent { fullPath } } }`, {}, subMember.token);
    expect(viaSub.body.data?.group.parent).toEqual({ fullPath: group.full_path });
    // The group's other contents keep their own rules: the subgroup member does not see the project.
    expect((await t.api('GET', `/groups/${group.id}/projects`, { token: subMember.token })).body).toEqual([]);
  });

  it("shows a user's personal namespace only to that user and administrators", async () => {
    const owner = await createUser(t);
    const other = await createUser(t);
    const query = `{ user(id: "${owner.id}") { namespace { fullPath } } }`;
    expect((await t.graphql(query, {}, owner.token)).body.data?.user.namespace).toEqual({ fullPath: owner.username });
    expect((await t.graphql(query, {}, t.rootToken)).body.data?.user.namespace).toEqual({ fullPath: owner.username });
    expect((await t.graphql(query, {}, other.token)).body.data?.user.namespace).toBeNull();
    expect((await t.graphql(query, {}, null)).body.data?.user.namespace).toBeNull();
    expect((await t.api('GET', `/namespaces/${owner.username}`, { token: other.token })).status).toBe(404);
  });

  it('closes a subscription with 4401 when its token is revoked', async () => {
    const user = await createUser(t);
    const client = createClient({ url: `${t.url.replace('http', 'ws')}/api/graphql`, webSocketImpl: WebSocket, connectionParams: { 'PRIVATE-TOKEN': user.token }, retryAttempts: 0 });
    try {
      const closed = new Promise<number>((resolve) => {
        client.on('closed', (event) => resolve((event as { code: number }).code));
      });
      const connected = new Promise<void>((resolve) => client.on('connected', () => resolve()));
      client.subscribe({ query: 'subscription { activityEventRecorded { id } }' }, { next: () => {}, error: () => {}, complete: () => {} });
      await connected;
      const self = await t.api('GET', '/personal_access_tokens/self', { token: user.token });
      expect((await t.api('DELETE', `/personal_access_tokens/${self.body.id}`)).status).toBe(204);
      expect(await closed).toBe(4401);
    } finally {
      await client.dispose();
    }
  });
});

describe('forwarded headers', () => {
  it('are believed only from configured proxies, so rotating X-Forwarded-For does not escape the rate limit', async () => {
    for (const [trusted, expectLimited] of [[[], true], [['loopback'], false]] as const) {
      const s = await startTestServer({ rateLimitPerMinute: 3, trustedProxies: [...trusted] });
      try {
        const statuses: number[] = [];
        for (let i = 0; i < 6; i++) statuses.push((await s.api('GET', '/projects', { token: null, headers: { 'X-Forwarded-For': `203.0.113.${i}` } })).status);
        expect(statuses.includes(429)).toBe(expectLimited);
      } finally {
        await s.close();
      }
    }
  });
});
