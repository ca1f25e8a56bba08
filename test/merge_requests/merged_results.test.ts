/**
 * Merged results pipelines (GitLab's merge_pipelines_enabled): with the setting on, a merge request pipeline runs on
 * refs/merge-requests/<iid>/merge, the source head merged into the target head, with GitLab's merged_result
 * variables, and falls back to a detached pipeline on the head when the branches conflict. Pushes to the source or
 * the target branch keep the merge ref current; a new merge request's first pipeline comes from a queued job.
 * Commits are pushed with the git CLI; a job's variables are read from the runner protocol's payload.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { createProject, createUser, addMember, type TestUser } from '../support/factories.js';
import { cloneUrl, gitSandbox } from '../support/git.js';
import { suiteServer } from '../support/server.js';
import { createRunner, eventually, requestJob, runnerCall, RUNNER_INFO } from '../runners/support.js';

const t = suiteServer({ ciLongPollingMs: 0 });
const sandbox = gitSandbox();

const CONFIG = `mr-job:
  rules:
    - if: $CI_PIPELINE_SOURCE == "merge_request_event"
  script: echo "$CI_MERGE_REQUEST_EVENT_TYPE"
`;

interface Repo {
  project: { id: number; path_with_namespace: string };
  dir: string;
  runnerToken: string;
}

/** A project whose main (with CONFIG) is pushed from a clone, a project runner of it, and `merge_pipelines_enabled` as given. */
async function repoWith(mergePipelines: boolean): Promise<Repo> {
  const project = await createProject(t, t.rootToken);
  const dir = join(sandbox.folder(), 'repo');
  await sandbox.ok(join(dir, '..'), ['clone', '--quiet', cloneUrl(t.url, project.path_with_namespace, t.rootToken), 'repo']);
  await sandbox.ok(dir, ['checkout', '--quiet', '-b', 'main']);
  await commitFiles(dir, { '.gitlab-ci.yml': CONFIG, 'shared.txt': 'base\n' }, 'Base');
  await sandbox.ok(dir, ['push', '--quiet', 'origin', 'main']);
  const put = await t.api('PUT', `/projects/${project.id}`, { body: { merge_pipelines_enabled: mergePipelines } });
  expect(put.status, put.text).toBe(200);
  expect(put.body.merge_pipelines_enabled).toBe(mergePipelines);
  const { token } = await createRunner(t, { runner_type: 'project_type', project_id: project.id });
  return { project, dir, runnerToken: token };
}

async function commitFiles(dir: string, files: Record<string, string>, message: string): Promise<string> {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  await sandbox.ok(dir, ['add', '-A']);
  await sandbox.ok(dir, ['commit', '--quiet', '-m', message]);
  return (await sandbox.ok(dir, ['rev-parse', 'HEAD'])).trim();
}

/** Commits `files` on `branch` (made from `from` when new) and pushes it; the new head. */
async function pushTo(repo: Repo, branch: string, files: Record<string, string>, from = 'main'): Promise<string> {
  const exists = (await sandbox.run(repo.dir, ['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`])).code === 0;
  await sandbox.ok(repo.dir, exists ? ['checkout', '--quiet', branch] : ['checkout', '--quiet', '-b', branch, from]);
  const sha = await commitFiles(repo.dir, files, `Change on ${branch}`);
  await sandbox.ok(repo.dir, ['push', '--quiet', 'origin', branch]);
  return sha;
}

async function openMr(repo: Repo, source: string): Promise<number> {
  const res = await t.api('POST', `/projects/${repo.project.id}/merge_requests`, { body: { source_branch: source, target_branch: 'main', title: `MR ${source}` } });
  expect(res.status, res.text).toBe(201);
  return res.body.iid;
}

/** The merge request's newest merge_request_event pipeline once one exists (made by a background job). */
function mrPipeline(repo: Repo, iid: number, where: (p: { sha: string }) => boolean = () => true): Promise<{ id: number; ref: string; sha: string; source: string }> {
  return eventually(async () => {
    const res = await t.api('GET', `/projects/${repo.project.id}/merge_requests/${iid}/pipelines`);
    expect(res.status).toBe(200);
    return (res.body as { id: number; ref: string; sha: string; source: string }[]).find((p) => p.source === 'merge_request_event' && where(p));
  });
}

const variablesOf = (job: { variables: { key: string; value: string }[] }) => Object.fromEntries(job.variables.map((v) => [v.key, v.value]));

const MR_QUERY = `query($path: ID!, $iid: String!) { project(fullPath: $path) { mergeRequest(iid: $iid) { mergeRefHeadSha headPipeline { sha mergeRequestEventType } } } }`;

async function mrFields(repo: Repo, iid: number) {
  const res = await t.graphql(MR_QUERY, { path: repo.project.path_with_namespace, iid: String(iid) });
  expect(res.body.errors).toBeUndefined();
  return res.body.data.project.mergeRequest as { mergeRefHeadSha: string | null; headPipeline: { sha: string; mergeRequestEventType: string | null } | null };
}

async function parentsOf(repo: Repo, sha: string): Promise<string[]> {
  const res = await t.api('GET', `/projects/${repo.project.id}/repository/commits/${sha}`);
  expect(res.status, res.text).toBe(200);
  return res.body.parent_ids;
}

describe('merged results pipelines', () => {
  it('run on the merge ref with merged_result variables, follow the target branch, and decide the CI merge check', async () => {
    const repo = await repoWith(true);
    const source = await pushTo(repo, 'feature', { 'a.txt': 'a\n' });
    const target = await pushTo(repo, 'main', { 'b.txt': 'b\n' });
    const iid = await openMr(repo, 'feature');

    const pipeline = await mrPipeline(repo, iid);
    expect(pipeline.ref).toBe(`refs/merge-requests/${iid}/merge`);
    expect(pipeline.sha).not.toBe(source);
    expect(await parentsOf(repo, pipeline.sha)).toEqual([target, source]);
    // The merge ref names the commit the pipeline ran on, and asking for it again writes nothing new.
    const fields = await mrFields(repo, iid);
    expect(fields.mergeRefHeadSha).toBe(pipeline.sha);
    expect(fields.headPipeline).toEqual({ sha: pipeline.sha, mergeRequestEventType: 'MERGED_RESULT' });
    expect((await t.api('GET', `/projects/${repo.project.id}/merge_requests/${iid}/merge_ref`)).body).toEqual({ commit_id: pipeline.sha });

    const job = await requestJob(t, repo.runnerToken);
    expect(job.git_info).toMatchObject({ ref: `refs/merge-requests/${iid}/merge`, sha: pipeline.sha });
    expect(variablesOf(job)).toMatchObject({
      CI_PIPELINE_SOURCE: 'merge_request_event',
      CI_COMMIT_SHA: pipeline.sha,
      CI_COMMIT_REF_NAME: 'feature',
      CI_MERGE_REQUEST_IID: String(iid),
      CI_MERGE_REQUEST_REF_PATH: `refs/merge-requests/${iid}/head`,
      CI_MERGE_REQUEST_EVENT_TYPE: 'merged_result',
      CI_MERGE_REQUEST_SOURCE_BRANCH_SHA: source,
      CI_MERGE_REQUEST_TARGET_BRANCH_SHA: target,
      CI_MERGE_REQUEST_SOURCE_BRANCH_NAME: 'feature',
      CI_MERGE_REQUEST_TARGET_BRANCH_NAME: 'main',
    });
    expect(variablesOf(job).CI_COMMIT_BRANCH).toBeUndefined();

    // With only_allow_merge_if_pipeline_succeeds, the merged results pipeline of the current source head decides.
    expect((await t.api('PUT', `/projects/${repo.project.id}`, { body: { only_allow_merge_if_pipeline_succeeds: true } })).status).toBe(200);
    const status = async () => (await t.api('GET', `/projects/${repo.project.id}/merge_requests/${iid}`)).body.detailed_merge_status;
    expect(await status()).toBe('ci_still_running');
    const done = await runnerCall(t, 'PUT', `/jobs/${job.id}`, { token: job.token, info: RUNNER_INFO, state: 'success' });
    expect(done.status, done.text).toBe(200);
    await eventually(async () => (await status()) === 'mergeable');

    // A push to the target branch moves the merge ref onto the new target head, in the background.
    const target2 = await pushTo(repo, 'main', { 'c.txt': 'c\n' });
    const moved = await eventually(async () => {
      const sha = (await mrFields(repo, iid)).mergeRefHeadSha;
      return sha !== pipeline.sha && sha;
    });
    expect(await parentsOf(repo, moved)).toEqual([target2, source]);

    // A push to the source branch makes a merged results pipeline of the new head; the old one no longer counts.
    const source2 = await pushTo(repo, 'feature', { 'a.txt': 'a2\n' });
    const next = await mrPipeline(repo, iid, (p) => p.sha !== pipeline.sha);
    expect(next.ref).toBe(`refs/merge-requests/${iid}/merge`);
    expect(await parentsOf(repo, next.sha)).toEqual([target2, source2]);
    expect((await mrFields(repo, iid)).mergeRefHeadSha).toBe(next.sha);
    expect(await status()).toBe('ci_still_running');
  });

  it('run detached on the head when the setting is off', async () => {
    const repo = await repoWith(false);
    const source = await pushTo(repo, 'topic', { 'a.txt': 'a\n' });
    await pushTo(repo, 'main', { 'b.txt': 'b\n' });
    const iid = await openMr(repo, 'topic');
    const pipeline = await mrPipeline(repo, iid);
    expect(pipeline).toMatchObject({ ref: `refs/merge-requests/${iid}/head`, sha: source });
    expect((await mrFields(repo, iid)).headPipeline).toEqual({ sha: source, mergeRequestEventType: 'DETACHED' });
    const job = await requestJob(t, repo.runnerToken);
    expect(job.git_info).toMatchObject({ ref: `refs/merge-requests/${iid}/head`, sha: source });
    expect(variablesOf(job)).toMatchObject({ CI_COMMIT_SHA: source, CI_MERGE_REQUEST_EVENT_TYPE: 'detached', CI_MERGE_REQUEST_SOURCE_BRANCH_SHA: '', CI_MERGE_REQUEST_TARGET_BRANCH_SHA: '' });

    // A merge ref written once (GET …/merge_ref) follows later pushes to the target and to the source branch.
    const written = (await t.api('GET', `/projects/${repo.project.id}/merge_requests/${iid}/merge_ref`)).body.commit_id as string;
    const target2 = await pushTo(repo, 'main', { 'c.txt': 'c\n' });
    const afterTarget = await eventually(async () => {
      const sha = (await mrFields(repo, iid)).mergeRefHeadSha;
      return sha !== written && sha;
    });
    expect(await parentsOf(repo, afterTarget)).toEqual([target2, source]);
    const source2 = await pushTo(repo, 'topic', { 'a.txt': 'a2\n' });
    const afterSource = await eventually(async () => {
      const sha = (await mrFields(repo, iid)).mergeRefHeadSha;
      return sha !== afterTarget && sha;
    });
    expect(await parentsOf(repo, afterSource)).toEqual([target2, source2]);
    // Its pipeline stays detached, on the new head.
    expect(await mrPipeline(repo, iid, (p) => p.sha === source2)).toMatchObject({ ref: `refs/merge-requests/${iid}/head` });
  });

  it('fall back to a detached pipeline when the branches conflict', async () => {
    const repo = await repoWith(true);
    const source = await pushTo(repo, 'clash', { 'shared.txt': 'from the branch\n' });
    await pushTo(repo, 'main', { 'shared.txt': 'from main\n' });
    const iid = await openMr(repo, 'clash');
    const pipeline = await mrPipeline(repo, iid);
    expect(pipeline).toMatchObject({ ref: `refs/merge-requests/${iid}/head`, sha: source });
    const fields = await mrFields(repo, iid);
    expect(fields).toEqual({ mergeRefHeadSha: null, headPipeline: { sha: source, mergeRequestEventType: 'DETACHED' } });
    const job = await requestJob(t, repo.runnerToken);
    expect(variablesOf(job)).toMatchObject({ CI_MERGE_REQUEST_EVENT_TYPE: 'detached', CI_MERGE_REQUEST_TARGET_BRANCH_SHA: '' });
    // The API makes another one, detached as well.
    const again = await t.api('POST', `/projects/${repo.project.id}/merge_requests/${iid}/pipelines`);
    expect(again.status, again.text).toBe(201);
    expect(again.body).toMatchObject({ ref: `refs/merge-requests/${iid}/head`, sha: source });
  });
});

describe('merge_pipelines_enabled', () => {
  let developer: TestUser;
  let project: { id: number; path_with_namespace: string };
  beforeAll(async () => {
    developer = await createUser(t);
    project = await createProject(t, t.rootToken);
    await addMember(t, t.rootToken, 'projects', project.id, developer.id, 30);
  });

  const SETTINGS = `query($path: ID!) { project(fullPath: $path) { ciCdSettings { mergePipelinesEnabled } } }`;
  const UPDATE = `mutation($path: ID!, $on: Boolean) { projectCiCdSettingsUpdate(input: { fullPath: $path, mergePipelinesEnabled: $on }) { errors ciCdSettings { mergePipelinesEnabled } } }`;

  it('is off by default and shown in the project entity, for everyone who sees it', async () => {
    expect((await t.api('GET', `/projects/${project.id}`)).body.merge_pipelines_enabled).toBe(false);
    expect((await t.api('GET', `/projects/${project.id}`, { token: developer.token })).body.merge_pipelines_enabled).toBe(false);
    expect((await t.graphql(SETTINGS, { path: project.path_with_namespace })).body.data.project.ciCdSettings).toEqual({ mergePipelinesEnabled: false });
  });

  it('is set by Maintainers through projectCiCdSettingsUpdate and PUT /projects/:id', async () => {
    const on = await t.graphql(UPDATE, { path: project.path_with_namespace, on: true });
    expect(on.body.data.projectCiCdSettingsUpdate).toEqual({ errors: [], ciCdSettings: { mergePipelinesEnabled: true } });
    expect((await t.api('GET', `/projects/${project.id}`)).body.merge_pipelines_enabled).toBe(true);

    const refused = await t.graphql(UPDATE, { path: project.path_with_namespace, on: false }, developer.token);
    expect(refused.body.errors?.[0].message).toMatch(/does not exist or you don't have permission/);
    expect((await t.api('PUT', `/projects/${project.id}`, { token: developer.token, body: { merge_pipelines_enabled: false } })).status).toBe(403);

    const off = await t.api('PUT', `/projects/${project.id}`, { body: { merge_pipelines_enabled: false } });
    expect(off.status, off.text).toBe(200);
    expect(off.body.merge_pipelines_enabled).toBe(false);
    expect((await t.graphql(SETTINGS, { path: project.path_with_namespace })).body.data.project.ciCdSettings).toEqual({ mergePipelinesEnabled: false });
  });

  it('is taken by POST /projects', async () => {
    const made = await t.api('POST', '/projects', { body: { name: `merged-${Date.now()}`, merge_pipelines_enabled: true } });
    expect(made.status, made.text).toBe(201);
    expect(made.body.merge_pipelines_enabled).toBe(true);
  });
});
