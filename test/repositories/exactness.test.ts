/**
 * Where the repository API answered otherwise than GitLab (issue 25): branches made in an empty repository and from
 * unknown refs, `merged` for a branch at the default branch's head, `readme_url`, and a git push after an API commit.
 */
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { createProject, createUser, type TestUser } from '../support/factories.js';
import { cloneUrl, gitSandbox } from '../support/git.js';
import { EXTERNAL_URL, suiteServer } from '../support/server.js';

const t = suiteServer();
const git = gitSandbox();
let owner: TestUser;

beforeAll(async () => {
  owner = await createUser(t);
});

const commit = (projectId: number, branch: string, actions: object[], message = 'change') =>
  t.api('POST', `/projects/${projectId}/repository/commits`, { token: owner.token, body: { branch, commit_message: message, actions } });

describe('POST /projects/:id/repository/branches', () => {
  it("first gives an empty repository its default branch, with an empty README.md, as GitLab's Branches::CreateService", async () => {
    const p = await createProject(t, owner.token);
    const created = await t.api('POST', `/projects/${p.id}/repository/branches`, { token: owner.token, body: { branch: 'topic', ref: 'main' } });
    expect(created.status, created.text).toBe(201);
    const main = await t.api('GET', `/projects/${p.id}/repository/commits/main`, { token: owner.token });
    expect(main.body).toMatchObject({ title: 'Add README.md', author_name: expect.any(String), committer_email: expect.stringContaining(owner.username), parent_ids: [] });
    expect(created.body.commit.id).toBe(main.body.id);
    const readme = await t.api('GET', `/projects/${p.id}/repository/files/README.md/raw?ref=topic`, { token: owner.token });
    expect([readme.status, readme.text]).toEqual([200, '']);
    // The project is no longer empty, and its default branch is main.
    const project = await t.api('GET', `/projects/${p.id}`, { token: owner.token });
    expect(project.body).toMatchObject({ empty_repo: false, default_branch: 'main' });
  });

  it('names the branch and the ref when the ref is unknown', async () => {
    const p = await createProject(t, owner.token);
    await commit(p.id, 'main', [{ action: 'create', file_path: 'a.txt', content: 'a' }]);
    const res = await t.api('POST', `/projects/${p.id}/repository/branches`, { token: owner.token, body: { branch: 'x', ref: 'nowhere' } });
    expect([res.status, res.body]).toEqual([400, { message: "Failed to create branch 'x': invalid reference name 'nowhere'" }]);
  });
});

describe('merged', () => {
  it('is true for a branch behind the default branch, and false at its head or ahead of it', async () => {
    const p = await createProject(t, owner.token);
    await commit(p.id, 'main', [{ action: 'create', file_path: 'a.txt', content: 'a' }]);
    for (const branch of ['behind', 'same', 'ahead']) {
      expect((await t.api('POST', `/projects/${p.id}/repository/branches`, { token: owner.token, body: { branch, ref: 'main' } })).status).toBe(201);
    }
    expect((await commit(p.id, 'main', [{ action: 'create', file_path: 'm.txt', content: 'm' }])).status).toBe(201);
    await t.api('POST', `/projects/${p.id}/repository/branches`, { token: owner.token, body: { branch: 'same-now', ref: 'main' } });
    await t.api('DELETE', `/projects/${p.id}/repository/branches/same`, { token: owner.token });
    expect((await commit(p.id, 'ahead', [{ action: 'create', file_path: 'b.txt', content: 'b' }])).status).toBe(201);
    const list = await t.api('GET', `/projects/${p.id}/repository/branches`, { token: owner.token });
    expect(list.body.map((b: { name: string; merged: boolean }) => [b.name, b.merged])).toEqual([
      ['ahead', false],
      ['behind', true],
      ['main', false],
      ['same-now', false],
    ]);
    expect((await t.api('GET', `/projects/${p.id}/repository/branches/behind`, { token: owner.token })).body.merged).toBe(true);
    expect((await t.api('GET', `/projects/${p.id}/repository/branches/same-now`, { token: owner.token })).body.merged).toBe(false);
  });
});

describe('readme_url', () => {
  it("follows the default branch's README: none, a plain one, a rendered one before it, a new default branch, a fork", async () => {
    const p = await createProject(t, owner.token);
    const readmeUrl = async (id = p.id) => (await t.api('GET', `/projects/${id}`, { token: owner.token })).body.readme_url;
    expect(await readmeUrl()).toBeNull();
    await commit(p.id, 'main', [{ action: 'create', file_path: 'code.ts', content: 'x' }]);
    expect(await readmeUrl()).toBeNull();
    await commit(p.id, 'main', [{ action: 'create', file_path: 'README', content: 'plain' }]);
    const base = `${EXTERNAL_URL}/${p.path_with_namespace}/-/blob`;
    expect(await readmeUrl()).toBe(`${base}/main/README`);
    // A rendered README is preferred to a plain one, whatever their order; one in a folder does not count.
    await commit(p.id, 'main', [
      { action: 'create', file_path: 'readme.rst', content: 'rst' },
      { action: 'create', file_path: 'docs/README.md', content: 'docs' },
    ]);
    expect(await readmeUrl()).toBe(`${base}/main/readme.rst`);
    // Another branch's push leaves it alone; a new default branch brings its own.
    await t.api('POST', `/projects/${p.id}/repository/branches`, { token: owner.token, body: { branch: 'release/1', ref: 'main' } });
    await commit(p.id, 'release/1', [{ action: 'delete', file_path: 'readme.rst' }, { action: 'delete', file_path: 'README' }, { action: 'create', file_path: 'README.txt', content: 't' }]);
    expect(await readmeUrl()).toBe(`${base}/main/readme.rst`);
    const changed = await t.api('PUT', `/projects/${p.id}`, { token: owner.token, body: { default_branch: 'release/1' } });
    expect(changed.body.readme_url).toBe(`${base}/release/1/README.txt`);
    // Removing it removes the URL.
    await commit(p.id, 'release/1', [{ action: 'delete', file_path: 'README.txt' }]);
    expect(await readmeUrl()).toBeNull();
    // A fork starts with its source's README.
    await t.api('PUT', `/projects/${p.id}`, { token: owner.token, body: { default_branch: 'main' } });
    const fork = await t.api('POST', `/projects/${p.id}/fork`, { token: owner.token, body: { path: `${p.path}-fork`, name: `${p.name} fork`, namespace_path: (await t.api('GET', '/user', { token: owner.token })).body.username } });
    expect(fork.status, fork.text).toBe(201);
    expect(fork.body.readme_url).toBe(`${EXTERNAL_URL}/${fork.body.path_with_namespace}/-/blob/main/readme.rst`);
  });
});

describe('a git push after an API commit', () => {
  it('is recorded as a push to the branch, from the commit the API made', async () => {
    const p = await createProject(t, owner.token);
    const api = await commit(p.id, 'main', [{ action: 'create', file_path: 'a.txt', content: 'a' }], 'Through the API');
    expect(api.status).toBe(201);
    const dir = git.folder();
    await git.ok(dir, ['clone', '--quiet', cloneUrl(t.url, p.path_with_namespace, owner.token), '.']);
    writeFileSync(join(dir, 'b.txt'), 'b\n');
    await git.ok(dir, ['add', 'b.txt']);
    await git.ok(dir, ['commit', '--quiet', '-m', 'Over git']);
    await git.ok(dir, ['push', '--quiet', 'origin', 'main']);
    const pushed = (await git.ok(dir, ['rev-parse', 'HEAD'])).trim();
    const events = await t.api('GET', `/projects/${p.id}/events?action=pushed`, { token: owner.token });
    expect(events.body.map((e: { action_name: string; push_data: object }) => [e.action_name, e.push_data])).toEqual([
      ['pushed to', expect.objectContaining({ action: 'pushed', ref: 'main', commit_from: api.body.id, commit_to: pushed, commit_count: 1, commit_title: 'Over git' })],
      ['pushed new', expect.objectContaining({ action: 'created', ref: 'main', commit_from: null, commit_to: api.body.id, commit_title: 'Through the API' })],
    ]);
  });
});

describe('GET /projects/:id/storage', () => {
  it("shows administrators where the repository lives (GitLab's ProjectRepositoryStorage); others are refused", async () => {
    const p = await createProject(t, owner.token);
    const hash = createHash('sha256').update(String(p.id)).digest('hex');
    const res = await t.api('GET', `/projects/${p.id}/storage`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ disk_path: `@hashed/${hash.slice(0, 2)}/${hash.slice(2, 4)}/${hash}`, project_id: p.id, repository_storage: 'default', created_at: p.created_at });
    expect(await t.api('GET', `/projects/${p.id}/storage`, { token: owner.token })).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    expect(await t.api('GET', `/projects/${p.id}/storage`, { token: null })).toMatchObject({ status: 401 });
    // GitLab's `authenticated_as_admin!` comes before the project is looked up: a private project, one that does not
    // exist and a readable one are refused alike, so the answer tells a non-administrator nothing.
    const stranger = await createUser(t);
    const hidden = await createProject(t, owner.token, { visibility: 'private' });
    for (const id of [hidden.id, p.id, 999_999]) {
      expect(await t.api('GET', `/projects/${id}/storage`, { token: stranger.token })).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    }
    expect(await t.api('GET', '/projects/999999/storage')).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
  });
});
