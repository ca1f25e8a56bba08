/** SSH keys: `/user/keys`, `/users/:id/keys`, `/keys/:id` and `/keys?fingerprint=`, with fingerprints computed from the key. */
import { beforeAll, describe, expect, it } from 'vitest';
import { Gitlab } from '@gitbeaker/rest';
import { EXTERNAL_URL, suiteServer } from '../support/server.js';
import { createUser } from '../support/factories.js';
import { freshKey, KNOWN_KEYS } from './ssh-keys.js';

const t = suiteServer();
let admin: InstanceType<typeof Gitlab>;
const host = new URL(EXTERNAL_URL).hostname;

beforeAll(() => {
  admin = new Gitlab({ host: t.url, token: t.rootToken });
});

describe('the current user\'s keys', () => {
  it('adds a key, shows it without its comment, lists, reads and deletes it', async () => {
    const user = await createUser(t);
    const created = await t.api('POST', '/user/keys', { token: user.token, body: { title: 'laptop', key: KNOWN_KEYS.ed25519.key } });
    expect(created.status).toBe(201);
    expect(Object.keys(created.body)).toEqual(['id', 'title', 'created_at', 'expires_at', 'last_used_at', 'key', 'usage_type']);
    const [type, data] = KNOWN_KEYS.ed25519.key.split(' ');
    expect(created.body).toMatchObject({ title: 'laptop', expires_at: null, last_used_at: null, usage_type: 'auth_and_signing', key: `${type} ${data} User ${user.username} (${host})` });
    const list = await t.api('GET', '/user/keys', { token: user.token });
    expect([list.status, list.headers.get('x-total'), list.body]).toEqual([200, '1', [created.body]]);
    expect((await t.api('GET', `/user/keys/${created.body.id}`, { token: user.token })).body).toEqual(created.body);
    expect((await t.api('GET', `/users/${user.username}/keys`, { token: null })).body).toEqual([created.body]);
    expect((await t.api('GET', `/users/${user.id}/keys/${created.body.id}`, { token: null })).body).toEqual(created.body);
    const deleted = await t.api('DELETE', `/user/keys/${created.body.id}`, { token: user.token });
    expect([deleted.status, deleted.text]).toEqual([204, '']);
    expect((await t.api('GET', `/user/keys/${created.body.id}`, { token: user.token })).body).toEqual({ message: '404 Key Not Found' });
    expect((await t.api('DELETE', `/user/keys/${created.body.id}`, { token: user.token })).body).toEqual({ message: '404 Key Not Found' });
  });

  it('computes the fingerprints ssh-keygen prints, and finds keys by them (administrators)', async () => {
    const user = await createUser(t);
    const rsa = await t.api('POST', '/user/keys', { token: user.token, body: { title: 'rsa', key: KNOWN_KEYS.rsa.key, usage_type: 'auth' } });
    expect(rsa.body.usage_type).toBe('auth');
    const bySha = await t.api('GET', `/keys?fingerprint=${encodeURIComponent(KNOWN_KEYS.rsa.sha256)}`);
    expect(bySha.status).toBe(200);
    expect(bySha.body).toMatchObject({ id: rsa.body.id, title: 'rsa', user: { id: user.id, username: user.username, email: `${user.username}@example.com` } });
    const byMd5 = await t.api('GET', `/keys?fingerprint=${KNOWN_KEYS.rsa.md5}`);
    expect(byMd5.body.id).toBe(rsa.body.id);
    expect((await t.api('GET', `/keys/${rsa.body.id}`)).body).toEqual(bySha.body);
    const gql = await t.graphql('query($id: ID!) { sshKey(id: $id) { fingerprint fingerprintSha256 } }', { id: String(rsa.body.id) }, t.rootToken);
    expect(gql.body.data?.sshKey).toEqual({ fingerprint: KNOWN_KEYS.rsa.md5, fingerprintSha256: KNOWN_KEYS.rsa.sha256 });
    expect((await t.api('GET', `/keys/${rsa.body.id}`, { token: user.token })).body).toEqual({ message: '403 Forbidden' });
    expect((await t.api('GET', '/keys/2147483000')).body).toEqual({ message: '404 Not found' });
    expect((await t.api('GET', '/keys?fingerprint=SHA256:nothing')).body).toEqual({ message: '404 Key Not Found' });
  });

  it('validates the key as GitLab does', async () => {
    const user = await createUser(t);
    const post = (body: Record<string, unknown>) => t.api('POST', '/user/keys', { token: user.token, body });
    expect((await post({ title: 'x' })).body).toEqual({ error: 'key is missing' });
    expect((await post({ key: freshKey() })).body).toEqual({ error: 'title is missing' });
    expect((await post({ title: 'x', key: 'not a key' })).body).toEqual({ message: { key: ['is invalid'], fingerprint_sha256: ['cannot be generated'] } });
    expect((await post({ title: 'x', key: 'ssh-rsa !!!notbase64' })).body).toEqual({ message: { fingerprint_sha256: ['cannot be generated'] } });
    // A blob that names another type than the key says.
    const ed = freshKey().split(' ')[1];
    expect((await post({ title: 'x', key: `ssh-rsa ${ed}` })).body).toEqual({ message: { fingerprint_sha256: ['cannot be generated'] } });
    expect((await post({ title: 'x', key: freshKey(), expires_at: '2020-01-01T00:00:00Z' })).body).toEqual({ message: { key: ['has expired'] } });
    expect((await post({ title: 'x', key: freshKey(), usage_type: 'everything' })).body).toEqual({ error: 'usage_type does not have a valid value' });
    expect((await post({ title: 'x'.repeat(256), key: freshKey() })).body).toEqual({ message: { title: ['is too long (maximum is 255 characters)'] } });
    const key = freshKey();
    expect((await post({ title: 'a', key })).status).toBe(201);
    const other = await createUser(t);
    const dup = await t.api('POST', '/user/keys', { token: other.token, body: { title: 'b', key } });
    expect([dup.status, dup.body]).toEqual([400, { message: { fingerprint_sha256: ['has already been taken'] } }]);
    // A key pasted across lines is one key.
    const [type, data] = freshKey().split(' ');
    const wrapped = await post({ title: 'w', key: `${type} ${data.slice(0, 20)}\n${data.slice(20)}`, expires_at: '2099-01-01T00:00:00Z' });
    expect(wrapped.status).toBe(201);
    expect(wrapped.body.expires_at).toBe('2099-01-01T00:00:00.000Z');
  });

  it('keeps each user\'s keys to themselves', async () => {
    const a = await createUser(t);
    const b = await createUser(t);
    const key = await t.api('POST', '/user/keys', { token: a.token, body: { title: 'a', key: freshKey() } });
    expect((await t.api('GET', `/user/keys/${key.body.id}`, { token: b.token })).status).toBe(404);
    expect((await t.api('DELETE', `/user/keys/${key.body.id}`, { token: b.token })).status).toBe(404);
    expect((await t.api('GET', `/users/${b.id}/keys/${key.body.id}`)).body).toEqual({ message: '404 Key Not Found' });
    expect((await t.api('GET', '/user/keys', { token: null })).status).toBe(401);
    expect((await t.api('POST', '/user/keys', { token: null, body: { title: 'x', key: freshKey() } })).status).toBe(401);
  });
});

describe('another user\'s keys', () => {
  it('lets administrators add and delete them, and nobody else', async () => {
    const user = await createUser(t);
    const created = await t.api('POST', `/users/${user.id}/keys`, { body: { title: 'by admin', key: freshKey() } });
    expect(created.status).toBe(201);
    expect((await t.api('GET', '/user/keys', { token: user.token })).body.map((k: { id: number }) => k.id)).toEqual([created.body.id]);
    expect((await t.api('POST', `/users/${user.id}/keys`, { token: user.token, body: { title: 'mine', key: freshKey() } })).body).toEqual({ message: '403 Forbidden' });
    expect((await t.api('DELETE', `/users/${user.id}/keys/${created.body.id}`, { token: user.token })).body).toEqual({ message: '403 Forbidden' });
    expect((await t.api('POST', '/users/2147483000/keys', { body: { title: 'x', key: freshKey() } })).body).toEqual({ message: '404 User Not Found' });
    expect((await t.api('GET', '/users/2147483000/keys')).body).toEqual({ message: '404 User Not Found' });
    expect((await t.api('DELETE', `/users/${user.id}/keys/${created.body.id}`)).status).toBe(204);
    expect((await t.api('GET', `/users/${user.id}/keys`)).body).toEqual([]);
  });

  it('works through gitbeaker UserSSHKeys', async () => {
    const user = await createUser(t);
    const asUser = new Gitlab({ host: t.url, token: user.token });
    const mine = await asUser.UserSSHKeys.create('gb', freshKey());
    const theirs = await admin.UserSSHKeys.create('gb-admin', freshKey(), { userId: user.id });
    expect((await asUser.UserSSHKeys.all()).map((k) => k.id)).toEqual([mine.id, theirs.id]);
    expect((await admin.UserSSHKeys.all({ userId: user.id })).map((k) => k.title)).toEqual(['gb', 'gb-admin']);
    expect((await asUser.UserSSHKeys.show(mine.id)).title).toBe('gb');
    await asUser.UserSSHKeys.remove(mine.id);
    await admin.UserSSHKeys.remove(theirs.id, { userId: user.id });
    expect(await asUser.UserSSHKeys.all()).toEqual([]);
  });

  it('runs through GraphQL with the same rules', async () => {
    const user = await createUser(t);
    const create = await t.graphql(
      'mutation($key: String!) { sshKeyCreate(input: { key: $key, title: "gql" }) { sshKey { id title user { username } } errors } }',
      { key: freshKey() },
      user.token,
    );
    expect(create.body.data?.sshKeyCreate).toMatchObject({ sshKey: { title: 'gql', user: { username: user.username } }, errors: [] });
    const read = await t.graphql('{ currentUser { sshKeys { count nodes { title } } } }', {}, user.token);
    expect(read.body.data?.currentUser.sshKeys).toEqual({ count: 1, nodes: [{ title: 'gql' }] });
    const other = await createUser(t);
    const refused = await t.graphql(
      'mutation($u: ID!, $k: ID!) { sshKeyDelete(input: { userId: $u, keyId: $k }) { deleted errors } }',
      { u: String(user.id), k: String(create.body.data?.sshKeyCreate.sshKey.id) },
      other.token,
    );
    expect(refused.body.errors?.[0].extensions?.code).toBe('FORBIDDEN');
  });
});
