/**
 * The package registry over REST: generic uploads and downloads with real bytes (checksums of a multi-MB file, the
 * limit, GitLab's name rules, hidden packages, CI job tokens recording their pipeline), the lists with their orders
 * and filters on a seeded registry, one package, its files and pipelines, and every delete path down to the bytes on
 * disk; `@gitbeaker/rest`'s `Packages` resource.
 */
import { createHash, randomBytes } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { Gitlab } from '@gitbeaker/rest';
import { beforeAll, describe, expect, it } from 'vitest';
import { filesOnDisk, runningJob } from './helpers.js';
import { suiteServer } from '../support/server.js';
import { addMember, createGroup, createProject, createUser, type TestUser } from '../support/factories.js';

const t = suiteServer({ packageMaxFileSize: 8 * 1024 * 1024 });

let owner: TestUser;
let group: { id: number; full_path: string };
let sub: { id: number };
let project: { id: number; path_with_namespace: string };
let other: { id: number };

async function upload(projectId: number, name: string, version: string, file: string, body: Buffer | string, options: { token?: string | null; query?: string; headers?: Record<string, string> } = {}) {
  const headers: Record<string, string> = { ...options.headers };
  const token = options.token === undefined ? owner.token : options.token;
  if (token) headers['PRIVATE-TOKEN'] = token;
  const res = await fetch(`${t.url}/api/v4/projects/${projectId}/packages/generic/${name}/${version}/${file}${options.query ? `?${options.query}` : ''}`, { method: 'PUT', headers, body });
  const text = await res.text();
  return { status: res.status, text, body: text ? JSON.parse(text) : null };
}

async function download(projectId: number, name: string, version: string, file: string, token: string | null = owner.token) {
  const res = await fetch(`${t.url}/api/v4/projects/${projectId}/packages/generic/${name}/${version}/${file}`, { headers: token ? { 'PRIVATE-TOKEN': token } : {} });
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}


const digest = (algorithm: string, bytes: Buffer) => createHash(algorithm).update(bytes).digest('hex');

beforeAll(async () => {
  owner = await createUser(t);
  group = await createGroup(t, owner.token, { visibility: 'public' });
  sub = await createGroup(t, owner.token, { parentId: group.id, visibility: 'public' });
  project = await createProject(t, owner.token, { namespaceId: group.id, visibility: 'public' });
  other = await createProject(t, owner.token, { namespaceId: sub.id, visibility: 'public' });
});

describe('generic packages', () => {
  it('stores a multi-MB file with its checksums and streams it back byte for byte', async () => {
    const bytes = randomBytes(3 * 1024 * 1024 + 17);
    const res = await upload(project.id, 'big', '1.0.0', 'blob.bin', bytes, { query: 'select=package_file' });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({
      package_id: expect.any(Number),
      file_name: 'blob.bin',
      size: bytes.length,
      file_md5: digest('md5', bytes),
      file_sha1: digest('sha1', bytes),
      file_sha256: digest('sha256', bytes),
    });
    const back = await download(project.id, 'big', '1.0.0', 'blob.bin');
    expect(back.status).toBe(200);
    expect(back.headers.get('content-length')).toBe(String(bytes.length));
    expect(back.headers.get('content-disposition')).toContain('blob.bin');
    expect(digest('sha256', back.bytes)).toBe(digest('sha256', bytes));
    expect(await filesOnDisk(t)).toContain(digest('sha256', bytes));

    const byId = await fetch(`${t.url}/api/v4/projects/${project.id}/packages/${res.body.package_id}/package_files/${res.body.id}/download`, { headers: { 'PRIVATE-TOKEN': owner.token } });
    expect(byId.status).toBe(200);
    expect(digest('sha256', Buffer.from(await byId.arrayBuffer()))).toBe(digest('sha256', bytes));
    expect((await fetch(`${t.url}/api/v4/projects/${project.id}/packages/${res.body.package_id}/package_files/999999/download`, { headers: { 'PRIVATE-TOKEN': owner.token } })).status).toBe(404);
    expect((await fetch(`${t.url}/api/v4/projects/${project.id}/packages/${res.body.package_id}/package_files/x%00/download`, { headers: { 'PRIVATE-TOKEN': owner.token } })).status).toBe(404);
    const files = await t.api('GET', `/projects/${project.id}/packages/${res.body.package_id}/package_files`);
    expect(files.status).toBe(200);
    expect(Object.keys(files.body[0])).toEqual(['id', 'package_id', 'created_at', 'file_name', 'size', 'file_md5', 'file_sha1', 'file_sha256']);
    expect(files.body[0]).toMatchObject({ size: bytes.length, file_sha256: digest('sha256', bytes) });
  });

  it('answers 201 Created, refuses names GitLab refuses, a file past the limit, and anonymous or Reporter uploads', async () => {
    expect((await upload(project.id, 'tool', '1.2.3', 'tool.tgz', 'x')).body).toEqual({ message: '201 Created' });
    const bad = await upload(project.id, 'to%20ol', '1..2', 'a', 'x');
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: 'package_name is invalid' });
    expect((await upload(project.id, 'tool', '1..2', 'a', 'x')).body).toEqual({ error: 'package_version is invalid' });
    expect((await upload(project.id, 'tool', '1.0.0', 'f', 'x', { query: 'status=weird' })).status).toBe(400);
    const tooBig = await upload(project.id, 'huge', '1.0.0', 'huge.bin', randomBytes(9 * 1024 * 1024));
    expect(tooBig.status).toBe(413);
    // Nothing left of the refused upload: no package, no partial file.
    expect((await t.api('GET', `/projects/${project.id}/packages?package_name=huge&status=processing`)).body).toEqual([]);
    expect(await readdir(join(t.server.app.packages.root, 'tmp'))).toEqual([]);
    expect((await upload(project.id, 'tool', '1.0.0', 'f', 'x', { token: null })).status).toBe(401);
    const reporter = await createUser(t);
    await addMember(t, owner.token, 'projects', project.id, reporter.id, 20);
    expect((await upload(project.id, 'tool', '1.0.0', 'f', 'x', { token: reporter.token })).status).toBe(403);
    // HTTP Basic with the token as password, as package managers send it.
    const basic = await upload(project.id, 'tool', '1.0.1', 'tool.tgz', 'y', { token: null, headers: { Authorization: `Basic ${Buffer.from(`anyone:${owner.token}`).toString('base64')}` } });
    expect(basic.status).toBe(201);
  });

  it('keeps a hidden package out of lists and single reads, yet downloadable', async () => {
    expect((await upload(project.id, 'secret-tool', '2.0.0', 'bin', 'hidden bytes', { query: 'status=hidden' })).status).toBe(201);
    const list = await t.api('GET', `/projects/${project.id}/packages?package_name=secret-tool`);
    expect(list.body).toEqual([]);
    const hidden = await t.api('GET', `/projects/${project.id}/packages?package_name=secret-tool&status=hidden`);
    expect(hidden.body).toHaveLength(1);
    expect(hidden.body[0]._links).toEqual({ delete_api_path: `http://gitlab.example.com/api/v4/projects/${project.id}/packages/${hidden.body[0].id}` });
    expect((await t.api('GET', `/projects/${project.id}/packages/${hidden.body[0].id}`)).status).toBe(404);
    const back = await download(project.id, 'secret-tool', '2.0.0', 'bin');
    expect(back.bytes.toString()).toBe('hidden bytes');
  });

  it('allows duplicate files in a version, the newest one downloaded', async () => {
    await upload(project.id, 'dup', '1.0.0', 'a.txt', 'first');
    await upload(project.id, 'dup', '1.0.0', 'a.txt', 'second');
    expect((await download(project.id, 'dup', '1.0.0', 'a.txt')).bytes.toString()).toBe('second');
    const [pkg] = (await t.api('GET', `/projects/${project.id}/packages?package_name=dup`)).body;
    expect((await t.api('GET', `/projects/${project.id}/packages/${pkg.id}/package_files`)).body).toHaveLength(2);
  });
});

describe('statuses and hostile input', () => {
  it('shows a package as processing while its first file streams in, default once complete', async () => {
    let push!: (chunk: Uint8Array | null) => void;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        push = (chunk) => (chunk ? controller.enqueue(chunk) : controller.close());
      },
    });
    push(new Uint8Array(1024));
    const pending = fetch(`${t.url}/api/v4/projects/${project.id}/packages/generic/slow/1.0.0/slow.bin`, {
      method: 'PUT',
      headers: { 'PRIVATE-TOKEN': owner.token },
      body,
      duplex: 'half',
    } as RequestInit);
    const processing = async () => (await t.api('GET', `/projects/${project.id}/packages?package_name=slow&status=processing`)).body as unknown[];
    for (let i = 0; (await processing()).length === 0; i++) {
      if (i > 200) throw new Error('the upload never showed as processing');
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect((await t.api('GET', `/projects/${project.id}/packages?package_name=slow`)).body).toEqual([]);
    push(new Uint8Array(1024));
    push(null);
    expect((await pending).status).toBe(201);
    const done = (await t.api('GET', `/projects/${project.id}/packages?package_name=slow`)).body;
    expect(done).toHaveLength(1);
    expect(done[0].status).toBe('default');
  });

  it('refuses NUL bytes, broken encodings and other users’ tokens without a 500', async () => {
    for (const name of ['a%00b', '%FF%FE', 'x'.repeat(300) + '%00', '..']) {
      const res = await upload(project.id, name, '1.0.0', 'f.bin', 'x');
      expect([400, 404], `${name}: ${res.text}`).toContain(res.status);
    }
    expect((await upload(project.id, 'ok', '1.0.0', 'f%00.bin', 'x')).status).toBe(400);
    expect((await download(project.id, 'a%00b', '1.0.0', 'f.bin')).status).toBe(400);
    expect((await download(project.id, '%FF', '1.0.0', 'f.bin')).status).toBeLessThan(500);
    const stranger = await createUser(t);
    const privateProject = await createProject(t, owner.token, { visibility: 'private' });
    expect((await upload(privateProject.id, 'p', '1.0.0', 'f.bin', 'x', { token: stranger.token })).status).toBe(404);
    expect((await upload(project.id, 'p', '1.0.0', 'f.bin', 'x', { token: stranger.token })).status).toBe(403);
    expect((await upload(project.id, 'p', '1.0.0', 'f.bin', 'x', { token: 'glpat-not-a-token' })).status).toBe(401);
    const list = await t.api('GET', `/projects/${project.id}/packages?package_name=%25_%5C`);
    expect(list.status).toBe(200);
    expect(list.body).toEqual([]);
  });
});

describe('lists', () => {
  let seeded: { id: number; path_with_namespace: string };
  beforeAll(async () => {
    seeded = await createProject(t, owner.token, { namespaceId: group.id, visibility: 'public', name: 'seeded' });
    for (const [name, version] of [
      ['beta', '2.0.0'],
      ['alpha', '1.0.0'],
      ['gamma', '0.5.0'],
      ['alpha', '1.1.0'],
    ]) {
      expect((await upload(seeded.id, name, version, 'file.txt', `${name}-${version}`)).status).toBe(201);
    }
    expect((await upload(other.id, 'delta', '3.0.0', 'file.txt', 'delta')).status).toBe(201);
  });

  const names = (body: { name: string; version: string }[]) => body.map((p) => `${p.name}@${p.version}`);

  it('orders by created_at (default), name, version and type, either way', async () => {
    const base = `/projects/${seeded.id}/packages`;
    expect(names((await t.api('GET', base)).body)).toEqual(['beta@2.0.0', 'alpha@1.0.0', 'gamma@0.5.0', 'alpha@1.1.0']);
    expect(names((await t.api('GET', `${base}?sort=desc`)).body)).toEqual(['alpha@1.1.0', 'gamma@0.5.0', 'alpha@1.0.0', 'beta@2.0.0']);
    expect(names((await t.api('GET', `${base}?order_by=name`)).body)).toEqual(['alpha@1.0.0', 'alpha@1.1.0', 'beta@2.0.0', 'gamma@0.5.0']);
    expect(names((await t.api('GET', `${base}?order_by=version&sort=desc`)).body)).toEqual(['beta@2.0.0', 'alpha@1.1.0', 'alpha@1.0.0', 'gamma@0.5.0']);
    expect(names((await t.api('GET', `${base}?order_by=type&per_page=2&page=2`)).body)).toEqual(['gamma@0.5.0', 'alpha@1.1.0']);
    const res = await t.api('GET', `${base}?per_page=3`);
    expect(res.headers.get('x-total')).toBe('4');
    expect(res.headers.get('x-next-page')).toBe('2');
  });

  it('filters by name (fuzzy), version, type and status; refuses unknown enum values', async () => {
    const base = `/projects/${seeded.id}/packages`;
    expect(names((await t.api('GET', `${base}?package_name=ALP`)).body)).toEqual(['alpha@1.0.0', 'alpha@1.1.0']);
    expect(names((await t.api('GET', `${base}?package_version=1.1.0`)).body)).toEqual(['alpha@1.1.0']);
    expect((await t.api('GET', `${base}?package_type=generic`)).body).toHaveLength(4);
    expect((await t.api('GET', `${base}?package_type=npm`)).body).toEqual([]);
    expect((await t.api('GET', `${base}?status=processing`)).body).toEqual([]);
    const bad = await t.api('GET', `${base}?package_type=bogus&order_by=size`);
    expect(bad.status).toBe(400);
    expect(bad.body.error).toContain('package_type does not have a valid value');
  });

  it('lists a group with its subgroups unless excluded, with project_id and project_path', async () => {
    const all = await t.api('GET', `/groups/${group.id}/packages?package_name=delta`);
    expect(all.status).toBe(200);
    expect(all.body).toHaveLength(1);
    expect(all.body[0]).toMatchObject({ name: 'delta', project_id: other.id, project_path: expect.stringContaining('/') });
    expect((await t.api('GET', `/groups/${group.id}/packages?package_name=delta&exclude_subgroups=true`)).body).toEqual([]);
    expect(names((await t.api('GET', `/groups/${group.id}/packages?package_name=a&order_by=project_path&sort=desc`)).body).length).toBeGreaterThan(0);
  });

  it('shows one package with its versions and GitLab keys', async () => {
    const list = (await t.api('GET', `/projects/${seeded.id}/packages?package_name=alpha&package_version=1.0.0`)).body;
    const res = await t.api('GET', `/projects/${seeded.id}/packages/${list[0].id}`);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['id', 'name', 'version', 'package_type', 'status', '_links', 'created_at', 'last_downloaded_at', 'versions']);
    expect(res.body).toMatchObject({ name: 'alpha', version: '1.0.0', package_type: 'generic', status: 'default' });
    expect(res.body._links).toEqual({
      web_path: `/${seeded.path_with_namespace}/-/packages/${list[0].id}`,
      delete_api_path: `http://gitlab.example.com/api/v4/projects/${seeded.id}/packages/${list[0].id}`,
    });
    expect(res.body.versions.map((v: { version: string }) => v.version)).toEqual(['1.1.0']);
    expect(Object.keys(res.body.versions[0])).toEqual(['id', 'version', 'created_at']);
    // A download sets last_downloaded_at.
    await download(seeded.id, 'alpha', '1.0.0', 'file.txt');
    expect((await t.api('GET', `/projects/${seeded.id}/packages/${list[0].id}`)).body.last_downloaded_at).toEqual(expect.any(String));
    expect((await t.api('GET', `/projects/${seeded.id}/packages/999999`)).body).toEqual({ message: '404 Not found' });
  });
});

describe('visibility', () => {
  let priv: { id: number };
  let pkgId: number;
  const users: Record<string, TestUser> = {};
  beforeAll(async () => {
    priv = await createProject(t, owner.token, { visibility: 'private' });
    const up = await upload(priv.id, 'private-tool', '1.0.0', 'f.bin', 'private bytes', { query: 'select=package_file' });
    pkgId = up.body.package_id;
    for (const [role, level] of [
      ['guest', 10],
      ['reporter', 20],
      ['developer', 30],
      ['maintainer', 40],
    ] as const) {
      users[role] = await createUser(t);
      await addMember(t, owner.token, 'projects', priv.id, users[role].id, level);
    }
    users.stranger = await createUser(t);
  });

  it('hides a private project from anonymous callers and strangers (404), shows it to members', async () => {
    expect((await t.api('GET', `/projects/${priv.id}/packages`, { token: null })).body).toEqual({ message: '404 Project Not Found' });
    expect((await t.api('GET', `/projects/${priv.id}/packages`, { token: users.stranger.token })).status).toBe(404);
    expect((await download(priv.id, 'private-tool', '1.0.0', 'f.bin', null)).status).toBe(404);
    for (const role of ['guest', 'reporter', 'developer', 'maintainer']) {
      const res = await t.api('GET', `/projects/${priv.id}/packages`, { token: users[role].token });
      expect(res.status, role).toBe(200);
      expect(res.body[0]._links.delete_api_path !== undefined, role).toBe(role === 'maintainer');
      expect((await download(priv.id, 'private-tool', '1.0.0', 'f.bin', users[role].token)).status, role).toBe(200);
    }
  });

  it('lets anonymous callers read a public project but not delete (401: deletes need a token); a bad token is 401', async () => {
    const res = await t.api('GET', `/projects/${project.id}/packages`, { token: null });
    expect(res.status).toBe(200);
    expect(res.body[0]._links.delete_api_path).toBeUndefined();
    expect((await t.api('DELETE', `/projects/${project.id}/packages/${res.body[0].id}`, { token: null })).status).toBe(401);
    expect((await t.api('DELETE', `/projects/${project.id}/packages/${res.body[0].id}`, { token: users.stranger.token })).status).toBe(403);
    expect((await t.api('GET', `/projects/${project.id}/packages`, { token: 'glpat-wrong' })).status).toBe(401);
    const anon = await t.api('GET', `/groups/${group.id}/packages`, { token: null });
    expect(anon.status).toBe(200);
  });

  it('only lets Maintainers delete: Developers get 403', async () => {
    expect((await t.api('DELETE', `/projects/${priv.id}/packages/${pkgId}`, { token: users.developer.token })).status).toBe(403);
    expect((await t.api('DELETE', `/projects/${priv.id}/packages/${pkgId}`, { token: users.stranger.token })).status).toBe(404);
    const files = (await t.api('GET', `/projects/${priv.id}/packages/${pkgId}/package_files`, { token: users.reporter.token })).body;
    expect((await t.api('DELETE', `/projects/${priv.id}/packages/${pkgId}/package_files/${files[0].id}`, { token: users.developer.token })).status).toBe(403);
  });
});

describe('deletion', () => {
  it('marks a package pending destruction (404 at once), then the job removes rows and bytes', async () => {
    const bytes = randomBytes(64 * 1024);
    const up = await upload(project.id, 'doomed', '1.0.0', 'd.bin', bytes, { query: 'select=package_file' });
    const sha = digest('sha256', bytes);
    expect(await filesOnDisk(t)).toContain(sha);
    const del = await t.api('DELETE', `/projects/${project.id}/packages/${up.body.package_id}`);
    expect(del.status).toBe(204);
    expect(del.text).toBe('');
    expect((await download(project.id, 'doomed', '1.0.0', 'd.bin')).status).toBe(404);
    expect((await t.api('GET', `/projects/${project.id}/packages/${up.body.package_id}`)).status).toBe(404);
    expect((await t.api('DELETE', `/projects/${project.id}/packages/${up.body.package_id}`)).status).toBe(404);
    await t.server.app.jobs.drain();
    expect(await filesOnDisk(t)).not.toContain(sha);
    expect(await t.server.app.db.package.findUnique({ where: { id: up.body.package_id } })).toBeNull();
  });

  it('deletes one file (204), 404 for another package’s file, and keeps bytes another file still names', async () => {
    const shared = Buffer.from('shared bytes');
    const a = await upload(project.id, 'pair', '1.0.0', 'a.bin', shared, { query: 'select=package_file' });
    const b = await upload(project.id, 'pair', '1.0.0', 'b.bin', shared, { query: 'select=package_file' });
    const c = await upload(project.id, 'single', '1.0.0', 'c.bin', 'only mine', { query: 'select=package_file' });
    expect((await t.api('DELETE', `/projects/${project.id}/packages/${a.body.package_id}/package_files/${c.body.id}`)).status).toBe(404);
    expect((await t.api('DELETE', `/projects/${project.id}/packages/${a.body.package_id}/package_files/${a.body.id}`)).status).toBe(204);
    expect((await t.api('DELETE', `/projects/${project.id}/packages/${a.body.package_id}/package_files/${a.body.id}`)).status).toBe(404);
    await t.server.app.jobs.drain();
    expect(await filesOnDisk(t)).toContain(digest('sha256', shared));
    expect((await download(project.id, 'pair', '1.0.0', 'b.bin')).bytes.toString()).toBe('shared bytes');
    expect((await download(project.id, 'pair', '1.0.0', 'a.bin')).status).toBe(404);
    expect((await t.api('DELETE', `/projects/${project.id}/packages/${b.body.package_id}/package_files/${b.body.id}`)).status).toBe(204);
    await t.server.app.jobs.drain();
    expect(await filesOnDisk(t)).not.toContain(digest('sha256', shared));
  });

  it('deleting the project removes its packages and the bytes no other project’s file names', async () => {
    const doomed = await createProject(t, owner.token);
    const own = randomBytes(2048);
    const shared = Buffer.from('bytes two projects publish');
    expect((await upload(doomed.id, 'mine', '1.0.0', 'own.bin', own)).status).toBe(201);
    expect((await upload(doomed.id, 'mine', '1.0.0', 'shared.bin', shared)).status).toBe(201);
    expect((await upload(project.id, 'keeper', '1.0.0', 'shared.bin', shared)).status).toBe(201);
    expect((await t.api('DELETE', `/projects/${doomed.id}`, { token: owner.token })).status).toBe(202);
    await t.server.app.jobs.drain();
    const onDisk = await filesOnDisk(t);
    expect(onDisk).not.toContain(digest('sha256', own));
    expect(onDisk).toContain(digest('sha256', shared));
    expect(await t.server.app.db.package.count({ where: { projectId: doomed.id } })).toBe(0);
    expect((await download(project.id, 'keeper', '1.0.0', 'shared.bin')).bytes.equals(shared)).toBe(true);
  });

  it('never records a file whose bytes a purge of the same bytes removed meanwhile', async () => {
    const bytes = Buffer.from('the same bytes, deleted and sent again at once');
    // Rounds of: a package with these bytes deleted and purged while new packages upload the same bytes.
    for (let round = 0; round < 6; round++) {
      const doomed = await upload(project.id, `race${round}`, '1.0.0', 'r.bin', bytes, { query: 'select=package_file' });
      expect(doomed.status).toBe(201);
      expect((await t.api('DELETE', `/projects/${project.id}/packages/${doomed.body.package_id}`)).status).toBe(204);
      const [purged, ...sent] = await Promise.all([
        t.server.app.jobs.drain(),
        ...[0, 1, 2].map((i) => upload(project.id, `again${round}`, `1.0.${i}`, 'r.bin', bytes, { query: 'select=package_file' })),
      ]);
      void purged;
      for (const [i, res] of sent.entries()) {
        expect(res.status, res.text).toBe(201);
        const got = await download(project.id, `again${round}`, `1.0.${i}`, 'r.bin');
        expect(got.status).toBe(200);
        expect(got.bytes.equals(bytes)).toBe(true);
      }
    }
    expect(await filesOnDisk(t)).toContain(digest('sha256', bytes));
  });
});

describe('CI job tokens', () => {
  it('upload with the job token records the pipeline; the package lists it, its file too; job tokens read and delete', async () => {
    const { project: ci, pipeline, job } = await runningJob(t);
    const up = await upload(ci.id, 'from-ci', '1.0.0', 'artifact.bin', 'built', { token: null, headers: { 'JOB-TOKEN': job.token }, query: 'select=package_file' });
    expect(up.status, up.text).toBe(201);
    // HTTP Basic as gitlab-ci-token, as package managers in a job send it.
    const basic = await upload(ci.id, 'from-ci', '1.0.0', 'more.bin', 'more', { token: null, headers: { Authorization: `Basic ${Buffer.from(`gitlab-ci-token:${job.token}`).toString('base64')}` } });
    expect(basic.status, basic.text).toBe(201);
    const jobHeaders = { 'JOB-TOKEN': job.token };
    const list = await t.api('GET', `/projects/${ci.id}/packages`, { token: null, headers: jobHeaders });
    expect(list.status, list.text).toBe(200);
    expect(list.body[0].pipelines.map((p: { id: number }) => p.id)).toEqual([pipeline.id]);
    expect(Object.keys(list.body[0].pipelines[0])).toEqual(['id', 'iid', 'project_id', 'sha', 'ref', 'status', 'source', 'created_at', 'updated_at', 'web_url', 'user']);
    const pipelines = await t.api('GET', `/projects/${ci.id}/packages/${up.body.package_id}/pipelines`, { token: null, headers: jobHeaders });
    expect(pipelines.status).toBe(200);
    expect(pipelines.body.map((p: { id: number }) => p.id)).toEqual([pipeline.id]);
    expect((await t.api('GET', `/projects/${ci.id}/packages/${up.body.package_id}/pipelines?per_page=21`)).body).toEqual({ error: 'per_page does not have a valid value' });
    const files = await t.api('GET', `/projects/${ci.id}/packages/${up.body.package_id}/package_files`, { token: null, headers: jobHeaders });
    expect(files.body[0].pipelines[0].id).toBe(pipeline.id);
    // Not a job-token route: the group list takes the job token for no authentication.
    expect((await t.api('GET', `/groups/${group.id}/packages`, { token: null, headers: jobHeaders })).status).toBe(401);
    // Another project's packages are out of the token's reach.
    expect((await t.api('GET', `/projects/${project.id}/packages`, { token: null, headers: jobHeaders })).status).toBe(404);
    // The job's user is the root administrator here: it may delete.
    expect((await t.api('DELETE', `/projects/${ci.id}/packages/${up.body.package_id}`, { token: null, headers: jobHeaders })).status).toBe(204);
  });
});

describe('@gitbeaker/rest', () => {
  it('lists, shows, lists files of and removes packages', async () => {
    const api = new Gitlab({ host: t.url, token: owner.token });
    const up = await upload(project.id, 'beaker', '0.1.0', 'b.txt', 'beaker', { query: 'select=package_file' });
    const all = await api.Packages.all({ projectId: project.id });
    expect(all.some((p) => p.name === 'beaker')).toBe(true);
    const groupAll = await api.Packages.all({ groupId: group.id });
    expect(groupAll.some((p) => p.name === 'beaker')).toBe(true);
    const one = await api.Packages.show(project.id, up.body.package_id);
    expect(one.name).toBe('beaker');
    const files = await api.Packages.allFiles(project.id, up.body.package_id);
    expect(files[0].file_name).toBe('b.txt');
    await api.Packages.removeFile(project.id, up.body.package_id, files[0].id as number);
    await api.Packages.remove(project.id, up.body.package_id);
    await expect(api.Packages.show(project.id, up.body.package_id)).rejects.toThrow();
  });
});
