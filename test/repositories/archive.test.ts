/** Repository archives and snapshots over HTTP: every format listed with tar/unzip, GitLab's file names, headers, 404s and who may download. */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { suiteServer } from '../support/server.js';
import { addMember, createProject, createUser } from '../support/factories.js';

const t = suiteServer();
const dir = mkdtempSync(join(tmpdir(), 'archive-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function download(path: string, token: string | null = t.rootToken) {
  const res = await fetch(`${t.url}/api/v4${path}`, { headers: token ? { 'PRIVATE-TOKEN': token } : {} });
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}

/** The member names of an archive, as tar or unzip lists them. */
function list(bytes: Buffer, name: string): string[] {
  const file = join(dir, name);
  writeFileSync(file, bytes);
  const out = name.endsWith('.zip') ? execFileSync('unzip', ['-Z1', file]) : execFileSync('tar', ['-tf', file]);
  return out.toString('utf8').split('\n').filter(Boolean).sort();
}

async function project(visibility = 'private') {
  const p = await createProject(t, t.rootToken, { visibility });
  const res = await t.api('POST', `/projects/${p.id}/repository/commits`, {
    body: { branch: 'main', commit_message: 'Files', actions: [{ action: 'create', file_path: 'README.md', content: 'hi\n' }, { action: 'create', file_path: 'docs/a.md', content: 'a\n' }, { action: 'create', file_path: 'docs/b.md', content: 'b\n' }] },
  });
  expect(res.status).toBe(201);
  return { p, sha: res.body.id as string };
}

describe('GET /projects/:id/repository/archive[.format]', () => {
  it('streams every format with GitLab file names and Workhorse headers', async () => {
    const { p, sha } = await project();
    const prefix = `${p.path}-main-${sha}`;
    const members = [`${prefix}/`, `${prefix}/README.md`, `${prefix}/docs/`, `${prefix}/docs/a.md`, `${prefix}/docs/b.md`];
    const formats: [string, string][] = [
      ['', 'tar.gz'],
      ['.tar.gz', 'tar.gz'],
      ['.tgz', 'tar.gz'],
      ['.gz', 'tar.gz'],
      ['.tar', 'tar'],
      ['.zip', 'zip'],
      ['.tar.bz2', 'tar.bz2'],
      ['.tbz', 'tar.bz2'],
      ['.tbz2', 'tar.bz2'],
      ['.tb2', 'tar.bz2'],
      ['.bz2', 'tar.bz2'],
    ];
    for (const [suffix, extension] of formats) {
      const res = await download(`/projects/${p.id}/repository/archive${suffix}`);
      expect(res.status, suffix).toBe(200);
      const fileName = `${prefix}.${extension}`;
      expect(res.headers.get('content-disposition')).toBe(`attachment; filename="${fileName}"`);
      expect(res.headers.get('content-type')).toBe(extension === 'zip' ? 'application/zip' : 'application/octet-stream');
      expect(res.headers.get('content-transfer-encoding')).toBe('binary');
      expect(list(res.bytes, fileName), suffix).toEqual(members);
    }
    // The compressed formats are what they say: gzip and bzip2 magic.
    expect((await download(`/projects/${p.id}/repository/archive.tar.gz`)).bytes.subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b]));
    expect((await download(`/projects/${p.id}/repository/archive.bz2`)).bytes.subarray(0, 3).toString()).toBe('BZh');
    // `format` as a parameter; an unknown one is GitLab's default, tar.gz.
    const zip = await download(`/projects/${p.id}/repository/archive?format=zip`);
    expect(zip.headers.get('content-disposition')).toBe(`attachment; filename="${prefix}.zip"`);
    expect((await download(`/projects/${p.id}/repository/archive?format=rar`)).headers.get('content-disposition')).toBe(`attachment; filename="${prefix}.tar.gz"`);
  });

  it('archives a sha, a path and without excluded paths', async () => {
    const { p, sha } = await project();
    const bySha = await download(`/projects/${p.id}/repository/archive.tar?sha=${sha}`);
    // GitLab appends the commit even when the ref is the commit.
    expect(bySha.headers.get('content-disposition')).toBe(`attachment; filename="${p.path}-${sha}-${sha}.tar"`);
    const docs = await download(`/projects/${p.id}/repository/archive.zip?path=docs`);
    const prefix = `${p.path}-main-${sha}-docs`;
    expect(docs.headers.get('content-disposition')).toBe(`attachment; filename="${prefix}.zip"`);
    expect(list(docs.bytes, 'docs.zip')).toEqual([`${prefix}/`, `${prefix}/docs/`, `${prefix}/docs/a.md`, `${prefix}/docs/b.md`]);
    const without = await download(`/projects/${p.id}/repository/archive.tar?exclude_paths=docs/b.md,README.md&include_lfs_blobs=false`);
    expect(list(without.bytes, 'without.tar')).toEqual([`${p.path}-main-${sha}/`, `${p.path}-main-${sha}/docs/`, `${p.path}-main-${sha}/docs/a.md`]);
  });

  it('404 File Not Found for an unknown ref or path, the catch-all 404 for an unknown suffix', async () => {
    const { p } = await project();
    for (const path of [`archive?sha=nope`, `archive.zip?sha=${'0'.repeat(40)}`, `archive?path=missing`, `archive?sha=--output=x`]) {
      const res = await t.api('GET', `/projects/${p.id}/repository/${path}`);
      expect(res, path).toMatchObject({ status: 404, body: { message: '404 File Not Found' } });
    }
    expect(await t.api('GET', `/projects/${p.id}/repository/archive.rar`)).toMatchObject({ status: 404, body: { error: '404 Not Found' } });
    const empty = await createProject(t, t.rootToken);
    expect((await t.api('GET', `/projects/${empty.id}/repository/archive`)).status).toBe(404);
  });

  it('needs download_code: anonymous and strangers 404 on private, Guests 403; public open to all', async () => {
    const { p } = await project();
    const stranger = await createUser(t);
    const guest = await createUser(t);
    const reporter = await createUser(t);
    await addMember(t, t.rootToken, 'projects', p.id, guest.id, 10);
    await addMember(t, t.rootToken, 'projects', p.id, reporter.id, 20);
    const path = `/projects/${p.id}/repository/archive.zip`;
    expect(await t.api('GET', path, { token: null })).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
    expect(await t.api('GET', path, { token: stranger.token })).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
    expect((await t.api('GET', path, { token: guest.token })).status).toBe(403);
    expect((await download(path, reporter.token)).status).toBe(200);
    const publicProject = await project('public');
    expect((await download(`/projects/${publicProject.p.id}/repository/archive.tar`, null)).status).toBe(200);
    const noScope = await createUser(t, { scopes: ['read_user'] });
    expect((await t.api('GET', `/projects/${publicProject.p.id}/repository/archive.tar`, { token: noScope.token })).status).toBe(403);
  });
});

describe('GET /projects/:id/snapshot', () => {
  it('gives administrators a tar of the bare repository that git can clone', async () => {
    const { p, sha } = await project();
    const res = await download(`/projects/${p.id}/snapshot`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="snapshot.tar"');
    expect(res.headers.get('content-type')).toBe('application/x-tar');
    const members = list(res.bytes, 'snapshot.tar');
    expect(members).toContain('HEAD');
    expect(members.some((m) => m.startsWith('objects/'))).toBe(true);
    const repo = join(dir, 'snapshot.git');
    execFileSync('mkdir', ['-p', repo]);
    execFileSync('tar', ['-xf', join(dir, 'snapshot.tar'), '-C', repo]);
    const env = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' };
    execFileSync('git', ['init', '-q', '--bare', repo], { env });
    expect(execFileSync('git', ['--git-dir', repo, 'rev-parse', 'refs/heads/main'], { env }).toString().trim()).toBe(sha);
    expect(execFileSync('git', ['--git-dir', repo, 'fsck', '--no-dangling'], { env, stdio: ['ignore', 'pipe', 'pipe'] }).toString()).toBe('');
  });

  it('is for administrators only (403 before the project is looked up), 401 anonymous; no wiki repositories', async () => {
    const { p } = await project('public');
    const owner = await createUser(t);
    expect(await t.api('GET', `/projects/${p.id}/snapshot`, { token: null })).toMatchObject({ status: 401 });
    expect(await t.api('GET', `/projects/${p.id}/snapshot`, { token: owner.token })).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    expect(await t.api('GET', `/projects/999999999/snapshot`, { token: owner.token })).toMatchObject({ status: 403 });
    expect(await t.api('GET', `/projects/999999999/snapshot`)).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
    expect(await t.api('GET', `/projects/${p.id}/snapshot?wiki=true`)).toMatchObject({ status: 404, body: { message: '404 Repository Not Found' } });
  });
});
