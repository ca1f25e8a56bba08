/**
 * More of GitLab's GraphQL fields on CI types: an environment's folder (`environmentType`), a deployment's
 * permissions and tags, a schedule's edit and ref paths, and a test case's attachment and recent failures.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { suiteServer } from '../support/server.js';
import { addMember, createGroup, createUser, type TestUser } from '../support/factories.js';
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

describe('pipeline counts and the configuration path', () => {
  it("counts a project's pipelines by scope with GitLab's filters, for those who may read them", async () => {
    const other = await t.api('POST', `/projects/${project.id}/pipeline`, { token: owner.token, body: { ref: 'feature' } });
    expect(other.status, other.text).toBe(201);
    const prisma = t.server.database.prisma;
    const total = await prisma.pipeline.count({ where: { projectId: project.id } });
    const byStatus = async (status: string[], ref?: string) => prisma.pipeline.count({ where: { projectId: project.id, status: { in: status }, ...(ref ? { ref } : {}) } });
    const Q = `query($path: ID!, $ref: String, $source: String, $sha: String) {
      project(fullPath: $path) { ciConfigPathOrDefault pipelineCounts(ref: $ref, source: $source, sha: $sha) { all finished pending running } }
    }`;
    const all = (await gql(Q, { path: project.path_with_namespace }, reporter.token)).project;
    expect(all).toEqual({
      ciConfigPathOrDefault: '.gitlab-ci.yml',
      pipelineCounts: {
        all: total,
        finished: await byStatus(['success', 'failed', 'canceled', 'skipped']),
        pending: await byStatus(['pending']),
        running: await byStatus(['running']),
      },
    });
    expect(total).toBeGreaterThan(2);
    const feature = (await gql(Q, { path: project.path_with_namespace, ref: 'feature' }, reporter.token)).project.pipelineCounts;
    expect(feature.all).toBe(await prisma.pipeline.count({ where: { projectId: project.id, ref: 'feature' } }));
    expect(feature.pending).toBe(await byStatus(['pending'], 'feature'));
    const pushed = await prisma.pipeline.count({ where: { projectId: project.id, source: 'push' } });
    expect(pushed).toBeLessThan(total);
    expect((await gql(Q, { path: project.path_with_namespace, source: 'push' }, reporter.token)).project.pipelineCounts.all).toBe(pushed);
    // A source GitLab does not know filters nothing; a sha no pipeline has, everything.
    expect((await gql(Q, { path: project.path_with_namespace, source: 'bogus' }, reporter.token)).project.pipelineCounts.all).toBe(total);
    expect((await gql(Q, { path: project.path_with_namespace, sha: 'f'.repeat(40) }, reporter.token)).project.pipelineCounts).toEqual({ all: 0, finished: 0, pending: 0, running: 0 });
    // The configuration path the project names.
    expect((await t.api('PUT', `/projects/${project.id}`, { token: owner.token, body: { ci_config_path: 'ci/main.yml' } })).status).toBe(200);
    expect((await gql(Q, { path: project.path_with_namespace }, reporter.token)).project.ciConfigPathOrDefault).toBe('ci/main.yml');
  });

  it('answers null counts to whoever may not read the pipelines', async () => {
    const hidden = await t.api('PUT', `/projects/${project.id}`, { token: owner.token, body: { builds_access_level: 'private' } });
    expect(hidden.status, hidden.text).toBe(200);
    const outsider = await createUser(t);
    expect((await t.api('PUT', `/projects/${project.id}`, { token: owner.token, body: { visibility: 'public' } })).status).toBe(200);
    const Q = `query($path: ID!) { project(fullPath: $path) { pipelineCounts { all } } }`;
    expect((await gql(Q, { path: project.path_with_namespace }, outsider.token)).project.pipelineCounts).toBeNull();
    expect((await gql(Q, { path: project.path_with_namespace }, reporter.token)).project.pipelineCounts).not.toBeNull();
    expect((await t.api('PUT', `/projects/${project.id}`, { token: owner.token, body: { visibility: 'private', builds_access_level: 'enabled' } })).status).toBe(200);
  });
});

describe('inherited variables and environment scopes', () => {
  it("lists a project's group and ancestor variables to Maintainers, and a group's environment scopes to Owners", async () => {
    const top = await createGroup(t, owner.token);
    const sub = await createGroup(t, owner.token, { parentId: top.id });
    const inner = await t.api('POST', '/projects', { token: owner.token, body: { name: 'inner', namespace_id: sub.id } });
    expect(inner.status, inner.text).toBe(201);
    await addMember(t, owner.token, 'projects', inner.body.id, developer.id, 30);
    const make = async (groupId: number, key: string, environment_scope: string, extra: Record<string, unknown> = {}) => {
      const res = await t.api('POST', `/groups/${groupId}/variables`, { token: owner.token, body: { key, value: 'v', environment_scope, ...extra } });
      expect(res.status, res.text).toBe(201);
    };
    await make(top.id, 'TOP_B', '*', { protected: true });
    await make(sub.id, 'SUB_A', 'review/*', { masked: true, value: 'longenough' });
    await make(top.id, 'TOP_A', 'production', { raw: true });
    await make(top.id, 'TOP_A', 'review/*');
    const ids = await t.server.database.prisma.ciVariable.findMany({ where: { key: { in: ['TOP_B', 'SUB_A', 'TOP_A'] } }, orderBy: { id: 'asc' }, select: { id: true, key: true } });
    const Q = `query($path: ID!, $sort: CiGroupVariablesSort) {
      project(fullPath: $path) { inheritedCiVariables(sort: $sort) { count nodes { id key environmentScope groupName groupCiCdSettingsPath masked protected raw variableType } } }
    }`;
    const created = (await gql(Q, { path: inner.body.path_with_namespace }, owner.token)).project.inheritedCiVariables;
    expect(created.count).toBe(4);
    expect(created.nodes.map((n: { id: string }) => n.id)).toEqual(ids.map((v) => `gid://gitlab/Ci::GroupVariable/${v.id}`).reverse());
    expect(created.nodes[3]).toEqual({
      id: `gid://gitlab/Ci::GroupVariable/${ids[0].id}`,
      key: 'TOP_B',
      environmentScope: '*',
      groupName: top.name,
      groupCiCdSettingsPath: `/groups/${top.full_path}/-/settings/ci_cd`,
      masked: false,
      protected: true,
      raw: false,
      variableType: 'ENV_VAR',
    });
    expect(created.nodes[2]).toMatchObject({ key: 'SUB_A', groupName: sub.name, masked: true });
    const byKey = (await gql(Q, { path: inner.body.path_with_namespace, sort: 'KEY_ASC' }, owner.token)).project.inheritedCiVariables.nodes;
    expect(byKey.map((n: { key: string }) => n.key)).toEqual(['SUB_A', 'TOP_A', 'TOP_A', 'TOP_B']);
    expect((await gql(Q, { path: inner.body.path_with_namespace }, developer.token)).project.inheritedCiVariables).toBeNull();

    const S = `query($path: ID!, $name: String, $search: String) { group(fullPath: $path) { environmentScopes(name: $name, search: $search) { count nodes { name } } } }`;
    const scopes = async (variables: Record<string, unknown>, token = owner.token) => (await gql(S, { path: top.full_path, ...variables }, token)).group.environmentScopes;
    expect(await scopes({})).toEqual({ count: 3, nodes: [{ name: '*' }, { name: 'production' }, { name: 'review/*' }] });
    expect(await scopes({ name: 'production' })).toEqual({ count: 1, nodes: [{ name: 'production' }] });
    expect(await scopes({ search: 'view' })).toEqual({ count: 1, nodes: [{ name: 'review/*' }] });
    expect(await scopes({ search: 'VIEW' })).toEqual({ count: 0, nodes: [] });
    expect(await scopes({ search: '%' })).toEqual({ count: 0, nodes: [] });
    await addMember(t, owner.token, 'groups', top.id, developer.id, 40);
    expect(await scopes({}, developer.token)).toBeNull();
  });
});

describe('Project.ciConfigVariables', () => {
  it('lists the top-level variables of the configuration at a ref, includes merged, to those who may create pipelines', async () => {
    const config = [
      'include:',
      '  - local: extra.yml',
      'variables:',
      '  PLAIN: plain',
      '  NUM: 3',
      '  DEPLOY_TARGET:',
      '    value: staging',
      '    description: Where to deploy',
      '    options: [staging, production]',
      '  WITH_DESC:',
      '    description: Only described',
      'rspec:',
      '  script: echo rspec',
      '',
    ].join('\n');
    const res = await t.api('POST', `/projects/${project.id}/repository/commits`, {
      token: owner.token,
      body: {
        branch: 'vars',
        start_branch: 'main',
        commit_message: 'variables',
        actions: [
          { action: 'update', file_path: '.gitlab-ci.yml', content: config },
          { action: 'create', file_path: 'extra.yml', content: 'variables:\n  FROM_INCLUDE: included\n' },
        ],
      },
    });
    expect(res.status, res.text).toBe(201);
    expect((await t.api('PUT', `/projects/${project.id}`, { token: owner.token, body: { ci_config_path: '' } })).status).toBe(200);
    const Q = `query($path: ID!, $ref: String!) { project(fullPath: $path) { ciConfigVariables(ref: $ref) { key value description valueOptions } } }`;
    const found = (await gql(Q, { path: project.path_with_namespace, ref: 'vars' }, developer.token)).project.ciConfigVariables;
    expect([...found].sort((a: { key: string }, b: { key: string }) => a.key.localeCompare(b.key))).toEqual([
      { key: 'DEPLOY_TARGET', value: 'staging', description: 'Where to deploy', valueOptions: ['staging', 'production'] },
      { key: 'FROM_INCLUDE', value: 'included', description: null, valueOptions: null },
      { key: 'NUM', value: '3', description: null, valueOptions: null },
      { key: 'PLAIN', value: 'plain', description: null, valueOptions: null },
      { key: 'WITH_DESC', value: '', description: 'Only described', valueOptions: null },
    ]);
    // The default branch's configuration has none; an unknown ref none either; a reporter may not ask.
    expect((await gql(Q, { path: project.path_with_namespace, ref: 'main' }, developer.token)).project.ciConfigVariables).toEqual([]);
    expect((await gql(Q, { path: project.path_with_namespace, ref: 'nope' }, developer.token)).project.ciConfigVariables).toEqual([]);
    expect((await gql(Q, { path: project.path_with_namespace, ref: 'vars' }, reporter.token)).project.ciConfigVariables).toBeNull();
  });
});
