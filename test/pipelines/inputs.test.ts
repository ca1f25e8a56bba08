/**
 * A pipeline's inputs from outside its file (GitLab 17.x): `POST /projects/:id/pipeline` with `inputs` (a hash),
 * GraphQL `pipelineCreate(inputs:)`, the trigger API's `inputs`, and `git push -o ci.input=name=value`; checked
 * against the file's `spec: inputs` with GitLab's errors.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Gitlab } from '@gitbeaker/rest';
import { beforeAll, describe, expect, it } from 'vitest';
import { createProject, createUser } from '../support/factories.js';
import { cloneUrl, gitSandbox } from '../support/git.js';
import { suiteServer } from '../support/server.js';
import { commit, jobsOf, pushPipeline } from '../runners/support.js';

const t = suiteServer();
const git = gitSandbox();

const CONFIG = `spec:
  inputs:
    environment:
      options: [staging, production]
    count:
      type: number
      default: 1
    verbose:
      type: boolean
      default: false
---
deploy-$[[ inputs.environment ]]:
  script: echo "count $[[ inputs.count ]] verbose $[[ inputs.verbose ]]"
`;

describe('pipeline inputs', () => {
  let project: any;
  let plain: any;

  beforeAll(async () => {
    project = await createProject(t, t.rootToken);
    await commit(t, project.id, { '.gitlab-ci.yml': CONFIG });
    plain = await createProject(t, t.rootToken);
    await commit(t, plain.id, { '.gitlab-ci.yml': 'job:\n  script: echo hi\n' });
  });

  it('creates a pipeline with inputs through gitbeaker, the jobs interpolated', async () => {
    const api = new Gitlab({ host: t.url, token: t.rootToken });
    const pipeline = await api.Pipelines.create(project.id, 'main', { inputs: { environment: 'production', count: 3 } } as any);
    expect(pipeline).toMatchObject({ ref: 'main', source: 'api', status: 'pending' });
    expect((await jobsOf(t, project.id, pipeline.id as number)).map((j) => j.name)).toEqual(['deploy-production']);
  });

  it('answers GitLab 400s for missing, unknown and wrong inputs, and saves no pipeline', async () => {
    const before = (await t.api('GET', `/projects/${project.id}/pipelines`)).body.length;
    const create = (body: unknown) => t.api('POST', `/projects/${project.id}/pipeline`, { body: { ref: 'main', ...(body as object) } });
    let res = await create({});
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: { base: ['`environment` input: required value has not been provided'] } });
    res = await create({ inputs: { environment: 'qa', count: 'many', ghost: 1 } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      message: { base: ['unknown input arguments: ghost, `environment` input: `qa` cannot be used because it is not in the list of allowed options, `count` input: provided value is not a number'] },
    });
    res = await create({ inputs: 'environment=staging' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'inputs is invalid' });
    res = await t.api('POST', `/projects/${plain.id}/pipeline`, { body: { ref: 'main', inputs: { environment: 'staging' } } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: { base: ['Given inputs not defined in the `spec` section of the included configuration file'] } });
    expect((await t.api('GET', `/projects/${project.id}/pipelines`)).body.length).toBe(before);
    // An empty hash is no inputs.
    expect((await t.api('POST', `/projects/${plain.id}/pipeline`, { body: { ref: 'main', inputs: {} } })).status).toBe(201);
  });

  it('reads text values of a form as GitLab does: numbers and booleans', async () => {
    const res = await fetch(`${t.url}/api/v4/projects/${project.id}/pipeline`, {
      method: 'POST',
      headers: { 'PRIVATE-TOKEN': t.rootToken, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'ref=main&inputs[environment]=staging&inputs[count]=2&inputs[verbose]=true',
    });
    expect(res.status, await res.clone().text()).toBe(201);
    const pipeline: any = await res.json();
    expect((await jobsOf(t, project.id, pipeline.id)).map((j) => j.name)).toEqual(['deploy-staging']);
  });

  it("hides the project from other users' tokens", async () => {
    const other = await createUser(t);
    const res = await t.api('POST', `/projects/${project.id}/pipeline`, { token: other.token, body: { ref: 'main', inputs: { environment: 'staging' } } });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: '404 Project Not Found' });
  });

  it('takes inputs in GraphQL pipelineCreate as a list of {name, value}', async () => {
    const mutation = `mutation($path: ID!, $inputs: [CiInputsInput!]) {
      pipelineCreate(input: { projectPath: $path, ref: "main", inputs: $inputs }) { errors pipeline { iid status } }
    }`;
    const ok = await t.graphql(mutation, { path: project.path_with_namespace, inputs: [{ name: 'environment', value: 'staging' }, { name: 'count', value: 5 }] });
    expect(ok.body.errors).toBeUndefined();
    expect(ok.body.data.pipelineCreate).toMatchObject({ errors: [], pipeline: { status: 'PENDING' } });
    const bad = await t.graphql(mutation, { path: project.path_with_namespace, inputs: [{ name: 'environment', value: { a: 1 } }] });
    expect(bad.body.errors?.[0].message).toContain('CI input value');
  });

  it('takes inputs in the trigger API', async () => {
    const trigger = await t.api('POST', `/projects/${project.id}/triggers`, { body: { description: 'inputs' } });
    const res = await t.api('POST', `/projects/${project.id}/trigger/pipeline`, { token: null, body: { token: trigger.body.token, ref: 'main', inputs: { environment: 'production' } } });
    expect(res.status, res.text).toBe(201);
    expect((await jobsOf(t, project.id, res.body.id)).map((j) => j.name)).toEqual(['deploy-production']);
    const bad = await t.api('POST', `/projects/${project.id}/trigger/pipeline`, { token: null, body: { token: trigger.body.token, ref: 'main', inputs: ['x'] } });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: 'inputs is invalid' });
  });

  it('takes ci.input push options through the git CLI', async () => {
    const work = git.folder();
    await git.ok(git.root, ['clone', '--quiet', cloneUrl(t.url, project.path_with_namespace, t.rootToken), work]);
    writeFileSync(join(work, 'change.txt'), 'x\n');
    await git.ok(work, ['add', '.']);
    await git.ok(work, ['commit', '--quiet', '-m', 'change']);
    const sha = (await git.ok(work, ['rev-parse', 'HEAD'])).trim();
    const pushed = await git.run(work, ['push', '-o', 'ci.input=environment=staging', '-o', 'ci.input=count=7', 'origin', 'HEAD:main']);
    expect(pushed.code, pushed.stderr).toBe(0);
    const pipeline = await pushPipeline(t, project.id, sha);
    expect(pipeline).toMatchObject({ status: 'pending', sha });
    expect((await jobsOf(t, project.id, pipeline.id)).map((j) => j.name)).toEqual(['deploy-staging']);
    // Without the options, the push's pipeline fails on the missing input and shows why.
    writeFileSync(join(work, 'change.txt'), 'y\n');
    await git.ok(work, ['commit', '--quiet', '-am', 'again']);
    const next = (await git.ok(work, ['rev-parse', 'HEAD'])).trim();
    await git.ok(work, ['push', '--quiet', 'origin', 'HEAD:main']);
    const failed = await pushPipeline(t, project.id, next);
    expect(failed.status).toBe('failed');
    const shown = await t.api('GET', `/projects/${project.id}/pipelines/${failed.id}`);
    expect(shown.body).toMatchObject({ status: 'failed', yaml_errors: '`environment` input: required value has not been provided' });
  });
});
