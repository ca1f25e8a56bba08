/**
 * Project CI/CD settings, set through `POST`/`PUT /projects` and seen where they act: `build_timeout` as the job's
 * timeout in the runner's payload, `ci_default_git_depth` as its clone depth, `public_jobs` hiding jobs and logs
 * from those below Reporter, `shared_runners_enabled` keeping instance runners off.
 */
import { Gitlab } from '@gitbeaker/rest';
import { describe, expect, it } from 'vitest';
import { suiteServer } from '../support/server.js';
import { addMember, createUser } from '../support/factories.js';
import { commit, createRunner, eventually, pushPipeline, requestJob, runnerCall, RUNNER_INFO } from '../runners/support.js';

const t = suiteServer({ ciLongPollingMs: 1000 });

describe('project CI/CD settings', () => {
  it('shows GitLab defaults to Maintainers only and validates what is set', async () => {
    const created = await t.api('POST', '/projects', { body: { name: `ci-defaults-${Date.now()}`, visibility: 'public' } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ build_timeout: 3600, public_jobs: true, ci_default_git_depth: 20 });
    const other = await createUser(t);
    const seen = await t.api('GET', `/projects/${created.body.id}`, { token: other.token });
    expect(seen.body.public_jobs).toBe(true);
    expect(seen.body).not.toHaveProperty('build_timeout');
    expect(seen.body).not.toHaveProperty('ci_default_git_depth');

    const short = await t.api('PUT', `/projects/${created.body.id}`, { body: { build_timeout: 599 } });
    expect(short.status).toBe(400);
    expect(short.body).toEqual({ message: { build_timeout: ['needs to be between 10 minutes and 1 month'] } });
    expect((await t.api('PUT', `/projects/${created.body.id}`, { body: { build_timeout: 2592000 } })).status).toBe(400);
    const deep = await t.api('PUT', `/projects/${created.body.id}`, { body: { ci_default_git_depth: 1001 } });
    expect(deep.status).toBe(400);
    expect(deep.body.message.ci_default_git_depth).toEqual(['must be less than or equal to 1000']);

    const api = new Gitlab({ host: t.url, token: t.rootToken });
    const edited = await api.Projects.edit(created.body.id, { buildTimeout: 900, ciDefaultGitDepth: 5, publicJobs: false } as Parameters<typeof api.Projects.edit>[1]);
    expect(edited).toMatchObject({ build_timeout: 900, ci_default_git_depth: 5, public_jobs: false });
    const made = await t.api('POST', '/projects', { body: { name: `ci-set-${Date.now()}`, build_timeout: 1200, ci_default_git_depth: 0, public_jobs: false } });
    expect(made.body).toMatchObject({ build_timeout: 1200, ci_default_git_depth: 0, public_jobs: false });
  });

  it('hands the runner the project timeout and clone depth, a job timeout of its own winning', async () => {
    const project = (await t.api('POST', '/projects', { body: { name: `ci-payload-${Date.now()}`, build_timeout: 900, ci_default_git_depth: 3 } })).body;
    const sha = await commit(t, project.id, { '.gitlab-ci.yml': 'a:\n  script: echo a\nb:\n  timeout: 2m\n  variables:\n    GIT_DEPTH: "7"\n  script: echo b\n' });
    await pushPipeline(t, project.id, sha);
    const runner = await createRunner(t, { project_id: project.id });
    const jobs = [await requestJob(t, runner.token), await requestJob(t, runner.token)];
    const byName = Object.fromEntries(jobs.map((j) => [j.job_info.name, j]));
    expect(byName.a.runner_info.timeout).toBe(900);
    expect(byName.a.steps[0].timeout).toBe(900);
    expect(byName.a.git_info.depth).toBe(3);
    expect(byName.b.runner_info.timeout).toBe(120);
    expect(byName.b.git_info.depth).toBe(7);
  });

  it('keeps instance runners off the project while shared_runners_enabled is false', async () => {
    const project = (await t.api('POST', '/projects', { body: { name: `ci-shared-${Date.now()}`, shared_runners_enabled: false } })).body;
    expect(project.shared_runners_enabled).toBe(false);
    const sha = await commit(t, project.id, { '.gitlab-ci.yml': 'a:\n  script: echo a\n' });
    await pushPipeline(t, project.id, sha);
    const instance = await createRunner(t, { runner_type: 'instance_type', run_untagged: true });
    const none = await runnerCall(t, 'POST', '/jobs/request', { token: instance.token, info: RUNNER_INFO });
    expect(none.status).toBe(204);
    expect((await t.api('PUT', `/projects/${project.id}`, { body: { shared_runners_enabled: true } })).status).toBe(200);
    const job = await requestJob(t, instance.token);
    expect(job.job_info.project_id).toBe(project.id);
  });

  it('hides jobs and their logs from anonymous users and Guests when public_jobs is false', async () => {
    const project = (await t.api('POST', '/projects', { body: { name: `ci-public-${Date.now()}`, visibility: 'public' } })).body;
    const sha = await commit(t, project.id, { '.gitlab-ci.yml': 'a:\n  script: echo a\n' });
    await pushPipeline(t, project.id, sha);
    const runner = await createRunner(t, { project_id: project.id });
    const job = await requestJob(t, runner.token);
    const patch = await runnerCall(t, 'PATCH', `/jobs/${job.id}/trace`, 'hello log\n', { 'JOB-TOKEN': job.token, 'Content-Range': '0-9', 'Content-Type': 'text/plain' });
    expect(patch.status).toBe(202);
    const guest = await createUser(t);
    const reporter = await createUser(t);
    await addMember(t, t.rootToken, 'projects', project.id, guest.id, 10);
    await addMember(t, t.rootToken, 'projects', project.id, reporter.id, 20);
    const trace = (token: string | null) => t.api('GET', `/projects/${project.id}/jobs/${job.id}/trace`, { token });
    expect((await trace(null)).text).toContain('hello log');

    expect((await t.api('PUT', `/projects/${project.id}`, { body: { public_jobs: false } })).status).toBe(200);
    // Anonymous callers are asked to sign in, as everywhere on this server.
    expect((await trace(null)).status).toBe(401);
    expect((await trace(guest.token)).status).toBe(403);
    expect((await t.api('GET', `/projects/${project.id}/jobs`, { token: guest.token })).status).toBe(403);
    const read = await trace(reporter.token);
    expect(read.status).toBe(200);
    expect(read.text).toContain('hello log');
  });

  it('cancels the older pipeline of a ref on a newer push while its started jobs are interruptible', async () => {
    const project = (await t.api('POST', '/projects', { body: { name: `ci-cancel-${Date.now()}` } })).body;
    expect(project.auto_cancel_pending_pipelines).toBe('enabled');
    expect((await t.api('PUT', `/projects/${project.id}`, { body: { auto_cancel_pending_pipelines: 'sometimes' } })).body).toEqual({ error: 'auto_cancel_pending_pipelines does not have a valid value' });
    const runner = await createRunner(t, { project_id: project.id });
    const interruptible = 'a:\n  interruptible: true\n  script: echo a\nb:\n  stage: test\n  script: echo b\n';
    const first = await pushPipeline(t, project.id, await commit(t, project.id, { '.gitlab-ci.yml': interruptible }));
    const started = await requestJob(t, runner.token);
    expect(started.job_info.name).toBe('a');
    const second = await pushPipeline(t, project.id, await commit(t, project.id, { 'x.txt': 'x' }));
    await eventually(async () => (await t.api('GET', `/projects/${project.id}/pipelines/${first.id}`)).body.status === 'canceled' || null);

    // A started job that is not interruptible keeps its pipeline; the API's pipeline asks again, synchronously.
    await t.api('POST', `/projects/${project.id}/pipelines/${second.id}/cancel`);
    const strict = await pushPipeline(t, project.id, await commit(t, project.id, { '.gitlab-ci.yml': 'b:\n  script: echo b\n' }));
    expect((await requestJob(t, runner.token)).job_info.name).toBe('b');
    await commit(t, project.id, { 'y.txt': 'y' });
    expect((await t.api('POST', `/projects/${project.id}/pipeline`, { body: { ref: 'main' } })).status).toBe(201);
    expect((await t.api('GET', `/projects/${project.id}/pipelines/${strict.id}`)).body.status).toBe('running');

    // Disabled: an interruptible pipeline stays.
    expect((await t.api('PUT', `/projects/${project.id}`, { body: { auto_cancel_pending_pipelines: 'disabled' } })).body.auto_cancel_pending_pipelines).toBe('disabled');
    const kept = await pushPipeline(t, project.id, await commit(t, project.id, { '.gitlab-ci.yml': interruptible }));
    await commit(t, project.id, { 'z.txt': 'z' });
    expect((await t.api('POST', `/projects/${project.id}/pipeline`, { body: { ref: 'main' } })).status).toBe(201);
    expect((await t.api('GET', `/projects/${project.id}/pipelines/${kept.id}`)).body.status).not.toBe('canceled');
  });
});
