/** The repository history API over HTTP: blame, a commit's diff, refs, signature and merge requests, merge bases, contributors, cherry-picks and reverts. */
import { describe, expect, it } from 'vitest';
import { suiteServer } from '../support/server.js';
import { addMember, createProject, createUser } from '../support/factories.js';

const t = suiteServer();

function commit(id: number, actions: Record<string, unknown>[], options: { branch?: string; message?: string; token?: string; author?: [string, string]; startBranch?: string } = {}) {
  return t.api('POST', `/projects/${id}/repository/commits`, {
    token: options.token,
    body: {
      branch: options.branch ?? 'main',
      start_branch: options.startBranch,
      commit_message: options.message ?? 'Change',
      actions,
      ...(options.author ? { author_name: options.author[0], author_email: options.author[1] } : {}),
    },
  });
}

const create = (file_path: string, content: string) => ({ action: 'create', file_path, content });
const update = (file_path: string, content: string) => ({ action: 'update', file_path, content });

const COMMIT_KEYS = ['id', 'short_id', 'created_at', 'parent_ids', 'title', 'message', 'author_name', 'author_email', 'authored_date', 'committer_name', 'committer_email', 'committed_date', 'trailers', 'extended_trailers', 'web_url'].sort();
const BLAME_COMMIT_KEYS = ['id', 'parent_ids', 'message', 'authored_date', 'author_name', 'author_email', 'committed_date', 'committer_name', 'committer_email'].sort();
const DIFF_KEYS = ['diff', 'collapsed', 'too_large', 'new_path', 'old_path', 'a_mode', 'b_mode', 'new_file', 'renamed_file', 'deleted_file', 'generated_file'].sort();

/** A project whose main has a.txt written over two commits by two authors. */
async function history() {
  const p = await createProject(t, t.rootToken);
  const first = await commit(p.id, [create('a.txt', 'one\ntwo\nthree\n'), create('b.txt', 'b\n')], { message: 'First', author: ['Ann', 'ann@example.com'] });
  const second = await commit(p.id, [update('a.txt', 'one\nTWO\nthree\nfour\n')], { message: 'Second\n\nBody', author: ['Bob', 'bob@example.com'] });
  expect(first.status).toBe(201);
  expect(second.status).toBe(201);
  return { p, first: first.body, second: second.body };
}

describe('GET /projects/:id/repository/files/:file_path/blame', () => {
  it('groups consecutive lines by commit, with the BlameRangeCommit fields', async () => {
    const { p, first, second } = await history();
    const res = await t.api('GET', `/projects/${p.id}/repository/files/a.txt/blame?ref=main`);
    expect(res.status).toBe(200);
    expect(res.body.map((r: any) => [r.commit.id, r.lines])).toEqual([
      [first.id, ['one']],
      [second.id, ['TWO']],
      [first.id, ['three']],
      [second.id, ['four']],
    ]);
    expect(Object.keys(res.body[0]).sort()).toEqual(['commit', 'lines']);
    expect(Object.keys(res.body[0].commit).sort()).toEqual(BLAME_COMMIT_KEYS);
    expect(res.body[1].commit).toMatchObject({ parent_ids: [first.id], message: 'Second\n\nBody', author_name: 'Bob', author_email: 'bob@example.com', committer_name: 'Administrator', authored_date: second.authored_date });
  });

  it('blames a range, stopping at the end of the file; GitLab 400s and 404s', async () => {
    const { p, first, second } = await history();
    const base = `/projects/${p.id}/repository/files/a.txt/blame`;
    const ranged = await t.api('GET', `${base}?ref=main&range[start]=2&range[end]=3`);
    expect(ranged.body.map((r: any) => [r.commit.id, r.lines])).toEqual([[second.id, ['TWO']], [first.id, ['three']]]);
    const past = await t.api('GET', `${base}?ref=main&range[start]=4&range[end]=100`);
    expect(past.body.map((r: any) => r.lines)).toEqual([['four']]);
    expect((await t.api('GET', `${base}?ref=main&range[start]=9&range[end]=10`)).body).toEqual([]);
    expect(await t.api('GET', `${base}?ref=main&range[start]=2`)).toMatchObject({ status: 400, body: { error: 'range[end] is missing' } });
    expect(await t.api('GET', `${base}?ref=main&range[start]=0&range[end]=2`)).toMatchObject({ status: 400, body: { error: 'range[start] does not have a valid value' } });
    expect(await t.api('GET', `${base}?ref=main&range[start]=3&range[end]=2`)).toMatchObject({ status: 400, body: { error: 'range[end] does not have a valid value' } });
    expect(await t.api('GET', `${base}`)).toMatchObject({ status: 400, body: { error: 'ref is missing' } });
    expect(await t.api('GET', `${base}?ref=nope`)).toMatchObject({ status: 404, body: { message: '404 Commit Not Found' } });
    expect(await t.api('GET', `/projects/${p.id}/repository/files/missing.txt/blame?ref=main`)).toMatchObject({ status: 404, body: { message: '404 File Not Found' } });
    // A path in a directory, %2F-encoded, as GitLab's clients send it.
    await commit(p.id, [create('dir/c.txt', 'c\n')]);
    expect((await t.api('GET', `/projects/${p.id}/repository/files/dir%2Fc.txt/blame?ref=main`)).body[0].lines).toEqual(['c']);
  });

  it('hides private code from strangers (404) and Guests (403)', async () => {
    const { p } = await history();
    const stranger = await createUser(t);
    const guest = await createUser(t);
    await addMember(t, t.rootToken, 'projects', p.id, guest.id, 10);
    const path = `/projects/${p.id}/repository/files/a.txt/blame?ref=main`;
    expect(await t.api('GET', path, { token: null })).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
    expect(await t.api('GET', path, { token: stranger.token })).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
    expect((await t.api('GET', path, { token: guest.token })).status).toBe(403);
  });
});

describe('GET /projects/:id/repository/commits/:sha/diff and /refs', () => {
  it('answers the commit diff (plain and unidiff), paginated with totals', async () => {
    const { p, first, second } = await history();
    const res = await t.api('GET', `/projects/${p.id}/repository/commits/${second.id}/diff`);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-total')).toBe('1');
    expect(Object.keys(res.body[0]).sort()).toEqual(DIFF_KEYS);
    expect(res.body[0]).toEqual({
      diff: '@@ -1,3 +1,4 @@\n one\n-two\n+TWO\n three\n+four\n',
      collapsed: false,
      too_large: false,
      new_path: 'a.txt',
      old_path: 'a.txt',
      a_mode: '100644',
      b_mode: '100644',
      new_file: false,
      renamed_file: false,
      deleted_file: false,
      generated_file: false,
    });
    const uni = await t.api('GET', `/projects/${p.id}/repository/commits/${second.id}/diff?unidiff=true`);
    expect(uni.body[0].diff).toBe('--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,4 @@\n one\n-two\n+TWO\n three\n+four\n');
    // The root commit: every file new, against the empty tree.
    const root = await t.api('GET', `/projects/${p.id}/repository/commits/${first.id}/diff?per_page=1&unidiff=true`);
    expect(root.headers.get('x-total')).toBe('2');
    expect(root.headers.get('x-next-page')).toBe('2');
    expect(root.body).toEqual([expect.objectContaining({ new_path: 'a.txt', new_file: true, a_mode: '000000', b_mode: '100644', diff: '--- /dev/null\n+++ b/a.txt\n@@ -0,0 +1,3 @@\n+one\n+two\n+three\n' })]);
    expect(await t.api('GET', `/projects/${p.id}/repository/commits/${'0'.repeat(40)}/diff`)).toMatchObject({ status: 404, body: { message: '404 Commit Not Found' } });
  });

  it('lists the branches and tags containing a commit, by type, without totals', async () => {
    const { p, first, second } = await history();
    expect((await t.api('POST', `/projects/${p.id}/repository/branches`, { body: { branch: 'old', ref: first.id } })).status).toBe(201);
    expect((await t.api('POST', `/projects/${p.id}/repository/tags`, { body: { tag_name: 'v1', ref: second.id } })).status).toBe(201);
    const all = await t.api('GET', `/projects/${p.id}/repository/commits/${first.id}/refs`);
    expect(all.status).toBe(200);
    expect(all.body).toEqual([{ type: 'branch', name: 'main' }, { type: 'branch', name: 'old' }, { type: 'tag', name: 'v1' }]);
    expect(all.headers.get('x-total')).toBeNull();
    expect((await t.api('GET', `/projects/${p.id}/repository/commits/${second.id}/refs?type=branch`)).body).toEqual([{ type: 'branch', name: 'main' }]);
    expect((await t.api('GET', `/projects/${p.id}/repository/commits/${first.id}/refs?type=tag`)).body).toEqual([{ type: 'tag', name: 'v1' }]);
    const paged = await t.api('GET', `/projects/${p.id}/repository/commits/${first.id}/refs?per_page=2&page=2`);
    expect(paged.body).toEqual([{ type: 'tag', name: 'v1' }]);
    expect(await t.api('GET', `/projects/${p.id}/repository/commits/${first.id}/refs?type=other`)).toMatchObject({ status: 400, body: { error: 'type does not have a valid value' } });
    expect((await t.api('GET', `/projects/${p.id}/repository/commits/nope/refs`)).status).toBe(404);
  });
});

describe('GET /projects/:id/repository/commits/:sha/signature and /merge_requests', () => {
  it('404 Signature Not Found for an unsigned commit, Commit Not Found for none', async () => {
    const { p, second } = await history();
    expect(await t.api('GET', `/projects/${p.id}/repository/commits/${second.id}/signature`)).toMatchObject({ status: 404, body: { message: '404 Signature Not Found' } });
    expect(await t.api('GET', `/projects/${p.id}/repository/commits/nope/signature`)).toMatchObject({ status: 404, body: { message: '404 Commit Not Found' } });
  });

  it('no merge requests for a commit that exists; 404 for one that does not', async () => {
    const { p, second } = await history();
    const res = await t.api('GET', `/projects/${p.id}/repository/commits/${second.id}/merge_requests`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual([]);
    expect(res.headers.get('x-total')).toBe('0');
    expect(await t.api('GET', `/projects/${p.id}/repository/commits/${'1'.repeat(40)}/merge_requests`)).toMatchObject({ status: 404, body: { message: '404 Commit Not Found' } });
  });
});

describe('GET /projects/:id/repository/merge_base', () => {
  it('answers the common ancestor as a Commit; GitLab 400s', async () => {
    const { p, first, second } = await history();
    await t.api('POST', `/projects/${p.id}/repository/branches`, { body: { branch: 'side', ref: first.id } });
    const side = await commit(p.id, [create('side.txt', 's')], { branch: 'side' });
    const res = await t.api('GET', `/projects/${p.id}/repository/merge_base?refs[]=main&refs[]=side`);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(COMMIT_KEYS);
    expect(res.body.id).toBe(first.id);
    expect((await t.api('GET', `/projects/${p.id}/repository/merge_base?refs=${second.id},${side.body.id},side`)).body.id).toBe(first.id);
    expect(await t.api('GET', `/projects/${p.id}/repository/merge_base?refs[]=main`)).toMatchObject({ status: 400, body: { message: 'Provide at least 2 refs' } });
    expect(await t.api('GET', `/projects/${p.id}/repository/merge_base?refs[]=main&refs[]=nope`)).toMatchObject({ status: 400, body: { message: 'Could not find ref: nope' } });
    expect(await t.api('GET', `/projects/${p.id}/repository/merge_base?refs[]=x&refs[]=main&refs[]=y`)).toMatchObject({ status: 400, body: { message: 'Could not find refs: x, y' } });
    expect(await t.api('GET', `/projects/${p.id}/repository/merge_base`)).toMatchObject({ status: 400, body: { error: 'refs is missing' } });
  });
});

describe('GET /projects/:id/repository/contributors', () => {
  it('one row per author e-mail, ordered and sorted as asked', async () => {
    const { p } = await history();
    await commit(p.id, [create('c.txt', 'c')], { author: ['Bob Brown', 'bob@example.com'] });
    const res = await t.api('GET', `/projects/${p.id}/repository/contributors`);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-total')).toBe('2');
    expect(res.body).toEqual([
      { name: 'Ann', email: 'ann@example.com', commits: 1, additions: 0, deletions: 0 },
      { name: 'Bob Brown', email: 'bob@example.com', commits: 2, additions: 0, deletions: 0 },
    ]);
    expect((await t.api('GET', `/projects/${p.id}/repository/contributors?order_by=commits&sort=desc`)).body.map((c: any) => c.email)).toEqual(['bob@example.com', 'ann@example.com']);
    expect((await t.api('GET', `/projects/${p.id}/repository/contributors?order_by=name&sort=desc`)).body.map((c: any) => c.name)).toEqual(['Bob Brown', 'Ann']);
    expect((await t.api('GET', `/projects/${p.id}/repository/contributors?order_by=email&per_page=1&page=2`)).body.map((c: any) => c.email)).toEqual(['bob@example.com']);
    expect(await t.api('GET', `/projects/${p.id}/repository/contributors?order_by=size`)).toMatchObject({ status: 400, body: { error: 'order_by does not have a valid value' } });
  });
});

describe('POST /projects/:id/repository/commits/:sha/cherry_pick and /revert', () => {
  it('picks a commit onto another branch, keeping its author, and records the push', async () => {
    const { p, first, second } = await history();
    await t.api('POST', `/projects/${p.id}/repository/branches`, { body: { branch: 'stable', ref: first.id } });
    const dry = await t.api('POST', `/projects/${p.id}/repository/commits/${second.id}/cherry_pick`, { body: { branch: 'stable', dry_run: true } });
    expect(dry).toMatchObject({ status: 200, body: { dry_run: 'success' } });
    expect((await t.api('GET', `/projects/${p.id}/repository/branches/stable`)).body.commit.id).toBe(first.id);
    const res = await t.api('POST', `/projects/${p.id}/repository/commits/${second.id}/cherry_pick`, { body: { branch: 'stable' } });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(COMMIT_KEYS);
    expect(res.body).toMatchObject({
      parent_ids: [first.id],
      message: `Second\n\nBody\n\n(cherry picked from commit ${second.id})`,
      title: 'Second',
      author_name: 'Bob',
      author_email: 'bob@example.com',
      authored_date: second.authored_date,
      committer_name: 'Administrator',
    });
    expect((await t.api('GET', `/projects/${p.id}/repository/branches/stable`)).body.commit.id).toBe(res.body.id);
    expect((await t.api('GET', `/projects/${p.id}/repository/files/a.txt/raw?ref=stable`)).text).toBe('one\nTWO\nthree\nfour\n');
    const events = await t.api('GET', `/projects/${p.id}/events?action=pushed`);
    expect(events.body[0].push_data).toMatchObject({ action: 'pushed', ref: 'stable', commit_to: res.body.id, commit_count: 1, commit_title: 'Second' });
    // Picking it again changes nothing: GitLab's `empty`.
    const again = await t.api('POST', `/projects/${p.id}/repository/commits/${second.id}/cherry_pick`, { body: { branch: 'stable' } });
    expect(again).toMatchObject({
      status: 400,
      body: { message: 'Sorry, we cannot cherry-pick this commit automatically. This commit may already have been cherry-picked, or a more recent commit may have updated some of its content.', error_code: 'empty' },
    });
    const dryAgain = await t.api('POST', `/projects/${p.id}/repository/commits/${second.id}/cherry_pick`, { body: { branch: 'stable', dry_run: true } });
    expect(dryAgain.body).toEqual({ message: again.body.message, error_code: 'empty', dry_run: 'error' });
    const custom = await t.api('POST', `/projects/${p.id}/repository/commits/${(await commit(p.id, [create('n.txt', 'n')])).body.id}/cherry_pick`, { body: { branch: 'stable', message: 'Custom' } });
    expect(custom.body.message).toBe('Custom');
  });

  it('answers conflict, unknown commit and branch as GitLab does', async () => {
    const { p, first, second } = await history();
    await t.api('POST', `/projects/${p.id}/repository/branches`, { body: { branch: 'other', ref: first.id } });
    await commit(p.id, [update('a.txt', 'one\nDIFFERENT\nthree\n')], { branch: 'other' });
    const res = await t.api('POST', `/projects/${p.id}/repository/commits/${second.id}/cherry_pick`, { body: { branch: 'other' } });
    expect(res).toMatchObject({ status: 400, body: { error_code: 'conflict' } });
    expect(res.body.message).toMatch(/^Sorry, we cannot cherry-pick this commit automatically\./);
    expect(await t.api('POST', `/projects/${p.id}/repository/commits/nope/cherry_pick`, { body: { branch: 'other' } })).toMatchObject({ status: 404, body: { message: '404 Commit Not Found' } });
    expect(await t.api('POST', `/projects/${p.id}/repository/commits/${second.id}/cherry_pick`, { body: { branch: 'nope' } })).toMatchObject({ status: 404, body: { message: '404 Branch Not Found' } });
    expect(await t.api('POST', `/projects/${p.id}/repository/commits/${second.id}/cherry_pick`, { body: {} })).toMatchObject({ status: 400, body: { error: 'branch is missing' } });
  });

  it('reverts a commit with GitLab message, by the reverting user; a second revert is empty', async () => {
    const { p, second } = await history();
    const dry = await t.api('POST', `/projects/${p.id}/repository/commits/${second.id}/revert`, { body: { branch: 'main', dry_run: true } });
    expect(dry).toMatchObject({ status: 200, body: { dry_run: 'success' } });
    const res = await t.api('POST', `/projects/${p.id}/repository/commits/${second.id}/revert`, { body: { branch: 'main' } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ parent_ids: [second.id], title: 'Revert "Second"', message: `Revert "Second"\n\nThis reverts commit ${second.id}`, author_name: 'Administrator' });
    expect((await t.api('GET', `/projects/${p.id}/repository/files/a.txt/raw?ref=main`)).text).toBe('one\ntwo\nthree\n');
    const again = await t.api('POST', `/projects/${p.id}/repository/commits/${second.id}/revert`, { body: { branch: 'main' } });
    expect(again).toMatchObject({
      status: 400,
      body: { message: 'Sorry, we cannot revert this commit automatically. This commit may already have been reverted, or a more recent commit may have updated some of its content.', error_code: 'empty' },
    });
  });

  it('needs push access to the branch: Reporter 403, protected branch 403, anonymous 401/404', async () => {
    const { p, first, second } = await history();
    await t.api('POST', `/projects/${p.id}/repository/branches`, { body: { branch: 'stable', ref: first.id } });
    const reporter = await createUser(t);
    const developer = await createUser(t);
    await addMember(t, t.rootToken, 'projects', p.id, reporter.id, 20);
    await addMember(t, t.rootToken, 'projects', p.id, developer.id, 30);
    const path = `/projects/${p.id}/repository/commits/${second.id}/cherry_pick`;
    const denied = { status: 403, body: { message: '403 Forbidden - You are not allowed to push into this branch' } };
    expect(await t.api('POST', path, { token: reporter.token, body: { branch: 'stable' } })).toMatchObject(denied);
    expect(await t.api('POST', path, { token: null, body: { branch: 'stable' } })).toMatchObject({ status: 401 });
    // main is protected (default branch protection): Developers may not push to it.
    expect(await t.api('POST', `/projects/${p.id}/repository/commits/${first.id}/revert`, { token: developer.token, body: { branch: 'main' } })).toMatchObject(denied);
    const picked = await t.api('POST', path, { token: developer.token, body: { branch: 'stable' } });
    expect(picked.status).toBe(201);
    expect(picked.body.committer_name).toMatch(/^User /);
  });
});

describe('GraphQL', () => {
  it('serves blame, contributors and mergeBase on Repository, refusals of cherry-picks in errors', async () => {
    const { p, first, second } = await history();
    const res = await t.graphql(
      `query($id: ID!) { projectRepository(projectId: $id) {
        blame(filePath: "a.txt", ref: "main", range: { start: 1, end: 2 }) { commit { sha } lines }
        contributors(orderBy: name) { count nodes { name commits } }
        mergeBase(refs: ["main", "${first.id}"]) { sha }
        commitRefs(sha: "${first.id}") { nodes { type name } }
      } }`,
      { id: String(p.id) },
      t.rootToken,
    );
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.projectRepository).toEqual({
      blame: [{ commit: { sha: first.id }, lines: ['one'] }, { commit: { sha: second.id }, lines: ['TWO'] }],
      contributors: { count: 2, nodes: [{ name: 'Ann', commits: 1 }, { name: 'Bob', commits: 1 }] },
      mergeBase: { sha: first.id },
      commitRefs: { nodes: [{ type: 'branch', name: 'main' }] },
    });
    const pick = await t.graphql(
      `mutation($id: ID!, $sha: String!) { repositoryCommitCherryPick(input: { projectId: $id, sha: $sha, branch: "main" }) { errors commit { sha } dryRun } }`,
      { id: String(p.id), sha: second.id },
      t.rootToken,
    );
    expect(pick.body.data.repositoryCommitCherryPick).toEqual({
      errors: ['Sorry, we cannot cherry-pick this commit automatically. This commit may already have been cherry-picked, or a more recent commit may have updated some of its content.'],
      commit: null,
      dryRun: null,
    });
  });
});
