/** Forks (a copy of the repository, the fork relation, forks lists) and stars (star, unstar, starrers, starred lists). */
import { Gitlab } from '@gitbeaker/rest';
import { beforeAll, describe, expect, it } from 'vitest';
import { addMember, createGroup, createProject, createUser, unique, type TestUser } from '../support/factories.js';
import { suiteServer } from '../support/server.js';

const t = suiteServer();
let owner: TestUser;
let forker: TestUser;
let stranger: TestUser;

beforeAll(async () => {
  [owner, forker, stranger] = await Promise.all([createUser(t), createUser(t), createUser(t)]);
});

async function commitFile(projectId: number, branch: string, file: string, content: string, start?: string) {
  const res = await t.api('POST', `/projects/${projectId}/repository/commits`, {
    token: owner.token,
    body: { branch, start_branch: start, commit_message: `add ${file}`, actions: [{ action: 'create', file_path: file, content }] },
  });
  expect(res.status, res.text).toBe(201);
}

async function fileAt(projectId: number, path: string, ref: string, token: string) {
  const res = await t.api('GET', `/projects/${projectId}/repository/files/${encodeURIComponent(path)}/raw?ref=${ref}`, { token });
  return res.status === 200 ? res.text : res.status;
}

describe('forks', () => {
  it("takes the deprecated namespace parameter, by path or by ID, as python-gitlab's forks.create sends it", async () => {
    const source = await createProject(t, owner.token, { visibility: 'public' });
    await commitFile(source.id, 'main', 'README.md', 'x\n');
    const group = await createGroup(t, forker.token);
    const byPath = await t.api('POST', `/projects/${source.id}/fork`, { token: forker.token, body: { namespace: forker.username } });
    expect(byPath.status, byPath.text).toBe(201);
    expect(byPath.body.namespace).toMatchObject({ path: forker.username, kind: 'user' });
    const byId = await t.api('POST', `/projects/${source.id}/fork`, { token: forker.token, body: { namespace: String(group.id) } });
    expect(byId.status, byId.text).toBe(201);
    expect(byId.body.namespace).toMatchObject({ id: group.id, kind: 'group' });
  });

  it('forks through gitbeaker into the forker namespace with a copy of every branch and tag', async () => {
    const source = await createProject(t, owner.token, { visibility: 'public' });
    await commitFile(source.id, 'main', 'README.md', 'source readme\n');
    await commitFile(source.id, 'feature', 'feature.txt', 'feature\n', 'main');
    await t.api('POST', `/projects/${source.id}/repository/tags`, { token: owner.token, body: { tag_name: 'v1', ref: 'main' } });
    await t.api('PUT', `/projects/${source.id}`, { token: owner.token, body: { description: 'the source', topics: ['one'] } });

    const api = new Gitlab({ host: t.url, token: forker.token });
    const fork = await api.Projects.fork(source.id);
    expect(fork).toMatchObject({
      name: source.name,
      path: source.path,
      path_with_namespace: `${forker.username}/${source.path}`,
      description: 'the source',
      visibility: 'public',
      empty_repo: false,
      default_branch: 'main',
      owner: { id: forker.id },
      forked_from_project: { id: source.id, path_with_namespace: source.path_with_namespace },
    });
    expect(Object.keys(fork.forked_from_project as object).sort()).toEqual(
      ['id', 'description', 'name', 'name_with_namespace', 'path', 'path_with_namespace', 'created_at', 'default_branch', 'tag_list', 'topics', 'ssh_url_to_repo', 'http_url_to_repo', 'web_url', 'readme_url', 'forks_count', 'avatar_url', 'star_count', 'last_activity_at', 'namespace'].sort(),
    );
    expect(await fileAt(fork.id as number, 'README.md', 'main', forker.token)).toBe('source readme\n');
    expect(await fileAt(fork.id as number, 'feature.txt', 'feature', forker.token)).toBe('feature\n');
    expect((await t.api('GET', `/projects/${fork.id}/repository/tags/v1`, { token: forker.token })).status).toBe(200);
    // The fork is a repository of its own: a commit there leaves the source as it was.
    const own = await t.api('POST', `/projects/${fork.id}/repository/commits`, {
      token: forker.token,
      body: { branch: 'main', commit_message: 'mine', actions: [{ action: 'create', file_path: 'mine.txt', content: 'm' }] },
    });
    expect(own.status).toBe(201);
    expect(await fileAt(source.id, 'mine.txt', 'main', owner.token)).toBe(404);

    const shown = await t.api('GET', `/projects/${source.id}`, { token: owner.token });
    expect(shown.body.forks_count).toBe(1);
    const forks = await api.Projects.allForks(source.id);
    expect(forks.map((f) => f.id)).toEqual([fork.id]);
    const gql = await t.graphql('query($p: ID!) { project(fullPath: $p) { forksCount forkedFromProject { fullPath } } }', { p: fork.path_with_namespace }, forker.token);
    expect(gql.body.data.project).toEqual({ forksCount: 0, forkedFromProject: { fullPath: source.path_with_namespace } });
  });

  it('takes a namespace, name, path, visibility and one branch; never more visible than the source', async () => {
    const source = await createProject(t, owner.token, { visibility: 'internal' });
    await commitFile(source.id, 'main', 'a.txt', 'a');
    await commitFile(source.id, 'other', 'b.txt', 'b', 'main');
    const group = await createGroup(t, forker.token, { visibility: 'public' });
    const path = unique('copy');
    const res = await t.api('POST', `/projects/${source.id}/fork`, {
      token: forker.token,
      body: { namespace_path: group.full_path, path, name: 'A Copy', description: 'mine now', visibility: 'public', branches: 'other' },
    });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ path_with_namespace: `${group.full_path}/${path}`, name: 'A Copy', description: 'mine now', visibility: 'internal', default_branch: 'other' });
    expect(await fileAt(res.body.id, 'b.txt', 'other', forker.token)).toBe('b');
    expect((await t.api('GET', `/projects/${res.body.id}/repository/branches/main`, { token: forker.token })).status).toBe(404);
    const byId = await t.api('POST', `/projects/${source.id}/fork`, { token: forker.token, body: { namespace_id: group.id, path: unique('copy2'), name: unique('Copy2'), visibility: 'private' } });
    expect(byId).toMatchObject({ status: 201, body: { visibility: 'private', namespace: { id: group.id } } });
  });

  it('refuses forks as GitLab does: 409 with the messages, 404 for a hidden source or target, 403 without the code', async () => {
    const source = await createProject(t, owner.token, { visibility: 'public' });
    await commitFile(source.id, 'main', 'a.txt', 'a');
    const first = await t.api('POST', `/projects/${source.id}/fork`, { token: forker.token });
    expect(first.status).toBe(201);
    const again = await t.api('POST', `/projects/${source.id}/fork`, { token: forker.token });
    expect(again).toMatchObject({ status: 409, body: { message: { path: ['has already been taken'], name: ['has already been taken'] } } });
    expect(await t.api('POST', `/projects/${source.id}/fork`, { token: forker.token, body: { path: unique('x'), name: unique('x'), branches: 'nope' } })).toMatchObject({
      status: 409,
      body: { message: { base: ['Branch nope does not exist'] } },
    });
    const hidden = await createGroup(t, owner.token);
    expect(await t.api('POST', `/projects/${source.id}/fork`, { token: forker.token, body: { namespace_id: hidden.id, path: unique('x') } })).toMatchObject({
      status: 404,
      body: { message: '404 Target Namespace Not Found' },
    });
    const secret = await createProject(t, owner.token);
    expect(await t.api('POST', `/projects/${secret.id}/fork`, { token: forker.token })).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
    await addMember(t, owner.token, 'projects', secret.id, stranger.id, 10);
    expect(await t.api('POST', `/projects/${secret.id}/fork`, { token: stranger.token })).toMatchObject({ status: 404, body: { message: '404 Not Found' } });
    expect(await t.api('POST', `/projects/${source.id}/fork`, { token: null })).toMatchObject({ status: 401 });
  });

  it('unlinks a fork (204, then 304) and lets administrators link one', async () => {
    const source = await createProject(t, owner.token, { visibility: 'public' });
    const fork = (await t.api('POST', `/projects/${source.id}/fork`, { token: forker.token })).body;
    const api = new Gitlab({ host: t.url, token: forker.token });
    // The public fork is readable, not theirs to change.
    expect(await t.api('DELETE', `/projects/${fork.id}/fork`, { token: stranger.token })).toMatchObject({ status: 403 });
    await api.Projects.removeForkRelationship(fork.id);
    const shown = await t.api('GET', `/projects/${fork.id}`, { token: forker.token });
    expect(shown.body).not.toHaveProperty('forked_from_project');
    const twice = await t.api('DELETE', `/projects/${fork.id}/fork`, { token: forker.token });
    expect(twice.status).toBe(304);

    expect(await t.api('POST', `/projects/${fork.id}/fork/${source.id}`, { token: forker.token })).toMatchObject({ status: 403 });
    const linked = await t.api('POST', `/projects/${fork.id}/fork/${source.id}`);
    expect(linked).toMatchObject({ status: 201, body: { forked_from_project: { id: source.id } } });
    expect(await t.api('POST', `/projects/${fork.id}/fork/${source.id}`)).toMatchObject({ status: 409, body: { message: 'Project already forked' } });
    expect(await t.api('POST', `/projects/${source.id}/fork/99999999`)).toMatchObject({ status: 404, body: { message: '404 Source Project Not Found' } });
  });
});

describe('stars', () => {
  it('stars and unstars through gitbeaker: 201 with the count, 304 when nothing changes', async () => {
    const p = await createProject(t, owner.token, { visibility: 'public' });
    const api = new Gitlab({ host: t.url, token: forker.token });
    const starred = await api.Projects.star(p.id);
    expect(starred).toMatchObject({ id: p.id, star_count: 1 });
    const again = await t.api('POST', `/projects/${p.id}/star`, { token: forker.token });
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
    const second = await t.api('POST', `/projects/${p.id}/star`, { token: stranger.token });
    expect(second).toMatchObject({ status: 201, body: { star_count: 2 } });

    const starrers = await t.api('GET', `/projects/${p.id}/starrers`, { token: owner.token });
    expect(starrers.headers.get('x-total')).toBe('2');
    expect(starrers.body.map((s: { user: { id: number } }) => s.user.id)).toEqual([stranger.id, forker.id]);
    expect(Object.keys(starrers.body[0]).sort()).toEqual(['starred_since', 'user']);
    expect(starrers.body[0].starred_since).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const searched = await t.api('GET', `/projects/${p.id}/starrers?search=${forker.username}`, { token: owner.token });
    expect(searched.body.map((s: { user: { id: number } }) => s.user.id)).toEqual([forker.id]);

    const mine = await t.api('GET', '/projects?starred=true', { token: forker.token });
    expect(mine.body.map((x: { id: number }) => x.id)).toEqual([p.id]);
    const theirs = await t.api('GET', `/users/${forker.id}/starred_projects`, { token: owner.token });
    expect(theirs.body.map((x: { id: number }) => x.id)).toEqual([p.id]);
    const byName = await t.api('GET', `/users/${forker.username}/starred_projects`, { token: null });
    expect(byName.body.map((x: { id: number }) => x.id)).toEqual([p.id]);

    const unstarred = await api.Projects.unstar(p.id);
    expect(unstarred.star_count).toBe(1);
    expect((await t.api('POST', `/projects/${p.id}/unstar`, { token: forker.token })).status).toBe(304);
    expect((await t.api('GET', '/projects?starred=true', { token: forker.token })).body).toEqual([]);
  });

  it('stars concurrently once, refuses anonymous and hidden projects, hides private starred projects from lists', async () => {
    const p = await createProject(t, owner.token, { visibility: 'public' });
    const results = await Promise.all([1, 2, 3, 4].map(() => t.api('POST', `/projects/${p.id}/star`, { token: forker.token })));
    expect(results.map((r) => r.status).sort()).toEqual([201, 304, 304, 304]);
    expect((await t.api('GET', `/projects/${p.id}`, { token: owner.token })).body.star_count).toBe(1);
    expect(await t.api('POST', `/projects/${p.id}/star`, { token: null })).toMatchObject({ status: 401 });
    const secret = await createProject(t, owner.token);
    expect(await t.api('POST', `/projects/${secret.id}/star`, { token: forker.token })).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
    await t.api('POST', `/projects/${secret.id}/star`, { token: owner.token });
    const seen = await t.api('GET', `/users/${owner.id}/starred_projects`, { token: forker.token });
    expect(seen.body.map((x: { id: number }) => x.id)).not.toContain(secret.id);
    expect(await t.api('GET', '/users/99999999/starred_projects', { token: forker.token })).toMatchObject({ status: 404, body: { message: '404 User Not Found' } });
    const gql = await t.graphql('mutation($p: ID!) { projectUnstar(input: { fullPath: $p }) { project { starCount } errors } }', { p: p.path_with_namespace }, forker.token);
    expect(gql.body.data).toEqual({ projectUnstar: { project: { starCount: 0 }, errors: [] } });
  });
});
