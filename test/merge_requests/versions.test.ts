/**
 * Merge request diff versions (GitLab's MergeRequestDiff; lib/api/merge_request_diffs.rb) and `raw_diffs`: a version
 * when the merge request is opened and each time its source branch moves, pushed here with the git CLI (a push, then
 * a force push), listed newest first and paginated, each one's commits and diffs still readable after the force push
 * and a `git gc --prune=now` of the server's repository, `raw_diffs` equal to `git diff --full-index` of the merge
 * base and head, the merge request's `diff_refs` the newest version's, and GitLab's 401/404s.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Gitlab } from '@gitbeaker/rest';
import { beforeAll, describe, expect, it } from 'vitest';
import { suiteServer } from '../support/server.js';
import { addMember, createProject, createUser, type TestUser } from '../support/factories.js';
import { cloneUrl, gitSandbox } from '../support/git.js';

const t = suiteServer({ logLevel: 'error' });
const sandbox = gitSandbox();

let owner: TestUser;
let reporter: TestUser;
let stranger: TestUser;
let project: { id: number; path_with_namespace: string };
let other: { id: number; path_with_namespace: string };
let repo: string;
let iid: number;
let otherIid: number;
/** The source heads pushed, in order: opened at A, pushed B on top, force-pushed C in their place. */
const heads: { a: string; b: string; c: string; main: string } = { a: '', b: '', c: '', main: '' };

const mr = (suffix = '', id = project.id, n = iid) => `/projects/${id}/merge_requests/${n}${suffix}`;
const drain = () => t.server.app.jobs.drain(60_000);

async function commit(file: string, content: string, message: string): Promise<string> {
  writeFileSync(join(repo, file), content);
  await sandbox.ok(repo, ['add', '-A']);
  await sandbox.ok(repo, ['commit', '--quiet', '-m', message]);
  return (await sandbox.ok(repo, ['rev-parse', 'HEAD'])).trim();
}

async function open(target: { id: number }, branch: string): Promise<number> {
  const res = await t.api('POST', `/projects/${target.id}/merge_requests`, { token: owner.token, body: { source_branch: branch, target_branch: 'main', title: `MR ${branch}` } });
  if (res.status !== 201) throw new Error(`create: ${res.status} ${res.text}`);
  return res.body.iid;
}

beforeAll(async () => {
  [owner, reporter, stranger] = await Promise.all([1, 2, 3].map(() => createUser(t)));
  [project, other] = await Promise.all([createProject(t, owner.token), createProject(t, owner.token)]);
  await addMember(t, owner.token, 'projects', project.id, reporter.id, 20);
  const dir = sandbox.folder();
  repo = join(dir, 'repo');
  await sandbox.ok(dir, ['init', '--quiet', '-b', 'main', 'repo']);
  await sandbox.ok(repo, ['remote', 'add', 'origin', cloneUrl(t.url, project.path_with_namespace, owner.token)]);
  await sandbox.ok(repo, ['remote', 'add', 'other', cloneUrl(t.url, other.path_with_namespace, owner.token)]);
  await commit('README.md', '# Versions\n', 'Initial');
  heads.main = await commit('app.txt', 'one\ntwo\n', 'App');
  await sandbox.ok(repo, ['push', '--quiet', 'origin', 'main']);
  await sandbox.ok(repo, ['push', '--quiet', 'other', 'main']);

  await sandbox.ok(repo, ['checkout', '--quiet', '-b', 'feature']);
  heads.a = await commit('app.txt', 'one\ntwo\nthree\n', 'Add three');
  await sandbox.ok(repo, ['push', '--quiet', 'origin', 'feature']);
  await sandbox.ok(repo, ['push', '--quiet', 'other', 'feature']);
  await drain();
  iid = await open(project, 'feature');
  otherIid = await open(other, 'feature');

  heads.b = await commit('notes.md', 'notes\n', 'Add notes');
  await sandbox.ok(repo, ['push', '--quiet', 'origin', 'feature']);
  await drain();

  // A force push: the branch starts again from main, A and B left unreferenced by any branch.
  await sandbox.ok(repo, ['reset', '--quiet', '--hard', heads.main]);
  heads.c = await commit('other.txt', 'rewritten\n', 'Rewrite');
  await sandbox.ok(repo, ['push', '--quiet', '--force', 'origin', 'feature']);
  await drain();

  // Nothing but the keep-around refs holds the old heads now: a gc must not drop them.
  const path = t.server.app.repositories.path({ id: project.id, repositoryStorage: 'default' });
  execFileSync('git', ['--git-dir', path, 'reflog', 'expire', '--expire=now', '--all']);
  execFileSync('git', ['--git-dir', path, 'gc', '--quiet', '--prune=now']);
});

describe('GET /projects/:id/merge_requests/:iid/versions', () => {
  it('lists a version per source head, newest first, in GitLab entity fields', async () => {
    const res = await t.api('GET', mr('/versions'), { token: owner.token });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-total')).toBe('3');
    expect(res.body.map((v: any) => v.head_commit_sha)).toEqual([heads.c, heads.b, heads.a]);
    const ids = res.body.map((v: any) => v.id);
    expect([...ids].sort((x: number, y: number) => y - x)).toEqual(ids);
    const merge = await t.api('GET', mr(), { token: owner.token });
    for (const v of res.body) {
      expect(Object.keys(v)).toEqual(['id', 'head_commit_sha', 'base_commit_sha', 'start_commit_sha', 'created_at', 'merge_request_id', 'state', 'real_size', 'patch_id_sha']);
      expect(v).toMatchObject({ merge_request_id: merge.body.id, state: 'collected', base_commit_sha: heads.main, start_commit_sha: heads.main });
      expect(v.patch_id_sha).toMatch(/^[0-9a-f]{40}$/);
      expect(v.created_at).toMatch(/^\d{4}-\d\d-\d\dT/);
    }
    expect(res.body.map((v: any) => v.real_size)).toEqual(['1', '2', '1']);
  });

  it('pages as GitLab pages', async () => {
    const res = await t.api('GET', mr('/versions?per_page=1&page=2'), { token: owner.token });
    expect(res.status).toBe(200);
    expect(res.body.map((v: any) => v.head_commit_sha)).toEqual([heads.b]);
    expect(res.headers.get('x-total-pages')).toBe('3');
    expect(res.headers.get('x-next-page')).toBe('3');
  });

  it('makes the newest version the merge request diff_refs', async () => {
    const res = await t.api('GET', mr(), { token: owner.token });
    expect(res.body.diff_refs).toEqual({ base_sha: heads.main, head_sha: heads.c, start_sha: heads.main });
    expect(res.body.sha).toBe(heads.c);
    expect(res.body.changes_count).toBe('1');
    const changes = await t.api('GET', mr('/changes'), { token: owner.token });
    expect(changes.body.changes.map((c: any) => c.new_path)).toEqual(['other.txt']);
  });

  it('is for signed-in readers of the merge request only', async () => {
    expect((await t.api('GET', mr('/versions'), { token: null })).status).toBe(401);
    const hidden = await t.api('GET', mr('/versions'), { token: stranger.token });
    expect(hidden.status).toBe(404);
    expect(hidden.body).toEqual({ message: '404 Project Not Found' });
    expect((await t.api('GET', mr('/versions'), { token: reporter.token })).status).toBe(200);
    expect((await t.api('GET', mr('/versions', project.id, 999), { token: owner.token })).status).toBe(404);
  });
});

describe('the refs that keep versions readable', () => {
  it('keeps refs/merge-requests/<iid>/head at the newest version and hides the keep-around refs, as Gitaly does', async () => {
    const refs = new Map((await sandbox.ok(repo, ['ls-remote', 'origin'])).trim().split('\n').map((line) => line.split('\t').reverse() as [string, string]));
    expect(refs.get(`refs/merge-requests/${iid}/head`)).toBe(heads.c);
    expect([...refs.keys()].filter((ref) => ref.startsWith('refs/keep-around/'))).toEqual([]);
    const push = await sandbox.run(repo, ['push', 'origin', `${heads.a}:refs/keep-around/${heads.a}`]);
    expect(push.code).not.toBe(0);
    const mrRef = await sandbox.run(repo, ['push', 'origin', `${heads.a}:refs/merge-requests/${iid}/head`]);
    expect(mrRef.code).not.toBe(0);
    expect((await t.api('GET', mr('/versions'), { token: owner.token })).body).toHaveLength(3);
  });
});

describe('GET /projects/:id/merge_requests/:iid/versions/:version_id', () => {
  const versionOf = async (head: string) => {
    const list = await t.api('GET', mr('/versions'), { token: owner.token });
    return list.body.find((v: any) => v.head_commit_sha === head).id as number;
  };

  it('shows each version with its commits and diffs, the force-pushed ones too', async () => {
    const expected: [string, string[], string[]][] = [
      [heads.a, [heads.a], ['app.txt']],
      [heads.b, [heads.b, heads.a], ['app.txt', 'notes.md']],
      [heads.c, [heads.c], ['other.txt']],
    ];
    for (const [head, commits, paths] of expected) {
      const res = await t.api('GET', mr(`/versions/${await versionOf(head)}`), { token: owner.token });
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).slice(-2)).toEqual(['commits', 'diffs']);
      expect(res.body.head_commit_sha).toBe(head);
      expect(res.body.commits.map((c: any) => c.id)).toEqual(commits);
      expect(res.body.diffs.map((d: any) => d.new_path)).toEqual(paths);
      for (const diff of res.body.diffs) {
        const patch = await sandbox.ok(repo, ['diff', heads.main, head, '--', diff.new_path]);
        expect(patch.slice(patch.indexOf('@@'))).toBe(diff.diff);
        expect(diff).toMatchObject({ collapsed: false, too_large: false });
      }
    }
    const b = await t.api('GET', mr(`/versions/${await versionOf(heads.b)}`), { token: owner.token });
    expect(b.body.commits[0]).toMatchObject({ title: 'Add notes', message: 'Add notes\n', parent_ids: [heads.a], author_name: 'Test Author' });
    expect(b.body.diffs.find((d: any) => d.new_path === 'notes.md')).toMatchObject({ new_file: true, a_mode: '000000', b_mode: '100644', diff: '@@ -0,0 +1 @@\n+notes\n' });
  });

  it('takes GitLab 16.x unidiff', async () => {
    const res = await t.api('GET', mr(`/versions/${await versionOf(heads.c)}?unidiff=true`), { token: owner.token });
    expect(res.body.diffs[0].diff).toBe('--- /dev/null\n+++ b/other.txt\n@@ -0,0 +1 @@\n+rewritten\n');
  });

  it("answers 404 for another merge request's version and for what the caller may not read", async () => {
    const list = await t.api('GET', mr('/versions', other.id, otherIid), { token: owner.token });
    expect(list.body).toHaveLength(1);
    const foreign = await t.api('GET', mr(`/versions/${list.body[0].id}`), { token: owner.token });
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual({ message: '404 Not found' });
    const id = await versionOf(heads.a);
    expect((await t.api('GET', mr(`/versions/${id}`), { token: stranger.token })).body).toEqual({ message: '404 Project Not Found' });
    expect((await t.api('GET', mr(`/versions/${id}`), { token: null })).status).toBe(401);
    expect((await t.api('GET', mr('/versions/abc'), { token: owner.token })).status).toBe(400);
  });

  it('serves gitbeaker', async () => {
    const api = new Gitlab({ host: t.url, token: owner.token });
    const versions = await api.MergeRequests.allDiffVersions(project.id, iid);
    expect(versions.map((v) => v.head_commit_sha)).toEqual([heads.c, heads.b, heads.a]);
    const shown = await api.MergeRequests.showDiffVersion(project.id, iid, versions[1].id);
    expect(shown.commits.map((c) => c.id)).toEqual([heads.b, heads.a]);
  });
});

describe('GET /projects/:id/merge_requests/:iid/raw_diffs', () => {
  it('is git diff of the merge base and head, as GitLab sends it', async () => {
    const res = await fetch(`${t.url}/api/v4${mr('/raw_diffs')}`, { headers: { 'PRIVATE-TOKEN': owner.token } });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe(await sandbox.ok(repo, ['diff', '--full-index', heads.main, heads.c]));
    expect(res.headers.get('content-disposition')).toBe('inline');
    expect(res.headers.get('cache-control')).toBe('max-age=0, private, must-revalidate, no-store, no-cache');
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  });

  it('takes a read_api token, and refuses one without an API scope (403 insufficient_scope)', async () => {
    const token = async (scopes: string[]) => (await t.api('POST', `/users/${owner.id}/personal_access_tokens`, { body: { name: scopes.join(), scopes } })).body.token as string;
    const reader = await fetch(`${t.url}/api/v4${mr('/raw_diffs')}`, { headers: { 'PRIVATE-TOKEN': await token(['read_api']) } });
    expect(reader.status).toBe(200);
    expect(await reader.text()).toBe(await sandbox.ok(repo, ['diff', '--full-index', heads.main, heads.c]));
    const narrow = await t.api('GET', mr('/raw_diffs'), { token: await token(['read_user']) });
    expect(narrow.status).toBe(403);
    expect(narrow.body.error).toBe('insufficient_scope');
  });

  it('answers 404 to who may not read it', async () => {
    expect((await t.api('GET', mr('/raw_diffs'), { token: stranger.token })).status).toBe(404);
    expect((await t.api('GET', mr('/raw_diffs'), { token: null })).status).toBe(404);
    expect((await t.api('GET', mr('/raw_diffs', project.id, 999), { token: owner.token })).status).toBe(404);
  });
});

describe('GraphQL', () => {
  it('lists versions and the newest one\'s stats on MergeRequest', async () => {
    const res = await t.graphql(
      `query($path: ID!, $iid: String!) { project(fullPath: $path) { mergeRequest(iid: $iid) {
        diffRefs { headSha } commitCount changesCount diffVersions(first: 2) { count nodes { databaseId headCommitSha state } }
        diffStats { path additions deletions } one: diffStats(path: "nothing.txt") { path }
        diffStatsSummary { additions deletions changes fileCount }
      } } }`,
      { path: project.path_with_namespace, iid: String(iid) },
      owner.token,
    );
    const m = res.body.data.project.mergeRequest;
    expect(m.diffRefs.headSha).toBe(heads.c);
    expect(m).toMatchObject({ commitCount: 1, changesCount: '1' });
    expect(m.diffVersions.count).toBe(3);
    expect(m.diffVersions.nodes.map((v: any) => v.headCommitSha)).toEqual([heads.c, heads.b]);
    expect(m.diffStats).toEqual([{ path: 'other.txt', additions: 1, deletions: 0 }]);
    expect(m.one).toEqual([]);
    expect(m.diffStatsSummary).toEqual({ additions: 1, deletions: 0, changes: 1, fileCount: 1 });
  });
});

describe('a push to the target branch (RefreshService#reload_merge_requests)', () => {
  const versions = async () => (await t.api('GET', mr('/versions'), { token: owner.token })).body as any[];

  it('adds no version when it brings none of the merge request commits', async () => {
    await sandbox.ok(repo, ['checkout', '--quiet', 'main']);
    await commit('unrelated.txt', 'unrelated\n', 'Unrelated');
    await sandbox.ok(repo, ['push', '--quiet', 'origin', 'main']);
    await drain();
    expect((await versions()).map((v) => v.head_commit_sha)).toEqual([heads.c, heads.b, heads.a]);
  });

  it('adds an empty version when it brings them (merged by hand)', async () => {
    await sandbox.ok(repo, ['merge', '--quiet', '--no-ff', '-m', 'Merge by hand', 'feature']);
    const merged = (await sandbox.ok(repo, ['rev-parse', 'HEAD'])).trim();
    await sandbox.ok(repo, ['push', '--quiet', 'origin', 'main']);
    await drain();
    const [newest, ...rest] = await versions();
    expect(rest.map((v) => v.head_commit_sha)).toEqual([heads.c, heads.b, heads.a]);
    expect(newest).toMatchObject({ head_commit_sha: heads.c, start_commit_sha: merged, base_commit_sha: heads.c, state: 'empty', real_size: null, patch_id_sha: null });
    const shown = await t.api('GET', mr(`/versions/${newest.id}`), { token: owner.token });
    expect(shown.body).toMatchObject({ commits: [], diffs: [] });
    // changes_count is the newest version's real_size: none for an empty one.
    expect((await t.api('GET', mr(), { token: owner.token })).body.changes_count).toBeNull();
  });
});

describe('what else reloads the diff (MergeRequest#reload_diff)', () => {
  let topic: number;
  const versionsOf = async (n: number) => (await t.api('GET', mr('/versions', project.id, n), { token: owner.token })).body as any[];

  beforeAll(async () => {
    await sandbox.ok(repo, ['checkout', '--quiet', '-b', 'topic', heads.main]);
    await commit('topic.txt', 'topic\n', 'Topic');
    await sandbox.ok(repo, ['push', '--quiet', 'origin', 'topic']);
    await drain();
    topic = await open(project, 'topic');
  });

  it('a rebase through the API', async () => {
    const main = (await sandbox.ok(repo, ['rev-parse', 'main'])).trim();
    const res = await t.api('PUT', mr('/rebase', project.id, topic), { token: owner.token });
    expect(res.status).toBe(202);
    await drain();
    const [rebased, first] = await versionsOf(topic);
    expect(first).toMatchObject({ start_commit_sha: main, base_commit_sha: heads.main });
    expect(rebased).toMatchObject({ start_commit_sha: main, base_commit_sha: main, state: 'collected', real_size: '1' });
    const shown = await t.api('GET', mr(`/versions/${rebased.id}`, project.id, topic), { token: owner.token });
    expect(shown.body.commits).toHaveLength(1);
    expect(shown.body.commits[0]).toMatchObject({ title: 'Topic', parent_ids: [main] });
    expect((await t.api('GET', mr('', project.id, topic), { token: owner.token })).body.diff_refs.head_sha).toBe(rebased.head_commit_sha);
  });

  it('reopening, and a new target branch', async () => {
    const before = (await versionsOf(topic)).length;
    await t.api('PUT', mr('', project.id, topic), { token: owner.token, body: { state_event: 'close' } });
    expect(await versionsOf(topic)).toHaveLength(before);
    await t.api('PUT', mr('', project.id, topic), { token: owner.token, body: { state_event: 'reopen' } });
    expect(await versionsOf(topic)).toHaveLength(before + 1);
    const retarget = await t.api('PUT', mr('', project.id, topic), { token: owner.token, body: { target_branch: 'feature' } });
    expect(retarget.status).toBe(200);
    const [newest] = await versionsOf(topic);
    expect(await versionsOf(topic)).toHaveLength(before + 2);
    expect(newest.start_commit_sha).toBe(heads.c);
    expect(retarget.body.diff_refs.start_sha).toBe(heads.c);
  });
});
