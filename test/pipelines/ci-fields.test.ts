/**
 * GitLab's GraphQL fields of jobs, stages and runners that dashboards read: a job's `stuck` and `manualVariables`,
 * stage IDs and `Query.ciPipelineStage`, `Query.jobs`, an artifact's `downloadPath`, a manual bridge's status action,
 * and a runner's counts, owner, creator, admin URLs, maintenance note HTML and the viewer's permissions.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { EXTERNAL_URL, suiteServer } from '../support/server.js';
import { addMember, createProject, createUser, type TestUser } from '../support/factories.js';
import { commit, createRunner, eventually, pushPipeline, requestJob, runnerCall, RUNNER_INFO } from '../runners/support.js';

let counting = false;
let statements = 0;
const t = suiteServer({}, { onQuery: () => counting && statements++ });

const CI = [
  'stages: [build, deploy]',
  'compile:',
  '  stage: build',
  '  tags: [linux]',
  '  script: echo compile',
  'ship:',
  '  stage: build',
  '  when: manual',
  '  script: echo ship',
  'child:',
  '  stage: build',
  '  when: manual',
  '  trigger:',
  '    include: child.yml',
  'release:',
  '  stage: deploy',
  '  script: echo release',
  '',
].join('\n');
const CHILD = 'inner:\n  script: echo inner\n';

let owner: TestUser;
let developer: TestUser;
let reporter: TestUser;
let outsider: TestUser;
let project: { id: number; path_with_namespace: string };
let pipeline: { id: number };
let jobs: Record<string, number>;

const gql = async (query: string, variables: Record<string, unknown>, token: string | null) => {
  const res = await t.graphql(query, variables, token as string);
  expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
  return res.body.data;
};

beforeAll(async () => {
  [owner, developer, reporter, outsider] = await Promise.all([createUser(t), createUser(t), createUser(t), createUser(t)]);
  project = await createProject(t, owner.token, { visibility: 'public' });
  await addMember(t, owner.token, 'projects', project.id, developer.id, 30);
  await addMember(t, owner.token, 'projects', project.id, reporter.id, 20);
  const sha = await commit(t, project.id, { '.gitlab-ci.yml': CI, 'child.yml': CHILD }, 'main', owner.token);
  pipeline = await pushPipeline(t, project.id, sha, owner.token);
  await eventually(async () => (await t.server.database.prisma.ciJob.count({ where: { pipelineId: pipeline.id, status: 'pending' } })) === 1);
  const rows = await t.server.database.prisma.ciJob.findMany({ where: { pipelineId: pipeline.id }, select: { id: true, name: true } });
  jobs = Object.fromEntries(rows.map((r) => [r.name, r.id]));
});

/** The statements a page of `first` costs an administrator (the page must be full). */
async function statementsFor(query: string, first: number, nodesOf: (data: any) => unknown[]): Promise<number> {
  statements = 0;
  counting = true;
  const data = await gql(query, { first }, t.rootToken);
  counting = false;
  expect(nodesOf(data)).toHaveLength(first);
  return statements;
}

const JOB = `query($path: ID!, $id: JobID!) {
  project(fullPath: $path) { job(id: $id) { name status stuck manualVariables { nodes { id key value raw variableType } } } }
}`;
const job = async (name: string, token: string | null = owner.token) =>
  (await gql(JOB, { path: project.path_with_namespace, id: `gid://gitlab/Ci::Build/${jobs[name]}` }, token)).project.job;

describe('CiJob.stuck', () => {
  it('is true for a pending job no online runner can pick, false once one can, and false for jobs not pending', async () => {
    expect(await job('compile')).toMatchObject({ status: 'PENDING', stuck: true });
    expect(await job('ship')).toMatchObject({ status: 'MANUAL', stuck: false });
    // An online runner of the project without the job's tag cannot pick it; a paused one with the tag neither.
    const other = await createRunner(t, { project_id: project.id, tag_list: 'windows', run_untagged: false });
    expect((await runnerCall(t, 'POST', '/runners/verify', { token: other.token, info: RUNNER_INFO })).status).toBe(200);
    const paused = await createRunner(t, { project_id: project.id, tag_list: 'linux', paused: true });
    expect((await runnerCall(t, 'POST', '/runners/verify', { token: paused.token, info: RUNNER_INFO })).status).toBe(200);
    expect((await job('compile')).stuck).toBe(true);
    // A runner that never called is not online.
    const linux = await createRunner(t, { project_id: project.id, tag_list: 'linux' });
    expect((await job('compile')).stuck).toBe(true);
    expect((await runnerCall(t, 'POST', '/runners/verify', { token: linux.token, info: RUNNER_INFO })).status).toBe(200);
    expect((await job('compile', outsider.token)).stuck).toBe(false);
    // A ref_protected runner picks jobs of protected refs only: main is protected (the default branch).
    await t.server.database.prisma.runner.update({ where: { id: linux.id }, data: { accessLevel: 'ref_protected' } });
    expect((await job('compile')).stuck).toBe(false);
    await t.server.database.prisma.runner.update({ where: { id: linux.id }, data: { accessLevel: 'not_protected' } });
  });
});

describe('CiJob.manualVariables', () => {
  it('lists the variables a manual job was played with, with stable IDs, to those GitLab lets read them; the runner gets them', async () => {
    expect((await job('ship')).manualVariables).toEqual({ nodes: [] });
    const played = await gql(
      `mutation($id: CiBuildID!) { jobPlay(input: { id: $id, variables: [{ key: "TARGET", value: "eu" }, { key: "MODE", value: "fast" }] }) { errors job { status } } }`,
      { id: `gid://gitlab/Ci::Build/${jobs.ship}` },
      owner.token,
    );
    expect(played.jobPlay).toEqual({ errors: [], job: { status: 'PENDING' } });
    const first = await job('ship', developer.token);
    expect(first.manualVariables.nodes.map((v: { key: string; value: string; raw: boolean; variableType: string }) => [v.key, v.value, v.raw, v.variableType])).toEqual([
      ['TARGET', 'eu', false, 'ENV_VAR'],
      ['MODE', 'fast', false, 'ENV_VAR'],
    ]);
    for (const v of first.manualVariables.nodes) expect(v.id).toMatch(/^gid:\/\/gitlab\/Ci::JobVariable\/\d+$/);
    expect((await job('ship', owner.token)).manualVariables).toEqual(first.manualVariables);
    // Ci::BuildPolicy#read_manual_variables: in a public project, Developers only.
    expect((await job('ship', reporter.token)).manualVariables).toBeNull();
    expect((await job('ship', outsider.token)).manualVariables).toBeNull();
    expect((await job('ship', null as unknown as string)).manualVariables).toBeNull();
    // A job that is not manual has none.
    expect((await job('compile')).manualVariables).toEqual({ nodes: [] });
    // The runner gets them with the job's variables.
    const runner = await createRunner(t, { project_id: project.id, tag_list: 'other', run_untagged: true });
    const taken = await requestJob(t, runner.token);
    expect(taken.job_info.name).toBe('ship');
    const variables = Object.fromEntries((taken.variables as { key: string; value: string }[]).map((v) => [v.key, v.value]));
    expect(variables).toMatchObject({ TARGET: 'eu', MODE: 'fast' });
  });
});

const STAGES = `query($path: ID!, $iid: ID!) { project(fullPath: $path) { pipeline(iid: $iid) { stages { nodes { id name } } job(name: "compile") { stage { id name } } } } }`;
const STAGE = `query($id: CiStageID!) { ciPipelineStage(id: $id) { id name status jobs { nodes { name } } } }`;

describe('CiStage.id and Query.ciPipelineStage', () => {
  it("gives each stage GitLab's Ci::Stage global ID and finds a stage by it for those who may read the jobs", async () => {
    const iid = String((await t.server.database.prisma.pipeline.findUniqueOrThrow({ where: { id: pipeline.id } })).iid);
    const data = (await gql(STAGES, { path: project.path_with_namespace, iid }, owner.token)).project.pipeline;
    const [build, deploy] = data.stages.nodes;
    expect(build.id).toMatch(/^gid:\/\/gitlab\/Ci::Stage\/\d+$/);
    expect(deploy.id).not.toBe(build.id);
    expect(data.job.stage).toEqual(build);
    const found = (await gql(STAGE, { id: deploy.id }, outsider.token)).ciPipelineStage;
    expect(found).toEqual({ id: deploy.id, name: 'deploy', status: 'created', jobs: { nodes: [{ name: 'release' }] } });
    expect((await gql(STAGE, { id: 'gid://gitlab/Ci::Stage/999999' }, owner.token)).ciPipelineStage).toBeNull();
    const wrong = await t.graphql(STAGE, { id: `gid://gitlab/Ci::Pipeline/${pipeline.id}` }, owner.token);
    expect(wrong.body.errors?.[0].message).toContain('does not represent an instance of Ci::Stage');
  });

  it('answers null to whoever may not read the project\'s jobs, and keeps a stage\'s ID for a commit status\'s new stage', async () => {
    const hidden = await createProject(t, owner.token, { visibility: 'private' });
    const sha = await commit(t, hidden.id, { '.gitlab-ci.yml': 'only:\n  script: echo\n' }, 'main', owner.token);
    const p = await pushPipeline(t, hidden.id, sha, owner.token);
    const status = await t.api('POST', `/projects/${hidden.id}/statuses/${sha}`, { token: owner.token, body: { state: 'running', name: 'external', pipeline_id: p.id } });
    expect(status.status, status.text).toBe(201);
    const stages = await t.server.database.prisma.ciStage.findMany({ where: { pipelineId: p.id }, orderBy: { position: 'asc' } });
    expect(stages.map((s) => s.name)).toEqual(['test', 'external']);
    const id = `gid://gitlab/Ci::Stage/${stages[1].id}`;
    expect((await gql(STAGE, { id }, owner.token)).ciPipelineStage).toMatchObject({ id, name: 'external', jobs: { nodes: [{ name: 'external' }] } });
    expect((await gql(STAGE, { id }, outsider.token)).ciPipelineStage).toBeNull();
    expect((await gql(STAGE, { id }, null as unknown as string)).ciPipelineStage).toBeNull();
  });
});

const ALL_JOBS = `query($statuses: [CiJobStatus!], $first: Int) {
  jobs(statuses: $statuses, first: $first) { count nodes { id name status stuck stage { id } manualVariables { nodes { key } } pipeline { id } } }
}`;

describe('Query.jobs', () => {
  it("lists every build of the instance, newest first, to administrators, filtered by status (GitLab's Ci::JobsFinder)", async () => {
    const all = (await gql(ALL_JOBS, {}, t.rootToken)).jobs;
    const count = await t.server.database.prisma.ciJob.count({ where: { type: 'build' } });
    expect(all.count).toBe(count);
    const ids = all.nodes.map((n: { id: string }) => Number(n.id.split('/').pop()));
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    expect(all.nodes.some((n: { name: string }) => n.name === 'child')).toBe(false);
    const created = (await gql(ALL_JOBS, { statuses: ['CREATED'] }, t.rootToken)).jobs;
    expect(created.count).toBe(await t.server.database.prisma.ciJob.count({ where: { type: 'build', status: 'created' } }));
    expect(created.nodes.every((n: { status: string }) => n.status === 'CREATED')).toBe(true);
  });

  it('is empty for anyone else', async () => {
    expect((await gql(ALL_JOBS, {}, owner.token)).jobs).toEqual({ count: 0, nodes: [] });
  });

  it('reads a page of jobs, with stuck, stage IDs and manual variables, in as many statements for three jobs as for four', async () => {
    const measure = (first: number) => statementsFor(ALL_JOBS, first, (data) => data.jobs.nodes);
    await measure(4);
    // The newest three (two projects, two pipelines) include the manual job, whose variables are read: a fourth
    // job costs nothing more.
    expect(await measure(4)).toBe(await measure(3));
  });
});

describe('CiJobArtifact.downloadPath', () => {
  it("is the artifact's download path with its file type", async () => {
    const prisma = t.server.database.prisma;
    await prisma.ciJobArtifact.create({
      data: { jobId: jobs.compile, projectId: project.id, fileType: 'junit', fileFormat: 'gzip', fileName: 'junit.xml.gz', size: 10, fileSha256: 'x', path: 'none' },
    });
    const data = await gql(
      `query($path: ID!, $id: JobID!) { project(fullPath: $path) { job(id: $id) { artifacts { nodes { fileType downloadPath } } } } }`,
      { path: project.path_with_namespace, id: `gid://gitlab/Ci::Build/${jobs.compile}` },
      outsider.token,
    );
    expect(data.project.job.artifacts.nodes).toEqual([{ fileType: 'JUNIT', downloadPath: `/${project.path_with_namespace}/-/jobs/${jobs.compile}/artifacts/download?file_type=junit` }]);
  });
});

describe("a manual bridge's detailed status", () => {
  const BRIDGE = `query($path: ID!, $iid: ID!) { project(fullPath: $path) { pipeline(iid: $iid) { job(name: "child") { kind status detailedStatus { action { id title buttonTitle icon method path } } } } } }`;
  it("offers GitLab's Play action to whoever may play it", async () => {
    const iid = String((await t.server.database.prisma.pipeline.findUniqueOrThrow({ where: { id: pipeline.id } })).iid);
    const asOwner = (await gql(BRIDGE, { path: project.path_with_namespace, iid }, owner.token)).project.pipeline.job;
    expect(asOwner).toEqual({
      kind: 'BRIDGE',
      status: 'MANUAL',
      detailedStatus: { action: { id: `Ci::Bridge-${jobs.child}`, title: 'Run', buttonTitle: 'Run job', icon: 'play', method: 'post', path: `/${project.path_with_namespace}/-/jobs/${jobs.child}/play` } },
    });
    expect((await gql(BRIDGE, { path: project.path_with_namespace, iid }, reporter.token)).project.pipeline.job.detailedStatus.action).toBeNull();
  });
});

const RUNNER = `query($id: CiRunnerID!) {
  runner(id: $id) {
    jobCount running: jobCount(statuses: [RUNNING]) done: jobCount(statuses: [SUCCESS])
    projectCount ownerProject { fullPath } createdBy { username }
    adminUrl editAdminUrl registerAdminUrl maintenanceNoteHtml
    userPermissions { readRunner updateRunner deleteRunner assignRunner }
  }
}`;

describe('CiRunner fields', () => {
  let runner: { id: number; token: string };
  beforeAll(async () => {
    const res = await t.api('POST', '/user/runners', { token: owner.token, body: { runner_type: 'project_type', project_id: project.id, tag_list: 'linux', maintenance_note: 'Ask @' + owner.username } });
    expect(res.status, res.text).toBe(201);
    runner = res.body;
  });

  it('tells its owner its counts, owner project, creator and permissions, and no admin URL', async () => {
    const gid = `gid://gitlab/Ci::Runner/${runner.id}`;
    const before = (await gql(RUNNER, { id: gid }, owner.token)).runner;
    expect(before).toEqual({
      jobCount: 0,
      running: 0,
      done: 0,
      projectCount: 1,
      ownerProject: { fullPath: project.path_with_namespace },
      createdBy: { username: owner.username },
      adminUrl: null,
      editAdminUrl: null,
      registerAdminUrl: null,
      maintenanceNoteHtml: expect.stringContaining(`href="${EXTERNAL_URL}/${owner.username}"`),
      userPermissions: { readRunner: true, updateRunner: true, deleteRunner: true, assignRunner: true },
    });
    // Enabled for a second project: two projects, the first still the owner.
    const second = await createProject(t, owner.token);
    await t.server.database.prisma.runnerProject.create({ data: { runnerId: runner.id, projectId: second.id } });
    expect((await gql(RUNNER, { id: gid }, owner.token)).runner).toMatchObject({ projectCount: 2, ownerProject: { fullPath: project.path_with_namespace } });
    // It takes the pending job it can: counted, running.
    const taken = await requestJob(t, runner.token);
    expect(taken.job_info.name).toBe('compile');
    expect((await gql(RUNNER, { id: gid }, owner.token)).runner).toMatchObject({ jobCount: 1, running: 1, done: 0 });
  });

  it('gives administrators its admin URLs, the registration page only for a new runner that never called', async () => {
    const gid = `gid://gitlab/Ci::Runner/${runner.id}`;
    expect((await gql(RUNNER, { id: gid }, t.rootToken)).runner).toMatchObject({
      adminUrl: `${EXTERNAL_URL}/admin/runners/${runner.id}`,
      editAdminUrl: `${EXTERNAL_URL}/admin/runners/${runner.id}/edit`,
      registerAdminUrl: null,
      userPermissions: { readRunner: true, updateRunner: true, deleteRunner: true, assignRunner: true },
    });
    const fresh = await t.api('POST', '/user/runners', { body: { runner_type: 'instance_type' } });
    const freshGid = `gid://gitlab/Ci::Runner/${fresh.body.id}`;
    expect((await gql(RUNNER, { id: freshGid }, t.rootToken)).runner).toMatchObject({
      registerAdminUrl: `${EXTERNAL_URL}/admin/runners/${fresh.body.id}/register`,
      projectCount: null,
      ownerProject: null,
      maintenanceNoteHtml: null,
    });
    // Another user sees an instance runner, with none of its writes and no admin URL.
    expect((await gql(RUNNER, { id: freshGid }, developer.token)).runner).toMatchObject({
      adminUrl: null,
      registerAdminUrl: null,
      userPermissions: { readRunner: true, updateRunner: false, deleteRunner: false, assignRunner: false },
    });
  });

  it('hides the owner project from whoever may not read it, and the note from whoever may not update the runner', async () => {
    const hidden = await createProject(t, developer.token, { visibility: 'private' });
    const res = await t.api('POST', '/user/runners', { token: developer.token, body: { runner_type: 'project_type', project_id: hidden.id, maintenance_note: 'secret' } });
    const gid = `gid://gitlab/Ci::Runner/${res.body.id}`;
    expect((await gql(RUNNER, { id: gid }, developer.token)).runner).toMatchObject({ ownerProject: { fullPath: hidden.path_with_namespace }, maintenanceNoteHtml: expect.stringContaining('secret') });
    await t.server.database.prisma.runnerProject.create({ data: { runnerId: res.body.id, projectId: project.id } });
    // The owner of the second project sees the runner (they maintain a project it serves), not the first project.
    expect((await gql(RUNNER, { id: gid }, owner.token)).runner).toMatchObject({ ownerProject: null, projectCount: 2 });
  });

  it('reads a page of runners with their counts, owners and permissions in as many statements for one as for four', async () => {
    const LIST = `query($first: Int) { runners(first: $first) { nodes { id jobCount projectCount ownerProject { id } createdBy { id } userPermissions { updateRunner } adminUrl } } }`;
    const measure = (first: number) => statementsFor(LIST, first, (data) => data.runners.nodes);
    await measure(4);
    expect(await measure(4)).toBe(await measure(1));
  });

  it("gives administrators the queued durations' percentiles of the runners' newest jobs, and no one else", async () => {
    const jobs = await t.server.database.prisma.ciJob.findMany({ where: { runnerId: { not: null }, startedAt: { not: null } }, orderBy: { id: 'desc' }, take: 100 });
    const durations = jobs.map((j) => ((j.startedAt as Date).getTime() - (j.queuedAt as Date).getTime()) / 1000).sort((a, b) => a - b);
    expect(durations.length).toBeGreaterThan(1);
    // PostgreSQL's percentile_cont: linear interpolation between the closest ranks.
    const cont = (p: number) => {
      const at = p * (durations.length - 1);
      const low = Math.floor(at);
      return durations[low] + (durations[Math.min(low + 1, durations.length - 1)] - durations[low]) * (at - low);
    };
    const Q = `{ runners { jobsStatistics { queuedDuration { p50 p75 p90 p95 p99 } } } }`;
    const stats = (await gql(Q, {}, t.rootToken)).runners.jobsStatistics.queuedDuration;
    for (const [key, p] of [['p50', 0.5], ['p75', 0.75], ['p90', 0.9], ['p95', 0.95], ['p99', 0.99]] as const) expect(stats[key]).toBeCloseTo(cont(p), 2);
    const P = `query($path: ID!) { project(fullPath: $path) { runners { count jobsStatistics { queuedDuration { p50 } } } } }`;
    const asOwner = (await gql(P, { path: project.path_with_namespace }, owner.token)).project.runners;
    expect(asOwner.count).toBeGreaterThan(0);
    expect(asOwner.jobsStatistics).toBeNull();
    // Runners that ran nothing: no percentiles.
    const none = (await gql(`{ runners(type: INSTANCE_TYPE) { jobsStatistics { queuedDuration { p50 } } } }`, {}, t.rootToken)).runners.jobsStatistics;
    expect(none).toEqual({ queuedDuration: { p50: null } });
  });
});

describe('jobUnschedule', () => {
  it('turns a delayed job into a manual one, leaves other jobs as they are, and refuses those who may not update it', async () => {
    const delayed = await createProject(t, owner.token);
    await addMember(t, owner.token, 'projects', delayed.id, reporter.id, 20);
    const sha = await commit(t, delayed.id, { '.gitlab-ci.yml': 'later:\n  when: delayed\n  start_in: 1 day\n  script: echo later\n' }, 'main', owner.token);
    const made = await pushPipeline(t, delayed.id, sha, owner.token);
    await eventually(async () => (await t.server.database.prisma.ciJob.count({ where: { pipelineId: made.id, status: 'scheduled' } })) === 1);
    const later = await t.server.database.prisma.ciJob.findFirstOrThrow({ where: { pipelineId: made.id, name: 'later' } });
    const UNSCHEDULE = `mutation($id: CiBuildID!) { jobUnschedule(input: { id: $id, clientMutationId: "u1" }) { clientMutationId errors job { status scheduledAt scheduled playable } } }`;
    const id = `gid://gitlab/Ci::Build/${later.id}`;
    const refused = await t.graphql(UNSCHEDULE, { id }, reporter.token);
    expect(refused.body.data.jobUnschedule).toBeNull();
    expect(refused.body.errors?.[0].message).toBe("The resource that you are attempting to access does not exist or you don't have permission to perform this action");
    expect((await gql(UNSCHEDULE, { id }, owner.token)).jobUnschedule).toEqual({
      clientMutationId: 'u1',
      errors: [],
      job: { status: 'MANUAL', scheduledAt: null, scheduled: false, playable: true },
    });
    const row = await t.server.database.prisma.ciJob.findUniqueOrThrow({ where: { id: later.id } });
    expect([row.status, row.scheduledAt]).toEqual(['manual', null]);
    expect((await t.api('GET', `/projects/${delayed.id}/pipelines/${made.id}`, { token: owner.token })).body.status).toBe('manual');
    // A job that is not delayed is answered as it is.
    expect((await gql(UNSCHEDULE, { id }, owner.token)).jobUnschedule.job.status).toBe('MANUAL');
  });
});
