/**
 * Project access tokens over REST (GitLab's lib/api/resource_access_tokens.rb): the lifecycle through gitbeaker's
 * ProjectAccessTokens and raw HTTP, GitLab's exact entity, statuses and error bodies, who may do what, and reuse
 * detection of rotated tokens.
 */
import { Gitlab } from '@gitbeaker/rest';
import { beforeAll, describe, expect, it } from 'vitest';
import { suiteServer } from '../support/server.js';
import { addMember, createProject, createUser, type TestUser } from '../support/factories.js';

const t = suiteServer();
const inDays = (n: number) => new Date(Date.now() + n * 86_400_000).toISOString().slice(0, 10);
const TOKEN_KEYS = ['access_level', 'active', 'created_at', 'description', 'expires_at', 'id', 'last_used_at', 'name', 'revoked', 'scopes', 'user_id'];

let owner: TestUser;
let maintainer: TestUser;
let developer: TestUser;
let stranger: TestUser;
let project: { id: number; path_with_namespace: string };

beforeAll(async () => {
  [owner, maintainer, developer, stranger] = await Promise.all([createUser(t), createUser(t), createUser(t), createUser(t)]);
  project = await createProject(t, owner.token);
  await addMember(t, owner.token, 'projects', project.id, maintainer.id, 40);
  await addMember(t, owner.token, 'projects', project.id, developer.id, 30);
});

async function create(token: string, body: Record<string, unknown>, projectId = project.id) {
  return t.api('POST', `/projects/${projectId}/access_tokens`, { token, body: { name: 'ci', scopes: ['api'], expires_at: inDays(30), ...body } });
}

describe('project access tokens: lifecycle', () => {
  it('creates, lists, shows, rotates and revokes through gitbeaker', async () => {
    const api = new Gitlab({ host: t.url, token: maintainer.token });
    const expiresAt = inDays(60);
    // gitbeaker hands GitLab's snake_case keys through unchanged.
    const created: any = await api.ProjectAccessTokens.create(project.id, 'deploy', ['read_repository', 'read_api'], expiresAt, { accessLevel: 30 });
    expect(created).toMatchObject({ name: 'deploy', scopes: ['read_repository', 'read_api'], expires_at: expiresAt, access_level: 30, active: true, revoked: false });
    expect(created.token).toMatch(/^glpat-/);

    // The token is a personal access token of a bot user that is a Developer of the project.
    const bot = await t.api('GET', `/users/${created.user_id}`, { token: owner.token });
    expect(bot.body).toMatchObject({ name: 'deploy', bot: true });
    expect(bot.body.username).toMatch(new RegExp(`^project_${project.id}_bot_[0-9a-f]+$`));
    const member = await t.api('GET', `/projects/${project.id}/members/${created.user_id}`, { token: owner.token });
    expect(member.body).toMatchObject({ id: created.user_id, access_level: 30 });

    const shown: any = await api.ProjectAccessTokens.show(project.id, created.id);
    expect(shown).toMatchObject({ id: created.id, name: 'deploy', access_level: 30 });
    expect(shown).not.toHaveProperty('token');
    const listed = await api.ProjectAccessTokens.all(project.id);
    expect(listed.map((x) => x.id)).toContain(created.id);

    const rotated: any = await api.ProjectAccessTokens.rotate(project.id, created.id);
    expect(rotated).toMatchObject({ name: 'deploy', scopes: ['read_repository', 'read_api'], user_id: created.user_id, access_level: 30, expires_at: inDays(7), active: true });
    expect(rotated.id).not.toBe(created.id);
    expect(rotated.token).not.toBe(created.token);
    expect(await api.ProjectAccessTokens.show(project.id, created.id)).toMatchObject({ revoked: true, active: false });

    await api.ProjectAccessTokens.revoke(project.id, rotated.id);
    expect(await api.ProjectAccessTokens.show(project.id, rotated.id)).toMatchObject({ revoked: true, active: false });
    // The bot left the project and is blocked.
    expect((await t.api('GET', `/projects/${project.id}/members/${created.user_id}`, { token: owner.token })).status).toBe(404);
    expect((await t.api('GET', `/users/${created.user_id}`, { token: owner.token })).body.state).toBe('blocked');
    expect((await t.api('GET', '/user', { token: rotated.token })).status).toBe(401);
  });

  it("answers GitLab's exact entity, with token only on create and rotate", async () => {
    const created = await create(maintainer.token, { name: 'exact', description: 'for CI', scopes: ['read_api'] });
    expect(created.status).toBe(201);
    expect(Object.keys(created.body).sort()).toEqual([...TOKEN_KEYS, 'token'].sort());
    expect(created.body).toEqual({
      id: expect.any(Number),
      name: 'exact',
      revoked: false,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      description: 'for CI',
      scopes: ['read_api'],
      user_id: expect.any(Number),
      last_used_at: null,
      active: true,
      expires_at: inDays(30),
      access_level: 40,
      token: expect.stringMatching(/^glpat-/),
    });
    const shown = await t.api('GET', `/projects/${project.id}/access_tokens/${created.body.id}`, { token: owner.token });
    expect(shown.status).toBe(200);
    expect(Object.keys(shown.body).sort()).toEqual(TOKEN_KEYS.sort());
    const { token: _clear, ...rest } = created.body;
    expect(shown.body).toEqual(rest);

    const rotated = await t.api('POST', `/projects/${project.id}/access_tokens/${created.body.id}/rotate`, { token: owner.token, body: { expires_at: inDays(300) } });
    expect(rotated.status).toBe(200);
    expect(Object.keys(rotated.body).sort()).toEqual([...TOKEN_KEYS, 'token'].sort());
    expect(rotated.body).toMatchObject({ name: 'exact', description: 'for CI', expires_at: inDays(300), user_id: created.body.user_id, revoked: false });

    // Used once, the token shows when.
    expect((await t.api('GET', `/projects/${project.id}`, { token: rotated.body.token })).status).toBe(200);
    const used = await t.api('GET', `/projects/${project.id}/access_tokens/${rotated.body.id}`, { token: owner.token });
    expect(used.body.last_used_at).toEqual(expect.stringMatching(/^\d{4}-/));
  });

  it('lists active and inactive tokens, filters by state, and paginates', async () => {
    const own = await createProject(t, owner.token);
    const a = await create(owner.token, { name: 'a' }, own.id);
    const b = await create(owner.token, { name: 'b' }, own.id);
    const c = await create(owner.token, { name: 'c' }, own.id);
    expect((await t.api('DELETE', `/projects/${own.id}/access_tokens/${b.body.id}`, { token: owner.token })).status).toBe(204);
    const all = await t.api('GET', `/projects/${own.id}/access_tokens`, { token: owner.token });
    expect(all.body.map((x: { id: number }) => x.id)).toEqual([a.body.id, b.body.id, c.body.id]);
    expect(all.headers.get('x-total')).toBe('3');
    const active = await t.api('GET', `/projects/${own.id}/access_tokens?state=active`, { token: owner.token });
    expect(active.body.map((x: { id: number }) => x.id)).toEqual([a.body.id, c.body.id]);
    const inactive = await t.api('GET', `/projects/${own.id}/access_tokens?state=inactive`, { token: owner.token });
    expect(inactive.body.map((x: { id: number; active: boolean }) => [x.id, x.active])).toEqual([[b.body.id, false]]);
    const page = await t.api('GET', `/projects/${own.id}/access_tokens?per_page=2&page=2`, { token: owner.token });
    expect(page.body.map((x: { id: number }) => x.id)).toEqual([c.body.id]);
    expect(page.headers.get('x-page')).toBe('2');
    const bad = await t.api('GET', `/projects/${own.id}/access_tokens?state=revoked`, { token: owner.token });
    expect([bad.status, bad.body]).toEqual([400, { error: 'state does not have a valid value' }]);
    // Another project's tokens are not among them.
    expect((await t.api('GET', `/projects/${project.id}/access_tokens`, { token: owner.token })).body.map((x: { id: number }) => x.id)).not.toContain(a.body.id);
  });

  it('accepts form fields and the project by full path', async () => {
    const res = await fetch(`${t.url}/api/v4/projects/${encodeURIComponent(project.path_with_namespace)}/access_tokens`, {
      method: 'POST',
      headers: { 'PRIVATE-TOKEN': owner.token, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: `name=form&scopes[]=read_repository&scopes[]=write_repository&expires_at=${inDays(10)}&access_level=20`,
    });
    expect(res.status).toBe(201);
    expect(await res.json()).toMatchObject({ name: 'form', scopes: ['read_repository', 'write_repository'], access_level: 20, expires_at: inDays(10) });
  });
});

describe('project access tokens: bad input', () => {
  it("answers GitLab's 400s for parameters", async () => {
    const cases: [Record<string, unknown>, unknown][] = [
      [{ name: undefined }, { error: 'name is missing' }],
      [{ scopes: undefined }, { error: 'scopes is missing' }],
      [{ expires_at: undefined }, { error: 'expires_at is missing' }],
      [{ scopes: ['api', 'sudo'] }, { error: 'scopes does not have a valid value' }],
      [{ scopes: ['read_user'] }, { error: 'scopes does not have a valid value' }],
      [{ access_level: 0 }, { error: 'access_level does not have a valid value' }],
      [{ access_level: 60 }, { error: 'access_level does not have a valid value' }],
      [{ expires_at: 'soon' }, { error: 'expires_at is invalid' }],
      [{ scopes: [] }, { message: "400 Bad request - Scopes can't be blank" }],
      [{ name: ' ' }, { message: "400 Bad request - Name can't be blank" }],
      [{ name: 'x'.repeat(256) }, { message: '400 Bad request - Name is too long (maximum is 255 characters)' }],
      [{ expires_at: inDays(366) }, { message: `400 Bad request - Expires at must be before ${inDays(365)}` }],
      [{ expires_at: inDays(0) }, { message: '400 Bad request - Expires at must be in the future' }],
    ];
    for (const [body, expected] of cases) {
      const res = await create(owner.token, body);
      expect([res.status, res.body], JSON.stringify(body)).toEqual([400, expected]);
    }
    // At the maximum lifetime exactly, the token is made.
    expect((await create(owner.token, { expires_at: inDays(365) })).status).toBe(201);
    // Nothing was left behind by the refusals: no bot users.
    const names = (await t.api('GET', `/projects/${project.id}/members/all?per_page=100`, { token: owner.token })).body.map((m: { name: string }) => m.name);
    expect(names.filter((n: string) => n === ' ' || n.startsWith('xxx'))).toEqual([]);
  });

  it("refuses a Maintainer an Owner token in GitLab's words, and grants an Owner one", async () => {
    const refused = await create(maintainer.token, { access_level: 50 });
    expect([refused.status, refused.body]).toEqual([400, { message: '400 Bad request - Access level of the token contains permissions not held by the creating user' }]);
    const owned = await create(owner.token, { access_level: 50 });
    expect([owned.status, owned.body.access_level]).toEqual([201, 50]);
    // Nor may the Maintainer rotate the Owner's token.
    const rotate = await t.api('POST', `/projects/${project.id}/access_tokens/${owned.body.id}/rotate`, { token: maintainer.token });
    expect([rotate.status, rotate.body]).toEqual([400, { message: '400 Bad request - Not eligible to rotate tokens with permissions not held by the user' }]);
    // An administrator may do both.
    const byAdmin = await t.api('POST', `/projects/${project.id}/access_tokens/${owned.body.id}/rotate`, { token: t.rootToken });
    expect(byAdmin.status).toBe(200);
  });

  it('refuses rotation of a revoked token and an expiry beyond a year', async () => {
    const created = await create(owner.token, {});
    const far = await t.api('POST', `/projects/${project.id}/access_tokens/${created.body.id}/rotate`, { token: owner.token, body: { expires_at: inDays(366) } });
    expect([far.status, far.body]).toEqual([400, { message: `400 Bad request - Expires at must be before ${inDays(365)}` }]);
    // The refused rotation left the token working.
    expect((await t.api('GET', '/user', { token: created.body.token })).status).toBe(200);
    expect((await t.api('DELETE', `/projects/${project.id}/access_tokens/${created.body.id}`, { token: owner.token })).status).toBe(204);
    const again = await t.api('POST', `/projects/${project.id}/access_tokens/${created.body.id}/rotate`, { token: owner.token });
    expect([again.status, again.body]).toEqual([400, { message: '400 Bad request - Token already revoked' }]);
    const twice = await t.api('DELETE', `/projects/${project.id}/access_tokens/${created.body.id}`, { token: owner.token });
    expect(twice.status).toBe(204);
  });
});

describe('project access tokens: who may', () => {
  it('lets Developers do nothing: 401 to read and rotate, 400 to create and revoke', async () => {
    const token = await create(maintainer.token, { name: 'guarded' });
    const base = `/projects/${project.id}/access_tokens`;
    const unauthorized = { message: '401 Unauthorized' };
    for (const [method, path] of [
      ['GET', base],
      ['GET', `${base}/${token.body.id}`],
      ['POST', `${base}/${token.body.id}/rotate`],
    ]) {
      const res = await t.api(method, path, { token: developer.token });
      expect([res.status, res.body], `${method} ${path}`).toEqual([401, unauthorized]);
    }
    const created = await create(developer.token, {});
    expect([created.status, created.body]).toEqual([400, { message: '400 Bad request - User does not have permission to create project access token' }]);
    const dev = await t.api('GET', '/user', { token: developer.token });
    const revoked = await t.api('DELETE', `${base}/${token.body.id}`, { token: developer.token });
    expect([revoked.status, revoked.body]).toEqual([400, { message: `400 Bad request - ${dev.body.name} cannot delete guarded` }]);
    // Still working.
    expect((await t.api('GET', `/projects/${project.id}`, { token: token.body.token })).status).toBe(200);
  });

  it('hides the private project from non-members (404) and another project’s tokens (404)', async () => {
    const token = await create(owner.token, {});
    const base = `/projects/${project.id}/access_tokens`;
    for (const [method, path] of [
      ['GET', base],
      ['GET', `${base}/${token.body.id}`],
      ['POST', base],
      ['POST', `${base}/${token.body.id}/rotate`],
      ['DELETE', `${base}/${token.body.id}`],
    ]) {
      const body = method === 'POST' ? { name: 'x', scopes: ['api'], expires_at: inDays(3) } : undefined;
      const res = await t.api(method, path, { token: stranger.token, body });
      expect([res.status, res.body], `${method} ${path}`).toEqual([404, { message: '404 Project Not Found' }]);
    }
    expect((await t.api('GET', base, { token: null })).status).toBe(401);

    // The stranger's own project does not reach this project's token by its id.
    const theirs = await createProject(t, stranger.token);
    const other = `/projects/${theirs.id}/access_tokens/${token.body.id}`;
    expect(await t.api('GET', other, { token: stranger.token }).then((r) => [r.status, r.body])).toEqual([404, { message: '404 project Access Token Not Found' }]);
    expect(await t.api('DELETE', other, { token: stranger.token }).then((r) => [r.status, r.body])).toEqual([404, { message: '404 project Access Token Not Found' }]);
    expect(await t.api('POST', `${other}/rotate`, { token: stranger.token }).then((r) => [r.status, r.body])).toEqual([401, { message: '401 Unauthorized' }]);
    expect(await t.api('POST', `${other}/rotate`, { token: t.rootToken }).then((r) => [r.status, r.body])).toEqual([404, { message: '404 Not Found' }]);
    expect(await t.api('GET', `${base}/999999`, { token: owner.token }).then((r) => [r.status, r.body])).toEqual([404, { message: '404 project Access Token Not Found' }]);
    expect(await t.api('GET', `${base}/abc`, { token: owner.token }).then((r) => [r.status, r.body])).toEqual([404, { message: '404 project Access Token Not Found' }]);
    // A personal access token is no project access token.
    const pat = await t.api('GET', '/personal_access_tokens/self', { token: owner.token });
    expect((await t.api('GET', `${base}/${pat.body.id}`, { token: owner.token })).status).toBe(404);
    expect((await t.api('DELETE', `${base}/${pat.body.id}`, { token: owner.token })).status).toBe(404);
    expect((await t.api('GET', '/user', { token: owner.token })).status).toBe(200);
    // Token still works after all of it.
    expect((await t.api('GET', `/projects/${project.id}`, { token: token.body.token })).status).toBe(200);
  });

  it('needs the api scope to create, rotate or revoke; read_api lists', async () => {
    const reader = await createUser(t, { scopes: ['read_api'] });
    const own = await createProject(t, owner.token);
    await addMember(t, owner.token, 'projects', own.id, reader.id, 40);
    const token = await create(owner.token, {}, own.id);
    expect((await t.api('GET', `/projects/${own.id}/access_tokens`, { token: reader.token })).status).toBe(200);
    const refused = await create(reader.token, {}, own.id);
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ error: 'insufficient_scope', error_description: 'The request requires higher privileges than provided by the access token.', scope: 'api' });
    expect((await t.api('POST', `/projects/${own.id}/access_tokens/${token.body.id}/rotate`, { token: reader.token })).status).toBe(403);
    expect((await t.api('DELETE', `/projects/${own.id}/access_tokens/${token.body.id}`, { token: reader.token })).status).toBe(403);
  });
});

describe('project access tokens: reuse detection', () => {
  it('revokes the whole family when a rotated token is presented to rotate again', async () => {
    const first = await create(owner.token, { name: 'family' });
    // The token rotates itself, twice: first → second → third.
    const second = await t.api('POST', `/projects/${project.id}/access_tokens/self/rotate`, { token: first.body.token });
    expect([second.status, second.body.name, second.body.expires_at]).toEqual([200, 'family', inDays(7)]);
    const third = await t.api('POST', `/projects/${project.id}/access_tokens/self/rotate`, { token: second.body.token, body: { expires_at: inDays(20) } });
    expect([third.status, third.body.expires_at]).toEqual([200, inDays(20)]);
    // The newest token works, and is remembered by the credential cache.
    expect((await t.api('GET', `/projects/${project.id}`, { token: third.body.token })).status).toBe(200);
    expect((await t.api('GET', `/projects/${project.id}`, { token: third.body.token })).status).toBe(200);

    // Someone holding the leaked first token tries to rotate with it: 401, and the family is revoked.
    const reuse = await t.api('POST', `/projects/${project.id}/access_tokens/${third.body.id}/rotate`, { token: first.body.token });
    expect(reuse.status).toBe(401);
    expect(reuse.body).toEqual({ error: 'invalid_token', error_description: 'Token was revoked. You have to re-authorize from the user.' });
    const after = await t.api('GET', `/projects/${project.id}`, { token: third.body.token });
    expect([after.status, after.body]).toEqual([401, { error: 'invalid_token', error_description: 'Token was revoked. You have to re-authorize from the user.' }]);
    for (const id of [first.body.id, second.body.id, third.body.id]) {
      expect((await t.api('GET', `/projects/${project.id}/access_tokens/${id}`, { token: owner.token })).body).toMatchObject({ revoked: true, active: false });
    }
  });

  it('revokes the family through self/rotate too, and nothing outside it', async () => {
    const first = await create(owner.token, { name: 'kin' });
    const bystander = await create(owner.token, { name: 'bystander' });
    const second = await t.api('POST', `/projects/${project.id}/access_tokens/${first.body.id}/rotate`, { token: owner.token });
    expect(second.status).toBe(200);
    const reuse = await t.api('POST', `/projects/${project.id}/access_tokens/self/rotate`, { token: first.body.token });
    expect(reuse.status).toBe(401);
    expect((await t.api('GET', '/user', { token: second.body.token })).status).toBe(401);
    expect((await t.api('GET', '/user', { token: bystander.body.token })).status).toBe(200);
    expect((await t.api('GET', '/user', { token: owner.token })).status).toBe(200);
  });

  it('does not revoke the family when a revoked token is used elsewhere, or rotated by a Maintainer', async () => {
    const first = await create(owner.token, { name: 'elsewhere' });
    const second = await t.api('POST', `/projects/${project.id}/access_tokens/${first.body.id}/rotate`, { token: owner.token });
    // Used on another endpoint: only the 401 (GitLab limits reuse detection to rotation).
    expect((await t.api('GET', `/projects/${project.id}`, { token: first.body.token })).status).toBe(401);
    expect((await t.api('POST', `/projects/${project.id}/access_tokens`, { token: first.body.token, body: {} })).status).toBe(401);
    // Rotated by id with a valid token: 400, and nothing else is revoked.
    const byId = await t.api('POST', `/projects/${project.id}/access_tokens/${first.body.id}/rotate`, { token: owner.token });
    expect([byId.status, byId.body]).toEqual([400, { message: '400 Bad request - Token already revoked' }]);
    expect((await t.api('GET', '/user', { token: second.body.token })).status).toBe(200);
  });

  it('answers self-rotation by a personal access token 405, and by another project’s token 401', async () => {
    const pat = await t.api('POST', `/projects/${project.id}/access_tokens/self/rotate`, { token: owner.token });
    expect([pat.status, pat.body]).toEqual([405, { message: '405 Method Not Allowed' }]);
    const own = await createProject(t, owner.token);
    const elsewhere = await create(owner.token, {}, own.id);
    const other = await t.api('POST', `/projects/${project.id}/access_tokens/self/rotate`, { token: elsewhere.body.token });
    expect(other.status).toBe(404);
    // A token that sees the other project (a public one) still may not rotate itself there.
    const open = await createProject(t, owner.token, { visibility: 'public' });
    const wrong = await t.api('POST', `/projects/${open.id}/access_tokens/self/rotate`, { token: elsewhere.body.token });
    expect([wrong.status, wrong.body]).toEqual([401, { message: '401 Unauthorized' }]);
    // A token with only self_rotate may rotate itself, and nothing else.
    const narrow = await create(owner.token, { scopes: ['self_rotate'] }, own.id);
    expect((await t.api('GET', `/projects/${own.id}`, { token: narrow.body.token })).status).toBe(403);
    const rotated = await t.api('POST', `/projects/${own.id}/access_tokens/self/rotate`, { token: narrow.body.token });
    expect([rotated.status, rotated.body.scopes, rotated.body.access_level]).toEqual([200, ['self_rotate'], 40]);
    // A read_api token may not.
    const reader = await create(owner.token, { scopes: ['read_api'] }, own.id);
    expect((await t.api('POST', `/projects/${own.id}/access_tokens/self/rotate`, { token: reader.body.token })).status).toBe(403);
  });
});
