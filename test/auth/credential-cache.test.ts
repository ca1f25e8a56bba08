/**
 * The memory of tokens (src/auth/credential-cache.ts) never serves a revoked, expired or blocked token, and a
 * revocation is seen by the revoking caller's next request and, through the bus, by other replicas; remembered
 * memberships (src/auth/memberships.ts) likewise.
 */
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { CredentialCache } from '../../src/auth/credential-cache.js';
import { CREDENTIALS_REVOKED, VIEWER_CHANGED } from '../../src/auth/credentials.js';
import type { Viewer } from '../../src/auth/viewer.js';
import { startTestServer, suiteServer, type TestServer } from '../support/server.js';
import { createProject, createUser } from '../support/factories.js';
import { eventually } from '../support/wait.js';

let statements: string[] = [];
const t = suiteServer({}, { onQuery: (sql) => statements.push(sql) });
const authQueries = () => statements.filter((sql) => sql.includes('"personal_access_tokens" t JOIN "users" u')).length;

describe('the memory of tokens, on a real server', () => {
  it('authenticates a token once, then answers from memory', async () => {
    const user = await createUser(t);
    expect((await t.api('GET', '/version', { token: user.token })).status).toBe(200);
    statements = [];
    for (let i = 0; i < 5; i++) expect((await t.api('GET', '/version', { token: user.token })).status).toBe(200);
    expect(authQueries()).toBe(0);
  });

  it('refuses a token revoked by its owner on the very next request', async () => {
    const user = await createUser(t);
    expect((await t.api('GET', '/user', { token: user.token })).status).toBe(200);
    expect((await t.api('DELETE', '/personal_access_tokens/self', { token: user.token })).status).toBe(204);
    const after = await t.api('GET', '/user', { token: user.token });
    expect([after.status, after.body.error]).toEqual([401, 'invalid_token']);
  });

  it('refuses a token an administrator revoked, over GraphQL too', async () => {
    const user = await createUser(t);
    expect((await t.graphql('{ currentUser { id } }', {}, user.token)).body.data?.currentUser).toBeTruthy();
    const self = await t.api('GET', '/personal_access_tokens/self', { token: user.token });
    expect((await t.api('DELETE', `/personal_access_tokens/${self.body.id}`)).status).toBe(204);
    expect((await t.api('GET', '/version', { token: user.token })).status).toBe(401);
    expect((await t.graphql('{ currentUser { id } }', {}, user.token)).status).toBe(401);
  });

  it('refuses a blocked user on the very next request, and serves them again once unblocked', async () => {
    const user = await createUser(t);
    expect((await t.api('GET', '/user', { token: user.token })).status).toBe(200);
    const blocked = await t.api('POST', `/users/${user.id}/block`);
    expect([blocked.status, blocked.body]).toEqual([201, true]);
    const refused = await t.api('GET', '/user', { token: user.token });
    expect([refused.status, refused.body]).toEqual([403, { message: '403 Forbidden - Your account has been blocked.' }]);
    expect((await t.graphql('{ currentUser { id } }', {}, user.token)).status).toBe(403);
    expect((await t.api('POST', `/users/${user.id}/block`)).body).toBeNull();
    expect((await t.api('POST', `/users/${user.id}/unblock`)).status).toBe(201);
    expect((await t.api('GET', '/user', { token: user.token })).status).toBe(200);
  });

  it('lets only administrators block, and hides nothing they may not see', async () => {
    const user = await createUser(t);
    const other = await createUser(t);
    expect((await t.api('POST', `/users/${other.id}/block`, { token: user.token })).status).toBe(403);
    expect((await t.api('POST', '/users/2147483000/block')).body).toEqual({ message: '404 User Not Found' });
    expect((await t.api('GET', '/user', { token: other.token })).status).toBe(200);
  });

  it('forgets every token of a user when the bus says the user changed', async () => {
    const other = await createUser(t);
    expect((await t.api('GET', '/user', { token: other.token })).body.is_admin).toBeUndefined();
    await t.server.database.prisma.user.update({ where: { id: other.id }, data: { admin: true } });
    await t.server.app.bus.delivered([await t.server.app.bus.publish(VIEWER_CHANGED, { userId: other.id })]);
    expect((await t.api('GET', '/user', { token: other.token })).body.is_admin).toBe(true);
  });
});

describe('remembered memberships', () => {
  it('a membership granted counts on the member\'s very next request', async () => {
    const owner = await createUser(t);
    const member = await createUser(t);
    const project = await createProject(t, owner.token, { visibility: 'private' });
    expect((await t.api('GET', `/projects/${project.id}`, { token: member.token })).status).toBe(404);
    statements = [];
    expect((await t.api('GET', `/projects/${project.id}`, { token: member.token })).status).toBe(404);
    expect(statements.filter((sql) => sql.includes('"public"."members"')).length).toBe(0);
    expect((await t.api('POST', `/projects/${project.id}/members`, { token: owner.token, body: { user_id: member.id, access_level: 30 } })).status).toBe(201);
    const seen = await t.api('GET', `/projects/${project.id}`, { token: member.token });
    expect([seen.status, seen.body.permissions?.project_access?.access_level]).toEqual([200, 30]);
  });
});

describe.runIf(process.env.TEST_DATABASE_URL)('across replicas (PostgreSQL)', () => {
  let replica: TestServer;
  afterAll(() => replica?.close());
  /** Resolves when the replica's bus delivers the next revocation. */
  const revocationHeard = (server: TestServer) =>
    new Promise<void>((resolve) => {
      const stop = server.server.app.bus.subscribe(CREDENTIALS_REVOKED, () => {
        stop();
        resolve();
      });
    });

  it('a user blocked on one replica is refused by the other as soon as the news arrives', async () => {
    replica ??= await startTestServer({}, { replicaOf: t });
    const user = await createUser(t);
    expect((await replica.api('GET', '/user', { token: user.token })).status).toBe(200);
    const heard = revocationHeard(replica);
    expect((await t.api('POST', `/users/${user.id}/block`)).status).toBe(201);
    await heard;
    expect((await replica.api('GET', '/user', { token: user.token })).status).toBe(403);
  });

  it('a user banned, deactivated or deleted on one replica is refused by the other as soon as the news arrives', async () => {
    replica ??= await startTestServer({}, { replicaOf: t });
    for (const act of ['ban', 'deactivate', 'delete'] as const) {
      const user = await createUser(t);
      expect((await replica.api('GET', '/user', { token: user.token })).status).toBe(200);
      if (act === 'deactivate') {
        // That request made the user active today; GitLab deactivates only users inactive for 90 days.
        const db = t.server.database.prisma;
        await eventually(async () => (await db.user.findUnique({ where: { id: user.id } }))?.lastActivityOn);
        await db.user.update({ where: { id: user.id }, data: { lastActivityOn: new Date(Date.now() - 100 * 86_400_000) } });
      }
      const heard = revocationHeard(replica);
      const res = act === 'delete' ? await t.api('DELETE', `/users/${user.id}`) : await t.api('POST', `/users/${user.id}/${act}`);
      expect(res.status).toBeLessThan(300);
      await heard;
      expect((await replica.api('GET', '/user', { token: user.token })).status).toBe(act === 'delete' ? 401 : 403);
    }
  });

  it('a token revoked on one replica stops working on the other as soon as the news arrives', async () => {
    replica ??= await startTestServer({}, { replicaOf: t });
    const user = await createUser(t);
    expect((await replica.api('GET', '/user', { token: user.token })).status).toBe(200);
    const heard = revocationHeard(replica);
    expect((await t.api('DELETE', '/personal_access_tokens/self', { token: user.token })).status).toBe(204);
    await heard;
    expect((await replica.api('GET', '/user', { token: user.token })).status).toBe(401);
  });
});

describe('CredentialCache', () => {
  const listeners = new Map<string, (payload: unknown) => void>();
  const bus = { subscribe: (topic: string, handler: (payload: unknown) => void) => (listeners.set(topic, handler), () => listeners.delete(topic)) };
  const viewer = (over: Partial<Viewer> = {}): Viewer => ({ id: 1, username: 'u', admin: false, external: false, bot: false, canCreateGroup: true, tokenId: 7, tokenExpiresAt: null, scopes: ['api'], ...over });
  afterEach(() => vi.useRealTimers());

  it('looks a token up again after its time to live and at the start of its expiry day', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-11-23T23:59:00Z'));
    const lookups = vi.fn(async () => viewer({ tokenExpiresAt: new Date('2026-11-24T00:00:00Z') }));
    const authenticate = new CredentialCache(bus, 30_000).wrap(lookups);
    await authenticate('d');
    await authenticate('d');
    expect(lookups).toHaveBeenCalledTimes(1);
    vi.setSystemTime(new Date('2026-11-23T23:59:31Z'));
    await authenticate('d');
    expect(lookups).toHaveBeenCalledTimes(2);
    vi.setSystemTime(new Date('2026-11-24T00:00:00Z'));
    await authenticate('d');
    expect(lookups).toHaveBeenCalledTimes(3);
  });

  it('does not remember failures, nor a lookup that was under way when a revocation arrived', async () => {
    let release: (v: Viewer) => void = () => {};
    const lookups = vi
      .fn<(digest: string) => Promise<Viewer>>()
      .mockRejectedValueOnce(new Error('unknown token'))
      .mockImplementationOnce(() => new Promise<Viewer>((resolve) => (release = resolve)))
      .mockResolvedValue(viewer());
    const authenticate = new CredentialCache(bus).wrap(lookups);
    await expect(authenticate('d')).rejects.toThrow('unknown token');
    const slow = authenticate('d');
    listeners.get(CREDENTIALS_REVOKED)?.({ tokenId: 7 });
    release(viewer());
    await slow;
    await authenticate('d');
    expect(lookups).toHaveBeenCalledTimes(3);
  });

  it('drops only the tokens the news concerns', async () => {
    const lookups = vi.fn(async (digest: string) => viewer(digest === 'a' ? { id: 1, tokenId: 10 } : { id: 2, tokenId: 20 }));
    const authenticate = new CredentialCache(bus).wrap(lookups);
    await Promise.all([authenticate('a'), authenticate('b')]);
    listeners.get(VIEWER_CHANGED)?.({ userId: 1 });
    await Promise.all([authenticate('a'), authenticate('b')]);
    expect(lookups.mock.calls.map(([d]) => d)).toEqual(['a', 'b', 'a']);
  });
});
