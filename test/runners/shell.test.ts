/**
 * The built-in shell runner (src/runner) against pushed `.gitlab-ci.yml` files: jobs that pass, fail, may fail, wait
 * to be played, hand artifacts and JUnit reports on, are canceled or time out; their statuses and logs as the API
 * shows them, and @gitbeaker/rest where it covers.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Gitlab } from '@gitbeaker/rest';
import yauzl from 'yauzl';
import { describe, expect, it } from 'vitest';
import { startProcess } from '../support/process.js';
import { suiteServer } from '../support/server.js';
import { createProject } from '../support/factories.js';
import { eventually, jobLog, jobsOf, projectWithConfig, settledJobs, withShellRunner } from './support.js';

const t = suiteServer({ ciLongPollingMs: 2000 });
withShellRunner(t);

const settled = (projectId: number, pipelineId: number) => settledJobs(t, projectId, pipelineId);
const log = (projectId: number, jobId: number) => jobLog(t, projectId, jobId);
const byName = <T extends { name: string }>(jobs: T[], name: string) => jobs.find((j) => j.name === name) as T;

/** The file names inside a zip. */
function zipEntries(data: Buffer): Promise<string[]> {
  return new Promise((resolve, reject) =>
    yauzl.fromBuffer(data, { lazyEntries: true }, (error, zip) => {
      if (error) return reject(error);
      const names: string[] = [];
      zip.on('entry', (entry: yauzl.Entry) => {
        names.push(entry.fileName);
        zip.readEntry();
      });
      zip.on('end', () => resolve(names));
      zip.readEntry();
    }),
  );
}

const PIPELINE = `
stages: [build, test, deploy]
build:
  stage: build
  script:
    - mkdir -p dist reports
    - echo "built $CI_COMMIT_SHORT_SHA" > dist/app.txt
    - echo '<testsuite name="unit"><testcase classname="calc" name="adds" time="0.5"/><testcase classname="calc" name="divides"><failure message="by zero">divided by zero</failure></testcase></testsuite>' > reports/junit.xml
  artifacts:
    paths: [dist/]
    reports:
      junit: reports/junit.xml
use-artifact:
  stage: test
  before_script:
    - echo "before in $CI_PROJECT_DIR"
  script:
    - cat dist/app.txt
  after_script:
    - echo "after with status $CI_JOB_STATUS"
may-fail:
  stage: test
  script: exit 1
  allow_failure: true
deploy:
  stage: deploy
  when: manual
  script: echo "deployed by $GITLAB_USER_LOGIN"
`;

describe('the built-in shell runner', () => {
  it('runs a pipeline: artifacts and reports handed on, a failure allowed, a manual job played later', async () => {
    const { project, pipeline, sha } = await projectWithConfig(t, PIPELINE, { files: { 'README.md': 'hello\n' } });
    let jobs = await settled(project.id, pipeline.id);
    expect(Object.fromEntries(jobs.map((j) => [j.name, j.status]))).toEqual({ build: 'success', 'use-artifact': 'success', 'may-fail': 'failed', deploy: 'manual' });
    expect((await t.api('GET', `/projects/${project.id}/pipelines/${pipeline.id}`)).body.status).toBe('success');

    const build = byName(jobs, 'build');
    const buildLog = await log(project.id, build.id);
    expect(buildLog).toContain('Checking out');
    expect(buildLog).toContain('$ mkdir -p dist reports');
    expect(buildLog).toContain('Uploading artifacts as "archive" to coordinator... 201 Created');
    expect(buildLog).toContain('Uploading artifacts as "junit" to coordinator... 201 Created');
    expect(buildLog).toContain('Job succeeded');
    const archive = await fetch(`${t.url}/api/v4/projects/${project.id}/jobs/${build.id}/artifacts`, { headers: { 'PRIVATE-TOKEN': t.rootToken } });
    expect(archive.status).toBe(200);
    expect(await zipEntries(Buffer.from(await archive.arrayBuffer()))).toEqual(['dist/app.txt']);

    const used = await log(project.id, byName(jobs, 'use-artifact').id);
    expect(used).toContain(`Downloading artifacts for build (${build.id})...`);
    expect(used).toContain(`built ${sha.slice(0, 8)}`);
    expect(used).toContain('before in ');
    expect(used).toContain('after with status success');
    expect(await log(project.id, byName(jobs, 'may-fail').id)).toContain('ERROR: Job failed: exit code 1');
    expect(byName(jobs, 'may-fail')).toMatchObject({ allow_failure: true, failure_reason: 'script_failure' });

    const report = await t.api('GET', `/projects/${project.id}/pipelines/${pipeline.id}/test_report`);
    expect(report.body).toMatchObject({ total_count: 2, success_count: 1, failed_count: 1 });

    const deploy = byName(jobs, 'deploy');
    expect((await t.api('POST', `/projects/${project.id}/jobs/${deploy.id}/play`)).status).toBe(200);
    jobs = await settled(project.id, pipeline.id);
    expect(byName(jobs, 'deploy').status).toBe('success');
    const api = new Gitlab({ host: t.url, token: t.rootToken });
    expect(await api.Jobs.showLog(project.id, deploy.id)).toContain('deployed by root');
    expect((await api.Pipelines.show(project.id, pipeline.id)).status).toBe('success');
  });

  it('fails a job whose script fails, with its exit code', async () => {
    const { project, pipeline } = await projectWithConfig(t, 'broken:\n  script:\n    - echo "about to fail"\n    - exit 4\n    - echo "never printed"\n');
    const [job] = await settled(project.id, pipeline.id);
    expect(job).toMatchObject({ status: 'failed', failure_reason: 'script_failure' });
    const text = await log(project.id, job.id);
    expect(text).toContain('about to fail');
    expect(text).not.toContain('\nnever printed');
    expect(text).toContain('ERROR: Job failed: exit code 4');
    expect((await t.api('GET', `/projects/${project.id}/pipelines/${pipeline.id}`)).body.status).toBe('failed');
  });

  it('gives file variables as files and masks the job token in the log', async () => {
    const config = 'show:\n  rules:\n    - if: $CI_PIPELINE_SOURCE == "api"\n  script:\n    - cat "$SETTINGS"\n    - echo "token $CI_JOB_TOKEN"\n';
    // The rules keep the push out: only the API pipeline, with its file variable, runs.
    const fresh = await createProject(t, t.rootToken);
    await t.api('POST', `/projects/${fresh.id}/repository/commits`, { body: { branch: 'main', commit_message: 'CI', actions: [{ action: 'create', file_path: '.gitlab-ci.yml', content: config }] } });
    const created = await t.api('POST', `/projects/${fresh.id}/pipeline`, { body: { ref: 'main', variables: [{ key: 'SETTINGS', value: 'from a file', variable_type: 'file' }] } });
    expect(created.status).toBe(201);
    const [job] = await settled(fresh.id, created.body.id);
    expect(job.status).toBe('success');
    const text = await log(fresh.id, job.id);
    expect(text).toContain('from a file');
    expect(text).toContain('token [MASKED]');
    expect(text).not.toMatch(/glcbt-/);
  });

  it('stops a job canceled while it runs, killing its processes', async () => {
    const { project, pipeline } = await projectWithConfig(t, 'long:\n  script:\n    - echo started\n    - sleep 31.25\n');
    const [running] = await eventually(async () => {
      const jobs = await jobsOf(t, project.id, pipeline.id);
      return jobs[0].status === 'running' && (await log(project.id, jobs[0].id)).includes('$ sleep 31.25') && jobs;
    });
    expect((await t.api('POST', `/projects/${project.id}/jobs/${running.id}/cancel`)).body.status).toBe('canceled');
    await eventually(async () => !execFileSync('ps', ['-eo', 'args']).toString().includes('sleep 31.25'), 10_000);
    expect((await jobsOf(t, project.id, pipeline.id))[0].status).toBe('canceled');
    expect((await t.api('GET', `/projects/${project.id}/pipelines/${pipeline.id}`)).body.status).toBe('canceled');
  });

  it('fails a job that runs past its timeout', async () => {
    const { project, pipeline } = await projectWithConfig(t, 'slow:\n  timeout: 2 seconds\n  script:\n    - sleep 30.5\n');
    const [job] = await settled(project.id, pipeline.id);
    expect(job).toMatchObject({ status: 'failed', failure_reason: 'job_execution_timeout' });
    expect(await log(project.id, job.id)).toContain('ERROR: Job failed: execution took longer than 2s seconds');
    expect(execFileSync('ps', ['-eo', 'args']).toString()).not.toContain('sleep 30.5');
  });
});

describe('RUNNER=shell', () => {
  it('makes the server create its own instance runner once and run it beside itself', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'gitlab-shell-runner-'));
    const env = { DATA_DIR: dataDir, RUNNER: 'shell', GITLAB_ROOT_TOKEN: 'glpat-builtin-runner-test' };
    const start = () => startProcess(process.execPath, ['--import', 'tsx', 'src/main.ts'], env);
    try {
      const server = await start();
      const api = (path: string, init: RequestInit = {}) =>
        fetch(`http://127.0.0.1:${server.port}/api/v4${path}`, { ...init, headers: { 'PRIVATE-TOKEN': env.GITLAB_ROOT_TOKEN, 'Content-Type': 'application/json', ...init.headers } });
      const project = (await (await api('/projects', { method: 'POST', body: JSON.stringify({ name: 'builtin' }) })).json()) as { id: number };
      const commit = await api(`/projects/${project.id}/repository/commits`, {
        method: 'POST',
        body: JSON.stringify({ branch: 'main', commit_message: 'CI', actions: [{ action: 'create', file_path: '.gitlab-ci.yml', content: 'hello:\n  script: echo "hello from the built-in runner"\n' }] }),
      });
      expect(commit.status).toBe(201);
      const [job] = await eventually(async () => {
        const jobs = (await (await api(`/projects/${project.id}/jobs`)).json()) as { id: number; status: string; runner: { description: string } | null }[];
        return jobs[0]?.status === 'success' && jobs;
      }, 60_000);
      expect(job.runner?.description).toBe('Built-in shell runner');
      expect(await (await api(`/projects/${project.id}/jobs/${job.id}/trace`)).text()).toContain('hello from the built-in runner');
      const stored = JSON.parse(await readFile(join(dataDir, 'shell-runner.json'), 'utf8')) as { token: string };
      expect(stored.token).toMatch(/^glrt-/);
      server.child.kill('SIGTERM');
      expect(await server.exited).toBe(0);
      expect(server.output()).toContain('built-in runner exited');

      const again = await start();
      const runners = (await (await fetch(`http://127.0.0.1:${again.port}/api/v4/runners/all`, { headers: { 'PRIVATE-TOKEN': env.GITLAB_ROOT_TOKEN } })).json()) as { description: string }[];
      expect(runners.filter((r) => r.description === 'Built-in shell runner')).toHaveLength(1);
      again.child.kill('SIGTERM');
      expect(await again.exited).toBe(0);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});
