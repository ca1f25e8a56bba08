/** Files, tree, blobs, compare, branches and tags over raw HTTP: GitLab's JSON, status codes, headers and errors. */
import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { suiteServer } from '../support/server.js';
import { createProject } from '../support/factories.js';

const t = suiteServer();
let p: any;
let first: string;

beforeAll(async () => {
  p = await createProject(t, t.rootToken, { visibility: 'public' });
  const res = await t.api('POST', `/projects/${p.id}/repository/commits`, {
    body: {
      branch: 'main',
      commit_message: 'Initial',
      actions: [
        { action: 'create', file_path: 'README.md', content: '# Hello\n' },
        { action: 'create', file_path: 'src/app/main.ts', content: 'export {};\n' },
        { action: 'create', file_path: 'docs/a b.md', content: 'spaces\n' },
      ],
    },
  });
  first = res.body.id;
});

const files = (path: string) => `/projects/${p.id}/repository/files/${encodeURIComponent(path)}`;

describe('files', () => {
  it('reads a file as GitLab: JSON, X-Gitlab-* headers, HEAD and raw', async () => {
    const res = await t.api('GET', `${files('src/app/main.ts')}?ref=main`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      file_name: 'main.ts',
      file_path: 'src/app/main.ts',
      size: 11,
      encoding: 'base64',
      content_sha256: createHash('sha256').update('export {};\n').digest('hex'),
      ref: 'main',
      blob_id: expect.stringMatching(/^[0-9a-f]{40}$/),
      commit_id: first,
      last_commit_id: first,
      execute_filemode: false,
      content: Buffer.from('export {};\n').toString('base64'),
    });
    expect(res.headers.get('x-gitlab-file-path')).toBe('src/app/main.ts');
    expect(res.headers.get('x-gitlab-size')).toBe('11');
    const head = await fetch(`${t.url}/api/v4${files('src/app/main.ts')}?ref=main`, { method: 'HEAD', headers: { 'PRIVATE-TOKEN': t.rootToken } });
    expect(head.status).toBe(200);
    expect(head.headers.get('x-gitlab-blob-id')).toBe(res.body.blob_id);
    expect(head.headers.get('x-gitlab-last-commit-id')).toBe(first);
    expect(await head.text()).toBe('');
    const raw = await t.api('GET', `${files('docs/a b.md')}/raw`);
    expect(raw).toMatchObject({ status: 200, text: 'spaces\n' });
    expect(raw.headers.get('content-type')).toBe('text/plain; charset=utf-8');
  });

  it('answers 404 File Not Found, 404 Commit Not Found, and 400 for traversal', async () => {
    expect(await t.api('GET', `${files('nope.md')}?ref=main`)).toMatchObject({ status: 404, body: { message: '404 File Not Found' } });
    expect(await t.api('GET', `${files('README.md')}?ref=nope`)).toMatchObject({ status: 404, body: { message: '404 Commit Not Found' } });
    expect(await t.api('GET', files('README.md'))).toMatchObject({ status: 400, body: { error: 'ref is missing' } });
    expect(await t.api('GET', `${files('../README.md')}?ref=main`)).toMatchObject({ status: 400, body: { error: 'file_path should be a valid file path' } });
    expect(await t.api('GET', `${files('src')}?ref=main`)).toMatchObject({ status: 404, body: { message: '404 File Not Found' } });
  });

  it('creates (201), updates (200) and deletes (204) files in one-file commits, with the last_commit_id check', async () => {
    const created = await t.api('POST', files('new/file.txt'), { body: { branch: 'main', commit_message: 'Add', content: 'one' } });
    expect(created).toMatchObject({ status: 201, body: { file_path: 'new/file.txt', branch: 'main' } });
    expect(await t.api('POST', files('new/file.txt'), { body: { branch: 'main', commit_message: 'Add', content: 'one' } })).toMatchObject({
      status: 400,
      body: { message: 'A file with this name already exists' },
    });
    const info = await t.api('GET', `${files('new/file.txt')}?ref=main`);
    const updated = await t.api('PUT', files('new/file.txt'), {
      body: { branch: 'main', commit_message: 'Update', content: Buffer.from('two').toString('base64'), encoding: 'base64', last_commit_id: info.body.last_commit_id },
    });
    expect(updated).toMatchObject({ status: 200, body: { file_path: 'new/file.txt', branch: 'main' } });
    expect((await t.api('GET', `${files('new/file.txt')}/raw?ref=main`)).text).toBe('two');
    const stale = await t.api('PUT', files('new/file.txt'), { body: { branch: 'main', commit_message: 'Again', content: 'three', last_commit_id: info.body.last_commit_id } });
    expect(stale).toMatchObject({ status: 400, body: { message: 'You are attempting to update a file that has changed since you started editing it.' } });
    expect(await t.api('PUT', files('missing.txt'), { body: { branch: 'main', commit_message: 'x', content: 'x' } })).toMatchObject({ status: 400, body: { message: "A file with this name doesn't exist" } });
    const deleted = await t.api('DELETE', files('new/file.txt'), { body: { branch: 'main', commit_message: 'Remove' } });
    expect(deleted).toMatchObject({ status: 204, text: '' });
    expect((await t.api('GET', `${files('new/file.txt')}?ref=main`)).status).toBe(404);
    expect(await t.api('POST', files('x.txt'), { body: { branch: 'main', content: 'x' } })).toMatchObject({ status: 400, body: { error: 'commit_message is missing' } });
  });
});

describe('tree and blobs', () => {
  it('lists a directory, recursively, by path and ref, with offset pagination', async () => {
    const root = await t.api('GET', `/projects/${p.id}/repository/tree`);
    expect(root.body.map((e: any) => [e.type, e.name])).toEqual([['tree', 'docs'], ['tree', 'src'], ['blob', 'README.md']]);
    expect(Object.keys(root.body[0]).sort()).toEqual(['id', 'mode', 'name', 'path', 'type']);
    expect(root.headers.get('x-total')).toBe('3');
    const sub = await t.api('GET', `/projects/${p.id}/repository/tree?path=src/app&ref=${first}`);
    expect(sub.body).toEqual([{ id: expect.any(String), name: 'main.ts', type: 'blob', path: 'src/app/main.ts', mode: '100644' }]);
    const all = await t.api('GET', `/projects/${p.id}/repository/tree?recursive=true&per_page=2&page=2`);
    expect(all.headers.get('x-total')).toBe('6');
    expect(all.body).toHaveLength(2);
    expect(await t.api('GET', `/projects/${p.id}/repository/tree?path=nope`)).toMatchObject({ status: 404, body: { message: '404 Tree Not Found' } });
    expect(await t.api('GET', `/projects/${p.id}/repository/tree?ref=nope`)).toMatchObject({ status: 404, body: { message: '404 Tree Not Found' } });
  });

  it('reads a blob by sha as JSON and raw', async () => {
    const readme = (await t.api('GET', `${files('README.md')}?ref=main`)).body;
    const blob = await t.api('GET', `/projects/${p.id}/repository/blobs/${readme.blob_id}`);
    expect(blob.body).toEqual({ size: 8, encoding: 'base64', content: Buffer.from('# Hello\n').toString('base64'), sha: readme.blob_id });
    expect((await t.api('GET', `/projects/${p.id}/repository/blobs/${readme.blob_id}/raw`)).text).toBe('# Hello\n');
    expect(await t.api('GET', `/projects/${p.id}/repository/blobs/${first}`)).toMatchObject({ status: 404, body: { message: '404 Blob Not Found' } });
  });
});

describe('branches', () => {
  it('creates, lists, searches, shows and deletes branches', async () => {
    const created = await t.api('POST', `/projects/${p.id}/repository/branches`, { body: { branch: 'feature/x', ref: 'main' } });
    expect(created.status).toBe(201);
    expect(Object.keys(created.body).sort()).toEqual(['can_push', 'commit', 'default', 'developers_can_merge', 'developers_can_push', 'merged', 'name', 'protected', 'web_url']);
    // Made from main and still at its head: not merged, as GitLab's merged_branch_names leaves out a branch at the default branch's head.
    expect(created.body).toMatchObject({ name: 'feature/x', merged: false, default: false, can_push: true, web_url: `http://gitlab.example.com/${p.path_with_namespace}/-/tree/feature/x` });
    expect(created.body.commit.id).toBe((await t.api('GET', `/projects/${p.id}/repository/commits/main`)).body.id);
    expect(await t.api('POST', `/projects/${p.id}/repository/branches`, { body: { branch: 'feature/x', ref: 'main' } })).toMatchObject({ status: 400, body: { message: 'Branch already exists' } });
    expect(await t.api('POST', `/projects/${p.id}/repository/branches`, { body: { branch: 'bad..name', ref: 'main' } })).toMatchObject({ status: 400, body: { message: 'Branch name is invalid' } });
    expect(await t.api('POST', `/projects/${p.id}/repository/branches`, { body: { branch: 'ok', ref: 'nope' } })).toMatchObject({ status: 400, body: { message: "Failed to create branch 'ok': invalid reference name 'nope'" } });
    const list = await t.api('GET', `/projects/${p.id}/repository/branches`);
    expect(list.body.map((b: any) => [b.name, b.default, b.merged])).toEqual([['feature/x', false, false], ['main', true, false]]);
    expect((await t.api('GET', `/projects/${p.id}/repository/branches?search=^feat`)).body.map((b: any) => b.name)).toEqual(['feature/x']);
    const shown = await t.api('GET', `/projects/${p.id}/repository/branches/${encodeURIComponent('feature/x')}`);
    expect(shown.body.name).toBe('feature/x');
    expect(await t.api('GET', `/projects/${p.id}/repository/branches/nope`)).toMatchObject({ status: 404, body: { message: '404 Branch Not Found' } });
    expect(await t.api('DELETE', `/projects/${p.id}/repository/branches/main`)).toMatchObject({ status: 405, body: { message: 'The default branch of a project cannot be deleted.' } });
    expect(await t.api('DELETE', `/projects/${p.id}/repository/branches/${encodeURIComponent('feature/x')}`)).toMatchObject({ status: 204 });
    expect(await t.api('DELETE', `/projects/${p.id}/repository/branches/${encodeURIComponent('feature/x')}`)).toMatchObject({ status: 404, body: { message: '404 Branch Not Found' } });
    const pushes = await t.server.app.db.event.findMany({ where: { projectId: p.id, action: 'pushed' }, orderBy: { id: 'asc' } });
    expect(pushes.slice(-2).map((e) => (e.pushData as any).action)).toEqual(['created', 'removed']);
  });
});

describe('tags', () => {
  it('creates lightweight and annotated tags, lists, shows and deletes them', async () => {
    const light = await t.api('POST', `/projects/${p.id}/repository/tags`, { body: { tag_name: 'v1.0', ref: 'main' } });
    expect(light.status).toBe(201);
    expect(Object.keys(light.body).sort()).toEqual(['commit', 'created_at', 'message', 'name', 'protected', 'release', 'target']);
    expect(light.body).toMatchObject({ name: 'v1.0', message: '', target: light.body.commit.id, release: null, protected: false, created_at: null });
    const annotated = await t.api('POST', `/projects/${p.id}/repository/tags`, { body: { tag_name: 'v2.0', ref: first, message: 'Release 2' } });
    expect(annotated.body).toMatchObject({ name: 'v2.0', message: 'Release 2', commit: { id: first } });
    expect(annotated.body.target).not.toBe(first);
    expect(annotated.body.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00$/);
    expect(await t.api('POST', `/projects/${p.id}/repository/tags`, { body: { tag_name: 'v1.0', ref: 'main' } })).toMatchObject({ status: 400, body: { message: 'Tag v1.0 already exists' } });
    expect(await t.api('POST', `/projects/${p.id}/repository/tags`, { body: { tag_name: 'bad tag', ref: 'main' } })).toMatchObject({ status: 400, body: { message: 'Tag name invalid' } });
    expect(await t.api('POST', `/projects/${p.id}/repository/tags`, { body: { tag_name: 'v3', ref: 'nope' } })).toMatchObject({ status: 400, body: { message: 'Target nope is invalid' } });
    expect((await t.api('GET', `/projects/${p.id}/repository/tags?order_by=name&sort=asc`)).body.map((x: any) => x.name)).toEqual(['v1.0', 'v2.0']);
    expect((await t.api('GET', `/projects/${p.id}/repository/tags/v2.0`)).body.message).toBe('Release 2');
    expect((await t.api('GET', `/projects/${p.id}/repository/commits/v2.0`)).body.id).toBe(first);
    expect(await t.api('DELETE', `/projects/${p.id}/repository/tags/v2.0`)).toMatchObject({ status: 204 });
    expect(await t.api('GET', `/projects/${p.id}/repository/tags/v2.0`)).toMatchObject({ status: 404, body: { message: '404 Tag Not Found' } });
  });
});

describe('compare', () => {
  it('lists the commits and diffs between two refs', async () => {
    await t.api('POST', `/projects/${p.id}/repository/commits`, {
      body: { branch: 'topic', start_branch: 'main', commit_message: 'Topic', actions: [{ action: 'update', file_path: 'README.md', content: '# Hi\n' }, { action: 'create', file_path: 't.txt', content: 't\n' }] },
    });
    const res = await t.api('GET', `/projects/${p.id}/repository/compare?from=main&to=topic`);
    expect(Object.keys(res.body).sort()).toEqual(['commit', 'commits', 'compare_same_ref', 'compare_timeout', 'diffs', 'web_url']);
    expect(res.body.commits.map((c: any) => c.title)).toEqual(['Topic']);
    expect(res.body.commit.title).toBe('Topic');
    expect(res.body.diffs).toEqual([
      expect.objectContaining({ old_path: 'README.md', new_path: 'README.md', a_mode: '100644', b_mode: '100644', new_file: false, deleted_file: false, renamed_file: false, diff: '@@ -1 +1 @@\n-# Hello\n+# Hi\n' }),
      expect.objectContaining({ new_path: 't.txt', new_file: true, a_mode: '000000' }),
    ]);
    expect(res.body).toMatchObject({ compare_timeout: false, compare_same_ref: false, web_url: `http://gitlab.example.com/${p.path_with_namespace}/-/compare/main...topic` });
    const same = await t.api('GET', `/projects/${p.id}/repository/compare?from=main&to=main`);
    expect(same.body).toMatchObject({ commit: null, commits: [], diffs: [], compare_same_ref: true });
    expect(await t.api('GET', `/projects/${p.id}/repository/compare?from=main&to=nope`)).toMatchObject({ status: 404, body: { message: '404 Ref Not Found' } });
  });
});

describe('who may read', () => {
  it('serves a public project to anonymous callers and refuses their writes', async () => {
    expect((await t.api('GET', `/projects/${p.id}/repository/tree`, { token: null })).status).toBe(200);
    expect((await t.api('POST', `/projects/${p.id}/repository/branches`, { token: null, body: { branch: 'anon', ref: 'main' } })).status).toBe(401);
  });
});
