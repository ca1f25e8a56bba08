/**
 * Forward deployment (GitLab's ci_forward_deployment_enabled and ci_forward_deployment_rollback_allowed), run through
 * the runner protocol by a project runner the test drives: a newer pipeline's deployment that starts running drops
 * the older pipeline's unfinished deployment job (`forward_deployment_failure`); an older deployment job about to start
 * after a newer deployment succeeded fails instead (`failed_outdated_deployment_job`); a finished older deployment
 * job may be retried (a rollback) only while rollbacks are allowed. The settings over REST and GraphQL.
 */
import { describe, expect, it } from 'vitest';
import { commit, createRunner, eventually, jobsOf, pushPipeline, requestJob, runnerCall, RUNNER_INFO } from '../runners/support.js';
import { addMember, createProject, createUser } from '../support/factories.js';
import { suiteServer } from '../support/server.js';

const t = suiteServer({ ciLongPollingMs: 0 });

const CONFIG = (marker: string) => `
stages: [build, deploy]
build:
  stage: build
  script: echo build ${marker}
deploy:
  stage: deploy
  script: echo deploy
  environment: production
`;

type Job = { id: number; token: string; job_info: { name: string }; git_info: { sha: string } };

function put(job: Job, state: string) {
  return runnerCall(t, 'PUT', `/jobs/${job.id}`, { token: job.token, info: RUNNER_INFO, state, ...(state === 'failed' ? { failure_reason: 'script_failure' } : {}) });
}

async function setup() {
  const project = await createProject(t, t.rootToken);
  const runner = await createRunner(t, { project_id: project.id });
  /** A new commit's push pipeline, and its build job taken by the runner. */
  const pipeline = async (marker: string) => {
    const sha = await commit(t, project.id, { '.gitlab-ci.yml': CONFIG(marker) });
    const created = await pushPipeline(t, project.id, sha);
    const build: Job = await requestJob(t, runner.token);
    expect([build.job_info.name, build.git_info.sha]).toEqual(['build', sha]);
    return { ...created, build };
  };
  const job = async (pipelineId: number, name: string) => (await jobsOf(t, project.id, pipelineId)).find((j) => j.name === name) as { id: number; status: string; failure_reason?: string };
  return { project, runner, pipeline, job };
}

describe('forward deployment', () => {
  it('is on by default and changes through PUT /projects/:id and projectCiCdSettingsUpdate', async () => {
    const project = await createProject(t, t.rootToken);
    let res = await t.api('GET', `/projects/${project.id}`);
    expect(res.body).toMatchObject({ ci_forward_deployment_enabled: true, ci_forward_deployment_rollback_allowed: true });
    res = await t.api('PUT', `/projects/${project.id}`, { body: { ci_forward_deployment_enabled: false, ci_forward_deployment_rollback_allowed: 'false' } });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ ci_forward_deployment_enabled: false, ci_forward_deployment_rollback_allowed: false });

    const update = `mutation($input: ProjectCiCdSettingsUpdateInput!) {
      projectCiCdSettingsUpdate(input: $input) { errors ciCdSettings { forwardDeploymentEnabled forwardDeploymentRollbackAllowed keepLatestArtifact } }
    }`;
    const gql = await t.graphql(update, { input: { fullPath: project.path_with_namespace, forwardDeploymentEnabled: true } });
    expect(gql.body).toEqual({ data: { projectCiCdSettingsUpdate: { errors: [], ciCdSettings: { forwardDeploymentEnabled: true, forwardDeploymentRollbackAllowed: false, keepLatestArtifact: true } } } });
    expect((await t.api('GET', `/projects/${project.id}`)).body).toMatchObject({ ci_forward_deployment_enabled: true, ci_forward_deployment_rollback_allowed: false });

    // Developers see neither the settings nor may change them: the REST keys are left out, the mutation is refused.
    const developer = await createUser(t);
    await addMember(t, t.rootToken, 'projects', project.id, developer.id, 30);
    const seen = await t.api('GET', `/projects/${project.id}`, { token: developer.token });
    expect(seen.body).not.toHaveProperty('ci_forward_deployment_enabled');
    expect(seen.body).not.toHaveProperty('ci_forward_deployment_rollback_allowed');
    const refused = await t.graphql(update, { input: { fullPath: project.path_with_namespace, forwardDeploymentEnabled: false } }, developer.token);
    expect(refused.body.data).toEqual({ projectCiCdSettingsUpdate: null });
    expect(refused.body.errors?.[0].message).toBe("The resource that you are attempting to access does not exist or you don't have permission to perform this action");
  });

  it("drops an older pipeline's waiting deployment once a newer deployment runs (forward_deployment_failure)", async () => {
    const { project, runner, pipeline, job } = await setup();
    const older = await pipeline('one');
    const newer = await pipeline('two');
    expect((await put(newer.build, 'success')).status).toBe(200);
    const deploy: Job = await requestJob(t, runner.token);
    expect(deploy.git_info.sha).toBe(newer.sha);
    // Running, the newer deployment drops the older pipeline's deploy job, which has not started.
    const dropped = await eventually(async () => {
      const j = await job(older.id, 'deploy');
      return j.status === 'failed' && j;
    });
    expect(dropped.failure_reason).toBe('forward_deployment_failure');
    expect((await put(deploy, 'success')).status).toBe(200);
    expect((await put(older.build, 'success')).status).toBe(200);
    expect((await t.api('GET', `/projects/${project.id}/pipelines/${older.id}`)).body.status).toBe('failed');
    const deployments = (await t.api('GET', `/projects/${project.id}/deployments?order_by=id&sort=asc`)).body as { status: string; sha: string }[];
    expect(deployments.map((d) => [d.sha, d.status])).toEqual([
      [older.sha, 'failed'],
      [newer.sha, 'success'],
    ]);
  });

  it('fails an older deployment job about to start after a newer deployment succeeded; runs it when the setting is off', async () => {
    const { project, runner, pipeline, job } = await setup();
    await t.api('PUT', `/projects/${project.id}`, { body: { ci_forward_deployment_enabled: false } });
    const older = await pipeline('one');
    const newer = await pipeline('two');
    expect((await put(newer.build, 'success')).status).toBe(200);
    const deploy: Job = await requestJob(t, runner.token);
    expect((await put(deploy, 'success')).status).toBe(200);
    // Off: nothing dropped the older deploy job.
    expect((await job(older.id, 'deploy')).status).toBe('created');

    // On again: the older build finishing would start its deploy job, which now fails without running.
    await t.api('PUT', `/projects/${project.id}`, { body: { ci_forward_deployment_enabled: true } });
    expect((await put(older.build, 'success')).status).toBe(200);
    const outdated = await job(older.id, 'deploy');
    expect(outdated).toMatchObject({ status: 'failed', failure_reason: 'failed_outdated_deployment_job' });
    const res = await runnerCall(t, 'POST', '/jobs/request', { token: runner.token, info: RUNNER_INFO });
    expect(res.status).toBe(204);

    // Off, the same situation runs the older deployment.
    await t.api('PUT', `/projects/${project.id}`, { body: { ci_forward_deployment_enabled: false } });
    const third = await pipeline('three');
    const fourth = await pipeline('four');
    expect((await put(fourth.build, 'success')).status).toBe(200);
    expect((await put(await requestJob(t, runner.token), 'success')).status).toBe(200);
    expect((await put(third.build, 'success')).status).toBe(200);
    expect((await job(third.id, 'deploy')).status).toBe('pending');
  });

  it('retries a finished older deployment job (a rollback) only while rollbacks are allowed', async () => {
    const { project, runner, pipeline, job } = await setup();
    const deployAll = async (marker: string) => {
      const p = await pipeline(marker);
      expect((await put(p.build, 'success')).status).toBe(200);
      expect((await put(await requestJob(t, runner.token), 'success')).status).toBe(200);
      return p;
    };
    const older = await deployAll('one');
    await deployAll('two');
    const oldDeploy = await job(older.id, 'deploy');
    expect(oldDeploy.status).toBe('success');

    await t.api('PUT', `/projects/${project.id}`, { body: { ci_forward_deployment_rollback_allowed: false } });
    const refused = await t.api('POST', `/projects/${project.id}/jobs/${oldDeploy.id}/retry`);
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ message: '403 Forbidden' });

    await t.api('PUT', `/projects/${project.id}`, { body: { ci_forward_deployment_rollback_allowed: true } });
    const retried = await t.api('POST', `/projects/${project.id}/jobs/${oldDeploy.id}/retry`);
    expect(retried.status, retried.text).toBe(201);
    expect(retried.body).toMatchObject({ name: 'deploy', status: 'pending' });
    const rollback: Job = await requestJob(t, runner.token);
    expect([rollback.id, rollback.git_info.sha]).toEqual([retried.body.id, older.sha]);
    expect((await put(rollback, 'success')).status).toBe(200);
    const environment = (await t.api('GET', `/projects/${project.id}/environments?name=production`)).body[0];
    const shown = await t.api('GET', `/projects/${project.id}/environments/${environment.id}`);
    expect(shown.body.last_deployment).toMatchObject({ sha: older.sha, status: 'success' });
  });
});
