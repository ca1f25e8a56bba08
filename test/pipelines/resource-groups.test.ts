/**
 * `resource_group` (GitLab's Ci::ResourceGroup): jobs naming one group run one at a time. Run by the built-in shell
 * runner (2 jobs at once): the second pipeline's deploy waits in `waiting_for_resource` while the first one's holds
 * the resource, then runs once it is released. Process modes order the waiting jobs (`oldest_first` keeps an older
 * pipeline's upcoming job first); the REST API lists, shows and updates groups and their upcoming jobs.
 */
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commit, eventually, jobsOf, withShellRunner } from '../runners/support.js';
import { addMember, createProject, createUser } from '../support/factories.js';
import { suiteServer } from '../support/server.js';

const t = suiteServer({ ciLongPollingMs: 2000 });
withShellRunner(t);

/** Deploy jobs mark their start, then wait for the test to let them finish. */
const GATED = `workflow:
  rules:
    - if: $CI_PIPELINE_SOURCE == "api"
deploy:
  resource_group: production-$ZONE
  script:
    - touch "$MARKS/$CI_PIPELINE_ID.start"
    - while [ ! -f "$MARKS/$CI_PIPELINE_ID.go" ]; do sleep 0.05; done
`;

const ORDERED = `workflow:
  rules:
    - if: $CI_PIPELINE_SOURCE == "api"
stages: [build, deploy]
build:
  stage: build
  tags: [nowhere]
  rules:
    - if: $SLOW == "yes"
  script: exit 0
deploy:
  stage: deploy
  resource_group: ordered
  script: echo deployed
`;

async function create(projectId: number, variables: Record<string, string>) {
  const res = await t.api('POST', `/projects/${projectId}/pipeline`, { body: { ref: 'main', variables: Object.entries(variables).map(([key, value]) => ({ key, value })) } });
  expect(res.status, res.text).toBe(201);
  return res.body as { id: number };
}

async function deployOf(projectId: number, pipelineId: number) {
  return (await jobsOf(t, projectId, pipelineId)).find((j) => j.name === 'deploy') as any;
}

describe('resource groups', () => {
  it('never runs two deploy jobs of one group at once', async () => {
    const project = await createProject(t, t.rootToken);
    await commit(t, project.id, { '.gitlab-ci.yml': GATED });
    const marks = mkdtempSync(join(tmpdir(), 'resource-group-'));
    const first = await create(project.id, { MARKS: marks, ZONE: 'eu' });
    const second = await create(project.id, { MARKS: marks, ZONE: 'eu' });
    await eventually(() => existsSync(join(marks, `${first.id}.start`)), 30_000);
    // The first deploy runs; the second waits for the resource although the runner has a free slot.
    const waiting = await eventually(async () => {
      const job = await deployOf(project.id, second.id);
      return job.status === 'waiting_for_resource' && job;
    });
    expect(existsSync(join(marks, `${second.id}.start`))).toBe(false);
    expect((await t.api('GET', `/projects/${project.id}/pipelines/${second.id}`)).body.status).toBe('waiting_for_resource');
    const held = await deployOf(project.id, first.id);
    expect(held.status).toBe('running');

    const groups = await t.api('GET', `/projects/${project.id}/resource_groups`);
    expect(groups.status).toBe(200);
    expect(groups.headers.get('x-total')).toBe('1');
    expect(groups.body).toEqual([{ id: expect.any(Number), key: 'production-eu', process_mode: 'unordered', created_at: expect.any(String), updated_at: expect.any(String) }]);
    const group = await t.api('GET', `/projects/${project.id}/resource_groups/production-eu`);
    expect(group.body).toEqual(groups.body[0]);
    const current = await t.api('GET', `/projects/${project.id}/resource_groups/production-eu/current_job`);
    expect(current.body).toMatchObject({ id: held.id, name: 'deploy', status: 'running', pipeline: { id: first.id } });
    const upcoming = await t.api('GET', `/projects/${project.id}/resource_groups/production-eu/upcoming_jobs`);
    expect(upcoming.body.map((j: any) => [j.id, j.status])).toEqual([[waiting.id, 'waiting_for_resource']]);
    const job = await t.api('GET', `/projects/${project.id}/jobs/${waiting.id}`);
    expect(job.body).toMatchObject({ status: 'waiting_for_resource', started_at: null });

    // The first one finishes: the resource passes to the second.
    writeFileSync(join(marks, `${first.id}.go`), '');
    await eventually(() => existsSync(join(marks, `${second.id}.start`)), 30_000);
    const done = await deployOf(project.id, first.id);
    expect(done.status).toBe('success');
    expect((await t.api('GET', `/projects/${project.id}/resource_groups/production-eu/current_job`)).body).toMatchObject({ id: waiting.id, status: 'running' });
    writeFileSync(join(marks, `${second.id}.go`), '');
    const after = await eventually(async () => {
      const job = await deployOf(project.id, second.id);
      return job.status === 'success' && job;
    }, 30_000);
    expect(Date.parse(after.started_at)).toBeGreaterThanOrEqual(Date.parse(done.finished_at));
    // Released: nobody holds it, nobody waits.
    const idle = await t.api('GET', `/projects/${project.id}/resource_groups/production-eu/current_job`);
    expect(idle.status).toBe(200);
    expect(idle.body).toBeNull();
    expect((await t.api('GET', `/projects/${project.id}/resource_groups/production-eu/upcoming_jobs`)).body).toEqual([]);
  }, 240_000);

  it('orders waiting jobs by process mode, and updates it through PUT', async () => {
    const project = await createProject(t, t.rootToken);
    await commit(t, project.id, { '.gitlab-ci.yml': ORDERED });
    // The older pipeline's deploy is still to come (its build never runs), which makes the group.
    const older = await create(project.id, { SLOW: 'yes' });
    const upcoming = await deployOf(project.id, older.id);
    expect(upcoming.status).toBe('created');
    let res = await t.api('PUT', `/projects/${project.id}/resource_groups/ordered`, { body: { process_mode: 'sideways' } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'process_mode does not have a valid value' });
    res = await t.api('PUT', `/projects/${project.id}/resource_groups/ordered`, { body: { process_mode: 'oldest_first' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ key: 'ordered', process_mode: 'oldest_first' });
    // oldest_first: the older pipeline's upcoming deploy comes first, so the newer one waits though the resource is free.
    const newer = await create(project.id, {});
    const waiting = await eventually(async () => {
      const job = await deployOf(project.id, newer.id);
      return job.status === 'waiting_for_resource' && job;
    });
    // Nobody holds the resource: the newer deploy waits for the older one, not for a running job.
    await eventually(async () => (await t.api('GET', `/projects/${project.id}/resource_groups/ordered/current_job`)).body === null);
    const list = await t.api('GET', `/projects/${project.id}/resource_groups/ordered/upcoming_jobs`);
    expect(list.body.map((j: any) => [j.id, j.status])).toEqual([[upcoming.id, 'created'], [waiting.id, 'waiting_for_resource']]);
    expect(list.headers.get('x-total')).toBe('2');

    // newest_first: the newer pipeline's deploy goes now.
    res = await t.api('PUT', `/projects/${project.id}/resource_groups/ordered`, { body: { process_mode: 'newest_first' } });
    expect(res.body.process_mode).toBe('newest_first');
    await eventually(async () => (await deployOf(project.id, newer.id)).status === 'success', 30_000);
    await t.api('POST', `/projects/${project.id}/pipelines/${older.id}/cancel`);
  }, 240_000);

  it('answers 404 to strangers, 403 to reporters, 404 for an unknown key, 401 to anonymous callers', async () => {
    const project = await createProject(t, t.rootToken);
    await commit(t, project.id, { '.gitlab-ci.yml': ORDERED });
    await create(project.id, {});
    const stranger = await createUser(t);
    const reporter = await createUser(t);
    await addMember(t, t.rootToken, 'projects', project.id, reporter.id, 20);
    const path = `/projects/${project.id}/resource_groups`;
    expect((await t.api('GET', path, { token: stranger.token })).body).toEqual({ message: '404 Project Not Found' });
    expect((await t.api('PUT', `${path}/ordered`, { token: stranger.token, body: { process_mode: 'oldest_first' } })).status).toBe(404);
    const forbidden = await t.api('GET', `${path}/ordered`, { token: reporter.token });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body).toEqual({ message: '403 Forbidden' });
    expect((await t.api('PUT', `${path}/ordered`, { token: reporter.token, body: { process_mode: 'oldest_first' } })).status).toBe(403);
    const unknown = await t.api('GET', `${path}/nothing`);
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ message: '404 Not found' });
    expect((await t.api('GET', path, { token: null })).status).toBe(401);
  });

  it('refuses a resource_group that is not a string', async () => {
    const project = await createProject(t, t.rootToken);
    const res = await t.api('POST', `/projects/${project.id}/ci/lint`, { body: { content: 'job:\n  script: x\n  resource_group: [a]\n' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ valid: false, errors: ['jobs:job resource group should be a string'] });
  });
});
