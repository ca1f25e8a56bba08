/**
 * Rebasing merge requests (`PUT …/rebase`, GraphQL's mergeRequestRebase): who may ask (403 without push rights to
 * the source branch, 404 where the project is hidden), 409 while one is in progress, the background job replaying the
 * source branch onto the target with real git (read back from a fresh clone), its push (a pipeline, or a skipped one
 * with `skip_ci`), and GitLab's merge_error on a conflict.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { Gitlab } from '@gitbeaker/rest';
import { suiteServer } from '../support/server.js';
import { addMember, createProject, createUser, type TestUser } from '../support/factories.js';
import { cloneUrl, gitSandbox } from '../support/git.js';

const t = suiteServer({ logLevel: 'error' });
const sandbox = gitSandbox();
const REBASE_ERROR = 'Rebase failed: Rebase locally, resolve all conflicts, then push the branch.';

let owner: TestUser;
let developer: TestUser;
let reporter: TestUser;
let stranger: TestUser;
let project: { id: number; path_with_namespace: string };

async function commit(branch: string, files: Record<string, string>, options: { start?: string; message?: string; token?: string } = {}) {
  const current = await t.api('GET', `/projects/${project.id}/repository/files/${encodeURIComponent(Object.keys(files)[0])}?ref=${encodeURIComponent(options.start ?? branch)}`, { token: owner.token });
  const res = await t.api('POST', `/projects/${project.id}/repository/commits`, {
    token: options.token ?? owner.token,
    body: {
      branch,
      ...(options.start ? { start_branch: options.start } : {}),
      commit_message: options.message ?? `Change ${Object.keys(files).join(', ')}`,
      actions: Object.entries(files).map(([file_path, content]) => ({ action: current.status === 200 ? 'update' : 'create', file_path, content })),
    },
  });
  if (res.status !== 201) throw new Error(`commit: ${res.status} ${res.text}`);
  return res.body as { id: string };
}

const mrs = (suffix = '') => `/projects/${project.id}/merge_requests${suffix}`;

async function openMergeRequest(source: string, title: string): Promise<{ iid: number; sha: string }> {
  const res = await t.api('POST', mrs(), { token: developer.token, body: { source_branch: source, target_branch: 'main', title } });
  if (res.status !== 201) throw new Error(`create: ${res.status} ${res.text}`);
  return res.body;
}

async function branchHead(name: string): Promise<string> {
  const res = await t.api('GET', `/projects/${project.id}/repository/branches/${name}`, { token: owner.token });
  return res.body.commit.id;
}

beforeAll(async () => {
  [owner, developer, reporter, stranger] = await Promise.all([1, 2, 3, 4].map(() => createUser(t)));
  project = await createProject(t, owner.token);
  await addMember(t, owner.token, 'projects', project.id, developer.id, 30);
  await addMember(t, owner.token, 'projects', project.id, reporter.id, 20);
  await commit('main', { 'README.md': '# Project\n', 'app.txt': 'one\ntwo\nthree\n' });
  await commit('main', { '.gitlab-ci.yml': 'test:\n  script: echo ok\n' });
});

describe('PUT …/rebase', () => {
  it('answers 401, 404 and 403 as GitLab does to those who may not rebase', async () => {
    await commit('guarded', { 'guarded.txt': 'g\n' }, { start: 'main' });
    const mr = await openMergeRequest('guarded', 'Guarded');
    expect((await t.api('PUT', mrs(`/${mr.iid}/rebase`), { token: null })).status).toBe(401);
    const hidden = await t.api('PUT', mrs(`/${mr.iid}/rebase`), { token: stranger.token });
    expect([hidden.status, hidden.body]).toEqual([404, { message: '404 Project Not Found' }]);
    const reporterTry = await t.api('PUT', mrs(`/${mr.iid}/rebase`), { token: reporter.token });
    expect([reporterTry.status, reporterTry.body]).toEqual([403, { message: '403 Forbidden - Cannot push to source branch' }]);
    const missing = await t.api('PUT', mrs('/999/rebase'), { token: developer.token });
    expect([missing.status, missing.body]).toEqual([404, { message: '404 Merge Request Not Found' }]);
    await t.api('DELETE', `/projects/${project.id}/repository/branches/guarded`, { token: owner.token });
    const gone = await t.api('PUT', mrs(`/${mr.iid}/rebase`), { token: developer.token });
    expect([gone.status, gone.body]).toEqual([403, { message: '403 Forbidden - Source branch does not exist' }]);
  });

  it('queues the rebase (202, 409 while in progress), replays the branch onto the target and runs its pipeline', async () => {
    await commit('feature', { 'feature.txt': 'first\n' }, { start: 'main', message: 'Add feature' });
    const before = await commit('feature', { 'app.txt': 'one\ntwo\nthree\nfour\n' }, { message: 'Add four' });
    const mr = await openMergeRequest('feature', 'Feature');
    const main = await commit('main', { 'other.txt': 'upstream\n' }, { message: 'Upstream change' });

    const jobs = t.server.app.jobs;
    await jobs.stop();
    try {
      const api = new Gitlab({ host: t.url, token: developer.token });
      expect(await api.MergeRequests.rebase(project.id, mr.iid)).toEqual({ rebase_in_progress: true });
      const again = await t.api('PUT', mrs(`/${mr.iid}/rebase`), { token: developer.token });
      expect([again.status, again.body]).toEqual([409, { message: '409 Conflict: Resource lock' }]);
      const shown = await t.api('GET', mrs(`/${mr.iid}?include_rebase_in_progress=true`), { token: reporter.token });
      expect(shown.body.rebase_in_progress).toBe(true);
      expect('rebase_in_progress' in (await t.api('GET', mrs(`/${mr.iid}`), { token: reporter.token })).body).toBe(false);
      await jobs.drain(60_000);
    } finally {
      jobs.start();
    }
    await jobs.drain(60_000);

    const after = await t.api('GET', mrs(`/${mr.iid}?include_rebase_in_progress=true`), { token: developer.token });
    const head = await branchHead('feature');
    expect(head).not.toBe(before.id);
    expect(after.body).toMatchObject({ rebase_in_progress: false, merge_error: null, sha: head, diff_refs: { base_sha: main.id, start_sha: main.id, head_sha: head } });
    const commits = await t.api('GET', mrs(`/${mr.iid}/commits`), { token: developer.token });
    expect(commits.body.map((c: { title: string }) => c.title)).toEqual(['Add four', 'Add feature']);

    // A fresh clone has the rebased history: the feature commits on top of main, authors kept, the rebaser committing.
    const dir = sandbox.folder();
    await sandbox.ok(dir, ['clone', '--quiet', cloneUrl(t.url, project.path_with_namespace, owner.token), 'repo']);
    const repo = `${dir}/repo`;
    expect((await sandbox.ok(repo, ['rev-parse', 'origin/feature'])).trim()).toBe(head);
    expect((await sandbox.ok(repo, ['rev-parse', 'origin/feature~2'])).trim()).toBe(main.id);
    const log = await sandbox.ok(repo, ['log', '--format=%s|%an|%cn', 'origin/main..origin/feature']);
    const rebaser = `User ${developer.username}`;
    const author = `User ${owner.username}`;
    expect(log.trim().split('\n')).toEqual([`Add four|${author}|${rebaser}`, `Add feature|${author}|${rebaser}`]);
    expect(await sandbox.ok(repo, ['show', 'origin/feature:other.txt'])).toBe('upstream\n');

    // The rebase was a push: a pipeline for the new head.
    const pipelines = await t.api('GET', `/projects/${project.id}/pipelines?ref=feature&sha=${head}`, { token: developer.token });
    expect(pipelines.body).toHaveLength(1);
    expect(pipelines.body[0].status).not.toBe('skipped');
  }, 120_000);

  it('skips the pipeline with skip_ci, and is a no-op when already up to date', async () => {
    await commit('quiet', { 'quiet.txt': 'q\n' }, { start: 'main', message: 'Quiet' });
    const mr = await openMergeRequest('quiet', 'Quiet');
    await commit('main', { 'more.txt': 'more\n' }, { message: 'More upstream' });
    const res = await t.api('PUT', mrs(`/${mr.iid}/rebase`), { token: developer.token, body: { skip_ci: true } });
    expect([res.status, res.body]).toEqual([202, { rebase_in_progress: true }]);
    await t.server.app.jobs.drain(60_000);
    const head = await branchHead('quiet');
    expect(head).not.toBe(mr.sha);
    const pipelines = await t.api('GET', `/projects/${project.id}/pipelines?ref=quiet&sha=${head}`, { token: developer.token });
    expect(pipelines.body.map((p: { status: string }) => p.status)).toEqual(['skipped']);

    const again = await t.api('PUT', mrs(`/${mr.iid}/rebase`), { token: developer.token });
    expect(again.status).toBe(202);
    await t.server.app.jobs.drain(60_000);
    expect(await branchHead('quiet')).toBe(head);
    const shown = await t.api('GET', mrs(`/${mr.iid}?include_rebase_in_progress=true`), { token: developer.token });
    expect(shown.body).toMatchObject({ rebase_in_progress: false, merge_error: null, sha: head });
  });

  it('keeps GitLab’s merge_error and leaves the branch as it was when the rebase conflicts', async () => {
    const source = await commit('clash', { 'app.txt': 'one\nTWO (branch)\nthree\n' }, { start: 'main', message: 'Branch edit' });
    const mr = await openMergeRequest('clash', 'Clash');
    await commit('main', { 'app.txt': 'one\nTWO (main)\nthree\n' }, { message: 'Main edit' });
    const res = await t.api('PUT', mrs(`/${mr.iid}/rebase`), { token: developer.token });
    expect(res.status).toBe(202);
    await t.server.app.jobs.drain(60_000);
    expect(await branchHead('clash')).toBe(source.id);
    const shown = await t.api('GET', mrs(`/${mr.iid}?include_rebase_in_progress=true`), { token: developer.token });
    expect(shown.body).toMatchObject({ rebase_in_progress: false, merge_error: REBASE_ERROR, sha: source.id, has_conflicts: true });
  });

  it('answers 409 for a merge request that is not open', async () => {
    await commit('closed', { 'closed.txt': 'c\n' }, { start: 'main' });
    const mr = await openMergeRequest('closed', 'Closed');
    await t.api('PUT', mrs(`/${mr.iid}`), { token: developer.token, body: { state_event: 'close' } });
    const res = await t.api('PUT', mrs(`/${mr.iid}/rebase`), { token: developer.token });
    expect([res.status, res.body]).toEqual([409, { message: '409 Conflict: Resource lock' }]);
  });
});

describe('GraphQL', () => {
  it('mergeRequestRebase queues the rebase; MergeRequest shows rebaseInProgress and rebaseCommitSha', async () => {
    await commit('graph', { 'graph.txt': 'g\n' }, { start: 'main', message: 'Graph' });
    const mr = await openMergeRequest('graph', 'Graph');
    await commit('main', { 'graph-main.txt': 'm\n' });
    const mutation = `mutation($path: ID!, $iid: String!) { mergeRequestRebase(input: { projectPath: $path, iid: $iid }) { errors rebaseInProgress mergeRequest { rebaseInProgress } } }`;
    const denied = await t.graphql(mutation, { path: project.path_with_namespace, iid: String(mr.iid) }, reporter.token);
    expect(denied.body.data?.mergeRequestRebase ?? null).toBeNull();
    expect(denied.body.errors?.length).toBeGreaterThan(0);
    const res = await t.graphql(mutation, { path: project.path_with_namespace, iid: String(mr.iid) }, developer.token);
    expect(res.body.data).toEqual({ mergeRequestRebase: { errors: [], rebaseInProgress: true, mergeRequest: { rebaseInProgress: true } } });
    await t.server.app.jobs.drain(60_000);
    const query = `query($path: ID!, $iid: String!) { project(fullPath: $path) { mergeRequest(iid: $iid) { rebaseInProgress rebaseCommitSha mergeError diffHeadSha } } }`;
    const read = await t.graphql(query, { path: project.path_with_namespace, iid: String(mr.iid) }, developer.token);
    const head = await branchHead('graph');
    expect(read.body.data.project.mergeRequest).toEqual({ rebaseInProgress: false, rebaseCommitSha: head, mergeError: null, diffHeadSha: head });
  });
});
