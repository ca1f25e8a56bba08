/** The built-in shell runner against a pushed `.gitlab-ci.yml`. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ShellRunner } from '../../src/runner/runner.js';
import { suiteServer } from '../support/server.js';
import { createRunner, eventually, jobsOf, projectWithConfig } from './support.js';

const t = suiteServer({ ciLongPollingMs: 2000 });
let runner: ShellRunner;

beforeAll(async () => {
  const { token } = await createRunner(t, { runner_type: 'instance_type', description: 'shell' });
  runner = new ShellRunner({ url: t.url, token, cloneUrl: t.url, concurrency: 2, checkIntervalMs: 100, updateIntervalMs: 200 });
  runner.start();
});
afterAll(() => runner?.stop());

describe('the shell runner', () => {
  it('runs a passing job', async () => {
    const { project, pipeline } = await projectWithConfig(t, 'hello:\n  script:\n    - echo "hello $CI_JOB_NAME"\n    - ls\n', { files: { 'README.md': 'hi' } });
    const jobs = await eventually(async () => {
      const list = await jobsOf(t, project.id, pipeline.id);
      return list.every((j) => ['success', 'failed'].includes(j.status)) && list;
    });
    const trace = await t.api('GET', `/projects/${project.id}/jobs/${jobs[0].id}/trace`);
    console.log(jobs, trace.text);
    expect(jobs[0].status).toBe('success');
  });
});
