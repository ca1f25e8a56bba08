import { beforeAll, describe, expect, it } from 'vitest';
import { suiteServer, EXTERNAL_URL } from '../support/server.js';
import { addMember, createGroup, createProject, createUser, type TestUser } from '../support/factories.js';

const t = suiteServer();
let owner: TestUser;
beforeAll(async () => {
  owner = await createUser(t);
});

describe('namespaces', () => {
  it('lists the personal namespace and groups of the caller, with owner-only fields for owned groups', async () => {
    const group = await createGroup(t, owner.token);
    await createProject(t, owner.token, { namespaceId: group.id });
    const res = await t.api('GET', '/namespaces', { token: owner.token });
    expect(res.status).toBe(200);
    const personal = res.body.find((n: { kind: string }) => n.kind === 'user');
    expect(personal).toMatchObject({ path: owner.username, full_path: owner.username, parent_id: null, web_url: `${EXTERNAL_URL}/${owner.username}`, plan: 'default' });
    expect(personal).not.toHaveProperty('members_count_with_descendants');
    const g = res.body.find((n: { id: number }) => n.id === group.id);
    expect(g).toMatchObject({ kind: 'group', full_path: group.full_path, members_count_with_descendants: 1, projects_count: 1, root_repository_size: 0, plan: 'default', trial: false });
    expect(res.headers.get('x-total')).toBe('2');
  });

  it('hides owner-only fields from a developer', async () => {
    const group = await createGroup(t, owner.token);
    const dev = await createUser(t);
    await addMember(t, owner.token, 'groups', group.id, dev.id, 30);
    const res = await t.api('GET', `/namespaces/${group.id}`, { token: dev.token });
    expect(res.status).toBe(200);
    expect(res.body).not.toHaveProperty('members_count_with_descendants');
    expect(res.body).not.toHaveProperty('projects_count');
    expect(res.body).not.toHaveProperty('plan');
    expect(res.body.billable_members_count).toBeNull();
  });

  it('filters by search and top_level_only', async () => {
    const parent = await createGroup(t, owner.token, { path: `searchable-${Date.now()}` });
    await createGroup(t, owner.token, { parentId: parent.id });
    const top = await t.api('GET', '/namespaces?top_level_only=true', { token: owner.token });
    expect(top.body.every((n: { parent_id: number | null }) => n.parent_id === null)).toBe(true);
    const search = await t.api('GET', '/namespaces?search=searchable', { token: owner.token });
    expect(search.body.map((n: { id: number }) => n.id)).toEqual([parent.id]);
  });

  it('answers 404 Namespace Not Found for another user\'s personal namespace, and 401 without a token', async () => {
    const other = await createUser(t);
    const res = await t.api('GET', `/namespaces/${other.username}`, { token: owner.token });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: '404 Namespace Not Found' });
    expect((await t.api('GET', '/namespaces', { token: null })).status).toBe(401);
    const admin = await t.api('GET', `/namespaces/${other.username}`);
    expect(admin.status).toBe(200);
  });

  it('reads a namespace by URL-encoded full path', async () => {
    const parent = await createGroup(t, owner.token);
    const child = await createGroup(t, owner.token, { parentId: parent.id });
    const res = await t.api('GET', `/namespaces/${encodeURIComponent(child.full_path)}`, { token: owner.token });
    expect(res.body).toMatchObject({ id: child.id, parent_id: parent.id, kind: 'group' });
  });

  it('tells whether a path exists and suggests a free one', async () => {
    await createGroup(t, owner.token, { path: 'namespace-1' });
    const taken = await t.api('GET', '/namespaces/namespace-1/exists', { token: owner.token });
    expect(taken.status).toBe(200);
    expect(taken.body).toEqual({ exists: true, suggests: ['namespace-11'] });
    const upper = await t.api('GET', '/namespaces/NAMESPACE-1/exists', { token: owner.token });
    expect(upper.body).toEqual({ exists: true, suggests: ['NAMESPACE-11'] });
    const free = await t.api('GET', '/namespaces/nothing-here/exists', { token: owner.token });
    expect(free.body).toEqual({ exists: false, suggests: [] });
  });

  it('scopes exists to a parent and ignores siblings in other parents', async () => {
    const a = await createGroup(t, owner.token);
    const b = await createGroup(t, owner.token);
    await createGroup(t, owner.token, { parentId: a.id, path: 'with.dot' });
    const inA = await t.api('GET', `/namespaces/with.dot/exists?parent_id=${a.id}`, { token: owner.token });
    expect(inA.body).toEqual({ exists: true, suggests: ['with.dot1'] });
    const inB = await t.api('GET', `/namespaces/with.dot/exists?parent_id=${b.id}`, { token: owner.token });
    expect(inB.body).toEqual({ exists: false, suggests: [] });
    const top = await t.api('GET', '/namespaces/with.dot/exists', { token: owner.token });
    expect(top.body.exists).toBe(false);
  });

  it('matches LIKE wildcards and backslashes in paths and searches literally, never as patterns', async () => {
    const group = await createGroup(t, owner.token, { path: `wild_card-${Date.now()}` });
    const project = await createProject(t, owner.token, { namespaceId: group.id, name: 'a_b' });
    const enc = encodeURIComponent;
    // A `%` or `_` that is not in the path names nothing.
    expect((await t.api('GET', `/groups/${enc(group.full_path.replace('wild_card', 'wild%'))}`, { token: owner.token })).status).toBe(404);
    expect((await t.api('GET', `/groups/${enc(group.full_path.replace('wild_card', 'wildxcard'))}`, { token: owner.token })).status).toBe(404);
    expect((await t.api('GET', `/namespaces/${enc(group.full_path.toUpperCase())}`, { token: owner.token })).body.id).toBe(group.id);
    expect((await t.api('GET', `/projects/${enc(`${group.full_path}/a%`)}`, { token: owner.token })).status).toBe(404);
    expect((await t.api('GET', `/projects/${enc(`${group.full_path}/A_B`)}`, { token: owner.token })).body.id).toBe(project.id);
    // Searches: `%` finds only names that contain a percent sign.
    for (const path of ['/namespaces?search=%25%25%25', '/projects?search=%25', '/users?search=%25', '/users?username=%25', `/groups/${group.id}/members?query=%25`]) {
      const res = await t.api('GET', path, { token: owner.token });
      expect([path, res.status, res.body]).toEqual([path, 200, []]);
    }
    // A trailing backslash is an invalid LIKE pattern in PostgreSQL; here it is just a character.
    for (const path of ['/projects?search=a%5C', '/users?search=x%5C', '/namespaces?search=abc%5C', `/groups/${enc('x\\')}`, `/users/${enc('x\\')}/projects`]) {
      const res = await t.api('GET', path, { token: owner.token });
      expect([path, res.status < 500]).toEqual([path, true]);
    }
    // A project named `axb` does not clash with `a_b`.
    const other = await t.api('POST', '/projects', { token: owner.token, body: { name: 'axb', namespace_id: group.id } });
    expect(other.status).toBe(201);
  });
});
