/**
 * Merge requests from forks, as GitLab has them: `POST /projects/<fork>/merge_requests` with `target_project_id` opens
 * one in the upstream (numbered there, its source project the fork), the fork's branch fetched into the upstream's
 * repository as refs/merge-requests/<iid>/head so that changes, diffs, commits and mergeability read across the two
 * repositories, and followed when the fork's branch moves; merging into the upstream (read back from a fresh clone),
 * removing the source branch in the fork, rebasing in the fork; GitLab's targeting rules and errors; unlinking or
 * deleting the fork closes its merge requests. Commits reach the fork with the real git CLI over HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Gitlab } from '@gitbeaker/rest';
import { EXTERNAL_URL, suiteServer } from '../support/server.js';
import { addMember, apiOk, createProject, createUser, type TestUser } from '../support/factories.js';
import { cloneUrl, gitSandbox } from '../support/git.js';
import { startReceiver, type Receiver } from '../hooks/receiver.js';

const t = suiteServer({ logLevel: 'error', allowLocalRequestsFromWebHooks: true, webhookRetryBaseMs: 0, webhookMaxAttempts: 1 });
let hooks: Receiver;
const sandbox = gitSandbox();

let maintainer: TestUser;
let contributor: TestUser;
let stranger: TestUser;
let upstream: { id: number; path_with_namespace: string };
let fork: { id: number; path_with_namespace: string };
/** The contributor's clone of the fork. */
let work: string;

async function commitUpstream(branch: string, files: Record<string, string>, options: { start?: string; message?: string } = {}) {
  return apiOk(t, maintainer.token, 'POST', `/projects/${upstream.id}/repository/commits`, {
    branch,
    ...(options.start ? { start_branch: options.start } : {}),
    commit_message: options.message ?? `Change ${Object.keys(files).join(', ')}`,
    actions: Object.entries(files).map(([file_path, content]) => ({ action: 'create', file_path, content })),
  }) as Promise<{ id: string }>;
}

/** Commits files on a branch of the contributor's clone (from `start`, when new) and pushes it to the fork. */
async function pushToFork(branch: string, files: Record<string, string>, message: string, start?: string): Promise<string> {
  if (start) await sandbox.ok(work, ['checkout', '--quiet', '-B', branch, start]);
  else await sandbox.ok(work, ['checkout', '--quiet', branch]);
  for (const [path, content] of Object.entries(files)) {
    await import('node:fs').then((fs) => fs.writeFileSync(`${work}/${path}`, content));
    await sandbox.ok(work, ['add', path]);
  }
  await sandbox.ok(work, ['commit', '--quiet', '-m', message]);
  await sandbox.ok(work, ['push', '--quiet', 'origin', `${branch}:${branch}`]);
  return (await sandbox.ok(work, ['rev-parse', 'HEAD'])).trim();
}

const upstreamMrs = (suffix = '') => `/projects/${upstream.id}/merge_requests${suffix}`;

beforeAll(async () => {
  [maintainer, contributor, stranger] = await Promise.all([1, 2, 3].map(() => createUser(t)));
  upstream = await createProject(t, maintainer.token, { visibility: 'public' });
  await commitUpstream('main', { 'README.md': '# Upstream\n', 'app.txt': 'one\ntwo\nthree\n' });
  // A branch of the upstream named as the fork's: the merge request must read the fork's, never this one.
  await commitUpstream('feature', { 'decoy.txt': 'not the fork\n' }, { start: 'main', message: 'Upstream decoy' });
  fork = await apiOk(t, contributor.token, 'POST', `/projects/${upstream.id}/fork`, { branches: 'main' });
  hooks = await startReceiver();
  await apiOk(t, maintainer.token, 'POST', `/projects/${upstream.id}/hooks`, { url: `${hooks.url}/mr`, push_events: false, merge_requests_events: true });
  const dir = sandbox.folder();
  await sandbox.ok(dir, ['clone', '--quiet', cloneUrl(t.url, fork.path_with_namespace, contributor.token), 'fork']);
  work = `${dir}/fork`;
}, 60_000);
afterAll(() => hooks?.close());

/** The next merge request event the upstream's hook hears. */
async function nextHook(): Promise<any> {
  for (;;) {
    const got = await hooks.next();
    if (got.json?.object_kind === 'merge_request') return got.json;
  }
}

describe('a merge request from a fork', () => {
  let iid: number;
  let first: string;

  it('is opened in the upstream from the fork with target_project_id (gitbeaker), its source the fork', async () => {
    first = await pushToFork('feature', { 'feature.txt': 'from the fork\n' }, 'Add feature', 'origin/main');
    const main = (await apiOk(t, maintainer.token, 'GET', `/projects/${upstream.id}/repository/branches/main`)).commit.id as string;
    const api = new Gitlab({ host: t.url, token: contributor.token });
    const mr = (await api.MergeRequests.create(fork.id, 'feature', 'main', 'Feature from a fork', { targetProjectId: upstream.id })) as unknown as Record<string, any>;
    iid = mr.iid;
    expect(mr).toMatchObject({
      iid: 1,
      project_id: upstream.id,
      source_project_id: fork.id,
      target_project_id: upstream.id,
      source_branch: 'feature',
      target_branch: 'main',
      sha: first,
      allow_collaboration: false,
      allow_maintainer_to_push: false,
      references: { short: '!1', relative: '!1', full: `${upstream.path_with_namespace}!1` },
      web_url: `${EXTERNAL_URL}/${upstream.path_with_namespace}/-/merge_requests/1`,
      diff_refs: { base_sha: main, start_sha: main, head_sha: first },
    });

    // It lives in the upstream: listed and read there by anyone who reads the public upstream, not in the fork.
    const listed = await t.api('GET', upstreamMrs(), { token: stranger.token });
    expect(listed.body.map((m: { iid: number; source_project_id: number }) => [m.iid, m.source_project_id])).toEqual([[1, fork.id]]);
    expect((await t.api('GET', `/projects/${fork.id}/merge_requests`, { token: contributor.token })).body).toEqual([]);
    expect((await t.api('GET', `/projects/${fork.id}/merge_requests/1`, { token: contributor.token })).status).toBe(404);

    // The fork's branch is in the upstream's repository as the merge request's head ref.
    const refs = await sandbox.ok(work, ['ls-remote', cloneUrl(t.url, upstream.path_with_namespace, maintainer.token), 'refs/merge-requests/1/head']);
    expect(refs.split('\t')[0]).toBe(first);

    // The upstream's hooks hear it with the fork as `source` (Gitlab::HookData::MergeRequestBuilder).
    const opened = await nextHook();
    expect(opened.object_attributes).toMatchObject({ action: 'open', iid: 1, source_project_id: fork.id, target_project_id: upstream.id, last_commit: { id: first } });
    expect(opened.object_attributes.source).toMatchObject({ id: fork.id, path_with_namespace: fork.path_with_namespace });
    expect(opened.object_attributes.target).toMatchObject({ id: upstream.id, path_with_namespace: upstream.path_with_namespace });
    expect(opened.project.id).toBe(upstream.id);
  });

  it('shows the changes, diffs, commits and mergeability of the fork branch (not the upstream branch of that name)', async () => {
    const changes = await t.api('GET', upstreamMrs(`/${iid}/changes`), { token: stranger.token });
    expect(changes.status).toBe(200);
    expect(changes.body.changes.map((c: { new_path: string }) => c.new_path)).toEqual(['feature.txt']);
    expect(changes.body.changes[0].diff).toContain('+from the fork');
    const diffs = await t.api('GET', upstreamMrs(`/${iid}/diffs`), { token: stranger.token });
    expect(diffs.body.map((d: { new_path: string }) => d.new_path)).toEqual(['feature.txt']);
    const commits = await t.api('GET', upstreamMrs(`/${iid}/commits`), { token: stranger.token });
    expect(commits.body.map((c: { id: string; title: string }) => [c.id, c.title])).toEqual([[first, 'Add feature']]);
    const shown = await t.api('GET', upstreamMrs(`/${iid}`), { token: maintainer.token });
    expect(shown.body).toMatchObject({ merge_status: 'can_be_merged', detailed_merge_status: 'mergeable', has_conflicts: false, changes_count: '1', user: { can_merge: true } });

    const gql = await t.graphql(
      `query($path: ID!) { project(fullPath: $path) { mergeRequest(iid: "1") { sourceProjectId sourceProject { fullPath } targetProject { fullPath } sourceBranchExists allowCollaboration diffHeadSha } } }`,
      { path: upstream.path_with_namespace },
      maintainer.token,
    );
    expect(gql.body.data.project.mergeRequest).toEqual({
      sourceProjectId: fork.id,
      sourceProject: { fullPath: fork.path_with_namespace },
      targetProject: { fullPath: upstream.path_with_namespace },
      sourceBranchExists: true,
      allowCollaboration: false,
      diffHeadSha: first,
    });
  });

  it('follows a push to the fork branch', async () => {
    // A push to the upstream's branch of the same name moves nothing of it (nor its merge request pipelines).
    await commitUpstream('feature', { 'decoy2.txt': 'still not the fork\n' }, { message: 'Upstream decoy again' });
    await t.server.app.jobs.drain(60_000);
    const kept = await sandbox.ok(work, ['ls-remote', cloneUrl(t.url, upstream.path_with_namespace, maintainer.token), 'refs/merge-requests/1/head']);
    expect(kept.split('\t')[0]).toBe(first);
    const second = await pushToFork('feature', { 'more.txt': 'more\n' }, 'Add more');
    await t.server.app.jobs.drain(60_000);
    // RefreshService on the fork: the upstream's hook hears `update` with the previous head.
    const updated = await nextHook();
    expect(updated.object_attributes).toMatchObject({ action: 'update', oldrev: first, iid: 1, last_commit: { id: second } });
    const refs = await sandbox.ok(work, ['ls-remote', cloneUrl(t.url, upstream.path_with_namespace, maintainer.token), 'refs/merge-requests/1/head']);
    expect(refs.split('\t')[0]).toBe(second);
    const changes = await t.api('GET', upstreamMrs(`/${iid}/changes`), { token: maintainer.token });
    expect(changes.body.sha).toBe(second);
    expect(changes.body.changes.map((c: { new_path: string }) => c.new_path)).toEqual(['feature.txt', 'more.txt']);
    const commits = await t.api('GET', upstreamMrs(`/${iid}/commits`), { token: maintainer.token });
    expect(commits.body.map((c: { title: string }) => c.title)).toEqual(['Add more', 'Add feature']);
    // Its diff versions are the fork branch's heads, not the upstream decoy's.
    const versions = await t.api('GET', upstreamMrs(`/${iid}/versions`), { token: maintainer.token });
    expect(versions.body.map((v: { head_commit_sha: string }) => v.head_commit_sha)).toEqual([second, first]);
  });

  it('is rebased in the fork by whoever may push to its branch (202), and not by an upstream maintainer without (403)', async () => {
    const main = await commitUpstream('main', { 'upstream.txt': 'moved on\n' }, { message: 'Upstream moves on' });
    const refused = await t.api('PUT', upstreamMrs(`/${iid}/rebase`), { token: maintainer.token });
    expect([refused.status, refused.body]).toEqual([403, { message: '403 Forbidden - Cannot push to source branch' }]);
    const res = await t.api('PUT', upstreamMrs(`/${iid}/rebase`), { token: contributor.token });
    expect([res.status, res.body]).toEqual([202, { rebase_in_progress: true }]);
    await t.server.app.jobs.drain(60_000);

    await sandbox.ok(work, ['fetch', '--quiet', 'origin']);
    const head = (await sandbox.ok(work, ['rev-parse', 'origin/feature'])).trim();
    expect((await sandbox.ok(work, ['rev-parse', 'origin/feature~2'])).trim()).toBe(main.id);
    const shown = await t.api('GET', upstreamMrs(`/${iid}?include_rebase_in_progress=true`), { token: maintainer.token });
    expect(shown.body).toMatchObject({ rebase_in_progress: false, merge_error: null, sha: head, diff_refs: { base_sha: main.id, start_sha: main.id, head_sha: head } });
    // The upstream's own branch of that name never moved.
    const decoy = await apiOk(t, maintainer.token, 'GET', `/projects/${upstream.id}/repository/branches/feature`);
    expect(decoy.commit.title).toBe('Upstream decoy again');
  }, 120_000);

  it('is merged into the upstream by its maintainer: a fresh clone of the upstream has the fork commits', async () => {
    const contributorMerge = await t.api('PUT', upstreamMrs(`/${iid}/merge`), { token: contributor.token });
    expect(contributorMerge.status).toBe(401);
    const res = await t.api('PUT', upstreamMrs(`/${iid}/merge`), { token: maintainer.token, body: { should_remove_source_branch: true } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ state: 'merged', source_project_id: fork.id, project_id: upstream.id });
    const dir = sandbox.folder();
    await sandbox.ok(dir, ['clone', '--quiet', cloneUrl(t.url, upstream.path_with_namespace, maintainer.token), 'up']);
    const up = `${dir}/up`;
    expect((await sandbox.ok(up, ['rev-parse', 'origin/main'])).trim()).toBe(res.body.merge_commit_sha);
    expect(await sandbox.ok(up, ['show', 'origin/main:feature.txt'])).toBe('from the fork\n');
    expect(await sandbox.ok(up, ['show', 'origin/main:more.txt'])).toBe('more\n');
    expect((await sandbox.ok(up, ['log', '--format=%s', '-1', 'origin/main'])).trim()).toBe("Merge branch 'feature' into 'main'");
    // The upstream maintainer may not push to the fork: its branch stays (GitLab's can_remove_source_branch?).
    expect((await t.api('GET', `/projects/${fork.id}/repository/branches/feature`, { token: contributor.token })).status).toBe(200);
  }, 120_000);

  it('removes the source branch in the fork when the merger may push there, squashing when asked', async () => {
    await addMember(t, contributor.token, 'projects', fork.id, maintainer.id, 40);
    const head = await pushToFork('squashy', { 'squash.txt': 'one\n' }, 'Squash me', 'origin/main');
    const mr = await apiOk(t, contributor.token, 'POST', `/projects/${fork.id}/merge_requests`, {
      source_branch: 'squashy',
      target_branch: 'main',
      title: 'Squashed from a fork',
      target_project_id: upstream.id,
      remove_source_branch: true,
      allow_collaboration: true,
    });
    expect(mr).toMatchObject({ iid: 2, project_id: upstream.id, source_project_id: fork.id, force_remove_source_branch: true, allow_collaboration: true, allow_maintainer_to_push: true, sha: head });
    const merged = await t.api('PUT', upstreamMrs('/2/merge'), { token: maintainer.token, body: { squash: true } });
    expect(merged.status).toBe(200);
    expect(merged.body.squash_commit_sha).toMatch(/^[0-9a-f]{40}$/);
    expect((await t.api('GET', `/projects/${fork.id}/repository/branches/squashy`, { token: contributor.token })).status).toBe(404);
    const file = await t.api('GET', `/projects/${upstream.id}/repository/files/squash.txt/raw?ref=main`, { token: maintainer.token });
    expect(file.text).toBe('one\n');
  }, 120_000);
});

describe('opening one: GitLab targeting and errors', () => {
  it('refuses a target outside the fork network (422, validate_fork) and a user who may not open one from the project', async () => {
    const other = await createProject(t, maintainer.token, { visibility: 'public' });
    await pushToFork('elsewhere', { 'e.txt': 'e\n' }, 'Elsewhere', 'origin/main');
    const res = await t.api('POST', `/projects/${fork.id}/merge_requests`, {
      token: contributor.token,
      body: { source_branch: 'elsewhere', target_branch: 'main', title: 'Wrong network', target_project_id: other.id },
    });
    expect([res.status, res.body]).toEqual([422, { message: ['Source project is not a fork of the target project'] }]);
    // Someone who sees the public fork but may not push to it: authorize! :create_merge_request_from.
    const stranger403 = await t.api('POST', `/projects/${fork.id}/merge_requests`, {
      token: stranger.token,
      body: { source_branch: 'elsewhere', target_branch: 'main', title: 'Not mine', target_project_id: upstream.id },
    });
    expect([stranger403.status, stranger403.body]).toEqual([403, { message: '403 Forbidden' }]);
    expect((await t.api('POST', `/projects/${fork.id}/merge_requests`, { token: null, body: { source_branch: 'elsewhere', target_branch: 'main', title: 'x' } })).status).toBe(401);
  });

  it('falls back to the upstream, as BuildService does, when the asked target is hidden or none is given', async () => {
    const hidden = await createProject(t, stranger.token, { visibility: 'private' });
    await pushToFork('fallback', { 'f.txt': 'f\n' }, 'Fallback', 'origin/main');
    const res = await t.api('POST', `/projects/${fork.id}/merge_requests`, {
      token: contributor.token,
      body: { source_branch: 'fallback', target_branch: 'main', title: 'Hidden target', target_project_id: hidden.id },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ project_id: upstream.id, source_project_id: fork.id });
    const again = await t.api('POST', `/projects/${fork.id}/merge_requests`, {
      token: contributor.token,
      body: { source_branch: 'fallback', target_branch: 'main', title: 'No target given' },
    });
    expect([again.status, again.body]).toEqual([409, { message: [`Another open merge request already exists for this source branch: !${res.body.iid}`] }]);
    // Aiming at the fork itself opens it there.
    const own = await t.api('POST', `/projects/${fork.id}/merge_requests`, {
      token: contributor.token,
      body: { source_branch: 'fallback', target_branch: 'main', title: 'Inside the fork', target_project_id: fork.id },
    });
    expect(own.status).toBe(201);
    expect(own.body).toMatchObject({ iid: 1, project_id: fork.id, source_project_id: fork.id, target_project_id: fork.id });
    expect('allow_collaboration' in own.body).toBe(false);
    const missing = await t.api('POST', `/projects/${fork.id}/merge_requests`, {
      token: contributor.token,
      body: { source_branch: 'nope', target_branch: 'main', title: 'Missing', target_project_id: upstream.id },
    });
    expect([missing.status, missing.body]).toEqual([422, { message: ['Source branch "nope" does not exist'] }]);
  });
});

describe('mergeRequestCreate (GraphQL)', () => {
  it('opens one from the fork in the upstream through the same resolvers, validate_fork in its errors', async () => {
    await pushToFork('gql', { 'gql.txt': 'g\n' }, 'GraphQL', 'origin/main');
    const mutation = `mutation($input: MergeRequestCreateInput!) { mergeRequestCreate(input: $input) { errors mergeRequest { iid sourceProjectId targetProjectId project { fullPath } sourceBranchExists } } }`;
    const input = { projectPath: fork.path_with_namespace, sourceBranch: 'gql', targetBranch: 'main', title: 'From GraphQL' };
    const res = await t.graphql(mutation, { input: { ...input, targetProjectId: `gid://gitlab/Project/${upstream.id}` } }, contributor.token);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.mergeRequestCreate).toMatchObject({
      errors: [],
      mergeRequest: { sourceProjectId: fork.id, targetProjectId: upstream.id, project: { fullPath: upstream.path_with_namespace }, sourceBranchExists: true },
    });
    const other = await createProject(t, contributor.token, { visibility: 'public' });
    const wrong = await t.graphql(mutation, { input: { ...input, title: 'Wrong', targetProjectId: `gid://gitlab/Project/${other.id}` } }, contributor.token);
    expect(wrong.body.data.mergeRequestCreate).toEqual({ errors: ['Source project is not a fork of the target project'], mergeRequest: null });
  });
});

describe('allow_collaboration', () => {
  it("lets the upstream's mergers push to (and rebase) the fork's source branch while the merge request is open, and nothing else", async () => {
    const name = `collab-${Date.now()}`;
    const collab = await apiOk(t, contributor.token, 'POST', `/projects/${upstream.id}/fork`, { path: name, name, branches: 'main' });
    await apiOk(t, contributor.token, 'POST', `/projects/${collab.id}/repository/commits`, {
      branch: 'shared',
      start_branch: 'main',
      commit_message: 'Shared work',
      actions: [{ action: 'create', file_path: 'shared.txt', content: 's\n' }],
    });
    const mr = await apiOk(t, contributor.token, 'POST', `/projects/${collab.id}/merge_requests`, {
      source_branch: 'shared',
      target_branch: 'main',
      title: 'Shared',
      target_project_id: upstream.id,
      allow_collaboration: true,
    });
    expect(mr).toMatchObject({ allow_collaboration: true, allow_maintainer_to_push: true });
    const permissions = async (token: string) =>
      (await t.graphql(`query($path: ID!, $iid: String!) { project(fullPath: $path) { mergeRequest(iid: $iid) { allowCollaboration userPermissions { canMerge pushToSourceBranch removeSourceBranch } } } }`, { path: upstream.path_with_namespace, iid: String(mr.iid) }, token)).body.data.project.mergeRequest;
    expect(await permissions(maintainer.token)).toEqual({ allowCollaboration: true, userPermissions: { canMerge: true, pushToSourceBranch: true, removeSourceBranch: false } });
    expect(await permissions(contributor.token)).toEqual({ allowCollaboration: true, userPermissions: { canMerge: false, pushToSourceBranch: true, removeSourceBranch: true } });

    // The upstream maintainer, no member of this fork, pushes to its source branch with git over HTTP.
    const dir = sandbox.folder();
    await sandbox.ok(dir, ['clone', '--quiet', cloneUrl(t.url, collab.path_with_namespace, maintainer.token), 'c']);
    const repo = `${dir}/c`;
    await sandbox.ok(repo, ['checkout', '--quiet', 'shared']);
    await import('node:fs').then((fs) => fs.writeFileSync(`${repo}/helped.txt`, 'helped\n'));
    await sandbox.ok(repo, ['add', 'helped.txt']);
    await sandbox.ok(repo, ['commit', '--quiet', '-m', 'Maintainer helps']);
    await sandbox.ok(repo, ['push', '--quiet', 'origin', 'shared']);
    const helped = (await sandbox.ok(repo, ['rev-parse', 'HEAD'])).trim();
    // The merge request's sha is its newest diff version's head, which the push's refresh job records.
    await t.server.app.jobs.drain(60_000);
    expect((await apiOk(t, maintainer.token, 'GET', upstreamMrs(`/${mr.iid}`))).sha).toBe(helped);

    // Not another branch, not the fork's default branch, not a tag.
    expect((await sandbox.run(repo, ['push', '--quiet', 'origin', 'shared:elsewhere'])).code).not.toBe(0);
    expect((await sandbox.run(repo, ['push', '--quiet', 'origin', 'shared:main'])).code).not.toBe(0);
    expect((await sandbox.run(repo, ['push', '--quiet', 'origin', 'shared:refs/tags/v1'])).code).not.toBe(0);

    // A rebase by the maintainer, in the fork.
    await commitUpstream('main', { [`moved-${name}.txt`]: 'm\n' }, { message: 'Upstream moves again' });
    const rebase = await t.api('PUT', upstreamMrs(`/${mr.iid}/rebase`), { token: maintainer.token });
    expect(rebase.status).toBe(202);
    await t.server.app.jobs.drain(60_000);
    const rebased = await apiOk(t, maintainer.token, 'GET', upstreamMrs(`/${mr.iid}?include_rebase_in_progress=true`));
    expect(rebased).toMatchObject({ merge_error: null, rebase_in_progress: false });
    expect(rebased.sha).not.toBe(helped);

    // Only who may push to the fork sets it (can_allow_collaboration?): the maintainer's change is ignored.
    expect((await apiOk(t, maintainer.token, 'PUT', upstreamMrs(`/${mr.iid}`), { allow_collaboration: false })).allow_collaboration).toBe(true);
    expect((await apiOk(t, contributor.token, 'PUT', upstreamMrs(`/${mr.iid}`), { allow_collaboration: false })).allow_collaboration).toBe(false);
    await sandbox.ok(repo, ['pull', '--quiet', '--rebase', 'origin', 'shared']);
    await sandbox.ok(repo, ['commit', '--quiet', '--allow-empty', '-m', 'Too late']);
    const withdrawn = await sandbox.run(repo, ['push', '--quiet', 'origin', 'shared']);
    expect(withdrawn.code).not.toBe(0);
    expect(withdrawn.stderr).toContain('You are not allowed to push code to this project.');

    // Allowed again, then closed: the fork is the contributor's alone again.
    expect((await apiOk(t, contributor.token, 'PUT', upstreamMrs(`/${mr.iid}`), { allow_maintainer_to_push: true, allow_collaboration: true })).allow_maintainer_to_push).toBe(true);
    await apiOk(t, contributor.token, 'PUT', upstreamMrs(`/${mr.iid}`), { state_event: 'close' });
    const late = await sandbox.run(repo, ['push', '--quiet', 'origin', 'shared']);
    expect(late.code).not.toBe(0);
    expect(late.stderr).toContain('You are not allowed to push code to this project.');
  }, 120_000);
});

describe('when the fork leaves', () => {
  it('unlinking the fork (DELETE /projects/:id/fork) closes its open merge requests to the upstream', async () => {
    const second = await apiOk(t, contributor.token, 'POST', `/projects/${upstream.id}/fork`, { path: `second-${Date.now()}`, name: `second-${Date.now()}` });
    await apiOk(t, contributor.token, 'POST', `/projects/${second.id}/repository/branches?branch=topic&ref=main`);
    await apiOk(t, contributor.token, 'POST', `/projects/${second.id}/repository/commits`, {
      branch: 'topic',
      commit_message: 'Topic',
      actions: [{ action: 'create', file_path: 'topic.txt', content: 't\n' }],
    });
    const mr = await apiOk(t, contributor.token, 'POST', `/projects/${second.id}/merge_requests`, { source_branch: 'topic', target_branch: 'main', title: 'Topic', target_project_id: upstream.id });
    const unlinked = await t.api('DELETE', `/projects/${second.id}/fork`, { token: contributor.token });
    expect(unlinked.status).toBe(204);
    const shown = await t.api('GET', upstreamMrs(`/${mr.iid}`), { token: maintainer.token });
    expect(shown.body).toMatchObject({ state: 'closed', closed_by: { id: contributor.id }, source_project_id: second.id });
    // No longer in the fork network, it cannot be reopened (validate_fork).
    const reopen = await t.api('PUT', upstreamMrs(`/${mr.iid}`), { token: maintainer.token, body: { state_event: 'reopen' } });
    expect([reopen.status, reopen.body]).toEqual([422, { message: ['Source project is not a fork of the target project'] }]);
  });

  it('deleting the fork closes its merge requests and leaves them without a source project', async () => {
    const third = await apiOk(t, contributor.token, 'POST', `/projects/${upstream.id}/fork`, { path: `third-${Date.now()}`, name: `third-${Date.now()}` });
    await apiOk(t, contributor.token, 'POST', `/projects/${third.id}/repository/commits`, {
      branch: 'doomed',
      start_branch: 'main',
      commit_message: 'Doomed',
      actions: [{ action: 'create', file_path: 'doomed.txt', content: 'd\n' }],
    });
    const mr = await apiOk(t, contributor.token, 'POST', `/projects/${third.id}/merge_requests`, { source_branch: 'doomed', target_branch: 'main', title: 'Doomed', target_project_id: upstream.id });
    expect((await t.api('DELETE', `/projects/${third.id}`, { token: contributor.token })).status).toBe(202);
    await t.server.app.jobs.drain(60_000);
    const shown = await t.api('GET', upstreamMrs(`/${mr.iid}`), { token: maintainer.token });
    expect(shown.status).toBe(200);
    expect(shown.body).toMatchObject({ state: 'closed', source_project_id: null, target_project_id: upstream.id, sha: mr.sha });
    const reopen = await t.api('PUT', upstreamMrs(`/${mr.iid}`), { token: maintainer.token, body: { state_event: 'reopen' } });
    expect([reopen.status, reopen.body]).toEqual([422, { message: ['Source project is not a fork of the target project'] }]);
    const changes = await t.api('GET', upstreamMrs(`/${mr.iid}/changes`), { token: maintainer.token });
    expect(changes.status).toBe(200);
    const gql = await t.graphql(`query($path: ID!, $iid: String!) { project(fullPath: $path) { mergeRequest(iid: $iid) { sourceProject { id } sourceBranchExists } } }`, {
      path: upstream.path_with_namespace,
      iid: String(mr.iid),
    }, maintainer.token);
    expect(gql.body.data.project.mergeRequest).toEqual({ sourceProject: null, sourceBranchExists: false });
  }, 120_000);
});
