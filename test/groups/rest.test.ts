import { beforeAll, describe, expect, it } from 'vitest';
import { suiteServer, EXTERNAL_URL } from '../support/server.js';
import { addMember, createGroup, createProject, createUser, unique, type TestUser } from '../support/factories.js';

const t = suiteServer();
let owner: TestUser;
beforeAll(async () => {
  owner = await createUser(t);
});

describe('groups', () => {
  it('creates a group whose creator is its Owner', async () => {
    const path = unique('team');
    const res = await t.api('POST', '/groups', { token: owner.token, body: { name: 'Team', path, description: 'd' } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ name: 'Team', path, full_path: path, full_name: 'Team', visibility: 'private', parent_id: null, web_url: `${EXTERNAL_URL}/groups/${path}`, description: 'd' });
    const members = await t.api('GET', `/groups/${res.body.id}/members`, { token: owner.token });
    expect(members.body).toEqual([expect.objectContaining({ id: owner.id, username: owner.username, access_level: 50, membership_state: 'active' })]);
  });

  it('reads a group by numeric id or URL-encoded full path, and subgroups inherit the parent path', async () => {
    const parent = await createGroup(t, owner.token);
    const child = await createGroup(t, owner.token, { parentId: parent.id });
    expect(child.full_path).toBe(`${parent.full_path}/${child.path}`);
    const byPath = await t.api('GET', `/groups/${encodeURIComponent(child.full_path)}`, { token: owner.token });
    expect(byPath.status).toBe(200);
    expect(byPath.body.id).toBe(child.id);
    const subgroups = await t.api('GET', `/groups/${parent.id}/subgroups`, { token: owner.token });
    expect(subgroups.body.map((g: { id: number }) => g.id)).toEqual([child.id]);
    expect(subgroups.headers.get('x-total')).toBe('1');
  });

  it('answers 404 Group Not Found to a non-member of a private group', async () => {
    const group = await createGroup(t, owner.token);
    const stranger = await createUser(t);
    const res = await t.api('GET', `/groups/${group.id}`, { token: stranger.token });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: '404 Group Not Found' });
    expect((await t.api('GET', `/groups/${group.id}`, { token: null })).status).toBe(404);
  });

  it('lets public groups be read anonymously', async () => {
    const group = await createGroup(t, owner.token, { visibility: 'public' });
    const res = await t.api('GET', `/groups/${group.id}`, { token: null });
    expect(res.status).toBe(200);
    const list = await t.api('GET', '/groups', { token: null });
    expect(list.body.map((g: { id: number }) => g.id)).toContain(group.id);
  });

  it('refuses a taken path and a subgroup more visible than its parent', async () => {
    const group = await createGroup(t, owner.token);
    const dup = await t.api('POST', '/groups', { token: owner.token, body: { name: 'x', path: group.path } });
    expect(dup.status).toBe(400);
    expect(dup.body.message).toMatch(/^Failed to save group .*has already been taken/);
    const loud = await t.api('POST', '/groups', { token: owner.token, body: { name: 'y', path: unique('y'), parent_id: group.id, visibility: 'public' } });
    expect(loud.status).toBe(400);
    expect(loud.body.message).toMatch(/visibility_level/);
  });

  it('validates the access level and refuses duplicate members', async () => {
    const group = await createGroup(t, owner.token);
    const dev = await createUser(t);
    const bad = await t.api('POST', `/groups/${group.id}/members`, { token: owner.token, body: { user_id: dev.id, access_level: 35 } });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: 'access_level does not have a valid value' });
    await addMember(t, owner.token, 'groups', group.id, dev.id, 30);
    const again = await t.api('POST', `/groups/${group.id}/members`, { token: owner.token, body: { user_id: dev.id, access_level: 30 } });
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ message: 'Member already exists' });
    const byDev = await t.api('POST', `/groups/${group.id}/members`, { token: dev.token, body: { user_id: owner.id, access_level: 10 } });
    expect(byDev.status).toBe(403);
  });

  it('gives group members inherited access to subgroups and projects', async () => {
    const group = await createGroup(t, owner.token);
    const sub = await createGroup(t, owner.token, { parentId: group.id });
    const project = await createProject(t, owner.token, { namespaceId: sub.id });
    const guest = await createUser(t);
    expect((await t.api('GET', `/projects/${project.id}`, { token: guest.token })).status).toBe(404);
    await addMember(t, owner.token, 'groups', group.id, guest.id, 10);
    const res = await t.api('GET', `/projects/${project.id}`, { token: guest.token });
    expect(res.status).toBe(200);
    expect(res.body.permissions).toEqual({ project_access: null, group_access: { access_level: 10 } });
    expect((await t.api('GET', `/groups/${sub.id}`, { token: guest.token })).status).toBe(200);
    const projects = await t.api('GET', `/groups/${group.id}/projects?include_subgroups=true`, { token: guest.token });
    expect(projects.body.map((p: { id: number }) => p.id)).toEqual([project.id]);
  });

  it('lists only the caller\'s groups by default and every readable one with all_available', async () => {
    const mine = await createGroup(t, owner.token);
    const other = await createUser(t);
    const theirs = await createGroup(t, other.token, { visibility: 'internal' });
    const list = await t.api('GET', '/groups?per_page=100', { token: owner.token });
    const ids = list.body.map((g: { id: number }) => g.id);
    expect(ids).toContain(mine.id);
    expect(ids).not.toContain(theirs.id);
    const all = await t.api('GET', '/groups?all_available=true&per_page=100', { token: owner.token });
    expect(all.body.map((g: { id: number }) => g.id)).toContain(theirs.id);
  });

  it('answers concurrent creations of the same path with one success and errors, never a 500', async () => {
    const path = unique('race');
    const results = await Promise.all(Array.from({ length: 6 }, () => t.api('POST', '/groups', { token: owner.token, body: { name: path, path } })));
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.every((s) => s === 201 || s === 400)).toBe(true);
  });
});
