import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Gitlab } from '@gitbeaker/rest';
import { EXTERNAL_URL, suiteServer } from '../support/server.js';
import { createUser, type TestUser } from '../support/factories.js';
import { startReceiver, type Receiver } from './receiver.js';

const t = suiteServer({ webhookRetryBaseMs: 0, webhookMaxAttempts: 3 });
let receiver: Receiver;
let alice: TestUser;

beforeAll(async () => {
  receiver = await startReceiver();
  alice = await createUser(t);
});
afterAll(() => receiver?.close());

const KEYS = [
  'id',
  'url',
  'name',
  'description',
  'created_at',
  'push_events',
  'tag_push_events',
  'merge_requests_events',
  'repository_update_events',
  'enable_ssl_verification',
  'alert_status',
  'disabled_until',
  'url_variables',
  'custom_headers',
  'push_events_branch_filter',
  'branch_filter_strategy',
].sort();

describe('system hooks: the API', () => {
  it('creates a hook with GitLab defaults, never shows its token, and lists, reads, changes and deletes it', async () => {
    const created = await t.api('POST', '/hooks', { body: { url: `${receiver.url}/one`, token: 'sekret', name: 'One', description: 'first' } });
    expect(created.status).toBe(201);
    expect(Object.keys(created.body).sort()).toEqual(KEYS);
    expect(created.body).toMatchObject({
      url: `${receiver.url}/one`,
      name: 'One',
      description: 'first',
      push_events: false,
      tag_push_events: false,
      merge_requests_events: false,
      repository_update_events: true,
      enable_ssl_verification: true,
      alert_status: 'executable',
      disabled_until: null,
      url_variables: [],
      push_events_branch_filter: null,
      branch_filter_strategy: 'wildcard',
    });
    expect(created.text).not.toContain('sekret');
    const id = created.body.id;

    const list = await t.api('GET', '/hooks');
    expect(list.status).toBe(200);
    expect(list.headers.get('x-total')).toBeTruthy();
    expect(list.body.map((h: any) => h.id)).toContain(id);
    expect(list.text).not.toContain('sekret');

    const one = await t.api('GET', `/hooks/${id}`);
    expect(one.status).toBe(200);
    expect(one.body).toEqual(created.body);

    const changed = await t.api('PUT', `/hooks/${id}`, { body: { url: `${receiver.url}/two`, push_events: true, branch_filter_strategy: 'regex', push_events_branch_filter: '^main$', url_variables: [{ key: 'secret_part', value: 'hidden-value' }] } });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ url: `${receiver.url}/two`, push_events: true, branch_filter_strategy: 'regex', push_events_branch_filter: '^main$', url_variables: [{ key: 'secret_part' }], name: 'One' });
    expect(changed.text).not.toContain('hidden-value');

    const deleted = await t.api('DELETE', `/hooks/${id}`);
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    expect((await t.api('GET', `/hooks/${id}`)).body).toEqual({ message: '404 Not found' });
    expect((await t.api('DELETE', `/hooks/${id}`)).status).toBe(404);
  });

  it("answers GitLab's errors: missing url, bad strategy, blocked scheme, bad regex", async () => {
    expect(await t.api('POST', '/hooks', { body: {} })).toMatchObject({ status: 400, body: { error: 'url is missing' } });
    expect(await t.api('POST', '/hooks', { body: { url: 'http://example.com', branch_filter_strategy: 'glob' } })).toMatchObject({
      status: 400,
      body: { error: 'branch_filter_strategy does not have a valid value' },
    });
    expect(await t.api('POST', '/hooks', { body: { url: 'hp://mep.mep' } })).toMatchObject({ status: 400, body: { message: { url: ['is blocked: Only allowed schemes are http, https'] } } });
    expect(await t.api('POST', '/hooks', { body: { url: 'http://169.254.169.254/latest' } })).toMatchObject({
      status: 400,
      body: { message: { url: ['is blocked: Requests to the cloud metadata service are not allowed'] } },
    });
    const badRegex = await t.api('POST', '/hooks', { body: { url: 'http://example.com', branch_filter_strategy: 'regex', push_events_branch_filter: '(' } });
    expect(badRegex.status).toBe(400);
    expect(badRegex.body.message.push_events_branch_filter).toEqual(['is not a valid regular expression']);
    expect((await t.api('GET', '/hooks/999999')).status).toBe(404);
    expect((await t.api('GET', '/hooks/abc')).status).toBe(400);
  });

  it('is for administrators only: 401 anonymous, 403 for others', async () => {
    expect((await t.api('GET', '/hooks', { token: null })).status).toBe(401);
    for (const [method, path] of [['GET', '/hooks'], ['POST', '/hooks'], ['GET', '/hooks/1'], ['PUT', '/hooks/1'], ['DELETE', '/hooks/1'], ['POST', '/hooks/1']] as const) {
      const res = await t.api(method, path, { token: alice.token, body: method === 'GET' ? undefined : { url: 'http://example.com' } });
      expect([method, path, res.status, res.body]).toEqual([method, path, 403, { message: '403 Forbidden' }]);
    }
    const gql = await t.graphql('{ systemHooks { count } }', {}, alice.token);
    expect(gql.body.errors?.[0].message).toMatch(/403|permission|not have/i);
  });

  it('works through @gitbeaker/rest SystemHooks', async () => {
    const api = new Gitlab({ host: t.url, token: t.rootToken });
    const hook = await api.SystemHooks.create(`${receiver.url}/beaker`, { tagPushEvents: true } as never);
    expect(hook.url).toBe(`${receiver.url}/beaker`);
    expect((hook as any).tag_push_events ?? (hook as any).tagPushEvents).toBe(true);
    const all = await api.SystemHooks.all();
    expect(all.map((h) => h.id)).toContain(hook.id);
    await api.SystemHooks.remove(hook.id);
    expect((await api.SystemHooks.all()).map((h) => h.id)).not.toContain(hook.id);
  });
});

describe('system hooks: delivery', () => {
  it('POST /hooks/:id answers the fixed sample and delivers it with GitLab headers and the token', async () => {
    const hook = (await t.api('POST', '/hooks', { body: { url: `${receiver.url}/test`, token: 'the-secret' } })).body;
    const res = await t.api('POST', `/hooks/${hook.id}`);
    expect(res.status).toBe(201);
    expect(res.text).toBe('{"event_name":"project_create","name":"Ruby","path":"ruby","project_id":1,"owner_name":"Someone","owner_email":"example@gitlabhq.com"}');
    const got = await receiver.next();
    expect(got.method).toBe('POST');
    expect(got.path).toBe('/test');
    expect(got.json).toEqual(JSON.parse(res.text));
    const version = (await t.api('GET', '/version')).body.version;
    expect(got.headers).toMatchObject({
      'content-type': 'application/json',
      'x-gitlab-event': 'System Hook',
      'x-gitlab-token': 'the-secret',
      'x-gitlab-instance': EXTERNAL_URL,
      'user-agent': `GitLab/${version}`,
    });
    expect(got.headers['x-gitlab-event-uuid']).toMatch(/^[0-9a-f-]{36}$/);
    expect(got.headers['x-gitlab-webhook-uuid']).toMatch(/^[0-9a-f-]{36}$/);
    await t.api('DELETE', `/hooks/${hook.id}`);
  });

  it('substitutes URL variables into the URL it calls', async () => {
    const hook = (await t.api('POST', '/hooks', { body: { url: `${receiver.url}/{part}/x`, url_variables: [{ key: 'part', value: 'a b' }] } })).body;
    expect(hook.url).toBe(`${receiver.url}/{part}/x`);
    await t.api('POST', `/hooks/${hook.id}`);
    expect((await receiver.next()).path).toBe('/a%20b/x');
    await t.api('DELETE', `/hooks/${hook.id}`);
  });

  it('retries on 5xx with the same UUIDs, up to the attempts configured, and not on 4xx', async () => {
    const hook = (await t.api('POST', '/hooks', { body: { url: `${receiver.url}/flaky` } })).body;
    let calls = 0;
    receiver.answer(() => (++calls < 3 ? { status: 503, body: 'down' } : { status: 200, body: 'fine' }));
    await t.api('POST', `/hooks/${hook.id}`);
    const first = await receiver.next();
    const second = await receiver.next();
    const third = await receiver.next();
    expect(calls).toBe(3);
    expect(second.headers['x-gitlab-event-uuid']).toBe(first.headers['x-gitlab-event-uuid']);
    expect(third.headers['x-gitlab-webhook-uuid']).toBe(first.headers['x-gitlab-webhook-uuid']);

    calls = 0;
    receiver.answer(() => (++calls, { status: 404, body: 'nope' }));
    await t.api('POST', `/hooks/${hook.id}`);
    await receiver.next();
    // A later delivery arrives next: the 404 was not retried.
    receiver.answer(() => ({ status: 200 }));
    await t.api('POST', `/hooks/${hook.id}`);
    const after = await receiver.next();
    expect(after.json.event_name).toBe('project_create');
    expect(calls).toBe(1);
    await t.api('DELETE', `/hooks/${hook.id}`);
  });
});
