/**
 * CI job tokens: a running job's token authenticates as its user for that job (`JOB-TOKEN`, `job_token`, and
 * `gitlab-ci-token` for git), only where GitLab allows job tokens, only on the job's project, only while it runs.
 */
import { describe, expect, it } from 'vitest';
import { suiteServer } from '../support/server.js';
import { createUser } from '../support/factories.js';
import { cloneUrl, gitSandbox } from '../support/git.js';
import { projectWithPipeline, running } from './support.js';

const t = suiteServer();
const git = gitSandbox();

describe('CI job tokens', () => {
  it("answers GET /job for the job's own token only", async () => {
    const owner = await createUser(t);
    const { job } = await projectWithPipeline(t, owner.token);
    const token = await running(t, job.id);
    const viaHeader = await t.api('GET', '/job', { token: null, headers: { 'JOB-TOKEN': token } });
    expect(viaHeader.status).toBe(200);
    expect(viaHeader.body).toMatchObject({ id: job.id, name: 'build', status: 'running', user: { username: owner.username } });
    expect((await t.api('GET', `/job?job_token=${token}`, { token: null })).body.id).toBe(job.id);
    expect(await t.api('GET', '/job', { token: owner.token })).toMatchObject({ status: 401, body: { message: '401 Unauthorized' } });
    expect((await t.api('GET', '/job', { token: null, headers: { 'JOB-TOKEN': 'glcbt-nonsense' } })).status).toBe(401);
  });

  it('is refused where GitLab does not take job tokens, and outside its project', async () => {
    const owner = await createUser(t);
    const mine = await projectWithPipeline(t, owner.token);
    const other = await projectWithPipeline(t, owner.token);
    const token = await running(t, mine.job.id);
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

  it("reads pipelines and jobs where GitLab marks the route job_token_allowed, on its own project and the allowlists' only", async () => {
    const owner = await createUser(t);
    const mine = await projectWithPipeline(t, owner.token);
    const other = await projectWithPipeline(t, owner.token);
    const token = await running(t, mine.job.id);
    const get = (path: string) => t.api('GET', path, { token: null, headers: { 'JOB-TOKEN': token } });
    const own = `/projects/${mine.project.id}`;
    expect((await get(`${own}/pipelines`)).body.map((p: { id: number }) => p.id)).toContain(mine.pipeline.id);
    expect((await get(`${own}/pipelines/${mine.pipeline.id}`)).body).toMatchObject({ id: mine.pipeline.id, project_id: mine.project.id });
    expect((await get(`${own}/pipelines/${mine.pipeline.id}/jobs`)).body.map((j: { id: number }) => j.id)).toEqual([mine.job.id]);
    expect((await get(`${own}/pipelines/${mine.pipeline.id}/bridges`)).body).toEqual([]);
    expect((await get(`${own}/jobs`)).body.map((j: { id: number }) => j.id)).toContain(mine.job.id);
    // job_token_allowed only: the same token is no authentication on routes GitLab does not mark.
    for (const path of [`${own}/pipelines/${mine.pipeline.id}/variables`, `${own}/jobs/${mine.job.id}`, `${own}/pipelines/latest`]) {
      expect(await get(path), path).toMatchObject({ status: 401, body: { message: '401 Unauthorized' } });
    }
    // Another project of the same owner, whose allowlist does not name this one: not found; once it does, readable.
    const elsewhere = `/projects/${other.project.id}/pipelines/${other.pipeline.id}/jobs`;
    expect(await get(elsewhere)).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
    const added = await t.api('POST', `/projects/${other.project.id}/job_token_scope/allowlist`, { token: owner.token, body: { target_project_id: mine.project.id } });
    expect(added.status, added.text).toBe(201);
    expect((await get(elsewhere)).body.map((j: { id: number }) => j.id)).toEqual([other.job.id]);
  });

  it('clones its own project with gitlab-ci-token and nothing else, and stops when the job ends', async () => {
    const owner = await createUser(t);
    const mine = await projectWithPipeline(t, owner.token);
    const other = await projectWithPipeline(t, owner.token);
    const token = await running(t, mine.job.id);
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
    const { project } = await projectWithPipeline(t, owner.token);
    // An administrator who is no member runs a pipeline there (on a branch that is not protected: a protected one is
    // its members'); their job's token carries no admin rights.
    await t.api('POST', `/projects/${project.id}/repository/branches`, { token: owner.token, body: { branch: 'feature', ref: 'main' } });
    const pipeline = await t.api('POST', `/projects/${project.id}/pipeline`, { body: { ref: 'feature' } });
    const [job] = (await t.api('GET', `/projects/${project.id}/pipelines/${pipeline.body.id}/jobs`)).body;
    const token = await running(t, job.id);
    const headers = { 'JOB-TOKEN': token };
    expect((await t.api('GET', '/job', { token: null, headers })).body.user.username).toBe('root');
    expect((await t.api('PUT', `/projects/${project.id}/pipelines/${pipeline.body.id}/metadata`, { token: null, headers, body: { name: 'x' } })).status).toBe(404);
    expect((await t.api('PUT', `/projects/${project.id}/pipelines/${pipeline.body.id}/metadata`, { body: { name: 'x' } })).status).toBe(200);
  });
});
