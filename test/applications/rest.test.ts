/** The Applications API (GitLab's lib/api/applications.rb): administrators only, secrets shown once, GitLab's shapes and errors. */
import { beforeAll, describe, expect, it } from 'vitest';
import { Gitlab } from '@gitbeaker/rest';
import { suiteServer } from '../support/server.js';
import { createUser, type TestUser } from '../support/factories.js';

const t = suiteServer();
const KEYS = ['id', 'application_id', 'application_name', 'callback_url', 'confidential'];

let user: TestUser;
let admin: TestUser;

beforeAll(async () => {
  [user, admin] = await Promise.all([createUser(t), createUser(t, { admin: true })]);
});

async function create(body: Record<string, unknown> = {}) {
  const res = await t.api('POST', '/applications', { body: { name: 'CI bot', redirect_uri: 'https://app.example.com/callback', scopes: 'api read_user', ...body } });
  expect(res.status, res.text).toBe(200);
  return res.body;
}

describe('POST /applications', () => {
  it('answers the application with its secret, once, in GitLab key order', async () => {
    const res = await t.api('POST', '/applications', { body: { name: 'Docs site', redirect_uri: 'https://docs.example.com/oauth', scopes: 'read_api openid' } });
    expect(res.status, res.text).toBe(200);
    expect(Object.keys(res.body)).toEqual([...KEYS, 'secret']);
    expect(res.body).toMatchObject({ application_name: 'Docs site', callback_url: 'https://docs.example.com/oauth', confidential: true });
    expect(res.body.application_id).toMatch(/^[0-9a-f]{64}$/);
    expect(res.body.secret).toMatch(/^gloas-[0-9a-f]{64}$/);
    // Stored only as a digest: nothing in the row reads back as the secret.
    const row = await t.server.database.prisma.oauthApplication.findUniqueOrThrow({ where: { id: res.body.id } });
    expect(JSON.stringify(row)).not.toContain(res.body.secret);
    expect(JSON.stringify(row)).not.toContain(res.body.secret.slice(6));
    // Never readable again.
    const list = await t.api('GET', '/applications');
    expect(list.status).toBe(200);
    const listed = list.body.find((a: { id: number }) => a.id === res.body.id);
    expect(Object.keys(listed)).toEqual(KEYS);
    expect(list.text).not.toContain(res.body.secret);
    expect(list.headers.get('x-total')).toBeNull();
  });

  it('takes form bodies and confidential=false', async () => {
    const res = await t.api('POST', '/applications', {
      body: 'name=Mobile&redirect_uri=com.example.app%3A%2Foauth&scopes=read_user&confidential=false',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ application_name: 'Mobile', callback_url: 'com.example.app:/oauth', confidential: false });
  });

  it("refuses what GitLab refuses, in GitLab's words", async () => {
    const cases: [Record<string, unknown>, unknown][] = [
      [{ name: undefined }, { error: 'name is missing' }],
      [{ redirect_uri: undefined }, { error: 'redirect_uri is missing' }],
      [{ scopes: '' }, { error: 'scopes is empty' }],
      [{ scopes: '   ' }, { error: 'scopes is empty' }],
      [{ scopes: 'api pizza' }, { message: { scopes: ["doesn't match configured on the server."] } }],
      [{ redirect_uri: 'http://' }, { message: { redirect_uri: ['must be a valid URI.'] } }],
      [{ redirect_uri: 'javascript://alert(1)' }, { message: { redirect_uri: ['is forbidden by the server.'] } }],
      [{ redirect_uri: 'data:text/html,hi' }, { message: { redirect_uri: ['is forbidden by the server.'] } }],
      [{ redirect_uri: '/relative' }, { message: { redirect_uri: ['must be an absolute URI.'] } }],
      [{ redirect_uri: 'https://a.example.com/cb#frag' }, { message: { redirect_uri: ['cannot contain a fragment.'] } }],
      [{ name: '  ' }, { message: { name: ["can't be blank"] } }],
      [{ name: 'x'.repeat(256) }, { message: { name: ['is too long (maximum is 255 characters)'] } }],
      [{ confidential: 'maybe' }, { error: 'confidential is invalid' }],
    ];
    for (const [override, body] of cases) {
      const res = await t.api('POST', '/applications', { body: { name: 'n', redirect_uri: 'https://a.example.com/cb', scopes: 'api', ...override } });
      expect(res.status, JSON.stringify(override)).toBe(400);
      expect(res.body, JSON.stringify(override)).toEqual(body);
    }
    const missing = await t.api('POST', '/applications', { body: { name: 'n', redirect_uri: 'https://a.example.com/cb' } });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatch(/^scopes is missing/);
  });
});

describe('administrators only', () => {
  it('401 without a token, 403 for others, on every route', async () => {
    const app = await create();
    const routes: [string, string][] = [['GET', '/applications'], ['POST', '/applications'], ['DELETE', `/applications/${app.id}`], ['POST', `/applications/${app.id}/renew-secret`]];
    for (const [method, path] of routes) {
      const body = method === 'POST' ? { name: 'x', redirect_uri: 'https://a.example.com/cb', scopes: 'api' } : undefined;
      const anonymous = await t.api(method, path, { token: null, body });
      expect(anonymous.status, `${method} ${path}`).toBe(401);
      expect(anonymous.body).toEqual({ message: '401 Unauthorized' });
      const denied = await t.api(method, path, { token: user.token, body });
      expect(denied.status, `${method} ${path}`).toBe(403);
      expect(denied.body).toEqual({ message: '403 Forbidden' });
    }
    // Nothing was changed by the refused calls.
    expect((await t.api('GET', '/applications')).body.some((a: { id: number }) => a.id === app.id)).toBe(true);
  });

  it('another administrator manages them; a read_api token lists but does not create', async () => {
    const created = await t.api('POST', '/applications', { token: admin.token, body: { name: 'By admin', redirect_uri: 'https://a.example.com/cb', scopes: 'api' } });
    expect(created.status).toBe(200);
    const reader = await t.api('POST', `/users/${admin.id}/personal_access_tokens`, { body: { name: 'r', scopes: ['read_api'] } });
    expect((await t.api('GET', '/applications', { token: reader.body.token })).status).toBe(200);
    const refused = await t.api('POST', '/applications', { token: reader.body.token, body: { name: 'x', redirect_uri: 'https://a.example.com/cb', scopes: 'api' } });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toBe('insufficient_scope');
  });
});

describe('DELETE and renew-secret', () => {
  it('renews the secret: a new one, shown once, the old one gone', async () => {
    const app = await create();
    const res = await t.api('POST', `/applications/${app.id}/renew-secret`);
    expect(res.status, res.text).toBe(200);
    expect(Object.keys(res.body)).toEqual([...KEYS, 'secret']);
    expect(res.body.application_id).toBe(app.application_id);
    expect(res.body.secret).toMatch(/^gloas-[0-9a-f]{64}$/);
    expect(res.body.secret).not.toBe(app.secret);
  });

  it('deletes with 204; then 404 in GitLab words; bad ids are 400', async () => {
    const app = await create();
    const res = await t.api('DELETE', `/applications/${app.id}`);
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect((await t.api('GET', '/applications')).body.some((a: { id: number }) => a.id === app.id)).toBe(false);
    for (const [method, path] of [['DELETE', `/applications/${app.id}`], ['POST', `/applications/${app.id}/renew-secret`], ['DELETE', '/applications/99999999999']]) {
      const gone = await t.api(method, path);
      expect(gone.status, path).toBe(404);
      expect(gone.body).toEqual({ message: '404 Application Not Found' });
    }
    const bad = await t.api('DELETE', '/applications/abc');
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: 'id is invalid' });
  });
});

describe('@gitbeaker/rest', () => {
  it('creates, lists and removes applications', async () => {
    const api = new Gitlab({ host: t.url, token: t.rootToken });
    const app = await api.Applications.create('Gitbeaker app', 'https://gb.example.com/cb', 'api read_user', { confidential: false });
    expect(app).toMatchObject({ application_name: 'Gitbeaker app', callback_url: 'https://gb.example.com/cb', confidential: false });
    expect(app.secret).toMatch(/^gloas-/);
    const all = await api.Applications.all();
    const found = all.find((a) => a.id === app.id)!;
    expect(found.application_id).toBe(app.application_id);
    expect(found.secret).toBeUndefined();
    await api.Applications.remove(app.id);
    expect((await api.Applications.all()).some((a) => a.id === app.id)).toBe(false);
    const stranger = new Gitlab({ host: t.url, token: user.token });
    await expect(stranger.Applications.all()).rejects.toMatchObject({ cause: { response: { status: 403 } } });
  });
});

describe('GraphQL', () => {
  it('runs the same operations, with relay payloads', async () => {
    const created = await t.graphql<any>(
      'mutation($input: OauthApplicationCreateInput!) { oauthApplicationCreate(input: $input) { clientMutationId errors oauthApplication { id name applicationId secret confidential scopes } } }',
      { input: { clientMutationId: 'm1', name: 'GQL', redirectUri: 'https://g.example.com/cb', scopes: 'read_user' } },
    );
    const payload = created.body.data!.oauthApplicationCreate;
    expect(payload.clientMutationId).toBe('m1');
    expect(payload.oauthApplication.id).toMatch(/^gid:\/\/gitlab\/Authn::OauthApplication\/\d+$/);
    expect(payload.oauthApplication.secret).toMatch(/^gloas-/);
    expect(payload.oauthApplication.scopes).toEqual(['read_user']);
    const listed = await t.graphql<any>('{ oauthApplications { id secret } }');
    expect(listed.body.data!.oauthApplications.find((a: { id: string }) => a.id === payload.oauthApplication.id).secret).toBeNull();
    const refused = await t.graphql<any>('{ oauthApplications { id } }', {}, user.token);
    expect(refused.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    const deleted = await t.graphql<any>('mutation($id: AuthnOauthApplicationID!) { oauthApplicationDelete(input: { id: $id }) { errors oauthApplication { name } } }', { id: payload.oauthApplication.id });
    expect(deleted.body.data!.oauthApplicationDelete.oauthApplication.name).toBe('GQL');
  });
});
