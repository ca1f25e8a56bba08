import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { suiteServer } from '../support/server.js';
import { createProject, createUser, type TestUser } from '../support/factories.js';
import { eventually } from '../support/wait.js';
import { startReceiver, type Receiver } from './receiver.js';

// GitLab's defaults: system hooks may call local addresses, project hooks may not.
const t = suiteServer({ webhookRetryBaseMs: 0 });
let receiver: Receiver;
let owner: TestUser;
let project: any;

beforeAll(async () => {
  receiver = await startReceiver();
  owner = await createUser(t);
  project = await createProject(t, owner.token);
});
afterAll(() => receiver?.close());

async function systemHookLog(id: number) {
  return eventually(async () => {
    const res = await t.graphql(`query($id: SystemHookID!) { systemHook(id: $id) { events { nodes { responseStatus responseBody url } } } }`, { id: `gid://gitlab/SystemHook/${id}` });
    return res.body.data?.systemHook?.events?.nodes?.[0];
  });
}

describe('the SSRF guard', () => {
  it('refuses project hooks to loopback, private, link-local and metadata addresses by default', async () => {
    const cases: Array<[string, string]> = [
      [receiver.url, 'is blocked: Requests to loopback addresses are not allowed'],
      ['http://localhost:9/', 'is blocked: Requests to localhost are not allowed'],
      ['http://10.0.0.5/hook', 'is blocked: Requests to the local network are not allowed'],
      ['http://192.168.0.1/hook', 'is blocked: Requests to the local network are not allowed'],
      ['http://[::ffff:127.0.0.1]/hook', 'is blocked: Requests to loopback addresses are not allowed'],
      ['http://169.254.10.10/hook', 'is blocked: Requests to the link local network are not allowed'],
      ['http://169.254.169.254/latest/meta-data', 'is blocked: Requests to the cloud metadata service are not allowed'],
      ['http://{h}/x', 'is blocked: Requests to loopback addresses are not allowed'],
    ];
    for (const [url, message] of cases) {
      const body = url.includes('{h}') ? { url, url_variables: [{ key: 'h', value: '127.0.0.1' }] } : { url };
      const res = await t.api('POST', `/projects/${project.id}/hooks`, { token: owner.token, body });
      expect([url, res.status, res.body]).toEqual([url, 400, { message: { url: [message] } }]);
    }
    // Changing a good hook's URL to a blocked one is refused too.
    const good = await t.api('POST', `/projects/${project.id}/hooks`, { token: owner.token, body: { url: 'https://example.com/hook' } });
    expect(good.status).toBe(201);
    const bad = await t.api('PUT', `/projects/${project.id}/hooks/${good.body.id}`, { token: owner.token, body: { url: 'http://127.0.0.1:1/' } });
    expect(bad.status).toBe(400);
  });

  it('refuses metadata addresses even for system hooks, which may call local ones', async () => {
    const res = await t.api('POST', '/hooks', { body: { url: 'http://[fd00:ec2::254]/latest' } });
    expect(res).toMatchObject({ status: 400, body: { message: { url: ['is blocked: Requests to the cloud metadata service are not allowed'] } } });
    expect((await t.api('POST', '/hooks', { body: { url: `${receiver.url}/ok` } })).status).toBe(201);
  });

  it('checks every redirect: one to the metadata service is not followed, one to an allowed address is', async () => {
    const hook = (await t.api('POST', '/hooks', { body: { url: `${receiver.url}/start` } })).body;
    receiver.answer((req) => (req.path === '/start' ? { status: 302, headers: { Location: 'http://169.254.169.254/latest/meta-data/' } } : { status: 200 }));
    await t.api('POST', `/hooks/${hook.id}`);
    expect((await receiver.next()).path).toBe('/start');
    const log = await systemHookLog(hook.id);
    expect(log).toEqual({ responseStatus: 'internal error', responseBody: 'Requests to the cloud metadata service are not allowed', url: `${receiver.url}/start` });

    const other = (await t.api('POST', '/hooks', { body: { url: `${receiver.url}/moved` } })).body;
    receiver.answer((req) => (req.path === '/moved' ? { status: 307, headers: { Location: '/final' } } : { status: 200, body: 'landed' }));
    await t.api('POST', `/hooks/${other.id}`);
    expect((await receiver.next()).path).toBe('/moved');
    const final = await receiver.next();
    expect(final).toMatchObject({ method: 'POST', path: '/final' });
    expect(final.json.event_name).toBe('project_create');
    expect(await systemHookLog(other.id)).toMatchObject({ responseStatus: '200', responseBody: 'landed' });
    receiver.answer(() => ({ status: 200 }));
  });
});
