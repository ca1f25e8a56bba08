/**
 * More of GitLab's GraphQL fields on CI types: an environment's folder (`environmentType`), a deployment's
 * permissions and tags, a schedule's edit and ref paths, and a test case's attachment and recent failures.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { suiteServer } from '../support/server.js';
import { addMember, createUser, type TestUser } from '../support/factories.js';
import { projectWithConfig } from '../runners/support.js';

const t = suiteServer();

let owner: TestUser;
let developer: TestUser;
let reporter: TestUser;
let project: { id: number; path_with_namespace: string };
let sha: string;

const gql = async (query: string, variables: Record<string, unknown>, token: string) => {
  const res = await t.graphql(query, variables, token);
  expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
  return res.body.data;
};

beforeAll(async () => {
  [owner, developer, reporter] = await Promise.all([createUser(t), createUser(t), createUser(t)]);
  const made = await projectWithConfig(t, 'rspec:\n  script: echo rspec\n', { token: owner.token, visibility: 'private' });
  project = made.project;
  sha = made.sha;
  await addMember(t, owner.token, 'projects', project.id, developer.id, 30);
  await addMember(t, owner.token, 'projects', project.id, reporter.id, 20);
});

describe('environments and deployments', () => {
  const ENV = `query($path: ID!, $name: String) {
    project(fullPath: $path) {
      environment(name: $name) {
        name environmentType
        lastDeployment(status: SUCCESS) { tags { name path } userPermissions { approveDeployment destroyDeployment updateDeployment } }
      }
    }
  }`;

  it("names an environment's folder, and tells a deployment's tags and what the viewer may do with it", async () => {
    for (const environment of ['review/app-1', 'production']) {
      const res = await t.api('POST', `/projects/${project.id}/deployments`, { token: owner.token, body: { environment, sha, ref: 'main', tag: false, status: 'success' } });
      expect(res.status, res.text).toBe(201);
    }
    for (const tag of ['v1.0', 'v0.9']) expect((await t.api('POST', `/projects/${project.id}/repository/tags`, { token: owner.token, body: { tag_name: tag, ref: 'main' } })).status).toBe(201);
    const review = (await gql(ENV, { path: project.path_with_namespace, name: 'review/app-1' }, owner.token)).project.environment;
    expect(review).toEqual({
      name: 'review/app-1',
      environmentType: 'review',
      lastDeployment: {
        tags: [
          { name: 'v0.9', path: `/${project.path_with_namespace}/-/tags/v0.9` },
          { name: 'v1.0', path: `/${project.path_with_namespace}/-/tags/v1.0` },
        ],
        userPermissions: { approveDeployment: false, destroyDeployment: true, updateDeployment: true },
      },
    });
    const production = (await gql(ENV, { path: project.path_with_namespace, name: 'production' }, developer.token)).project.environment;
    expect(production).toMatchObject({ environmentType: null, lastDeployment: { userPermissions: { approveDeployment: false, destroyDeployment: false, updateDeployment: true } } });
    const asReporter = (await gql(ENV, { path: project.path_with_namespace, name: 'production' }, reporter.token)).project.environment;
    expect(asReporter.lastDeployment.userPermissions).toEqual({ approveDeployment: false, destroyDeployment: false, updateDeployment: false });
  });

  it("resolves tags for two deployments a request, as GitLab's field limit does", async () => {
    for (const status of ['success', 'failed']) {
      const res = await t.api('POST', `/projects/${project.id}/deployments`, { token: owner.token, body: { environment: 'production', sha, ref: 'main', tag: false, status } });
      expect(res.status).toBe(201);
    }
    const LIST = `query($path: ID!, $first: Int) { project(fullPath: $path) { environment(name: "production") { deployments(first: $first) { nodes { tags { name } } } } } }`;
    expect((await gql(LIST, { path: project.path_with_namespace, first: 2 }, owner.token)).project.environment.deployments.nodes).toHaveLength(2);
    const over = await t.graphql(LIST, { path: project.path_with_namespace, first: 3 }, owner.token);
    expect(over.body.errors?.[0].message).toBe('"tags" field can be requested only for 2 Deployment(s) at a time.');
  });
});

describe('pipeline schedules', () => {
  it('gives the ref path to readers and the edit path to those who may update the schedule', async () => {
    const made = await t.api('POST', `/projects/${project.id}/pipeline_schedules`, { token: owner.token, body: { description: 'nightly', ref: 'main', cron: '0 1 * * *' } });
    expect(made.status, made.text).toBe(201);
    const Q = `query($path: ID!) { project(fullPath: $path) { pipelineSchedules { nodes { editPath refPath } } } }`;
    const path = `/${project.path_with_namespace}`;
    expect((await gql(Q, { path: project.path_with_namespace }, owner.token)).project.pipelineSchedules.nodes).toEqual([
      { editPath: `${path}/-/pipeline_schedules/${made.body.id}/edit`, refPath: `${path}/-/commits/main` },
    ]);
    expect((await gql(Q, { path: project.path_with_namespace }, developer.token)).project.pipelineSchedules.nodes).toEqual([{ editPath: null, refPath: `${path}/-/commits/main` }]);
  });
});

describe('test cases', () => {
  /** A pipeline of `ref` whose rspec job finished `daysAgo` with a JUnit report of these cases. */
  async function reported(ref: string, daysAgo: number, cases: { name: string; status: string; system_output?: string }[]) {
    const prisma = t.server.database.prisma;
    const created = await t.api('POST', `/projects/${project.id}/pipeline`, { token: owner.token, body: { ref } });
    expect(created.status, created.text).toBe(201);
    const job = await prisma.ciJob.findFirstOrThrow({ where: { pipelineId: created.body.id, name: 'rspec' } });
    await prisma.ciJob.update({ where: { id: job.id }, data: { finishedAt: new Date(Date.now() - daysAgo * 86_400_000) } });
    const report = {
      suites: [{ name: 'rspec', error: null, cases: cases.map((c) => ({ classname: 'Spec', execution_time: 1, system_output: null, stack_trace: null, ...c })) }],
    };
    await prisma.ciJobArtifact.create({ data: { jobId: job.id, projectId: project.id, fileType: 'junit', fileFormat: 'gzip', fileName: 'junit.xml.gz', size: 1, fileSha256: 'x', path: 'none', report } });
    return { pipeline: created.body as { iid: number }, job: job.id };
  }

  it("shows a failed case's attachment and how often it failed on the default branch in the last 14 days", async () => {
    expect((await t.api('POST', `/projects/${project.id}/repository/branches`, { token: owner.token, body: { branch: 'feature', ref: 'main' } })).status).toBe(201);
    await reported('main', 1, [{ name: 'a', status: 'failed' }, { name: 'b', status: 'success' }]);
    await reported('main', 20, [{ name: 'a', status: 'failed' }]);
    await reported('feature', 1, [{ name: 'a', status: 'failed' }, { name: 'b', status: 'failed' }]);
    const current = await reported('main', 0, [
      { name: 'a', status: 'failed', system_output: 'expected true\n\nSystem Out:\n\n[[ATTACHMENT|shots/a.png]]' },
      { name: 'b', status: 'failed' },
      { name: 'c', status: 'success', system_output: '[[ATTACHMENT|shots/c.png]]' },
    ]);
    const Q = `query($path: ID!, $iid: ID!, $ids: [ID!]!) {
      project(fullPath: $path) { pipeline(iid: $iid) { testSuite(buildIds: $ids) { testCases { nodes { name attachmentUrl recentFailures { count baseBranch } } } } } }
    }`;
    const nodes = (await gql(Q, { path: project.path_with_namespace, iid: String(current.pipeline.iid), ids: [String(current.job)] }, reporter.token)).project.pipeline.testSuite.testCases.nodes;
    expect(nodes).toEqual([
      { name: 'a', attachmentUrl: `/${project.path_with_namespace}/-/jobs/${current.job}/artifacts/file/shots/a.png`, recentFailures: { count: 2, baseBranch: 'main' } },
      { name: 'b', attachmentUrl: null, recentFailures: { count: 1, baseBranch: 'main' } },
      { name: 'c', attachmentUrl: null, recentFailures: null },
    ]);
  });
});
