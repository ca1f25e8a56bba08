/**
 * The Environments and Deployments APIs (GitLab's lib/api/environments.rb, deployments.rb): exact entities, filters,
 * validation errors, GitLab's slug and tier rules, external deployments and their statuses, the permission matrix,
 * GraphQL's environments and mutations, and @gitbeaker/rest's Environments and Deployments.
 */
import { Gitlab } from '@gitbeaker/rest';
import { beforeAll, describe, expect, it } from 'vitest';
import { environmentSlug, guessTier } from '../../src/modules/environments/rules.js';
import { addMember, createProject, createUser, type TestUser } from '../support/factories.js';
import { suiteServer } from '../support/server.js';

const t = suiteServer(process.env.ENV_TEST_LOG ? { logLevel: 'error' } : {});
const ISO = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

async function commitFile(projectId: number): Promise<string> {
  const res = await t.api('POST', `/projects/${projectId}/repository/commits`, {
    body: { branch: 'main', commit_message: 'init', actions: [{ action: 'create', file_path: 'README.md', content: 'hi\n' }] },
  });
  expect(res.status, res.text).toBe(201);
  return res.body.id;
}

describe('environment slugs and tiers', () => {
  it('follows Gitlab::Slug::Environment', () => {
    expect(environmentSlug('production')).toBe('production');
    expect(environmentSlug('staging-1')).toBe('staging-1');
    // Changed by slugging: cut to 17 characters, a dash and a 6-character suffix of the name's SHA-256 in base 36.
    expect(environmentSlug('review/fix-foo')).toMatch(/^review-fix-foo-[a-z0-9]{6}$/);
    expect(environmentSlug('Production')).toMatch(/^production-[a-z0-9]{6}$/);
    expect(environmentSlug('1-foo')).toMatch(/^env-1-foo-[a-z0-9]{6}$/);
    expect(environmentSlug('a-very-long-environment-name-indeed')).toMatch(/^a-very-long-envir-[a-z0-9]{6}$/);
    expect(environmentSlug('foo--bar')).toMatch(/^foo-bar-[a-z0-9]{6}$/);
    expect(environmentSlug('review/fix-foo')).toHaveLength(21);
    expect(environmentSlug('review/fix-foo')).toBe(environmentSlug('review/fix-foo'));
    expect(environmentSlug('review/fix-foo')).not.toBe(environmentSlug('review/fix-bar'));
  });

  it('guesses tiers from names as Environment#guess_tier', () => {
    expect(['review/x', 'dev', 'trunk'].map(guessTier)).toEqual(['development', 'development', 'development']);
    expect(['test', 'qa', 'acceptance', 'int'].map(guessTier)).toEqual(['testing', 'testing', 'testing', 'testing']);
    expect(['staging', 'stg', 'pre-prod', 'demo'].map(guessTier)).toEqual(['staging', 'staging', 'staging', 'staging']);
    expect(['production', 'prd', 'live'].map(guessTier)).toEqual(['production', 'production', 'production']);
    expect(guessTier('canary')).toBe('other');
  });
});

describe('environments API', () => {
  let project: any;
  beforeAll(async () => {
    project = await createProject(t, t.rootToken);
  });

  it('creates, lists, gets, updates, stops and deletes an environment', async () => {
    const created = await t.api('POST', `/projects/${project.id}/environments`, { body: { name: 'review/fix-foo', external_url: 'https://fix-foo.example.com' } });
    expect(created.status, created.text).toBe(201);
    const env = created.body;
    expect(env).toEqual({
      id: expect.any(Number),
      name: 'review/fix-foo',
      slug: environmentSlug('review/fix-foo'),
      description: null,
      external_url: 'https://fix-foo.example.com',
      state: 'available',
      tier: 'development',
      created_at: ISO,
      updated_at: ISO,
      enable_advanced_logs_querying: false,
      logs_api_path: `/${project.path_with_namespace}/-/logs/k8s.json?environment_name=review%2Ffix-foo`,
      auto_stop_at: null,
      auto_stop_setting: 'always',
    });
    const { body: list } = await t.api('GET', `/projects/${project.id}/environments`);
    expect(list).toEqual([env]);
    expect((await t.api('GET', `/projects/${project.id}/environments/${env.id}`)).body).toEqual({ ...env, last_deployment: null });
    expect((await t.api('GET', `/projects/${project.id}/environments/999999`)).body).toEqual({ message: '404 Not found' });

    const updated = await t.api('PUT', `/projects/${project.id}/environments/${env.id}`, { body: { external_url: 'https://new.example.com', tier: 'staging' } });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ external_url: 'https://new.example.com', tier: 'staging' });

    // Only a stopped environment is deleted.
    expect((await t.api('DELETE', `/projects/${project.id}/environments/${env.id}`)).status).toBe(403);
    const stopped = await t.api('POST', `/projects/${project.id}/environments/${env.id}/stop`);
    expect(stopped.status).toBe(200);
    expect(stopped.body).toMatchObject({ id: env.id, state: 'stopped' });
    expect((await t.api('DELETE', `/projects/${project.id}/environments/${env.id}`)).status).toBe(204);
    expect((await t.api('GET', `/projects/${project.id}/environments/${env.id}`)).status).toBe(404);
  });

  it('refuses invalid names, duplicates and URLs in GitLab words', async () => {
    await t.api('POST', `/projects/${project.id}/environments`, { body: { name: 'production' } });
    expect((await t.api('POST', `/projects/${project.id}/environments`, { body: { name: 'production' } })).body).toEqual({ message: { name: ['has already been taken'] } });
    expect((await t.api('POST', `/projects/${project.id}/environments`, { body: { name: '/bad' } })).body).toEqual({
      message: { name: ["can contain only letters, digits, '-', '_', '/', '$', '{', '}', '.', and spaces, but it cannot start or end with '/'"] },
    });
    expect((await t.api('POST', `/projects/${project.id}/environments`, { body: { name: 'x', external_url: 'ftp://x' } })).body).toEqual({
      message: { external_url: ['is blocked: Only allowed schemes are http, https'] },
    });
    const missing = await t.api('POST', `/projects/${project.id}/environments`, { body: {} });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ error: 'name is missing' });
    expect((await t.api('POST', `/projects/${project.id}/environments`, { body: { name: 'y', tier: 'nope' } })).status).toBe(400);
  });

  it('filters by name, search and states', async () => {
    const p = await createProject(t, t.rootToken);
    for (const name of ['staging', 'review/a', 'review/b']) await t.api('POST', `/projects/${p.id}/environments`, { body: { name } });
    const names = async (query: string) => ((await t.api('GET', `/projects/${p.id}/environments${query}`)).body as { name: string }[]).map((e) => e.name);
    expect(await names('?name=review/a')).toEqual(['review/a']);
    expect(await names('?search=rev')).toEqual(['review/a', 'review/b']);
    expect(await names('?states=stopped')).toEqual([]);
    expect(await names('?states=available')).toEqual(['staging', 'review/a', 'review/b']);
    expect((await t.api('GET', `/projects/${p.id}/environments?search=re`)).status).toBe(400);
    expect((await t.api('GET', `/projects/${p.id}/environments?name=a&search=abc`)).body).toEqual({ error: 'name, search are mutually exclusive' });
    expect((await t.api('GET', `/projects/${p.id}/environments?states=gone`)).status).toBe(400);
    const page = await t.api('GET', `/projects/${p.id}/environments?per_page=2`);
    expect(page.headers.get('x-total')).toBe('3');
  });

  it('stops stale environments', async () => {
    const p = await createProject(t, t.rootToken);
    await t.api('POST', `/projects/${p.id}/environments`, { body: { name: 'old' } });
    expect((await t.api('POST', `/projects/${p.id}/environments/stop_stale`, { body: { before: new Date().toISOString() } })).body).toEqual({ message: '400 Bad request - Invalid Date' });
    const weekAgo = new Date(Date.now() - 8 * 24 * 3600 * 1000).toISOString();
    const res = await t.api('POST', `/projects/${p.id}/environments/stop_stale`, { body: { before: weekAgo } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: 'Successfully requested stop for all stale environments' });
    // Updated just now: not stale.
    expect((await t.api('GET', `/projects/${p.id}/environments`)).body[0].state).toBe('available');
  });
});

describe('deployments API', () => {
  it('records external deployments and moves their statuses', async () => {
    const project = await createProject(t, t.rootToken);
    const sha = await commitFile(project.id);
    const created = await t.api('POST', `/projects/${project.id}/deployments`, { body: { environment: 'production', sha, ref: 'main', tag: false, status: 'running' } });
    expect(created.status, created.text).toBe(201);
    const root = (await t.api('GET', '/user')).body;
    expect(created.body).toEqual({
      id: expect.any(Number),
      iid: 1,
      ref: 'main',
      sha,
      created_at: ISO,
      updated_at: ISO,
      user: { id: root.id, username: 'root', name: root.name, state: 'active', locked: false, avatar_url: null, web_url: expect.any(String) },
      environment: { id: expect.any(Number), name: 'production', slug: 'production', external_url: null, created_at: ISO, updated_at: ISO },
      deployable: null,
      status: 'running',
    });
    const id = created.body.id;
    expect((await t.api('DELETE', `/projects/${project.id}/deployments/${id}`)).body).toEqual({ message: 'Cannot destroy running deployment' });
    const done = await t.api('PUT', `/projects/${project.id}/deployments/${id}`, { body: { status: 'success' } });
    expect(done.status).toBe(200);
    expect(done.body.status).toBe('success');
    const env = (await t.api('GET', `/projects/${project.id}/environments/${created.body.environment.id}`)).body;
    expect(env.last_deployment).toEqual(done.body);
    expect((await t.api('DELETE', `/projects/${project.id}/deployments/${id}`)).body).toEqual({ message: 'Deployment currently deployed to environment' });

    const second = await t.api('POST', `/projects/${project.id}/deployments`, { body: { environment: 'production', sha, ref: 'main', tag: false, status: 'success' } });
    expect(second.body.iid).toBe(2);
    expect((await t.api('DELETE', `/projects/${project.id}/deployments/${id}`)).status).toBe(204);

    const bad = await t.api('POST', `/projects/${project.id}/deployments`, { body: { environment: 'production', sha: 'f'.repeat(40), ref: 'nope', tag: false, status: 'success' } });
    expect(bad.body).toEqual({ message: { sha: ['The commit does not exist'], ref: ['The branch or tag does not exist'] } });
    expect((await t.api('POST', `/projects/${project.id}/deployments`, { body: { environment: 'production', sha, ref: 'main', tag: false, status: 'bogus' } })).status).toBe(400);
  });

  it('lists with order, sort, environment and status filters', async () => {
    const project = await createProject(t, t.rootToken);
    const sha = await commitFile(project.id);
    for (const [environment, status] of [['a', 'success'], ['b', 'failed'], ['a', 'running']]) {
      expect((await t.api('POST', `/projects/${project.id}/deployments`, { body: { environment, sha, ref: 'main', tag: false, status } })).status).toBe(201);
    }
    const iids = async (query: string) => {
      const res = await t.api('GET', `/projects/${project.id}/deployments${query}`);
      expect(res.status, res.text).toBe(200);
      return (res.body as { iid: number }[]).map((d) => d.iid);
    };
    expect(await iids('')).toEqual([1, 2, 3]);
    expect(await iids('?sort=desc')).toEqual([3, 2, 1]);
    expect(await iids('?environment=a')).toEqual([1, 3]);
    expect(await iids('?status=failed')).toEqual([2]);
    expect(await iids('?order_by=ref&sort=desc')).toEqual([3, 2, 1]);
    expect(await iids('?order_by=finished_at&status=success&finished_after=2000-01-01T00:00:00Z')).toEqual([1]);
    expect((await t.api('GET', `/projects/${project.id}/deployments?finished_after=2000-01-01T00:00:00Z`)).status).toBe(400);
    expect((await t.api('GET', `/projects/${project.id}/deployments?status=nope`)).status).toBe(400);
    expect((await t.api('GET', `/projects/${project.id}/deployments/999999`)).body).toEqual({ message: '404 Not found' });
  });
});

describe('permissions', () => {
  let users: Record<string, TestUser>;
  let project: any;
  let envId: number;
  beforeAll(async () => {
    project = await createProject(t, t.rootToken, { visibility: 'public' });
    users = {};
    for (const [role, level] of [['guest', 10], ['reporter', 20], ['developer', 30], ['maintainer', 40]] as const) {
      users[role] = await createUser(t);
      await addMember(t, t.rootToken, 'projects', project.id, users[role].id, level);
    }
    users.outsider = await createUser(t);
    envId = (await t.api('POST', `/projects/${project.id}/environments`, { body: { name: 'matrix' } })).body.id;
  });

  it('lets Reporters read, Developers write, and no one else', async () => {
    const status = async (who: string | null, method: string, path: string, body?: object) =>
      (await t.api(method, `/projects/${project.id}${path}`, { token: who === null ? null : users[who].token, body })).status;
    expect(await status(null, 'GET', '/environments')).toBe(401);
    expect(await status('outsider', 'GET', '/environments')).toBe(403);
    expect(await status('guest', 'GET', '/environments')).toBe(403);
    expect(await status('reporter', 'GET', '/environments')).toBe(200);
    expect(await status('reporter', 'GET', '/deployments')).toBe(200);
    expect(await status('reporter', 'POST', '/environments', { name: 'r' })).toBe(403);
    expect(await status('developer', 'POST', '/environments', { name: 'd' })).toBe(201);
    expect(await status('developer', 'PUT', `/environments/${envId}`, { external_url: 'https://d.example.com' })).toBe(200);
    expect(await status('reporter', 'POST', `/environments/${envId}/stop`)).toBe(403);
    expect(await status('developer', 'POST', `/environments/${envId}/stop`)).toBe(200);
    expect(await status('reporter', 'DELETE', `/environments/${envId}`)).toBe(403);
    expect(await status('developer', 'DELETE', `/environments/${envId}`)).toBe(204);

    const sha = await commitFile(project.id);
    const deploy = (who: string) => status(who, 'POST', '/deployments', { environment: 'prod', sha, ref: 'main', tag: false, status: 'success' });
    expect(await deploy('reporter')).toBe(403);
    expect(await deploy('developer')).toBe(201);
    expect(await deploy('developer')).toBe(201);
    const [first] = (await t.api('GET', `/projects/${project.id}/deployments`)).body;
    expect(await status('developer', 'DELETE', `/deployments/${first.id}`)).toBe(403);
    expect(await status('maintainer', 'DELETE', `/deployments/${first.id}`)).toBe(204);
  });

  it('hides a private project', async () => {
    const hidden = await createProject(t, t.rootToken, { visibility: 'private' });
    const res = await t.api('GET', `/projects/${hidden.id}/environments`, { token: users.outsider.token });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: '404 Project Not Found' });
  });

  it("shows each viewer's permissions on an environment, and a deployment's commit", async () => {
    const sha = (await t.api('GET', `/projects/${project.id}/repository/commits/main`)).body.id;
    await t.api('POST', `/projects/${project.id}/deployments`, { body: { environment: 'perm', sha, ref: 'main', tag: false, status: 'success' } });
    const query = `query($path: ID!) { project(fullPath: $path) { environment(name: "perm") {
      userPermissions { updateEnvironment stopEnvironment destroyEnvironment } lastDeployment(status: SUCCESS) { commit { sha title } }
    } } }`;
    const as = async (who: string) => (await t.graphql(query, { path: project.path_with_namespace }, users[who].token)).body.data.project.environment;
    expect(await as('developer')).toEqual({ userPermissions: { updateEnvironment: true, stopEnvironment: true, destroyEnvironment: false }, lastDeployment: { commit: { sha, title: expect.any(String) } } });
    expect((await as('reporter')).userPermissions).toEqual({ updateEnvironment: false, stopEnvironment: false, destroyEnvironment: false });
    const env = (await t.api('GET', `/projects/${project.id}/environments?name=perm`)).body[0];
    expect((await t.api('POST', `/projects/${project.id}/environments/${env.id}/stop`)).status).toBe(200);
    // Only a stopped environment may be deleted.
    expect((await as('developer')).userPermissions.destroyEnvironment).toBe(true);
  });
});

describe('GraphQL', () => {
  it('reads environments and their deployments, and runs the mutations', async () => {
    const project = await createProject(t, t.rootToken);
    const sha = await commitFile(project.id);
    await t.api('POST', `/projects/${project.id}/deployments`, { body: { environment: 'staging', sha, ref: 'main', tag: false, status: 'success' } });
    const { body: q } = await t.graphql(
      `query($path: ID!) { project(fullPath: $path) {
        environments(states: ["available"]) { count nodes { id name slug state tier externalUrl path lastDeployment(status: SUCCESS) { iid status ref sha } deployments { nodes { id status triggerer { username } } } } }
        environment(name: "staging") { name }
        deployment(iid: "1") { id status environment { name } }
      } }`,
      { path: project.path_with_namespace },
    );
    expect(q.errors).toBeUndefined();
    const env = q.data.project.environments.nodes[0];
    expect(env).toMatchObject({ name: 'staging', slug: 'staging', state: 'available', tier: 'STAGING', externalUrl: null, path: `/${project.path_with_namespace}/-/environments/${env.id.split('/').pop()}` });
    expect(env.id).toMatch(/^gid:\/\/gitlab\/Environment\/\d+$/);
    expect(env.lastDeployment).toEqual({ iid: '1', status: 'SUCCESS', ref: 'main', sha });
    expect(env.deployments.nodes).toEqual([{ id: expect.stringMatching(/^gid:\/\/gitlab\/Deployment\/\d+$/), status: 'SUCCESS', triggerer: { username: 'root' } }]);
    expect(q.data.project.environment).toEqual({ name: 'staging' });
    expect(q.data.project.deployment).toMatchObject({ status: 'SUCCESS', environment: { name: 'staging' } });

    const { body: created } = await t.graphql(`mutation($p: ID!) { environmentCreate(input: { projectPath: $p, name: "qa", tier: TESTING }) { errors environment { id name tier } } }`, {
      p: project.path_with_namespace,
    });
    expect(created.data.environmentCreate).toMatchObject({ errors: [], environment: { name: 'qa', tier: 'TESTING' } });
    const id = created.data.environmentCreate.environment.id;
    const { body: updated } = await t.graphql(`mutation($id: EnvironmentID!) { environmentUpdate(input: { id: $id, externalUrl: "https://qa.example.com" }) { errors environment { externalUrl } } }`, { id });
    expect(updated.data.environmentUpdate).toEqual({ errors: [], environment: { externalUrl: 'https://qa.example.com' } });
    const { body: stopped } = await t.graphql(`mutation($id: EnvironmentID!) { environmentStop(input: { id: $id, force: true }) { errors environment { state } } }`, { id });
    expect(stopped.data.environmentStop).toEqual({ errors: [], environment: { state: 'stopped' } });
    const { body: deleted } = await t.graphql(`mutation($id: EnvironmentID!) { environmentDelete(input: { id: $id }) { errors } }`, { id });
    expect(deleted.data.environmentDelete).toEqual({ errors: [] });
  });
});
describe('@gitbeaker/rest', () => {
  it('drives Environments and Deployments', async () => {
    const api = new Gitlab({ host: t.url, token: t.rootToken });
    const project = await createProject(t, t.rootToken);
    const sha = await commitFile(project.id);
    const env = await api.Environments.create(project.id, 'gitbeaker', { externalUrl: 'https://g.example.com' });
    expect(env).toMatchObject({ name: 'gitbeaker', external_url: 'https://g.example.com', state: 'available', tier: 'other' });
    expect((await api.Environments.all(project.id)).map((e) => e.name)).toEqual(['gitbeaker']);
    expect(await api.Environments.edit(project.id, env.id, { externalUrl: 'https://h.example.com' })).toMatchObject({ external_url: 'https://h.example.com' });
    expect(await api.Environments.stop(project.id, env.id)).toMatchObject({ state: 'stopped' });
    await api.Environments.remove(project.id, env.id);
    const deployment = await api.Deployments.create(project.id, 'gitbeaker-prod', sha, 'main', false, { status: 'running' } as never);
    expect(deployment).toMatchObject({ iid: 1, status: 'running', environment: { name: 'gitbeaker-prod' } });
    expect(await api.Deployments.edit(project.id, deployment.id, 'success' as never)).toMatchObject({ status: 'success' });
    expect((await api.Deployments.all(project.id)).map((d) => d.status)).toEqual(['success']);
    expect(await api.Deployments.show(project.id, deployment.id)).toMatchObject({ id: deployment.id, sha });
  });
});
