/**
 * GitLab's runner protocol, spoken by a fake runner written with fetch: job requests (long poll, matching, claiming
 * once), the job payload, state updates moving the pipeline on, log patches (ranges, masking), artifacts (upload,
 * JUnit reports, downloads) and jobs no runner finishes.
 */
import { execFileSync } from 'node:child_process';
import { gzipSync } from 'node:zlib';
import { Gitlab } from '@gitbeaker/rest';
import { describe, expect, it } from 'vitest';
import { createContext } from '../../src/context.js';
import { suiteServer } from '../support/server.js';
import { addMember, createGroup, createProject, createUser } from '../support/factories.js';
import { commit, createRunner, eventually, jobsOf, projectWithConfig, pushPipeline, requestJob, runnerCall, RUNNER_INFO } from './support.js';

// The long-poll window: wide enough that creating a pipeline (a git read, the plan, the inserts) fits inside it on a
// machine running both databases' suites at once, so the wake below is what answers the runner, not the window's end.
const POLL_MS = 6000;
const MAX_ARTIFACT = 64 * 1024;
const t = suiteServer({ ciLongPollingMs: POLL_MS, ciMaxArtifactSize: MAX_ARTIFACT });

const TWO_STAGES = `
stages: [build, test]
build:
  stage: build
  script:
    - echo build
test:
  stage: test
  script: echo test
`;

/** A project with a pipeline and a project runner of its own; the runner's first job. */
async function claimed(config = TWO_STAGES, runnerBody: Record<string, unknown> = {}) {
  const setup = await projectWithConfig(t, config);
  const runner = await createRunner(t, { project_id: setup.project.id, ...runnerBody });
  const job = await requestJob(t, runner.token);
  return { ...setup, runner, job };
}

function put(job: { id: number; token: string }, body: Record<string, unknown>) {
  return runnerCall(t, 'PUT', `/jobs/${job.id}`, { token: job.token, info: RUNNER_INFO, ...body });
}

function patch(job: { id: number; token: string }, offset: number, content: string) {
  return runnerCall(t, 'PATCH', `/jobs/${job.id}/trace`, content, {
    'Content-Type': 'text/plain',
    'JOB-TOKEN': job.token,
    'Content-Range': `${offset}-${offset + Buffer.byteLength(content) - 1}`,
  });
}

/** `POST /jobs/:id/artifacts` as GitLab Runner sends it: multipart `file`, the rest in the query. */
function upload(job: { id: number; token: string }, content: Buffer, query: Record<string, string> = {}, fileName = 'artifacts.zip') {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(content)]), fileName);
  return fetchForm(`/jobs/${job.id}/artifacts?${new URLSearchParams(query)}`, form, { 'JOB-TOKEN': job.token });
}

async function fetchForm(path: string, form: FormData, headers: Record<string, string>) {
  const res = await fetch(`${t.url}/api/v4${path}`, { method: 'POST', body: form, headers });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

/** The refs of a project's repository, straight from git. */
function refsOf(projectId: number): string {
  const gitDir = t.server.app.repositories.path({ id: projectId, repositoryStorage: 'default' });
  return execFileSync('git', ['--git-dir', gitDir, 'for-each-ref', '--format=%(refname)']).toString();
}

async function jobStatus(projectId: number, jobId: number): Promise<string> {
  return (await t.api('GET', `/projects/${projectId}/jobs/${jobId}`)).body.status;
}

async function traceOf(projectId: number, jobId: number): Promise<string> {
  return (await t.api('GET', `/projects/${projectId}/jobs/${jobId}/trace`)).text;
}

describe('POST /jobs/request', () => {
  it('refuses a missing or unknown token', async () => {
    expect(await runnerCall(t, 'POST', '/jobs/request', {})).toMatchObject({ status: 400, body: { error: 'token is missing' } });
    expect(await runnerCall(t, 'POST', '/jobs/request', { token: 'glrt-nonsense' })).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
  });

  it('answers 204 with nothing, holds a runner whose queue state is current, and wakes it when a job becomes pending', async () => {
    const project = await createProject(t, t.rootToken);
    const runner = await createRunner(t, { project_id: project.id });
    const first = await runnerCall(t, 'POST', '/jobs/request', { token: runner.token, info: RUNNER_INFO });
    expect(first.status).toBe(204);
    expect(first.text).toBe('');
    const lastUpdate = first.headers.get('x-gitlab-last-update');
    expect(lastUpdate).toMatch(/^[0-9a-f]+$/);

    const started = Date.now();
    const held = await runnerCall(t, 'POST', '/jobs/request', { token: runner.token, info: RUNNER_INFO, last_update: lastUpdate });
    expect(held.status).toBe(204);
    expect(held.headers.get('x-gitlab-last-update')).toBe(lastUpdate);
    expect(Date.now() - started).toBeGreaterThanOrEqual(POLL_MS - 200);

    // A commit skipped by [skip ci] makes no job; the API pipeline made while the runner waits does.
    const skipped = await t.api('POST', `/projects/${project.id}/repository/commits`, {
      body: { branch: 'main', commit_message: 'Add CI [skip ci]', actions: [{ action: 'create', file_path: '.gitlab-ci.yml', content: TWO_STAGES }] },
    });
    expect(skipped.status).toBe(201);
    expect((await pushPipeline(t, project.id, skipped.body.id)).status).toBe('skipped');
    const waiting = runnerCall(t, 'POST', '/jobs/request', { token: runner.token, info: RUNNER_INFO, last_update: lastUpdate });
    await new Promise((r) => setTimeout(r, 200));
    const created = await t.api('POST', `/projects/${project.id}/pipeline`, { body: { ref: 'main' } });
    expect(created.status).toBe(201);
    const woken = await waiting;
    expect(woken.status, woken.text).toBe(201);
    expect(woken.body.job_info.name).toBe('build');
  });

  it('hands over the job as GitLab Runner reads it, and the pipeline starts running', async () => {
    const config = `
stages: [build, test]
variables:
  GLOBAL: "global value"
build:
  stage: build
  image: ruby:3.3
  services: [postgres:16]
  before_script: [echo before]
  script: [echo build]
  after_script: [echo after]
  variables:
    NESTED: "$GLOBAL and $CI_JOB_NAME"
  timeout: 30 minutes
  artifacts:
    paths: [dist/]
    expire_in: 1 week
    reports:
      junit: report.xml
test:
  stage: test
  script: echo test
`;
    const { project, pipeline, sha, runner, job } = await claimed(config, { description: 'fake runner', tag_list: 'a, b' });
    expect(Object.keys(job).sort()).toEqual(
      ['id', 'token', 'allow_git_fetch', 'job_info', 'git_info', 'runner_info', 'variables', 'steps', 'image', 'services', 'artifacts', 'cache', 'credentials', 'features', 'dependencies'].sort(),
    );
    expect(job.token).toMatch(/^glcbt-/);
    expect(job.allow_git_fetch).toBe(true);
    expect(job.job_info).toEqual({
      id: job.id,
      name: 'build',
      stage: 'build',
      project_id: project.id,
      project_name: project.name,
      time_in_queue_seconds: expect.any(Number),
      project_jobs_running_on_instance_runners_count: '+Inf',
    });
    expect(job.git_info).toEqual({
      repo_url: `http://gitlab-ci-token:${job.token}@gitlab.example.com/${project.path_with_namespace}.git`,
      ref: 'main',
      sha,
      before_sha: '0000000000000000000000000000000000000000',
      ref_type: 'branch',
      refspecs: [`+refs/pipelines/${pipeline.id}:refs/pipelines/${pipeline.id}`, '+refs/heads/main:refs/remotes/origin/main'],
      depth: 20,
    });
    expect(job.runner_info).toEqual({ timeout: 1800, runner_session_url: null });
    expect(job.steps).toEqual([
      { name: 'script', script: ['echo before', 'echo build'], timeout: 1800, when: 'on_success', allow_failure: false },
      { name: 'after_script', script: ['echo after'], timeout: 1800, when: 'always', allow_failure: true },
    ]);
    expect(job.image).toEqual({ name: 'ruby:3.3', entrypoint: null, ports: [] });
    expect(job.services).toEqual([{ name: 'postgres:16', entrypoint: null, ports: [], alias: null, command: null, variables: null }]);
    expect(job.artifacts).toEqual([
      { name: null, untracked: null, paths: ['dist/'], when: 'on_success', expire_in: '1 week', artifact_type: 'archive', artifact_format: 'zip' },
      { name: 'junit.xml', untracked: null, paths: ['report.xml'], when: 'always', expire_in: '1 week', artifact_type: 'junit', artifact_format: 'gzip' },
    ]);
    expect(job.cache).toEqual([]);
    expect(job.credentials).toEqual([]);
    expect(job.features.trace_sections).toBe(true);
    expect(job.features.failure_reasons).toContain('script_failure');
    expect(job.dependencies).toEqual([]);

    const variables = new Map<string, any>(job.variables.map((v: any) => [v.key, v]));
    for (const v of job.variables) expect(Object.keys(v).sort()).toEqual(expect.arrayContaining(['key', 'masked', 'public', 'value']));
    expect(variables.get('CI_JOB_TOKEN')).toEqual({ key: 'CI_JOB_TOKEN', value: job.token, public: false, masked: true });
    expect(variables.get('CI_REPOSITORY_URL')).toEqual({ key: 'CI_REPOSITORY_URL', value: job.git_info.repo_url, public: false, masked: false });
    expect(variables.get('CI_JOB_ID')).toEqual({ key: 'CI_JOB_ID', value: String(job.id), public: true, masked: false });
    expect(variables.get('CI_JOB_URL').value).toBe(`http://gitlab.example.com/${project.path_with_namespace}/-/jobs/${job.id}`);
    expect(variables.get('CI_JOB_STARTED_AT').value).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(variables.get('CI_JOB_NAME').value).toBe('build');
    expect(variables.get('CI_JOB_STAGE').value).toBe('build');
    expect(variables.get('CI_NODE_TOTAL').value).toBe('1');
    expect(variables.get('CI_PIPELINE_ID').value).toBe(String(pipeline.id));
    expect(variables.get('CI_COMMIT_SHA').value).toBe(sha);
    expect(variables.get('CI_PROJECT_PATH').value).toBe(project.path_with_namespace);
    expect(variables.get('CI_RUNNER_ID').value).toBe(String(runner.id));
    expect(variables.get('CI_RUNNER_DESCRIPTION').value).toBe('fake runner');
    expect(variables.get('CI_RUNNER_TAGS').value).toBe('a, b');
    expect(variables.get('GITLAB_USER_LOGIN').value).toBe('root');
    expect(variables.get('GLOBAL').value).toBe('global value');
    expect(variables.get('NESTED').value).toBe('global value and build');

    expect(await jobStatus(project.id, job.id)).toBe('running');
    const detail = await t.api('GET', `/projects/${project.id}/pipelines/${pipeline.id}`);
    expect(detail.body.status).toBe('running');
    expect(detail.body.started_at).not.toBeNull();
    const seen = await t.api('GET', `/runners/${runner.id}`);
    expect(seen.body).toMatchObject({ version: '17.5.0', revision: 'abcdef12', platform: 'linux', architecture: 'amd64', name: 'gitlab-runner', online: true, status: 'online', ip_address: '127.0.0.1' });
    // The job's token is a CI job token while it runs.
    expect((await t.api('GET', '/job', { token: null, headers: { 'JOB-TOKEN': job.token } })).body.id).toBe(job.id);
  });

  it('hands a job to exactly one of two runners asking at once', async () => {
    const { project } = await projectWithConfig(t, 'only:\n  script: echo one\n');
    const a = await createRunner(t, { project_id: project.id });
    const b = await createRunner(t, { project_id: project.id });
    const ask = (token: string) => runnerCall(t, 'POST', '/jobs/request', { token, info: RUNNER_INFO });
    const answers = await Promise.all([ask(a.token), ask(b.token), ask(a.token), ask(b.token)]);
    expect(answers.map((r) => r.status).sort()).toEqual([201, 204, 204, 204]);
  });

  it('hands runners asking at once different jobs, each job once, and the pipeline runs', async () => {
    const count = 12;
    const { project, pipeline } = await projectWithConfig(t, Array.from({ length: count }, (_, i) => `job${i}:\n  script: echo ${i}\n`).join(''));
    await eventually(async () => (await jobsOf(t, project.id, pipeline.id)).every((job) => job.status === 'pending'));
    const runners: { id: number; token: string }[] = [];
    for (let i = 0; i < 6; i++) runners.push(await createRunner(t, { project_id: project.id }));
    // Three requests per runner at once: more than there are jobs.
    const answers = await Promise.all(runners.flatMap((runner) => [0, 1, 2].map(() => runnerCall(t, 'POST', '/jobs/request', { token: runner.token, info: RUNNER_INFO }))));
    expect(answers.every((res) => res.status === 201 || res.status === 204), answers.map((res) => res.text).join('\n')).toBe(true);
    const handed = answers.filter((res) => res.status === 201).map((res) => res.body as { id: number; token: string });
    expect(handed).toHaveLength(count);
    expect(new Set(handed.map((job) => job.id)).size).toBe(count);
    expect(new Set(handed.map((job) => job.token)).size).toBe(count);
    expect((await runnerCall(t, 'POST', '/jobs/request', { token: runners[0].token, info: RUNNER_INFO })).status).toBe(204);
    expect((await jobsOf(t, project.id, pipeline.id)).map((job) => job.status)).toEqual(Array(count).fill('running'));
    expect((await t.api('GET', `/projects/${project.id}/pipelines/${pipeline.id}`)).body.status).toBe('running');
    // Each job's own token works for it: no job went to two runners.
    for (const job of handed) expect((await put(job, { state: 'success' })).status).toBe(200);
    expect((await t.api('GET', `/projects/${project.id}/pipelines/${pipeline.id}`)).body.status).toBe('success');
  });

  it('matches tags, untagged jobs, paused runners and protected refs as GitLab does', async () => {
    const config = `
tagged:
  tags: [docker]
  script: echo tagged
untagged:
  script: echo untagged
`;
    const { project } = await projectWithConfig(t, config);
    const names = async (token: string) => {
      const got: string[] = [];
      for (;;) {
        const res = await runnerCall(t, 'POST', '/jobs/request', { token, info: RUNNER_INFO });
        if (res.status !== 201) return got;
        got.push(res.body.job_info.name);
      }
    };
    const paused = await createRunner(t, { project_id: project.id, tag_list: ['docker', 'linux'], paused: true });
    const paused204 = await runnerCall(t, 'POST', '/jobs/request', { token: paused.token, info: RUNNER_INFO });
    expect(paused204.status).toBe(204);
    expect(paused204.headers.get('x-gitlab-last-update')).toBeTruthy();
    const otherTags = await createRunner(t, { project_id: project.id, tag_list: ['windows'], run_untagged: false });
    expect(await names(otherTags.token)).toEqual([]);
    const taggedOnly = await createRunner(t, { project_id: project.id, tag_list: ['docker', 'linux'], run_untagged: false });
    expect(await names(taggedOnly.token)).toEqual(['tagged']);
    const untagged = await createRunner(t, { project_id: project.id });
    expect(await names(untagged.token)).toEqual(['untagged']);

    // main is protected (its first push protected it); a feature branch is not.
    const protectedRunner = await createRunner(t, { project_id: project.id, access_level: 'ref_protected' });
    await t.api('POST', `/projects/${project.id}/repository/branches`, { body: { branch: 'feature', ref: 'main' } });
    const feature = await t.api('POST', `/projects/${project.id}/pipeline`, { body: { ref: 'feature' } });
    expect(feature.status).toBe(201);
    expect(await names(protectedRunner.token)).toEqual([]);
    const onMain = await t.api('POST', `/projects/${project.id}/pipeline`, { body: { ref: 'main' } });
    expect(onMain.status).toBe(201);
    expect(await names(protectedRunner.token)).toEqual(['untagged']);
  });

  it('gives group runners the jobs of their group and its subgroups only, and instance runners anyone’s', async () => {
    const owner = await createUser(t);
    const group = await createGroup(t, owner.token);
    const sub = await createGroup(t, owner.token, { parentId: group.id });
    const tag = `only-${Date.now()}`;
    const config = `job:\n  tags: [${tag}]\n  script: echo\n`;
    const inside = await createProject(t, owner.token, { namespaceId: sub.id });
    const outside = await createProject(t, owner.token);
    const groupRunner = await createRunner(t, { runner_type: 'group_type', group_id: group.id, tag_list: [tag], run_untagged: false });
    const outsideSha = await commit(t, outside.id, { '.gitlab-ci.yml': config }, 'main', owner.token);
    await pushPipeline(t, outside.id, outsideSha, owner.token);
    expect((await runnerCall(t, 'POST', '/jobs/request', { token: groupRunner.token })).status).toBe(204);
    const insideSha = await commit(t, inside.id, { '.gitlab-ci.yml': config }, 'main', owner.token);
    await pushPipeline(t, inside.id, insideSha, owner.token);
    expect((await requestJob(t, groupRunner.token)).job_info.project_id).toBe(inside.id);
    const instance = await createRunner(t, { runner_type: 'instance_type', tag_list: [tag], run_untagged: false });
    const got = await requestJob(t, instance.token);
    expect(got.job_info.project_id).toBe(outside.id);
    // Counted once it runs, as GitLab counts it (its running builds include the one just picked).
    expect(got.job_info.project_jobs_running_on_instance_runners_count).toBe('1');
    expect((await runnerCall(t, 'POST', '/jobs/request', { token: instance.token })).status).toBe(204);
  });
});

describe('PUT /jobs/:id', () => {
  it('moves the pipeline on: success starts the next stage, the job token then stops working', async () => {
    const { project, pipeline, runner, job } = await claimed();
    // GitLab's persistent ref keeps the pipeline's commit fetchable while it runs.
    expect(refsOf(project.id)).toContain(`refs/pipelines/${pipeline.id}\n`);
    const running = await put(job, { state: 'running' });
    expect(running).toMatchObject({ status: 200, text: '200' });
    expect(running.headers.get('job-status')).toBe('running');
    const done = await put(job, { state: 'success', exit_code: 0, checksum: 'crc32:0' });
    expect(done).toMatchObject({ status: 200, text: '200' });
    expect(done.headers.get('job-status')).toBe('success');
    const jobs = await jobsOf(t, project.id, pipeline.id);
    expect(jobs.map((j) => [j.name, j.status])).toEqual([
      ['build', 'success'],
      ['test', 'pending'],
    ]);
    const again = await put(job, { state: 'success' });
    expect(again).toMatchObject({ status: 403, body: { message: '403 Forbidden - Job is not running' } });
    expect(again.headers.get('job-status')).toBe('success');
    expect((await t.api('GET', '/job', { token: null, headers: { 'JOB-TOKEN': job.token } })).status).toBe(401);
    const next = await requestJob(t, runner.token);
    expect(next.job_info.name).toBe('test');
    expect(next.token).not.toBe(job.token);
    await put(next, { state: 'success' });
    const finished = await t.api('GET', `/projects/${project.id}/pipelines/${pipeline.id}`);
    expect(finished.body).toMatchObject({ status: 'success', finished_at: expect.any(String) });
    expect(refsOf(project.id)).not.toContain(`refs/pipelines/${pipeline.id}\n`);
  });

  it('fails the job with the runner’s reason, and the later stage is skipped', async () => {
    const { project, pipeline, job } = await claimed();
    expect((await put(job, { state: 'failed', failure_reason: 'script_failure', exit_code: 1 })).status).toBe(200);
    const jobs = await jobsOf(t, project.id, pipeline.id);
    expect(jobs.map((j) => [j.name, j.status, j.failure_reason])).toEqual([
      ['build', 'failed', 'script_failure'],
      ['test', 'skipped', undefined],
    ]);
    expect((await t.api('GET', `/projects/${project.id}/pipelines/${pipeline.id}`)).body.status).toBe('failed');
  });

  it('refuses a wrong token, an unknown job and an unknown state', async () => {
    const { job } = await claimed();
    expect(await put({ id: job.id, token: 'glcbt-wrong' }, { state: 'success' })).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    expect((await put({ id: 999999, token: job.token }, { state: 'success' })).status).toBe(403);
    expect(await put(job, { state: 'bogus' })).toMatchObject({ status: 400 });
    expect(await runnerCall(t, 'PUT', `/jobs/${job.id}`, { state: 'success' })).toMatchObject({ status: 400, body: { error: 'token is missing' } });
    expect(await runnerCall(t, 'PUT', '/jobs/abc', { token: job.token })).toMatchObject({ status: 400, body: { error: 'id is invalid' } });
  });

  it('lets a job fail when its exit code is one allow_failure names', async () => {
    const config = `
flaky:
  script: exit 3
  allow_failure:
    exit_codes: [3]
`;
    const { project, pipeline, job } = await claimed(config);
    await put(job, { state: 'failed', failure_reason: 'script_failure', exit_code: 3 });
    const [only] = await jobsOf(t, project.id, pipeline.id);
    expect(only).toMatchObject({ status: 'failed', allow_failure: true });
    expect((await t.api('GET', `/projects/${project.id}/pipelines/${pipeline.id}`)).body.status).toBe('success');

    const other = await claimed(config);
    await put(other.job, { state: 'failed', failure_reason: 'script_failure', exit_code: 1 });
    expect((await t.api('GET', `/projects/${other.project.id}/pipelines/${other.pipeline.id}`)).body.status).toBe('failed');
  });

  it('retries a failed job as retry says, and no more', async () => {
    const config = `
again:
  script: exit 1
  retry:
    max: 1
    when: script_failure
`;
    const { project, pipeline, runner, job } = await claimed(config);
    await put(job, { state: 'failed', failure_reason: 'script_failure', exit_code: 1 });
    let jobs = await jobsOf(t, project.id, pipeline.id);
    expect(jobs.map((j) => j.status)).toEqual(['failed', 'pending']);
    expect((await t.api('GET', `/projects/${project.id}/pipelines/${pipeline.id}`)).body.status).toBe('pending');
    const second = await requestJob(t, runner.token);
    expect(second.id).toBe(jobs[1].id);
    await put(second, { state: 'failed', failure_reason: 'script_failure', exit_code: 1 });
    jobs = await jobsOf(t, project.id, pipeline.id);
    expect(jobs.map((j) => j.status)).toEqual(['failed', 'failed']);
    expect((await t.api('GET', `/projects/${project.id}/pipelines/${pipeline.id}`)).body.status).toBe('failed');

    const unknown = await claimed(config);
    await put(unknown.job, { state: 'failed', failure_reason: 'not-a-reason' });
    const [failed] = await jobsOf(t, unknown.project.id, unknown.pipeline.id);
    expect(failed.failure_reason).toBe('unknown_failure');
  });

  it('records the coverage its log shows with the job’s coverage expression', async () => {
    const { project, pipeline, job } = await claimed("cover:\n  script: echo\n  coverage: '/Coverage: \\d+\\.\\d+%/'\n");
    await patch(job, 0, 'Coverage: 12.5%\nlines\nCoverage: 87.25% of lines\ndone\n');
    await put(job, { state: 'success' });
    const [done] = await jobsOf(t, project.id, pipeline.id);
    expect(done.coverage).toBe(87.25);
    expect((await t.api('GET', `/projects/${project.id}/pipelines/${pipeline.id}`)).body.coverage).toBe('87.25');
  });

  it('tells a runner working on a canceled job to stop, on patches and updates alike', async () => {
    const { project, job } = await claimed();
    expect((await t.api('POST', `/projects/${project.id}/jobs/${job.id}/cancel`)).status).toBe(201);
    const patched = await patch(job, 0, 'late\n');
    expect(patched.status).toBe(403);
    expect(patched.headers.get('job-status')).toBe('canceled');
    const updated = await put(job, { state: 'success' });
    expect(updated).toMatchObject({ status: 403, body: { message: '403 Forbidden - Job is not running' } });
    expect(updated.headers.get('job-status')).toBe('canceled');
    expect(await jobStatus(project.id, job.id)).toBe('canceled');
  });
});

describe('PATCH /jobs/:id/trace', () => {
  it('appends from the stored size and answers 416 with it for a gap or an overlap', async () => {
    const { project, job } = await claimed();
    const first = await patch(job, 0, 'hello ');
    expect(first.status).toBe(202);
    expect(first.headers.get('range')).toBe('0-6');
    expect(first.headers.get('job-status')).toBe('running');
    expect(first.headers.get('x-gitlab-trace-update-interval')).toBe('3');
    const gap = await patch(job, 10, 'later');
    expect(gap).toMatchObject({ status: 416, body: { message: '416 Range Not Satisfiable' } });
    expect(gap.headers.get('range')).toBe('0-6');
    expect((await patch(job, 3, 'again')).status).toBe(416);
    expect((await patch(job, 6, 'world\n')).headers.get('range')).toBe('0-12');
    expect(await traceOf(project.id, job.id)).toBe('hello world\n');
    expect(await runnerCall(t, 'PATCH', `/jobs/${job.id}/trace`, 'x', { 'JOB-TOKEN': job.token })).toMatchObject({ status: 400, body: { message: '400 Missing header Content-Range' } });
    expect((await patch({ id: job.id, token: 'glcbt-wrong' }, 12, 'x')).status).toBe(403);
    const tooLarge = await patch(job, 12, 'a'.repeat(1024 * 1024 + 1));
    expect(tooLarge).toMatchObject({ status: 413, body: { message: '413 Request Entity Too Large' } });
    expect((await patch(job, 12, 'still here\n')).status).toBe(202);
  });

  it('never stores a masked value, even split across two patches', async () => {
    const { project, job } = await claimed();
    const token: string = job.token;
    const cut = Math.floor(token.length / 2);
    const part1 = `token is ${token.slice(0, cut)}`;
    expect((await patch(job, 0, part1)).status).toBe(202);
    // The start of the value is held back: nothing of it is readable yet.
    expect(await traceOf(project.id, job.id)).toBe('token is ');
    const part2 = `${token.slice(cut)} and again ${token}\nnear miss ${token.slice(0, 6)}`;
    const second = await patch(job, Buffer.byteLength(part1), part2);
    expect(second.headers.get('range')).toBe(`0-${Buffer.byteLength(part1) + Buffer.byteLength(part2)}`);
    expect(await traceOf(project.id, job.id)).toBe('token is [MASKED] and again [MASKED]\nnear miss ');
    await put(job, { state: 'success' });
    const stored = await traceOf(project.id, job.id);
    expect(stored).toBe(`token is [MASKED] and again [MASKED]\nnear miss ${token.slice(0, 6)}`);
    expect(stored).not.toContain(token);
  });
});

/** A small zip: yazl's output is what the shell runner uploads; the server keeps any bytes. */
const ARCHIVE = Buffer.from('PK\u0005\u0006'.padEnd(22, '\u0000'), 'binary');

describe('artifacts', () => {
  it('stores an upload, serves it to users and to the jobs that depend on it, and deletes it for Maintainers', async () => {
    const config = `
stages: [build, test]
build:
  stage: build
  script: echo
  artifacts:
    paths: [dist/]
test:
  stage: test
  script: echo
`;
    const { project, pipeline, runner, job } = await claimed(config);
    const authorize = await runnerCall(t, 'POST', `/jobs/${job.id}/artifacts/authorize`, { token: job.token, filesize: 10 });
    expect(authorize.status).toBe(200);
    expect(authorize.headers.get('content-type')).toContain('application/vnd.gitlab-workhorse+json');
    expect(authorize.body).toEqual({ MaximumSize: MAX_ARTIFACT });
    expect(await runnerCall(t, 'POST', `/jobs/${job.id}/artifacts/authorize`, { token: job.token, filesize: MAX_ARTIFACT + 1 })).toMatchObject({
      status: 413,
      body: { message: 'file size has reached maximum size limit' },
    });

    const uploaded = await upload(job, ARCHIVE, { artifact_type: 'archive', artifact_format: 'zip', expire_in: '1 week' });
    expect(uploaded).toMatchObject({ status: 201, text: '201' });
    // The same file again is a runner retrying: accepted; another file of the kind is refused.
    expect(await upload(job, ARCHIVE, { artifact_type: 'archive' })).toMatchObject({ status: 201, text: '201' });
    expect(await upload(job, Buffer.concat([ARCHIVE, Buffer.from('x')]), { artifact_type: 'archive' })).toMatchObject({ status: 400, text: '{"message":"another artifact of the same type already exists"}' });
    expect(await upload(job, ARCHIVE, { artifact_type: 'nonsense' })).toMatchObject({ status: 400, text: '{"error":"artifact_type does not have a valid value"}' });
    expect((await upload(job, Buffer.alloc(MAX_ARTIFACT + 1), { artifact_type: 'metadata', artifact_format: 'gzip' })).status).toBe(413);
    expect((await fetchForm(`/jobs/${job.id}/artifacts`, new FormData(), { 'JOB-TOKEN': job.token })).status).toBe(400);
    const truncated = await runnerCall(t, 'POST', `/jobs/${job.id}/artifacts`, '--x\r\nContent-Disposition: form-data; name="file"; filename="a.zip"\r\n\r\nPK', {
      'JOB-TOKEN': job.token,
      'Content-Type': 'multipart/form-data; boundary=x',
    });
    expect(truncated.status).toBe(400);
    expect((await runnerCall(t, 'POST', `/jobs/${job.id}/artifacts`, 'not multipart', { 'JOB-TOKEN': job.token, 'Content-Type': 'text/plain' })).status).toBe(400);

    const detail = await t.api('GET', `/projects/${project.id}/jobs/${job.id}`);
    expect(detail.body.artifacts_file).toEqual({ filename: 'artifacts.zip', size: ARCHIVE.length });
    expect(detail.body.artifacts).toEqual([{ file_type: 'archive', size: ARCHIVE.length, filename: 'artifacts.zip', file_format: 'zip' }]);
    expect(new Date(detail.body.artifacts_expire_at).getTime()).toBeGreaterThan(Date.now() + 6 * 86400_000);

    await put(job, { state: 'success' });
    const next = await requestJob(t, runner.token);
    expect(next.dependencies).toEqual([{ id: job.id, name: 'build', token: next.token, artifacts_file: { filename: 'artifacts.zip', size: ARCHIVE.length } }]);
    const asDependency = await fetch(`${t.url}/api/v4/jobs/${job.id}/artifacts`, { headers: { 'JOB-TOKEN': next.token } });
    expect(asDependency.status).toBe(200);
    expect(Buffer.from(await asDependency.arrayBuffer())).toEqual(ARCHIVE);
    expect((await fetch(`${t.url}/api/v4/jobs/${job.id}/artifacts`, { headers: { 'JOB-TOKEN': 'glcbt-nope' } })).status).toBe(403);
    await put(next, { state: 'success' });
    expect((await t.api('GET', `/projects/${project.id}/pipelines/${pipeline.id}`)).body.status).toBe('success');

    const download = await fetch(`${t.url}/api/v4/projects/${project.id}/jobs/${job.id}/artifacts`, { headers: { 'PRIVATE-TOKEN': t.rootToken } });
    expect(download.status).toBe(200);
    expect(download.headers.get('content-type')).toBe('application/zip');
    expect(download.headers.get('content-disposition')).toContain('filename="artifacts.zip"');
    expect(Buffer.from(await download.arrayBuffer())).toEqual(ARCHIVE);
    const byRef = await fetch(`${t.url}/api/v4/projects/${project.id}/jobs/artifacts/main/download?job=build`, { headers: { 'PRIVATE-TOKEN': t.rootToken } });
    expect(byRef.status).toBe(200);
    expect(Buffer.from(await byRef.arrayBuffer())).toEqual(ARCHIVE);
    const missingJob = await fetch(`${t.url}/api/v4/projects/${project.id}/jobs/artifacts/main/download?job=nope`, { headers: { 'PRIVATE-TOKEN': t.rootToken } });
    expect(missingJob.status).toBe(404);
    const stranger = await createUser(t);
    expect((await fetch(`${t.url}/api/v4/projects/${project.id}/jobs/${job.id}/artifacts`, { headers: { 'PRIVATE-TOKEN': stranger.token } })).status).toBe(404);
    expect((await fetch(`${t.url}/api/v4/projects/${project.id}/jobs/${job.id}/artifacts`)).status).toBe(404);

    const developer = await createUser(t);
    await addMember(t, t.rootToken, 'projects', project.id, developer.id, 30);
    expect(await t.api('DELETE', `/projects/${project.id}/jobs/${job.id}/artifacts`, { token: developer.token })).toMatchObject({ status: 403 });
    expect((await t.api('DELETE', `/projects/${project.id}/jobs/${job.id}/artifacts`)).status).toBe(204);
    expect((await fetch(`${t.url}/api/v4/projects/${project.id}/jobs/${job.id}/artifacts`, { headers: { 'PRIVATE-TOKEN': t.rootToken } })).status).toBe(404);
    expect((await t.api('GET', `/projects/${project.id}/jobs/${job.id}`)).body.artifacts).toEqual([]);
  });

  it('keeps a job’s artifacts for whoever may update the job, and expires every artifact of a project for Maintainers', async () => {
    const { project, job } = await claimed('one:\n  script: echo\n');
    await upload(job, ARCHIVE, { artifact_type: 'archive', artifact_format: 'zip', expire_in: '1 week' });
    const [maintainer, developer, reporter] = [await createUser(t), await createUser(t), await createUser(t)];
    await addMember(t, t.rootToken, 'projects', project.id, maintainer.id, 40);
    await addMember(t, t.rootToken, 'projects', project.id, developer.id, 30);
    await addMember(t, t.rootToken, 'projects', project.id, reporter.id, 20);
    const keep = `/projects/${project.id}/jobs/${job.id}/artifacts/keep`;
    expect(await t.api('POST', keep, { token: reporter.token })).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    // The job ran on `main`, protected: a Developer may not update it (Ci::BuildPolicy).
    expect(await t.api('POST', keep, { token: developer.token })).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    const kept = await t.api('POST', keep, { token: maintainer.token });
    expect(kept.status, kept.text).toBe(200);
    expect([kept.body.id, kept.body.artifacts_expire_at]).toEqual([job.id, null]);
    expect(await t.server.database.prisma.ciJobArtifact.findMany({ where: { jobId: job.id }, select: { expireAt: true } })).toEqual([{ expireAt: null }]);
    // gitbeaker's JobArtifacts.keep; a job without artifacts is not found.
    const api = new Gitlab({ host: t.url, token: maintainer.token });
    expect((await api.JobArtifacts.keep(project.id, job.id)).artifacts_expire_at).toBeNull();
    const other = await claimed('two:\n  script: echo\n');
    expect(await t.api('POST', `/projects/${other.project.id}/jobs/${other.job.id}/artifacts/keep`)).toMatchObject({ status: 404, body: { message: '404 Not Found' } });

    const all = `/projects/${project.id}/artifacts`;
    expect(await t.api('DELETE', all, { token: developer.token })).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    expect(await t.api('DELETE', all, { token: (await createUser(t)).token })).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
    expect(await t.api('DELETE', all, { token: maintainer.token })).toMatchObject({ status: 202, body: { message: '202 Accepted' } });
    const [row] = await t.server.database.prisma.ciJobArtifact.findMany({ where: { jobId: job.id }, select: { expireAt: true } });
    expect(row.expireAt!.getTime()).toBeLessThanOrEqual(Date.now());
    await t.server.database.prisma.projectCiCdSetting.create({ data: { projectId: project.id, keepLatestArtifact: false } });
    await createContext(t.server.app, null).services.runners.removeExpiredArtifacts(new Date());
    expect(await t.server.database.prisma.ciJobArtifact.count({ where: { jobId: job.id } })).toBe(0);
    // gitbeaker's JobArtifacts.remove without a job: the project's.
    await new Gitlab({ host: t.url, token: t.rootToken }).JobArtifacts.remove(project.id);
  });

  it('answers 404 for an archive past its expiry that is not kept', async () => {
    const { project, job } = await claimed('one:\n  script: echo\n');
    await t.server.database.prisma.projectCiCdSetting.create({ data: { projectId: project.id, keepLatestArtifact: false } });
    await upload(job, ARCHIVE, { expire_in: '1 second' });
    await t.server.database.prisma.ciJobArtifact.updateMany({ where: { jobId: job.id }, data: { expireAt: new Date(Date.now() - 1000) } });
    expect((await fetch(`${t.url}/api/v4/projects/${project.id}/jobs/${job.id}/artifacts`, { headers: { 'PRIVATE-TOKEN': t.rootToken } })).status).toBe(404);
  });

  it("removes a job's files when the job is erased or its pipeline deleted", async () => {
    const erased = await claimed('one:\n  script: echo\n');
    await upload(erased.job, ARCHIVE);
    const { path } = await t.server.database.prisma.ciJobArtifact.findFirstOrThrow({ where: { jobId: erased.job.id } });
    expect(await t.server.app.artifacts.exists(path)).toBe(true);
    await put(erased.job, { state: 'success' });
    expect((await t.api('POST', `/projects/${erased.project.id}/jobs/${erased.job.id}/erase`)).status).toBe(201);
    expect(await t.server.app.artifacts.exists(path)).toBe(false);

    const deleted = await claimed('one:\n  script: echo\n');
    await upload(deleted.job, ARCHIVE);
    const stored = await t.server.database.prisma.ciJobArtifact.findFirstOrThrow({ where: { jobId: deleted.job.id } });
    await put(deleted.job, { state: 'success' });
    expect((await t.api('DELETE', `/projects/${deleted.project.id}/pipelines/${deleted.pipeline.id}`)).status).toBe(204);
    expect(await t.server.app.artifacts.exists(stored.path)).toBe(false);
  });

  it('parses a JUnit report of several files into the test report', async () => {
    const { project, pipeline, job } = await claimed('rspec 1/2:\n  script: echo\n');
    const first = `<?xml version="1.0"?>
<testsuites><testsuite name="math">
  <testcase classname="Math" name="adds" time="0.25" file="spec/math_spec.rb"/>
  <testcase classname="Math" name="divides" time="0.5"><failure message="expected 2">expected 2, got 3</failure><system-out>out</system-out></testcase>
  <testcase classname="Math" name="later"><skipped/></testcase>
</testsuite></testsuites>`;
    const second = `<testsuite name="io"><testcase classname="IO" name="reads"><error message="boom"/></testcase></testsuite>`;
    const report = Buffer.concat([gzipSync(first), gzipSync(second)]);
    expect((await upload(job, report, { artifact_type: 'junit', artifact_format: 'gzip' }, 'junit.xml.gz')).status).toBe(201);
    const row = await t.server.database.prisma.ciJobArtifact.findFirstOrThrow({ where: { jobId: job.id, fileType: 'junit' } });
    expect(row.report).toEqual({
      suites: [
        {
          name: 'rspec',
          error: null,
          cases: [
            { status: 'success', name: 'adds', classname: 'Math', execution_time: 0.25, system_output: null, stack_trace: null, file: 'spec/math_spec.rb' },
            { status: 'failed', name: 'divides', classname: 'Math', execution_time: 0.5, system_output: 'expected 2, got 3\n\nSystem Out:\n\nout', stack_trace: 'expected 2, got 3', file: null },
            { status: 'skipped', name: 'later', classname: 'Math', execution_time: 0, system_output: null, stack_trace: null, file: null },
            { status: 'error', name: 'reads', classname: 'IO', execution_time: 0, system_output: 'boom', stack_trace: null, file: null },
          ],
        },
      ],
    });
    const summary = await t.api('GET', `/projects/${project.id}/pipelines/${pipeline.id}/test_report_summary`);
    expect(summary.body.total).toMatchObject({ count: 4, success: 1, failed: 1, skipped: 1, error: 1 });

    const broken = await claimed('broken:\n  script: echo\n');
    await upload(broken.job, gzipSync('<testsuite><testcase name="x">'), { artifact_type: 'junit', artifact_format: 'gzip' }, 'junit.xml.gz');
    const brokenRow = await t.server.database.prisma.ciJobArtifact.findFirstOrThrow({ where: { jobId: broken.job.id, fileType: 'junit' } });
    expect((brokenRow.report as any).suites[0].error).toMatch(/^JUnit XML parsing failed: /);
  });

  it('keeps the artifacts of the ref’s latest successful pipeline past their expiry, unless the project turns keep_latest_artifact off', async () => {
    const config = 'build:\n  script: echo\n  artifacts:\n    paths: [out/]\n    expire_in: 1 week\n';
    const first = await claimed(config);
    const runner = await createRunner(t, { project_id: first.project.id });
    expect((await upload(first.job, ARCHIVE, { artifact_type: 'archive', artifact_format: 'zip', expire_in: '1 week' })).status).toBe(201);
    await put(first.job, { state: 'success' });
    const sha = await commit(t, first.project.id, { 'note.txt': 'second' });
    await pushPipeline(t, first.project.id, sha);
    const second = await requestJob(t, runner.token);
    expect((await upload(second, ARCHIVE, { artifact_type: 'archive', artifact_format: 'zip', expire_in: '1 week' })).status).toBe(201);
    await put(second, { state: 'success' });
    // Both expired: the older pipeline's go, the latest successful one's stay and still download.
    const db = t.server.database.prisma;
    await db.ciJobArtifact.updateMany({ where: { jobId: { in: [first.job.id, second.id] } }, data: { expireAt: new Date(Date.now() - 1000) } });
    const services = () => createContext(t.server.app, null).services;
    await services().runners.removeExpiredArtifacts(new Date());
    expect(await db.ciJobArtifact.count({ where: { jobId: first.job.id } })).toBe(0);
    expect(await db.ciJobArtifact.count({ where: { jobId: second.id } })).toBe(1);
    const artifacts = (jobId: number) => fetch(`${t.url}/api/v4/projects/${first.project.id}/jobs/${jobId}/artifacts`, { headers: { 'PRIVATE-TOKEN': t.rootToken } });
    expect((await artifacts(second.id)).status).toBe(200);
    const off = await t.graphql(
      'mutation($p: ID!) { projectCiCdSettingsUpdate(input: { fullPath: $p, keepLatestArtifact: false }) { errors ciCdSettings { keepLatestArtifact inboundJobTokenScopeEnabled } } }',
      { p: first.project.path_with_namespace },
    );
    expect(off.body.data).toEqual({ projectCiCdSettingsUpdate: { errors: [], ciCdSettings: { keepLatestArtifact: false, inboundJobTokenScopeEnabled: true } } });
    expect((await artifacts(second.id)).status).toBe(404);
    await services().runners.removeExpiredArtifacts(new Date());
    expect(await db.ciJobArtifact.count({ where: { jobId: second.id } })).toBe(0);
  });
});

describe('jobs no runner finishes', () => {
  it('fails pending jobs after a day and running ones past their timeout or silent for an hour', async () => {
    const pending = await projectWithConfig(t, 'waits:\n  tags: [nobody-has-this]\n  script: echo\n');
    const timed = await claimed('slow:\n  script: sleep 1000\n  timeout: 10 minutes\n');
    const silent = await claimed('quiet:\n  script: echo\n  timeout: 3 hours\n');
    const services = () => createContext(t.server.app, null).services;
    // Within limits: nothing happens.
    await services().runners.failStuckJobs(new Date());
    expect(await jobStatus(timed.project.id, timed.job.id)).toBe('running');
    // Twenty minutes later the 10-minute job is past its timeout (and the grace after it).
    await services().runners.failStuckJobs(new Date(Date.now() + 20 * 60_000));
    const [slow] = await jobsOf(t, timed.project.id, timed.pipeline.id);
    expect(slow).toMatchObject({ status: 'failed', failure_reason: 'job_execution_timeout' });
    expect(await jobStatus(silent.project.id, silent.job.id)).toBe('running');
    // Two hours on, the silent one is stuck; two days on, so is the pending one.
    await put(silent.job, { state: 'running' });
    await services().runners.failStuckJobs(new Date(Date.now() + 2 * 3600_000));
    const [quiet] = await jobsOf(t, silent.project.id, silent.pipeline.id);
    expect(quiet).toMatchObject({ status: 'failed', failure_reason: 'stuck_or_timeout_failure' });
    await services().runners.failStuckJobs(new Date(Date.now() + 2 * 86400_000));
    const [waits] = await jobsOf(t, pending.project.id, pending.pipeline.id);
    expect(waits).toMatchObject({ status: 'failed', failure_reason: 'stuck_or_timeout_failure' });
    expect((await t.api('GET', `/projects/${pending.project.id}/pipelines/${pending.pipeline.id}`)).body.status).toBe('failed');
  });
});
