import { describe, expect, it } from 'vitest';
import { suiteServer, EXTERNAL_URL } from '../support/server.js';
import { createUser, unique } from '../support/factories.js';

const t = suiteServer();

describe('authentication', () => {
  it('answers GET /user for the root token in the PRIVATE-TOKEN header', async () => {
    const res = await t.api('GET', '/user');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    expect(res.body).toMatchObject({ id: 1, username: 'root', name: 'Administrator', state: 'active', is_admin: true, web_url: `${EXTERNAL_URL}/root` });
  });

  it('accepts Authorization: Bearer, private_token and access_token', async () => {
    const bearer = await t.api('GET', '/user', { token: null, headers: { Authorization: `Bearer ${t.rootToken}` } });
    expect(bearer.status).toBe(200);
    const query = await t.api('GET', `/user?private_token=${t.rootToken}`, { token: null });
    expect(query.status).toBe(200);
    const access = await t.api('GET', `/user?access_token=${t.rootToken}`, { token: null });
    expect(access.status).toBe(200);
  });

  it('answers 401 {"message":"401 Unauthorized"} to a bad token, even on routes open to anonymous callers', async () => {
    for (const path of ['/user', '/projects', '/users']) {
      const res = await t.api('GET', path, { token: 'glpat-not-a-token' });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ message: '401 Unauthorized' });
    }
  });

  it('answers 401 to anonymous callers of /user', async () => {
    const res = await t.api('GET', '/user', { token: null });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ message: '401 Unauthorized' });
  });

  it('rejects a revoked token with the OAuth invalid_token body', async () => {
    const user = await createUser(t);
    expect((await t.api('DELETE', '/personal_access_tokens/self', { token: user.token })).status).toBe(204);
    const res = await t.api('GET', '/user', { token: user.token });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'invalid_token', error_description: 'Token was revoked. You have to re-authorize from the user.' });
    expect(res.headers.get('www-authenticate')).toContain('error="invalid_token"');
  });

  it('lets a read_api token read but not write', async () => {
    const user = await createUser(t, { scopes: ['read_api'] });
    expect((await t.api('GET', '/projects', { token: user.token })).status).toBe(200);
    const res = await t.api('POST', '/projects', { token: user.token, body: { name: unique('p') } });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ error: 'insufficient_scope', scope: 'api' });
  });

  it('sets GitLab security headers', async () => {
    const res = await t.api('GET', '/version');
    expect(res.headers.get('x-frame-options')).toBe('SAMEORIGIN');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  });
});

describe('users', () => {
  it('GET /version returns the version', async () => {
    const res = await t.api('GET', '/version');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ version: expect.any(String), revision: expect.any(String), kas: { enabled: false, externalUrl: null, externalK8sProxyUrl: null, version: null }, enterprise: false });
  });

  it('GET /metadata and GraphQL metadata show KAS as GitLab does when it is off', async () => {
    const kas = { enabled: false, externalUrl: null, externalK8sProxyUrl: null, version: null };
    const rest = await t.api('GET', '/metadata');
    expect(Object.keys(rest.body)).toEqual(['version', 'revision', 'kas', 'enterprise']);
    expect(rest.body.kas).toEqual(kas);
    const graphql = await t.graphql('{ metadata { kas { enabled externalUrl externalK8sProxyUrl version } } }');
    expect(graphql.body.data?.metadata.kas).toEqual(kas);
  });

  it('POST /users creates a user (admin only) and GET /users/:id reads it', async () => {
    const username = unique('alice');
    const res = await t.api('POST', '/users', { body: { username, name: 'Alice', email: `${username}@example.com`, password: 'long-enough-pw' } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ username, name: 'Alice', state: 'active', email: `${username}@example.com`, is_admin: false, bot: false });
    const got = await t.api('GET', `/users/${res.body.id}`);
    expect(got.status).toBe(200);
    expect(got.body.username).toBe(username);
    const byName = await t.api('GET', `/users?username=${username}`);
    expect(byName.body).toHaveLength(1);
  });

  it('POST /users takes the profile fields PUT /users/:id takes, as form fields too, and checks them alike', async () => {
    const username = unique('carol');
    const form = new URLSearchParams({
      username, name: 'Carol', email: `${username}@example.com`, password: 'long-enough-pw', bio: 'Made by a script', location: 'Lisbon',
      organization: 'ACME', website_url: 'https://carol.example.com', private_profile: '1', projects_limit: '7', can_create_group: '0', note: 'vip',
      view_diffs_file_by_file: 'true',
    });
    const res = await t.api('POST', '/users', { body: form.toString(), headers: { 'Content-Type': 'application/x-www-form-urlencoded' } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      bio: 'Made by a script', location: 'Lisbon', organization: 'ACME', website_url: 'https://carol.example.com', private_profile: true,
      projects_limit: 7, can_create_group: false, note: 'vip',
    });
    const asCarol = await t.api('POST', `/users/${res.body.id}/personal_access_tokens`, { body: { name: 'p', scopes: ['read_user'] } });
    const preferences = await t.api('GET', '/user/preferences', { token: asCarol.body.token });
    expect(preferences.body.view_diffs_file_by_file).toBe(true);

    const bad = await t.api('POST', '/users', { body: { username: unique('dan'), name: 'Dan', email: `${unique('dan')}@example.com`, bio: 'x'.repeat(256), discord: '12' } });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ message: { bio: ['is too long (maximum is 255 characters)'], discord: ['must contain only a discord user ID.'] } });
  });

  it('answers 409 when the username or email is taken', async () => {
    const user = await createUser(t);
    const dupName = await t.api('POST', '/users', { body: { username: user.username, name: 'X', email: `${unique('x')}@example.com` } });
    expect(dupName.status).toBe(409);
    expect(dupName.body).toEqual({ message: 'Username has already been taken' });
    const dupEmail = await t.api('POST', '/users', { body: { username: unique('y'), name: 'Y', email: `${user.username}@example.com` } });
    expect(dupEmail.status).toBe(409);
    expect(dupEmail.body).toEqual({ message: 'Email has already been taken' });
  });

  it('lists every missing parameter in Grape words', async () => {
    const res = await t.api('POST', '/users', { body: {} });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'email is missing, username is missing, name is missing' });
  });

  it('holds usernames to the namespace path rule, since each is a namespace path', async () => {
    for (const username of ['bad.', '-bad', 'bad.git', 'has space']) {
      const res = await t.api('POST', '/users', { body: { username, name: 'N', email: `${unique('n')}@example.com` } });
      expect(res.status).toBe(400);
      expect(Object.keys(res.body.message)).toEqual(['username']);
    }
  });

  it('forbids non-administrators from creating users', async () => {
    const user = await createUser(t);
    const res = await t.api('POST', '/users', { token: user.token, body: { username: unique('z'), name: 'Z', email: `${unique('z')}@example.com` } });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ message: '403 Forbidden' });
  });

  it('answers 404 User Not Found for an unknown user', async () => {
    const res = await t.api('GET', '/users/999999');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: '404 User Not Found' });
  });

  it('shows is_admin to administrators only, and the email to the user themselves', async () => {
    const user = await createUser(t);
    const me = await t.api('GET', '/user', { token: user.token });
    expect(me.body).not.toHaveProperty('is_admin');
    expect(me.body.email).toBe(`${user.username}@example.com`);
    const asAdmin = await t.api('GET', `/users/${user.id}`);
    expect(asAdmin.body).toMatchObject({ is_admin: false, email: `${user.username}@example.com` });
  });

  it('hides email from other non-admin users', async () => {
    const a = await createUser(t);
    const b = await createUser(t);
    const res = await t.api('GET', `/users/${b.id}`, { token: a.token });
    expect(res.status).toBe(200);
    expect(res.body).not.toHaveProperty('email');
    expect(res.body).not.toHaveProperty('is_admin');
  });
});

describe('personal access tokens', () => {
  it('creates a token shown once, lists it without the value, and revokes it', async () => {
    const user = await createUser(t);
    const created = await t.api('POST', `/users/${user.id}/personal_access_tokens`, { body: { name: 'ci', scopes: ['read_api'], expires_at: '2099-01-31' } });
    expect(created.status).toBe(201);
    expect(Object.keys(created.body).sort()).toEqual(
      ['active', 'created_at', 'description', 'expires_at', 'id', 'last_used_at', 'name', 'revoked', 'scopes', 'token', 'user_id'].sort(),
    );
    expect(created.body).toMatchObject({ name: 'ci', scopes: ['read_api'], expires_at: '2099-01-31', active: true, revoked: false, user_id: user.id });
    expect(created.body.token).toMatch(/^glpat-/);

    const list = await t.api('GET', '/personal_access_tokens', { token: user.token });
    expect(list.status).toBe(200);
    expect(list.body.map((x: { name: string }) => x.name).sort()).toEqual(['ci', 'test']);
    expect(list.body[0]).not.toHaveProperty('token');

    const self = await t.api('GET', '/personal_access_tokens/self', { token: created.body.token });
    expect(self.body).toMatchObject({ id: created.body.id, last_used_at: expect.any(String) });

    expect((await t.api('DELETE', `/personal_access_tokens/${created.body.id}`, { token: user.token })).status).toBe(204);
    const after = await t.api('GET', `/personal_access_tokens/${created.body.id}`, { token: user.token });
    expect(after.body).toMatchObject({ revoked: true, active: false });
    const inactive = await t.api('GET', '/personal_access_tokens?state=inactive', { token: user.token });
    expect(inactive.body.map((x: { id: number }) => x.id)).toEqual([created.body.id]);
  });

  it("hides other users' tokens from non-administrators", async () => {
    const a = await createUser(t);
    const b = await createUser(t);
    const list = await t.api('GET', '/personal_access_tokens', { token: b.token });
    const bTokenId = list.body[0].id;
    expect((await t.api('GET', `/personal_access_tokens/${bTokenId}`, { token: a.token })).status).toBe(404);
    expect((await t.api('DELETE', `/personal_access_tokens/${bTokenId}`, { token: a.token })).body).toEqual({ message: '404 Personal Access Token Not Found' });
  });

  it('gives a token created without expires_at the default lifetime of a year', async () => {
    const user = await createUser(t);
    const res = await t.api('POST', `/users/${user.id}/personal_access_tokens`, { body: { name: 'default', scopes: ['api'] } });
    const expected = new Date(Date.now() + 365 * 86_400_000).toISOString().slice(0, 10);
    expect(res.body.expires_at).toBe(expected);
  });

  it('rejects unknown scopes', async () => {
    const user = await createUser(t);
    const res = await t.api('POST', `/users/${user.id}/personal_access_tokens`, { body: { name: 'x', scopes: ['everything'] } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'scopes does not have a valid value' });
  });

  it('rejects an expired token with the OAuth expiry body', async () => {
    const user = await createUser(t);
    const created = await t.api('POST', `/users/${user.id}/personal_access_tokens`, { body: { name: 'soon', scopes: ['api'], expires_at: '2099-01-01' } });
    await t.server.database.prisma.personalAccessToken.update({ where: { id: created.body.id }, data: { expiresAt: new Date('2020-01-01') } });
    const res = await t.api('GET', '/user', { token: created.body.token });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'invalid_token', error_description: 'Token is expired. You can either do re-authorization or token refresh.' });
  });
});
