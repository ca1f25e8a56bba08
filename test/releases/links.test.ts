/** Release asset links over REST: GitLab's Releases::Link entity, uniqueness and format rules, downloads, and who may do what. */
import { beforeAll, describe, expect, it } from 'vitest';
import { suiteServer, EXTERNAL_URL } from '../support/server.js';
import { addMember, createProject, createUser, type TestUser } from '../support/factories.js';

const t = suiteServer();

let owner: TestUser;
let project: { id: number; path_with_namespace: string };

const links = (suffix = '') => `/projects/${project.id}/releases/v1/assets/links${suffix}`;

beforeAll(async () => {
  owner = await createUser(t);
  project = await createProject(t, owner.token);
  await t.api('POST', `/projects/${project.id}/repository/files/a.txt`, { token: owner.token, body: { branch: 'main', content: 'a', commit_message: 'a' } });
  expect((await t.api('POST', `/projects/${project.id}/releases`, { token: owner.token, body: { tag_name: 'v1', ref: 'main' } })).status).toBe(201);
});

describe('release links', () => {
  it('creates, lists newest first, reads, changes and deletes links', async () => {
    const first = await t.api('POST', links(), { token: owner.token, body: { name: 'one', url: 'https://example.com/1' } });
    expect(first.status, first.text).toBe(201);
    expect(first.body).toEqual({ id: first.body.id, name: 'one', url: 'https://example.com/1', direct_asset_url: 'https://example.com/1', link_type: 'other' });
    const second = await t.api('POST', links(), { token: owner.token, body: { name: 'two', url: 'https://example.com/2', filepath: '/bin/two', link_type: 'image' } });
    expect(second.body).toMatchObject({ direct_asset_url: `${EXTERNAL_URL}/${project.path_with_namespace}/-/releases/v1/downloads/bin/two`, link_type: 'image' });
    const list = await t.api('GET', links(), { token: owner.token });
    expect([list.status, list.headers.get('x-total')]).toEqual([200, '2']);
    expect(list.body.map((l: { name: string }) => l.name)).toEqual(['two', 'one']);
    expect((await t.api('GET', links(`/${first.body.id}`), { token: owner.token })).body.name).toBe('one');
    const changed = await t.api('PUT', links(`/${first.body.id}`), { token: owner.token, body: { name: 'uno', direct_asset_path: '/bin/uno', link_type: 'runbook' } });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body).toMatchObject({ name: 'uno', url: 'https://example.com/1', link_type: 'runbook', direct_asset_url: `${EXTERNAL_URL}/${project.path_with_namespace}/-/releases/v1/downloads/bin/uno` });
    const release = await t.api('GET', `/projects/${project.id}/releases/v1`, { token: owner.token });
    expect(release.body.assets.count).toBe(6);
    expect(release.body.assets.links.map((l: { name: string }) => l.name)).toEqual(['two', 'uno']);
    const deleted = await t.api('DELETE', links(`/${second.body.id}`), { token: owner.token });
    expect([deleted.status, deleted.body.name]).toEqual([200, 'two']);
    expect((await t.api('GET', links(`/${second.body.id}`), { token: owner.token })).body).toEqual({ message: '404 Not found' });
  });

  it('redirects a direct asset download to the link’s URL', async () => {
    const res = await fetch(`${t.url}/api/v4/projects/${project.id}/releases/v1/downloads/bin/uno`, { headers: { 'PRIVATE-TOKEN': owner.token }, redirect: 'manual' });
    expect([res.status, res.headers.get('location')]).toEqual([302, 'https://example.com/1']);
    const missing = await fetch(`${t.url}/api/v4/projects/${project.id}/releases/v1/downloads/bin/none`, { headers: { 'PRIVATE-TOKEN': owner.token }, redirect: 'manual' });
    expect([missing.status, await missing.json()]).toEqual([404, { message: '404 Not found' }]);
  });

  it('refuses duplicates, bad URLs and paths, and bad types in GitLab’s words', async () => {
    const dup = await t.api('POST', links(), { token: owner.token, body: { name: 'uno', url: 'https://example.com/1' } });
    expect([dup.status, dup.body]).toEqual([400, { message: ['Name has already been taken', 'Url has already been taken'] }]);
    const url = await t.api('POST', links(), { token: owner.token, body: { name: 'x', url: 'javascript:alert(1)' } });
    expect(url.body).toEqual({ message: ['Url is blocked: Only allowed schemes are http, https, ftp'] });
    const path = await t.api('POST', links(), { token: owner.token, body: { name: 'x', url: 'https://example.com/x', direct_asset_path: 'no-slash' } });
    expect(path.body).toEqual({ message: ['Filepath is in an invalid format'] });
    const type = await t.api('POST', links(), { token: owner.token, body: { name: 'x', url: 'https://example.com/x', link_type: 'video' } });
    expect([type.status, type.body]).toEqual([400, { error: 'link_type does not have a valid value' }]);
    const missing = await t.api('POST', links(), { token: owner.token, body: { name: 'x' } });
    expect([missing.status, missing.body]).toEqual([400, { error: 'url is missing' }]);
    const nothing = await t.api('PUT', links(`/${(await t.api('GET', links(), { token: owner.token })).body[0].id}`), { token: owner.token, body: {} });
    expect([nothing.status, nothing.body]).toEqual([400, { error: 'name, url, filepath, direct_asset_path, link_type are missing, at least one parameter must be provided' }]);
    const noRelease = await t.api('GET', `/projects/${project.id}/releases/nope/assets/links`, { token: owner.token });
    expect([noRelease.status, noRelease.body]).toEqual([404, { message: '404 Not Found' }]);
  });
});

describe('who may do what', () => {
  type Role = 'anonymous' | 'stranger' | 'guest' | 'reporter' | 'developer' | 'maintainer';
  const roles: Role[] = ['anonymous', 'stranger', 'guest', 'reporter', 'developer', 'maintainer'];
  const users = {} as Record<Role, TestUser | null>;
  const projects = {} as Record<'public' | 'private', { id: number }>;

  beforeAll(async () => {
    users.anonymous = null;
    for (const role of roles.slice(1)) users[role] = await createUser(t);
    for (const visibility of ['public', 'private'] as const) {
      const p = await createProject(t, owner.token, { visibility });
      projects[visibility] = p;
      await t.api('POST', `/projects/${p.id}/repository/files/a.txt`, { token: owner.token, body: { branch: 'main', content: 'a', commit_message: 'a' } });
      await t.api('POST', `/projects/${p.id}/releases`, { token: owner.token, body: { tag_name: 'base', ref: 'main', assets: { links: [{ name: 'l', url: 'https://example.com/l' }] } } });
      for (const [role, level] of [['guest', 10], ['reporter', 20], ['developer', 30], ['maintainer', 40]] as const) await addMember(t, owner.token, 'projects', p.id, users[role]!.id, level);
    }
  });

  const call = (role: Role, method: string, path: string, body?: unknown) => t.api(method, path, { token: users[role]?.token ?? null, body });

  it('reads: public releases to everyone; private ones to members, without the code to Guests', async () => {
    const seen: Record<string, number[]> = {};
    for (const visibility of ['public', 'private'] as const) {
      const base = `/projects/${projects[visibility].id}/releases`;
      for (const role of roles) {
        const list = await call(role, 'GET', base);
        const one = await call(role, 'GET', `${base}/base`);
        const linkList = await call(role, 'GET', `${base}/base/assets/links`);
        seen[`${visibility} ${role}`] = [list.status, one.status, linkList.status];
      }
    }
    expect(seen).toEqual({
      'public anonymous': [200, 200, 200],
      'public stranger': [200, 200, 200],
      'public guest': [200, 200, 200],
      'public reporter': [200, 200, 200],
      'public developer': [200, 200, 200],
      'public maintainer': [200, 200, 200],
      'private anonymous': [404, 404, 404],
      'private stranger': [404, 404, 404],
      // GitLab's `authorize_read_code!` of a single release: Guests cannot read a private project's code.
      'private guest': [200, 403, 200],
      'private reporter': [200, 200, 200],
      'private developer': [200, 200, 200],
      'private maintainer': [200, 200, 200],
    });
    const guestView = (await call('guest', 'GET', `/projects/${projects.private.id}/releases`)).body[0];
    expect(guestView).not.toHaveProperty('tag_name');
    expect(guestView).not.toHaveProperty('commit');
    expect(guestView).not.toHaveProperty('evidences');
    expect(guestView).not.toHaveProperty('tag_path');
    expect(guestView._links).not.toHaveProperty('edit_url');
    expect(guestView.assets).toEqual({ count: 1, links: [expect.objectContaining({ name: 'l' })] });
    expect((await call('reporter', 'GET', `/projects/${projects.private.id}/releases`)).body[0]._links).not.toHaveProperty('edit_url');
  });

  it('writes: Developers and above', async () => {
    const seen: Record<string, number[]> = {};
    for (const visibility of ['public', 'private'] as const) {
      const base = `/projects/${projects[visibility].id}/releases`;
      for (const role of roles) {
        const tag = `${role}-tag`;
        const create = await call(role, 'POST', base, { tag_name: tag, ref: 'main' });
        const update = await call(role, 'PUT', `${base}/base`, { description: role });
        const link = await call(role, 'POST', `${base}/base/assets/links`, { name: role, url: `https://example.com/${role}` });
        const remove = await call(role, 'DELETE', `${base}/${create.status === 201 ? tag : 'base'}`);
        seen[`${visibility} ${role}`] = [create.status, update.status, link.status, remove.status];
      }
    }
    const refused = (anonymous: number) => [anonymous, anonymous, anonymous, anonymous];
    expect(seen).toEqual({
      'public anonymous': refused(401),
      'public stranger': refused(403),
      'public guest': refused(403),
      'public reporter': refused(403),
      'public developer': [201, 200, 201, 200],
      'public maintainer': [201, 200, 201, 200],
      // Mutations need a token here, whatever the project (src/graphql/scopes.ts); GitLab would answer 403 and 404.
      'private anonymous': refused(401),
      'private stranger': refused(404),
      'private guest': refused(403),
      'private reporter': refused(403),
      'private developer': [201, 200, 201, 200],
      'private maintainer': [201, 200, 201, 200],
    });
  });
});
