import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Gitlab } from '@gitbeaker/rest';
import { suiteServer } from '../support/server.js';
import { addMember, createGroup, createProject, createUser, type TestUser } from '../support/factories.js';
import { eventually } from '../support/wait.js';
import { startReceiver, type Receiver } from './receiver.js';

// Group hooks refuse local addresses by default, as project hooks; these tests' receiver is on 127.0.0.1.
const t = suiteServer({ allowLocalRequestsFromWebHooks: true, webhookRetryBaseMs: 0, webhookMaxAttempts: 1 });
let receiver: Receiver;
let owner: TestUser;
let maintainer: TestUser;
let stranger: TestUser;
let group: any;
let subgroup: any;
let project: any;

beforeAll(async () => {
  receiver = await startReceiver();
  [owner, maintainer, stranger] = await Promise.all([createUser(t), createUser(t), createUser(t)]);
  group = await createGroup(t, owner.token);
  subgroup = await createGroup(t, owner.token, { parentId: group.id });
  project = await createProject(t, owner.token, { namespaceId: subgroup.id });
  await addMember(t, owner.token, 'groups', group.id, maintainer.id, 40);
});
afterAll(() => receiver?.close());

const hooks = () => `/groups/${group.id}/hooks`;

async function commit(p: any, branch: string, file: string) {
  const res = await t.api('POST', `/projects/${p.id}/repository/commits`, {
    token: owner.token,
    body: { branch, commit_message: `Add ${file}`, actions: [{ action: 'create', file_path: file, content: 'x' }] },
  });
  if (res.status !== 201) throw new Error(`commit: ${res.status} ${res.text}`);
  return res.body;
}

describe('group hooks: the API', () => {
  it("creates, lists, reads, changes and deletes a hook as GitLab's GroupHook", async () => {
    const created = await t.api('POST', hooks(), { token: owner.token, body: { url: `${receiver.url}/g`, token: 'tok', member_events: true, name: 'n' } });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: created.body.id,
      url: `${receiver.url}/g`,
      name: 'n',
      description: null,
      created_at: created.body.created_at,
      group_id: group.id,
      push_events: true,
      tag_push_events: false,
      merge_requests_events: false,
      repository_update_events: false,
      enable_ssl_verification: true,
      alert_status: 'executable',
      disabled_until: null,
      url_variables: [],
      custom_headers: [],
      push_events_branch_filter: null,
      branch_filter_strategy: 'wildcard',
      issues_events: false,
      confidential_issues_events: false,
      note_events: false,
      confidential_note_events: false,
      pipeline_events: false,
      wiki_page_events: false,
      job_events: false,
      deployment_events: false,
      releases_events: false,
      subgroup_events: false,
      member_events: true,
      project_events: false,
    });
    const id = created.body.id;
    expect((await t.api('GET', hooks(), { token: owner.token })).body).toEqual([created.body]);
    expect((await t.api('GET', `${hooks()}/${id}`, { token: owner.token })).body).toEqual(created.body);
    const changed = await t.api('PUT', `${hooks()}/${id}`, { token: owner.token, body: { note_events: true, subgroup_events: true, push_events: false } });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ note_events: true, subgroup_events: true, push_events: false, url: `${receiver.url}/g` });
    expect((await t.api('DELETE', `${hooks()}/${id}`, { token: owner.token })).status).toBe(204);
    expect(await t.api('GET', `${hooks()}/${id}`, { token: owner.token })).toMatchObject({ status: 404, body: { message: '404 Hook Not Found' } });
  });

  it('is for Owners: Maintainers get 403, strangers 404 on a private group, and a hook of another group is not found', async () => {
    const mine = (await t.api('POST', hooks(), { token: owner.token, body: { url: `${receiver.url}/g` } })).body;
    expect(await t.api('GET', hooks(), { token: maintainer.token })).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    expect((await t.api('POST', hooks(), { token: maintainer.token, body: { url: 'http://example.com' } })).status).toBe(403);
    expect((await t.api('PUT', `${hooks()}/${mine.id}`, { token: maintainer.token, body: { push_events: false } })).status).toBe(403);
    expect((await t.api('DELETE', `${hooks()}/${mine.id}`, { token: maintainer.token })).status).toBe(403);
    expect(await t.api('GET', hooks(), { token: stranger.token })).toMatchObject({ status: 404, body: { message: '404 Group Not Found' } });
    expect((await t.api('GET', `${hooks()}/${mine.id}`, { token: stranger.token })).status).toBe(404);
    expect((await t.api('DELETE', `${hooks()}/${mine.id}`, { token: stranger.token })).status).toBe(404);
    const other = await createGroup(t, stranger.token);
    expect((await t.api('GET', `/groups/${other.id}/hooks/${mine.id}`, { token: stranger.token })).status).toBe(404);
    expect((await t.api('PUT', `/groups/${other.id}/hooks/${mine.id}`, { token: stranger.token, body: { push_events: false } })).status).toBe(404);
    // A group hook is neither a project hook nor a system hook.
    expect((await t.api('GET', `/projects/${project.id}/hooks/${mine.id}`, { token: owner.token })).status).toBe(404);
    expect((await t.api('GET', `/hooks/${mine.id}`)).status).toBe(404);
    expect((await t.api('GET', hooks())).status).toBe(200);
    await t.api('DELETE', `${hooks()}/${mine.id}`, { token: owner.token });
  });

  it("refuses bad URLs in GitLab's words", async () => {
    expect(await t.api('POST', hooks(), { token: owner.token, body: {} })).toMatchObject({ status: 400, body: { error: 'url is missing' } });
    const blocked = await t.api('POST', hooks(), { token: owner.token, body: { url: 'http://169.254.169.254/latest' } });
    expect([blocked.status, blocked.body]).toEqual([400, { message: { url: ['is blocked: Requests to the cloud metadata service are not allowed'] } }]);
  });

  it('works through @gitbeaker/rest GroupHooks', async () => {
    const api = new Gitlab({ host: t.url, token: owner.token });
    const hook = await api.GroupHooks.add(group.id, `${receiver.url}/beaker`, { tagPushEvents: true });
    expect(hook.tag_push_events).toBe(true);
    expect((await api.GroupHooks.all(group.id)).map((h) => h.id)).toContain(hook.id);
    const edited = await api.GroupHooks.edit(group.id, hook.id, `${receiver.url}/beaker2`);
    expect(edited.url).toBe(`${receiver.url}/beaker2`);
    expect((await api.GroupHooks.show(group.id, hook.id)).url).toBe(`${receiver.url}/beaker2`);
    await api.GroupHooks.remove(group.id, hook.id);
    expect(await api.GroupHooks.all(group.id)).toEqual([]);
  });

  it('is reachable through GraphQL with global IDs', async () => {
    const hook = (await t.api('POST', hooks(), { token: owner.token, body: { url: `${receiver.url}/gql` } })).body;
    const res = await t.graphql(`query($g: ID!) { group(fullPath: $g) { hooks { count nodes { id groupId url } } } }`, { g: group.full_path }, owner.token);
    expect(res.body.data.group.hooks).toEqual({ count: 1, nodes: [{ id: `gid://gitlab/GroupHook/${hook.id}`, groupId: group.id, url: `${receiver.url}/gql` }] });
    const denied = await t.graphql(`mutation($id: GroupHookID!) { groupHookDelete(input: { id: $id }) { errors } }`, { id: `gid://gitlab/GroupHook/${hook.id}` }, stranger.token);
    expect(denied.body.errors?.length).toBeGreaterThan(0);
    const del = await t.graphql(`mutation($id: GroupHookID!) { groupHookDelete(input: { id: $id }) { errors groupHook { id } } }`, { id: `gid://gitlab/GroupHook/${hook.id}` }, owner.token);
    expect(del.body.data.groupHookDelete).toEqual({ errors: [], groupHook: { id: `gid://gitlab/GroupHook/${hook.id}` } });
  });
});

describe('group hooks: deliveries', () => {
  it("hears the pushes of its subgroups' projects, not those of other groups", async () => {
    const elsewhere = await createProject(t, owner.token);
    const hook = (await t.api('POST', hooks(), { token: owner.token, body: { url: `${receiver.url}/push`, token: 'group-secret' } })).body;
    await commit(elsewhere, 'main', 'elsewhere.txt');
    const pushed = await commit(project, 'main', 'a.txt');
    const got = await receiver.next();
    expect(got.path).toBe('/push');
    expect(got.headers['x-gitlab-event']).toBe('Push Hook');
    expect(got.headers['x-gitlab-token']).toBe('group-secret');
    expect(got.json).toMatchObject({ object_kind: 'push', ref: 'refs/heads/main', after: pushed.id, project_id: project.id });
    const log = await eventually(async () => {
      const events = await t.api('GET', `${hooks()}/${hook.id}/events`, { token: owner.token });
      return events.body.length > 0 && events;
    });
    expect(log.body).toHaveLength(1);
    expect(log.body[0]).toMatchObject({ trigger: 'push_hooks', response_status: '200', request_data: got.json });
    expect((await t.api('GET', `${hooks()}/${hook.id}/events`, { token: maintainer.token })).status).toBe(403);
    const resent = await t.api('POST', `${hooks()}/${hook.id}/events/${log.body[0].id}/resend`, { token: owner.token });
    expect(resent).toMatchObject({ status: 201, body: { response_status: 200 } });
    expect((await receiver.next()).json).toEqual(got.json);
    await t.api('DELETE', `${hooks()}/${hook.id}`, { token: owner.token });
  });

  it('hears pipeline events of its projects when it asks for them (the writer-side check sees group hooks)', async () => {
    const hook = (await t.api('POST', hooks(), { token: owner.token, body: { url: `${receiver.url}/ci`, push_events: false, pipeline_events: true } })).body;
    await t.api('POST', `/projects/${project.id}/repository/files/.gitlab-ci.yml`, {
      token: owner.token,
      body: { branch: 'main', content: 'build:\n  script: echo hi\n', commit_message: 'ci' },
    });
    const got = await receiver.next();
    expect(got.path).toBe('/ci');
    expect(got.headers['x-gitlab-event']).toBe('Pipeline Hook');
    expect(got.json).toMatchObject({ object_kind: 'pipeline', project: { id: project.id } });
    await t.api('DELETE', `${hooks()}/${hook.id}`, { token: owner.token });
  });

  it("POST …/test/:trigger samples the group's first project with commits; 422 without one", async () => {
    const empty = await createGroup(t, owner.token);
    const lonely = (await t.api('POST', `/groups/${empty.id}/hooks`, { token: owner.token, body: { url: `${receiver.url}/t`, push_events: false } })).body;
    expect(await t.api('POST', `/groups/${empty.id}/hooks/${lonely.id}/test/push_events`, { token: owner.token })).toMatchObject({
      status: 422,
      body: { message: 'Ensure the group has a project with commits.' },
    });
    const direct = await createProject(t, owner.token, { namespaceId: empty.id });
    await commit(direct, 'main', 'x.txt');
    const res = await t.api('POST', `/groups/${empty.id}/hooks/${lonely.id}/test/push_events`, { token: owner.token });
    expect(res).toMatchObject({ status: 201, body: { message: '201 Created' } });
    const got = await receiver.next();
    expect(got.path).toBe('/t');
    expect(got.json).toMatchObject({ object_kind: 'push', project_id: direct.id });
    expect((await t.api('POST', `/groups/${empty.id}/hooks/${lonely.id}/test/push_events`, { token: stranger.token })).status).toBe(404);
    await t.api('DELETE', `/groups/${empty.id}/hooks/${lonely.id}`, { token: owner.token });
  });
});

describe('URL variables and custom headers', () => {
  it("validates that the URL's {keys} have variables, in GitLab's words", async () => {
    const missingKey = await t.api('POST', hooks(), { token: owner.token, body: { url: `${receiver.url}/{path}/{b}` } });
    expect([missingKey.status, missingKey.body]).toEqual([400, { message: { url: ['Invalid URL template. Missing keys: ["path", "b"]'] } }]);
    const project404 = await t.api('POST', `/projects/${project.id}/hooks`, { token: owner.token, body: { url: `${receiver.url}/{x}` } });
    expect([project404.status, project404.body]).toEqual([400, { message: { url: ['Invalid URL template. Missing keys: ["x"]'] } }]);
  });

  it('are set and unset by key, never shown back, and used by deliveries', async () => {
    const created = await t.api('POST', hooks(), { token: owner.token, body: { url: `${receiver.url}/{path}`, url_variables: [{ key: 'path', value: 'secret-path' }] } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ url: `${receiver.url}/{path}`, url_variables: [{ key: 'path' }], custom_headers: [] });
    const id = created.body.id;
    const base = `${hooks()}/${id}`;
    expect(await t.api('PUT', `${base}/custom_headers/X-Custom`, { token: owner.token, body: { value: 'header-secret' } })).toMatchObject({ status: 204 });
    expect(await t.api('PUT', `${base}/url_variables/extra`, { token: owner.token, body: { value: 'extra-secret' } })).toMatchObject({ status: 204 });
    const shown = await t.api('GET', base, { token: owner.token });
    expect(shown.body).toMatchObject({ url_variables: [{ key: 'path' }, { key: 'extra' }], custom_headers: [{ key: 'X-Custom' }] });
    expect(shown.text).not.toContain('secret');
    // GitLab's refusals.
    expect(await t.api('PUT', `${base}/url_variables/path`, { token: owner.token, body: {} })).toMatchObject({ status: 400, body: { error: 'value is missing' } });
    expect(await t.api('PUT', `${base}/url_variables/-bad-`, { token: owner.token, body: { value: 'v' } })).toMatchObject({ status: 422, body: { message: 'Illegal key or value' } });
    expect(await t.api('PUT', `${base}/custom_headers/-bad-`, { token: owner.token, body: { value: 'v' } })).toMatchObject({ status: 422, body: { message: 'Illegal key or value' } });
    expect(await t.api('DELETE', `${base}/url_variables/path`, { token: owner.token })).toMatchObject({ status: 422, body: { message: 'Could not unset variable' } });
    expect(await t.api('DELETE', `${base}/url_variables/nope`, { token: owner.token })).toMatchObject({ status: 404, body: { message: '404 URL variable Not Found' } });
    expect(await t.api('DELETE', `${base}/custom_headers/nope`, { token: owner.token })).toMatchObject({ status: 404, body: { message: '404 Custom header Not Found' } });
    expect(await t.api('DELETE', `${base}/url_variables/extra`, { token: owner.token })).toMatchObject({ status: 204 });
    // Other users: 404 where the group is hidden, 403 for a Maintainer.
    expect((await t.api('PUT', `${base}/url_variables/path`, { token: stranger.token, body: { value: 'x' } })).status).toBe(404);
    expect((await t.api('PUT', `${base}/custom_headers/X-Custom`, { token: maintainer.token, body: { value: 'x' } })).status).toBe(403);
    // A delivery goes to the interpolated URL with the header; its log shows neither value.
    await commit(project, 'main', 'vars.txt');
    const got = await receiver.next();
    expect(got.path).toBe('/secret-path');
    expect(got.headers['x-custom']).toBe('header-secret');
    expect(got.headers['x-gitlab-event']).toBe('Push Hook');
    const log = await eventually(async () => {
      const events = await t.api('GET', `${base}/events`, { token: owner.token });
      return events.body.length > 0 && events;
    });
    expect(log.body[0]).toMatchObject({ url: `${receiver.url}/{path}`, request_headers: { 'X-Custom': '[REDACTED]' } });
    expect(log.text).not.toContain('secret-path');
    expect(log.text).not.toContain('header-secret');
    expect(await t.api('DELETE', `${base}/custom_headers/X-Custom`, { token: owner.token })).toMatchObject({ status: 204 });
    expect((await t.api('GET', base, { token: owner.token })).body.custom_headers).toEqual([]);
    await t.api('DELETE', base, { token: owner.token });
  });

  it('work on project hooks and, for administrators, on system hooks', async () => {
    const ph = (await t.api('POST', `/projects/${project.id}/hooks`, { token: owner.token, body: { url: 'https://example.com/p', push_events: false } })).body;
    expect((await t.api('PUT', `/projects/${project.id}/hooks/${ph.id}/url_variables/k`, { token: owner.token, body: { value: 'v' } })).status).toBe(204);
    expect((await t.api('PUT', `/projects/${project.id}/hooks/${ph.id}/custom_headers/h`, { token: owner.token, body: { value: 'v' } })).status).toBe(204);
    expect((await t.api('GET', `/projects/${project.id}/hooks/${ph.id}`, { token: owner.token })).body).toMatchObject({ url_variables: [{ key: 'k' }], custom_headers: [{ key: 'h' }] });
    expect((await t.api('PUT', `/projects/${project.id}/hooks/${ph.id}/url_variables/k`, { token: stranger.token, body: { value: 'v' } })).status).toBe(404);
    expect((await t.api('PUT', `/projects/${project.id}/hooks/999999/url_variables/k`, { token: owner.token, body: { value: 'v' } })).status).toBe(404);
    const sh = (await t.api('POST', '/hooks', { body: { url: 'https://example.com/s/{k}', url_variables: [{ key: 'k', value: 'v' }] } })).body;
    expect(sh).toMatchObject({ url_variables: [{ key: 'k' }], custom_headers: [] });
    expect((await t.api('PUT', `/hooks/${sh.id}/custom_headers/h`, { body: { value: 'v' } })).status).toBe(204);
    expect((await t.api('PUT', `/hooks/${sh.id}/custom_headers/h`, { token: owner.token, body: { value: 'v' } })).status).toBe(403);
    expect((await t.api('GET', `/hooks/${sh.id}`)).body.custom_headers).toEqual([{ key: 'h' }]);
    expect(await t.api('DELETE', `/hooks/${sh.id}/url_variables/k`)).toMatchObject({ status: 422, body: { message: 'Could not unset variable' } });
    await t.api('DELETE', `/hooks/${sh.id}`);
    await t.api('DELETE', `/projects/${project.id}/hooks/${ph.id}`, { token: owner.token });
  });
});
