/**
 * Project CI/CD settings of issue 32, set through `POST`/`PUT /projects` and seen where they act: `build_git_strategy`
 * as the job payload's `allow_git_fetch`, `ci_separated_caches` as the cache keys' `-protected`/`-non_protected`
 * suffixes, `group_runners_enabled` keeping the group's runners off the project's jobs, `keep_latest_artifact` (kept
 * with the job token settings, so GraphQL's ciCdSettings shows the same). GitLab: API::Entities::ProjectWithAccess,
 * lib/api/helpers/projects_helpers.rb, Ci::Build#cache and #allow_git_fetch.
 */
import { Gitlab } from '@gitbeaker/rest';
import { describe, expect, it } from 'vitest';
import { suiteServer } from '../support/server.js';
import { createGroup, createUser } from '../support/factories.js';
import { commit, createRunner, pushPipeline, requestJob, runnerCall, RUNNER_INFO } from '../runners/support.js';

const t = suiteServer({ ciLongPollingMs: 1000 });

const newProject = async (body: Record<string, unknown> = {}) => {
  const res = await t.api('POST', '/projects', { body: { name: `ci-gaps-${Date.now()}-${Math.random().toString(36).slice(2, 6)}`, ...body } });
  expect(res.status, res.text).toBe(201);
  return res.body;
};

describe('CI settings of issue 32', () => {
  it("shows GitLab's defaults to Maintainers only, takes them on create and update, and refuses a bad strategy", async () => {
    const project = await newProject({ visibility: 'public' });
    expect(project).toMatchObject({ ci_separated_caches: true, group_runners_enabled: true, build_git_strategy: 'fetch', keep_latest_artifact: true });
    const other = await createUser(t);
    const seen = (await t.api('GET', `/projects/${project.id}`, { token: other.token })).body;
    for (const key of ['ci_separated_caches', 'group_runners_enabled', 'build_git_strategy', 'keep_latest_artifact']) expect(seen).not.toHaveProperty(key);

    const made = await newProject({ ci_separated_caches: false, group_runners_enabled: false, build_git_strategy: 'clone', keep_latest_artifact: false });
    expect(made).toMatchObject({ ci_separated_caches: false, group_runners_enabled: false, build_git_strategy: 'clone', keep_latest_artifact: false });
    expect((await t.api('GET', `/projects/${made.id}`)).body).toMatchObject({ build_git_strategy: 'clone', keep_latest_artifact: false });

    const bad = await t.api('PUT', `/projects/${project.id}`, { body: { build_git_strategy: 'rsync' } });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: 'build_git_strategy does not have a valid value' });

    const api = new Gitlab({ host: t.url, token: t.rootToken });
    const edited = await api.Projects.edit(project.id, { buildGitStrategy: 'clone', ciSeparatedCaches: false, groupRunnersEnabled: false, keepLatestArtifact: false } as Parameters<typeof api.Projects.edit>[1]);
    expect(edited).toMatchObject({ build_git_strategy: 'clone', ci_separated_caches: false, group_runners_enabled: false, keep_latest_artifact: false });

    // keep_latest_artifact is the job token module's setting too: GraphQL's ciCdSettings reads the same row.
    const query = `{ project(fullPath: "${project.path_with_namespace}") { ciCdSettings { keepLatestArtifact } } }`;
    const graphql = await t.graphql(query);
    expect(graphql.body.data!.project.ciCdSettings.keepLatestArtifact).toBe(false);
    expect((await t.api('PUT', `/projects/${project.id}`, { body: { keep_latest_artifact: true } })).body.keep_latest_artifact).toBe(true);
    expect((await t.graphql(query)).body.data.project.ciCdSettings.keepLatestArtifact).toBe(true);
  });

  it('hands the runner allow_git_fetch from the strategy, and suffixes cache keys only with separated caches', async () => {
    const project = await newProject({ build_git_strategy: 'clone', ci_separated_caches: false });
    const config = 'a:\n  cache:\n    key: deps\n    fallback_keys: [old]\n    paths: [vendor]\n  script: echo a\n';
    await pushPipeline(t, project.id, await commit(t, project.id, { '.gitlab-ci.yml': config }));
    const runner = await createRunner(t, { project_id: project.id });
    const plain = await requestJob(t, runner.token);
    expect(plain.allow_git_fetch).toBe(false);
    expect(plain.cache).toEqual([expect.objectContaining({ key: 'deps', fallback_keys: ['old'] })]);

    expect((await t.api('PUT', `/projects/${project.id}`, { body: { build_git_strategy: 'fetch', ci_separated_caches: true } })).status).toBe(200);
    await pushPipeline(t, project.id, await commit(t, project.id, { 'x.txt': 'x' }));
    const separated = await requestJob(t, runner.token);
    expect(separated.allow_git_fetch).toBe(true);
    // `main` is protected (the default branch's protection): its caches are the protected ones.
    const suffix = separated.cache[0].key.replace(/^deps-/, '');
    expect(['protected', 'non_protected']).toContain(suffix);
    expect(separated.cache[0].fallback_keys).toEqual([`old-${suffix}`]);
  });

  it("keeps the group's runners off the project's jobs while group_runners_enabled is false", async () => {
    const group = await createGroup(t, t.rootToken);
    const project = await newProject({ namespace_id: group.id, group_runners_enabled: false, shared_runners_enabled: false });
    await pushPipeline(t, project.id, await commit(t, project.id, { '.gitlab-ci.yml': 'a:\n  script: echo a\n' }));
    const runner = await createRunner(t, { runner_type: 'group_type', group_id: group.id });
    const none = await runnerCall(t, 'POST', '/jobs/request', { token: runner.token, info: RUNNER_INFO });
    expect(none.status).toBe(204);

    expect((await t.api('PUT', `/projects/${project.id}`, { body: { group_runners_enabled: true } })).status).toBe(200);
    const job = await requestJob(t, runner.token);
    expect(job.job_info.project_id).toBe(project.id);
  });
});
