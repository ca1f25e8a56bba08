/**
 * Project feature settings (GitLab's project_features): the projects API and GraphQL take and show them, with
 * GitLab's defaults and validations, and the policy enforces the repository, CI/CD and forking features everywhere
 * (REST, GraphQL, git over HTTP, pipeline creation).
 */
import { Gitlab } from '@gitbeaker/rest';
import { createClient } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { addMember, createProject, createUser, unique, type TestUser } from '../support/factories.js';
import { cloneUrl, gitSandbox } from '../support/git.js';
import { suiteServer } from '../support/server.js';
import { eventually } from '../support/wait.js';

const t = suiteServer();
const git = gitSandbox();
let owner: TestUser;
let guest: TestUser;
let reporter: TestUser;
let developer: TestUser;
let stranger: TestUser;

const GUEST = 10;
const REPORTER = 20;
const DEVELOPER = 30;

beforeAll(async () => {
  [owner, guest, reporter, developer, stranger] = await Promise.all([createUser(t), createUser(t), createUser(t), createUser(t), createUser(t)]);
});

/** Every feature field of Entities::Project, at GitLab's defaults for a project of this visibility. */
function defaults(visibility: string) {
  return {
    issues_enabled: true,
    merge_requests_enabled: true,
    wiki_enabled: true,
    jobs_enabled: true,
    snippets_enabled: true,
    container_registry_enabled: true,
    issues_access_level: 'enabled',
    repository_access_level: 'enabled',
    merge_requests_access_level: 'enabled',
    forking_access_level: 'enabled',
    wiki_access_level: 'enabled',
    builds_access_level: 'enabled',
    snippets_access_level: 'enabled',
    pages_access_level: visibility === 'public' ? 'enabled' : 'private',
    analytics_access_level: 'enabled',
    container_registry_access_level: 'enabled',
    security_and_compliance_access_level: 'private',
    releases_access_level: 'enabled',
    environments_access_level: 'enabled',
    feature_flags_access_level: 'enabled',
    infrastructure_access_level: 'enabled',
    monitor_access_level: 'enabled',
    model_experiments_access_level: 'enabled',
    model_registry_access_level: 'enabled',
  };
}

const FEATURE_KEYS = Object.keys(defaults('public'));
const features = (project: Record<string, unknown>) => Object.fromEntries(FEATURE_KEYS.map((k) => [k, project[k]]));

async function edit(projectId: number, body: Record<string, unknown>, token = owner.token) {
  return t.api('PUT', `/projects/${projectId}`, { token, body });
}

async function commit(projectId: number, file: string, content: string, token = owner.token) {
  const res = await t.api('POST', `/projects/${projectId}/repository/commits`, {
    token,
    body: { branch: 'main', commit_message: `add ${file}`, actions: [{ action: 'create', file_path: file, content }] },
  });
  expect(res.status, res.text).toBe(201);
  return res.body as { id: string };
}

describe('settings through the API', () => {
  it("shows GitLab's defaults, pages depending on the visibility", async () => {
    const pub = await t.api('POST', '/projects', { token: owner.token, body: { name: unique('pub'), visibility: 'public' } });
    expect(pub.status).toBe(201);
    expect(features(pub.body)).toEqual(defaults('public'));
    expect(pub.body._links.issues).toBe(`${pub.body._links.self}/issues`);
    expect(pub.body._links.merge_requests).toBe(`${pub.body._links.self}/merge_requests`);
    const priv = await t.api('POST', '/projects', { token: owner.token, body: { name: unique('priv') } });
    expect(features(priv.body)).toEqual(defaults('private'));
    const read = await t.api('GET', `/projects/${priv.body.id}`, { token: owner.token });
    expect(features(read.body)).toEqual(defaults('private'));
    const list = await t.api('GET', `/projects?owned=true&search=${priv.body.path}`, { token: owner.token });
    expect(features(list.body[0])).toEqual(defaults('private'));
  });

  it('takes access levels and the deprecated booleans on creation, for oneself and (administrators) for another user', async () => {
    const res = await t.api('POST', '/projects', {
      token: owner.token,
      body: { name: unique('made'), visibility: 'public', issues_access_level: 'private', jobs_enabled: false, wiki_enabled: 'false', pages_access_level: 'public', container_registry_enabled: false },
    });
    expect(res.status, res.text).toBe(201);
    expect(features(res.body)).toEqual({
      ...defaults('public'),
      issues_access_level: 'private',
      builds_access_level: 'disabled',
      jobs_enabled: false,
      wiki_access_level: 'disabled',
      wiki_enabled: false,
      pages_access_level: 'public',
      container_registry_access_level: 'disabled',
      container_registry_enabled: false,
    });
    const admin = await createUser(t, { admin: true });
    const forUser = await t.api('POST', `/projects/user/${stranger.id}`, { token: admin.token, body: { name: unique('for'), snippets_access_level: 'disabled' } });
    expect(forUser.status, forUser.text).toBe(201);
    expect(forUser.body).toMatchObject({ snippets_access_level: 'disabled', snippets_enabled: false, owner: { id: stranger.id } });
  });

  it('edits them through gitbeaker and raw HTTP; a boolean sets enabled or disabled, jobs_enabled winning over builds_access_level', async () => {
    const project = await createProject(t, owner.token, { visibility: 'public' });
    const api = new Gitlab({ host: t.url, token: owner.token });
    const edited = await api.Projects.edit(project.id, { repositoryAccessLevel: 'private', buildsAccessLevel: 'private', forkingAccessLevel: 'disabled', mergeRequestsAccessLevel: 'disabled' });
    expect(features(edited as Record<string, unknown>)).toEqual({
      ...defaults('public'),
      repository_access_level: 'private',
      builds_access_level: 'private',
      forking_access_level: 'disabled',
      merge_requests_access_level: 'disabled',
      merge_requests_enabled: false,
    });
    // The owner is a member: private features are available to them.
    expect(edited).toMatchObject({ jobs_enabled: true });
    expect((edited as any)._links.issues).toBe(`${(edited as any)._links.self}/issues`);
    expect((edited as any)._links.merge_requests).toBeUndefined();

    const both = await edit(project.id, { builds_access_level: 'private', jobs_enabled: false });
    expect(both.status).toBe(200);
    expect(both.body.builds_access_level).toBe('disabled');
    const levelOverBoolean = await edit(project.id, { issues_enabled: false, issues_access_level: 'private' });
    expect(levelOverBoolean.body.issues_access_level).toBe('private');
    const read = await t.api('GET', `/projects/${project.id}`, { token: owner.token });
    expect(features(read.body)).toEqual({ ...features(both.body), issues_access_level: 'private', issues_enabled: true });
  });

  it("answers GitLab's 400s for a level it does not take and for CI/CD or merge requests more open than the repository", async () => {
    const project = await createProject(t, owner.token, { visibility: 'public' });
    expect(await edit(project.id, { issues_access_level: 'public' })).toMatchObject({ status: 400, body: { error: 'issues_access_level does not have a valid value' } });
    expect(await edit(project.id, { builds_access_level: 'everyone', wiki_access_level: 'nobody' })).toMatchObject({
      status: 400,
      body: { error: 'wiki_access_level does not have a valid value, builds_access_level does not have a valid value' },
    });
    expect(await edit(project.id, { jobs_enabled: 'maybe' })).toMatchObject({ status: 400, body: { error: 'jobs_enabled is invalid' } });
    expect((await edit(project.id, { pages_access_level: 'public' })).body.pages_access_level).toBe('public');

    const tooOpen = await edit(project.id, { repository_access_level: 'private' });
    expect(tooOpen.status).toBe(400);
    expect(tooOpen.body).toEqual({
      message: {
        'project_feature.merge_requests_access_level': ['cannot have higher visibility level than repository access level'],
        'project_feature.builds_access_level': ['cannot have higher visibility level than repository access level'],
      },
    });
    const created = await t.api('POST', '/projects', { token: owner.token, body: { name: unique('bad'), repository_access_level: 'disabled', merge_requests_access_level: 'disabled' } });
    expect(created).toMatchObject({ status: 400, body: { message: { 'project_feature.builds_access_level': ['cannot have higher visibility level than repository access level'] } } });
    // Nothing changed by the refused requests.
    expect((await t.api('GET', `/projects/${project.id}`, { token: owner.token })).body.repository_access_level).toBe('enabled');
    // Lowering them together is fine.
    const together = await edit(project.id, { repository_access_level: 'private', merge_requests_access_level: 'private', builds_access_level: 'disabled' });
    expect(together.status, together.text).toBe(200);
  });

  it('are changed by Maintainers only', async () => {
    const project = await createProject(t, owner.token, { visibility: 'public' });
    await addMember(t, owner.token, 'projects', project.id, developer.id, DEVELOPER);
    expect((await edit(project.id, { issues_access_level: 'disabled' }, developer.token)).status).toBe(403);
    expect((await edit(project.id, { issues_access_level: 'disabled' }, stranger.token)).status).toBe(403);
  });
});

describe('settings through GraphQL', () => {
  it("reads GitLab's fields and changes them with projectUpdate", async () => {
    const project = await createProject(t, owner.token, { visibility: 'public' });
    const fields = `issuesEnabled mergeRequestsEnabled wikiEnabled snippetsEnabled containerRegistryEnabled jobsEnabled
      issuesAccessLevel { integerValue stringValue } forkingAccessLevel { integerValue stringValue } mergeRequestsAccessLevel { integerValue stringValue }
      featureSettings { repositoryAccessLevel buildsAccessLevel pagesAccessLevel securityAndComplianceAccessLevel }`;
    const read = await t.graphql(`query($p: ID!) { project(fullPath: $p) { ${fields} } }`, { p: project.path_with_namespace }, stranger.token);
    expect(read.body.data.project).toEqual({
      issuesEnabled: true,
      mergeRequestsEnabled: true,
      wikiEnabled: true,
      snippetsEnabled: true,
      containerRegistryEnabled: true,
      jobsEnabled: true,
      issuesAccessLevel: { integerValue: 20, stringValue: 'ENABLED' },
      forkingAccessLevel: { integerValue: 20, stringValue: 'ENABLED' },
      mergeRequestsAccessLevel: { integerValue: 20, stringValue: 'ENABLED' },
      featureSettings: { repositoryAccessLevel: 'ENABLED', buildsAccessLevel: 'ENABLED', pagesAccessLevel: 'ENABLED', securityAndComplianceAccessLevel: 'PRIVATE' },
    });

    const update = await t.graphql(
      `mutation($p: ID!) { projectUpdate(input: { fullPath: $p, features: { issuesAccessLevel: PRIVATE, buildsAccessLevel: PRIVATE, forkingAccessLevel: DISABLED } }) { project { ${fields} } errors } }`,
      { p: project.path_with_namespace },
      owner.token,
    );
    expect(update.body.errors).toBeUndefined();
    expect(update.body.data.projectUpdate).toMatchObject({
      project: {
        issuesEnabled: true,
        jobsEnabled: true,
        issuesAccessLevel: { integerValue: 10, stringValue: 'PRIVATE' },
        forkingAccessLevel: { integerValue: 0, stringValue: 'DISABLED' },
        featureSettings: { buildsAccessLevel: 'PRIVATE' },
      },
      errors: [],
    });
    // A signed-in non-member: the private features are not theirs.
    const after = await t.graphql(`query($p: ID!) { project(fullPath: $p) { issuesEnabled jobsEnabled wikiEnabled } }`, { p: project.path_with_namespace }, stranger.token);
    expect(after.body.data.project).toEqual({ issuesEnabled: false, jobsEnabled: false, wikiEnabled: true });

    const invalid = await t.graphql(
      `mutation($p: ID!) { projectUpdate(input: { fullPath: $p, features: { repositoryAccessLevel: DISABLED } }) { project { id } errors } }`,
      { p: project.path_with_namespace },
      owner.token,
    );
    // The record's validation failure, in the payload as GitLab's mutations answer it.
    expect(invalid.body.errors).toBeUndefined();
    expect(invalid.body.data.projectUpdate.project).toBeNull();
    expect(invalid.body.data.projectUpdate.errors).toEqual(expect.arrayContaining([expect.stringMatching(/ cannot have higher visibility level than repository access level$/)]));
  });
});

describe('enforcement', () => {
  let project: { id: number; path_with_namespace: string };
  let pipelineId: number;
  const sockets: ReturnType<typeof createClient>[] = [];
  afterAll(async () => {
    await Promise.all(sockets.map((c) => c.dispose()));
  });

  beforeAll(async () => {
    project = await createProject(t, owner.token, { visibility: 'public' });
    await commit(project.id, '.gitlab-ci.yml', 'build:\n  script: echo\n');
    const pipeline = await t.api('POST', `/projects/${project.id}/pipeline`, { token: owner.token, body: { ref: 'main' } });
    expect(pipeline.status, pipeline.text).toBe(201);
    pipelineId = pipeline.body.id;
    await addMember(t, owner.token, 'projects', project.id, guest.id, GUEST);
    await addMember(t, owner.token, 'projects', project.id, reporter.id, REPORTER);
    await addMember(t, owner.token, 'projects', project.id, developer.id, DEVELOPER);
  });

  const callers = () => ({ anonymous: null, stranger: stranger.token, guest: guest.token, reporter: reporter.token, developer: developer.token, owner: owner.token });
  async function statuses(path: string) {
    const out: Record<string, number> = {};
    for (const [who, token] of Object.entries(callers())) out[who] = (await t.api('GET', path, { token })).status;
    return out;
  }

  /** The first answer of a pipeline status subscription over graphql-ws: its errors' codes, or the status it heard. */
  async function subscribeToPipeline(token: string): Promise<string[]> {
    const client = createClient({ url: `${t.url.replace('http', 'ws')}/api/graphql`, webSocketImpl: WebSocket, connectionParams: { 'PRIVATE-TOKEN': token }, retryAttempts: 0, lazy: true });
    sockets.push(client);
    return new Promise((resolve) => {
      const stop = client.subscribe<{ ciPipelineStatusUpdated: { status: string } }>(
        { query: 'subscription($id: ID!) { ciPipelineStatusUpdated(pipelineId: $id) { status } }', variables: { id: String(pipelineId) } },
        {
          next: (msg) => {
            stop();
            resolve(msg.errors ? msg.errors.map((e) => String(e.extensions?.code)) : [String(msg.data?.ciPipelineStatusUpdated?.status)]);
          },
          error: (err) => resolve((Array.isArray(err) ? err : [err]).map((e: { extensions?: { code?: unknown } }) => String(e.extensions?.code))),
          complete: () => resolve([]),
        },
      );
    });
  }

  /** How many push events of the project the caller sees. */
  async function pushes(token: string) {
    const events = (await t.api('GET', `/projects/${project.id}/events`, { token })).body as { action_name: string }[];
    return events.filter((e) => e.action_name.startsWith('pushed')).length;
  }

  async function clone(token?: string) {
    return git.run(git.folder('clone'), ['clone', '--quiet', cloneUrl(t.url, project.path_with_namespace, token), 'repo']);
  }

  it('with everything enabled, a public project shows its code and pipelines to everyone', async () => {
    expect(await statuses(`/projects/${project.id}/repository/tree`)).toEqual({ anonymous: 200, stranger: 200, guest: 200, reporter: 200, developer: 200, owner: 200 });
    expect(await statuses(`/projects/${project.id}/pipelines`)).toEqual({ anonymous: 200, stranger: 200, guest: 200, reporter: 200, developer: 200, owner: 200 });
    expect((await clone()).code).toBe(0);
    expect(await pushes(stranger.token)).toBeGreaterThan(0);
  });

  it('repository and CI/CD private: members only, GitLab answering 403 to signed-in strangers, 401 to anonymous callers', async () => {
    expect((await edit(project.id, { repository_access_level: 'private', builds_access_level: 'private', merge_requests_access_level: 'private' })).status).toBe(200);
    const membersOnly = { anonymous: 401, stranger: 403, guest: 200, reporter: 200, developer: 200, owner: 200 };
    expect(await statuses(`/projects/${project.id}/repository/tree`)).toEqual(membersOnly);
    expect(await statuses(`/projects/${project.id}/repository/commits`)).toEqual(membersOnly);
    expect(await statuses(`/projects/${project.id}/repository/branches`)).toEqual(membersOnly);
    expect(await statuses(`/projects/${project.id}/pipelines`)).toEqual(membersOnly);
    expect(await statuses(`/projects/${project.id}/pipelines/${pipelineId}`)).toEqual(membersOnly);
    expect(await statuses(`/projects/${project.id}/jobs`)).toEqual(membersOnly);
    expect(await statuses(`/projects/${project.id}/pipeline_schedules`)).toEqual(membersOnly);
    // The project itself stays visible, with the fields telling each caller what they may use.
    const seen = await t.api('GET', `/projects/${project.id}`, { token: stranger.token });
    expect(seen.body).toMatchObject({ jobs_enabled: false, merge_requests_enabled: false, issues_enabled: true, repository_access_level: 'private' });
    expect(seen.body._links.merge_requests).toBeUndefined();
    expect((await t.api('GET', `/projects/${project.id}`, { token: guest.token })).body).toMatchObject({ jobs_enabled: true, merge_requests_enabled: false });
    expect((await t.api('GET', `/projects/${project.id}`, { token: reporter.token })).body).toMatchObject({ jobs_enabled: true, merge_requests_enabled: true });

    const repository = `query($p: ID!) { project(fullPath: $p) { repository { rootRef } pipelines { count } } }`;
    const total = Number((await t.api('GET', `/projects/${project.id}/pipelines`, { token: owner.token })).headers.get('x-total'));
    expect(total).toBeGreaterThan(0);
    const asStranger = await t.graphql(repository, { p: project.path_with_namespace }, stranger.token);
    expect(asStranger.body.data?.project?.repository ?? null).toBeNull();
    expect(asStranger.body.data?.project?.pipelines ?? null).toBeNull();
    expect(asStranger.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    const asGuest = await t.graphql(repository, { p: project.path_with_namespace }, guest.token);
    expect(asGuest.body.errors).toBeUndefined();
    expect(asGuest.body.data.project.repository).toEqual({ rootRef: 'main' });
    expect(asGuest.body.data.project.pipelines.count).toBe(total);

    // Lists filter by the same rule: a push is an event only those who may read the code see (Event#visible_to_user?).
    expect(await pushes(guest.token)).toBeGreaterThan(0);
    expect(await pushes(stranger.token)).toBe(0);

    // A live subscription is decided by the same rule: a stranger may not follow the pipeline any more.
    expect(await subscribeToPipeline(stranger.token)).toEqual(['FORBIDDEN']);

    expect((await clone()).code).not.toBe(0);
    const strangerClone = await clone(stranger.token);
    expect(strangerClone.code).not.toBe(0);
    expect(strangerClone.stderr).toMatch(/403|not allowed/);
    expect((await clone(guest.token)).code).toBe(0);
    expect((await clone(reporter.token)).code).toBe(0);
  });

  it('repository disabled: nobody, not even the owner, reads code or pipelines, clones or pushes', async () => {
    expect((await edit(project.id, { repository_access_level: 'disabled', builds_access_level: 'disabled', merge_requests_access_level: 'disabled' })).status).toBe(200);
    expect(await statuses(`/projects/${project.id}/repository/tree`)).toEqual({ anonymous: 401, stranger: 403, guest: 403, reporter: 403, developer: 403, owner: 403 });
    expect(await statuses(`/projects/${project.id}/pipelines`)).toEqual({ anonymous: 401, stranger: 403, guest: 403, reporter: 403, developer: 403, owner: 403 });
    expect((await clone(owner.token)).code).not.toBe(0);
    const write = await t.api('POST', `/projects/${project.id}/repository/commits`, {
      token: owner.token,
      body: { branch: 'main', commit_message: 'no', actions: [{ action: 'create', file_path: 'no.txt', content: 'no' }] },
    });
    expect(write.status).toBe(403);
  });

  it('CI/CD disabled: jobs hidden from everyone, no pipeline from the API or from a push', async () => {
    expect((await edit(project.id, { repository_access_level: 'enabled', merge_requests_access_level: 'enabled', builds_access_level: 'disabled' })).status).toBe(200);
    expect(await statuses(`/projects/${project.id}/jobs`)).toEqual({ anonymous: 401, stranger: 403, guest: 403, reporter: 403, developer: 403, owner: 403 });
    expect((await t.api('GET', `/projects/${project.id}`, { token: owner.token })).body.jobs_enabled).toBe(false);
    const created = await t.api('POST', `/projects/${project.id}/pipeline`, { token: developer.token, body: { ref: 'main' } });
    expect(created).toMatchObject({ status: 400, body: { message: { base: ['Pipelines are disabled!'] } } });

    const pushed = await commit(project.id, 'again.txt', 'again');
    const db = t.server.database.prisma;
    const pushJob = await eventually(async () => {
      const jobs = await db.job.findMany({ where: { kind: 'repository.push', finishedAt: { not: null } } });
      return jobs.find((j) => (j.payload as { projectId?: number; after?: string }).after === pushed.id);
    });
    expect(pushJob).toBeTruthy();
    expect(await db.pipeline.count({ where: { projectId: project.id, sha: pushed.id } })).toBe(0);
  });

  it("forking disabled refuses forks with GitLab's 404, to the owner too; private forks are for members", async () => {
    const refused = { status: 404, body: { message: '404 Not Found' } };
    expect((await edit(project.id, { builds_access_level: 'enabled', forking_access_level: 'disabled' })).status).toBe(200);
    expect(await t.api('POST', `/projects/${project.id}/fork`, { token: stranger.token, body: { path: unique('f') } })).toMatchObject(refused);
    expect(await t.api('POST', `/projects/${project.id}/fork`, { token: owner.token, body: { path: unique('f') } })).toMatchObject(refused);

    expect((await edit(project.id, { forking_access_level: 'private' })).status).toBe(200);
    expect(await t.api('POST', `/projects/${project.id}/fork`, { token: stranger.token, body: { path: unique('f') } })).toMatchObject(refused);
    const fork = await t.api('POST', `/projects/${project.id}/fork`, { token: guest.token, body: { path: unique('f') } });
    expect(fork.status, fork.text).toBe(201);
    expect(fork.body.forked_from_project.id).toBe(project.id);
  });
});
