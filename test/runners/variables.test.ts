/**
 * CI/CD variables reach jobs: instance, group and project variables in the runner's payload with GitLab's
 * precedence, protected ones only on protected refs, and masked values never stored in a log.
 */
import { describe, expect, it } from 'vitest';
import { suiteServer } from '../support/server.js';
import { createGroup } from '../support/factories.js';
import { commit, createRunner, pushPipeline, requestJob, runnerCall } from './support.js';

const t = suiteServer({ ciLongPollingMs: 1000 });

describe('CI/CD variables in jobs', () => {
  it('hands the job its variables by precedence and masks masked values in its log', async () => {
    const group = await createGroup(t, t.rootToken);
    const created = await t.api('POST', '/projects', { body: { name: `vars-${Date.now()}`, namespace_id: group.id } });
    const project = created.body;
    expect((await t.api('POST', '/admin/ci/variables', { body: { key: 'LEVEL', value: 'instance' } })).status).toBe(201);
    expect((await t.api('POST', `/groups/${group.id}/variables`, { body: { key: 'LEVEL', value: 'group' } })).status).toBe(201);
    expect((await t.api('POST', `/projects/${project.id}/variables`, { body: { key: 'LEVEL', value: 'project' } })).status).toBe(201);
    expect((await t.api('POST', `/projects/${project.id}/variables`, { body: { key: 'SECRET', value: 'hunter2-is-secret', masked: true } })).status).toBe(201);
    expect((await t.api('POST', `/projects/${project.id}/variables`, { body: { key: 'ONLY_PROTECTED', value: 'x', protected: true } })).status).toBe(201);
    // The default branch is protected on its first push: its pipeline gets the protected variable, a feature branch's does not.
    const sha = await commit(t, project.id, { '.gitlab-ci.yml': 'job:\n  script: echo\n' });
    await pushPipeline(t, project.id, sha);
    const runner = await createRunner(t, { project_id: project.id });

    const job = await requestJob(t, runner.token);
    const value = (key: string) => job.variables.filter((v: { key: string }) => v.key === key).map((v: { value: string }) => v.value);
    // Every level's LEVEL, lowest precedence first: the runner keeps the last.
    expect(value('LEVEL')).toEqual(['instance', 'group', 'project']);
    expect(job.variables.find((v: { key: string }) => v.key === 'SECRET')).toMatchObject({ value: 'hunter2-is-secret', masked: true, public: false });
    expect(value('ONLY_PROTECTED')).toEqual(['x']);

    const patch = await runnerCall(t, 'PATCH', `/jobs/${job.id}/trace`, 'token is hunter2-is-secret\n', { 'JOB-TOKEN': job.token, 'Content-Range': '0-27', 'Content-Type': 'text/plain' });
    expect(patch.status).toBe(202);
    const trace = await t.api('GET', `/projects/${project.id}/jobs/${job.id}/trace`);
    expect(trace.text).not.toContain('hunter2');
    expect(trace.text).toContain('[MASKED]');

    const feature = await t.api('POST', `/projects/${project.id}/repository/commits`, {
      body: { branch: 'feature', start_branch: 'main', commit_message: 'Feature', actions: [{ action: 'create', file_path: 'a.txt', content: 'a' }] },
    });
    await pushPipeline(t, project.id, feature.body.id);
    const unprotected = await requestJob(t, runner.token);
    expect(unprotected.variables.some((v: { key: string }) => v.key === 'ONLY_PROTECTED')).toBe(false);
  });
});
