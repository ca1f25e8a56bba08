/**
 * auto_canceled_by (GitLab's auto_canceled_by_id on Ci::Pipeline and its jobs): a newer pipeline of the ref that
 * auto-cancels an older one (auto_cancel_pending_pipelines, interruptible) is recorded on the canceled pipeline and
 * on each job it canceled; a cancel by hand records none; retrying the pipeline clears it. GitLab shows it in no REST
 * entity or GraphQL field, so it is read from the database here.
 */
import { describe, expect, it } from 'vitest';
import { commit, eventually, pushPipeline } from '../runners/support.js';
import { createProject } from '../support/factories.js';
import { suiteServer } from '../support/server.js';

const t = suiteServer();

describe('auto_canceled_by', () => {
  it('records the pipeline that auto-canceled a pipeline and its jobs, and clears it on retry', async () => {
    const project = await createProject(t, t.rootToken);
    const config = 'a:\n  interruptible: true\n  script: echo a\nb:\n  interruptible: true\n  script: echo b\n';
    const first = await pushPipeline(t, project.id, await commit(t, project.id, { '.gitlab-ci.yml': config }));
    const second = await pushPipeline(t, project.id, await commit(t, project.id, { 'x.txt': 'x' }));
    await eventually(async () => (await t.api('GET', `/projects/${project.id}/pipelines/${first.id}`)).body.status === 'canceled');
    const db = t.server.app.db;
    expect((await db.pipeline.findUnique({ where: { id: first.id } }))?.autoCanceledById).toBe(second.id);
    const jobs = await db.ciJob.findMany({ where: { pipelineId: first.id }, orderBy: { id: 'asc' } });
    expect(jobs.map((j) => [j.name, j.status, j.autoCanceledById])).toEqual([
      ['a', 'canceled', second.id],
      ['b', 'canceled', second.id],
    ]);

    // By hand: nobody auto-canceled it.
    expect((await t.api('POST', `/projects/${project.id}/pipelines/${second.id}/cancel`)).status).toBe(200);
    expect((await db.pipeline.findUnique({ where: { id: second.id } }))?.autoCanceledById).toBeNull();
    expect((await db.ciJob.findMany({ where: { pipelineId: second.id } })).every((j) => j.status === 'canceled' && j.autoCanceledById === null)).toBe(true);

    // Retried, it runs again and is no longer auto-canceled; its new jobs never were.
    const retried = await t.api('POST', `/projects/${project.id}/pipelines/${first.id}/retry`);
    expect(retried.status).toBe(201);
    expect(retried.body.status).toBe('pending');
    expect((await db.pipeline.findUnique({ where: { id: first.id } }))?.autoCanceledById).toBeNull();
    const fresh = await db.ciJob.findMany({ where: { pipelineId: first.id, retried: false } });
    expect(fresh.map((j) => [j.status, j.autoCanceledById])).toEqual([
      ['pending', null],
      ['pending', null],
    ]);
  });
});
