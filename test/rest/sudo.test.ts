import { beforeAll, describe, expect, it } from 'vitest';
import { Gitlab } from '@gitbeaker/rest';
import { suiteServer } from '../support/server.js';
import { createUser, unique, type TestUser } from '../support/factories.js';

const t = suiteServer();
let alice: TestUser;
let adminWithoutSudo: TestUser;
let readOnlySudo: TestUser;

beforeAll(async () => {
  alice = await createUser(t);
  adminWithoutSudo = await createUser(t, { admin: true, scopes: ['api'] });
  readOnlySudo = await createUser(t, { admin: true, scopes: ['read_api', 'sudo'] });
});

describe('sudo', () => {
  it('runs a request as the user a Sudo header names, by username (any case) or ID', async () => {
    for (const sudo of [alice.username, alice.username.toUpperCase(), String(alice.id)]) {
      const res = await t.api('GET', '/user', { headers: { Sudo: sudo } });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: alice.id, username: alice.username });
    }
  });

  it('takes the sudo parameter from the query string and from the body, before the header', async () => {
    const query = await t.api('GET', `/user?sudo=${alice.id}`, { headers: { Sudo: 'root' } });
    expect(query.body.username).toBe(alice.username);
    const created = await t.api('POST', '/projects', { body: { name: unique('as-alice'), sudo: alice.username } });
    expect(created.status).toBe(201);
    expect(created.body.namespace.full_path).toBe(alice.username);
    expect(created.body.creator_id).toBe(alice.id);
  });

  it('works through gitbeaker, whose sudo option sends the header', async () => {
    const api = new Gitlab({ host: t.url, token: t.rootToken });
    const project = await api.Projects.create({ name: unique('gb-sudo'), sudo: alice.id });
    expect(project.namespace.full_path).toBe(alice.username);
    const me = await api.Users.showCurrentUser({ sudo: alice.username });
    expect(me.id).toBe(alice.id);
  });

  it('refuses a token of a user who is not an administrator', async () => {
    const res = await t.api('GET', '/user', { token: alice.token, headers: { Sudo: 'root' } });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ message: '403 Forbidden - Must be admin to use sudo' });
  });

  it("refuses an administrator's token without the sudo scope", async () => {
    const res = await t.api('GET', '/user', { token: adminWithoutSudo.token, headers: { Sudo: alice.username } });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: 'insufficient_scope', error_description: 'The request requires higher privileges than provided by the access token.', scope: 'sudo' });
  });

  it('answers 404 for a user that does not exist, naming the identifier', async () => {
    const res = await t.api('GET', '/user', { headers: { Sudo: 'nobody-here' } });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: "404 User with ID or username 'nobody-here' Not Found" });
    const byId = await t.api('GET', '/user?sudo=999999');
    expect(byId.body).toEqual({ message: "404 User with ID or username '999999' Not Found" });
  });

  it('answers 401 when no token comes with sudo', async () => {
    const res = await t.api('GET', '/user', { token: null, headers: { Sudo: alice.username } });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ message: '401 Unauthorized' });
  });

  it("keeps the token's scopes: a read_api token with sudo reads but does not write", async () => {
    const read = await t.api('GET', '/user', { token: readOnlySudo.token, headers: { Sudo: alice.username } });
    expect(read.body.id).toBe(alice.id);
    const write = await t.api('POST', '/projects', { token: readOnlySudo.token, headers: { Sudo: alice.username }, body: { name: unique('nope') } });
    expect(write.status).toBe(403);
    expect(write.body).toMatchObject({ error: 'insufficient_scope' });
  });

  it('acts with the named user\'s rights, not the administrator\'s', async () => {
    const admin = await t.api('GET', '/users?per_page=1');
    expect(admin.body[0]).toHaveProperty('is_admin');
    const asAlice = await t.api('GET', '/users?per_page=1', { headers: { Sudo: alice.username } });
    expect(asAlice.body[0]).not.toHaveProperty('is_admin');
  });

  it('does not act as a blocked user', async () => {
    const blocked = await createUser(t);
    expect((await t.api('POST', `/users/${blocked.id}/block`)).status).toBe(201);
    const res = await t.api('GET', '/user', { headers: { Sudo: blocked.username } });
    expect(res.status).toBe(403);
  });

  it('has no effect on GraphQL, as in GitLab', async () => {
    const res = await fetch(`${t.url}/api/graphql`, {
      method: 'POST',
      headers: { 'PRIVATE-TOKEN': t.rootToken, Sudo: alice.username, 'Content-Type': 'application/json' },
      body: JSON.stringify({ query: '{ currentUser { username } }' }),
    });
    const body = (await res.json()) as { data: { currentUser: { username: string } } };
    expect(body.data.currentUser.username).toBe('root');
  });
});
