/**
 * GitLab's shared runners setting: a group's `shared_runners_setting` sets the `shared_runners_enabled` of its
 * subgroups and projects (Groups::UpdateSharedRunnersService), `disabled_and_unoverridable` keeps them off, new
 * subgroups and projects start with their group's, and instance runners take only jobs of projects whose shared
 * runners are enabled.
 */
import { describe, expect, it } from 'vitest';
import { createGroup, createProject, createUser } from '../support/factories.js';
import { suiteServer } from '../support/server.js';
import { commit, createRunner, pushPipeline, RUNNER_INFO, runnerCall } from '../runners/support.js';

const t = suiteServer({ ciLongPollingMs: 0 });

async function subgroup(token: string, parentId: number) {
  const res = await t.api('POST', '/groups', { token, body: { name: `sub${parentId}`, path: `sub-${parentId}-${Date.now()}`, parent_id: parentId } });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

const setting = async (token: string, id: number) => (await t.api('GET', `/groups/${id}`, { token })).body.shared_runners_setting;
const projectFlag = async (token: string, id: number) => (await t.api('GET', `/projects/${id}`, { token })).body.shared_runners_enabled;

describe('shared runners setting', () => {
  it('cascades as GitLab does, and keeps instance runners off below a group that does not allow them', async () => {
    const owner = await createUser(t);
    const group = await createGroup(t, owner.token);
    const sub = await subgroup(owner.token, group.id);
    const project = await createProject(t, owner.token, { namespaceId: sub.id });
    expect(await setting(owner.token, group.id)).toBe('enabled');
    expect(await projectFlag(owner.token, project.id)).toBe(true);

    const off = await t.api('PUT', `/groups/${group.id}`, { token: owner.token, body: { shared_runners_setting: 'disabled_and_unoverridable' } });
    expect(off.status, off.text).toBe(200);
    expect(off.body.shared_runners_setting).toBe('disabled_and_unoverridable');
    expect(await setting(owner.token, sub.id)).toBe('disabled_and_unoverridable');
    expect(await projectFlag(owner.token, project.id)).toBe(false);

    // Nothing below may turn them on again.
    const enable = await t.api('PUT', `/projects/${project.id}`, { token: owner.token, body: { shared_runners_enabled: true } });
    expect(enable.status).toBe(400);
    expect(enable.body).toEqual({ message: { shared_runners_enabled: ['cannot be enabled because parent group does not allow it'] } });
    const subOn = await t.api('PUT', `/groups/${sub.id}`, { token: owner.token, body: { shared_runners_setting: 'enabled' } });
    expect(subOn.status).toBe(400);
    expect(subOn.body).toEqual({ message: { update_shared_runners: ['Validation failed: Shared runners enabled cannot be enabled because parent group has shared Runners disabled'] } });
    const subOverride = await t.api('PUT', `/groups/${sub.id}`, { token: owner.token, body: { shared_runners_setting: 'disabled_and_overridable' } });
    expect(subOverride.body).toEqual({
      message: { update_shared_runners: ['Validation failed: Allow descendants override disabled shared runners cannot be enabled because parent group does not allow it'] },
    });
    const created = await t.api('POST', '/projects', { token: owner.token, body: { name: 'on', namespace_id: sub.id, shared_runners_enabled: true } });
    expect(created.status).toBe(400);
    expect(created.body.message).toEqual({ shared_runners_enabled: ['cannot be enabled because parent group does not allow it'] });
    const fresh = await createProject(t, owner.token, { namespaceId: sub.id });
    expect(fresh.shared_runners_enabled).toBe(false);
    expect(await setting(owner.token, (await subgroup(owner.token, sub.id)).id)).toBe('disabled_and_unoverridable');

    // With override allowed (the deprecated name too), projects may turn them on; new projects start off.
    const override = await t.api('PUT', `/groups/${group.id}`, { token: owner.token, body: { shared_runners_setting: 'disabled_with_override' } });
    expect(override.body.shared_runners_setting).toBe('disabled_and_overridable');
    expect(await setting(owner.token, sub.id)).toBe('disabled_and_unoverridable');
    expect((await t.api('PUT', `/groups/${sub.id}`, { token: owner.token, body: { shared_runners_setting: 'disabled_and_overridable' } })).status).toBe(200);
    const projectOn = await t.api('PUT', `/projects/${project.id}`, { token: owner.token, body: { shared_runners_enabled: true } });
    expect(projectOn.status, projectOn.text).toBe(200);
    expect(projectOn.body.shared_runners_enabled).toBe(true);
    expect((await createProject(t, owner.token, { namespaceId: sub.id })).shared_runners_enabled).toBe(false);

    // Enabling enables everything below.
    const on = await t.api('PUT', `/groups/${group.id}`, { token: owner.token, body: { shared_runners_setting: 'enabled' } });
    expect(on.body.shared_runners_setting).toBe('enabled');
    expect(await setting(owner.token, sub.id)).toBe('enabled');
    expect(await projectFlag(owner.token, fresh.id)).toBe(true);
    expect((await createProject(t, owner.token, { namespaceId: sub.id })).shared_runners_enabled).toBe(true);

    const bad = await t.api('PUT', `/groups/${group.id}`, { token: owner.token, body: { shared_runners_setting: 'sometimes' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/shared_runners_setting/);
  });

  it('is GitLab’s groupUpdate input and Group field over GraphQL; only owners change it', async () => {
    const owner = await createUser(t);
    const maintainer = await createUser(t);
    const group = await createGroup(t, owner.token);
    await t.api('POST', `/groups/${group.id}/members`, { token: owner.token, body: { user_id: maintainer.id, access_level: 40 } });
    const mutation = 'mutation($p: ID!, $s: SharedRunnersSetting!) { groupUpdate(input: { fullPath: $p, sharedRunnersSetting: $s }) { errors group { sharedRunnersSetting } } }';
    const set = await t.graphql(mutation, { p: group.full_path, s: 'DISABLED_AND_OVERRIDABLE' }, owner.token);
    expect(set.body).toEqual({ data: { groupUpdate: { errors: [], group: { sharedRunnersSetting: 'DISABLED_AND_OVERRIDABLE' } } } });
    const refused = await t.graphql(mutation, { p: group.full_path, s: 'ENABLED' }, maintainer.token);
    expect(refused.body.errors?.[0].message).toBe("The resource that you are attempting to access does not exist or you don't have permission to perform this action");
    expect(await setting(owner.token, group.id)).toBe('disabled_and_overridable');
  });

  it('instance runners take only jobs of projects whose shared runners are enabled; project runners take them all', async () => {
    const owner = await createUser(t);
    const group = await createGroup(t, owner.token);
    expect((await t.api('PUT', `/groups/${group.id}`, { token: owner.token, body: { shared_runners_setting: 'disabled_and_overridable' } })).status).toBe(200);
    const project = await createProject(t, owner.token, { namespaceId: group.id });
    const sha = await commit(t, project.id, { '.gitlab-ci.yml': 'build:\n  script: echo hi\n' }, 'main', owner.token);
    await pushPipeline(t, project.id, sha, owner.token);
    const instance = await createRunner(t, { runner_type: 'instance_type' });
    const ask = (token: string) => runnerCall(t, 'POST', '/jobs/request', { token, info: RUNNER_INFO });
    expect((await ask(instance.token)).status).toBe(204);
    expect((await t.api('PUT', `/projects/${project.id}`, { token: owner.token, body: { shared_runners_enabled: true } })).status).toBe(200);
    const taken = await ask(instance.token);
    expect(taken.status).toBe(201);
    expect(taken.body.job_info.project_id).toBe(project.id);

    const second = await createProject(t, owner.token, { namespaceId: group.id });
    const sha2 = await commit(t, second.id, { '.gitlab-ci.yml': 'build:\n  script: echo hi\n' }, 'main', owner.token);
    await pushPipeline(t, second.id, sha2, owner.token);
    expect((await ask(instance.token)).status).toBe(204);
    const projectRunner = await createRunner(t, { runner_type: 'project_type', project_id: second.id });
    const own = await ask(projectRunner.token);
    expect(own.status).toBe(201);
    expect(own.body.job_info.project_id).toBe(second.id);
  });
});
