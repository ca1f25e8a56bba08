/**
 * Downstream pipelines of bridges (`trigger:` jobs): child pipelines (`trigger: include:`, also from a job's
 * artifact), multi-project pipelines (`trigger: project:`), `strategy: depend`, GitLab's failure reasons when the
 * downstream pipeline cannot be made, cancel cascading to children, and how REST and GraphQL show the links.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import yazl from 'yazl';
import { startTestServer, type TestServer } from '../support/server.js';
import { addMember, createProject, createUser } from '../support/factories.js';
import { commit, createRunner, eventually, jobsOf, projectWithConfig, requestJob, runnerCall, RUNNER_INFO } from '../runners/support.js';

let t: TestServer;
let runner: { id: number; token: string };

beforeAll(async () => {
  t = await startTestServer();
  runner = await createRunner(t, { runner_type: 'instance_type' });
});
afterAll(() => t?.close());

type Job = { id: number; name: string; status: string; failure_reason?: string };

/** Takes the next pending job as the runner and finishes it with `state`; the runner's view of the job. */
async function runNext(state: 'success' | 'failed', expectedName?: string): Promise<any> {
  const job = await requestJob(t, runner.token);
  if (expectedName) expect(job.job_info.name).toBe(expectedName);
  const res = await runnerCall(t, 'PUT', `/jobs/${job.id}`, { token: job.token, info: RUNNER_INFO, state });
  expect(res.status, res.text).toBe(200);
  return job;
}

function bridgesOf(projectId: number, pipelineId: number) {
  return t.api('GET', `/projects/${projectId}/pipelines/${pipelineId}/bridges`);
}

/** The bridge of a pipeline, once it reached one of `statuses` (running: once its downstream pipeline exists too). */
function bridgeIn(projectId: number, pipelineId: number, ...statuses: string[]): Promise<any> {
  return eventually(async () => (await bridgesOf(projectId, pipelineId)).body.find((b: Job & { downstream_pipeline: unknown }) => statuses.includes(b.status) && (b.status !== 'running' || b.downstream_pipeline)));
}

async function pipelineStatus(projectId: number, pipelineId: number, status: string) {
  return eventually(async () => {
    const res = await t.api('GET', `/projects/${projectId}/pipelines/${pipelineId}`);
    return res.body.status === status ? res.body : null;
  });
}

function zip(files: Record<string, string>): Promise<Buffer> {
  const archive = new yazl.ZipFile();
  for (const [name, content] of Object.entries(files)) archive.addBuffer(Buffer.from(content), name);
  archive.end();
  const chunks: Buffer[] = [];
  return new Promise((resolve, reject) => {
    archive.outputStream.on('data', (c: Buffer) => chunks.push(c));
    archive.outputStream.on('end', () => resolve(Buffer.concat(chunks)));
    archive.outputStream.on('error', reject);
  });
}

describe('child pipelines', () => {
  it('runs a child pipeline from trigger:include with strategy depend, passing the bridge its variables, and shows the links', async () => {
    const { project, pipeline } = await projectWithConfig(
      t,
      `
stages: [build, deploy]
build:
  stage: build
  script: echo build
child:
  stage: deploy
  variables:
    GREETING: hello-$CI_COMMIT_REF_NAME
  trigger:
    include: ci/child.yml
    strategy: depend
`,
      { files: { 'ci/child.yml': 'child-job:\n  script: echo "$GREETING"\n' } },
    );
    await runNext('success', 'build');
    const running = await bridgeIn(project.id, pipeline.id, 'running');
    expect(running.downstream_pipeline).toMatchObject({ project_id: project.id, ref: 'main', sha: pipeline.sha, source: 'parent_pipeline' });
    const childId = running.downstream_pipeline.id as number;

    // The child's job gets the bridge's variable, expanded in the parent.
    const childJob = await runNext('success', 'child-job');
    expect(childJob.variables).toContainEqual(expect.objectContaining({ key: 'GREETING', value: 'hello-main' }));
    expect(childJob.variables).toContainEqual(expect.objectContaining({ key: 'CI_PIPELINE_SOURCE', value: 'parent_pipeline' }));

    await pipelineStatus(project.id, childId, 'success');
    const bridge = await bridgeIn(project.id, pipeline.id, 'success');
    expect(bridge.downstream_pipeline).toMatchObject({ id: childId, status: 'success' });
    await pipelineStatus(project.id, pipeline.id, 'success');

    // Child pipelines are left out of the list unless asked for by their source.
    const listed = (await t.api('GET', `/projects/${project.id}/pipelines`)).body.map((p: { id: number }) => p.id);
    expect(listed).toEqual([pipeline.id]);
    const children = await t.api('GET', `/projects/${project.id}/pipelines?source=parent_pipeline`);
    expect(children.body.map((p: { id: number }) => p.id)).toEqual([childId]);

    const gql = await t.graphql(
      `query($path: ID!, $iid: ID!) { project(fullPath: $path) { pipeline(iid: $iid) { child configSource upstream { id } downstream { count nodes { databaseId child source configSource upstream { databaseId } } } } } }`,
      { path: project.path_with_namespace, iid: String((pipeline as { iid?: number }).iid) },
    );
    expect(gql.body.errors).toBeUndefined();
    expect(gql.body.data.project.pipeline).toEqual({
      child: false,
      configSource: 'REPOSITORY_SOURCE',
      upstream: null,
      downstream: { count: 1, nodes: [{ databaseId: childId, child: true, source: 'parent_pipeline', configSource: 'BRIDGE_SOURCE', upstream: { databaseId: pipeline.id } }] },
    });
  });

  it('lets a bridge without a strategy succeed as soon as its child exists', async () => {
    const { project, pipeline } = await projectWithConfig(t, 'child:\n  trigger:\n    include: [{ local: child.yml }]\n', { files: { 'child.yml': 'slow:\n  script: sleep 1\n' } });
    const bridge = await bridgeIn(project.id, pipeline.id, 'success');
    const child = await t.api('GET', `/projects/${project.id}/pipelines/${bridge.downstream_pipeline.id}`);
    expect(child.body.status).toBe('pending');
    await pipelineStatus(project.id, pipeline.id, 'success');
    await runNext('success', 'slow');
    await pipelineStatus(project.id, child.body.id, 'success');
  });

  it('fails a depending bridge, and its pipeline, when the child fails; retrying the bridge makes a new child', async () => {
    const { project, pipeline } = await projectWithConfig(t, 'child:\n  trigger:\n    include: child.yml\n    strategy: depend\n', { files: { 'child.yml': 'broken:\n  script: exit 1\n' } });
    const first = await bridgeIn(project.id, pipeline.id, 'running');
    await runNext('failed', 'broken');
    const failed = await bridgeIn(project.id, pipeline.id, 'failed');
    expect(failed.id).toBe(first.id);
    await pipelineStatus(project.id, pipeline.id, 'failed');

    const retried = await t.api('POST', `/projects/${project.id}/pipelines/${pipeline.id}/retry`);
    expect(retried.status).toBe(201);
    const second = await bridgeIn(project.id, pipeline.id, 'running');
    expect(second.id).not.toBe(first.id);
    expect(second.downstream_pipeline.id).not.toBe(first.downstream_pipeline.id);
    await runNext('success', 'broken');
    await pipelineStatus(project.id, pipeline.id, 'success');
  });

  it('mirrors the child pipeline with strategy: mirror, a manual job it waits on included, where depend waits on', async () => {
    const child = 'gate:\n  script: echo\n  when: manual\n  allow_failure: false\nafter:\n  script: echo\n  needs: [gate]\n';
    const config = 'mirrored:\n  trigger:\n    include: child.yml\n    strategy: mirror\ndepending:\n  trigger:\n    include: child.yml\n    strategy: depend\n';
    const { project, pipeline } = await projectWithConfig(t, config, { files: { 'child.yml': child } });
    const mirrored = await eventually(async () => {
      const bridges = (await bridgesOf(project.id, pipeline.id)).body as { name: string; status: string; downstream_pipeline: { id: number; status: string } | null }[];
      const [m, d] = ['mirrored', 'depending'].map((name) => bridges.find((b) => b.name === name)!);
      // Both children wait on their manual job: the mirroring bridge says so, the depending one keeps running.
      return m.downstream_pipeline?.status === 'manual' && d.downstream_pipeline?.status === 'manual' && m.status === 'manual' ? { m, d } : null;
    });
    expect(mirrored.d.status).toBe('running');
    // Playing the mirrored child's manual job runs it: the bridge follows the child to success.
    const gate = (await t.api('GET', `/projects/${project.id}/pipelines/${mirrored.m.downstream_pipeline!.id}/jobs`)).body.find((j: Job) => j.name === 'gate');
    expect((await t.api('POST', `/projects/${project.id}/jobs/${gate.id}/play`)).status).toBe(200);
    await runNext('success', 'gate');
    await runNext('success', 'after');
    await pipelineStatus(project.id, mirrored.m.downstream_pipeline!.id, 'success');
    expect((await bridgeIn(project.id, pipeline.id, 'success')).name).toBe('mirrored');
    expect((await bridgesOf(project.id, pipeline.id)).body.find((b: Job) => b.name === 'depending').status).toBe('running');
  });

  it('fails the bridge with downstream_pipeline_creation_failed when the child configuration is invalid or missing', async () => {
    const { project, pipeline } = await projectWithConfig(
      t,
      'broken:\n  trigger:\n    include: child.yml\nmissing:\n  trigger:\n    include: nowhere.yml\n',
      { files: { 'child.yml': 'job:\n  script: echo\n  when: sometimes\n' } },
    );
    const bridges = await eventually(async () => {
      const res = await bridgesOf(project.id, pipeline.id);
      return res.body.every((b: Job) => b.status === 'failed') ? res.body : null;
    });
    expect(bridges.map((b: Job) => b.failure_reason)).toEqual(['downstream_pipeline_creation_failed', 'downstream_pipeline_creation_failed']);
    const broken = bridges.find((b: Job & { downstream_pipeline: any }) => b.name === 'broken');
    // The invalid child is kept, failed with its errors, as GitLab keeps it.
    expect(broken.downstream_pipeline).toMatchObject({ status: 'failed' });
    const child = await t.api('GET', `/projects/${project.id}/pipelines/${broken.downstream_pipeline.id}`);
    expect(child.body.yaml_errors).toContain('when');
    expect(bridges.find((b: Job & { downstream_pipeline: any }) => b.name === 'missing').downstream_pipeline).toMatchObject({ status: 'failed' });
    await pipelineStatus(project.id, pipeline.id, 'failed');
  });

  it('cancels the children with their parent', async () => {
    const { project, pipeline } = await projectWithConfig(
      t,
      'child:\n  trigger:\n    include: child.yml\n    strategy: depend\nwait:\n  script: sleep 10\n',
      { files: { 'child.yml': 'inner:\n  script: sleep 10\n' } },
    );
    const bridge = await bridgeIn(project.id, pipeline.id, 'running');
    const childId = bridge.downstream_pipeline.id as number;
    expect((await t.api('POST', `/projects/${project.id}/pipelines/${pipeline.id}/cancel`)).status).toBe(200);
    await pipelineStatus(project.id, childId, 'canceled');
    await pipelineStatus(project.id, pipeline.id, 'canceled');
    expect((await jobsOf(t, project.id, childId)).map((j) => j.status)).toEqual(['canceled']);
  });

  it('builds a dynamic child pipeline from a file of an earlier job\'s artifacts', async () => {
    const config = `
stages: [generate, run]
generate:
  stage: generate
  script: ./generate > generated.yml
  artifacts:
    paths: [generated.yml]
run:
  stage: run
  trigger:
    include:
      - artifact: generated.yml
        job: generate
    strategy: depend
`;
    const { project, pipeline } = await projectWithConfig(t, config);
    const job = await requestJob(t, runner.token);
    expect(job.job_info.name).toBe('generate');
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(await zip({ 'generated.yml': 'generated-job:\n  script: echo generated\n' }))]), 'artifacts.zip');
    const uploaded = await fetch(`${t.url}/api/v4/jobs/${job.id}/artifacts?artifact_format=zip&artifact_type=archive`, { method: 'POST', body: form, headers: { 'JOB-TOKEN': job.token } });
    expect(uploaded.status, await uploaded.text()).toBe(201);
    await runnerCall(t, 'PUT', `/jobs/${job.id}`, { token: job.token, info: RUNNER_INFO, state: 'success' });

    await bridgeIn(project.id, pipeline.id, 'running');
    await runNext('success', 'generated-job');
    await pipelineStatus(project.id, pipeline.id, 'success');
  });

  it('refuses artifact includes outside child pipelines, and names a job without artifacts', async () => {
    const lint = await t.api('POST', `/projects/${(await createProject(t, t.rootToken)).id}/ci/lint`, { body: { content: 'include:\n  - artifact: x.yml\n    job: gen\n' } });
    expect(lint.body.errors).toEqual(['Including configs from artifacts is only allowed when triggering child pipelines']);

    const { project, pipeline } = await projectWithConfig(t, 'gen:\n  script: echo\nrun:\n  stage: test\n  needs: [gen]\n  trigger:\n    include: [{ artifact: x.yml, job: gen }]\n');
    await runNext('success', 'gen');
    const bridge = await bridgeIn(project.id, pipeline.id, 'failed');
    expect(bridge.failure_reason).toBe('downstream_pipeline_creation_failed');
    const child = await t.api('GET', `/projects/${project.id}/pipelines/${bridge.downstream_pipeline.id}`);
    expect(child.body.yaml_errors).toBe('Job `gen` not found in parent pipeline or does not have artifacts!');
  });
});

describe('multi-project pipelines', () => {
  it('creates a pipeline of another project on its default branch or the given one, with source pipeline', async () => {
    // Only pipelines made by an upstream's bridge have jobs.
    const downstream = { project: await createProject(t, t.rootToken) };
    await commit(t, downstream.project.id, { '.gitlab-ci.yml': 'deploy:\n  script: echo "$UPSTREAM_REF"\n  rules:\n    - if: $CI_PIPELINE_SOURCE == "pipeline"\n' });
    expect((await t.api('POST', `/projects/${downstream.project.id}/repository/branches`, { body: { branch: 'release', ref: 'main' } })).status).toBe(201);

    const { project, pipeline } = await projectWithConfig(
      t,
      `
to-default:
  variables:
    UPSTREAM_REF: $CI_COMMIT_REF_NAME
  trigger: ${downstream.project.path_with_namespace}
to-release:
  trigger:
    project: ${downstream.project.path_with_namespace}
    branch: release
    strategy: depend
`,
    );
    const bridges = await eventually(async () => {
      const res = await bridgesOf(project.id, pipeline.id);
      return res.body.every((b: any) => b.downstream_pipeline) ? res.body : null;
    });
    const byName = Object.fromEntries(bridges.map((b: any) => [b.name, b]));
    expect(byName['to-default'].downstream_pipeline).toMatchObject({ project_id: downstream.project.id, ref: 'main', source: 'pipeline' });
    expect(byName['to-release'].downstream_pipeline).toMatchObject({ project_id: downstream.project.id, ref: 'release', source: 'pipeline' });
    await bridgeIn(project.id, pipeline.id, 'success');

    const first = await runNext('success', 'deploy');
    const second = await runNext('success', 'deploy');
    const refs = [first, second].map((j) => j.variables.find((v: { key: string }) => v.key === 'CI_COMMIT_REF_NAME').value).sort();
    expect(refs).toEqual(['main', 'release']);
    const forwarded = [first, second].find((j) => j.git_info.ref === 'main');
    expect(forwarded.variables).toContainEqual(expect.objectContaining({ key: 'UPSTREAM_REF', value: 'main' }));
    await pipelineStatus(project.id, pipeline.id, 'success');

    const gql = await t.graphql(`query($path: ID!, $iid: ID!) { project(fullPath: $path) { pipeline(iid: $iid) { upstream { databaseId } } } }`, {
      path: downstream.project.path_with_namespace,
      iid: String(byName['to-release'].downstream_pipeline.iid),
    });
    expect(gql.body.data.project.pipeline.upstream).toEqual({ databaseId: pipeline.id });
  });

  it("fails with GitLab's reasons: a project the user cannot see, the bridge's own project, no right to run pipelines there", async () => {
    const user = await createUser(t);
    const hidden = await createProject(t, t.rootToken, { visibility: 'private' });
    const readable = await createProject(t, t.rootToken, { visibility: 'public' });
    const own = await createProject(t, user.token);
    await addMember(t, t.rootToken, 'projects', readable.id, user.id, 10);
    const config = `
hidden:
  trigger: ${hidden.path_with_namespace}
itself:
  trigger: ${own.path_with_namespace}
guest:
  trigger: ${readable.path_with_namespace}
nowhere:
  trigger: no/such-project
`;
    const sha = await commit(t, own.id, { '.gitlab-ci.yml': config }, 'main', user.token);
    const pipeline = await eventually(async () => (await t.api('GET', `/projects/${own.id}/pipelines?sha=${sha}`, { token: user.token })).body[0]);
    const bridges = await eventually(async () => {
      const res = await t.api('GET', `/projects/${own.id}/pipelines/${pipeline.id}/bridges`, { token: user.token });
      return res.body.length === 4 && res.body.every((b: Job) => b.status === 'failed') ? res.body : null;
    });
    expect(Object.fromEntries(bridges.map((b: Job & { downstream_pipeline: unknown }) => [b.name, [b.failure_reason, b.downstream_pipeline]]))).toEqual({
      hidden: ['downstream_bridge_project_not_found', null],
      itself: ['invalid_bridge_trigger', null],
      guest: ['insufficient_bridge_permissions', null],
      nowhere: ['downstream_bridge_project_not_found', null],
    });
    // Nothing was created in the other projects.
    expect((await t.api('GET', `/projects/${hidden.id}/pipelines`)).body).toEqual([]);
    expect((await t.api('GET', `/projects/${readable.id}/pipelines`)).body).toEqual([]);
  });

  it('runs a downstream pipeline on a protected branch its user may merge to, not on one they may neither push nor merge to', async () => {
    const user = await createUser(t);
    const own = await createProject(t, user.token);
    // Manual jobs only: nothing here is left pending for the runner of the other tests.
    const manual = 'build:\n  script: echo\n  when: manual\n';
    const targets = { mergeable: (await projectWithConfig(t, manual)).project, closed: (await projectWithConfig(t, manual)).project };
    for (const target of Object.values(targets)) await addMember(t, t.rootToken, 'projects', target.id, user.id, 30);
    // main of `mergeable`: Maintainers push, Developers merge (Gitlab::UserAccess#can_update_branch? is push or merge).
    expect((await t.api('DELETE', `/projects/${targets.mergeable.id}/protected_branches/main`)).status).toBe(204);
    const rule = await t.api('POST', `/projects/${targets.mergeable.id}/protected_branches`, { body: { name: 'main', push_access_level: 40, merge_access_level: 30 } });
    expect(rule.status).toBe(201);
    const config = `mergeable:\n  trigger:\n    project: ${targets.mergeable.path_with_namespace}\n    branch: main\nclosed:\n  trigger:\n    project: ${targets.closed.path_with_namespace}\n    branch: main\n`;
    const sha = await commit(t, own.id, { '.gitlab-ci.yml': config }, 'main', user.token);
    const pipeline = await eventually(async () => (await t.api('GET', `/projects/${own.id}/pipelines?sha=${sha}`, { token: user.token })).body[0]);
    const bridges = await eventually(async () => {
      const res = await t.api('GET', `/projects/${own.id}/pipelines/${pipeline.id}/bridges`, { token: user.token });
      return res.body.length === 2 && res.body.every((b: Job) => b.status !== 'pending' && b.status !== 'created') ? res.body : null;
    });
    const byName = Object.fromEntries(bridges.map((b: Job & { downstream_pipeline: { project_id: number } | null }) => [b.name, [b.failure_reason ?? null, b.downstream_pipeline?.project_id ?? null]]));
    expect(byName).toEqual({ mergeable: [null, targets.mergeable.id], closed: ['insufficient_bridge_permissions', null] });
  });
});
