/**
 * The runners API over HTTP: creating runners (`POST /user/runners`) with GitLab's permissions, the runner's own
 * token (verify, unregister, reset), lists, details, changes, deletion, project and group runners; GraphQL and
 * @gitbeaker/rest where they cover it.
 */
import { Gitlab } from '@gitbeaker/rest';
import { describe, expect, it } from 'vitest';
import { suiteServer } from '../support/server.js';
import { addMember, createGroup, createProject, createUser } from '../support/factories.js';
import { createRunner, projectWithConfig, requestJob, runnerCall, RUNNER_INFO } from './support.js';

const t = suiteServer();

const RUNNER_KEYS = ['id', 'description', 'ip_address', 'active', 'paused', 'is_shared', 'runner_type', 'name', 'online', 'status'];
const DETAIL_KEYS = [
  ...RUNNER_KEYS,
  'tag_list',
  'run_untagged',
  'locked',
  'maximum_timeout',
  'access_level',
  'version',
  'revision',
  'platform',
  'architecture',
  'contacted_at',
  'maintenance_note',
  'projects',
  'groups',
];

/** A group owned by a new user, with a project in it, and a Maintainer and a Developer of the project. */
async function team() {
  const owner = await createUser(t);
  const group = await createGroup(t, owner.token);
  const project = await createProject(t, owner.token, { namespaceId: group.id });
  const maintainer = await createUser(t);
  const developer = await createUser(t);
  await addMember(t, owner.token, 'projects', project.id, maintainer.id, 40);
  await addMember(t, owner.token, 'projects', project.id, developer.id, 30);
  return { owner, group, project, maintainer, developer };
}

describe('POST /user/runners', () => {
  it('creates runners of each kind for those GitLab lets, answering the token once', async () => {
    const { owner, group, project, maintainer, developer } = await team();
    const instance = await t.api('POST', '/user/runners', { body: { runner_type: 'instance_type', description: 'shared one' } });
    expect(instance.status).toBe(201);
    expect(instance.body).toEqual({ id: expect.any(Number), token: expect.stringMatching(/^glrt-/), token_expires_at: null });
    expect(await t.api('POST', '/user/runners', { token: owner.token, body: { runner_type: 'instance_type' } })).toMatchObject({
      status: 403,
      body: { message: '403 Forbidden - Insufficient permissions' },
    });
    expect((await t.api('POST', '/user/runners', { token: owner.token, body: { runner_type: 'group_type', group_id: group.id } })).status).toBe(201);
    expect(await t.api('POST', '/user/runners', { token: maintainer.token, body: { runner_type: 'group_type', group_id: group.id } })).toMatchObject({
      status: 403,
      body: { message: '403 Forbidden - Insufficient permissions' },
    });
    expect((await t.api('POST', '/user/runners', { token: maintainer.token, body: { runner_type: 'project_type', project_id: project.id } })).status).toBe(201);
    expect((await t.api('POST', '/user/runners', { token: developer.token, body: { runner_type: 'project_type', project_id: project.id } })).status).toBe(403);
    expect(await t.api('POST', '/user/runners', { token: owner.token, body: { runner_type: 'group_type' } })).toMatchObject({
      status: 400,
      body: { message: '400 Bad request - Missing/invalid group' },
    });
    expect(await t.api('POST', '/user/runners', { token: owner.token, body: { runner_type: 'project_type', project_id: 999999 } })).toMatchObject({
      status: 400,
      body: { message: '400 Bad request - Missing/invalid project' },
    });
  });

  it('checks its parameters as GitLab does', async () => {
    expect(await t.api('POST', '/user/runners', { body: {} })).toMatchObject({ status: 400, body: { error: 'runner_type is missing' } });
    expect(await t.api('POST', '/user/runners', { body: { runner_type: 'nope' } })).toMatchObject({ status: 400, body: { error: 'runner_type does not have a valid value' } });
    expect(await t.api('POST', '/user/runners', { body: { runner_type: 'instance_type', access_level: 'sometimes' } })).toMatchObject({
      status: 400,
      body: { error: 'access_level does not have a valid value' },
    });
    expect(await t.api('POST', '/user/runners', { body: { runner_type: 'instance_type', maximum_timeout: 60 } })).toMatchObject({
      status: 400,
      body: { message: '400 Bad request - Maximum timeout needs to be at least 10 minutes' },
    });
    expect(await t.api('POST', '/user/runners', { body: { runner_type: 'instance_type', run_untagged: false } })).toMatchObject({
      status: 400,
      body: { message: '400 Bad request - Tags list can not be empty when runner is not allowed to pick untagged jobs' },
    });
    expect(await t.api('POST', '/user/runners', { token: null, body: { runner_type: 'instance_type' } })).toMatchObject({ status: 401 });
  });

  it('accepts tokens with the create_runner scope, not read_api', async () => {
    const admin = await t.api('POST', '/users/1/personal_access_tokens', { body: { name: 'runners', scopes: ['create_runner'] } });
    const reader = await t.api('POST', '/users/1/personal_access_tokens', { body: { name: 'reader', scopes: ['read_api'] } });
    expect((await t.api('POST', '/user/runners', { token: admin.body.token, body: { runner_type: 'instance_type' } })).status).toBe(201);
    expect((await t.api('POST', '/user/runners', { token: reader.body.token, body: { runner_type: 'instance_type' } })).status).toBe(403);
  });
});

describe("a runner's own token", () => {
  it('verifies, resets and unregisters', async () => {
    const runner = await createRunner(t, { runner_type: 'instance_type' });
    expect(await runnerCall(t, 'POST', '/runners/verify', { token: runner.token, info: RUNNER_INFO })).toMatchObject({
      status: 200,
      body: { id: runner.id, token: runner.token, token_expires_at: null },
    });
    expect(await runnerCall(t, 'POST', '/runners/verify', { token: 'glrt-unknown' })).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    expect(await runnerCall(t, 'POST', '/runners/verify', {})).toMatchObject({ status: 400, body: { error: 'token is missing' } });
    const reset = await runnerCall(t, 'POST', '/runners/reset_authentication_token', { token: runner.token });
    expect(reset).toMatchObject({ status: 201, body: { token: expect.stringMatching(/^glrt-/), token_expires_at: null } });
    expect((await runnerCall(t, 'POST', '/runners/verify', { token: runner.token })).status).toBe(403);
    expect((await runnerCall(t, 'DELETE', '/runners', { token: reset.body.token })).status).toBe(204);
    expect((await runnerCall(t, 'POST', '/runners/verify', { token: reset.body.token })).status).toBe(403);
    expect((await t.api('GET', `/runners/${runner.id}`)).status).toBe(404);
  });
});

describe('GET /runners, /runners/all, /runners/:id', () => {
  it("lists the viewer's runners with GitLab's keys and filters", async () => {
    const { owner, group, project, maintainer } = await team();
    const groupRunner = await createRunner(t, { runner_type: 'group_type', group_id: group.id, description: 'g', tag_list: 'linux,docker' });
    const projectRunner = await createRunner(t, { project_id: project.id, description: 'p', paused: true });
    await createRunner(t, { runner_type: 'instance_type' });
    const mine = await t.api('GET', '/runners', { token: owner.token });
    expect(mine.status).toBe(200);
    expect(mine.body.map((r: { id: number }) => r.id)).toEqual([groupRunner.id, projectRunner.id]);
    expect(Object.keys(mine.body[0]).sort()).toEqual([...RUNNER_KEYS].sort());
    expect(mine.body[0]).toEqual({
      id: groupRunner.id,
      description: 'g',
      ip_address: null,
      active: true,
      paused: false,
      is_shared: false,
      runner_type: 'group_type',
      name: null,
      online: false,
      status: 'never_contacted',
    });
    expect(mine.headers.get('x-total')).toBe('2');
    expect((await t.api('GET', '/runners', { token: maintainer.token })).body.map((r: { id: number }) => r.id)).toEqual([projectRunner.id]);
    expect((await t.api('GET', '/runners?type=group_type', { token: owner.token })).body.map((r: { id: number }) => r.id)).toEqual([groupRunner.id]);
    expect((await t.api('GET', '/runners?paused=true', { token: owner.token })).body.map((r: { id: number }) => r.id)).toEqual([projectRunner.id]);
    expect((await t.api('GET', '/runners?tag_list=docker', { token: owner.token })).body.map((r: { id: number }) => r.id)).toEqual([groupRunner.id]);
    expect((await t.api('GET', '/runners?status=never_contacted', { token: owner.token })).body).toHaveLength(2);
    expect((await t.api('GET', '/runners?status=online', { token: owner.token })).body).toHaveLength(0);
    expect(await t.api('GET', '/runners?scope=shared', { token: owner.token })).toMatchObject({ status: 400, body: { message: 'Scope contains invalid value' } });
    expect(await t.api('GET', '/runners?type=nope', { token: owner.token })).toMatchObject({ status: 400, body: { error: 'type does not have a valid value' } });
    expect((await t.api('GET', '/runners', { token: null })).status).toBe(401);

    expect((await t.api('GET', '/runners/all', { token: owner.token })).status).toBe(403);
    const all = await t.api('GET', '/runners/all?scope=shared&per_page=100');
    expect(all.status).toBe(200);
    expect(all.body.every((r: { runner_type: string }) => r.runner_type === 'instance_type')).toBe(true);
  });

  it("shows a runner's details to those who may see it", async () => {
    const { owner, group, project, developer } = await team();
    const projectRunner = await createRunner(t, { project_id: project.id, description: 'mine', maintenance_note: 'call me', maximum_timeout: 3600, access_level: 'ref_protected', tag_list: ['a'] });
    const detail = await t.api('GET', `/runners/${projectRunner.id}`, { token: owner.token });
    expect(detail.status).toBe(200);
    expect(Object.keys(detail.body).sort()).toEqual([...DETAIL_KEYS].sort());
    expect(detail.body).toMatchObject({
      id: projectRunner.id,
      description: 'mine',
      runner_type: 'project_type',
      tag_list: ['a'],
      run_untagged: true,
      locked: false,
      maximum_timeout: 3600,
      access_level: 'ref_protected',
      version: null,
      contacted_at: null,
      maintenance_note: 'call me',
      groups: [],
    });
    expect(detail.body.projects).toEqual([
      expect.objectContaining({ id: project.id, name: project.name, path_with_namespace: project.path_with_namespace, name_with_namespace: project.name_with_namespace }),
    ]);
    expect(await t.api('GET', `/runners/${projectRunner.id}`, { token: developer.token })).toMatchObject({ status: 403, body: { message: '403 Forbidden - No access granted' } });
    expect(await t.api('GET', '/runners/999999')).toMatchObject({ status: 404, body: { message: '404 Runner Not Found' } });
    const shared = await createRunner(t, { runner_type: 'instance_type', maintenance_note: 'admins only' });
    const seenByDeveloper = await t.api('GET', `/runners/${shared.id}`, { token: developer.token });
    expect(seenByDeveloper).toMatchObject({ status: 200, body: { is_shared: true, maintenance_note: null, projects: [], groups: [] } });
    const groupRunner = await createRunner(t, { runner_type: 'group_type', group_id: group.id });
    expect((await t.api('GET', `/runners/${groupRunner.id}`, { token: owner.token })).body.groups).toEqual([{ id: group.id, web_url: `http://gitlab.example.com/groups/${group.full_path}`, name: group.name }]);
  });
});

describe('PUT and DELETE /runners/:id', () => {
  it('changes a runner, with GitLab’s checks', async () => {
    const { owner, project, developer } = await team();
    const runner = await createRunner(t, { project_id: project.id });
    const changed = await t.api('PUT', `/runners/${runner.id}`, { token: owner.token, body: { description: 'renamed', tag_list: 'x,y', paused: true, maximum_timeout: 7200, locked: true } });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ description: 'renamed', tag_list: ['x', 'y'], paused: true, active: false, maximum_timeout: 7200, locked: true });
    expect((await t.api('PUT', `/runners/${runner.id}`, { token: owner.token, body: { active: true } })).body.paused).toBe(false);
    expect(await t.api('PUT', `/runners/${runner.id}`, { token: owner.token, body: {} })).toMatchObject({
      status: 400,
      body: { error: 'description, active, paused, tag_list, run_untagged, locked, access_level, maximum_timeout, maintenance_note are missing, at least one parameter must be provided' },
    });
    expect(await t.api('PUT', `/runners/${runner.id}`, { token: owner.token, body: { active: true, paused: true } })).toMatchObject({
      status: 400,
      body: { error: 'active, paused are mutually exclusive' },
    });
    expect(await t.api('PUT', `/runners/${runner.id}`, { token: owner.token, body: { maximum_timeout: 5 } })).toMatchObject({
      status: 400,
      body: { message: { maximum_timeout: ['needs to be at least 10 minutes'] } },
    });
    expect(await t.api('PUT', `/runners/${runner.id}`, { token: developer.token, body: { description: 'x' } })).toMatchObject({ status: 403, body: { message: '403 Forbidden - No access granted' } });
  });

  it('deletes a runner, not one of several projects unless an administrator asks', async () => {
    const { owner, project } = await team();
    const other = await createProject(t, owner.token);
    const runner = await createRunner(t, { project_id: project.id });
    expect((await t.api('POST', `/projects/${other.id}/runners`, { token: owner.token, body: { runner_id: runner.id } })).status).toBe(201);
    expect(await t.api('DELETE', `/runners/${runner.id}`, { token: owner.token })).toMatchObject({ status: 403, body: { message: '403 Forbidden - Runner associated with more than one project' } });
    expect((await t.api('DELETE', `/runners/${runner.id}`)).status).toBe(204);
    expect((await t.api('GET', `/runners/${runner.id}`)).status).toBe(404);
    const single = await createRunner(t, { project_id: project.id });
    expect((await t.api('DELETE', `/runners/${single.id}`, { token: owner.token })).status).toBe(204);
  });
});

describe('GET /runners/:id/jobs', () => {
  it("lists the jobs a runner ran with GitLab's keys", async () => {
    const { project, pipeline } = await projectWithConfig(t, 'one:\n  script: echo\n');
    const runner = await createRunner(t, { project_id: project.id });
    const job = await requestJob(t, runner.token);
    const jobs = await t.api('GET', `/runners/${runner.id}/jobs`);
    expect(jobs.status).toBe(200);
    expect(jobs.body).toHaveLength(1);
    expect(Object.keys(jobs.body[0]).sort()).toEqual(
      ['id', 'status', 'stage', 'name', 'ref', 'tag', 'coverage', 'allow_failure', 'created_at', 'started_at', 'finished_at', 'erased_at', 'duration', 'queued_duration', 'user', 'commit', 'pipeline', 'web_url', 'project'].sort(),
    );
    expect(jobs.body[0]).toMatchObject({ id: job.id, status: 'running', name: 'one', pipeline: { id: pipeline.id }, project: { id: project.id, path_with_namespace: project.path_with_namespace } });
    expect((await t.api('GET', `/runners/${runner.id}/jobs?status=success`)).body).toEqual([]);
    const stranger = await createUser(t);
    expect((await t.api('GET', `/runners/${runner.id}/jobs`, { token: stranger.token })).status).toBe(403);
  });
});

describe('project and group runners', () => {
  it('lists what may run a project’s jobs, and enables and disables project runners', async () => {
    const { owner, group, project, maintainer, developer } = await team();
    const own = await createRunner(t, { project_id: project.id });
    const ofGroup = await createRunner(t, { runner_type: 'group_type', group_id: group.id });
    const list = await t.api('GET', `/projects/${project.id}/runners?per_page=100`, { token: maintainer.token });
    expect(list.status).toBe(200);
    const ids = list.body.map((r: { id: number }) => r.id);
    expect(ids).toEqual(expect.arrayContaining([own.id, ofGroup.id]));
    expect(list.body.some((r: { runner_type: string }) => r.runner_type === 'instance_type')).toBe(true);
    expect((await t.api('GET', `/projects/${project.id}/runners?type=project_type`, { token: maintainer.token })).body.map((r: { id: number }) => r.id)).toEqual([own.id]);
    expect((await t.api('GET', `/projects/${project.id}/runners`, { token: developer.token })).status).toBe(403);

    const other = await createProject(t, owner.token);
    const enabled = await t.api('POST', `/projects/${other.id}/runners`, { token: owner.token, body: { runner_id: own.id } });
    expect(enabled.status).toBe(201);
    expect(Object.keys(enabled.body).sort()).toEqual([...RUNNER_KEYS].sort());
    expect(await t.api('POST', `/projects/${other.id}/runners`, { token: owner.token, body: { runner_id: own.id } })).toMatchObject({ status: 400 });
    expect(await t.api('POST', `/projects/${other.id}/runners`, { token: owner.token, body: { runner_id: ofGroup.id } })).toMatchObject({
      status: 403,
      body: { message: '403 Forbidden - Runner is a group runner' },
    });
    const locked = await createRunner(t, { project_id: project.id, locked: true });
    expect(await t.api('POST', `/projects/${other.id}/runners`, { token: owner.token, body: { runner_id: locked.id } })).toMatchObject({
      status: 403,
      body: { message: '403 Forbidden - Runner is locked' },
    });
    expect(await t.api('POST', `/projects/${other.id}/runners`, { token: owner.token, body: {} })).toMatchObject({ status: 400, body: { error: 'runner_id is missing' } });
    expect((await t.api('DELETE', `/projects/${other.id}/runners/${own.id}`, { token: owner.token })).status).toBe(204);
    expect(await t.api('DELETE', `/projects/${project.id}/runners/${own.id}`, { token: owner.token })).toMatchObject({
      status: 403,
      body: { message: '403 Forbidden - Only one project associated with the runner. Please remove the runner instead' },
    });
    expect(await t.api('DELETE', `/projects/${other.id}/runners/${own.id}`, { token: owner.token })).toMatchObject({ status: 404, body: { message: '404 Runner Not Found' } });
  });

  it("lists a group's runners for its Owners", async () => {
    const { owner, group } = await team();
    const sub = await createGroup(t, owner.token, { parentId: group.id });
    const top = await createRunner(t, { runner_type: 'group_type', group_id: group.id });
    const below = await createRunner(t, { runner_type: 'group_type', group_id: sub.id });
    const list = await t.api('GET', `/groups/${sub.id}/runners?type=group_type`, { token: owner.token });
    expect(list.body.map((r: { id: number }) => r.id)).toEqual([top.id, below.id]);
    expect((await t.api('GET', `/groups/${group.id}/runners?type=group_type`, { token: owner.token })).body.map((r: { id: number }) => r.id)).toEqual([top.id]);
    const member = await createUser(t);
    await addMember(t, owner.token, 'groups', group.id, member.id, 40);
    expect((await t.api('GET', `/groups/${group.id}/runners`, { token: member.token })).status).toBe(403);
  });
});

describe('GraphQL', () => {
  it('sets a project runner’s associated projects as GitLab’s runnerUpdate does: its owner project kept, all or none', async () => {
    const owner = await createUser(t);
    const stranger = await createUser(t);
    const [home, second, third] = [await createProject(t, owner.token), await createProject(t, owner.token), await createProject(t, owner.token)];
    const foreign = await createProject(t, stranger.token);
    const runner = await createRunner(t, { project_id: home.id });
    const gid = (id: number) => `gid://gitlab/Project/${id}`;
    const update = `mutation($id: CiRunnerID!, $projects: [ProjectID!]) { runnerUpdate(input: { id: $id, associatedProjects: $projects }) { errors runner { projects { nodes { id } } } } }`;
    const runnerGid = `gid://gitlab/Ci::Runner/${runner.id}`;
    const ids = (res: { body: any }) => res.body.data.runnerUpdate.runner.projects.nodes.map((p: { id: string }) => p.id).sort();
    const set = await t.graphql(update, { id: runnerGid, projects: [gid(second.id), gid(third.id)] }, owner.token);
    expect(set.body.data.runnerUpdate.errors).toEqual([]);
    expect(ids(set)).toEqual([gid(home.id), gid(second.id), gid(third.id)].sort());
    const narrowed = await t.graphql(update, { id: runnerGid, projects: [gid(third.id)] }, owner.token);
    expect(ids(narrowed)).toEqual([gid(home.id), gid(third.id)].sort());
    // A project the viewer may not register runners in: nothing changes.
    const refused = await t.graphql(update, { id: runnerGid, projects: [gid(second.id), gid(foreign.id)] }, owner.token);
    expect(refused.body).toEqual({ data: { runnerUpdate: { errors: ['user is not authorized to add runners to project'], runner: null } } });
    const rest = await t.api('GET', `/runners/${runner.id}`, { token: owner.token });
    expect(rest.body.projects.map((p: { id: number }) => p.id).sort()).toEqual([home.id, third.id].sort());
    const instance = await t.graphql<{ runnerCreate: { runner: { id: string } } }>(`mutation { runnerCreate(input: { runnerType: INSTANCE_TYPE }) { runner { id } } }`);
    const wrong = await t.graphql(update, { id: instance.body.data!.runnerCreate.runner.id, projects: [gid(second.id)] });
    expect(wrong.body.errors?.[0].message).toMatch(/associatedProjects must not be specified for 'instance_type' scope/);
  });

  it('retries a manual job with new variables (GitLab’s jobRetry variables); the runner gets them', async () => {
    const setup = await projectWithConfig(t, 'deploy:\n  when: manual\n  script: echo deploy\n');
    const jobs = await t.api('GET', `/projects/${setup.project.id}/pipelines/${setup.pipeline.id}/jobs`);
    const deploy = jobs.body[0];
    const played = await t.graphql(`mutation($id: CiBuildID!) { jobPlay(input: { id: $id, variables: [{ key: "TARGET", value: "first" }] }) { errors job { status } } }`, { id: `gid://gitlab/Ci::Build/${deploy.id}` });
    expect(played.body.data.jobPlay).toEqual({ errors: [], job: { status: 'PENDING' } });
    expect((await t.api('POST', `/projects/${setup.project.id}/jobs/${deploy.id}/cancel`)).status).toBe(201);
    const retried = await t.graphql(
      `mutation($id: CiBuildID!) { jobRetry(input: { id: $id, variables: [{ key: "TARGET", value: "second" }] }) { errors job { id name } } }`,
      { id: `gid://gitlab/Ci::Build/${deploy.id}` },
    );
    expect(retried.body.errors).toBeUndefined();
    expect(retried.body.data.jobRetry.errors).toEqual([]);
    const again = Number(retried.body.data.jobRetry.job.id.split('/').pop());
    expect(again).not.toBe(deploy.id);
    const current = await t.api('GET', `/projects/${setup.project.id}/jobs/${again}`);
    if (current.body.status === 'manual') expect((await t.api('POST', `/projects/${setup.project.id}/jobs/${again}/play`)).status).toBe(200);
    const runner = await createRunner(t, { project_id: setup.project.id });
    const taken = await requestJob(t, runner.token);
    expect(taken.id).toBe(again);
    const target = taken.variables.filter((v: { key: string }) => v.key === 'TARGET').map((v: { value: string }) => v.value);
    expect(target).toEqual(['second']);
  });

  it('creates, reads, changes and deletes runners with GitLab’s mutations', async () => {
    const created = await t.graphql<{ runnerCreate: { runner: { id: string; runnerType: string; ephemeralAuthenticationToken: string; accessLevel: string; tagList: string[] } } }>(
      `mutation { runnerCreate(input: { runnerType: INSTANCE_TYPE, description: "gql", tagList: ["a", "b"] }) { runner { id runnerType accessLevel tagList ephemeralAuthenticationToken } errors } }`,
    );
    const runner = created.body.data!.runnerCreate.runner;
    expect(runner).toMatchObject({ runnerType: 'INSTANCE_TYPE', accessLevel: 'NOT_PROTECTED', tagList: ['a', 'b'], ephemeralAuthenticationToken: expect.stringMatching(/^glrt-/) });
    expect(runner.id).toMatch(/^gid:\/\/gitlab\/Ci::Runner\/\d+$/);
    const read = await t.graphql(`query($id: ID!) { runner(id: $id) { description paused status restStatus ephemeralAuthenticationToken } }`, { id: runner.id });
    expect(read.body.data).toEqual({ runner: { description: 'gql', paused: false, status: 'NEVER_CONTACTED', restStatus: 'never_contacted', ephemeralAuthenticationToken: null } });
    const updated = await t.graphql(`mutation($id: ID!) { runnerUpdate(input: { id: $id, paused: true }) { runner { paused } errors } }`, { id: runner.id });
    expect(updated.body.data).toEqual({ runnerUpdate: { runner: { paused: true }, errors: [] } });
    const deleted = await t.graphql(`mutation($id: ID!) { runnerDelete(input: { id: $id }) { errors } }`, { id: runner.id });
    expect(deleted.body.data).toEqual({ runnerDelete: { errors: [] } });
    const gone = await t.graphql(`query($id: ID!) { runner(id: $id) { id } }`, { id: runner.id });
    expect(gone.body.errors?.[0].extensions?.code).toBe('NOT_FOUND');
  });

  it("takes GitLab's relay shape: clientMutationId echoed, validation and refusals in errors, missing and forbidden raised", async () => {
    const { owner, group, project, developer } = await team();
    const other = await createProject(t, owner.token, { namespaceId: group.id });
    const created = await t.graphql(
      `mutation($id: ID!) { runnerCreate(input: { clientMutationId: "create-1", runnerType: PROJECT_TYPE, projectId: $id, description: "relay" }) { clientMutationId errors runner { id description } } }`,
      { id: `gid://gitlab/Project/${project.id}` },
      owner.token,
    );
    expect(created.body.errors).toBeUndefined();
    expect(created.body.data.runnerCreate).toMatchObject({ clientMutationId: 'create-1', errors: [], runner: { description: 'relay' } });
    const id = created.body.data.runnerCreate.runner.id;

    // A runner that would not validate: Rails' full messages in errors, the runner null.
    const invalid = await t.graphql(
      `mutation($id: ID!) { runnerUpdate(input: { clientMutationId: "update-1", id: $id, maximumTimeout: 60 }) { clientMutationId errors runner { maximumTimeout } } }`,
      { id },
      owner.token,
    );
    expect(invalid.body).toEqual({ data: { runnerUpdate: { clientMutationId: 'update-1', errors: ['Maximum timeout needs to be at least 10 minutes'], runner: null } } });
    const refusedCreate = await t.graphql(`mutation { runnerCreate(input: { runnerType: GROUP_TYPE, groupId: "gid://gitlab/Group/999999999" }) { errors runner { id } } }`, {}, owner.token);
    expect(refusedCreate.body).toEqual({ data: { runnerCreate: { errors: ['Missing/invalid group'], runner: null } } });

    const assign = `mutation($runner: ID!, $path: ID!) { runnerAssignToProject(input: { clientMutationId: "assign", runnerId: $runner, projectPath: $path }) { clientMutationId errors runner { id } } }`;
    const assigned = await t.graphql(assign, { runner: id, path: other.path_with_namespace }, owner.token);
    expect(assigned.body).toEqual({ data: { runnerAssignToProject: { clientMutationId: 'assign', errors: [], runner: { id } } } });
    const twice = await t.graphql(assign, { runner: id, path: other.path_with_namespace }, owner.token);
    expect(twice.body).toEqual({ data: { runnerAssignToProject: { clientMutationId: 'assign', errors: ['Validation failed: Runner has already been taken'], runner: null } } });
    const unassigned = await t.graphql(
      `mutation($runner: ID!, $path: ID!) { runnerUnassignFromProject(input: { clientMutationId: "unassign", runnerId: $runner, projectPath: $path }) { clientMutationId errors runner { id } } }`,
      { runner: id, path: String(other.id) },
      owner.token,
    );
    expect(unassigned.body).toEqual({ data: { runnerUnassignFromProject: { clientMutationId: 'unassign', errors: [], runner: { id } } } });

    // No right, and no such object: top-level errors, as GitLab raises them.
    const forbidden = await t.graphql(`mutation($id: ID!) { runnerDelete(input: { id: $id }) { errors } }`, { id }, developer.token);
    expect(forbidden.body.data).toEqual({ runnerDelete: null });
    expect(forbidden.body.errors?.[0].extensions?.code).toBe('FORBIDDEN');
    const noJob = await t.graphql(`mutation { jobArtifactsDestroy(input: { clientMutationId: "gone", id: "gid://gitlab/Ci::Build/999999999" }) { clientMutationId errors destroyedArtifactsCount } }`, {}, owner.token);
    expect(noJob.body.data).toEqual({ jobArtifactsDestroy: null });
    expect(noJob.body.errors?.[0].extensions?.code).toBe('NOT_FOUND');
    const deleted = await t.graphql(`mutation($id: ID!) { runnerDelete(input: { clientMutationId: "delete", id: $id }) { clientMutationId errors } }`, { id }, owner.token);
    expect(deleted.body).toEqual({ data: { runnerDelete: { clientMutationId: 'delete', errors: [] } } });
  });
});

describe('@gitbeaker/rest', () => {
  it('creates, lists, shows, edits and removes runners', async () => {
    const { project } = await team();
    const api = new Gitlab({ host: t.url, token: t.rootToken });
    const created = (await api.Users.createCIRunner('project_type', { projectId: project.id, description: 'beaker' })) as unknown as { id: number; token: string };
    expect(created.token).toMatch(/^glrt-/);
    // gitbeaker's types leave the token out of verify's options, though the endpoint needs it.
    expect(await api.Runners.verify({ token: created.token } as Parameters<typeof api.Runners.verify>[0])).toMatchObject({ id: created.id });
    const shown = await api.Runners.show(created.id);
    expect(shown).toMatchObject({ id: created.id, description: 'beaker', runner_type: 'project_type' });
    const listed = await api.Runners.all({ projectId: project.id, type: 'project_type' });
    expect(listed.map((r) => r.id)).toEqual([created.id]);
    await api.Runners.edit(created.id, { description: 'edited' });
    expect((await api.Runners.show(created.id)).description).toBe('edited');
    await api.Runners.remove({ runnerId: created.id });
    await expect(api.Runners.show(created.id)).rejects.toThrow();
  });
});
