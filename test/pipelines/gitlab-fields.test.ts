/**
 * The fields GitLab's GraphQL gives pipelines and jobs that dashboards written for gitlab.com read: a job's stage,
 * needs and previous-stage jobs, kind, paths, failure message and the viewer's permissions; a pipeline's project,
 * commit, job by name, configuration warnings and permissions.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { suiteServer } from '../support/server.js';
import { addMember, createProject, createUser, type TestUser } from '../support/factories.js';
import { eventually } from '../support/wait.js';

let counting = false;
let statements = 0;
const t = suiteServer({}, { onQuery: () => counting && statements++ });
const CI = [
  'stages: [build, test, deploy]',
  'compile:',
  '  stage: build',
  '  script: echo compile',
  'lint:',
  '  stage: build',
  '  script: echo lint',
  '  rules:',
  '    - when: on_success',
  'unit:',
  '  stage: test',
  '  needs: [compile]',
  '  script: echo unit',
  'docs:',
  '  stage: test',
  '  script: echo docs',
  'ship:',
  '  stage: deploy',
  '  script: echo ship',
  '  when: manual',
  '  manual_confirmation: Ship it?',
  '',
].join('\n');

let owner: TestUser;
let reporter: TestUser;
let project: { id: number; path_with_namespace: string };
let pipeline: { id: number; iid: number; sha: string };

beforeAll(async () => {
  [owner, reporter] = await Promise.all([createUser(t), createUser(t)]);
  project = await createProject(t, owner.token, { visibility: 'private' });
  await addMember(t, owner.token, 'projects', project.id, reporter.id, 20);
  const commit = await t.api('POST', `/projects/${project.id}/repository/commits`, {
    token: owner.token,
    body: { branch: 'main', commit_message: 'CI', actions: [{ action: 'create', file_path: '.gitlab-ci.yml', content: CI }] },
  });
  expect(commit.status, commit.text).toBe(201);
  // The push's pipeline first (a background job makes it), so the API's is the commit's newest, whatever the timing.
  await eventually(async () => (await t.server.database.prisma.pipeline.count({ where: { projectId: project.id } })) === 1);
  const created = await t.api('POST', `/projects/${project.id}/pipeline`, { token: owner.token, body: { ref: 'main' } });
  expect(created.status, created.text).toBe(201);
  pipeline = created.body;
  // Processing has made the first stage's jobs pending: nothing moves the jobs after it (no runner takes them).
  await eventually(async () => (await t.server.database.prisma.ciJob.count({ where: { pipelineId: pipeline.id, status: 'pending' } })) === 2);
});

const QUERY = `query($path: ID!, $iid: ID!) {
  project(fullPath: $path) {
    pipeline(iid: $iid) {
      active complete commitPath refPath usesNeeds
      commit { shortId }
      project { fullPath }
      sourceJob { id }
      warningMessages { id content }
      userPermissions { adminPipeline destroyPipeline updatePipeline }
      job(name: "unit") {
        name status kind active createdByTag scheduled schedulingType triggered failureMessage
        webPath playPath refPath commitPath browseArtifactsPath canPlayJob
        stage { name position status }
        needs { count nodes { id name } }
        previousStageJobsOrNeeds { nodes { __typename ... on CiBuildNeed { name } ... on CiJob { name } } }
        userPermissions { readBuild readJobArtifacts updateBuild }
      }
      stages { nodes { name groups { count nodes { id name size detailedStatus { group } jobs { nodes { name } } } } } }
      docs: job(name: "docs") { schedulingType previousStageJobsOrNeeds { count nodes { ... on CiJob { name stageName } } } }
      ship: job(name: "ship") { canPlayJob status detailedStatus { action { id title buttonTitle icon method path confirmationMessage } } }
      compile: job(name: "compile") { previousStageJobsOrNeeds { count } needs { count } }
      missing: job(name: "nothing") { id }
    }
  }
}`;

describe('GitLab fields of pipelines and jobs', () => {
  it('answers what gitlab.com answers for a pipeline and its jobs', async () => {
    const res = await t.graphql(QUERY, { path: project.path_with_namespace, iid: String(pipeline.iid) }, owner.token);
    expect(res.body.errors).toBeUndefined();
    const p = res.body.data.project.pipeline;
    const path = `/${project.path_with_namespace}`;
    expect(p).toMatchObject({
      active: true,
      complete: false,
      commitPath: `${path}/-/commit/${pipeline.sha}`,
      refPath: `${path}/-/commits/main`,
      usesNeeds: true,
      commit: { shortId: pipeline.sha.slice(0, 11) },
      project: { fullPath: project.path_with_namespace },
      sourceJob: null,
      userPermissions: { adminPipeline: true, destroyPipeline: true, updatePipeline: true },
      missing: null,
    });
    expect(p.stages.nodes.map((stage: { name: string; groups: { nodes: { name: string; size: number }[] } }) => [stage.name, stage.groups.nodes.map((g) => [g.name, g.size])])).toEqual([
      ['build', [['compile', 1], ['lint', 1]]],
      ['test', [['unit', 1], ['docs', 1]]],
      ['deploy', [['ship', 1]]],
    ]);
    expect(p.warningMessages).toHaveLength(1);
    expect(p.warningMessages[0].id).toMatch(/^gid:\/\/gitlab\/Ci::PipelineMessage\/\d+$/);
    expect(p.warningMessages[0].content).toBe(
      'jobs:lint may allow multiple pipelines to run for a single action due to `rules:when` clause with no `workflow:rules` - read more: https://docs.gitlab.com/ee/ci/troubleshooting.html#pipeline-warnings',
    );
    const unit = p.job;
    const jobPath = `${path}/-/jobs/${unit.webPath.split('/').pop()}`;
    expect(unit).toEqual({
      name: 'unit',
      status: 'CREATED',
      kind: 'BUILD',
      active: false,
      createdByTag: false,
      scheduled: false,
      schedulingType: 'dag',
      triggered: false,
      failureMessage: null,
      webPath: jobPath,
      playPath: `${jobPath}/play`,
      refPath: `${path}/-/commits/main`,
      commitPath: `${path}/-/commit/${pipeline.sha}`,
      browseArtifactsPath: `${jobPath}/artifacts/browse`,
      // Ci::BuildPolicy's play_job: the viewer's right, whatever the job's status.
      canPlayJob: true,
      // Positions count the .pre stage every pipeline has.
      stage: { name: 'test', position: 2, status: 'created' },
      needs: { count: 1, nodes: [{ id: expect.any(String), name: 'compile' }] },
      previousStageJobsOrNeeds: { nodes: [{ __typename: 'CiBuildNeed', name: 'compile' }] },
      userPermissions: { readBuild: true, readJobArtifacts: true, updateBuild: true },
    });
    expect(p.docs).toEqual({ schedulingType: 'stage', previousStageJobsOrNeeds: { count: 2, nodes: [{ name: 'compile', stageName: 'build' }, { name: 'lint', stageName: 'build' }] } });
    expect(p.compile).toEqual({ previousStageJobsOrNeeds: { count: 0 }, needs: { count: 0 } });
    // Created, not yet manual: its status offers to cancel it.
    expect(p.ship).toMatchObject({ canPlayJob: true, status: 'CREATED', detailedStatus: { action: { title: 'Cancel' } } });
  });

  it('gives a reporter read rights only, and a failed job its reason in GitLab words', async () => {
    const unit = await t.server.database.prisma.ciJob.findFirstOrThrow({ where: { pipelineId: pipeline.id, name: 'unit' } });
    await t.server.database.prisma.ciJob.update({ where: { id: unit.id }, data: { status: 'failed', failureReason: 'stuck_or_timeout_failure', finishedAt: new Date() } });
    const ship = await t.server.database.prisma.ciJob.findFirstOrThrow({ where: { pipelineId: pipeline.id, name: 'ship' } });
    await t.server.database.prisma.ciJob.update({ where: { id: ship.id }, data: { status: 'manual' } });
    const asReporter = await t.graphql(QUERY, { path: project.path_with_namespace, iid: String(pipeline.iid) }, reporter.token);
    expect(asReporter.body.errors).toBeUndefined();
    const p = asReporter.body.data.project.pipeline;
    expect(p.userPermissions).toEqual({ adminPipeline: false, destroyPipeline: false, updatePipeline: false });
    expect(p.job.userPermissions).toEqual({ readBuild: true, readJobArtifacts: true, updateBuild: false });
    expect([p.job.name, p.job.status, p.job.failureMessage]).toEqual(['unit', 'FAILED', 'There has been a timeout failure or the job got stuck. Check your timeout limits or try again']);
    expect(p.ship).toEqual({ canPlayJob: false, status: 'MANUAL', detailedStatus: { action: null } });
    const asOwner = await t.graphql(QUERY, { path: project.path_with_namespace, iid: String(pipeline.iid) }, owner.token);
    const path = `/${project.path_with_namespace}/-/jobs/${ship.id}/play`;
    expect(asOwner.body.data.project.pipeline.ship).toEqual({
      canPlayJob: true,
      status: 'MANUAL',
      detailedStatus: { action: { id: `Ci::Build-${ship.id}`, title: 'Run', buttonTitle: 'Run job', icon: 'play', method: 'post', path, confirmationMessage: 'Ship it?' } },
    });
  });

  it("reads a page of jobs' permissions and stages in as many statements for five jobs as for one", async () => {
    const JOBS = `query($path: ID!, $iid: ID!, $first: Int) {
      project(fullPath: $path) { pipeline(iid: $iid) { cancelable retryable stages { nodes { name } }
        jobs(first: $first) { nodes { name canPlayJob userPermissions { readBuild updateBuild } stage { name } previousStageJobsOrNeeds { count } } } } }
    }`;
    const count = async (first: number) => {
      statements = 0;
      counting = true;
      const res = await t.graphql(JOBS, { path: project.path_with_namespace, iid: String(pipeline.iid), first }, owner.token);
      counting = false;
      expect(res.body.errors).toBeUndefined();
      expect(res.body.data.project.pipeline.jobs.nodes).toHaveLength(first);
      return statements;
    };
    await count(1); // the token and memberships are remembered from the first request on
    const one = Math.min(await count(1), await count(1));
    const five = Math.min(await count(5), await count(5));
    expect(five).toBe(one);
  });

  it("shows a commit's author, titles and newest pipeline, on both surfaces, to those who may read pipelines", async () => {
    const COMMIT = `query($path: ID!, $iid: ID!) { project(fullPath: $path) { pipeline(iid: $iid) {
      commit { id sha title fullTitle author { username } lastPipeline { iid } status pipelines { count nodes { iid } } }
    } } }`;
    const res = await t.graphql(COMMIT, { path: project.path_with_namespace, iid: String(pipeline.iid) }, reporter.token);
    expect(res.body.errors).toBeUndefined();
    const commit = res.body.data.project.pipeline.commit;
    expect(commit).toMatchObject({ id: `gid://gitlab/Commit/${pipeline.sha}`, title: 'CI', fullTitle: 'CI', author: { username: owner.username }, lastPipeline: { iid: String(pipeline.iid) } });
    expect(commit.status).toBe(res.body.data.project.pipeline.commit.lastPipeline && (await t.api('GET', `/projects/${project.id}/pipelines/${pipeline.id}`, { token: owner.token })).body.status);
    // The push made one pipeline, the API another: newest first.
    expect(commit.pipelines.nodes[0]).toEqual({ iid: String(pipeline.iid) });
    expect(commit.pipelines.count).toBe(commit.pipelines.nodes.length);
    const rest = await t.api('GET', `/projects/${project.id}/repository/commits/${pipeline.sha}`, { token: reporter.token });
    expect(rest.status).toBe(200);
    expect(rest.body.last_pipeline).toMatchObject({ id: pipeline.id, iid: pipeline.iid, project_id: project.id, sha: pipeline.sha, ref: 'main', source: 'api' });
    expect(rest.body.status).toBe(rest.body.last_pipeline.status);

    // A title of 100 characters or more is cut at a word's end after 80, with `...`; the full title stays whole.
    const long = `${'word '.repeat(30).trim()} end`;
    const made = await t.api('POST', `/projects/${project.id}/repository/commits`, {
      token: owner.token,
      body: { branch: 'long', start_branch: 'main', commit_message: `${long}\n\nbody`, actions: [{ action: 'create', file_path: 'x.txt', content: 'x' }] },
    });
    expect(made.status, made.text).toBe(201);
    expect(made.body.title).toBe(`${'word '.repeat(15).trim()}...`);
    expect(made.body.message).toBe(`${long}\n\nbody`);

    // A public project whose pipelines are private: anyone reads the commit, only members its pipelines.
    const open = await createProject(t, owner.token, { visibility: 'public' });
    const sha = (await t.api('POST', `/projects/${open.id}/repository/commits`, { token: owner.token, body: { branch: 'main', commit_message: 'CI', actions: [{ action: 'create', file_path: '.gitlab-ci.yml', content: CI }] } })).body.id;
    expect((await t.api('POST', `/projects/${open.id}/pipeline`, { token: owner.token, body: { ref: 'main' } })).status).toBe(201);
    expect((await t.api('PUT', `/projects/${open.id}`, { token: owner.token, body: { builds_access_level: 'private' } })).status).toBe(200);
    const outsider = await t.api('GET', `/projects/${open.id}/repository/commits/${sha}`, { token: (await createUser(t)).token });
    expect(outsider.status).toBe(200);
    expect([outsider.body.status, outsider.body.last_pipeline]).toEqual([null, null]);
    expect((await t.api('GET', `/projects/${open.id}/repository/commits/${sha}`, { token: owner.token })).body.last_pipeline).not.toBeNull();
  });
});
