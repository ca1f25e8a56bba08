/**
 * CI job tokens: a running job's token authenticates as its user for that job (`JOB-TOKEN`, `job_token`, and
 * `gitlab-ci-token` for git), only where GitLab allows job tokens, only on the job's project, only while it runs.
 */
import { describe, expect, it } from 'vitest';
import { digestToken } from '../../src/auth/secrets.js';
import { suiteServer } from '../support/server.js';
import { createProject, createUser } from '../support/factories.js';
import { cloneUrl, gitSandbox } from '../support/git.js';

const t = suiteServer();
const git = gitSandbox();

async function projectWithPipeline(token: string) {
  const project = await createProject(t, token);
  const commit = await t.api('POST', `/projects/${project.id}/repository/commits`, {
    token,
    body: { branch: 'main', commit_message: 'CI', actions: [{ action: 'create', file_path: '.gitlab-ci.yml', content: 'build:\n  script: echo\n' }] },
  });
  expect(commit.status).toBe(201);
  const pipeline = await t.api('POST', `/projects/${project.id}/pipeline`, { token, body: { ref: 'main' } });
  expect(pipeline.status).toBe(201);
  const [job] = (await t.api('GET', `/projects/${project.id}/pipelines/${pipeline.body.id}/jobs`, { token })).body;
  return { project, pipeline: pipeline.body, job };
}

/** What a runner's request for the job would do to it: running, with a job token (the runner protocol's own module sets this). */
async function running(jobId: number): Promise<string> {
  const token = `glcbt-test-${jobId}-${Math.random().toString(36).slice(2)}`;
  await t.server.database.prisma.ciJob.update({ where: { id: jobId }, data: { status: 'running', startedAt: new Date(), tokenDigest: digestToken(token) } });
  return token;
}

describe('CI job tokens', () => {
  it("answers GET /job for the job's own token only", async () => {
    const owner = await createUser(t);
    const { job } = await projectWithPipeline(owner.token);
    const token = await running(job.id);
    const viaHeader = await t.api('GET', '/job', { token: null, headers: { 'JOB-TOKEN': token } });
    expect(viaHeader.status).toBe(200);
    expect(viaHeader.body).toMatchObject({ id: job.id, name: 'build', status: 'running', user: { username: owner.username } });
    expect((await t.api('GET', `/job?job_token=${token}`, { token: null })).body.id).toBe(job.id);
    expect(await t.api('GET', '/job', { token: owner.token })).toMatchObject({ status: 401, body: { message: '401 Unauthorized' } });
    expect((await t.api('GET', '/job', { token: null, headers: { 'JOB-TOKEN': 'glcbt-nonsense' } })).status).toBe(401);
  });

  it('is refused where GitLab does not take job tokens, and outside its project', async () => {
    const owner = await createUser(t);
    const mine = await projectWithPipeline(owner.token);
    const other = await projectWithPipeline(owner.token);
    const token = await running(mine.job.id);
    const headers = { 'JOB-TOKEN': token };
    expect(await t.api('GET', `/projects/${mine.project.id}`, { token: null, headers })).toMatchObject({ status: 401, body: { message: '401 Unauthorized' } });
    expect((await t.api('POST', '/groups', { token: null, headers, body: { name: 'x', path: 'x-job' } })).status).toBe(401);
    const renamed = await t.api('PUT', `/projects/${mine.project.id}/pipelines/${mine.pipeline.id}/metadata`, { token: null, headers, body: { name: 'by job' } });
    expect(renamed).toMatchObject({ status: 200, body: { name: 'by job' } });
    // The owner may rename the other project's pipeline, but not through this job's token.
    expect(
      await t.api('PUT', `/projects/${other.project.id}/pipelines/${other.pipeline.id}/metadata`, { token: null, headers, body: { name: 'elsewhere' } }),
    ).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
  });

  it('clones its own project with gitlab-ci-token and nothing else, and stops when the job ends', async () => {
    const owner = await createUser(t);
    const mine = await projectWithPipeline(owner.token);
    const other = await projectWithPipeline(owner.token);
    const token = await running(mine.job.id);
    const work = git.folder();
    await git.ok(work, ['clone', cloneUrl(t.url, mine.project.path_with_namespace, token, 'gitlab-ci-token'), 'mine']);
    const refused = await git.run(work, ['clone', cloneUrl(t.url, other.project.path_with_namespace, token, 'gitlab-ci-token'), 'other']);
    expect(refused.code).not.toBe(0);
    await t.server.database.prisma.ciJob.update({ where: { id: mine.job.id }, data: { status: 'success', finishedAt: new Date() } });
    expect((await t.api('GET', '/job', { token: null, headers: { 'JOB-TOKEN': token } })).status).toBe(401);
    const after = await git.run(work, ['clone', cloneUrl(t.url, mine.project.path_with_namespace, token, 'gitlab-ci-token'), 'again']);
    expect(after.code).not.toBe(0);
  });

  it("acts with its user's rights, never an administrator's", async () => {
    const owner = await createUser(t);
    const { project } = await projectWithPipeline(owner.token);
    // An administrator who is no member runs a pipeline there; their job's token carries no admin rights.
    const pipeline = await t.api('POST', `/projects/${project.id}/pipeline`, { body: { ref: 'main' } });
    const [job] = (await t.api('GET', `/projects/${project.id}/pipelines/${pipeline.body.id}/jobs`)).body;
    const token = await running(job.id);
    const headers = { 'JOB-TOKEN': token };
    expect((await t.api('GET', '/job', { token: null, headers })).body.user.username).toBe('root');
    expect((await t.api('PUT', `/projects/${project.id}/pipelines/${pipeline.body.id}/metadata`, { token: null, headers, body: { name: 'x' } })).status).toBe(404);
    expect((await t.api('PUT', `/projects/${project.id}/pipelines/${pipeline.body.id}/metadata`, { body: { name: 'x' } })).status).toBe(200);
  });
});
