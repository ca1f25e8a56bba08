/**
 * What a project access token authenticates as: its bot user, with exactly the token's scopes and the bot's level on
 * its one project, on REST, GraphQL, graphql-ws and git over HTTP; and a revoked or expired token refused with 401 on
 * all of them, at once, whatever the credential cache remembered.
 */
import { join } from 'node:path';
import { createClient } from 'graphql-ws';
import { beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { suiteServer } from '../support/server.js';
import { createProject, createUser, type TestUser } from '../support/factories.js';
import { cloneUrl, gitSandbox } from '../support/git.js';
import { eventually } from '../support/wait.js';

const t = suiteServer();
const git = gitSandbox();
const inDays = (n: number) => new Date(Date.now() + n * 86_400_000).toISOString().slice(0, 10);
const REVOKED = { error: 'invalid_token', error_description: 'Token was revoked. You have to re-authorize from the user.' };
const EXPIRED = { error: 'invalid_token', error_description: 'Token is expired. You can either do re-authorization or token refresh.' };

let owner: TestUser;
let project: { id: number; path_with_namespace: string };

beforeAll(async () => {
  owner = await createUser(t);
  project = await createProject(t, owner.token);
  const commit = await t.api('POST', `/projects/${project.id}/repository/commits`, {
    token: owner.token,
    body: { branch: 'main', commit_message: 'Initial', actions: [{ action: 'create', file_path: 'README.md', content: '# Tokens\n' }] },
  });
  expect(commit.status, commit.text).toBe(201);
});

async function projectToken(body: Record<string, unknown>, projectId = project.id): Promise<{ id: number; token: string; user_id: number }> {
  const res = await t.api('POST', `/projects/${projectId}/access_tokens`, { token: owner.token, body: { name: 'bot', scopes: ['api'], expires_at: inDays(30), ...body } });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

/** `git ls-remote` over HTTP with the token as password: git's exit code, and its words. */
async function lsRemote(token: string) {
  return git.run(git.root, ['ls-remote', cloneUrl(t.url, project.path_with_namespace, token)]);
}

/** The status of git's first request (the ref advertisement) with the token as Basic password. */
async function gitStatus(token: string, service = 'git-upload-pack'): Promise<number> {
  const res = await fetch(`${t.url}/${project.path_with_namespace}.git/info/refs?service=${service}`, {
    headers: { Authorization: `Basic ${Buffer.from(`oauth2:${token}`).toString('base64')}` },
  });
  return res.status;
}

function wsClient(token: string) {
  return createClient({ url: `${t.url.replace('http', 'ws')}/api/graphql`, webSocketImpl: WebSocket, connectionParams: { 'PRIVATE-TOKEN': token }, retryAttempts: 0, lazy: false, onNonLazyError: () => {} });
}

/** Whether graphql-ws accepts a connection with the token: the close code it ends with, or 'connected'. */
async function wsOutcome(token: string): Promise<number | 'connected'> {
  const client = wsClient(token);
  try {
    return await new Promise((resolve) => {
      client.on('connected', () => resolve('connected'));
      client.on('closed', (event) => resolve((event as { code: number }).code));
    });
  } finally {
    await client.dispose();
  }
}

describe('a project access token acts as its bot', () => {
  it('is the bot on every surface, and reaches only its own project', async () => {
    const token = await projectToken({ name: 'surface bot', access_level: 30 });
    const me = await t.api('GET', '/user', { token: token.token });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ id: token.user_id, name: 'surface bot', bot: true });
    const gql = await t.graphql('{ currentUser { username type } project(fullPath: "' + project.path_with_namespace + '") { id } }', {}, token.token);
    expect(gql.body.data).toEqual({ currentUser: { username: me.body.username, type: 'PROJECT_BOT' }, project: { id: `gid://gitlab/Project/${project.id}` } });
    expect(await wsOutcome(token.token)).toBe('connected');
    const cloned = await lsRemote(token.token);
    expect(cloned.code, cloned.stderr).toBe(0);
    expect(cloned.stdout).toMatch(/refs\/heads\/main/);

    // The owner's other private project is not the bot's.
    const other = await createProject(t, owner.token);
    expect((await t.api('GET', `/projects/${other.id}`, { token: token.token })).status).toBe(404);
    const visible = await t.api('GET', '/projects?membership=true', { token: token.token });
    expect(visible.body.map((p: { id: number }) => p.id)).toEqual([project.id]);
  });

  it('is held to its scopes: read_api reads and cannot write; read_repository clones and cannot push or call the API', async () => {
    const reader = await projectToken({ scopes: ['read_api'] });
    expect((await t.api('GET', `/projects/${project.id}/repository/branches`, { token: reader.token })).status).toBe(200);
    const write = await t.api('POST', `/projects/${project.id}/repository/branches`, { token: reader.token, body: { branch: 'by-reader', ref: 'main' } });
    expect([write.status, write.body.error]).toEqual([403, 'insufficient_scope']);
    const mutation = await t.graphql(`mutation { projectAccessTokenSelfRotate(input: { projectPath: "${project.id}" }) { errors } }`, {}, reader.token);
    expect(mutation.body.errors?.[0]?.extensions?.code).toBe('INSUFFICIENT_SCOPE');
    expect(await gitStatus(reader.token, 'git-receive-pack')).toBe(403);

    const cloner = await projectToken({ scopes: ['read_repository'] });
    expect((await lsRemote(cloner.token)).code).toBe(0);
    expect((await t.api('GET', `/projects/${project.id}`, { token: cloner.token })).status).toBe(403);
    expect(await gitStatus(cloner.token, 'git-receive-pack')).toBe(403);
    expect(await gitStatus(cloner.token)).toBe(200);
  });

  it('is held to its level: a Developer bot pushes a branch but administers nothing; a Guest bot reads no code', async () => {
    const developer = await projectToken({ access_level: 30, scopes: ['api'] });
    const branch = await t.api('POST', `/projects/${project.id}/repository/branches`, { token: developer.token, body: { branch: 'by-bot', ref: 'main' } });
    expect(branch.status).toBe(201);
    const dir = join(git.folder(), 'push');
    await git.ok(git.root, ['clone', '--quiet', cloneUrl(t.url, project.path_with_namespace, developer.token), dir]);
    await git.ok(dir, ['commit', '--quiet', '--allow-empty', '-m', 'bot commit']);
    expect((await git.run(dir, ['push', '--quiet', 'origin', 'HEAD:bot-feature'])).code).toBe(0);
    // main is protected: Maintainers push.
    expect((await git.run(dir, ['push', '--quiet', 'origin', 'HEAD:main'])).code).not.toBe(0);
    expect((await t.api('POST', `/projects/${project.id}/variables`, { token: developer.token, body: { key: 'K', value: 'v' } })).status).toBe(403);
    expect((await t.api('GET', `/projects/${project.id}/access_tokens`, { token: developer.token })).status).toBe(401);
    expect((await t.api('POST', `/projects/${project.id}/members`, { token: developer.token, body: { user_id: owner.id, access_level: 30 } })).status).toBe(403);
    expect((await t.api('DELETE', `/projects/${project.id}`, { token: developer.token })).status).toBe(403);

    const guest = await projectToken({ access_level: 10, scopes: ['api'] });
    expect((await t.api('GET', `/projects/${project.id}`, { token: guest.token })).status).toBe(200);
    expect((await t.api('GET', `/projects/${project.id}/repository/tree`, { token: guest.token })).status).toBe(403);
    expect((await lsRemote(guest.token)).code).not.toBe(0);
  });

  it('a Maintainer bot reads its siblings but creates no token, and creates nothing outside its project', async () => {
    const maintainer = await projectToken({ access_level: 40 });
    const sibling = await projectToken({ name: 'sibling' });
    const list = await t.api('GET', `/projects/${project.id}/access_tokens`, { token: maintainer.token });
    expect(list.body.map((x: { id: number }) => x.id)).toEqual(expect.arrayContaining([maintainer.id, sibling.id]));
    const create = await t.api('POST', `/projects/${project.id}/access_tokens`, { token: maintainer.token, body: { name: 'x', scopes: ['api'], expires_at: inDays(3) } });
    expect([create.status, create.body]).toEqual([400, { message: '400 Bad request - User does not have permission to create project access token' }]);
    // A bot's project limit is 0 (GitLab's bots get none of their own).
    const own = await t.api('POST', '/projects', { token: maintainer.token, body: { name: 'bot-project' } });
    expect(own.status, own.text).toBe(400);
    expect((await t.api('GET', `/users/${maintainer.user_id}/projects`, { token: owner.token })).body).toEqual([]);
    expect((await t.api('POST', '/groups', { token: maintainer.token, body: { name: 'bot-group', path: `bot-group-${maintainer.id}` } })).status).toBe(403);
  });
});

describe('a revoked or expired project access token gets 401 everywhere', () => {
  it('revoked: REST, GraphQL, graphql-ws and git, even right after it was remembered', async () => {
    const token = await projectToken({ name: 'to revoke' });
    // Remembered by the credential cache, and holding a live subscription.
    expect((await t.api('GET', `/projects/${project.id}`, { token: token.token })).status).toBe(200);
    expect((await t.graphql('{ currentUser { id } }', {}, token.token)).status).toBe(200);
    expect(await gitStatus(token.token)).toBe(200);
    const client = wsClient(token.token);
    const closed = new Promise<number>((resolve) => client.on('closed', (event) => resolve((event as { code: number }).code)));
    await new Promise<void>((resolve) => client.on('connected', () => resolve()));
    client.subscribe({ query: 'subscription { activityEventRecorded { id } }' }, { next: () => {}, error: () => {}, complete: () => {} });

    expect((await t.api('DELETE', `/projects/${project.id}/access_tokens/${token.id}`, { token: owner.token })).status).toBe(204);
    const rest = await t.api('GET', `/projects/${project.id}`, { token: token.token });
    expect([rest.status, rest.body]).toEqual([401, REVOKED]);
    expect(rest.headers.get('www-authenticate')).toMatch(/^Bearer realm="Protected by OAuth 2.0", error="invalid_token"/);
    const gql = await t.graphql('{ currentUser { id } }', {}, token.token);
    expect(gql.status).toBe(401);
    expect(await closed).toBe(4401);
    await client.dispose();
    expect(await wsOutcome(token.token)).not.toBe('connected');
    expect(await gitStatus(token.token)).toBe(401);
    expect((await lsRemote(token.token)).code).not.toBe(0);
  });

  it('rotated: the old token stops at once, the new one works', async () => {
    const token = await projectToken({ name: 'to rotate' });
    expect((await t.api('GET', '/user', { token: token.token })).status).toBe(200);
    const rotated = await t.api('POST', `/projects/${project.id}/access_tokens/${token.id}/rotate`, { token: owner.token });
    expect((await t.api('GET', '/user', { token: token.token })).body).toEqual(REVOKED);
    expect(await gitStatus(token.token)).toBe(401);
    expect((await t.api('GET', '/user', { token: rotated.body.token })).body.id).toBe(token.user_id);
    expect(await gitStatus(rotated.body.token)).toBe(200);
  });

  it("goes with its project: a deleted project's tokens are revoked and its bots blocked", async () => {
    const doomed = await createProject(t, owner.token);
    const token = await projectToken({ name: 'doomed' }, doomed.id);
    // Remembered by the credential cache before the deletion.
    expect((await t.api('GET', '/user', { token: token.token })).status).toBe(200);
    expect((await t.api('DELETE', `/projects/${doomed.id}`, { token: owner.token })).status).toBe(202);
    const refused = await eventually(async () => {
      const res = await t.api('GET', '/user', { token: token.token });
      return res.status === 401 && res;
    });
    expect(refused.body).toEqual(REVOKED);
    expect((await t.api('GET', `/users/${token.user_id}`, { token: owner.token })).body.state).toBe('blocked');
  });

  it('expired: REST, GraphQL, graphql-ws and git', async () => {
    const token = await projectToken({ name: 'to expire' });
    // Time passes: the token's expiry day has come.
    await t.server.app.db.personalAccessToken.update({ where: { id: token.id }, data: { expiresAt: new Date(`${inDays(0)}T00:00:00Z`) } });
    const rest = await t.api('GET', `/projects/${project.id}`, { token: token.token });
    expect([rest.status, rest.body]).toEqual([401, EXPIRED]);
    expect((await t.graphql('{ currentUser { id } }', {}, token.token)).status).toBe(401);
    expect(await wsOutcome(token.token)).not.toBe('connected');
    expect(await gitStatus(token.token)).toBe(401);
    const listed = await t.api('GET', `/projects/${project.id}/access_tokens?state=inactive`, { token: owner.token });
    expect(listed.body.map((x: { id: number; active: boolean; revoked: boolean }) => [x.id, x.active, x.revoked])).toContainEqual([token.id, false, false]);
  });
});

describe("bots in GitLab's user lists", () => {
  it('are listed, and left out by without_project_bots, humans and exclude_internal as GitLab filters them', async () => {
    const { user_id: botId } = await projectToken({ name: 'listed' });
    const external = await createUser(t, { external: true });
    const ids = async (query: string) => {
      const res = await t.api('GET', `/users?per_page=100${query}`);
      expect(res.status, res.text).toBe(200);
      return res.body.map((u: { id: number }) => u.id) as number[];
    };
    expect(await ids('')).toContain(botId);
    expect(await ids('&without_project_bots=true')).not.toContain(botId);
    expect(await ids('&humans=true')).not.toContain(botId);
    expect(await ids('&exclude_humans=true')).toContain(botId);
    expect(await ids('&exclude_humans=true')).not.toContain(owner.id);
    expect(await ids('&external=true')).toEqual([external.id]);
    expect(await ids('&exclude_external=true')).not.toContain(external.id);
    const bot = (await t.api('GET', `/users/${botId}`)).body;
    expect(bot).toMatchObject({ id: botId, bot: true });
  });
});
