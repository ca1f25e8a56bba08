import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Gitlab } from '@gitbeaker/rest';
import { createContext } from '../../src/context.js';
import { suiteServer } from '../support/server.js';
import { addMember, createProject, createUser, type TestUser } from '../support/factories.js';
import { eventually } from '../support/wait.js';
import { startReceiver, type Receiver } from './receiver.js';

// Project hooks refuse local addresses by default; these tests' receiver is on 127.0.0.1.
const t = suiteServer({ allowLocalRequestsFromWebHooks: true, webhookRetryBaseMs: 0, webhookMaxAttempts: 1 });
let receiver: Receiver;
let owner: TestUser;
let developer: TestUser;
let stranger: TestUser;
let project: any;

const ZERO = '0000000000000000000000000000000000000000';

beforeAll(async () => {
  receiver = await startReceiver();
  [owner, developer, stranger] = await Promise.all([createUser(t), createUser(t), createUser(t)]);
  project = await createProject(t, owner.token);
  await addMember(t, owner.token, 'projects', project.id, developer.id, 30);
});
afterAll(() => receiver?.close());

const hooks = () => `/projects/${project.id}/hooks`;

async function commit(branch: string, file: string, startBranch?: string) {
  const res = await t.api('POST', `/projects/${project.id}/repository/commits`, {
    token: owner.token,
    body: { branch, start_branch: startBranch, commit_message: `Add ${file}\n\nBody text`, actions: [{ action: 'create', file_path: file, content: 'x' }] },
  });
  if (res.status !== 201) throw new Error(`commit: ${res.status} ${res.text}`);
  return res.body;
}

describe('project hooks: the API', () => {
  it("creates, lists, reads, changes and deletes a hook as GitLab's ProjectHook", async () => {
    const created = await t.api('POST', hooks(), { token: owner.token, body: { url: `${receiver.url}/p`, token: 'tok', pipeline_events: true } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      url: `${receiver.url}/p`,
      project_id: project.id,
      push_events: true,
      tag_push_events: false,
      pipeline_events: true,
      job_events: false,
      issues_events: false,
      enable_ssl_verification: true,
      alert_status: 'executable',
      branch_filter_strategy: 'wildcard',
    });
    expect(created.body).not.toHaveProperty('token');
    const id = created.body.id;
    const list = await t.api('GET', hooks(), { token: owner.token });
    expect(list.body.map((h: any) => h.id)).toEqual([id]);
    expect((await t.api('GET', `${hooks()}/${id}`, { token: owner.token })).body).toEqual(created.body);
    const changed = await t.api('PUT', `${hooks()}/${id}`, { token: owner.token, body: { job_events: true, push_events: false } });
    expect(changed.body).toMatchObject({ job_events: true, push_events: false, url: `${receiver.url}/p` });
    expect((await t.api('DELETE', `${hooks()}/${id}`, { token: owner.token })).status).toBe(204);
    expect((await t.api('GET', `${hooks()}/${id}`, { token: owner.token })).status).toBe(404);
  });

  it('is for Maintainers: Developers get 403, non-members 404, and a hook of another project is not found', async () => {
    const mine = (await t.api('POST', hooks(), { token: owner.token, body: { url: `${receiver.url}/p` } })).body;
    expect(await t.api('GET', hooks(), { token: developer.token })).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    expect((await t.api('POST', hooks(), { token: developer.token, body: { url: 'http://example.com' } })).status).toBe(403);
    expect((await t.api('DELETE', `${hooks()}/${mine.id}`, { token: developer.token })).status).toBe(403);
    expect(await t.api('GET', hooks(), { token: stranger.token })).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
    expect((await t.api('GET', `${hooks()}/${mine.id}`, { token: stranger.token })).status).toBe(404);
    const other = await createProject(t, stranger.token);
    expect((await t.api('GET', `/projects/${other.id}/hooks/${mine.id}`, { token: stranger.token })).status).toBe(404);
    expect((await t.api('DELETE', `/projects/${other.id}/hooks/${mine.id}`, { token: stranger.token })).status).toBe(404);
    // A project hook is no system hook, and the reverse.
    expect((await t.api('GET', `/hooks/${mine.id}`)).status).toBe(404);
    await t.api('DELETE', `${hooks()}/${mine.id}`, { token: owner.token });
  });

  it('works through @gitbeaker/rest ProjectHooks', async () => {
    const api = new Gitlab({ host: t.url, token: owner.token });
    const hook = await api.ProjectHooks.add(project.id, `${receiver.url}/beaker`, { tagPushEvents: true });
    expect(hook.tag_push_events).toBe(true);
    expect((await api.ProjectHooks.all(project.id)).map((h) => h.id)).toContain(hook.id);
    const edited = await api.ProjectHooks.edit(project.id, hook.id, `${receiver.url}/beaker2`);
    expect(edited.url).toBe(`${receiver.url}/beaker2`);
    expect((await api.ProjectHooks.show(project.id, hook.id)).url).toBe(`${receiver.url}/beaker2`);
    await api.ProjectHooks.remove(project.id, hook.id);
    expect(await api.ProjectHooks.all(project.id)).toEqual([]);
  });

  it('is readable through GraphQL with global IDs', async () => {
    const hook = (await t.api('POST', hooks(), { token: owner.token, body: { url: `${receiver.url}/gql` } })).body;
    const res = await t.graphql(`query($p: ID!) { project(fullPath: $p) { hooks { count nodes { id url alertStatus branchFilterStrategy } } } }`, { p: project.path_with_namespace }, owner.token);
    expect(res.body.data.project.hooks.nodes).toContainEqual({ id: `gid://gitlab/ProjectHook/${hook.id}`, url: `${receiver.url}/gql`, alertStatus: 'EXECUTABLE', branchFilterStrategy: 'WILDCARD' });
    const del = await t.graphql(`mutation($id: ProjectHookID!) { projectHookDelete(input: { id: $id }) { errors projectHook { id } } }`, { id: `gid://gitlab/ProjectHook/${hook.id}` }, owner.token);
    expect(del.body.data.projectHookDelete).toEqual({ errors: [], projectHook: { id: `gid://gitlab/ProjectHook/${hook.id}` } });
    const denied = await t.graphql(`mutation($id: ProjectHookID!) { projectHookDelete(input: { id: $id }) { errors } }`, { id: `gid://gitlab/ProjectHook/${hook.id}` }, stranger.token);
    expect(denied.body.errors?.length).toBeGreaterThan(0);
  });
});

describe('project hooks: push events', () => {
  it('delivers a Push Hook with GitLab push data when a commit lands, filtered by branch', async () => {
    const hook = (await t.api('POST', hooks(), { token: owner.token, body: { url: `${receiver.url}/push`, token: 'push-secret', push_events_branch_filter: 'ma*' } })).body;
    const first = await commit('main', 'a.txt');
    const got = await receiver.next();
    expect(got.headers['x-gitlab-event']).toBe('Push Hook');
    expect(got.headers['x-gitlab-token']).toBe('push-secret');
    expect(got.json).toMatchObject({
      object_kind: 'push',
      event_name: 'push',
      before: ZERO,
      after: first.id,
      ref: 'refs/heads/main',
      checkout_sha: first.id,
      user_id: owner.id,
      user_username: owner.username,
      project_id: project.id,
      project: { id: project.id, path_with_namespace: project.path_with_namespace, default_branch: 'main' },
      total_commits_count: 1,
      repository: { name: project.name },
    });
    expect(got.json.commits).toEqual([
      expect.objectContaining({ id: first.id, title: 'Add a.txt', message: 'Add a.txt\n\nBody text', added: ['a.txt'], modified: [], removed: [] }),
    ]);
    // A branch outside the filter is not delivered; the next push to main is.
    await commit('feature', 'b.txt', 'main');
    const second = await commit('main', 'c.txt');
    const next = await receiver.next();
    expect(next.json).toMatchObject({ ref: 'refs/heads/main', before: first.id, after: second.id });
    await t.api('DELETE', `${hooks()}/${hook.id}`, { token: owner.token });
  });

  it('delivers Tag Push Hooks only to hooks that asked for them', async () => {
    const hook = (await t.api('POST', hooks(), { token: owner.token, body: { url: `${receiver.url}/tags`, push_events: false, tag_push_events: true } })).body;
    const tag = await t.api('POST', `/projects/${project.id}/repository/tags`, { token: owner.token, body: { tag_name: 'v1.0', ref: 'main' } });
    expect(tag.status).toBe(201);
    const got = await receiver.next();
    expect(got.headers['x-gitlab-event']).toBe('Tag Push Hook');
    expect(got.json).toMatchObject({ object_kind: 'tag_push', ref: 'refs/tags/v1.0', before: ZERO });
    await t.api('DELETE', `${hooks()}/${hook.id}`, { token: owner.token });
  });

  it('POST …/test/push_events sends the default branch as a push; the delivery log shows it', async () => {
    const hook = (await t.api('POST', hooks(), { token: owner.token, body: { url: `${receiver.url}/testing`, token: 'log-secret', push_events: false } })).body;
    receiver.answer(() => ({ status: 202, body: 'accepted', headers: { 'X-Answer': '1' } }));
    const res = await t.api('POST', `${hooks()}/${hook.id}/test/push_events`, { token: owner.token });
    expect(res).toMatchObject({ status: 201, body: { message: '201 Created' } });
    const got = await receiver.next();
    expect(got.json).toMatchObject({ object_kind: 'push', ref: 'refs/heads/main' });
    const log = await eventually(async () => {
      const events = await t.api('GET', `${hooks()}/${hook.id}/events`, { token: owner.token });
      return events.body.length > 0 && events;
    });
    expect(Object.keys(log.body[0]).sort()).toEqual(['created_at', 'execution_duration', 'id', 'request_data', 'request_headers', 'response_body', 'response_headers', 'response_status', 'trigger', 'url'].sort());
    expect(log.body[0]).toMatchObject({ trigger: 'push_hooks', url: `${receiver.url}/testing`, response_status: '202', response_body: 'accepted', request_data: got.json });
    expect(log.body[0].request_headers['X-Gitlab-Token']).toBe('[REDACTED]');
    expect(log.body[0].response_headers['x-answer']).toBe('1');
    expect(log.text).not.toContain('log-secret');
    expect((await t.api('POST', `${hooks()}/${hook.id}/test/unknown`, { token: owner.token })).status).toBe(400);
    expect((await t.api('GET', `${hooks()}/${hook.id}/events`, { token: developer.token })).status).toBe(403);
    receiver.answer(() => ({ status: 200 }));
    await t.api('DELETE', `${hooks()}/${hook.id}`, { token: owner.token });
  });
});

describe('project hooks: resending a logged event, and the log kept seven days', () => {
  it("POST …/events/:hook_log_id/resend sends the logged request again at once: GitLab's 201 with the answer's status", async () => {
    const hook = (await t.api('POST', hooks(), { token: owner.token, body: { url: `${receiver.url}/resend`, push_events: false } })).body;
    await t.api('POST', `${hooks()}/${hook.id}/test/push_events`, { token: owner.token });
    const first = await receiver.next();
    const [logged] = await eventually(async () => {
      const events = (await t.api('GET', `${hooks()}/${hook.id}/events`, { token: owner.token })).body;
      return events.length > 0 && events;
    });
    receiver.answer(() => ({ status: 418, body: 'teapot' }));
    const resent = await t.api('POST', `${hooks()}/${hook.id}/events/${logged.id}/resend`, { token: owner.token });
    expect([resent.status, resent.body]).toEqual([201, { response_status: 418 }]);
    const again = await receiver.next();
    expect(again.json).toEqual(first.json);
    expect(again.headers['x-gitlab-event-uuid']).not.toBe(first.headers['x-gitlab-event-uuid']);
    // Logged like any delivery, and retried never (a 418 is the hook's answer, not the server's failure).
    const events = (await t.api('GET', `${hooks()}/${hook.id}/events`, { token: owner.token })).body;
    expect(events.map((e: { response_status: string }) => e.response_status)).toEqual(['418', '200']);
    receiver.answer(() => ({ status: 200 }));
    // Who may not administer hooks, another hook's log, a log unknown: GitLab's answers.
    expect((await t.api('POST', `${hooks()}/${hook.id}/events/${logged.id}/resend`, { token: developer.token })).status).toBe(403);
    expect((await t.api('POST', `${hooks()}/${hook.id}/events/${logged.id}/resend`, { token: stranger.token })).status).toBe(404);
    const other = (await t.api('POST', hooks(), { token: owner.token, body: { url: `${receiver.url}/other` } })).body;
    expect(await t.api('POST', `${hooks()}/${other.id}/events/${logged.id}/resend`, { token: owner.token })).toMatchObject({ status: 404, body: { message: '404 Not found' } });
    // A hook whose URL changed since refuses the old log.
    await t.api('PUT', `${hooks()}/${hook.id}`, { token: owner.token, body: { url: `${receiver.url}/moved` } });
    expect(await t.api('POST', `${hooks()}/${hook.id}/events/${logged.id}/resend`, { token: owner.token })).toMatchObject({
      status: 422,
      body: { message: 'The hook URL has changed, and this log entry cannot be retried' },
    });
    // The retention: logs older than seven days go, the others stay.
    await t.server.database.prisma.webHookLog.updateMany({ where: { id: logged.id }, data: { createdAt: new Date(Date.now() - 8 * 86_400_000) } });
    // What the recurring hooks.prune_logs job runs.
    expect(await createContext(t.server.app, null).services.hooks.pruneLogs(new Date())).toBe(1);
    const kept = await t.server.database.prisma.webHookLog.findMany({ where: { webHookId: hook.id }, select: { id: true } });
    expect(kept.map((l) => l.id)).not.toContain(logged.id);
    expect(kept).toHaveLength(1);
    await t.api('DELETE', `${hooks()}/${hook.id}`, { token: owner.token });
    await t.api('DELETE', `${hooks()}/${other.id}`, { token: owner.token });
  });
});

describe('project hooks: auto-disabling', () => {
  it('disables a hook for a while after four failures in a row, and a change enables it again', async () => {
    const hook = (await t.api('POST', hooks(), { token: owner.token, body: { url: `${receiver.url}/failing` } })).body;
    receiver.answer(() => ({ status: 404, body: 'gone' }));
    for (let i = 1; i <= 4; i++) {
      await t.api('POST', `${hooks()}/${hook.id}/test/push_events`, { token: owner.token });
      await receiver.next();
      await eventually(async () => (await t.api('GET', `${hooks()}/${hook.id}/events`, { token: owner.token })).body.length === i);
    }
    const disabled = await eventually(async () => {
      const res = await t.api('GET', `${hooks()}/${hook.id}`, { token: owner.token });
      return res.body.alert_status === 'temporarily_disabled' && res.body;
    });
    const until = new Date(disabled.disabled_until).getTime();
    expect(until).toBeGreaterThan(Date.now() + 30_000);
    expect(until).toBeLessThan(Date.now() + 61_000);
    const events = await t.api('GET', `${hooks()}/${hook.id}/events?status=client_failure`, { token: owner.token });
    expect(events.body.map((e: any) => e.response_status)).toEqual(['404', '404', '404', '404']);
    expect((await t.api('GET', `${hooks()}/${hook.id}/events?status=successful`, { token: owner.token })).body).toEqual([]);
    receiver.answer(() => ({ status: 200 }));
    const changed = await t.api('PUT', `${hooks()}/${hook.id}`, { token: owner.token, body: { url: `${receiver.url}/fixed` } });
    expect(changed.body).toMatchObject({ alert_status: 'executable', disabled_until: null });
    await t.api('DELETE', `${hooks()}/${hook.id}`, { token: owner.token });
  });
});

describe('project hooks: pipeline events', () => {
  it("delivers a Pipeline Hook for each status a pipeline goes through, with GitLab's pipeline data", async () => {
    const hook = (await t.api('POST', hooks(), { token: owner.token, body: { url: `${receiver.url}/pipelines`, push_events: false, pipeline_events: true } })).body;
    const ci = await t.api('POST', `/projects/${project.id}/repository/commits`, {
      token: owner.token,
      body: { branch: 'main', commit_message: 'CI', actions: [{ action: 'create', file_path: '.gitlab-ci.yml', content: 'build:\n  stage: build\n  script: echo\ntest:\n  stage: test\n  script: echo\n' }] },
    });
    expect(ci.status).toBe(201);
    const first = await receiver.next();
    expect(first.headers['x-gitlab-event']).toBe('Pipeline Hook');
    expect(first.json).toMatchObject({
      object_kind: 'pipeline',
      object_attributes: { ref: 'main', tag: false, sha: ci.body.id, source: 'push', status: 'pending', detailed_status: 'pending', stages: ['build', 'test'] },
      merge_request: null,
      user: { id: owner.id, username: owner.username },
      project: { id: project.id, path_with_namespace: project.path_with_namespace },
      commit: { id: ci.body.id, title: 'CI', author: { name: expect.any(String), email: expect.any(String) } },
    });
    expect(first.json.object_attributes.created_at).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);
    expect(first.json.builds.map((b: any) => [b.name, b.stage])).toEqual([['build', 'build'], ['test', 'test']]);
    const pipelineId = first.json.object_attributes.id;
    expect((await t.api('POST', `/projects/${project.id}/pipelines/${pipelineId}/cancel`, { token: owner.token })).status).toBe(200);
    const canceled = await receiver.next();
    expect(canceled.json.object_attributes).toMatchObject({ id: pipelineId, status: 'canceled' });
    expect(canceled.headers['x-gitlab-event-uuid']).not.toBe(first.headers['x-gitlab-event-uuid']);
    await t.api('DELETE', `${hooks()}/${hook.id}`, { token: owner.token });
  });
});

describe('project hooks: job events', () => {
  it('delivers Job Hooks as jobs move, with GitLab build data', async () => {
    const own = await createProject(t, owner.token);
    const hook = (await t.api('POST', `/projects/${own.id}/hooks`, { token: owner.token, body: { url: `${receiver.url}/jobs`, push_events: false, job_events: true } })).body;
    const ci = await t.api('POST', `/projects/${own.id}/repository/commits`, {
      token: owner.token,
      body: { branch: 'main', commit_message: 'CI', actions: [{ action: 'create', file_path: '.gitlab-ci.yml', content: 'build:\n  stage: build\n  script: echo\n' }] },
    });
    expect(ci.status).toBe(201);
    const pending = await receiver.next();
    expect(pending.headers['x-gitlab-event']).toBe('Job Hook');
    expect(pending.json).toMatchObject({
      object_kind: 'build',
      ref: 'main',
      tag: false,
      sha: ci.body.id,
      build_name: 'build',
      build_stage: 'build',
      build_status: 'pending',
      project_id: own.id,
      user: { id: owner.id },
      commit: { id: pending.json.pipeline_id, sha: ci.body.id, message: 'CI' },
      repository: { name: own.name },
    });
    expect((await t.api('POST', `/projects/${own.id}/jobs/${pending.json.build_id}/cancel`, { token: owner.token })).status).toBe(201);
    const canceled = await receiver.next();
    expect(canceled.json).toMatchObject({ build_id: pending.json.build_id, build_status: 'canceled' });
    await t.api('DELETE', `/projects/${own.id}/hooks/${hook.id}`, { token: owner.token });
  });
});
