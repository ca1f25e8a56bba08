import { beforeAll, describe, expect, it } from 'vitest';
import { suiteServer } from '../support/server.js';
import { addMember, createGroup, createProject, createUser, type TestUser } from '../support/factories.js';

const t = suiteServer();
let owner: TestUser;

beforeAll(async () => {
  owner = await createUser(t);
});

const MEMBER_KEYS = ['id', 'username', 'name', 'state', 'locked', 'avatar_url', 'web_url', 'access_level', 'created_at', 'created_by', 'expires_at', 'membership_state'];
const ids = (body: { id: number }[]) => body.map((m) => m.id);

describe('GET one member', () => {
  it('shows a direct member with GitLab’s keys, and 404 Not found for a user who only inherits', async () => {
    const group = await createGroup(t, owner.token);
    const project = await createProject(t, owner.token, { namespaceId: group.id });
    const dev = await createUser(t);
    const inheritor = await createUser(t);
    await addMember(t, owner.token, 'projects', project.id, dev.id, 30);
    await addMember(t, owner.token, 'groups', group.id, inheritor.id, 20);

    const shown = await t.api('GET', `/projects/${project.id}/members/${dev.id}`, { token: owner.token });
    expect(shown.status).toBe(200);
    expect(Object.keys(shown.body)).toEqual(MEMBER_KEYS);
    expect(shown.body).toMatchObject({ id: dev.id, username: dev.username, access_level: 30, expires_at: null, membership_state: 'active', created_by: { id: owner.id } });

    const direct = await t.api('GET', `/projects/${project.id}/members/${inheritor.id}`, { token: owner.token });
    expect(direct.status).toBe(404);
    expect(direct.body).toEqual({ message: '404 Not found' });
    const all = await t.api('GET', `/projects/${project.id}/members/all/${inheritor.id}`, { token: owner.token });
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ id: inheritor.id, access_level: 20 });
    const groupMember = await t.api('GET', `/groups/${group.id}/members/${inheritor.id}`, { token: dev.token });
    expect(groupMember.body).toMatchObject({ id: inheritor.id, access_level: 20 });
    const stranger = await createUser(t);
    expect((await t.api('GET', `/groups/${group.id}/members/all/${stranger.id}`, { token: owner.token })).body).toEqual({ message: '404 Not found' });
  });

  it('gives the effective level under /all: the highest of the project and its groups', async () => {
    const group = await createGroup(t, owner.token);
    const sub = await createGroup(t, owner.token, { parentId: group.id });
    const project = await createProject(t, owner.token, { namespaceId: sub.id });
    const user = await createUser(t);
    await addMember(t, owner.token, 'groups', group.id, user.id, 40);
    await addMember(t, owner.token, 'projects', project.id, user.id, 40);
    await addMember(t, owner.token, 'groups', sub.id, user.id, 40);
    const all = await t.api('GET', `/projects/${project.id}/members/all/${user.id}`, { token: owner.token });
    expect(all.body.access_level).toBe(40);
    const ownerAll = await t.api('GET', `/projects/${project.id}/members/all/${owner.id}`, { token: user.token });
    expect(ownerAll.body).toMatchObject({ id: owner.id, access_level: 50 });
  });

  it('hides the members of a group the caller cannot read, and refuses a malformed user id', async () => {
    const group = await createGroup(t, owner.token);
    const outsider = await createUser(t);
    const hidden = await t.api('GET', `/groups/${group.id}/members/${owner.id}`, { token: outsider.token });
    expect(hidden.status).toBe(404);
    expect(hidden.body).toEqual({ message: '404 Group Not Found' });
    const bad = await t.api('GET', `/groups/${group.id}/members/abc`, { token: owner.token });
    expect(bad.status).toBe(400);
    // Any integer is an ID to Grape; one no user can have names nothing (Rails finds no row for it).
    const huge = await t.api('GET', `/groups/${group.id}/members/99999999999999999999`, { token: owner.token });
    expect(huge.status).toBe(404);
    const nul = await t.api('GET', `/groups/${group.id}/members/1%00`, { token: owner.token });
    expect(nul.status).toBe(400);
    const publicGroup = await createGroup(t, owner.token, { visibility: 'public' });
    expect((await t.api('GET', `/groups/${publicGroup.id}/members/${owner.id}`, { token: null })).status).toBe(401);
    expect((await t.api('GET', `/groups/${publicGroup.id}/members/${owner.id}`, { token: outsider.token })).status).toBe(200);
  });
});

describe('anonymous callers', () => {
  it('get 401 on every member read of a public group and project, as GitLab\'s `before { authenticate! }` answers', async () => {
    const group = await createGroup(t, owner.token, { visibility: 'public' });
    const project = await createProject(t, owner.token, { namespaceId: group.id, visibility: 'public' });
    // Anonymous callers see both, and their members through GraphQL, as GitLab's GraphQL shows them.
    expect((await t.api('GET', `/projects/${project.id}`, { token: null })).status).toBe(200);
    const graphql = await t.graphql(`{ project(fullPath: "${project.path_with_namespace}") { projectMembers { nodes { user { id } } } } }`, {}, null);
    expect(graphql.body.data.project.projectMembers.nodes.length).toBeGreaterThan(0);
    for (const path of [
      `/groups/${group.id}/members`,
      `/groups/${group.id}/members/all`,
      `/groups/${group.id}/members/${owner.id}`,
      `/groups/${group.id}/members/all/${owner.id}`,
      `/projects/${project.id}/members`,
      `/projects/${project.id}/members/all`,
      `/projects/${project.id}/members/${owner.id}`,
      `/projects/${project.id}/members/all/${owner.id}`,
      '/projects/999999/members',
    ]) {
      const res = await t.api('GET', path, { token: null });
      expect([path, res.status, res.body]).toEqual([path, 401, { message: '401 Unauthorized' }]);
    }
  });
});

describe('member list filters', () => {
  it('filters by user_ids (array or comma-separated) and skip_users, and accepts show_seat_info', async () => {
    const group = await createGroup(t, owner.token);
    const [a, b] = [await createUser(t), await createUser(t)];
    await addMember(t, owner.token, 'groups', group.id, a.id, 30);
    await addMember(t, owner.token, 'groups', group.id, b.id, 10);
    const only = await t.api('GET', `/groups/${group.id}/members?user_ids[]=${a.id}&show_seat_info=true`, { token: owner.token });
    expect(only.status).toBe(200);
    expect(ids(only.body)).toEqual([a.id]);
    expect(only.headers.get('x-total')).toBe('1');
    const both = await t.api('GET', `/groups/${group.id}/members?user_ids=${a.id},${b.id}`, { token: owner.token });
    expect(ids(both.body)).toEqual([a.id, b.id]);
    const skipped = await t.api('GET', `/groups/${group.id}/members/all?skip_users[]=${owner.id}&skip_users[]=${a.id}`, { token: owner.token });
    expect(ids(skipped.body)).toEqual([b.id]);
    const bad = await t.api('GET', `/groups/${group.id}/members?user_ids[]=x`, { token: owner.token });
    expect(bad.status).toBe(400);
  });
});

describe('PUT a group member', () => {
  it('lets an Owner change level and expiry, ignoring member_role_id as GitLab CE does', async () => {
    const group = await createGroup(t, owner.token);
    const dev = await createUser(t);
    await addMember(t, owner.token, 'groups', group.id, dev.id, 30);
    const res = await t.api('PUT', `/groups/${group.id}/members/${dev.id}`, { token: owner.token, body: { access_level: 40, expires_at: '2099-12-31', member_role_id: 'x' } });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(MEMBER_KEYS);
    expect(res.body).toMatchObject({ id: dev.id, access_level: 40, expires_at: '2099-12-31' });
    const kept = await t.api('PUT', `/groups/${group.id}/members/${dev.id}`, { token: owner.token, body: { access_level: 20 } });
    expect(kept.body).toMatchObject({ access_level: 20, expires_at: '2099-12-31' });
  });

  it('takes a lowered level into account on the member’s very next request', async () => {
    const group = await createGroup(t, owner.token);
    const [second, newcomer] = [await createUser(t), await createUser(t)];
    await addMember(t, owner.token, 'groups', group.id, second.id, 50);
    await addMember(t, second.token, 'groups', group.id, newcomer.id, 10);
    expect((await t.api('PUT', `/groups/${group.id}/members/${second.id}`, { token: owner.token, body: { access_level: 30 } })).status).toBe(200);
    const refused = await t.api('PUT', `/groups/${group.id}/members/${newcomer.id}`, { token: second.token, body: { access_level: 20 } });
    expect(refused.status).toBe(403);
  });

  it('refuses to change the last Owner, and lets one of two Owners step down', async () => {
    const group = await createGroup(t, owner.token);
    const last = await t.api('PUT', `/groups/${group.id}/members/${owner.id}`, { token: owner.token, body: { access_level: 40 } });
    expect(last.status).toBe(403);
    expect(last.body).toEqual({ message: '403 Forbidden' });
    const asRoot = await t.api('PUT', `/groups/${group.id}/members/${owner.id}`, { body: { access_level: 40 } });
    expect(asRoot.status).toBe(403);
    const second = await createUser(t);
    await addMember(t, owner.token, 'groups', group.id, second.id, 50);
    const down = await t.api('PUT', `/groups/${group.id}/members/${owner.id}`, { token: owner.token, body: { access_level: 40 } });
    expect(down.status).toBe(200);
    expect(down.body.access_level).toBe(40);
    // Now `second` is the last Owner, and the former Owner no longer administers members.
    expect((await t.api('PUT', `/groups/${group.id}/members/${second.id}`, { token: second.token, body: { access_level: 30 } })).status).toBe(403);
    expect((await t.api('PUT', `/groups/${group.id}/members/${second.id}`, { token: owner.token, body: { access_level: 30 } })).status).toBe(403);
  });

  it('counts Owners of the parent group: a subgroup’s only direct Owner may be changed', async () => {
    const group = await createGroup(t, owner.token);
    const sub = await createGroup(t, owner.token, { parentId: group.id });
    const subOwner = await createUser(t);
    await addMember(t, owner.token, 'groups', sub.id, subOwner.id, 50);
    const res = await t.api('DELETE', `/groups/${sub.id}/members/${owner.id}`, { token: owner.token });
    expect(res.status).toBe(204);
    const changed = await t.api('PUT', `/groups/${sub.id}/members/${subOwner.id}`, { token: owner.token, body: { access_level: 30 } });
    expect(changed.status).toBe(200);
  });

  it('refuses a level below one inherited from a parent group, in GitLab’s words', async () => {
    const group = await createGroup(t, owner.token);
    const sub = await createGroup(t, owner.token, { parentId: group.id });
    const dev = await createUser(t);
    await addMember(t, owner.token, 'groups', group.id, dev.id, 30);
    const low = await t.api('POST', `/groups/${sub.id}/members`, { token: owner.token, body: { user_id: dev.id, access_level: 20 } });
    expect(low.status).toBe(400);
    expect(low.body).toEqual({ message: { access_level: [`should be greater than or equal to Developer inherited membership from group ${group.name}`] } });
    await addMember(t, owner.token, 'groups', sub.id, dev.id, 40);
    const lowered = await t.api('PUT', `/groups/${sub.id}/members/${dev.id}`, { token: owner.token, body: { access_level: 10 } });
    expect(lowered.status).toBe(400);
    expect(lowered.body).toEqual({ message: { access_level: [`should be greater than or equal to Developer inherited membership from group ${group.name}`] } });
    expect((await t.api('PUT', `/groups/${sub.id}/members/${dev.id}`, { token: owner.token, body: { access_level: 30 } })).status).toBe(200);
  });

  it('answers GitLab’s 400s, 403s and 404s', async () => {
    const group = await createGroup(t, owner.token);
    const maint = await createUser(t);
    const dev = await createUser(t);
    await addMember(t, owner.token, 'groups', group.id, maint.id, 40);
    await addMember(t, owner.token, 'groups', group.id, dev.id, 30);
    const put = (userId: number | string, body: unknown, token: string | null = owner.token) => t.api('PUT', `/groups/${group.id}/members/${userId}`, { token, body });
    expect((await put(dev.id, { access_level: 35 })).body).toEqual({ error: 'access_level does not have a valid value' });
    expect((await put(dev.id, { access_level: 'x' })).body).toEqual({ error: 'access_level is invalid' });
    expect((await put(dev.id, {})).body).toEqual({ error: 'access_level is missing' });
    expect((await put(dev.id, { access_level: 30, expires_at: '2001-01-01' })).body).toEqual({ message: { expires_at: ['cannot be a date in the past'] } });
    expect((await put(dev.id, { access_level: 30, expires_at: 'soon' })).status).toBe(400);
    expect((await put(dev.id, { access_level: 30 }, maint.token)).status).toBe(403);
    const stranger = await createUser(t);
    expect(await put(stranger.id, { access_level: 30 })).toMatchObject({ status: 404, body: { message: '404 Not found' } });
    expect(await put(dev.id, { access_level: 30 }, stranger.token)).toMatchObject({ status: 404, body: { message: '404 Group Not Found' } });
    expect((await put(dev.id, { access_level: 30 }, null)).status).toBe(401);
    expect((await put(dev.id, { access_level: 99999999999 })).body).toEqual({ error: 'access_level does not have a valid value' });
    expect((await put('99999999999999999999', { access_level: 30 })).status).toBe(404);
    const nul = await t.api('POST', `/groups/${group.id}/members`, { token: owner.token, body: { username: 'a\u0000b', access_level: 30 } });
    expect(nul.status).toBe(400);
  });
});

describe('PUT a project member', () => {
  it('keeps Owners out of Maintainers’ reach and applies the inherited minimum', async () => {
    const group = await createGroup(t, owner.token);
    const project = await createProject(t, owner.token, { namespaceId: group.id });
    const maint = await createUser(t);
    const dev = await createUser(t);
    const projectOwner = await createUser(t);
    await addMember(t, owner.token, 'projects', project.id, maint.id, 40);
    await addMember(t, owner.token, 'projects', project.id, dev.id, 30);
    await addMember(t, owner.token, 'projects', project.id, projectOwner.id, 50);
    const put = (userId: number, body: unknown, token: string) => t.api('PUT', `/projects/${project.id}/members/${userId}`, { token, body });
    expect((await put(dev.id, { access_level: 50 }, maint.token)).status).toBe(403);
    expect((await put(projectOwner.id, { access_level: 30 }, maint.token)).status).toBe(403);
    expect((await put(dev.id, { access_level: 40 }, dev.token)).status).toBe(403);
    const ok = await put(dev.id, { access_level: 20 }, maint.token);
    expect(ok.status).toBe(200);
    expect(ok.body.access_level).toBe(20);
    expect((await put(dev.id, { access_level: 50 }, owner.token)).body.access_level).toBe(50);

    const inheritor = await createUser(t);
    await addMember(t, owner.token, 'groups', group.id, inheritor.id, 30);
    const low = await t.api('POST', `/projects/${project.id}/members`, { token: owner.token, body: { user_id: inheritor.id, access_level: 10 } });
    expect(low.body).toEqual({ message: { access_level: [`should be greater than or equal to Developer inherited membership from group ${group.name}`] } });
  });

  it('refuses a new member in GitLab’s order when several checks fail at once: exists, then may grant, then valid', async () => {
    const group = await createGroup(t, owner.token);
    const project = await createProject(t, owner.token, { namespaceId: group.id });
    const maint = await createUser(t);
    const inheritor = await createUser(t);
    await addMember(t, owner.token, 'projects', project.id, maint.id, 40);
    await addMember(t, owner.token, 'groups', group.id, inheritor.id, 40);
    const add = (userId: number, accessLevel: number, token: string) =>
      t.api('POST', `/projects/${project.id}/members`, { token, body: { user_id: userId, access_level: accessLevel } });
    // An existing member: 409 even when the level is one the caller may not grant, or below the inherited one.
    await addMember(t, owner.token, 'projects', project.id, inheritor.id, 50);
    expect(await add(inheritor.id, 50, maint.token)).toMatchObject({ status: 409, body: { message: 'Member already exists' } });
    expect(await add(inheritor.id, 10, owner.token)).toMatchObject({ status: 409, body: { message: 'Member already exists' } });
    // Not a member yet: a Maintainer granting Owner is refused before the level is judged against the inherited one.
    const other = await createUser(t);
    await addMember(t, owner.token, 'groups', group.id, other.id, 50);
    expect((await add(other.id, 50, maint.token)).status).toBe(403);
    expect((await add(other.id, 10, maint.token)).status).toBe(400);
    expect((await t.api('GET', `/projects/${project.id}/members/${other.id}`, { token: owner.token })).status).toBe(404);
  });

  it('never changes the holder of a personal project’s namespace', async () => {
    const project = await createProject(t, owner.token);
    const shown = await t.api('GET', `/projects/${project.id}/members/${owner.id}`, { token: owner.token });
    expect(shown.body.access_level).toBe(50);
    expect((await t.api('PUT', `/projects/${project.id}/members/${owner.id}`, { token: owner.token, body: { access_level: 40 } })).status).toBe(403);
    expect((await t.api('DELETE', `/projects/${project.id}/members/${owner.id}`, { token: owner.token })).status).toBe(403);
  });
});

describe('DELETE members', () => {
  it('removes a member (204), who loses access on the very next request', async () => {
    const group = await createGroup(t, owner.token);
    const project = await createProject(t, owner.token, { namespaceId: group.id });
    const dev = await createUser(t);
    await addMember(t, owner.token, 'projects', project.id, dev.id, 30);
    expect((await t.api('GET', `/projects/${project.id}`, { token: dev.token })).status).toBe(200);
    const res = await t.api('DELETE', `/projects/${project.id}/members/${dev.id}?unassign_issuables=true`, { token: owner.token });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect((await t.api('GET', `/projects/${project.id}`, { token: dev.token })).status).toBe(404);
    expect((await t.api('GET', `/projects/${project.id}/members/${dev.id}`, { token: owner.token })).status).toBe(404);
    expect(await t.api('DELETE', `/projects/${project.id}/members/${dev.id}`, { token: owner.token })).toMatchObject({ status: 404, body: { message: '404 Not found' } });
  });

  it('removes a member once when the same removal arrives twice at the same time', async () => {
    const group = await createGroup(t, owner.token);
    const project = await createProject(t, owner.token, { namespaceId: group.id });
    const dev = await createUser(t);
    await addMember(t, owner.token, 'projects', project.id, dev.id, 30);
    const both = await Promise.all([1, 2].map(() => t.api('DELETE', `/projects/${project.id}/members/${dev.id}`, { token: owner.token })));
    expect(both.map((r) => r.status).sort()).toEqual([204, 404]);
    const events = await t.api('GET', `/projects/${project.id}/events?action=left`, { token: owner.token });
    expect(events.body.map((e: { author_id: number }) => e.author_id)).toEqual([dev.id]);
  });

  it('lets a member leave, but not remove others, and refuses the last Owner', async () => {
    const group = await createGroup(t, owner.token);
    const dev = await createUser(t);
    const other = await createUser(t);
    await addMember(t, owner.token, 'groups', group.id, dev.id, 30);
    await addMember(t, owner.token, 'groups', group.id, other.id, 30);
    expect((await t.api('DELETE', `/groups/${group.id}/members/${other.id}`, { token: dev.token })).status).toBe(403);
    expect((await t.api('DELETE', `/groups/${group.id}/members/${dev.id}`, { token: dev.token })).status).toBe(204);
    expect((await t.api('GET', `/groups/${group.id}`, { token: dev.token })).status).toBe(404);
    const last = await t.api('DELETE', `/groups/${group.id}/members/${owner.id}`, { token: owner.token });
    expect(last).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    expect((await t.api('DELETE', `/groups/${group.id}/members/${owner.id}`)).status).toBe(403);
    expect((await t.api('GET', `/groups/${group.id}/members/${owner.id}`, { token: owner.token })).body.access_level).toBe(50);
  });

  it('removes the user’s memberships below the group unless skip_subresources is set', async () => {
    const group = await createGroup(t, owner.token);
    const sub = await createGroup(t, owner.token, { parentId: group.id });
    const project = await createProject(t, owner.token, { namespaceId: sub.id });
    const [a, b] = [await createUser(t), await createUser(t)];
    for (const u of [a, b]) {
      await addMember(t, owner.token, 'groups', group.id, u.id, 30);
      await addMember(t, owner.token, 'groups', sub.id, u.id, 30);
      await addMember(t, owner.token, 'projects', project.id, u.id, 30);
    }
    expect((await t.api('DELETE', `/groups/${group.id}/members/${a.id}`, { token: owner.token })).status).toBe(204);
    expect((await t.api('DELETE', `/groups/${group.id}/members/${b.id}?skip_subresources=true`, { token: owner.token })).status).toBe(204);
    const subMembers = await t.api('GET', `/groups/${sub.id}/members`, { token: owner.token });
    expect(ids(subMembers.body)).toEqual([owner.id, b.id]);
    const projectMembers = await t.api('GET', `/projects/${project.id}/members`, { token: owner.token });
    expect(ids(projectMembers.body)).toEqual([b.id]);
    expect((await t.api('GET', `/projects/${project.id}`, { token: a.token })).status).toBe(404);
  });

  it('keeps Maintainers from removing a project Owner', async () => {
    const group = await createGroup(t, owner.token);
    const project = await createProject(t, owner.token, { namespaceId: group.id });
    const maint = await createUser(t);
    const projectOwner = await createUser(t);
    await addMember(t, owner.token, 'projects', project.id, maint.id, 40);
    await addMember(t, owner.token, 'projects', project.id, projectOwner.id, 50);
    expect((await t.api('DELETE', `/projects/${project.id}/members/${projectOwner.id}`, { token: maint.token })).status).toBe(403);
    expect((await t.api('DELETE', `/projects/${project.id}/members/${projectOwner.id}`, { token: projectOwner.token })).status).toBe(204);
  });
});

describe('POST members', () => {
  it('answers 404 User Not Found, 409 for a duplicate, and one 201 for concurrent duplicates', async () => {
    const group = await createGroup(t, owner.token);
    const missing = await t.api('POST', `/groups/${group.id}/members`, { token: owner.token, body: { user_id: 999999, access_level: 30 } });
    expect(missing).toMatchObject({ status: 404, body: { message: '404 User Not Found' } });
    const dev = await createUser(t);
    const attempts = await Promise.all([1, 2, 3].map(() => t.api('POST', `/groups/${group.id}/members`, { token: owner.token, body: { user_id: dev.id, access_level: 30 } })));
    expect(attempts.map((r) => r.status).sort()).toEqual([201, 409, 409]);
    for (const r of attempts.filter((x) => x.status === 409)) expect(r.body).toEqual({ message: 'Member already exists' });
  });

  it('adds several users named by comma-separated ids or usernames, answering GitLab’s status', async () => {
    const group = await createGroup(t, owner.token);
    const sub = await createGroup(t, owner.token, { parentId: group.id });
    const [a, b, c] = [await createUser(t), await createUser(t), await createUser(t)];
    const ok = await t.api('POST', `/groups/${group.id}/members`, { token: owner.token, body: { user_id: `${a.id},${b.id},999999`, access_level: 30 } });
    expect(ok.status).toBe(201);
    expect(ok.body).toEqual({ status: 'success' });
    expect(ids((await t.api('GET', `/groups/${group.id}/members`, { token: owner.token })).body)).toEqual([owner.id, a.id, b.id]);

    // Existing members take the new level; refusals are listed, the others still added.
    const mixed = await t.api('POST', `/groups/${sub.id}/members`, { token: owner.token, body: { username: `${a.username},${c.username}`, access_level: 20 } });
    expect(mixed.status).toBe(201);
    expect(mixed.body).toEqual({ message: `${a.username}: Access level should be greater than or equal to Developer inherited membership from group ${group.name}`, status: 'error' });
    expect(ids((await t.api('GET', `/groups/${sub.id}/members`, { token: owner.token })).body)).toEqual([owner.id, c.id]);
    const raised = await t.api('POST', `/groups/${group.id}/members`, { token: owner.token, body: { user_id: `${a.id},${c.id}`, access_level: 40, expires_at: '2099-01-01' } });
    expect(raised.body).toEqual({ status: 'success' });
    expect((await t.api('GET', `/groups/${group.id}/members/${a.id}`, { token: owner.token })).body).toMatchObject({ access_level: 40, expires_at: '2099-01-01' });

    const lastOwner = await t.api('POST', `/groups/${group.id}/members`, { token: owner.token, body: { user_id: `${owner.id},${b.id}`, access_level: 10 } });
    expect(lastOwner.body).toEqual({ message: `${owner.username}: Unauthorized`, status: 'error' });
    const none = await t.api('POST', `/groups/${group.id}/members`, { token: owner.token, body: { user_id: ',', access_level: 10 } });
    expect(none.body).toEqual({ message: 'No users specified.', status: 'error' });
    const both = await t.api('POST', `/groups/${group.id}/members`, { token: owner.token, body: { user_id: `${a.id},${b.id}`, username: a.username, access_level: 10 } });
    expect(both).toMatchObject({ status: 400, body: { error: 'user_id, username are mutually exclusive' } });
    const byDev = await t.api('POST', `/groups/${group.id}/members`, { token: b.token, body: { user_id: `${c.id},${owner.id}`, access_level: 10 } });
    expect(byDev.status).toBe(403);
  });

  it('keeps Owners out of a Maintainer’s multi-user additions to a project', async () => {
    const group = await createGroup(t, owner.token);
    const project = await createProject(t, owner.token, { namespaceId: group.id });
    const maint = await createUser(t);
    const [a, b] = [await createUser(t), await createUser(t)];
    await addMember(t, owner.token, 'projects', project.id, maint.id, 40);
    expect((await t.api('POST', `/projects/${project.id}/members`, { token: maint.token, body: { user_id: `${a.id},${b.id}`, access_level: 50 } })).status).toBe(403);
    expect((await t.api('POST', `/projects/${project.id}/members`, { token: maint.token, body: { user_id: `${a.id},${b.id}`, access_level: 30 } })).body).toEqual({ status: 'success' });
  });
});
