/**
 * Project CI/CD settings under GitLab's GraphQL names: `runnerCacheClear` (GitLab's ResetProjectCacheService: the
 * project's cache index goes up, so the next job's cache keys differ, as its runner sees them), and
 * `ProjectCiCdSetting.pipelineVariablesMinimumOverrideRole`/`restrictUserDefinedVariables` with
 * `projectCiCdSettingsUpdate` changing them, honoured by pipeline creation.
 */
import { describe, expect, it } from 'vitest';
import { createRunner, projectWithConfig, requestJob, runnerCall, RUNNER_INFO } from '../runners/support.js';
import { addMember, createProject, createUser } from '../support/factories.js';
import { suiteServer } from '../support/server.js';

const t = suiteServer({ ciLongPollingMs: 0 });

const CACHED = `
build:
  script: echo build
  cache:
    key: deps
    paths: [vendor/]
    fallback_keys: [shared]
`;

const CLEAR = `mutation($input: RunnerCacheClearInput!) { runnerCacheClear(input: $input) { errors clientMutationId } }`;

describe('runner caches', () => {
  it('clears them: the next job gets cache keys with the new index', async () => {
    const { project } = await projectWithConfig(t, CACHED);
    const runner = await createRunner(t, { project_id: project.id });
    const first = await requestJob(t, runner.token);
    expect(first.cache.map((c: { key: string; fallback_keys: string[] }) => [c.key, c.fallback_keys])).toEqual([['deps-protected', ['shared-protected']]]);
    await runnerCall(t, 'PUT', `/jobs/${first.id}`, { token: first.token, info: RUNNER_INFO, state: 'success' });

    const projectId = `gid://gitlab/Project/${project.id}`;
    for (const expected of [1, 2]) {
      const res = await t.graphql(CLEAR, { input: { projectId, clientMutationId: 'c' } });
      expect(res.body).toEqual({ data: { runnerCacheClear: { errors: [], clientMutationId: 'c' } } });
      const retried = await t.api('POST', `/projects/${project.id}/jobs/${first.id}/retry`);
      expect(retried.status, retried.text).toBe(201);
      const next = await requestJob(t, runner.token);
      expect(next.cache.map((c: { key: string; fallback_keys: string[] }) => [c.key, c.fallback_keys])).toEqual([[`deps-${expected}-protected`, [`shared-${expected}-protected`]]]);
      await runnerCall(t, 'PUT', `/jobs/${next.id}`, { token: next.token, info: RUNNER_INFO, state: 'success' });
      first.id = next.id;
    }
  });

  it('is for Maintainers: Developers and strangers are refused alike, a bad ID is an argument error', async () => {
    const project = await createProject(t, t.rootToken);
    const developer = await createUser(t);
    await addMember(t, t.rootToken, 'projects', project.id, developer.id, 30);
    const stranger = await createUser(t);
    for (const token of [developer.token, stranger.token]) {
      const res = await t.graphql(CLEAR, { input: { projectId: `gid://gitlab/Project/${project.id}` } }, token);
      expect(res.body.data).toEqual({ runnerCacheClear: null });
      expect(res.body.errors?.[0].message).toBe("The resource that you are attempting to access does not exist or you don't have permission to perform this action");
    }
    const maintainer = await createUser(t);
    await addMember(t, t.rootToken, 'projects', project.id, maintainer.id, 40);
    expect((await t.graphql(CLEAR, { input: { projectId: `gid://gitlab/Project/${project.id}` } }, maintainer.token)).body).toEqual({ data: { runnerCacheClear: { errors: [], clientMutationId: null } } });
    const bad = await t.graphql(CLEAR, { input: { projectId: `gid://gitlab/Issue/${project.id}` } });
    expect(bad.body.errors?.[0].extensions?.code).toBe('BAD_USER_INPUT');
  });
});

describe('ProjectCiCdSetting pipeline variable settings', () => {
  const READ = `query($path: ID!) { project(fullPath: $path) { ciCdSettings { pipelineVariablesMinimumOverrideRole restrictUserDefinedVariables } } }`;
  const UPDATE = `mutation($input: ProjectCiCdSettingsUpdateInput!) {
    projectCiCdSettingsUpdate(input: $input) { errors ciCdSettings { pipelineVariablesMinimumOverrideRole restrictUserDefinedVariables inboundJobTokenScopeEnabled } }
  }`;

  it("reads and changes them under GitLab's names, and pipeline creation follows", async () => {
    const { project } = await projectWithConfig(t, 'job:\n  script: echo "$FOO"\n');
    const path = project.path_with_namespace;
    expect((await t.graphql(READ, { path })).body).toEqual({ data: { project: { ciCdSettings: { pipelineVariablesMinimumOverrideRole: 'developer', restrictUserDefinedVariables: false } } } });

    const res = await t.graphql(UPDATE, { input: { fullPath: path, restrictUserDefinedVariables: true, pipelineVariablesMinimumOverrideRole: 'maintainer' } });
    expect(res.body).toEqual({
      data: { projectCiCdSettingsUpdate: { errors: [], ciCdSettings: { pipelineVariablesMinimumOverrideRole: 'maintainer', restrictUserDefinedVariables: true, inboundJobTokenScopeEnabled: true } } },
    });
    // The same settings REST shows.
    expect((await t.api('GET', `/projects/${project.id}`)).body).toMatchObject({ restrict_user_defined_variables: true, ci_pipeline_variables_minimum_override_role: 'maintainer' });

    const developer = await createUser(t);
    await addMember(t, t.rootToken, 'projects', project.id, developer.id, 30);
    // An unprotected branch, where Developers run pipelines.
    expect((await t.api('POST', `/projects/${project.id}/repository/branches`, { body: { branch: 'feature', ref: 'main' } })).status).toBe(201);
    const refused = await t.api('POST', `/projects/${project.id}/pipeline`, { token: developer.token, body: { ref: 'feature', variables: [{ key: 'FOO', value: 'bar' }] } });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ message: { base: ['Insufficient permissions to set pipeline variables'] } });

    await t.graphql(UPDATE, { input: { fullPath: path, pipelineVariablesMinimumOverrideRole: 'developer' } });
    const allowed = await t.api('POST', `/projects/${project.id}/pipeline`, { token: developer.token, body: { ref: 'feature', variables: [{ key: 'FOO', value: 'bar' }] } });
    expect(allowed.status, allowed.text).toBe(201);
  });

  it('refuses a role GitLab does not have', async () => {
    const project = await createProject(t, t.rootToken);
    const res = await t.graphql(UPDATE, { input: { fullPath: project.path_with_namespace, pipelineVariablesMinimumOverrideRole: 'guest' } });
    expect(res.body.data).toEqual({ projectCiCdSettingsUpdate: null });
    expect(res.body.errors?.[0].extensions?.code).toBe('BAD_USER_INPUT');
  });
});
