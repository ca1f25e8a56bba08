/**
 * GitLab's global-ID scalars (`CiPipelineID`, `CiRunnerID`, `JobID`, …): queries and mutations copied from GitLab's
 * docs run unchanged; a variable declared `ID` stands where one is expected, as GitLab lets it; what is no global ID
 * of the model is refused in GitLab's words; REST still names records by their numeric ids.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { createProject, createUser, type TestUser } from '../support/factories.js';
import { suiteServer } from '../support/server.js';

const t = suiteServer();

describe('global-ID scalars', () => {
  let owner: TestUser;
  let project: { id: number; path_with_namespace: string };
  let runnerId: number;
  beforeAll(async () => {
    owner = await createUser(t);
    project = await createProject(t, owner.token);
    const ci = await t.api('POST', `/projects/${project.id}/repository/commits`, {
      token: owner.token,
      body: { branch: 'main', commit_message: 'CI', actions: [{ action: 'create', file_path: '.gitlab-ci.yml', content: 'build:\n  script: echo\n' }] },
    });
    expect(ci.status).toBe(201);
    const runner = await t.api('POST', '/user/runners', { token: owner.token, body: { runner_type: 'project_type', project_id: project.id } });
    expect(runner.status).toBe(201);
    runnerId = runner.body.id;
  });

  const newPipeline = async (): Promise<{ id: number; jobId: number }> => {
    const res = await t.api('POST', `/projects/${project.id}/pipeline`, { token: owner.token, body: { ref: 'main' } });
    expect(res.status).toBe(201);
    const jobs = await t.api('GET', `/projects/${project.id}/pipelines/${res.body.id}/jobs`, { token: owner.token });
    return { id: res.body.id, jobId: jobs.body[0].id };
  };

  it("runs pipelineCancel as GitLab's docs write it, with a global ID", async () => {
    const pipeline = await newPipeline();
    const res = await t.graphql(`mutation { pipelineCancel(input: { id: "gid://gitlab/Ci::Pipeline/${pipeline.id}" }) { errors } }`, {}, owner.token);
    expect(res.body).toEqual({ data: { pipelineCancel: { errors: [] } } });
    const after = await t.api('GET', `/projects/${project.id}/pipelines/${pipeline.id}`, { token: owner.token });
    expect(after.body.status).toBe('canceled');
  });

  it('takes a variable declared with the scalar, or with ID as GitLab lets it, over HTTP and graphql-ws', async () => {
    const gid = `gid://gitlab/Ci::Runner/${runnerId}`;
    const typed = await t.graphql('query($id: CiRunnerID!) { runner(id: $id) { id databaseId } }', { id: gid }, owner.token);
    expect(typed.body).toEqual({ data: { runner: { id: gid, databaseId: runnerId } } });
    const asId = await t.graphql('query($id: ID!) { runner(id: $id) { id } }', { id: gid }, owner.token);
    expect(asId.body).toEqual({ data: { runner: { id: gid } } });
    const pipeline = await newPipeline();
    const job = await t.graphql(
      'query($path: ID!, $job: ID!) { project(fullPath: $path) { job(id: $job) { id name } } }',
      { path: project.path_with_namespace, job: `gid://gitlab/Ci::Build/${pipeline.jobId}` },
      owner.token,
    );
    expect(job.body).toEqual({ data: { project: { job: { id: `gid://gitlab/Ci::Build/${pipeline.jobId}`, name: 'build' } } } });
    const client = createClient({ url: `${t.url.replace('http', 'ws')}/api/graphql`, webSocketImpl: WebSocket, connectionParams: { 'PRIVATE-TOKEN': owner.token }, retryAttempts: 0 });
    try {
      const viaWs = await new Promise<unknown>((resolve, reject) => {
        let last: unknown;
        client.subscribe({ query: 'query($id: ID!) { runner(id: $id) { id } }', variables: { id: gid } }, { next: (r) => (last = r), error: reject, complete: () => resolve(last) });
      });
      expect(viaWs).toEqual({ data: { runner: { id: gid } } });
    } finally {
      await client.dispose();
    }
  });

  it("refuses what is no global ID of the model, in GitLab's words", async () => {
    const query = 'query($id: CiRunnerID!) { runner(id: $id) { id } }';
    const cases: [unknown, string][] = [
      [String(runnerId), `"${runnerId}" is not a valid Global ID`],
      [`gid://other/Ci::Runner/${runnerId}`, `"gid://other/Ci::Runner/${runnerId}" is not a Gitlab Global ID`],
      [`gid://gitlab/Project/${project.id}`, `"gid://gitlab/Project/${project.id}" does not represent an instance of Ci::Runner`],
    ];
    for (const [id, words] of cases) {
      const res = await t.graphql(query, { id }, owner.token);
      expect(res.status).toBe(400);
      expect(res.body.errors?.[0].message).toContain(words);
    }
    const literal = await t.graphql(`mutation { jobCancel(input: { id: "gid://gitlab/Ci::Pipeline/1" }) { errors } }`, {}, owner.token);
    expect(literal.body.errors?.[0].message).toContain('"gid://gitlab/Ci::Pipeline/1" does not represent an instance of Ci::Build');
    // An object whose toString is no function, where the scalar is expected: refused in words, never a crash.
    for (const id of [{ toString: 'x' }, { toString: 'x', valueOf: 1 }]) {
      const res = await t.graphql(query, { id }, owner.token);
      expect([res.status, res.body.errors?.[0].message]).toEqual([400, expect.stringContaining('is not a valid Global ID')]);
    }
    // A global ID of no record names nothing: GitLab's ResourceNotAvailable.
    const none = await t.graphql(`mutation { pipelineRetry(input: { id: "gid://gitlab/Ci::Pipeline/2147483000" }) { errors } }`, {}, owner.token);
    expect(none.body.errors?.[0].extensions?.code).toBe('NOT_FOUND');
  });

  it('refuses a Time or Date variable that is an object without a usable toString, in words', async () => {
    const cases: [string, Record<string, unknown>, string][] = [
      ['query($d: Date) { currentUser { events(createdAfter: $d) { nodes { id } } } }', { d: { toString: 'x' } }, '{"toString":"x"} is not a valid date'],
      [
        'mutation($t: Time) { projectMemberBulkUpdate(input: { projectId: "gid://gitlab/Project/1", userIds: ["gid://gitlab/User/1"], accessLevel: DEVELOPER, expiresAt: $t }) { errors } }',
        { t: { toString: 'x', valueOf: 1 } },
        '{"toString":"x","valueOf":1} is not a valid time',
      ],
    ];
    for (const [query, variables, words] of cases) {
      const res = await t.graphql(query, variables, owner.token);
      expect([res.status, res.body.errors?.[0].message]).toEqual([400, expect.stringContaining(words)]);
    }
  });

  it('leaves REST naming records by numeric id, and refusing what is not one in Grape’s words', async () => {
    const pipeline = await newPipeline();
    const cancel = await t.api('POST', `/projects/${project.id}/pipelines/${pipeline.id}/cancel`, { token: owner.token });
    expect([cancel.status, cancel.body.status]).toEqual([200, 'canceled']);
    const bad = await t.api('POST', `/projects/${project.id}/pipelines/abc/retry`, { token: owner.token });
    expect([bad.status, bad.body]).toEqual([400, { error: 'pipeline_id is invalid' }]);
    const runner = await t.api('GET', `/runners/${runnerId}`, { token: owner.token });
    expect([runner.status, runner.body.id]).toEqual([200, runnerId]);
  });
});
