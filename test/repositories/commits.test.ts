/** The commits API over HTTP: every action, start_branch and start_sha, base64, authors, conflicts, races, lists and push events. */
import { existsSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { STALE_LOCK_MS } from '../../src/git/repository.js';
import { suiteServer } from '../support/server.js';
import { createProject, createUser } from '../support/factories.js';

const t = suiteServer({ commitMaxFileSize: 1024 });

async function project() {
  return createProject(t, t.rootToken);
}

function commit(id: number, body: Record<string, unknown>, token?: string) {
  return t.api('POST', `/projects/${id}/repository/commits`, { body: { branch: 'main', commit_message: 'Change', ...body }, token });
}

const create = (file_path: string, content = 'hello\n') => ({ action: 'create', file_path, content });

async function fileText(id: number, path: string, ref = 'main') {
  const res = await t.api('GET', `/projects/${id}/repository/files/${encodeURIComponent(path)}/raw?ref=${ref}`);
  return res.status === 200 ? res.text : null;
}

describe('POST /projects/:id/repository/commits', () => {
  it('makes the first commit of an empty repository and answers CommitDetail', async () => {
    const p = await project();
    const res = await commit(p.id, { commit_message: 'Initial commit\n\nWith a body\n\nSigned-off-by: A <a@example.com>', actions: [create('README.md')] });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(
      ['id', 'short_id', 'created_at', 'parent_ids', 'title', 'message', 'author_name', 'author_email', 'authored_date', 'committer_name', 'committer_email', 'committed_date', 'trailers', 'extended_trailers', 'web_url', 'stats', 'status', 'project_id', 'last_pipeline'].sort(),
    );
    expect(res.body).toMatchObject({
      short_id: res.body.id.slice(0, 11),
      parent_ids: [],
      title: 'Initial commit',
      author_name: 'Administrator',
      committer_name: 'Administrator',
      trailers: { 'Signed-off-by': 'A <a@example.com>' },
      extended_trailers: { 'Signed-off-by': ['A <a@example.com>'] },
      web_url: `http://gitlab.example.com/${p.path_with_namespace}/-/commit/${res.body.id}`,
      stats: { additions: 1, deletions: 0, total: 1 },
      status: null,
      project_id: p.id,
      last_pipeline: null,
    });
    expect(res.body.authored_date).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.000\+00:00$/);
    expect(await fileText(p.id, 'README.md')).toBe('hello\n');
    const after = await t.api('GET', `/projects/${p.id}`);
    expect(after.body).toMatchObject({ empty_repo: false, default_branch: 'main' });
  });

  it('applies create, update, delete, move and chmod in one commit', async () => {
    const p = await project();
    await commit(p.id, { actions: [create('a.txt', 'a'), create('b.txt', 'b'), create('dir/c.txt', 'c'), create('run.sh', 'echo')] });
    const res = await commit(p.id, {
      actions: [
        { action: 'update', file_path: 'a.txt', content: 'A' },
        { action: 'delete', file_path: 'b.txt' },
        { action: 'move', previous_path: 'dir/c.txt', file_path: 'moved/c.txt' },
        { action: 'chmod', file_path: 'run.sh', execute_filemode: true },
        { action: 'create', file_path: 'bin.dat', content: Buffer.from([0, 1, 2, 255]).toString('base64'), encoding: 'base64' },
      ],
    });
    expect(res.status).toBe(201);
    expect(res.body.parent_ids).toHaveLength(1);
    const tree = await t.api('GET', `/projects/${p.id}/repository/tree?recursive=true`);
    expect(tree.body.map((e: any) => `${e.type} ${e.mode} ${e.path}`)).toEqual(['tree 040000 moved', '100644 a.txt', '100644 bin.dat', '100644 moved/c.txt', '100755 run.sh'].map((s) => (s.startsWith('tree') ? s : `blob ${s}`)));
    expect(await fileText(p.id, 'a.txt')).toBe('A');
    const raw = await fetch(`${t.url}/api/v4/projects/${p.id}/repository/files/bin.dat/raw?ref=main`, { headers: { 'PRIVATE-TOKEN': t.rootToken } });
    expect(Buffer.from(await raw.arrayBuffer())).toEqual(Buffer.from([0, 1, 2, 255]));
    expect(raw.headers.get('content-type')).toBe('application/octet-stream');
  });

  it('takes author_name and author_email; the committer is the API user', async () => {
    const p = await project();
    const res = await commit(p.id, { author_name: 'Ada', author_email: 'ada@example.com', actions: [create('x')] });
    expect(res.body).toMatchObject({ author_name: 'Ada', author_email: 'ada@example.com', committer_name: 'Administrator' });
  });

  it('starts a new branch from start_branch or start_sha, and refuses an existing branch without force', async () => {
    const p = await project();
    const first = await commit(p.id, { actions: [create('a')] });
    const feature = await commit(p.id, { branch: 'feature', start_branch: 'main', actions: [create('b')] });
    expect(feature.status).toBe(201);
    expect(feature.body.parent_ids).toEqual([first.body.id]);
    const fromSha = await commit(p.id, { branch: 'other', start_sha: first.body.id, actions: [create('c')] });
    expect(fromSha.body.parent_ids).toEqual([first.body.id]);
    const again = await commit(p.id, { branch: 'feature', start_branch: 'main', actions: [create('d')] });
    expect(again).toMatchObject({ status: 400, body: { message: "A branch called 'feature' already exists. Switch to that branch in order to make changes" } });
    const forced = await commit(p.id, { branch: 'feature', start_branch: 'main', force: true, actions: [create('d')] });
    expect(forced.body.parent_ids).toEqual([first.body.id]);
    expect((await commit(p.id, { branch: 'nowhere', actions: [create('e')] })).body).toEqual({ message: 'You can only create or edit files when you are on a branch' });
    expect((await commit(p.id, { branch: 'x', start_sha: 'abc', actions: [create('e')] })).body).toEqual({ message: "Invalid start_sha 'abc'" });
    expect((await commit(p.id, { branch: 'x', start_sha: 'f'.repeat(40), actions: [create('e')] })).body).toEqual({ message: `Cannot find start_sha '${'f'.repeat(40)}'` });
    expect((await commit(p.id, { branch: 'x', start_sha: first.body.id, start_branch: 'main', actions: [create('e')] })).body).toEqual({ error: 'start_branch, start_sha are mutually exclusive' });
  });

  it.each([
    [[create('a')], 'A file with this name already exists'],
    [[{ action: 'update', file_path: 'missing', content: 'x' }], "A file with this name doesn't exist"],
    [[{ action: 'delete', file_path: 'missing' }], "A file with this name doesn't exist"],
    [[{ action: 'move', previous_path: 'missing', file_path: 'b' }], "A file with this name doesn't exist"],
    [[{ action: 'move', previous_path: 'a', file_path: 'dir/b' }], 'A file with this name already exists'],
    [[{ action: 'chmod', file_path: 'missing', execute_filemode: true }], "A file with this name doesn't exist"],
    [[create('dir')], 'A directory with this name already exists'],
    [[create('../etc/passwd')], 'Path cannot include directory traversal'],
    [[create('/abs')], 'Path cannot include directory traversal'],
    [[create('.git/config')], "invalid path: '.git/config'"],
    [[create('a/b/../c')], 'Path cannot include directory traversal'],
  ])('refuses %j with 400 %s', async (actions, message) => {
    const p = await project();
    await commit(p.id, { actions: [create('a'), create('dir/b')] });
    const res = await commit(p.id, { actions });
    expect(res).toMatchObject({ status: 400, body: { message } });
  });

  it('refuses bad parameters without a 500', async () => {
    const p = await project();
    expect((await t.api('POST', `/projects/${p.id}/repository/commits`, { body: { commit_message: 'x', actions: [] } })).body).toEqual({ error: 'branch is missing' });
    expect((await commit(p.id, { actions: [{ action: 'explode', file_path: 'a' }] })).body).toEqual({ error: 'actions[0][action] does not have a valid value' });
    expect((await commit(p.id, { branch: 'bad..name', actions: [create('a')] })).body).toEqual({ message: "Something went wrong when we tried to create 'bad..name' for you: Branch name is invalid" });
    expect((await commit(p.id, { branch: '-x', actions: [create('a')] })).status).toBe(400);
    expect((await commit(p.id, { actions: [create('a\u0000b')] })).status).toBe(400);
  });

  it('answers 413 for a file over COMMIT_MAX_FILE_SIZE', async () => {
    const p = await project();
    const res = await commit(p.id, { actions: [create('big', 'x'.repeat(1025))] });
    expect(res).toMatchObject({ status: 413, body: { message: '413 Request Entity Too Large' } });
    expect((await t.api('GET', `/projects/${p.id}`)).body.empty_repo).toBe(true);
  });

  it('refuses a stale last_commit_id', async () => {
    const p = await project();
    const first = await commit(p.id, { actions: [create('a')] });
    const second = await commit(p.id, { actions: [{ action: 'update', file_path: 'a', content: '2', last_commit_id: first.body.id }] });
    expect(second.status).toBe(201);
    const stale = await commit(p.id, { actions: [{ action: 'update', file_path: 'a', content: '3', last_commit_id: first.body.id }] });
    expect(stale).toMatchObject({ status: 400, body: { message: 'The file has changed since you started editing it: a' } });
  });

  it('serializes concurrent commits to one branch: each lands or gets a 400, none is lost', async () => {
    const p = await project();
    await commit(p.id, { actions: [create('base')] });
    const results = await Promise.all(Array.from({ length: 6 }, (_, i) => commit(p.id, { actions: [create(`f${i}`)] })));
    const won = results.filter((r) => r.status === 201);
    const lost = results.filter((r) => r.status !== 201);
    expect(won.length).toBeGreaterThanOrEqual(1);
    for (const r of lost) expect(r).toMatchObject({ status: 400, body: { message: 'Could not update refs/heads/main. Please refresh and try again.' } });
    const log = await t.api('GET', `/projects/${p.id}/repository/commits?per_page=100`);
    expect(log.body).toHaveLength(1 + won.length);
    // A linear history: each winner's parent is the commit before it.
    for (let i = 0; i < log.body.length - 1; i++) expect(log.body[i].parent_ids).toEqual([log.body[i + 1].id]);
  });

  it('commits past a ref lock a killed git left behind, and not past one a running git holds', async () => {
    const p = await project();
    await commit(p.id, { actions: [create('base')] });
    const lock = join(t.server.app.repositories.path({ id: p.id, repositoryStorage: 'default' }), 'refs/heads/main.lock');
    writeFileSync(lock, '');
    expect(await commit(p.id, { actions: [create('while-locked')] })).toMatchObject({ status: 400, body: { message: 'Could not update refs/heads/main. Please refresh and try again.' } });
    expect(existsSync(lock)).toBe(true);
    const old = new Date(Date.now() - STALE_LOCK_MS - 1000);
    utimesSync(lock, old, old);
    expect((await commit(p.id, { actions: [create('after-crash')] })).status).toBe(201);
    expect(existsSync(lock)).toBe(false);
    expect(await fileText(p.id, 'after-crash')).toBe('hello\n');
  });

  it('records a push event for an API commit', async () => {
    const p = await project();
    const res = await commit(p.id, { commit_message: 'Pushed through the API', actions: [create('a')] });
    const events = await t.api('GET', `/projects/${p.id}/events?action=pushed`);
    expect(events.body.map((e: any) => [e.action_name, e.push_data])).toEqual([
      [
        'pushed new',
        { commit_count: 1, action: 'created', ref_type: 'branch', commit_from: null, commit_to: res.body.id, ref: 'main', commit_title: 'Pushed through the API', ref_count: null },
      ],
    ]);
  });

  it('answers 404 for a private project to a stranger and 403 to a Guest', async () => {
    const p = await project();
    await commit(p.id, { actions: [create('a')] });
    const stranger = await createUser(t);
    expect(await commit(p.id, { actions: [create('b')] }, stranger.token)).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
    expect(await t.api('GET', `/projects/${p.id}/repository/commits`, { token: stranger.token })).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
    const guest = await createUser(t);
    await t.api('POST', `/projects/${p.id}/members`, { body: { user_id: guest.id, access_level: 10 } });
    expect(await t.api('GET', `/projects/${p.id}/repository/commits`, { token: guest.token })).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    const reporter = await createUser(t);
    await t.api('POST', `/projects/${p.id}/members`, { body: { user_id: reporter.id, access_level: 20 } });
    expect((await t.api('GET', `/projects/${p.id}/repository/commits`, { token: reporter.token })).status).toBe(200);
    // The commits API asks UserAccess#can_push_to_branch? first (authorize_push_to_branch!), in its own words.
    expect(await commit(p.id, { actions: [create('c')] }, reporter.token)).toMatchObject({ status: 403, body: { message: '403 Forbidden - You are not allowed to push into this branch' } });
  });
});

describe('GET /projects/:id/repository/commits', () => {
  it('pages as GitLab pages commits: X-Next-Page while a page is full, no X-Total', async () => {
    const p = await project();
    for (let i = 0; i < 3; i++) await commit(p.id, { commit_message: `c${i}`, actions: [create(`f${i}`)] });
    const first = await t.api('GET', `/projects/${p.id}/repository/commits?per_page=2`);
    expect(first.body.map((c: any) => c.title)).toEqual(['c2', 'c1']);
    expect(first.headers.get('x-page')).toBe('1');
    expect(first.headers.get('x-per-page')).toBe('2');
    expect(first.headers.get('x-next-page')).toBe('2');
    expect(first.headers.get('x-total')).toBeNull();
    expect(first.headers.get('x-total-pages')).toBeNull();
    expect(first.headers.get('link')).not.toContain('rel="last"');
    const second = await t.api('GET', `/projects/${p.id}/repository/commits?per_page=2&page=2`);
    expect(second.body.map((c: any) => c.title)).toEqual(['c0']);
    expect(second.headers.get('x-next-page')).toBe('');
    expect(second.headers.get('x-prev-page')).toBe('1');
  });

  it('filters by ref_name and path, and adds stats with with_stats', async () => {
    const p = await project();
    await commit(p.id, { commit_message: 'one', actions: [create('a')] });
    await commit(p.id, { commit_message: 'two', actions: [create('b')] });
    await commit(p.id, { branch: 'side', start_branch: 'main', commit_message: 'three', actions: [create('c')] });
    const byPath = await t.api('GET', `/projects/${p.id}/repository/commits?path=a`);
    expect(byPath.body.map((c: any) => c.title)).toEqual(['one']);
    expect(byPath.body[0].stats).toBeUndefined();
    const side = await t.api('GET', `/projects/${p.id}/repository/commits?ref_name=side&with_stats=true`);
    expect(side.body.map((c: any) => c.title)).toEqual(['three', 'two', 'one']);
    expect(side.body[0].stats).toEqual({ additions: 1, deletions: 0, total: 1 });
    const all = await t.api('GET', `/projects/${p.id}/repository/commits?all=true`);
    expect(all.body).toHaveLength(3);
    const future = await t.api('GET', `/projects/${p.id}/repository/commits?since=2090-01-01T00:00:00Z`);
    expect(future.body).toEqual([]);
    expect((await t.api('GET', `/projects/${p.id}/repository/commits?ref_name=nope`)).body).toEqual([]);
  });

  it('shows one commit by sha, branch or tag; 404 Commit Not Found otherwise', async () => {
    const p = await project();
    const c = await commit(p.id, { actions: [create('a')] });
    const bySha = await t.api('GET', `/projects/${p.id}/repository/commits/${c.body.id}`);
    expect(bySha.body).toEqual(c.body);
    expect((await t.api('GET', `/projects/${p.id}/repository/commits/main`)).body.id).toBe(c.body.id);
    expect((await t.api('GET', `/projects/${p.id}/repository/commits/${c.body.id}?stats=false`)).body.stats).toBeUndefined();
    expect(await t.api('GET', `/projects/${p.id}/repository/commits/${'0'.repeat(40)}`)).toMatchObject({ status: 404, body: { message: '404 Commit Not Found' } });
    expect(await t.api('GET', `/projects/${p.id}/repository/commits/--output=x`)).toMatchObject({ status: 404, body: { message: '404 Commit Not Found' } });
  });
});
