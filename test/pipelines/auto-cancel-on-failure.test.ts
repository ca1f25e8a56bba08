/**
 * `workflow:auto_cancel:on_job_failure: all` on the built-in shell runner (GitLab's Processable after_transition to
 * failed → Ci::Pipeline#cancel_async_on_job_failure): once a job fails that may not, the pipeline's other jobs are
 * canceled, as canceled by the pipeline itself; a job allowed to fail cancels nothing.
 */
import { describe, expect, it } from 'vitest';
import { eventually, jobsOf, projectWithConfig, settledJobs, withShellRunner } from '../runners/support.js';
import { suiteServer } from '../support/server.js';

const t = suiteServer();
withShellRunner(t);

describe('workflow:auto_cancel:on_job_failure', () => {
  it('cancels the rest of the pipeline when a job fails', async () => {
    const config = 'workflow:\n  auto_cancel:\n    on_job_failure: all\nboom:\n  script: exit 1\nlong:\n  script: sleep 120\nlater:\n  stage: deploy\n  when: always\n  script: echo later\n';
    const { project, pipeline } = await projectWithConfig(t, config);
    const jobs = await settledJobs(t, project.id, pipeline.id, 90_000);
    const byName = Object.fromEntries(jobs.map((j) => [j.name, j.status]));
    expect(byName).toEqual({ boom: 'failed', long: 'canceled', later: 'canceled' });
    const db = t.server.app.db;
    const long = jobs.find((j) => j.name === 'long')!;
    expect((await db.ciJob.findUnique({ where: { id: long.id } }))?.autoCanceledById).toBe(pipeline.id);
    expect((await db.pipeline.findUnique({ where: { id: pipeline.id } }))?.autoCancelOnJobFailure).toBe('all');
    await eventually(async () => ['failed', 'canceled'].includes((await t.api('GET', `/projects/${project.id}/pipelines/${pipeline.id}`)).body.status));
  }, 120_000);

  it('cancels nothing for a job allowed to fail', async () => {
    const config = 'workflow:\n  auto_cancel:\n    on_job_failure: all\nstages: [first, second]\nsoft:\n  stage: first\n  allow_failure: true\n  script: exit 1\nnext:\n  stage: second\n  script: echo next\n';
    const { project, pipeline } = await projectWithConfig(t, config);
    await settledJobs(t, project.id, pipeline.id, 90_000);
    const byName = Object.fromEntries((await jobsOf(t, project.id, pipeline.id)).map((j) => [j.name, j.status]));
    expect(byName).toEqual({ soft: 'failed', next: 'success' });
  }, 120_000);
});
