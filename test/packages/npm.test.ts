/**
 * The npm registry over raw HTTP: publishing (scoped names, `%2f`, the tarball checked against its package.json after
 * the job, republishing refused, GitLab's 400s), the metadata's exact JSON, tarballs, dist-tags, the instance-level
 * endpoint, CI job tokens recording their pipeline, and who may do what (anonymous, other users, private projects).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { suiteServer } from '../support/server.js';
import { addMember, createGroup, createProject, createUser, type TestUser } from '../support/factories.js';
import { commit, createRunner, pushPipeline, requestJob } from '../runners/support.js';
import { randomBytes } from 'node:crypto';
import { publicationReader } from '../../src/modules/packages/npm/stream.js';
import { integrity, publication, sha1, tarball } from './npm-support.js';

const t = suiteServer({ packageMaxFileSize: 64 * 1024 });

let owner: TestUser;
let stranger: TestUser;
let developer: TestUser;
let scope: string;
let project: { id: number };
let hidden: { id: number };

const npmPath = (projectId: number, rest: string) => `/api/v4/projects/${projectId}/packages/npm/${rest}`;
const enc = (name: string) => name.replace('/', '%2f');

async function call(method: string, path: string, options: { token?: string | null; body?: unknown; raw?: string; headers?: Record<string, string> } = {}) {
  const headers: Record<string, string> = { ...options.headers };
  const token = options.token === undefined ? owner.token : options.token;
  if (token) headers.Authorization = `Bearer ${token}`;
  let body: string | undefined;
  if (options.raw !== undefined) body = options.raw;
  else if (options.body !== undefined) body = JSON.stringify(options.body);
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(`${t.url}${path}`, { method, headers, body });
  const bytes = Buffer.from(await res.arrayBuffer());
  const text = bytes.toString('utf8');
  let json: any = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = null;
  }
  return { status: res.status, headers: res.headers, bytes, text, body: json };
}

async function publish(projectId: number, name: string, version: string, options: Parameters<typeof publication>[2] & { token?: string | null } = {}) {
  const { body, tgz } = publication(name, version, options);
  const res = await call('PUT', npmPath(projectId, enc(name)), { token: options.token, body });
  await t.server.app.jobs.drain();
  return { ...res, tgz };
}

beforeAll(async () => {
  owner = await createUser(t);
  stranger = await createUser(t);
  developer = await createUser(t);
  const group = await createGroup(t, owner.token, { visibility: 'public' });
  scope = group.full_path;
  project = await createProject(t, owner.token, { namespaceId: group.id, visibility: 'public' });
  hidden = await createProject(t, owner.token, { namespaceId: group.id, visibility: 'private' });
  await addMember(t, owner.token, 'projects', project.id, developer.id, 30);
});

describe('publish and install metadata', () => {
  it('publishes a scoped version and answers its metadata, tarball and listing as GitLab does', async () => {
    const name = `@${scope}/lib`;
    const extra = { dependencies: { leftpad: '^1.0.0' }, peerDependencies: {}, engines: { node: '>=18' }, bin: { lib: 'cli.js' }, scripts: { test: 'true' }, description: 'kept out' };
    const res = await publish(project.id, name, '1.0.0', { extra });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ name, version: '1.0.0', package_type: 'npm', status: 'processing', project_id: project.id });

    const meta = await call('GET', npmPath(project.id, enc(name)));
    expect(meta.status, meta.text).toBe(200);
    expect(meta.headers.get('content-type')).toContain('application/json');
    expect(meta.body).toEqual({
      name,
      versions: {
        '1.0.0': {
          bin: { lib: 'cli.js' },
          engines: { node: '>=18' },
          name,
          version: '1.0.0',
          dist: {
            shasum: sha1(res.tgz),
            tarball: `${t.server.app.config.externalUrl}/api/v4/projects/${project.id}/packages/npm/${name}/-/${name}-1.0.0.tgz`,
            integrity: integrity(res.tgz),
          },
          dependencies: { leftpad: '^1.0.0' },
        },
      },
      'dist-tags': { latest: '1.0.0' },
    });

    // The tarball, by the URL npm is given (unencoded) and encoded.
    for (const path of [npmPath(project.id, `${name}/-/${name}-1.0.0.tgz`), npmPath(project.id, `${enc(name)}/-/${enc(name)}-1.0.0.tgz`)]) {
      const tgz = await call('GET', path);
      expect(tgz.status).toBe(200);
      expect(tgz.headers.get('content-type')).toBe('application/octet-stream');
      expect(tgz.bytes.equals(res.tgz)).toBe(true);
    }
    expect((await call('GET', npmPath(project.id, `${name}/-/${name}-9.9.9.tgz`))).body).toEqual({ message: '404 Package Not Found' });

    const listed = await t.api('GET', `/projects/${project.id}/packages?package_type=npm`, { token: owner.token });
    expect((listed.body as { name: string; version: string; package_type: string }[]).map((p) => [p.name, p.version, p.package_type])).toEqual([[name, '1.0.0', 'npm']]);
    const pkg = (listed.body as { id: number }[])[0]!;
    const files = await t.api('GET', `/projects/${project.id}/packages/${pkg.id}/package_files`, { token: owner.token });
    expect(files.body).toMatchObject([{ file_name: `${name}-1.0.0.tgz`, size: res.tgz.length, file_sha1: sha1(res.tgz) }]);

    const gql = await t.graphql(`{ project(fullPath: "${scope}/${(await t.api('GET', `/projects/${project.id}`)).body.path}") { packages(packageType: NPM) { nodes { name version packageType status } } } }`, {}, owner.token);
    expect(gql.body).toEqual({ data: { project: { packages: { nodes: [{ name, version: '1.0.0', packageType: 'NPM', status: 'DEFAULT' }] } } } });
  });

  it('refuses to publish an existing version again (403) and keeps the first', async () => {
    const name = `@${scope}/again`;
    const first = await publish(project.id, name, '1.0.0');
    expect(first.status).toBe(200);
    const second = await publish(project.id, name, '1.0.0', { extra: { description: 'other' } });
    expect(second.status).toBe(403);
    expect(second.body).toEqual({ message: 'Package already exists.' });
    const meta = await call('GET', npmPath(project.id, enc(name)));
    expect(meta.body.versions['1.0.0'].dist.shasum).toBe(sha1(first.tgz));

    // Two publications of one version at once: one is recorded, the other refused.
    const racing = `@${scope}/racing`;
    const both = await Promise.all([1, 2].map((n) => call('PUT', npmPath(project.id, enc(racing)), { body: publication(racing, '1.0.0', { extra: { description: `${n}` } }).body })));
    expect(both.map((r) => r.status).sort()).toEqual([200, 403]);
    expect(both.find((r) => r.status === 403)!.body).toEqual({ message: 'Package already exists.' });
    expect(await t.server.app.db.package.count({ where: { name: racing } })).toBe(1);
  });

  it('marks a version whose tarball disagrees with its publication `error`, and leaves it out of the metadata', async () => {
    const name = `@${scope}/liar`;
    expect((await publish(project.id, name, '1.0.0')).status).toBe(200);
    for (const [version, manifest] of [
      ['1.0.1', { name: `@${scope}/other`, version: '1.0.1' }],
      ['1.0.2', { name, version: '9.9.9' }],
    ] as const) {
      expect((await publish(project.id, name, version, { manifest })).status).toBe(200);
    }
    const missing = await publish(project.id, name, '1.0.3', { tgz: tarball({ 'package/index.js': '' }) });
    expect(missing.status).toBe(200);
    const notGzip = await publish(project.id, name, '1.0.4', { tgz: Buffer.from('not a tarball') });
    expect(notGzip.status).toBe(200);

    const errored = await t.api('GET', `/projects/${project.id}/packages?package_name=liar&status=error&order_by=version`, { token: owner.token });
    expect((errored.body as { version: string }[]).map((p) => p.version)).toEqual(['1.0.1', '1.0.2', '1.0.3', '1.0.4']);
    const messages = await t.server.app.db.package.findMany({ where: { name, status: 'error' }, orderBy: { version: 'asc' }, select: { statusMessage: true } });
    expect(messages.map((m) => m.statusMessage)).toEqual(['Package manifest is not coherent', 'Package manifest is not coherent', 'package.json not found', 'Unexpected error: Zlib::GzipFile::Error']);
    const meta = await call('GET', npmPath(project.id, enc(name)));
    expect(Object.keys(meta.body.versions)).toEqual(['1.0.0']);
  });

  it('answers bad publications with GitLab 400s and keeps no bytes', async () => {
    const name = `@${scope}/bad`;
    const put = (body: unknown) => call('PUT', npmPath(project.id, enc(name)), { body });
    expect((await put({ name })).status).toBe(400);
    expect((await put({ name, versions: {} })).body).toEqual({ message: 'Version is empty.' });
    expect((await put(publication(name, 'one').body)).body).toEqual({ message: 'Validation failed: Version is invalid' });
    expect((await put(publication('bad name!', '1.0.0').body)).body).toEqual({ message: 'Validation failed: Name is invalid' });
    const noAttachment = publication(name, '1.0.0').body as Record<string, unknown>;
    delete noAttachment._attachments;
    expect((await put(noAttachment)).status).toBe(400);
    const big = publication(name, '1.0.0', { tgz: Buffer.alloc(65 * 1024, 1) });
    expect((await put(big.body)).body).toEqual({ message: 'File is too large.' });
    expect((await call('PUT', npmPath(project.id, enc(name)), { raw: '{"versions": {"1.0.0": {}}, "_attachments": {"x": {"data": "QUJD' })).status).toBe(400);
    expect(await t.server.app.db.package.count({ where: { name } })).toBe(0);
  });
});

describe('the publication reader', () => {
  it('decodes the tarball across any chunking, and keeps the rest of the body as JSON with an empty `data`', async () => {
    const tgz = randomBytes(200_003);
    const { body } = publication('@a/b', '1.0.0', { tgz });
    // A key with escapes and non-ASCII, and a `data` elsewhere that is not the tarball.
    const text = JSON.stringify({ 'k\\"é': { data: 'not this' }, ...body });
    const bytes = Buffer.from(text);
    for (const size of [1, 3, 7, 4096, 65_536]) {
      async function* chunks() {
        for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
      }
      const reader = publicationReader(chunks(), 1024 * 1024);
      const parts: Buffer[] = [];
      for await (const part of reader.tarball) parts.push(part);
      expect(Buffer.concat(parts).equals(tgz)).toBe(true);
      const { skeleton, attachment, sha512 } = reader.result();
      expect(attachment).toBe('@a/b-1.0.0.tgz');
      expect(`sha512-${sha512!.toString('base64')}`).toBe(integrity(tgz));
      expect((skeleton as any)._attachments['@a/b-1.0.0.tgz']).toEqual({ content_type: 'application/octet-stream', data: '', length: tgz.length });
      expect((skeleton as any)['k\\"é']).toEqual({ data: 'not this' });
      expect((skeleton as any).versions['1.0.0'].name).toBe('@a/b');
    }
  });

  it('refuses a body whose metadata goes past its bound', async () => {
    async function* one() {
      yield Buffer.from(JSON.stringify({ description: 'x'.repeat(2048) }));
    }
    const reader = publicationReader(one(), 1024);
    await expect(async () => {
      for await (const _ of reader.tarball) void _;
    }).rejects.toThrow('Package metadata is too large');
  });
});

describe('dist-tags', () => {
  it('lists, adds, moves and removes tags as npm dist-tag does', async () => {
    const name = `@${scope}/tagged`;
    await publish(project.id, name, '1.0.0');
    await publish(project.id, name, '2.0.0-rc.1', { tag: 'next' });
    const tags = npmPath(project.id, `-/package/${enc(name)}/dist-tags`);
    expect((await call('GET', tags)).body).toEqual({ latest: '1.0.0', next: '2.0.0-rc.1' });

    expect((await call('PUT', `${tags}/stable`, { raw: '"1.0.0"' })).status).toBe(204);
    expect((await call('PUT', `${tags}/next`, { raw: '"1.0.0"' })).status).toBe(204);
    expect((await call('GET', tags)).body).toEqual({ latest: '1.0.0', stable: '1.0.0', next: '1.0.0' });
    expect((await call('PUT', `${tags}/x`, { raw: '"3.0.0"' })).body).toEqual({ message: '404 Package Not Found' });
    expect((await call('PUT', `${tags}/x`, { raw: '' })).status).toBe(400);

    const meta = await call('GET', npmPath(project.id, enc(name)));
    expect(meta.body['dist-tags']).toEqual({ latest: '1.0.0', stable: '1.0.0', next: '1.0.0' });

    expect((await call('DELETE', `${tags}/stable`)).status).toBe(204);
    expect((await call('DELETE', `${tags}/stable`)).body).toEqual({ message: '404 Package tag Not Found' });
    // Without a `latest` tag, the highest version is latest.
    expect((await call('DELETE', `${tags}/latest`)).status).toBe(204);
    expect((await call('GET', tags)).body).toEqual({ next: '1.0.0', latest: '2.0.0-rc.1' });
    expect((await call('GET', npmPath(project.id, `-/package/${enc(`@${scope}/none`)}/dist-tags`))).status).toBe(404);

    // Developers add tags, only Maintainers remove them; anonymous writers are 401.
    expect((await call('PUT', `${tags}/dev`, { raw: '"1.0.0"', token: developer.token })).status).toBe(204);
    expect((await call('DELETE', `${tags}/dev`, { token: developer.token })).status).toBe(403);
    expect((await call('PUT', `${tags}/dev`, { raw: '"1.0.0"', token: null })).status).toBe(401);
    expect((await call('PUT', `${tags}/dev`, { raw: '"1.0.0"', token: stranger.token })).status).toBe(403);
  });
});

describe('npm deprecate', () => {
  it('deprecates and undeprecates versions (Maintainers), the metadata and the status following', async () => {
    const name = `@${scope}/old`;
    await publish(project.id, name, '1.0.0');
    await publish(project.id, name, '1.1.0');
    const put = (versions: Record<string, unknown>, token = owner.token) =>
      call('PUT', npmPath(project.id, enc(name)), { token, headers: { 'Npm-Command': 'deprecate' }, body: { name, versions } });

    expect((await put({ '1.0.0': { name, version: '1.0.0', deprecated: 'use 1.1.0' } }, developer.token)).status).toBe(403);
    expect((await put({ '1.0.0': { name, version: '1.0.0', deprecated: 'use 1.1.0' }, '1.1.0': { name, version: '1.1.0' } })).status).toBe(200);
    let meta = await call('GET', npmPath(project.id, enc(name)));
    expect(meta.body.versions['1.0.0'].deprecated).toBe('use 1.1.0');
    expect(meta.body.versions['1.1.0']).not.toHaveProperty('deprecated');
    const listed = await t.api('GET', `/projects/${project.id}/packages?package_name=old&status=deprecated`, { token: owner.token });
    expect((listed.body as { version: string }[]).map((p) => p.version)).toEqual(['1.0.0']);
    // Still installable.
    expect((await call('GET', npmPath(project.id, `${name}/-/${name}-1.0.0.tgz`))).status).toBe(200);

    expect((await put({ '1.0.0': { name, version: '1.0.0', deprecated: '' } })).status).toBe(200);
    meta = await call('GET', npmPath(project.id, enc(name)));
    expect(meta.body.versions['1.0.0']).not.toHaveProperty('deprecated');
    expect((await t.api('GET', `/projects/${project.id}/packages?package_name=old&status=deprecated`, { token: owner.token })).body).toEqual([]);
    expect((await call('PUT', npmPath(project.id, enc(name)), { headers: { 'Npm-Command': 'deprecate' }, raw: '{' })).status).toBe(400);
  });
});

describe('deletion', () => {
  it('removes a deleted version from the metadata and its tags, and lets the version be published again', async () => {
    const name = `@${scope}/gone`;
    await publish(project.id, name, '1.0.0');
    const second = await publish(project.id, name, '2.0.0', { tag: 'next' });
    const del = await t.api('DELETE', `/projects/${project.id}/packages/${second.body.id}`, { token: owner.token });
    expect(del.status).toBe(204);
    // Pending destruction at once: out of the metadata and the tags; the job then removes it.
    const meta = await call('GET', npmPath(project.id, enc(name)));
    expect(Object.keys(meta.body.versions)).toEqual(['1.0.0']);
    expect(meta.body['dist-tags']).toEqual({ latest: '1.0.0' });
    expect((await call('GET', npmPath(project.id, `${name}/-/${name}-2.0.0.tgz`))).status).toBe(404);
    // The job removes the rows (and the bytes, which the same tarball published again will bring back).
    await t.server.app.jobs.drain();
    expect(await t.server.app.db.package.count({ where: { id: second.body.id } })).toBe(0);
    const again = await publish(project.id, name, '2.0.0');
    expect(again.status, again.text).toBe(200);
    expect(await t.server.app.db.packageTag.count({ where: { packageName: name, name: 'next' } })).toBe(0);
    expect(Object.keys((await call('GET', npmPath(project.id, enc(name)))).body.versions)).toEqual(['1.0.0', '2.0.0']);
  });
});

describe('instance level', () => {
  it('finds the project from the scope (the top-level group) and serves the same metadata and tags', async () => {
    const name = `@${scope}/shared`;
    await publish(project.id, name, '1.2.3');
    const byProject = await call('GET', npmPath(project.id, enc(name)));
    const byInstance = await call('GET', `/api/v4/packages/npm/${enc(name)}`);
    expect(byInstance.status).toBe(200);
    expect(byInstance.body).toEqual(byProject.body);
    expect((await call('GET', `/api/v4/packages/npm/-/package/${enc(name)}/dist-tags`)).body).toEqual({ latest: '1.2.3' });
    expect((await call('GET', `/api/v4/packages/npm/${enc(`@${scope}/nothing`)}`)).body).toEqual({ message: '404 Project Not Found' });
    expect((await call('GET', `/api/v4/packages/npm/${enc('@no-such-group/x')}`)).body).toEqual({ message: '404 Project Not Found' });
    expect((await call('GET', `/api/v4/packages/npm/unscoped`)).body).toEqual({ message: '404 Project Not Found' });
    // Publishing is per project only.
    expect((await call('PUT', `/api/v4/packages/npm/${enc(name)}`, { body: publication(name, '9.0.0').body })).status).toBe(404);
  });
});

describe('who may do what', () => {
  it('lets anyone read a public project, hides a private one (404), refuses writers without the role', async () => {
    const name = `@${scope}/secret`;
    expect((await publish(hidden.id, name, '1.0.0')).status).toBe(200);
    expect((await call('GET', npmPath(hidden.id, enc(name)))).status).toBe(200);
    for (const token of [stranger.token, null]) {
      expect((await call('GET', npmPath(hidden.id, enc(name)), { token })).body).toEqual({ message: '404 Project Not Found' });
      expect((await call('GET', npmPath(hidden.id, `${name}/-/${name}-1.0.0.tgz`), { token })).status).toBe(404);
      expect((await call('GET', `/api/v4/packages/npm/${enc(name)}`, { token })).body).toEqual({ message: '404 Project Not Found' });
      expect((await call('PUT', npmPath(hidden.id, enc(name)), { token, body: publication(name, '2.0.0').body })).status).toBe(token ? 404 : 401);
    }

    const open = `@${scope}/open`;
    expect((await publish(project.id, open, '1.0.0')).status).toBe(200);
    expect((await call('GET', npmPath(project.id, enc(open)), { token: null })).status).toBe(200);
    expect((await publish(project.id, open, '2.0.0', { token: null })).status).toBe(401);
    expect((await publish(project.id, open, '2.0.0', { token: stranger.token })).body).toEqual({ message: '403 Forbidden' });
    expect((await publish(project.id, open, '2.0.0', { token: developer.token })).status).toBe(200);
    expect((await call('GET', npmPath(project.id, enc(open)), { token: 'glpat-not-a-token' })).status).toBe(401);
  });

  it('takes a CI job token as the Bearer token and records the job pipeline', async () => {
    const ci = await createProject(t, t.rootToken, { visibility: 'private' });
    const sha = await commit(t, ci.id, { '.gitlab-ci.yml': 'build:\n  script: echo build\n' });
    const pipeline = await pushPipeline(t, ci.id, sha);
    const runner = await createRunner(t, { project_id: ci.id });
    const job: { token: string } = await requestJob(t, runner.token);
    const name = `@${ci.namespace.full_path}/from-ci`;
    const res = await publish(ci.id, name, '1.0.0', { token: job.token });
    expect(res.status, res.text).toBe(200);
    const pipelines = await t.api('GET', `/projects/${ci.id}/packages/${res.body.id}/pipelines`);
    expect((pipelines.body as { id: number }[]).map((p) => p.id)).toEqual([pipeline.id]);
    const meta = await call('GET', npmPath(ci.id, enc(name)), { token: job.token });
    expect(meta.status).toBe(200);
  });
});
