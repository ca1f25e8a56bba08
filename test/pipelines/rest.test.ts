/**
 * The pipelines API of seed 4.4 parameter by parameter, as GitLab answers it: every `order_by` both ways, the time,
 * name, sha, username and scope filters, Grape's 400s for values it does not know, child pipelines kept out of lists
 * and of `latest`, the detail's fields and their types (duration as GitLab counts it), and the errors of
 * `POST /pipeline` and `PUT …/metadata`; raw HTTP, GraphQL and @gitbeaker/rest.
 */
import { describe, expect, it } from 'vitest';
import { Gitlab } from '@gitbeaker/rest';
import { suiteServer } from '../support/server.js';
import { addMember, createProject, createUser } from '../support/factories.js';
import { commit, createRunner, eventually, pushPipeline, requestJob, runnerCall, RUNNER_INFO } from '../runners/support.js';

const t = suiteServer({ ciLongPollingMs: 0 });

const ONE_JOB = 'build:\n  script: echo build\n';

/** The detail of one pipeline (GitLab's Ci::PipelineWithMetadata). */
const DETAIL_KEYS = [
  'id', 'iid', 'project_id', 'sha', 'ref', 'status', 'source', 'created_at', 'updated_at', 'web_url',
  'before_sha', 'tag', 'yaml_errors', 'user', 'started_at', 'finished_at', 'committed_at', 'duration', 'queued_duration', 'coverage', 'detailed_status', 'archived',
  'name',
];

const ids = async (projectId: number, query: string) => {
  const res = await t.api('GET', `/projects/${projectId}/pipelines${query}`);
  expect(res.status, res.text).toBe(200);
  return (res.body as { id: number }[]).map((p) => p.id);
};

/**
 * Three pipelines: p1 (root's push to main, pending, renamed last so updated last), p2 (a Developer's push of branch
 * alpha, pending), p3 (root's API pipeline on main, canceled).
 */
async function threePipelines() {
  const project = await createProject(t, t.rootToken);
  const sha = await commit(t, project.id, { '.gitlab-ci.yml': ONE_JOB });
  const p1 = await pushPipeline(t, project.id, sha);
  const developer = await createUser(t);
  await addMember(t, t.rootToken, 'projects', project.id, developer.id, 30);
  // A branch made through the API is a push: its pipeline is the Developer's.
  expect((await t.api('POST', `/projects/${project.id}/repository/branches?branch=alpha&ref=main`, { token: developer.token })).status).toBe(201);
  // Once processed (pending): later background work would move its updated_at past p3's, which the filters compare.
  const p2 = await eventually(async () => {
    const listed = (await t.api('GET', `/projects/${project.id}/pipelines?ref=alpha`)).body[0] as { id: number; status: string } | undefined;
    return listed?.status === 'pending' ? listed : undefined;
  });
  const p3 = await t.api('POST', `/projects/${project.id}/pipeline`, { body: { ref: 'main' } });
  expect((await t.api('POST', `/projects/${project.id}/pipelines/${p3.body.id}/cancel`)).body.status).toBe('canceled');
  const renamed = await t.api('PUT', `/projects/${project.id}/pipelines/${p1.id}/metadata`, { body: { name: '  Nightly  ' } });
  expect(renamed.body.name).toBe('Nightly');
  const read = async (id: number) => (await t.api('GET', `/projects/${project.id}/pipelines/${id}`)).body;
  return { project, sha, developer, p1: await read(p1.id), p2: await read(p2.id), p3: await read(p3.body.id) };
}

describe('GET /projects/:id/pipelines', () => {
  it('orders by id, status, ref, updated_at and user_id, desc by default, asc when asked', async () => {
    const { project, p1, p2, p3 } = await threePipelines();
    const expected: Record<string, number[]> = {
      id: [p1.id, p2.id, p3.id],
      status: [p3.id, p1.id, p2.id], // canceled before pending; equal statuses by id
      ref: [p2.id, p1.id, p3.id], // alpha before main
      updated_at: [p2.id, p3.id, p1.id],
      user_id: [p1.id, p3.id, p2.id], // root before the Developer
    };
    for (const [orderBy, ascending] of Object.entries(expected)) {
      expect(await ids(project.id, `?order_by=${orderBy}&sort=asc`), orderBy).toEqual(ascending);
      expect(await ids(project.id, `?order_by=${orderBy}&sort=desc`), orderBy).toEqual([...ascending].reverse());
      expect(await ids(project.id, `?order_by=${orderBy}`), orderBy).toEqual([...ascending].reverse());
    }
    const api = new Gitlab({ host: t.url, token: t.rootToken });
    expect((await api.Pipelines.all(project.id, { orderBy: 'user_id', sort: 'asc' })).map((p) => p.id)).toEqual(expected.user_id);
  }, 90_000);

  it('filters by creation time (strictly), update time (inclusively), name, sha, username in any case, status and scope', async () => {
    const { project, sha, developer, p1, p2, p3 } = await threePipelines();
    const at = (time: string) => encodeURIComponent(time);
    expect(await ids(project.id, `?created_after=${at(p2.created_at)}`)).toEqual([p3.id]);
    expect(await ids(project.id, `?created_before=${at(p2.created_at)}`)).toEqual([p1.id]);
    expect(await ids(project.id, `?created_after=${at(p1.created_at)}&created_before=${at(p3.created_at)}`)).toEqual([p2.id]);
    expect(await ids(project.id, `?updated_after=${at(p3.updated_at)}`)).toEqual([p3.id, p1.id]);
    expect(await ids(project.id, `?updated_before=${at(p2.updated_at)}`)).toEqual([p2.id]);
    expect(await ids(project.id, '?name=Nightly')).toEqual([p1.id]);
    expect(await ids(project.id, '?name=nightly')).toEqual([]);
    expect(await ids(project.id, `?sha=${sha}`)).toEqual([p3.id, p2.id, p1.id]);
    expect(await ids(project.id, `?sha=${'0'.repeat(40)}`)).toEqual([]);
    expect(await ids(project.id, `?username=${developer.username.toUpperCase()}`)).toEqual([p2.id]);
    expect(await ids(project.id, '?status=canceled')).toEqual([p3.id]);
    // Canceled before it ran: no start, no duration (GitLab's update_duration needs started_at).
    expect(p3).toMatchObject({ status: 'canceled', started_at: null, duration: null, queued_duration: null });
    expect(typeof p3.finished_at).toBe('string');
    expect(await ids(project.id, '?scope=pending')).toEqual([p2.id, p1.id]);
    expect(await ids(project.id, '?scope=running')).toEqual([]);
    expect(await ids(project.id, '?scope=finished')).toEqual([p3.id]);
    expect(await ids(project.id, '?scope=branches')).toEqual([p3.id, p2.id]);
    expect(await ids(project.id, '?scope=branches&status=pending')).toEqual([p2.id]);
    expect(await ids(project.id, '?scope=tags')).toEqual([]);
    expect((await t.api('POST', `/projects/${project.id}/repository/tags`, { body: { tag_name: 'v1', ref: 'main' } })).status).toBe(201);
    const tagged = await t.api('POST', `/projects/${project.id}/pipeline`, { body: { ref: 'v1' } });
    expect(tagged.body).toMatchObject({ ref: 'v1', tag: true });
    expect(await ids(project.id, '?scope=tags')).toEqual([tagged.body.id]);
    expect(await ids(project.id, '?scope=branches')).toEqual([p3.id, p2.id]);
  }, 90_000);

  it("answers Grape's 400 for a value it does not know, the source filter and a pipeline_id that is no integer included", async () => {
    const project = await createProject(t, t.rootToken);
    const cases: [string, string][] = [
      ['source=bogus', 'source does not have a valid value'],
      ['order_by=name', 'order_by does not have a valid value'],
      ['sort=up', 'sort does not have a valid value'],
      ['yaml_errors=maybe', 'yaml_errors is invalid'],
      ['created_after=yesterday', 'created_after is invalid'],
      ['updated_before=2020-13-45', 'updated_before is invalid'],
    ];
    for (const [query, error] of cases) {
      expect(await t.api('GET', `/projects/${project.id}/pipelines?${query}`), query).toMatchObject({ status: 400, body: { error } });
    }
    for (const source of ['push', 'web', 'trigger', 'schedule', 'api', 'external', 'pipeline', 'chat', 'merge_request_event', 'parent_pipeline', 'unknown']) {
      expect(await ids(project.id, `?source=${source}`), source).toEqual([]);
    }
    const gql = await t.graphql('query($p: ID!) { project(fullPath: $p) { pipelines(source: "bogus") { count } } }', { p: project.path_with_namespace });
    expect(gql.body.errors?.[0]).toMatchObject({ message: 'source does not have a valid value', extensions: { code: 'BAD_USER_INPUT' } });
    // Grape's Integer `pipeline_id`: a non-integer is invalid; any integer is looked up (`-1` is simply not found).
    for (const id of ['abc', '1.5', '12abc']) {
      expect(await t.api('GET', `/projects/${project.id}/pipelines/${id}`), id).toMatchObject({ status: 400, body: { error: 'pipeline_id is invalid' } });
    }
    expect(await t.api('POST', `/projects/${project.id}/pipelines/abc/retry`)).toMatchObject({ status: 400, body: { error: 'pipeline_id is invalid' } });
    expect(await t.api('GET', `/projects/${project.id}/pipelines/-1`)).toMatchObject({ status: 404, body: { message: '404 Not found' } });
    // An integer no pipeline can have is looked up too (Grape's Integer takes it), and found nowhere.
    expect(await t.api('GET', `/projects/${project.id}/pipelines/99999999999`)).toMatchObject({ status: 404, body: { message: '404 Not found' } });
    expect(await t.api('GET', `/projects/${project.id}/pipelines/${'9'.repeat(40)}`)).toMatchObject({ status: 404, body: { message: '404 Not found' } });
    expect(await t.api('DELETE', `/projects/${project.id}/pipelines/-1`)).toMatchObject({ status: 404, body: { message: '404 Not found' } });
    const api = new Gitlab({ host: t.url, token: t.rootToken });
    const refused = await api.Pipelines.all(project.id, { source: 'bogus' }).catch((e: { cause?: { response?: { status: number } } }) => e);
    expect((refused as { cause?: { response?: { status: number } } }).cause?.response?.status).toBe(400);
  });
});

describe('child pipelines', () => {
  it('stay out of the list, of scope=branches and of latest, and are listed with source=parent_pipeline', async () => {
    const project = await createProject(t, t.rootToken);
    const config = 'parent-job:\n  script: echo parent\nkid:\n  trigger:\n    include: child.yml\n';
    const sha = await commit(t, project.id, { '.gitlab-ci.yml': config, 'child.yml': 'child-job:\n  script: echo child\n' });
    const parent = await pushPipeline(t, project.id, sha);
    const [child] = await eventually(async () => {
      const res = await t.api('GET', `/projects/${project.id}/pipelines?source=parent_pipeline`);
      return res.body.length > 0 && (res.body as { id: number; source: string; sha: string }[]);
    });
    expect(child).toMatchObject({ source: 'parent_pipeline', sha });
    expect(child.id).toBeGreaterThan(parent.id);
    expect(await ids(project.id, '')).toEqual([parent.id]);
    expect(await ids(project.id, '?scope=branches')).toEqual([parent.id]);
    expect(await ids(project.id, '?scope=branches&source=parent_pipeline')).toEqual([child.id]);
    expect(await ids(project.id, '?source=push')).toEqual([parent.id]);
    const latest = await t.api('GET', `/projects/${project.id}/pipelines/latest`);
    expect(latest).toMatchObject({ status: 200, body: { id: parent.id, source: 'push' } });
    expect(await t.api('GET', `/projects/${project.id}/pipelines/latest?ref=`)).toMatchObject({ status: 200, body: { id: parent.id } });
    const api = new Gitlab({ host: t.url, token: t.rootToken });
    expect((await api.Pipelines.showLatest(project.id, { ref: 'main' })).id).toBe(parent.id);
    expect((await t.api('GET', `/projects/${project.id}/pipelines/${child.id}`)).body).toMatchObject({ id: child.id, source: 'parent_pipeline' });
  });
});

describe('a pipeline in detail', () => {
  it("shows GitLab's fields, typed: whole seconds of running (overlaps once) and of queueing", async () => {
    const project = await createProject(t, t.rootToken);
    const config = 'stages: [test, deploy]\na:\n  stage: test\n  script: echo a\nb:\n  stage: test\n  script: echo b\nship:\n  stage: deploy\n  script: echo ship\n  when: manual\n';
    const sha = await commit(t, project.id, { '.gitlab-ci.yml': config });
    const pipeline = await pushPipeline(t, project.id, sha);
    const pending = await t.api('GET', `/projects/${project.id}/pipelines/${pipeline.id}`);
    expect(Object.keys(pending.body).sort()).toEqual([...DETAIL_KEYS].sort());
    expect(Object.keys(pending.body.user).sort()).toEqual(['avatar_url', 'id', 'locked', 'name', 'state', 'username', 'web_url']);
    expect(Object.keys(pending.body.detailed_status).sort()).toEqual(['details_path', 'favicon', 'group', 'has_details', 'icon', 'illustration', 'label', 'text', 'tooltip']);
    expect(pending.body).toMatchObject({ started_at: null, finished_at: null, committed_at: null, duration: null, queued_duration: null, coverage: null, yaml_errors: null, tag: false, archived: false });

    const runner = await createRunner(t, { project_id: project.id });
    const first = await requestJob(t, runner.token);
    const second = await requestJob(t, runner.token);
    // Fixtures of time: the pipeline waited 2.5 s for a runner; b ran from 150 s ago, a from 100 s ago, both till now.
    const db = t.server.database.prisma;
    const now = Date.now();
    const started = await eventually(async () => (await db.pipeline.findUniqueOrThrow({ where: { id: pipeline.id } })).startedAt);
    await db.pipeline.update({ where: { id: pipeline.id }, data: { createdAt: new Date(started.getTime() - 2500) } });
    const byName: Record<string, { id: number; token: string }> = { [first.job_info.name]: first, [second.job_info.name]: second };
    await db.ciJob.update({ where: { id: byName.a.id }, data: { startedAt: new Date(now - 100_000) } });
    await db.ciJob.update({ where: { id: byName.b.id }, data: { startedAt: new Date(now - 150_000) } });
    for (const job of [byName.a, byName.b]) {
      const done = await runnerCall(t, 'PUT', `/jobs/${job.id}`, { token: job.token, info: RUNNER_INFO, state: 'success' });
      expect(done.status, done.text).toBe(200);
    }
    const finished = await eventually(async () => {
      const res = await t.api('GET', `/projects/${project.id}/pipelines/${pipeline.id}`);
      return res.body.status === 'success' && res.body;
    });
    expect(Object.keys(finished).sort()).toEqual([...DETAIL_KEYS].sort());
    // GitLab's Pipeline::Duration: the union of the jobs' running periods, not finished_at - started_at.
    expect([150, 151]).toContain(finished.duration);
    expect(finished.queued_duration).toBe(2);
    expect(finished.started_at).toBe(started.toISOString());
    expect(typeof finished.finished_at).toBe('string');
    // GitLab's Chain::Build never sets committed_at.
    expect(finished.committed_at).toBeNull();
    const gql = await t.graphql('query($p: ID!, $iid: ID!) { project(fullPath: $p) { pipeline(iid: $iid) { databaseId duration queuedDuration } } }', {
      p: project.path_with_namespace,
      iid: String(finished.iid),
    });
    expect(gql.body.data.project.pipeline).toEqual({ databaseId: pipeline.id, duration: finished.duration, queuedDuration: 2 });
    const api = new Gitlab({ host: t.url, token: t.rootToken });
    expect(await api.Pipelines.show(project.id, pipeline.id)).toMatchObject({ duration: finished.duration, queued_duration: 2, status: 'success' });
  });
});

describe('POST /projects/:id/pipeline and PUT …/metadata', () => {
  it("names a variable's bad variable_type by its index, and refuses variables that are not an array", async () => {
    const project = await createProject(t, t.rootToken);
    await commit(t, project.id, { '.gitlab-ci.yml': ONE_JOB });
    const variables = [{ key: 'A', value: '1' }, { key: 'B', value: '2', variable_type: 'secret' }];
    expect(await t.api('POST', `/projects/${project.id}/pipeline`, { body: { ref: 'main', variables } })).toMatchObject({
      status: 400,
      body: { error: 'variables[1][variable_type] does not have a valid value' },
    });
    // Grape checks parameters before the service looks for duplicates.
    const duplicated = [...variables, { key: 'B', value: '3', variable_type: 'secret' }];
    expect((await t.api('POST', `/projects/${project.id}/pipeline`, { body: { ref: 'main', variables: duplicated } })).body).toEqual({
      error: 'variables[1][variable_type] does not have a valid value',
    });
    expect(await t.api('POST', `/projects/${project.id}/pipeline`, { body: { ref: 'main', variables: 'A=1' } })).toMatchObject({ status: 400, body: { error: 'variables is invalid' } });
    const created = await t.api('POST', `/projects/${project.id}/pipeline`, { body: { ref: 'main', variables: [] } });
    expect(created.status).toBe(201);
    expect(Object.keys(created.body).sort()).toEqual(DETAIL_KEYS.filter((k) => k !== 'name').sort());
  });

  it("refuses a blank or too long name with GitLab's words, and stores a name stripped of blanks", async () => {
    const project = await createProject(t, t.rootToken);
    const pipeline = await pushPipeline(t, project.id, await commit(t, project.id, { '.gitlab-ci.yml': ONE_JOB }));
    const put = (name: string) => t.api('PUT', `/projects/${project.id}/pipelines/${pipeline.id}/metadata`, { body: { name } });
    expect(await put('   ')).toMatchObject({ status: 400, body: { message: 'Failed to update pipeline - Name is too short (minimum is 1 character)' } });
    expect(await put('x'.repeat(256))).toMatchObject({ status: 400, body: { message: 'Failed to update pipeline - Name is too long (maximum is 255 characters)' } });
    const named = await put(` ${'y'.repeat(255)} `);
    expect(named.status).toBe(200);
    expect(Object.keys(named.body).sort()).toEqual([...DETAIL_KEYS].sort());
    expect(named.body.name).toBe('y'.repeat(255));
    expect((await t.api('GET', `/projects/${project.id}/pipelines/${pipeline.id}`)).body.name).toBe('y'.repeat(255));
    const gql = await t.graphql('mutation($id: ID!) { pipelineUpdateMetadata(input: { id: $id, name: " " }) { pipeline { name } errors } }', { id: String(pipeline.id) });
    expect(gql.body.errors).toBeUndefined();
    expect(gql.body.data.pipelineUpdateMetadata).toEqual({ pipeline: null, errors: ['Failed to update pipeline - Name is too short (minimum is 1 character)'] });
  });
});
