/**
 * Merge request pipelines of a merge request from a fork, as GitLab's MergeRequests::CreatePipelineService makes
 * them: the contributor (no member of the upstream) gets them in the fork, on the fork's branch, when the merge
 * request is opened and when they push to the fork branch (git CLI over HTTP); the upstream's developers run one in
 * the parent project through `POST …/pipelines` (on refs/merge-requests/<iid>/head, which only fetch_ref! writes);
 * CI_MERGE_REQUEST_* tell the target from the source project in both; `GET …/pipelines` and `head_pipeline` show
 * the fork's pipelines, and hide them from whoever may not read the fork's pipelines. A parent that turns off
 * ci_allow_fork_pipelines_to_run_in_parent_project has them run in the fork again.
 */
import { writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { Gitlab } from '@gitbeaker/rest';
import { beforeAll, describe, expect, it } from 'vitest';
import { suiteServer } from '../support/server.js';
import { addMember, apiOk, createProject, createUser, type TestUser } from '../support/factories.js';
import { cloneUrl, gitSandbox } from '../support/git.js';
import { commit, eventually, jobsOf, withShellRunner } from '../runners/support.js';

const t = suiteServer({ logLevel: 'error', ciLongPollingMs: 2000 });
withShellRunner(t);
const sandbox = gitSandbox();

const CONFIG = `
mr-job:
  rules:
    - if: $CI_PIPELINE_SOURCE == "merge_request_event"
  script:
    - echo "in $CI_PROJECT_ID ref $CI_COMMIT_REF_NAME mr $CI_MERGE_REQUEST_IID of $CI_MERGE_REQUEST_PROJECT_ID $CI_MERGE_REQUEST_PROJECT_PATH from $CI_MERGE_REQUEST_SOURCE_PROJECT_ID $CI_MERGE_REQUEST_SOURCE_PROJECT_PATH $CI_MERGE_REQUEST_SOURCE_BRANCH_NAME refpath $CI_MERGE_REQUEST_REF_PATH"
`;
const FINISHED = ['success', 'failed', 'canceled', 'skipped'];

let maintainer: TestUser;
let contributor: TestUser;
let upstream: { id: number; path_with_namespace: string };
let fork: { id: number; path_with_namespace: string };
let work: string;
let iid: number;

const mrPath = (suffix = '') => `/projects/${upstream.id}/merge_requests/${iid}${suffix}`;
type Pipeline = { id: number; project_id: number; ref: string; sha: string; source: string };

async function pushToFork(file: string, content: string, message: string): Promise<string> {
  writeFileSync(`${work}/${file}`, content);
  await sandbox.ok(work, ['add', file]);
  await sandbox.ok(work, ['commit', '--quiet', '-m', message]);
  await sandbox.ok(work, ['push', '--quiet', 'origin', 'HEAD:feature']);
  return (await sandbox.ok(work, ['rev-parse', 'HEAD'])).trim();
}

async function traceOf(token: string, projectId: number, pipelineId: number): Promise<string> {
  const [job] = await eventually(async () => {
    const jobs = await jobsOf(t, projectId, pipelineId);
    return jobs.length > 0 && jobs.every((j) => FINISHED.includes(j.status)) && jobs;
  }, 60_000);
  expect(job).toMatchObject({ name: 'mr-job', status: 'success' });
  return (await t.api('GET', `/projects/${projectId}/jobs/${job.id}/trace`, { token })).text;
}

beforeAll(async () => {
  [maintainer, contributor] = await Promise.all([createUser(t), createUser(t)]);
  upstream = await createProject(t, maintainer.token, { visibility: 'public' });
  await commit(t, upstream.id, { '.gitlab-ci.yml': CONFIG, 'README.md': '# Upstream\n' }, 'main', maintainer.token);
  fork = await apiOk(t, contributor.token, 'POST', `/projects/${upstream.id}/fork`, {});
  const dir = sandbox.folder();
  await sandbox.ok(dir, ['clone', '--quiet', cloneUrl(t.url, fork.path_with_namespace, contributor.token), 'fork']);
  work = `${dir}/fork`;
  await sandbox.ok(work, ['checkout', '--quiet', '-b', 'feature', 'origin/main']);
}, 60_000);

describe('merge request pipelines of a fork', () => {
  let first: Pipeline;

  it('run in the fork when the contributor opens the merge request (gitbeaker), with the merge request in CI_MERGE_REQUEST_*', async () => {
    const head = await pushToFork('feature.txt', 'from the fork\n', 'Add feature');
    const api = new Gitlab({ host: t.url, token: contributor.token });
    const mr = (await api.MergeRequests.create(fork.id, 'feature', 'main', 'Feature from a fork', { targetProjectId: upstream.id })) as unknown as { iid: number };
    iid = mr.iid;

    const listed = await eventually(async () => {
      const res = await t.api('GET', mrPath('/pipelines'), { token: maintainer.token });
      expect(res.status).toBe(200);
      return (res.body as Pipeline[]).find((p) => p.source === 'merge_request_event') && (res.body as Pipeline[]);
    });
    first = listed.find((p) => p.source === 'merge_request_event')!;
    // In the fork, on the fork's branch at its head: not on the upstream's merge request ref.
    expect(first).toMatchObject({ project_id: fork.id, ref: 'feature', sha: head });
    const trace = await traceOf(contributor.token, fork.id, first.id);
    expect(trace).toContain(
      `in ${fork.id} ref feature mr ${iid} of ${upstream.id} ${upstream.path_with_namespace} from ${fork.id} ${fork.path_with_namespace} feature refpath refs/merge-requests/${iid}/head`,
    );
    // The upstream ran none of its own for it.
    const own = await t.api('GET', `/projects/${upstream.id}/pipelines?source=merge_request_event`, { token: maintainer.token });
    expect(own.body).toEqual([]);
    // The fork's pipeline is the merge request's head pipeline, through REST and GraphQL.
    const single = await t.api('GET', mrPath(), { token: maintainer.token });
    expect(single.body.head_pipeline).toMatchObject({ id: first.id, project_id: fork.id, sha: head });
    const gql = await t.graphql(`{ project(fullPath: "${upstream.path_with_namespace}") { mergeRequest(iid: "${iid}") { headPipeline { id sha } } } }`, {}, maintainer.token);
    expect(gql.body.errors).toBeUndefined();
    expect(gql.body.data?.project).toMatchObject({ mergeRequest: { headPipeline: { id: `gid://gitlab/Ci::Pipeline/${first.id}`, sha: head } } });
  });

  it('run in the fork again when the contributor pushes to the fork branch with the git CLI', async () => {
    const head = await pushToFork('more.txt', 'more\n', 'Add more');
    const next = await eventually(async () => {
      const res = await t.api('GET', mrPath('/pipelines'), { token: maintainer.token });
      return (res.body as Pipeline[]).find((p) => p.source === 'merge_request_event' && p.sha === head);
    });
    expect(next).toMatchObject({ project_id: fork.id, ref: 'feature' });
    expect(next.id).toBeGreaterThan(first.id);
    const single = await t.api('GET', mrPath(), { token: maintainer.token });
    expect(single.body.head_pipeline).toMatchObject({ id: next.id });
  });

  it('runs in the parent project when an upstream developer asks for one (POST …/pipelines); the contributor may not (403)', async () => {
    const refused = await t.api('POST', mrPath('/pipelines'), { token: contributor.token });
    expect(refused.status).toBe(403);

    const res = await t.api('POST', mrPath('/pipelines'), { token: maintainer.token });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ project_id: upstream.id, ref: `refs/merge-requests/${iid}/head`, source: 'merge_request_event' });
    const trace = await traceOf(maintainer.token, upstream.id, res.body.id);
    expect(trace).toContain(`in ${upstream.id} ref feature mr ${iid} of ${upstream.id} ${upstream.path_with_namespace} from ${fork.id} ${fork.path_with_namespace} feature`);

    // Both projects' merge request pipelines are the merge request's, newest first.
    const listed = await t.api('GET', mrPath('/pipelines'), { token: maintainer.token });
    const mine = (listed.body as Pipeline[]).filter((p) => p.source === 'merge_request_event');
    expect(mine[0]).toMatchObject({ id: res.body.id, project_id: upstream.id });
    expect(mine.slice(1).every((p) => p.project_id === fork.id)).toBe(true);
    expect(listed.headers.get('x-total')).toBe(String(listed.body.length));
  });

  it('hides the fork pipelines from whoever may not read them, and shows the upstream ones', async () => {
    // The fork's pipelines made private to its members: the upstream maintainer no longer reads them.
    await apiOk(t, contributor.token, 'PUT', `/projects/${fork.id}`, { builds_access_level: 'private' });
    const listed = await t.api('GET', mrPath('/pipelines'), { token: maintainer.token });
    expect(listed.status).toBe(200);
    expect((listed.body as Pipeline[]).every((p) => p.project_id === upstream.id)).toBe(true);
    expect(listed.body.length).toBeGreaterThan(0);
    // The contributor reads their fork's and the public upstream's.
    const theirs = await t.api('GET', mrPath('/pipelines'), { token: contributor.token });
    expect(new Set((theirs.body as Pipeline[]).map((p) => p.project_id))).toEqual(new Set([fork.id, upstream.id]));
    await apiOk(t, contributor.token, 'PUT', `/projects/${fork.id}`, { builds_access_level: 'enabled' });
  });

  it('runs in the parent once the contributor is an upstream developer, on the head ref fetch_ref! moved to the fork head', async () => {
    await addMember(t, maintainer.token, 'projects', upstream.id, contributor.id, 30);
    const head = await pushToFork('third.txt', 'third\n', 'Add third');
    const next = await eventually(async () => {
      const res = await t.api('GET', mrPath('/pipelines'), { token: maintainer.token });
      return (res.body as Pipeline[]).find((p) => p.source === 'merge_request_event' && p.sha === head);
    });
    expect(next).toMatchObject({ project_id: upstream.id, ref: `refs/merge-requests/${iid}/head` });
    const path = t.server.app.repositories.path({ id: upstream.id, repositoryStorage: 'default' });
    expect(execFileSync('git', ['--git-dir', path, 'rev-parse', `refs/merge-requests/${iid}/head`]).toString().trim()).toBe(head);
  });

  it('runs in the fork again once the parent stops fork pipelines (ci_allow_fork_pipelines_to_run_in_parent_project)', async () => {
    expect((await apiOk(t, maintainer.token, 'GET', `/projects/${upstream.id}`)).ci_allow_fork_pipelines_to_run_in_parent_project).toBe(true);
    // Shown to Maintainers only, as GitLab's other CI/CD settings.
    expect(await apiOk(t, contributor.token, 'GET', `/projects/${upstream.id}`)).not.toHaveProperty('ci_allow_fork_pipelines_to_run_in_parent_project');
    const put = await apiOk(t, maintainer.token, 'PUT', `/projects/${upstream.id}`, { ci_allow_fork_pipelines_to_run_in_parent_project: false });
    expect(put.ci_allow_fork_pipelines_to_run_in_parent_project).toBe(false);

    const head = await pushToFork('fourth.txt', 'fourth\n', 'Add fourth');
    const next = await eventually(async () => {
      const res = await t.api('GET', mrPath('/pipelines'), { token: maintainer.token });
      return (res.body as Pipeline[]).find((p) => p.source === 'merge_request_event' && p.sha === head);
    });
    expect(next).toMatchObject({ project_id: fork.id, ref: 'feature' });
    // Asked of the parent by its maintainer, it is made in the fork too, where they may not run pipelines.
    const refused = await t.api('POST', mrPath('/pipelines'), { token: maintainer.token });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ message: { base: ['Insufficient permissions to create a new pipeline'] } });
    await apiOk(t, maintainer.token, 'PUT', `/projects/${upstream.id}`, { ci_allow_fork_pipelines_to_run_in_parent_project: true });
  });
});
