import { beforeAll, describe, expect, it } from 'vitest';
import { suiteServer, EXTERNAL_URL } from '../support/server.js';
import { addMember, createGroup, createProject, createUser, unique, type TestUser } from '../support/factories.js';

const t = suiteServer();
let alice: TestUser;
beforeAll(async () => {
  alice = await createUser(t);
});

describe('projects', () => {
  it('creates a personal project with GitLab\'s fields', async () => {
    const res = await t.api('POST', '/projects', { token: alice.token, body: { name: 'My Project', description: 'x' } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      name: 'My Project',
      path: 'My-Project',
      path_with_namespace: `${alice.username}/My-Project`,
      visibility: 'private',
      default_branch: 'main',
      web_url: `${EXTERNAL_URL}/${alice.username}/My-Project`,
      http_url_to_repo: `${EXTERNAL_URL}/${alice.username}/My-Project.git`,
      ssh_url_to_repo: `git@gitlab.example.com:${alice.username}/My-Project.git`,
      namespace: { kind: 'user', path: alice.username, full_path: alice.username, parent_id: null },
      owner: { id: alice.id, username: alice.username },
      creator_id: alice.id,
      _links: { self: `${EXTERNAL_URL}/api/v4/projects/${res.body.id}` },
    });
    expect(res.body).not.toHaveProperty('repository_storage');
    expect(res.body.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it('answers a creation with what reading the project shows, for a personal and a group project', async () => {
    const group = await createGroup(t, alice.token);
    for (const body of [{ name: unique('mine'), topics: ['b', 'a'] }, { name: unique('grouped'), namespace_id: group.id, description: 'd', visibility: 'private', issues_access_level: 'private' }]) {
      const made = await t.api('POST', '/projects', { token: alice.token, body });
      expect(made.status).toBe(201);
      const { permissions, ...read } = (await t.api('GET', `/projects/${made.body.id}`, { token: alice.token })).body;
      expect(permissions).toBeDefined();
      expect(made.body).toEqual(read);
    }
  });

  it('reads a project by id and by URL-encoded path; an unencoded path is an unknown route', async () => {
    const p = await createProject(t, alice.token);
    const byId = await t.api('GET', `/projects/${p.id}`, { token: alice.token });
    expect(byId.body.permissions).toEqual({ project_access: { access_level: 50 }, group_access: null });
    const byPath = await t.api('GET', `/projects/${encodeURIComponent(p.path_with_namespace)}`, { token: alice.token });
    expect(byPath.body.id).toBe(p.id);
    const upper = await t.api('GET', `/projects/${encodeURIComponent(p.path_with_namespace.toUpperCase())}`, { token: alice.token });
    expect(upper.body.id).toBe(p.id);
    const group = await t.api('GET', `/namespaces/${encodeURIComponent(alice.username.toUpperCase())}`, { token: alice.token });
    expect(group.body.full_path).toBe(alice.username);
    const raw = await t.api('GET', `/projects/${p.path_with_namespace}`, { token: alice.token });
    expect(raw.status).toBe(404);
    expect(raw.body).toEqual({ error: '404 Not Found' });
  });

  it('answers 404 Project Not Found for private projects of others, and for unknown ids', async () => {
    const p = await createProject(t, alice.token);
    const bob = await createUser(t);
    for (const token of [bob.token, null]) {
      const res = await t.api('GET', `/projects/${p.id}`, { token });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ message: '404 Project Not Found' });
    }
    expect((await t.api('GET', '/projects/99999999')).body).toEqual({ message: '404 Project Not Found' });
  });

  it('needs name or path', async () => {
    const res = await t.api('POST', '/projects', { token: alice.token, body: { description: 'no name' } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'name, path are missing, at least one parameter must be provided' });
  });

  it('refuses a taken path with a validation body', async () => {
    const p = await createProject(t, alice.token);
    const res = await t.api('POST', '/projects', { token: alice.token, body: { name: unique('other'), path: p.path } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: { path: ['has already been taken'] } });
    // In a group: the same, by namespace_id; a group the caller cannot see says only that, whatever it holds.
    const group = await createGroup(t, alice.token);
    const held = await createProject(t, alice.token, { namespaceId: group.id });
    const again = await t.api('POST', '/projects', { token: alice.token, body: { name: held.name, path: held.path, namespace_id: group.id } });
    expect(again).toMatchObject({ status: 400, body: { message: { name: ['has already been taken'], path: ['has already been taken'] } } });
    const outsider = await createUser(t);
    for (const body of [{ name: held.name, path: held.path, namespace_id: group.id }, { name: unique('free'), namespace_id: group.id }]) {
      expect(await t.api('POST', '/projects', { token: outsider.token, body })).toMatchObject({ status: 404, body: { message: '404 Namespace Not Found' } });
    }
  });

  it('filters by search, visibility, owned and membership, and paginates with GitLab headers', async () => {
    const bob = await createUser(t);
    const tag = unique('zeta');
    for (let i = 0; i < 3; i++) await createProject(t, bob.token, { name: `${tag}-${i}`, visibility: 'public' });
    const page1 = await t.api('GET', `/projects?search=${tag}&per_page=2&order_by=id&sort=asc`, { token: alice.token });
    expect(page1.status).toBe(200);
    expect(page1.body.map((p: { name: string }) => p.name)).toEqual([`${tag}-0`, `${tag}-1`]);
    expect(page1.headers.get('x-total')).toBe('3');
    expect(page1.headers.get('x-total-pages')).toBe('2');
    expect(page1.headers.get('x-page')).toBe('1');
    expect(page1.headers.get('x-per-page')).toBe('2');
    expect(page1.headers.get('x-next-page')).toBe('2');
    expect(page1.headers.get('x-prev-page')).toBe('');
    const link = page1.headers.get('link') ?? '';
    expect(link).toContain(`<${EXTERNAL_URL}/api/v4/projects?order_by=id&page=2&per_page=2&search=${tag}&sort=asc>; rel="next"`);
    expect(link).toContain('rel="first"');
    expect(link).toContain('rel="last"');
    const page2 = await t.api('GET', `/projects?search=${tag}&per_page=2&page=2&order_by=id&sort=asc`, { token: alice.token });
    expect(page2.body.map((p: { name: string }) => p.name)).toEqual([`${tag}-2`]);
    expect(page2.headers.get('x-next-page')).toBe('');
    expect(page2.headers.get('x-prev-page')).toBe('1');

    const owned = await t.api('GET', `/projects?owned=true&search=${tag}`, { token: alice.token });
    expect(owned.body).toEqual([]);
    const membership = await t.api('GET', `/projects?membership=true&search=${tag}`, { token: bob.token });
    expect(membership.body).toHaveLength(3);
    const priv = await t.api('GET', `/projects?visibility=private&search=${tag}`, { token: alice.token });
    expect(priv.body).toEqual([]);
  });

  it('counts as owned the personal projects and those the caller holds the Owner role of, as GitLab\'s User#owned_projects', async () => {
    const owner = await createUser(t);
    const maintainer = await createUser(t);
    const group = await createGroup(t, owner.token);
    const inGroup = await createProject(t, owner.token, { namespaceId: group.id });
    const personal = await createProject(t, owner.token);
    await addMember(t, owner.token, 'groups', group.id, maintainer.id, 40);
    const owned = await t.api('GET', '/projects?owned=true&order_by=id&sort=asc', { token: owner.token });
    expect(owned.body.map((p: { id: number }) => p.id)).toEqual([inGroup.id, personal.id]);
    expect(owned.headers.get('x-total')).toBe('2');
    const notOwned = await t.api('GET', '/projects?owned=true', { token: maintainer.token });
    expect(notOwned.body).toEqual([]);
  });

  it('takes topics on creation, as a list or comma-separated, each once', async () => {
    const listed = await t.api('POST', '/projects', { token: alice.token, body: { name: unique('topical'), topics: ['cli', 'Go', 'go'] } });
    expect(listed.status).toBe(201);
    expect(listed.body.topics).toEqual(['cli', 'Go']);
    expect(listed.body.tag_list).toEqual(['cli', 'Go']);
    const form = new URLSearchParams({ name: unique('topical'), tag_list: 'a, b' });
    const csv = await t.api('POST', '/projects', { token: alice.token, body: form.toString(), headers: { 'Content-Type': 'application/x-www-form-urlencoded' } });
    expect(csv.body.topics).toEqual(['a', 'b']);
  });

  it('rejects bad pagination and filter values in Grape words', async () => {
    expect((await t.api('GET', '/projects?per_page=0')).body).toEqual({ error: 'per_page has a value not allowed' });
    expect((await t.api('GET', '/projects?page=abc')).body).toEqual({ error: 'page is invalid' });
    expect((await t.api('GET', '/projects?visibility=secret')).body).toEqual({ error: 'visibility does not have a valid value' });
    expect((await t.api('GET', '/projects?owned=maybe')).body).toEqual({ error: 'owned is invalid' });
    const big = await t.api('GET', '/projects?per_page=1000');
    expect(big.headers.get('x-per-page')).toBe('100');
  });

  it('lets only administrators filter by repository_storage and see it', async () => {
    const p = await createProject(t, alice.token);
    const asRoot = await t.api('GET', `/projects?repository_storage=default&per_page=100`);
    expect(asRoot.body.map((x: { id: number }) => x.id)).toContain(p.id);
    expect(asRoot.body[0].repository_storage).toBe('default');
    const none = await t.api('GET', '/projects?repository_storage=elsewhere');
    expect(none.body).toEqual([]);
  });

  it('manages project members: maintainers add up to their level, guests cannot add', async () => {
    const group = await createGroup(t, alice.token);
    const project = await createProject(t, alice.token, { namespaceId: group.id });
    const maint = await createUser(t);
    const guest = await createUser(t);
    await addMember(t, alice.token, 'projects', project.id, maint.id, 40);
    const asOwner = await t.api('POST', `/projects/${project.id}/members`, { token: maint.token, body: { user_id: guest.id, access_level: 50 } });
    expect(asOwner.status).toBe(403);
    const ok = await t.api('POST', `/projects/${project.id}/members`, { token: maint.token, body: { username: guest.username, access_level: 10 } });
    expect(ok.status).toBe(201);
    expect(ok.body).toMatchObject({ id: guest.id, username: guest.username, access_level: 10, created_by: { id: maint.id } });
    expect(Object.keys(ok.body)).toEqual(['id', 'username', 'name', 'state', 'locked', 'avatar_url', 'web_url', 'access_level', 'created_at', 'created_by', 'expires_at', 'membership_state']);
    const byGuest = await t.api('POST', `/projects/${project.id}/members`, { token: guest.token, body: { user_id: alice.id, access_level: 10 } });
    expect(byGuest.status).toBe(403);
    const list = await t.api('GET', `/projects/${project.id}/members`, { token: guest.token });
    expect(list.body.map((m: { id: number }) => m.id)).toEqual([maint.id, guest.id]);
    const missing = await t.api('POST', `/projects/${project.id}/members`, { token: alice.token, body: { access_level: 30 } });
    expect(missing.body).toEqual({ error: 'user_id, username are missing, exactly one parameter must be provided' });
  });

  it('lists inherited members once each at their highest level under /members/all', async () => {
    const group = await createGroup(t, alice.token);
    const sub = await createGroup(t, alice.token, { parentId: group.id });
    const project = await createProject(t, alice.token, { namespaceId: sub.id });
    const dev = await createUser(t);
    const guest = await createUser(t);
    // In this order: GitLab refuses a project membership below one the user already inherits from a group.
    await addMember(t, alice.token, 'projects', project.id, dev.id, 20);
    await addMember(t, alice.token, 'groups', group.id, dev.id, 30);
    await addMember(t, alice.token, 'projects', project.id, guest.id, 10);

    const direct = await t.api('GET', `/projects/${project.id}/members`, { token: guest.token });
    expect(direct.body.map((m: { id: number; access_level: number }) => [m.id, m.access_level])).toEqual([[dev.id, 20], [guest.id, 10]]);
    const all = await t.api('GET', `/projects/${project.id}/members/all`, { token: guest.token });
    expect(all.status).toBe(200);
    expect(all.headers.get('x-total')).toBe('3');
    const levels = Object.fromEntries(all.body.map((m: { username: string; access_level: number }) => [m.username, m.access_level]));
    expect(levels).toEqual({ [alice.username]: 50, [dev.username]: 30, [guest.username]: 10 });
    const searched = await t.api('GET', `/projects/${project.id}/members/all?query=${guest.username}`, { token: guest.token });
    expect(searched.body.map((m: { id: number }) => m.id)).toEqual([guest.id]);

    const groupAll = await t.api('GET', `/groups/${sub.id}/members/all`, { token: alice.token });
    expect(groupAll.body.map((m: { id: number }) => m.id).sort()).toEqual([alice.id, dev.id].sort());
    // The subgroup's creator is its direct Owner, as in GitLab; the developer only inherits.
    const subDirect = await t.api('GET', `/groups/${sub.id}/members`, { token: alice.token });
    expect(subDirect.body.map((m: { id: number }) => m.id)).toEqual([alice.id]);
  });
});

describe('what a project read shows, by caller', () => {
  // GitLab's Entities::BasicProjectDetails: what anonymous callers get, and anyone with `simple=true` on a list.
  const BASIC = ['avatar_url', 'created_at', 'default_branch', 'description', 'forks_count', 'http_url_to_repo', 'id', 'last_activity_at', 'name', 'name_with_namespace', 'namespace', 'path', 'path_with_namespace', 'readme_url', 'ssh_url_to_repo', 'star_count', 'tag_list', 'topics', 'web_url'];

  it('shows BasicProjectDetails to anonymous callers (whatever they send) and for simple=true, the full entity otherwise', async () => {
    const project = await createProject(t, alice.token, { visibility: 'public', name: unique('shape') });
    const anonymous = await t.api('GET', `/projects/${project.id}?signed_in=true`, { token: null });
    expect(anonymous.status).toBe(200);
    expect(Object.keys(anonymous.body).sort()).toEqual(BASIC);
    expect(anonymous.body.namespace).toEqual({ id: expect.any(Number), name: alice.username, path: alice.username, kind: 'user', full_path: alice.username, parent_id: null, avatar_url: null, web_url: `${EXTERNAL_URL}/${alice.username}` });
    const listed = await t.api('GET', `/projects?search=${project.name}`, { token: null });
    expect(listed.body.map((p: Record<string, unknown>) => Object.keys(p).sort())).toEqual([BASIC]);

    const full = await t.api('GET', `/projects/${project.id}`, { token: alice.token });
    expect(full.body).toMatchObject({ visibility: 'public', archived: false, permissions: { project_access: { access_level: 50 } }, owner: { id: alice.id } });
    const signedInList = await t.api('GET', `/projects?search=${project.name}`, { token: alice.token });
    expect(signedInList.body[0]).toMatchObject({ visibility: 'public', owner: { id: alice.id } });
    const simple = await t.api('GET', `/projects?search=${project.name}&simple=true`, { token: alice.token });
    expect(simple.body.map((p: Record<string, unknown>) => Object.keys(p).sort())).toEqual([BASIC]);
    const simpleForUser = await t.api('GET', `/users/${alice.id}/projects?simple=true`, { token: alice.token });
    expect(Object.keys(simpleForUser.body[0]).sort()).toEqual(BASIC);
  });

  it('shows default_branch, readme_url and forks_count only to callers who may read the code (BasicProjectDetails)', async () => {
    const guest = await createUser(t);
    const project = await createProject(t, alice.token, { visibility: 'private', name: unique('code') });
    await addMember(t, alice.token, 'projects', project.id, guest.id, 10);
    const CODE = ['default_branch', 'readme_url', 'forks_count'];
    const asGuest = await t.api('GET', `/projects/${project.id}`, { token: guest.token });
    expect(asGuest.status).toBe(200);
    for (const key of CODE) expect(asGuest.body).not.toHaveProperty(key);
    const simple = await t.api('GET', `/projects?search=${project.name}&simple=true`, { token: guest.token });
    expect(Object.keys(simple.body[0]).sort()).toEqual(BASIC.filter((k) => !CODE.includes(k)));
    const asOwner = await t.api('GET', `/projects/${project.id}`, { token: alice.token });
    expect(asOwner.body).toMatchObject({ default_branch: 'main', readme_url: null, forks_count: 0 });
    // The keys keep GitLab's order where they are shown.
    const keys = Object.keys(asOwner.body);
    expect(keys.slice(keys.indexOf('created_at') + 1, keys.indexOf('created_at') + 3)).toEqual(['default_branch', 'tag_list']);
    expect(keys.slice(keys.indexOf('web_url') + 1, keys.indexOf('web_url') + 3)).toEqual(['readme_url', 'forks_count']);
  });
});
