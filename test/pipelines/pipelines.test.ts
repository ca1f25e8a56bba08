/**
 * Pipelines over HTTP: created by a push and by the API from `.gitlab-ci.yml`, processed stage by stage, listed with
 * GitLab's filters, canceled, retried, played, renamed and deleted; REST, GraphQL, graphql-ws and gitbeaker.
 */
import { describe, expect, it } from 'vitest';
import { Gitlab } from '@gitbeaker/rest';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { EXTERNAL_URL as EXTERNAL, suiteServer } from '../support/server.js';
import { eventually } from '../support/wait.js';
import { addMember, createProject, createUser } from '../support/factories.js';

const t = suiteServer();
const ZERO = '0000000000000000000000000000000000000000';

const CONFIG = `
stages: [build, test, deploy]
build-job:
  stage: build
  script: echo build
test-job:
  stage: test
  script: echo test
manual-deploy:
  stage: deploy
  script: echo deploy
  when: manual
`;

async function commit(projectId: number, files: Record<string, string>, message = 'Add files', branch = 'main') {
  const tree = await t.api('GET', `/projects/${projectId}/repository/tree?ref=${branch}&recursive=true&per_page=100`);
  const existing = new Set(tree.status === 200 ? (tree.body as { path: string }[]).map((e) => e.path) : []);
  const actions = Object.entries(files).map(([file_path, content]) => ({ action: existing.has(file_path) ? 'update' : 'create', file_path, content }));
  const res = await t.api('POST', `/projects/${projectId}/repository/commits`, { body: { branch, commit_message: message, actions } });
  expect(res.status).toBe(201);
  return res.body.id as string;
}


/** A project whose first commit has the configuration, once the push's pipeline exists (iid 1). */
async function projectWithConfig(options: { visibility?: string } = {}, config = CONFIG) {
  const project = await createProject(t, t.rootToken, options);
  const sha = await commit(project.id, { '.gitlab-ci.yml': config, 'README.md': 'hello\n' }, 'Initial commit');
  await pushPipeline(project.id, sha);
  return project;
}

async function pushPipeline(projectId: number, sha: string) {
  return eventually(async () => {
    const res = await t.api('GET', `/projects/${projectId}/pipelines?sha=${sha}`);
    return res.body[0];
  });
}

async function jobsOf(projectId: number, pipelineId: number, query = '') {
  const res = await t.api('GET', `/projects/${projectId}/pipelines/${pipelineId}/jobs${query}`);
  expect(res.status).toBe(200);
  return res.body as { id: number; name: string; status: string; stage: string }[];
}

describe('pipelines from a push', () => {
  it('creates a push pipeline for the pushed commit and starts its first stage', async () => {
    const project = await createProject(t, t.rootToken);
    const sha = await commit(project.id, { '.gitlab-ci.yml': CONFIG }, 'Initial commit');
    const listed = await pushPipeline(project.id, sha);
    expect(Object.keys(listed).sort()).toEqual(['created_at', 'id', 'iid', 'name', 'project_id', 'ref', 'sha', 'source', 'status', 'updated_at', 'web_url'].sort());
    expect(listed).toMatchObject({ iid: 1, project_id: project.id, sha, ref: 'main', status: 'pending', source: 'push', name: null, web_url: `http://gitlab.example.com/${project.path_with_namespace}/-/pipelines/${listed.id}` });
    const detail = await t.api('GET', `/projects/${project.id}/pipelines/${listed.id}`);
    expect(detail.status).toBe(200);
    expect(detail.body).toMatchObject({ before_sha: ZERO, tag: false, yaml_errors: null, user: { username: 'root' }, started_at: null, finished_at: null, duration: null, coverage: null });
    expect(detail.body.detailed_status).toEqual({
      icon: 'status_pending',
      text: 'Pending',
      label: 'pending',
      group: 'pending',
      tooltip: 'pending',
      has_details: true,
      details_path: `/${project.path_with_namespace}/-/pipelines/${listed.id}`,
      illustration: null,
      favicon: '/assets/ci_favicons/favicon_status_pending.png',
    });
    const jobs = await jobsOf(project.id, listed.id);
    expect(jobs.map((j) => [j.name, j.stage, j.status])).toEqual([
      ['build-job', 'build', 'pending'],
      ['test-job', 'test', 'created'],
      ['manual-deploy', 'deploy', 'created'],
    ]);
  });

  it('makes a skipped pipeline for [skip ci], and none without a configuration or for a deleted branch', async () => {
    const project = await projectWithConfig();
    const skipped = await commit(project.id, { 'a.txt': 'a' }, 'Change [skip ci]');
    const pipeline = await pushPipeline(project.id, skipped);
    expect(pipeline.status).toBe('skipped');
    expect(await jobsOf(project.id, pipeline.id)).toEqual([]);

    const bare = await createProject(t, t.rootToken);
    const sha = await commit(bare.id, { 'README.md': 'no ci' });
    // A later push with a configuration proves the queue ran the first one.
    const later = await commit(bare.id, { '.gitlab-ci.yml': CONFIG }, 'Add CI');
    await pushPipeline(bare.id, later);
    expect((await t.api('GET', `/projects/${bare.id}/pipelines?sha=${sha}`)).body).toEqual([]);
  });

  it('keeps a failed pipeline with yaml_errors for a broken configuration', async () => {
    const project = await createProject(t, t.rootToken);
    const sha = await commit(project.id, { '.gitlab-ci.yml': 'build: [unclosed' });
    const pipeline = await pushPipeline(project.id, sha);
    expect(pipeline.status).toBe('failed');
    const detail = await t.api('GET', `/projects/${project.id}/pipelines/${pipeline.id}`);
    expect(typeof detail.body.yaml_errors).toBe('string');
    expect(detail.body.yaml_errors.length).toBeGreaterThan(0);
    expect((await t.api('GET', `/projects/${project.id}/pipelines?yaml_errors=true`)).body.map((p: { id: number }) => p.id)).toEqual([pipeline.id]);
    expect((await t.api('GET', `/projects/${project.id}/pipelines?yaml_errors=false`)).body).toEqual([]);
    // Through the API (and GraphQL), GitLab creates with save_on_errors: false: the errors in a 400, nothing saved.
    const before = (await t.api('GET', `/projects/${project.id}/pipelines`)).body.length;
    const api = await t.api('POST', `/projects/${project.id}/pipeline`, { body: { ref: 'main' } });
    expect(api.status).toBe(400);
    expect(api.body).toEqual({ message: { base: [detail.body.yaml_errors] } });
    const gql = await t.graphql('mutation($p: ID!) { pipelineCreate(input: { projectPath: $p, ref: "main" }) { errors pipeline { id } } }', { p: project.path_with_namespace });
    expect(gql.body.data.pipelineCreate).toEqual({ errors: [detail.body.yaml_errors], pipeline: null });
    expect((await t.api('GET', `/projects/${project.id}/pipelines`)).body).toHaveLength(before);
  });
});

describe('include: project', () => {
  it("reads another project's file when the pipeline's user may download its code, and says why not otherwise", async () => {
    const shared = await createProject(t, t.rootToken, { visibility: 'private' });
    await commit(shared.id, { 'templates/build.yml': 'include: common.yml\nshared-build:\n  script: echo shared\n', 'common.yml': 'shared-common:\n  script: echo common\n' }, 'Templates');
    const pusher = await createUser(t);
    const consumer = await createProject(t, t.rootToken);
    await addMember(t, t.rootToken, 'projects', consumer.id, pusher.id, 40);
    const config = `include:\n  project: ${shared.path_with_namespace}\n  file: /templates/build.yml\nown:\n  script: echo own\n`;
    const userCommit = async (message: string) => {
      const res = await t.api('POST', `/projects/${consumer.id}/repository/commits`, {
        token: pusher.token,
        body: { branch: 'main', commit_message: message, actions: [{ action: (await t.api('GET', `/projects/${consumer.id}/repository/files/.gitlab-ci.yml?ref=main`)).status === 200 ? 'update' : 'create', file_path: '.gitlab-ci.yml', content: `${config}# ${message}\n` }] },
      });
      expect(res.status, res.text).toBe(201);
      return pushPipeline(consumer.id, res.body.id);
    };

    // The pusher cannot read the private project: GitLab's words, nothing of the project revealed.
    const denied = await userCommit('Denied');
    const detail = await t.api('GET', `/projects/${consumer.id}/pipelines/${denied.id}`);
    expect(detail.body).toMatchObject({ status: 'failed', yaml_errors: `Project \`${shared.path_with_namespace}\` not found or access denied! Make sure any includes in the pipeline configuration are correctly defined.` });

    // A Reporter may download the code: the file and its own local include come from the shared project.
    await addMember(t, t.rootToken, 'projects', shared.id, pusher.id, 20);
    const allowed = await userCommit('Allowed');
    const jobs = await t.api('GET', `/projects/${consumer.id}/pipelines/${allowed.id}/jobs`);
    expect((jobs.body as { name: string }[]).map((j) => j.name).sort()).toEqual(['own', 'shared-build', 'shared-common']);

    // The lint API resolves it as the caller, and lists where each file came from.
    const lint = await t.api('POST', `/projects/${consumer.id}/ci/lint`, { token: pusher.token, body: { content: config } });
    expect(lint.status, lint.text).toBe(200);
    expect(lint.body).toMatchObject({ valid: true, errors: [] });
    const sharedSha = (await t.api('GET', `/projects/${shared.id}/repository/commits/main`)).body.id;
    expect(lint.body.includes).toEqual([
      {
        type: 'file',
        location: 'templates/build.yml',
        blob: `${EXTERNAL}/${shared.path_with_namespace}/-/blob/${sharedSha}/templates/build.yml`,
        raw: `${EXTERNAL}/${shared.path_with_namespace}/-/raw/${sharedSha}/templates/build.yml`,
        extra: { project: shared.path_with_namespace, ref: 'HEAD' },
        context_project: consumer.path_with_namespace,
        context_sha: expect.any(String),
      },
      expect.objectContaining({ type: 'local', location: 'common.yml', context_project: shared.path_with_namespace, context_sha: sharedSha }),
    ]);
    const outsider = await createUser(t);
    const publicConsumer = await createProject(t, outsider.token, { visibility: 'public' });
    const refused = await t.api('POST', `/projects/${publicConsumer.id}/ci/lint`, { token: outsider.token, body: { content: config } });
    expect(refused.body).toMatchObject({ valid: false, errors: [expect.stringMatching(/not found or access denied/)] });
  });
});

describe('POST /projects/:id/pipeline', () => {
  it('creates an api pipeline with variables, before_sha zeros, and answers the detail', async () => {
    const project = await projectWithConfig();
    const res = await t.api('POST', `/projects/${project.id}/pipeline`, { body: { ref: 'main', variables: [{ key: 'A', value: '1' }, { key: 'B', value: '2', variable_type: 'file' }] } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ source: 'api', before_sha: ZERO, status: 'pending', ref: 'main', tag: false });
    expect(res.body).not.toHaveProperty('name');
    const variables = await t.api('GET', `/projects/${project.id}/pipelines/${res.body.id}/variables`);
    expect(variables.body).toEqual([
      { variable_type: 'env_var', key: 'A', value: '1' },
      { variable_type: 'file', key: 'B', value: '2' },
    ]);
  });

  it("answers GitLab's errors without creating anything", async () => {
    const project = await projectWithConfig();
    const before = (await t.api('GET', `/projects/${project.id}/pipelines`)).body.length;
    expect(await t.api('POST', `/projects/${project.id}/pipeline`, { body: { ref: 'nope' } })).toMatchObject({ status: 400, body: { message: { base: ['Reference not found'] } } });
    expect(await t.api('POST', `/projects/${project.id}/pipeline`, { body: {} })).toMatchObject({ status: 400, body: { error: 'ref is missing' } });
    expect(
      await t.api('POST', `/projects/${project.id}/pipeline`, { body: { ref: 'main', variables: [{ key: 'A', value: '1' }, { key: 'A', value: '2' }] } }),
    ).toMatchObject({ status: 400, body: { message: { base: ['Duplicate variable name: A'] } } });
    const bare = await createProject(t, t.rootToken);
    await commit(bare.id, { 'README.md': 'x' });
    expect(await t.api('POST', `/projects/${bare.id}/pipeline`, { body: { ref: 'main' } })).toMatchObject({ status: 400, body: { message: { base: ['Missing CI config file'] } } });
    expect((await t.api('GET', `/projects/${project.id}/pipelines`)).body.length).toBe(before);
  });

  it('is refused to a Reporter, hidden from a non-member, and needs a token', async () => {
    const project = await projectWithConfig();
    const reporter = await createUser(t);
    const stranger = await createUser(t);
    await addMember(t, t.rootToken, 'projects', project.id, reporter.id, 20);
    expect((await t.api('POST', `/projects/${project.id}/pipeline`, { body: { ref: 'main' }, token: reporter.token })).status).toBe(403);
    expect(await t.api('POST', `/projects/${project.id}/pipeline`, { body: { ref: 'main' }, token: stranger.token })).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
    expect((await t.api('POST', `/projects/${project.id}/pipeline`, { body: { ref: 'main' }, token: null })).status).toBe(401);
  });
});

describe('reading pipelines', () => {
  it('filters and orders as GitLab does', async () => {
    const project = await projectWithConfig();
    // Every pipeline stays pending: newer ones would otherwise cancel the older ones (auto_cancel_pending_pipelines).
    expect((await t.api('PUT', `/projects/${project.id}`, { body: { auto_cancel_pending_pipelines: 'disabled' } })).status).toBe(200);
    // A second push pipeline, made by the job queue: awaited, so the API pipeline below is the newest.
    await pushPipeline(project.id, await commit(project.id, { 'b.txt': 'b' }, 'Second commit', 'main'));
    const api = await t.api('POST', `/projects/${project.id}/pipeline`, { body: { ref: 'main' } });
    const ids = async (query: string) => (await t.api('GET', `/projects/${project.id}/pipelines${query}`)).body.map((p: { id: number }) => p.id);
    const all = await ids('');
    expect(all[0]).toBe(api.body.id);
    expect(await ids('?sort=asc')).toEqual([...all].reverse());
    expect(await ids('?source=api')).toEqual([api.body.id]);
    expect(await ids('?status=pending')).toEqual(all);
    expect(await ids('?scope=finished')).toEqual([]);
    expect(await ids('?scope=branches')).toEqual([all[0]]);
    expect(await ids('?scope=tags')).toEqual([]);
    expect(await ids('?username=root')).toEqual(all);
    expect(await ids('?username=nobody-at-all')).toEqual([]);
    expect(await ids('?ref=other')).toEqual([]);
    expect(await ids(`?updated_before=${encodeURIComponent(new Date(Date.now() - 86_400_000).toISOString())}`)).toEqual([]);
    expect((await t.api('GET', `/projects/${project.id}/pipelines?status=bogus`)).body).toEqual({ error: 'status does not have a valid value' });
    expect((await t.api('GET', `/projects/${project.id}/pipelines?scope=bogus`)).status).toBe(400);
    const paged = await t.api('GET', `/projects/${project.id}/pipelines?per_page=1`);
    expect(paged.headers.get('x-total')).toBe(String(all.length));
    expect(paged.body).toHaveLength(1);
  });

  it('answers latest for the head of a ref, 403 when there is none, and 404 for a missing pipeline', async () => {
    const project = await projectWithConfig();
    expect(await t.api('GET', `/projects/${project.id}/pipelines/latest?ref=nope`)).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    const created = await t.api('POST', `/projects/${project.id}/pipeline`, { body: { ref: 'main' } });
    const latest = await t.api('GET', `/projects/${project.id}/pipelines/latest`);
    expect(latest.status).toBe(200);
    expect(latest.body).toMatchObject({ id: created.body.id, name: null });
    expect(await t.api('GET', `/projects/${project.id}/pipelines/999999`)).toMatchObject({ status: 404, body: { message: '404 Not found' } });
  });

  it('shows a public project\'s pipelines to anyone and a private one\'s to members only', async () => {
    const open = await projectWithConfig({ visibility: 'public' });
    const closed = await projectWithConfig({ visibility: 'private' });
    const guest = await createUser(t);
    await addMember(t, t.rootToken, 'projects', closed.id, guest.id, 10);
    expect((await t.api('GET', `/projects/${open.id}/pipelines`, { token: null })).status).toBe(200);
    expect(await t.api('GET', `/projects/${closed.id}/pipelines`, { token: null })).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
    expect((await t.api('GET', `/projects/${closed.id}/pipelines`, { token: guest.token })).status).toBe(200);
    const pipeline = (await t.api('GET', `/projects/${closed.id}/pipelines`)).body[0];
    // Variables: Maintainers (or the Developer who ran the pipeline) only.
    expect((await t.api('GET', `/projects/${closed.id}/pipelines/${pipeline.id}/variables`, { token: guest.token })).status).toBe(403);
  });
});

describe('changing pipelines and jobs', () => {
  it('plays a manual job only, cancels, retries with new job copies, and renames', async () => {
    const project = await projectWithConfig();
    const pipeline = (await t.api('POST', `/projects/${project.id}/pipeline`, { body: { ref: 'main' } })).body;
    const canceled = await t.api('POST', `/projects/${project.id}/pipelines/${pipeline.id}/cancel`);
    expect(canceled.status).toBe(200);
    expect(canceled.body.status).toBe('canceled');
    expect(canceled.body.finished_at).not.toBeNull();
    expect((await jobsOf(project.id, pipeline.id)).map((j) => j.status)).toEqual(['canceled', 'canceled', 'canceled']);
    // Nothing left to cancel: still 200, unchanged.
    expect((await t.api('POST', `/projects/${project.id}/pipelines/${pipeline.id}/cancel`)).body.status).toBe('canceled');

    const retried = await t.api('POST', `/projects/${project.id}/pipelines/${pipeline.id}/retry`);
    expect(retried.status).toBe(201);
    expect(retried.body).toMatchObject({ id: pipeline.id, status: 'pending' });
    const latest = await jobsOf(project.id, pipeline.id);
    expect(latest.map((j) => [j.name, j.status])).toEqual([
      ['build-job', 'pending'],
      ['test-job', 'created'],
      ['manual-deploy', 'created'],
    ]);
    expect(await jobsOf(project.id, pipeline.id, '?include_retried=true')).toHaveLength(6);
    expect((await jobsOf(project.id, pipeline.id, '?scope[]=canceled&include_retried=true')).map((j) => j.status)).toEqual(['canceled', 'canceled', 'canceled']);
    expect((await t.api('GET', `/projects/${project.id}/pipelines/${pipeline.id}/jobs?scope[]=bogus`)).status).toBe(400);

    const build = latest[0];
    expect(await t.api('POST', `/projects/${project.id}/jobs/${build.id}/play`)).toMatchObject({ status: 400, body: { message: '400 Bad request - Unplayable Job' } });
    expect(await t.api('POST', `/projects/${project.id}/jobs/${build.id}/retry`)).toMatchObject({ status: 403, body: { message: '403 Forbidden - Job is not retryable' } });
    const cancelJob = await t.api('POST', `/projects/${project.id}/jobs/${build.id}/cancel`);
    expect(cancelJob).toMatchObject({ status: 201, body: { id: build.id, status: 'canceled' } });
    const jobRetry = await t.api('POST', `/projects/${project.id}/jobs/${build.id}/retry`);
    expect(jobRetry.status).toBe(201);
    expect(jobRetry.body).toMatchObject({ name: 'build-job', status: 'pending' });
    expect(jobRetry.body.id).not.toBe(build.id);

    const renamed = await t.api('PUT', `/projects/${project.id}/pipelines/${pipeline.id}/metadata`, { body: { name: '  Nightly  ' } });
    expect(renamed).toMatchObject({ status: 200, body: { id: pipeline.id, name: 'Nightly' } });
    expect((await t.api('GET', `/projects/${project.id}/pipelines?name=Nightly`)).body.map((p: { id: number }) => p.id)).toEqual([pipeline.id]);
  });

  it('deletes a pipeline for Owners only, with its jobs', async () => {
    const project = await projectWithConfig();
    const developer = await createUser(t);
    await addMember(t, t.rootToken, 'projects', project.id, developer.id, 30);
    const pipeline = (await t.api('POST', `/projects/${project.id}/pipeline`, { body: { ref: 'main' } })).body;
    const job = (await jobsOf(project.id, pipeline.id))[0];
    expect(await t.api('DELETE', `/projects/${project.id}/pipelines/${pipeline.id}`, { token: developer.token })).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    const deleted = await t.api('DELETE', `/projects/${project.id}/pipelines/${pipeline.id}`);
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    expect((await t.api('GET', `/projects/${project.id}/pipelines/${pipeline.id}`)).status).toBe(404);
    expect(await t.api('GET', `/projects/${project.id}/jobs/${job.id}`)).toMatchObject({ status: 404, body: { message: '404 Job Not Found' } });
    // A pipeline of another project is not reachable through this one's path.
    const other = await projectWithConfig();
    const foreign = (await t.api('POST', `/projects/${other.id}/pipeline`, { body: { ref: 'main' } })).body;
    expect((await t.api('POST', `/projects/${project.id}/pipelines/${foreign.id}/cancel`)).status).toBe(404);
  });

  it('shows job details with GitLab\'s fields', async () => {
    const project = await projectWithConfig();
    const pipeline = (await t.api('GET', `/projects/${project.id}/pipelines`)).body[0];
    const [job] = await jobsOf(project.id, pipeline.id);
    const res = await t.api('GET', `/projects/${project.id}/jobs/${job.id}`);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(
      ['id', 'status', 'stage', 'name', 'ref', 'tag', 'coverage', 'allow_failure', 'created_at', 'started_at', 'finished_at', 'erased_at', 'duration', 'queued_duration', 'user', 'commit', 'pipeline', 'web_url', 'project', 'artifacts', 'runner', 'artifacts_expire_at', 'archived', 'tag_list'].sort(),
    );
    expect(res.body).toMatchObject({ name: 'build-job', stage: 'build', status: 'pending', ref: 'main', allow_failure: false, artifacts: [], runner: null, commit: { id: pipeline.sha }, pipeline: { id: pipeline.id }, project: { ci_job_token_scope_enabled: false } });
    const trace = await t.api('GET', `/projects/${project.id}/jobs/${job.id}/trace`);
    expect(trace.status).toBe(200);
    expect(trace.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(trace.text).toBe('');
    const list = await t.api('GET', `/projects/${project.id}/jobs?scope[]=pending`);
    expect(list.body.map((j: { id: number }) => j.id)).toEqual([job.id]);
  });
});

describe('test reports', () => {
  it('count the JUnit reports of the latest jobs, one suite per job name, and zero without any', async () => {
    const project = await projectWithConfig();
    const pipeline = (await t.api('GET', `/projects/${project.id}/pipelines`)).body[0];
    const empty = await t.api('GET', `/projects/${project.id}/pipelines/${pipeline.id}/test_report_summary`);
    expect(empty.body).toEqual({ total: { time: 0, count: 0, success: 0, failed: 0, skipped: 0, error: 0, suite_error: null }, test_suites: [] });
    const [build, test] = await jobsOf(project.id, pipeline.id);
    // What the runner protocol's artifacts upload stores for a junit report (tested end to end with the runner).
    const stored = (jobId: number, cases: object[], error: string | null = null) =>
      t.server.database.prisma.ciJobArtifact.create({
        data: { jobId, projectId: project.id, fileType: 'junit', fileFormat: 'gzip', fileName: 'junit.xml.gz', size: 1, fileSha256: 'x', path: 'x', report: { suites: [{ name: 'rspec', error, cases }] } },
      });
    await stored(build.id, [
      { status: 'success', name: 'adds', classname: 'Calc', execution_time: 0.25, system_output: null, stack_trace: null },
      { status: 'failed', name: 'divides', classname: 'Calc', execution_time: 1.5, system_output: 'expected 2', stack_trace: 'at line 3' },
      { status: 'skipped', name: 'later', classname: 'Calc', execution_time: 0, system_output: null, stack_trace: null },
    ]);
    await stored(test.id, [], 'JUnit XML parsing failed: 1:1: FATAL: Document is empty');
    const summary = await t.api('GET', `/projects/${project.id}/pipelines/${pipeline.id}/test_report_summary`);
    expect(summary.body).toEqual({
      total: { time: 1.75, count: 3, success: 1, failed: 1, skipped: 1, error: 0, suite_error: 'JUnit XML parsing failed: 1:1: FATAL: Document is empty' },
      test_suites: [
        { name: 'build-job', total_time: 1.75, total_count: 3, success_count: 1, failed_count: 1, skipped_count: 1, error_count: 0, build_ids: [build.id], suite_error: null },
        { name: 'test-job', total_time: 0, total_count: 0, success_count: 0, failed_count: 0, skipped_count: 0, error_count: 0, build_ids: [test.id], suite_error: 'JUnit XML parsing failed: 1:1: FATAL: Document is empty' },
      ],
    });
    const report = await t.api('GET', `/projects/${project.id}/pipelines/${pipeline.id}/test_report`);
    expect(report.body).toMatchObject({ total_time: 1.75, total_count: 3, success_count: 1, failed_count: 1, skipped_count: 1, error_count: 0 });
    expect(report.body.test_suites[0].test_cases[1]).toEqual({ status: 'failed', name: 'divides', classname: 'Calc', file: null, execution_time: 1.5, system_output: 'expected 2', stack_trace: 'at line 3' });
    expect(report.body.test_suites[1]).toMatchObject({ suite_error: 'JUnit XML parsing failed: 1:1: FATAL: Document is empty', test_cases: [] });
    const graphql = await t.graphql(
      'query($p: ID!, $id: ID!) { project(fullPath: $p) { pipeline(id: $id) { testReportSummary { total { count failed } testSuites { nodes { name buildIds } } } } } }',
      { p: project.path_with_namespace, id: String(pipeline.id) },
    );
    expect(graphql.body.data.project.pipeline.testReportSummary).toEqual({ total: { count: 3, failed: 1 }, testSuites: { nodes: [{ name: 'build-job', buildIds: [String(build.id)] }, { name: 'test-job', buildIds: [String(test.id)] }] } });
  });
});

describe('GraphQL and live status', () => {
  it('reads pipelines with stages and jobs, and pushes every transition to a subscriber', async () => {
    const project = await projectWithConfig();
    const created = await t.graphql(
      'mutation($p: ID!) { pipelineCreate(input: { projectPath: $p, ref: "main" }) { pipeline { id iid status } errors } }',
      { p: project.path_with_namespace },
    );
    const pipeline = created.body.data.pipelineCreate.pipeline;
    expect(pipeline).toMatchObject({ iid: '2', status: 'PENDING' });
    const read = await t.graphql(
      'query($p: ID!) { project(fullPath: $p) { pipeline(iid: "2") { status detailedStatus { group } stages { nodes { name status jobs { nodes { name status } } } } } } }',
      { p: project.path_with_namespace },
    );
    expect(read.body.data.project.pipeline.stages.nodes).toEqual([
      { name: 'build', status: 'pending', jobs: { nodes: [{ name: 'build-job', status: 'PENDING' }] } },
      { name: 'test', status: 'created', jobs: { nodes: [{ name: 'test-job', status: 'CREATED' }] } },
      { name: 'deploy', status: 'created', jobs: { nodes: [{ name: 'manual-deploy', status: 'CREATED' }] } },
    ]);

    const client = createClient({ url: `${t.url.replace('http', 'ws')}/api/graphql`, webSocketImpl: WebSocket, connectionParams: { 'PRIVATE-TOKEN': t.rootToken }, retryAttempts: 0 });
    const seen: string[] = [];
    const waiters: { status: string; resolve: () => void }[] = [];
    const heard = (status: string) => new Promise<void>((resolve) => (seen.includes(status) ? resolve() : waiters.push({ status, resolve })));
    client.subscribe<{ ciPipelineStatusUpdated: { status: string } }>(
      { query: 'subscription($id: ID!) { ciPipelineStatusUpdated(pipelineId: $id) { status } }', variables: { id: pipeline.id } },
      {
        next: (msg) => {
          const status = msg.data?.ciPipelineStatusUpdated?.status;
          if (!status) return;
          seen.push(status);
          for (const w of waiters.filter((w) => w.status === status)) w.resolve();
        },
        error: () => {},
        complete: () => {},
      },
    );
    try {
      // graphql-ws does not acknowledge a subscription: cancel and retry until the subscriber hears a change.
      for (let attempt = 0; seen.length === 0 && attempt < 40; attempt++) {
        await t.graphql('mutation($id: ID!) { pipelineCancel(input: { id: $id }) { errors } }', { id: pipeline.id });
        await t.graphql('mutation($id: ID!) { pipelineRetry(input: { id: $id }) { errors } }', { id: pipeline.id });
        await Promise.race([heard('PENDING'), new Promise((r) => setTimeout(r, 250))]);
      }
      await heard('PENDING');
      const from = seen.length;
      const canceled = new Promise<void>((resolve) => waiters.push({ status: 'CANCELED', resolve }));
      await t.graphql('mutation($id: ID!) { pipelineCancel(input: { id: $id }) { errors } }', { id: pipeline.id });
      await canceled;
      expect(seen.slice(from)).toEqual(['CANCELED']);
      const pending = new Promise<void>((resolve) => waiters.push({ status: 'PENDING', resolve }));
      await t.graphql('mutation($id: ID!) { pipelineRetry(input: { id: $id }) { errors } }', { id: pipeline.id });
      await pending;
      expect(seen.slice(from)).toEqual(['CANCELED', 'PENDING']);
    } finally {
      await client.dispose();
    }
  });

  it('works through gitbeaker', async () => {
    const project = await projectWithConfig();
    const api = new Gitlab({ host: t.url, token: t.rootToken });
    const created = await api.Pipelines.create(project.id, 'main', { variables: [{ key: 'X', value: 'y' }] });
    expect(created).toMatchObject({ ref: 'main', status: 'pending', source: 'api' });
    const all = await api.Pipelines.all(project.id);
    expect(all.map((p) => p.id)).toContain(created.id);
    expect((await api.Pipelines.show(project.id, created.id)).id).toBe(created.id);
    const jobs = await api.Jobs.all(project.id, { pipelineId: created.id });
    expect(jobs.map((j) => j.name)).toEqual(['build-job', 'test-job', 'manual-deploy']);
    expect((await api.Pipelines.cancel(project.id, created.id)).status).toBe('canceled');
    expect((await api.Pipelines.retry(project.id, created.id)).status).toBe('pending');
    expect(await api.Pipelines.allVariables(project.id, created.id)).toEqual([{ variable_type: 'env_var', key: 'X', value: 'y' }]);
  });
});
