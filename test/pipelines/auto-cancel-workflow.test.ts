/**
 * `workflow:auto_cancel:on_new_commit` (GitLab's Entry::AutoCancel, Ci::PipelineCreation::CancelRedundantPipelinesService):
 * validated with GitLab's messages (also under workflow:rules), and honoured by what a newer pipeline of the ref
 * cancels of each older one, as that older one's setting says: `conservative` (the default) all of it while no
 * non-interruptible job has started, `interruptible` only its interruptible jobs, `none` nothing. A matching workflow
 * rule's `auto_cancel` wins over the workflow's. Pipelines are made through the API, whose creation cancels before
 * it answers; push pipelines are kept out by the workflow rules, and no runner but the test's own takes jobs here.
 */
import { describe, expect, it } from 'vitest';
import { commit, createRunner, requestJob } from '../runners/support.js';
import { createProject } from '../support/factories.js';
import { suiteServer } from '../support/server.js';

const t = suiteServer({ ciLongPollingMs: 1000 });

const NO_PUSH = '  rules:\n    - if: $CI_PIPELINE_SOURCE == "push"\n      when: never\n    - if: $MODE == "strict"\n      auto_cancel:\n        on_new_commit: conservative\n    - when: always\n';

async function apiPipeline(projectId: number, variables: { key: string; value: string }[] = []): Promise<{ id: number; status: string }> {
  const res = await t.api('POST', `/projects/${projectId}/pipeline`, { body: { ref: 'main', variables } });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

const statusOf = async (projectId: number, pipelineId: number) => (await t.api('GET', `/projects/${projectId}/pipelines/${pipelineId}`)).body.status as string;

describe('workflow:auto_cancel', () => {
  it("refuses bad settings in Entry::AutoCancel's words", async () => {
    const project = await createProject(t, t.rootToken);
    const lint = async (content: string) => (await t.api('POST', `/projects/${project.id}/ci/lint`, { body: { content } })).body;
    const job = 'a:\n  script: echo\n';
    expect((await lint(`workflow:\n  auto_cancel:\n    on_new_commit: interruptible\n    on_job_failure: all\n${job}`)).valid).toBe(true);
    expect((await lint(`workflow:\n  auto_cancel:\n    on_new_commit: sometimes\n${job}`)).errors).toEqual([
      'workflow:auto_cancel on new commit must be one of: conservative, interruptible, none',
    ]);
    expect((await lint(`workflow:\n  auto_cancel:\n    on_job_failure: some\n${job}`)).errors).toEqual(['workflow:auto_cancel on job failure must be one of: none, all']);
    expect((await lint(`workflow:\n  auto_cancel:\n    on_failure: all\n${job}`)).errors).toEqual(['workflow:auto_cancel config contains unknown keys: on_failure']);
    expect((await lint(`workflow:\n  auto_cancel: all\n${job}`)).errors).toEqual(['workflow:auto_cancel config should be a hash']);
    const inRule = await lint(`workflow:\n  rules:\n    - when: always\n      auto_cancel:\n        on_job_failure: first\n${job}`);
    expect(inRule.errors).toEqual(['workflow:rules:rule:auto_cancel on job failure must be one of: none, all']);
  });

  it("lets each older pipeline's on_new_commit decide, a matching rule's setting over the workflow's", async () => {
    const project = await createProject(t, t.rootToken);
    const config = `workflow:\n  auto_cancel:\n    on_new_commit: none\n${NO_PUSH}a:\n  interruptible: true\n  script: echo a\n`;
    await commit(t, project.id, { '.gitlab-ci.yml': config });
    // The rule makes this one conservative: the next pipeline for another commit cancels it.
    const strict = await apiPipeline(project.id, [{ key: 'MODE', value: 'strict' }]);
    await commit(t, project.id, { 'x.txt': '1' });
    const relaxed = await apiPipeline(project.id);
    expect(await statusOf(project.id, strict.id)).toBe('canceled');
    const db = t.server.app.db;
    expect((await db.pipeline.findUnique({ where: { id: strict.id } }))?.autoCancelOnNewCommit).toBe('conservative');
    // This one says `none`: a newer pipeline leaves it be.
    await commit(t, project.id, { 'x.txt': '2' });
    const newer = await apiPipeline(project.id);
    expect(await statusOf(project.id, relaxed.id)).toBe('pending');
    expect((await db.pipeline.findUnique({ where: { id: relaxed.id } }))?.autoCanceledById).toBeNull();
    expect(await statusOf(project.id, newer.id)).toBe('pending');
  });

  it('cancels only the interruptible jobs of an `interruptible` pipeline, a started one too, leaving the others running', async () => {
    const project = await createProject(t, t.rootToken);
    const jobs = 'build:\n  tags: [bee]\n  script: echo build\nlint:\n  interruptible: true\n  script: echo lint\n';
    const runner = await createRunner(t, { project_id: project.id, tag_list: ['bee'], run_untagged: false });

    // Conservative (the default): a started job that is not interruptible keeps the whole pipeline.
    await commit(t, project.id, { '.gitlab-ci.yml': `workflow:\n${NO_PUSH}${jobs}` });
    const kept = await apiPipeline(project.id);
    expect((await requestJob(t, runner.token)).job_info.name).toBe('build');
    await commit(t, project.id, { 'x.txt': '1' });
    const second = await apiPipeline(project.id);
    expect(await statusOf(project.id, kept.id)).toBe('running');

    await commit(t, project.id, { '.gitlab-ci.yml': `workflow:\n  auto_cancel:\n    on_new_commit: interruptible\n${NO_PUSH}${jobs}` });
    // The conservative `second` (nothing started) goes; then the interruptible one is made and its build started.
    const older = await apiPipeline(project.id);
    expect(await statusOf(project.id, second.id)).toBe('canceled');
    const started = await requestJob(t, runner.token);
    expect(started.job_info.name).toBe('build');
    expect(started.job_info.id).toBeGreaterThan(0);
    await commit(t, project.id, { 'x.txt': '2' });
    const newest = await apiPipeline(project.id);
    const byName = Object.fromEntries(((await t.api('GET', `/projects/${project.id}/pipelines/${older.id}/jobs`)).body as { name: string; status: string }[]).map((j) => [j.name, j.status]));
    expect(byName).toEqual({ build: 'running', lint: 'canceled' });
    const db = t.server.app.db;
    expect((await db.pipeline.findUnique({ where: { id: older.id } }))?.autoCanceledById).toBe(newest.id);
    // The conservative pipeline with its started build is still left alone.
    expect(await statusOf(project.id, kept.id)).toBe('running');
  });
});
