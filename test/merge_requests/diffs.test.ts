/**
 * Merge request diffs capped as GitLab caps them (Gitlab::Git::DiffCollection, Gitlab::Git::Diff): big patches
 * collapsed, too large ones emptied, `/changes` overflowing past `diff_max_files` and collapsing past the safe limits,
 * `access_raw_diffs`, and `/diffs` paged over the stored (capped) diff. Repositories are built with the git CLI and
 * pushed; the large change is 1,200 files (the 10,000-file case is in test/bench/mr-diffs.ts).
 */
import { writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
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
let repo: string;

const mrs = (suffix = '') => `/projects/${project.id}/merge_requests${suffix}`;
const lines = (n: number, text: string) => Array.from({ length: n }, (_, i) => `${text} ${i}`).join('\n') + '\n';

/** Checks out `branch` from main, writes `files`, commits and pushes it. */
async function pushBranch(branch: string, files: Record<string, string>) {
  await sandbox.ok(repo, ['checkout', '--quiet', '-B', branch, 'origin/main']);
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(repo, path, '..'), { recursive: true });
    writeFileSync(join(repo, path), content);
  }
  await sandbox.ok(repo, ['add', '-A']);
  await sandbox.ok(repo, ['commit', '--quiet', '-m', `Change on ${branch}`]);
  await sandbox.ok(repo, ['push', '--quiet', 'origin', branch]);
}

async function openMr(branch: string): Promise<number> {
  const res = await t.api('POST', mrs(), { token: owner.token, body: { source_branch: branch, target_branch: 'main', title: `MR ${branch}` } });
  if (res.status !== 201) throw new Error(`create: ${res.status} ${res.text}`);
  return res.body.iid;
}

const entry = (path: string, diff: string, flags: { collapsed?: boolean; too_large?: boolean; new_file?: boolean } = {}) => ({
  diff,
  collapsed: flags.collapsed ?? false,
  too_large: flags.too_large ?? false,
  new_path: path,
  old_path: path,
  a_mode: flags.new_file === false ? '100644' : '000000',
  b_mode: '100644',
  new_file: flags.new_file ?? true,
  renamed_file: false,
  deleted_file: false,
  generated_file: false,
});

let sizes: number;
let many: number;
let safeLines: number;
const big = lines(2000, 'a fairly long line of text to make a big patch'); // ~ 100 KB of patch: collapsed
const huge = lines(5000, 'a fairly long line of text to make a huge patch'); // ~ 250 KB: too large

beforeAll(async () => {
  [owner, reporter, stranger] = await Promise.all([1, 2, 3].map(() => createUser(t)));
  project = await createProject(t, owner.token);
  await addMember(t, owner.token, 'projects', project.id, reporter.id, 20);
  const dir = sandbox.folder();
  repo = join(dir, 'repo');
  await sandbox.ok(dir, ['init', '--quiet', '-b', 'main', 'repo']);
  await sandbox.ok(repo, ['remote', 'add', 'origin', cloneUrl(t.url, project.path_with_namespace, owner.token)]);
  writeFileSync(join(repo, 'README.md'), '# Diffs\n');
  writeFileSync(join(repo, 'app.txt'), 'one\ntwo\n');
  await sandbox.ok(repo, ['add', '-A']);
  await sandbox.ok(repo, ['commit', '--quiet', '-m', 'Initial']);
  await sandbox.ok(repo, ['push', '--quiet', 'origin', 'main']);
  await sandbox.ok(repo, ['fetch', '--quiet', 'origin']);

  await pushBranch('sizes', { 'app.txt': 'one\ntwo\nthree\n', 'big.txt': big, 'huge.txt': huge, 'small.txt': 'tiny\n' });
  sizes = await openMr('sizes');
  const files: Record<string, string> = {};
  for (let i = 0; i < 1200; i++) files[`many/f${String(i).padStart(4, '0')}.txt`] = `file ${i}\n`;
  await pushBranch('many', files);
  many = await openMr('many');
  // Three files of 2,000 lines (6 KB each, under the collapse size): past 5,000 lines the next file collapses.
  await pushBranch('safe-lines', { 'l1.txt': 'x\n'.repeat(2000), 'l2.txt': 'x\n'.repeat(2000), 'l3.txt': 'x\n'.repeat(2000), 'l4.txt': 'after\n' });
  safeLines = await openMr('safe-lines');
}, 120_000);

describe('capped diffs', () => {
  it('collapses big patches and empties too large ones in /changes, as GitLab', async () => {
    const res = await t.api('GET', mrs(`/${sizes}/changes`), { token: reporter.token });
    expect(res.status, res.text).toBe(200);
    expect(res.body.overflow).toBe(false);
    expect(res.body.changes_count).toBe('4');
    expect(res.body.changes).toEqual([
      entry('app.txt', '@@ -1,2 +1,3 @@\n one\n two\n+three\n', { new_file: false }),
      entry('big.txt', '', { collapsed: true }),
      entry('huge.txt', '', { too_large: true }),
      entry('small.txt', '@@ -0,0 +1 @@\n+tiny\n'),
    ]);
  });

  it('shows every patch but too large ones with access_raw_diffs, never overflowing', async () => {
    const res = await t.api('GET', mrs(`/${sizes}/changes?access_raw_diffs=true&unidiff=true`), { token: reporter.token });
    expect(res.status, res.text).toBe(200);
    expect(res.body.overflow).toBe(false);
    const bigPatch = `--- /dev/null\n+++ b/big.txt\n@@ -0,0 +1,2000 @@\n${big.split('\n').slice(0, -1).map((l) => `+${l}\n`).join('')}`;
    expect(res.body.changes.map((c: { new_path: string; collapsed: boolean; too_large: boolean; diff: string }) => [c.new_path, c.collapsed, c.too_large, c.diff.length])).toEqual([
      ['app.txt', false, false, '--- a/app.txt\n+++ b/app.txt\n@@ -1,2 +1,3 @@\n one\n two\n+three\n'.length],
      ['big.txt', false, false, bigPatch.length],
      ['huge.txt', false, true, 0],
      ['small.txt', false, false, '--- /dev/null\n+++ b/small.txt\n@@ -0,0 +1 @@\n+tiny\n'.length],
    ]);
    expect(res.body.changes[1].diff).toBe(bigPatch);
  });

  it('pages /diffs over the stored diff with GitLab’s pagination headers', async () => {
    const res = await t.api('GET', mrs(`/${sizes}/diffs?per_page=2&page=2`), { token: reporter.token });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual([entry('huge.txt', '', { too_large: true }), entry('small.txt', '@@ -0,0 +1 @@\n+tiny\n')]);
    expect(['x-total', 'x-total-pages', 'x-page', 'x-per-page', 'x-next-page', 'x-prev-page'].map((h) => res.headers.get(h))).toEqual(['4', '2', '2', '2', '', '1']);
    const first = await t.api('GET', mrs(`/${sizes}/diffs?per_page=2&unidiff=true`), { token: reporter.token });
    expect(first.body).toEqual([
      entry('app.txt', '--- a/app.txt\n+++ b/app.txt\n@@ -1,2 +1,3 @@\n one\n two\n+three\n', { new_file: false }),
      entry('big.txt', '', { collapsed: true }),
    ]);
  });

  it('overflows /changes past 1,000 files and collapses past 100, and caps /diffs at 1,000', async () => {
    const res = await t.api('GET', mrs(`/${many}/changes`), { token: reporter.token });
    expect(res.status, res.text).toBe(200);
    expect(res.body.overflow).toBe(true);
    expect(res.body.changes_count).toBe('1000+');
    expect(res.body.changes).toHaveLength(1000);
    expect(res.body.changes[99]).toEqual(entry('many/f0099.txt', '@@ -0,0 +1 @@\n+file 99\n'));
    expect(res.body.changes[100]).toEqual(entry('many/f0100.txt', '', { collapsed: true }));
    expect(res.body.changes[999]).toEqual(entry('many/f0999.txt', '', { collapsed: true }));
    const raw = await t.api('GET', mrs(`/${many}/changes?access_raw_diffs=true`), { token: reporter.token });
    expect(raw.body.overflow).toBe(false);
    expect(raw.body.changes).toHaveLength(1200);
    expect(raw.body.changes[1199]).toEqual(entry('many/f1199.txt', '@@ -0,0 +1 @@\n+file 1199\n'));
    const page = await t.api('GET', mrs(`/${many}/diffs?per_page=3&page=40`), { token: reporter.token });
    expect(page.body).toEqual([117, 118, 119].map((i) => entry(`many/f0${i}.txt`, `@@ -0,0 +1 @@\n+file ${i}\n`)));
    expect([page.headers.get('x-total'), page.headers.get('x-total-pages')]).toEqual(['1000', '334']);
    const last = await t.api('GET', mrs(`/${many}/diffs?per_page=100&page=10`), { token: reporter.token });
    expect(last.body.map((d: { new_path: string }) => d.new_path).slice(-1)).toEqual(['many/f0999.txt']);
    expect(last.headers.get('x-next-page')).toBe('');
    const past = await t.api('GET', mrs(`/${many}/diffs?per_page=100&page=11`), { token: reporter.token });
    expect(past.body).toEqual([]);
  });

  it('collapses every file with lines once the collection passed 5,000 lines', async () => {
    const res = await t.api('GET', mrs(`/${safeLines}/changes`), { token: reporter.token });
    expect(res.body.overflow).toBe(false);
    expect(res.body.changes.map((c: { new_path: string; collapsed: boolean; diff: string }) => [c.new_path, c.collapsed, c.diff.split('\n').length - 1])).toEqual([
      ['l1.txt', false, 2001],
      ['l2.txt', false, 2001],
      ['l3.txt', false, 2001],
      ['l4.txt', true, 0],
    ]);
  });

  it('hides them from who may not read the project, and answers GitLab’s 404', async () => {
    for (const path of [`/${sizes}/changes`, `/${sizes}/diffs`, `/${sizes}/changes?access_raw_diffs=true`]) {
      const res = await t.api('GET', mrs(path), { token: stranger.token });
      expect([res.status, res.body]).toEqual([404, { message: '404 Project Not Found' }]);
    }
    const missing = await t.api('GET', mrs('/999/diffs'), { token: reporter.token });
    expect([missing.status, missing.body]).toEqual([404, { message: '404 Merge Request Not Found' }]);
  });

  it('reads mergeRefHeadSha without writing; GET …/merge_ref and mergeRefRefresh refresh the merge ref', async () => {
    const query = `query($path: ID!, $iid: String!) { project(fullPath: $path) { mergeRequest(iid: $iid) { mergeRefHeadSha } } }`;
    const vars = { path: project.path_with_namespace, iid: String(sizes) };
    const before = await t.graphql(query, vars, owner.token);
    expect(before.body).toEqual({ data: { project: { mergeRequest: { mergeRefHeadSha: null } } } });
    await sandbox.ok(repo, ['fetch', '--quiet', 'origin', '+refs/merge-requests/*:refs/remotes/mr/*']);
    expect((await sandbox.ok(repo, ['for-each-ref', '--format=%(refname)', 'refs/remotes/mr/'])).split('\n').filter((r) => r.endsWith('/merge'))).toEqual([]);
    const refresh = await t.graphql(`query($path: ID!, $iid: String!) { project(fullPath: $path) { mergeRequest(iid: $iid) { mergeRefRefresh } } }`, vars, owner.token);
    expect(refresh.body.errors).toBeUndefined();
    const refreshed = refresh.body.data.project.mergeRequest.mergeRefRefresh;
    expect(refreshed).toMatch(/^[0-9a-f]{40}$/);
    expect((await t.graphql(query, vars, owner.token)).body.data.project.mergeRequest.mergeRefHeadSha).toBe(refreshed);
    const rest = await t.api('GET', mrs(`/${sizes}/merge_ref`), { token: reporter.token });
    expect(rest.status, rest.text).toBe(200);
    expect(rest.body).toEqual({ commit_id: expect.stringMatching(/^[0-9a-f]{40}$/) });
    const after = await t.graphql(query, vars, owner.token);
    expect(after.body.data.project.mergeRequest.mergeRefHeadSha).toBe(rest.body.commit_id);
  });

  it('shows head_pipeline as GitLab’s full Ci::Pipeline entity and pipeline as Ci::PipelineBasic', async () => {
    await pushBranch('ci', { '.gitlab-ci.yml': 'build:\n  script: echo build\n' });
    const iid = await openMr('ci');
    const created = await t.api('POST', `/projects/${project.id}/pipeline`, { token: owner.token, body: { ref: 'ci' } });
    expect(created.status, created.text).toBe(201);
    const latest = (await t.api('GET', `/projects/${project.id}/pipelines?ref=ci`, { token: owner.token })).body[0];
    const res = await t.api('GET', mrs(`/${iid}`), { token: reporter.token });
    const basic = ['id', 'iid', 'project_id', 'sha', 'ref', 'status', 'source', 'created_at', 'updated_at', 'web_url'];
    const full = [...basic, 'before_sha', 'tag', 'yaml_errors', 'user', 'started_at', 'finished_at', 'committed_at', 'duration', 'queued_duration', 'coverage', 'detailed_status', 'archived'];
    expect(Object.keys(res.body.head_pipeline).sort()).toEqual(full.sort());
    expect(Object.keys(res.body.pipeline).sort()).toEqual(basic.sort());
    expect(res.body.head_pipeline).toMatchObject({ id: latest.id, ref: 'ci', sha: res.body.sha, user: { id: owner.id }, detailed_status: { group: expect.any(String) } });
  });
});
