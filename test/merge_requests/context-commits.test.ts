/**
 * Merge request context commits (`GET/POST/DELETE /projects/:id/merge_requests/:merge_request_iid/context_commits`,
 * MergeRequests::AddContextService): commits added in the order given, kept with their metadata, listed paginated as
 * GitLab's CommitWithLink, refused when too many, already added or unknown, writes behind update_merge_request and
 * destroy_merge_request, and the same records through GraphQL and gitbeaker's MergeRequestContextCommits.
 */
import { Gitlab } from '@gitbeaker/rest';
import { beforeAll, describe, expect, it } from 'vitest';
import { suiteServer } from '../support/server.js';
import { addMember, apiOk, createProject, createUser, type TestUser } from '../support/factories.js';

const t = suiteServer();
let owner: TestUser;
let developer: TestUser;
let reporter: TestUser;
let stranger: TestUser;
let project: { id: number; path_with_namespace: string };
/** Commits on `old` (merged before the merge request was opened), oldest first. */
const history: string[] = [];
let iid: number;

const ok = (method: string, path: string, body?: object, token = owner.token) => apiOk(t, token, method, path, body);
const commitsPath = () => `/projects/${project.id}/merge_requests/${iid}/context_commits`;

beforeAll(async () => {
  [owner, developer, reporter, stranger] = await Promise.all([createUser(t), createUser(t), createUser(t), createUser(t)]);
  project = await createProject(t, owner.token, { visibility: 'private' });
  await addMember(t, owner.token, 'projects', project.id, developer.id, 30);
  await addMember(t, owner.token, 'projects', project.id, reporter.id, 20);
  await ok('POST', `/projects/${project.id}/repository/commits`, { branch: 'main', commit_message: 'init', actions: [{ action: 'create', file_path: 'a.txt', content: 'a\n' }] });
  for (const [i, message] of ['Earlier work\n\nWith a body.\n\nSigned-off-by: A <a@example.com>', 'More earlier work'].entries()) {
    const c = await ok('POST', `/projects/${project.id}/repository/commits`, {
      branch: 'old',
      ...(i === 0 ? { start_branch: 'main' } : {}),
      commit_message: message,
      author_name: 'Ada',
      author_email: `${owner.username}@example.com`,
      actions: [{ action: 'create', file_path: `old${i}.txt`, content: 'o\n' }],
    });
    history.push(c.id);
  }
  await ok('POST', `/projects/${project.id}/repository/commits`, { branch: 'feature', start_branch: 'main', commit_message: 'feature', actions: [{ action: 'create', file_path: 'f.txt', content: 'f\n' }] });
  iid = (await ok('POST', `/projects/${project.id}/merge_requests`, { source_branch: 'feature', target_branch: 'main', title: 'Feature' })).iid;
});

describe('merge request context commits', () => {
  it('adds commits in the order given, answers them as commits, and lists them as GitLab does', async () => {
    const added = await t.api('POST', commitsPath(), { token: developer.token, body: { commits: [history[1], history[0].slice(0, 10)] } });
    expect(added.status, added.text).toBe(201);
    expect(added.body.map((c: { id: string }) => c.id)).toEqual([history[1], history[0]]);
    expect(Object.keys(added.body[1])).toEqual([
      'id', 'short_id', 'created_at', 'parent_ids', 'title', 'message', 'author_name', 'author_email', 'authored_date',
      'committer_name', 'committer_email', 'committed_date', 'trailers', 'extended_trailers', 'web_url',
    ]);
    expect(added.body[1]).toMatchObject({ title: 'Earlier work', author_name: 'Ada', parent_ids: null, trailers: { 'Signed-off-by': 'A <a@example.com>' } });

    const listed = await t.api('GET', commitsPath(), { token: reporter.token });
    expect(listed.status, listed.text).toBe(200);
    expect(listed.headers.get('x-total')).toBe('2');
    expect(listed.body.map((c: { id: string }) => c.id)).toEqual([history[1], history[0]]);
    const first = listed.body[1];
    expect(first).toMatchObject({
      id: history[0],
      short_id: history[0].slice(0, 11),
      title: 'Earlier work',
      message: 'Earlier work\n\nWith a body.\n\nSigned-off-by: A <a@example.com>',
      author_name: 'Ada',
      author_email: `${owner.username}@example.com`,
      parent_ids: null,
      author: { id: owner.id, username: owner.username, path: `/${owner.username}` },
      author_gravatar_url: null,
      commit_path: `/${project.path_with_namespace}/-/commit/${history[0]}`,
      title_html: 'Earlier work',
    });
    expect(first.commit_url).toBe(first.web_url);
    expect(first.web_url).toMatch(new RegExp(`/${project.path_with_namespace}/-/commit/${history[0]}$`));
    expect(first.authored_date).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(first.description_html).toContain('With a body.');

    const page = await t.api('GET', `${commitsPath()}?per_page=1&page=2`, { token: owner.token });
    expect(page.body.map((c: { id: string }) => c.id)).toEqual([history[0]]);
    expect(page.headers.get('x-total-pages')).toBe('2');
  });

  it('refuses shas already added (by prefix), unknown ones, too many, and none', async () => {
    const again = await t.api('POST', commitsPath(), { token: owner.token, body: { commits: [history[0].slice(0, 12)] } });
    expect(again.status).toBe(400);
    expect(again.body).toEqual({ message: `Context commits: ["${history[0]}"] are already created` });

    for (const commits of [['0123456789abcdef0123456789abcdef01234567'], ['main'], ['--all']]) {
      const res = await t.api('POST', commitsPath(), { token: owner.token, body: { commits } });
      expect(res.status, JSON.stringify(commits)).toBe(400);
      expect(res.body).toEqual({ message: "One or more context commits' sha is not valid." });
    }
    const tooMany = await t.api('POST', commitsPath(), { token: owner.token, body: { commits: Array.from({ length: 21 }, (_, i) => `${i}`.padStart(7, 'a')) } });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body).toEqual({ message: 'Context commits array size should not be more than 20' });
    expect((await t.api('POST', commitsPath(), { token: owner.token, body: {} })).body).toEqual({ error: 'commits is missing' });
    expect((await t.api('POST', commitsPath(), { token: owner.token, body: { commits: [] } })).body).toEqual({ error: 'commits is empty' });
    expect((await ok('GET', commitsPath())).length).toBe(2);
  });

  it('lets only those who may update the merge request add, and only owners remove', async () => {
    const reporterAdd = await t.api('POST', commitsPath(), { token: reporter.token, body: { commits: [history[0]] } });
    expect(reporterAdd.status).toBe(403);
    expect(reporterAdd.body).toEqual({ message: 'You are not allowed to access the requested resource' });
    for (const token of [stranger.token, null]) {
      expect((await t.api('GET', commitsPath(), { token })).status).toBe(404);
      expect((await t.api('POST', commitsPath(), { token, body: { commits: [history[0]] } })).status).toBe(token ? 404 : 401);
    }
    expect((await t.api('DELETE', commitsPath(), { token: developer.token, body: { commits: [history[0]] } })).status).toBe(403);
    const unknown = await t.api('DELETE', commitsPath(), { token: owner.token, body: { commits: ['0123456789abcdef0123456789abcdef01234567'] } });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toEqual({ message: "One or more context commits' sha is not valid." });
    const removed = await t.api('DELETE', commitsPath(), { token: owner.token, body: { commits: [history[1]] } });
    expect(removed.status, removed.text).toBe(204);
    expect((await ok('GET', commitsPath())).map((c: { id: string }) => c.id)).toEqual([history[0]]);
  });

  it('adds the same commit once when two requests race', async () => {
    const mr = await ok('POST', `/projects/${project.id}/merge_requests`, { source_branch: 'feature', target_branch: 'old', title: 'Race' });
    const path = `/projects/${project.id}/merge_requests/${mr.iid}/context_commits`;
    const answers = await Promise.all([1, 2, 3].map(() => t.api('POST', path, { token: owner.token, body: { commits: [history[0]] } })));
    expect(answers.map((a) => a.status).sort()).toEqual([201, 400, 400]);
    expect((await ok('GET', path)).length).toBe(1);
  });

  it('reads and writes the same records through GraphQL and gitbeaker', async () => {
    await ok('POST', `/projects/${project.id}/repository/commits`, { branch: 'second', start_branch: 'main', commit_message: 'second', actions: [{ action: 'create', file_path: 's.txt', content: 's\n' }] });
    const mr = await ok('POST', `/projects/${project.id}/merge_requests`, { source_branch: 'second', target_branch: 'main', title: 'Second' });
    const api = new Gitlab({ host: t.url, token: owner.token });
    const created = await api.MergeRequestContextCommits.create(project.id, [history[1]], { mergerequestIId: mr.iid });
    expect((created as unknown as { id: string }[]).map((c) => c.id)).toEqual([history[1]]);
    expect((await api.MergeRequestContextCommits.all(project.id, mr.iid)).map((c) => c.id)).toEqual([history[1]]);

    const vars = { p: project.path_with_namespace, iid: String(mr.iid), c: [history[1]] };
    const add = `mutation($p: ID!, $iid: String!, $c: [String!]!) {
      mergeRequestAddContextCommits(input: { projectPath: $p, iid: $iid, commits: $c }) { errors commits { sha } }
    }`;
    expect((await t.graphql(add, vars, owner.token)).body.data.mergeRequestAddContextCommits).toEqual({ errors: [`Context commits: ["${history[1]}"] are already created`], commits: null });
    expect((await t.graphql(add, { ...vars, c: [history[0]] }, owner.token)).body.data.mergeRequestAddContextCommits).toEqual({ errors: [], commits: [{ sha: history[0] }] });

    // gitbeaker's types have no `commits` for removal, though GitLab requires it; it sends what it is given.
    const removal = { commits: [history[1]] } as unknown as Parameters<typeof api.MergeRequestContextCommits.remove>[2];
    await api.MergeRequestContextCommits.remove(project.id, mr.iid, removal);
    const read = 'query($p: ID!, $iid: String!) { project(fullPath: $p) { mergeRequest(iid: $iid) { contextCommits { count nodes { sha parentIds title } } } } }';
    const after = await t.graphql(read, { p: vars.p, iid: vars.iid }, reporter.token);
    expect(after.body.data.project.mergeRequest.contextCommits).toEqual({ count: 1, nodes: [{ sha: history[0], parentIds: null, title: 'Earlier work' }] });
  });
});
