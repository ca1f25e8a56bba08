/**
 * Pipeline schedule inputs (GitLab 17.11+): `inputs` on `POST`/`PUT /projects/:id/pipeline_schedules` (an array of
 * `name`, `value`, and `destroy` to remove one) and on `pipelineScheduleCreate`/`pipelineScheduleUpdate`; stored with
 * the schedule, shown on GraphQL's `PipelineSchedule.inputs`, and given to each pipeline it runs as its
 * `spec: inputs`, checked there as any pipeline's inputs are.
 */
import { describe, expect, it } from 'vitest';
import { commit, eventually, jobsOf } from '../runners/support.js';
import { createProject } from '../support/factories.js';
import { suiteServer } from '../support/server.js';

const t = suiteServer();

// Jobs named after the inputs, only in scheduled pipelines.
const CI = `spec:
  inputs:
    env:
      options: [staging, production]
    replicas:
      type: number
      default: 1
    tags:
      type: array
      default: []
---
deploy-$[[ inputs.env ]]-$[[ inputs.replicas ]]:
  script: echo $[[ inputs.tags ]]
  rules:
    - if: $CI_PIPELINE_SOURCE == "schedule"
`;

const INPUTS = `query($path: ID!) { project(fullPath: $path) { pipelineSchedules { nodes { inputs { count nodes { name value } } } } } }`;

async function setup() {
  const project = await createProject(t, t.rootToken);
  await commit(t, project.id, { '.gitlab-ci.yml': CI });
  return project;
}

/** Plays the schedule; the job names of the pipeline it made, once there is one. */
async function play(projectId: number, scheduleId: number): Promise<string[]> {
  const before = (await t.api('GET', `/projects/${projectId}/pipeline_schedules/${scheduleId}/pipelines`)).body.length as number;
  expect((await t.api('POST', `/projects/${projectId}/pipeline_schedules/${scheduleId}/play`)).status).toBe(201);
  const pipelines = await eventually(async () => {
    const list = (await t.api('GET', `/projects/${projectId}/pipeline_schedules/${scheduleId}/pipelines?sort=desc`)).body;
    return list.length > before && list;
  });
  return (await jobsOf(t, projectId, pipelines[0].id)).map((j) => j.name);
}

describe('pipeline schedule inputs', () => {
  it('are taken over REST, shown over GraphQL, given to the pipelines, and changed or removed by name', async () => {
    const project = await setup();
    const created = await t.api('POST', `/projects/${project.id}/pipeline_schedules`, {
      body: { description: 'nightly', ref: 'main', cron: '0 1 * * *', inputs: [{ name: 'env', value: 'staging' }, { name: 'replicas', value: 3 }] },
    });
    expect(created.status, created.text).toBe(201);
    // GitLab's schedule entity does not show them.
    expect(created.body).not.toHaveProperty('inputs');
    const shown = await t.graphql(INPUTS, { path: project.path_with_namespace });
    expect(shown.body.data.project.pipelineSchedules.nodes).toEqual([{ inputs: { count: 2, nodes: [{ name: 'env', value: 'staging' }, { name: 'replicas', value: 3 }] } }]);
    expect(await play(project.id, created.body.id)).toEqual(['deploy-staging-3']);

    // Form parameters, as the docs' curl sends them: one changed, one removed, one added.
    const form = new URLSearchParams();
    for (const [key, value] of [
      ['inputs[][name]', 'env'],
      ['inputs[][value]', 'production'],
      ['inputs[][name]', 'replicas'],
      ['inputs[][destroy]', 'true'],
      ['inputs[][name]', 'tags'],
      ['inputs[][value]', '["a","b"]'],
    ]) form.append(key, value);
    const updated = await t.api('PUT', `/projects/${project.id}/pipeline_schedules/${created.body.id}`, { body: form.toString(), headers: { 'Content-Type': 'application/x-www-form-urlencoded' } });
    expect(updated.status, updated.text).toBe(200);
    const after = await t.graphql(INPUTS, { path: project.path_with_namespace });
    expect(after.body.data.project.pipelineSchedules.nodes[0].inputs.nodes).toEqual([
      { name: 'env', value: 'production' },
      { name: 'tags', value: ['a', 'b'] },
    ]);
    expect(await play(project.id, created.body.id)).toEqual(['deploy-production-1']);
  });

  it('are taken by pipelineScheduleCreate and pipelineScheduleUpdate', async () => {
    const project = await setup();
    const create = await t.graphql(
      `mutation($input: PipelineScheduleCreateInput!) { pipelineScheduleCreate(input: $input) { errors pipelineSchedule { id inputs { nodes { name value } } } } }`,
      { input: { projectPath: project.path_with_namespace, description: 'gql', ref: 'main', cron: '0 1 * * *', inputs: [{ name: 'env', value: 'production' }, { name: 'replicas', value: 2 }] } },
    );
    expect(create.body.data.pipelineScheduleCreate).toMatchObject({ errors: [], pipelineSchedule: { inputs: { nodes: [{ name: 'env', value: 'production' }, { name: 'replicas', value: 2 }] } } });
    const id = create.body.data.pipelineScheduleCreate.pipelineSchedule.id as string;
    const restId = Number(id.split('/').pop());
    expect(await play(project.id, restId)).toEqual(['deploy-production-2']);

    const update = await t.graphql(
      `mutation($input: PipelineScheduleUpdateInput!) { pipelineScheduleUpdate(input: $input) { errors pipelineSchedule { inputs { nodes { name value } } } } }`,
      { input: { id, inputs: [{ name: 'env', value: 'staging' }, { name: 'replicas', value: 0, destroy: true }] } },
    );
    expect(update.body.data.pipelineScheduleUpdate).toEqual({ errors: [], pipelineSchedule: { inputs: { nodes: [{ name: 'env', value: 'staging' }] } } });
    // Without its input, `replicas` takes its default.
    expect(await play(project.id, restId)).toEqual(['deploy-staging-1']);
  });

  it('refuses an input without a name, and inputs that are not a list', async () => {
    const project = await setup();
    const blank = await t.api('POST', `/projects/${project.id}/pipeline_schedules`, { body: { description: 'x', ref: 'main', cron: '0 1 * * *', inputs: [{ name: ' ', value: 'staging' }] } });
    expect(blank.status).toBe(400);
    expect(blank.body).toEqual({ message: { inputs: ["name can't be blank"] } });
    const missing = await t.api('POST', `/projects/${project.id}/pipeline_schedules`, { body: { description: 'x', ref: 'main', cron: '0 1 * * *', inputs: [{ name: 'env' }] } });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ error: 'inputs[0][value] is missing' });
    expect((await t.api('GET', `/projects/${project.id}/pipeline_schedules`)).body).toEqual([]);
  });
});
