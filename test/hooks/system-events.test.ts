import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { suiteServer } from '../support/server.js';
import { createGroup, createProject, createUser, type TestUser } from '../support/factories.js';
import { startReceiver, type Receiver, type Received } from './receiver.js';

const t = suiteServer();
let receiver: Receiver;
let hookId: number;

const SSH_KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIE5r1p7ypkbMNE7fNwJ0dkCgqrExEbS4yNDlFt4e1Ztr hooks@example.com';

beforeAll(async () => {
  receiver = await startReceiver();
  hookId = (await t.api('POST', '/hooks', { body: { url: `${receiver.url}/system`, token: 'sys', push_events: true, tag_push_events: true } })).body.id;
});
afterAll(() => receiver?.close());

/** The next delivery whose event is `name` (others of the instance's activity are skipped). */
async function nextEvent(name: string): Promise<Received> {
  for (;;) {
    const got = await receiver.next();
    if ((got.json?.event_name ?? got.json?.object_kind) === name) return got;
  }
}

describe('system hook events', () => {
  let user: TestUser;

  it('user_create, with GitLab payload and headers', async () => {
    user = await createUser(t);
    const got = await nextEvent('user_create');
    expect(got.headers['x-gitlab-event']).toBe('System Hook');
    expect(got.headers['x-gitlab-token']).toBe('sys');
    expect(got.json).toEqual({
      event_name: 'user_create',
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
      updated_at: expect.any(String),
      name: expect.any(String),
      email: expect.stringContaining('@'),
      user_id: user.id,
      username: user.username,
    });
  });

  it('key_create and key_destroy', async () => {
    const key = await t.api('POST', `/users/${user.id}/keys`, { body: { title: 'laptop', key: SSH_KEY } });
    expect(key.status).toBe(201);
    const created = await nextEvent('key_create');
    expect(created.json).toMatchObject({ event_name: 'key_create', id: key.body.id, username: user.username, key: SSH_KEY.split(' ').slice(0, 2).join(' ') + ' hooks@example.com' });
    expect((await t.api('DELETE', `/users/${user.id}/keys/${key.body.id}`)).status).toBe(204);
    expect((await nextEvent('key_destroy')).json).toMatchObject({ id: key.body.id, username: user.username });
  });

  it('group_create, project_create and project_destroy', async () => {
    const group = await createGroup(t, user.token);
    expect((await nextEvent('group_create')).json).toMatchObject({ group_id: group.id, name: group.name, path: group.path, full_path: group.full_path });
    const project = await createProject(t, user.token);
    const created = await nextEvent('project_create');
    expect(created.json).toMatchObject({
      project_id: project.id,
      name: project.name,
      path: project.path,
      path_with_namespace: project.path_with_namespace,
      owner_name: expect.any(String),
      owner_email: expect.stringContaining('@'),
      owners: [expect.objectContaining({ email: expect.stringContaining('@') })],
      project_visibility: 'private',
    });
    const inGroup = await createProject(t, user.token, { namespaceId: group.id });
    expect((await nextEvent('project_create')).json).toMatchObject({ project_id: inGroup.id, owner_name: group.name, owner_email: '' });
    expect((await t.api('DELETE', `/projects/${project.id}`, { token: user.token })).status).toBe(202);
    expect((await nextEvent('project_destroy')).json).toMatchObject({ project_id: project.id, path_with_namespace: project.path_with_namespace });
  });

  it('group_destroy, for the group and each of its subgroups, once they are gone', async () => {
    const group = await createGroup(t, user.token);
    const sub = await createGroup(t, user.token, { parentId: group.id });
    expect((await t.api('DELETE', `/groups/${group.id}`, { token: user.token })).status).toBe(202);
    const first = await nextEvent('group_destroy');
    const second = await nextEvent('group_destroy');
    // The deepest goes first, as the removal runs.
    expect(first.json).toEqual({
      event_name: 'group_destroy',
      created_at: expect.any(String),
      updated_at: expect.any(String),
      name: sub.name,
      path: sub.path,
      full_path: sub.full_path,
      group_id: sub.id,
      owner_name: null,
      owner_email: null,
    });
    expect(second.json).toMatchObject({ event_name: 'group_destroy', group_id: group.id, full_path: group.full_path });
    expect((await t.api('GET', `/groups/${group.id}`, { token: user.token })).status).toBe(404);
  });

  it('push and tag_push reach system hooks that asked for them', async () => {
    const project = await createProject(t, user.token);
    const res = await t.api('POST', `/projects/${project.id}/repository/commits`, {
      token: user.token,
      body: { branch: 'main', commit_message: 'first', actions: [{ action: 'create', file_path: 'f', content: 'x' }] },
    });
    const push = await nextEvent('push');
    expect(push.headers['x-gitlab-event']).toBe('System Hook');
    expect(push.json).toMatchObject({ after: res.body.id, ref: 'refs/heads/main', project_id: project.id, user_id: user.id, ref_protected: true });
    await t.api('POST', `/projects/${project.id}/repository/tags`, { token: user.token, body: { tag_name: 'v1', ref: 'main' } });
    expect((await nextEvent('tag_push')).json).toMatchObject({ ref: 'refs/tags/v1', project_id: project.id });
  });

  it('user_destroy', async () => {
    expect((await t.api('DELETE', `/users/${user.id}?hard_delete=true`)).status).toBe(204);
    expect((await nextEvent('user_destroy')).json).toMatchObject({ user_id: user.id, username: user.username });
  });

  it('the delivery log of a system hook is readable through GraphQL by administrators only', async () => {
    const res = await t.graphql(`query($id: SystemHookID!) { systemHook(id: $id) { events(first: 2) { count nodes { trigger responseStatus requestHeaders } } } }`, { id: `gid://gitlab/SystemHook/${hookId}` });
    expect(res.body.data.systemHook.events.count).toBeGreaterThan(5);
    expect(res.body.data.systemHook.events.nodes[0]).toMatchObject({ responseStatus: '200', requestHeaders: expect.objectContaining({ 'X-Gitlab-Token': '[REDACTED]' }) });
  });
});
