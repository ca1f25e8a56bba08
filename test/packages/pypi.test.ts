/**
 * The PyPI registry over raw HTTP: twine's upload form with a real wheel and sdist (one package, two files), GitLab's
 * 400s for what it refuses (nothing left on disk), the simple index and a package's page as GitLab writes them, name
 * normalisation, downloads, who may do what (anonymous challenged with Basic, other users 404, Reporters 403, project
 * access tokens, CI job tokens recording their pipeline), the group endpoints, deletion, GraphQL.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { filesOnDisk, runningJob } from './helpers.js';
import { EXTERNAL_URL, suiteServer } from '../support/server.js';
import { addMember, createGroup, createProject, createUser, type TestUser } from '../support/factories.js';
import { basic, buildDists, pypiGet, pypiUpload, removeDir, sha256, type Dist } from './pypi-support.js';

const LIMIT = 1024 * 1024;
let counting = false;
let queries = 0;
const t = suiteServer({ packageMaxFileSize: LIMIT }, { onQuery: () => counting && queries++ });
const REALM = 'Basic realm="GitLab Packages Registry"';

let owner: TestUser;
let stranger: TestUser;
let reporter: TestUser;
let group: { id: number; name: string };
let project: { id: number; name: string; path_with_namespace: string };
let secret: { id: number };
let dists: { dir: string; wheel: Dist; sdist: Dist };

const auth = (user: TestUser) => basic(user.username, user.token);
const fields = (name: string, version: string, extra: Record<string, string> = {}) => ({ name, version, requires_python: '>=3.7', metadata_version: '2.1', summary: 'A package', ...extra });


/** GitLab's SimplePresenterBase page. */
const page = (title: string, links: string) => `        <!DOCTYPE html>
        <html>
          <head>
            <title>Links for ${title}</title>
          </head>
          <body>
            <h1>Links for ${title}</h1>
            ${links}
          </body>
        </html>
`;

beforeAll(async () => {
  owner = await createUser(t);
  stranger = await createUser(t);
  reporter = await createUser(t);
  group = await createGroup(t, owner.token, { visibility: 'public' });
  project = await createProject(t, owner.token, { namespaceId: group.id, visibility: 'public' });
  secret = await createProject(t, owner.token, { visibility: 'private' });
  await addMember(t, owner.token, 'projects', secret.id, reporter.id, 20);
  dists = await buildDists('My_Pkg.Name', '1.0.0', '>=3.7');
});

afterAll(() => removeDir(dists.dir));

describe('uploads', () => {
  it('takes a wheel and an sdist of one version into one package with their checksums', async () => {
    const wheel = await pypiUpload(t, project.id, dists.wheel, fields('My_Pkg.Name', '1.0.0'), auth(owner));
    expect(wheel.status, wheel.text).toBe(201);
    expect(wheel.body).toEqual({ message: '201 Created' });
    const sdist = await pypiUpload(t, project.id, dists.sdist, fields('My_Pkg.Name', '1.0.0'), auth(owner));
    expect(sdist.status, sdist.text).toBe(201);

    const list = await t.api('GET', `/projects/${project.id}/packages?package_type=pypi`, { token: owner.token });
    expect(list.body).toHaveLength(1);
    expect(list.body[0]).toMatchObject({ name: 'My_Pkg.Name', version: '1.0.0', package_type: 'pypi', status: 'default' });
    const files = await t.api('GET', `/projects/${project.id}/packages/${list.body[0].id}/package_files`, { token: owner.token });
    expect(files.body.map((f: { file_name: string; file_sha256: string; size: number; file_md5: string }) => [f.file_name, f.file_sha256, f.size, f.file_md5])).toEqual([
      [dists.wheel.fileName, dists.wheel.sha256, dists.wheel.bytes.length, dists.wheel.md5],
      [dists.sdist.fileName, dists.sdist.sha256, dists.sdist.bytes.length, dists.sdist.md5],
    ]);
    expect(await filesOnDisk(t)).toEqual(expect.arrayContaining([dists.wheel.sha256, dists.sdist.sha256]));
  });

  it('refuses a second file of the same name in a version, as GitLab validates it', async () => {
    const again = await pypiUpload(t, project.id, dists.wheel, fields('My_Pkg.Name', '1.0.0'), auth(owner));
    expect(again.status).toBe(400);
    expect(again.body).toEqual({ message: '400 Bad request - Validation failed: File name has already been taken' });
  });

  it("answers GitLab's 400s for bad uploads and keeps none of their bytes", async () => {
    const { dir, wheel } = await buildDists('refused', '2.0.0');
    try {
      const cases: [Record<string, string>, unknown][] = [
        [{ ...fields('refused', '2.0.0'), sha256_digest: 'a'.repeat(64) }, { message: '400 Bad request - Validation failed: File sha256 does not match the uploaded file' }],
        [{ ...fields('refused', '2.0.0'), sha256_digest: 'not-a-digest' }, { error: 'sha256_digest is invalid' }],
        [{ ...fields('refused', '2.0.0'), md5_digest: 'b'.repeat(32) }, { message: '400 Bad request - Validation failed: File md5 does not match the uploaded file' }],
        [fields('refused', 'not a version'), { message: '400 Bad request - Validation failed: Version is invalid' }],
        [fields('bad name!', '2.0.0'), { message: '400 Bad request - Validation failed: Name is invalid' }],
        [{ version: '2.0.0' }, { error: 'name is missing' }],
      ];
      for (const [form, body] of cases) {
        const res = await pypiUpload(t, project.id, wheel, form, auth(owner));
        expect([res.status, res.body], JSON.stringify(form)).toEqual([400, body]);
      }
      const nul = await pypiUpload(t, project.id, wheel, fields('refused\0evil', '2.0.0'), auth(owner));
      expect([nul.status, nul.text]).toEqual([400, 'Bad Request']);
      const empty = await fetch(`${t.url}/api/v4/projects/${project.id}/packages/pypi`, { method: 'POST', headers: { Authorization: auth(owner) } });
      expect([empty.status, await empty.json()]).toEqual([400, { error: 'content is missing, name is missing, version is missing' }]);
      expect(await filesOnDisk(t)).not.toContain(wheel.sha256);
      expect((await t.api('GET', `/projects/${project.id}/packages?package_name=refused`, { token: owner.token })).body).toEqual([]);
    } finally {
      await removeDir(dir);
    }
  });

  it('refuses a field after the file and a body cut off, leaving no bytes behind', async () => {
    const { dir, wheel } = await buildDists('late-field', '1.0');
    try {
      const form = new FormData();
      form.append('name', 'late-field');
      form.append('version', '1.0');
      form.append('content', new Blob([new Uint8Array(wheel.bytes)]), wheel.fileName);
      form.append('summary', 'evil\0');
      const res = await fetch(`${t.url}/api/v4/projects/${project.id}/packages/pypi`, { method: 'POST', body: form, headers: { Authorization: auth(owner) } });
      expect([res.status, await res.text()]).toEqual([400, 'Bad Request']);

      // A body that stops half-way through its file: the server drops it, and answers the next request.
      const { request } = await import('node:http');
      const boundary = 'cutoff';
      const head = `--${boundary}\r\nContent-Disposition: form-data; name="name"\r\n\r\nlate-field\r\n--${boundary}\r\nContent-Disposition: form-data; name="version"\r\n\r\n1.0\r\n--${boundary}\r\nContent-Disposition: form-data; name="content"; filename="${wheel.fileName}"\r\n\r\n`;
      await new Promise<void>((resolve) => {
        const req = request(`${t.url}/api/v4/projects/${project.id}/packages/pypi`, {
          method: 'POST',
          headers: { Authorization: auth(owner), 'Content-Type': `multipart/form-data; boundary=${boundary}`, 'Content-Length': String(head.length + 100_000) },
        });
        req.on('error', () => resolve());
        req.on('response', (r) => (r.resume(), resolve()));
        req.write(head);
        req.write(wheel.bytes.subarray(0, 100), () => setTimeout(() => req.destroy(), 50));
      });
      // The server notices the dropped socket on its own time (a loaded machine: seconds), then removes its temporary file.
      await expect.poll(async () => (await readdir(join(t.server.app.packages.root, 'tmp')).catch(() => [])).length, { timeout: 15_000 }).toBe(0);
      expect(await filesOnDisk(t)).not.toContain(wheel.sha256);
      expect((await t.api('GET', `/projects/${project.id}/packages?package_name=late-field`, { token: owner.token })).body).toEqual([]);
    } finally {
      await removeDir(dir);
    }
  });

  it('refuses a file beyond PACKAGE_MAX_FILE_SIZE while it streams', async () => {
    const big = { fileName: 'big-1.0.0.tar.gz', bytes: Buffer.alloc(LIMIT + 1, 7) };
    const res = await pypiUpload(t, project.id, big, fields('big', '1.0.0'), auth(owner));
    expect([res.status, res.body]).toEqual([400, { message: '400 Bad request - File is too large' }]);
    expect(await filesOnDisk(t)).not.toContain(sha256(big.bytes));
    // Form fields are bounded too, all together: 10 MB.
    const long = 'x'.repeat(6 * 1024 * 1024);
    const wordy = await pypiUpload(t, project.id, dists.wheel, { ...fields('wordy', '1.0'), description: long, keywords: long }, auth(owner));
    expect([wordy.status, wordy.body]).toEqual([413, { message: '413 Request Entity Too Large' }]);
  });

  it('keeps requires_python and the newest metadata; truncates what is too long', async () => {
    const { dir, wheel, sdist } = await buildDists('meta-pkg', '0.1');
    try {
      expect((await pypiUpload(t, project.id, wheel, fields('meta-pkg', '0.1', { requires_python: '>=2.7, <4' }), auth(owner))).status).toBe(201);
      expect((await pypiUpload(t, project.id, sdist, fields('meta-pkg', '0.1', { requires_python: `"><script>${'x'.repeat(300)}` }), auth(owner))).status).toBe(201);
      const res = await pypiGet(t, `/projects/${project.id}/packages/pypi/simple/meta-pkg`, auth(owner));
      const escaped = `&quot;&gt;&lt;script&gt;${'x'.repeat(255 - 10)}`;
      const base = `${EXTERNAL_URL}/api/v4/projects/${project.id}/packages/pypi/files`;
      expect(res.text).toBe(
        page(
          'meta-pkg',
          `<a href="${base}/${wheel.sha256}/${wheel.fileName}#sha256=${wheel.sha256}" data-requires-python="${escaped}">${wheel.fileName}</a>` +
            `<a href="${base}/${sdist.sha256}/${sdist.fileName}#sha256=${sdist.sha256}" data-requires-python="${escaped}">${sdist.fileName}</a>`,
        ),
      );
    } finally {
      await removeDir(dir);
    }
  });
});

describe('the simple index', () => {
  it("lists the project's packages with their normalized names", async () => {
    const res = await pypiGet(t, `/projects/${project.id}/packages/pypi/simple`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const base = `${EXTERNAL_URL}/api/v4/projects/${project.id}/packages/pypi/simple`;
    expect(res.text).toBe(
      page(
        project.name,
        `<a href="${base}/my-pkg-name" data-requires-python="&gt;=3.7">My_Pkg.Name</a>` +
          `<a href="${base}/meta-pkg" data-requires-python="&quot;&gt;&lt;script&gt;${'x'.repeat(245)}">meta-pkg</a>`,
      ),
    );
  });

  it("gives a package's files by normalized name, lower-casing the request, with a trailing slash too", async () => {
    const base = `${EXTERNAL_URL}/api/v4/projects/${project.id}/packages/pypi/files`;
    const expected = page(
      'My_Pkg.Name',
      [dists.wheel, dists.sdist].map((d) => `<a href="${base}/${d.sha256}/${d.fileName}#sha256=${d.sha256}" data-requires-python="&gt;=3.7">${d.fileName}</a>`).join(''),
    );
    for (const name of ['my-pkg-name', 'My-Pkg-Name', 'my-pkg-name/']) {
      const res = await pypiGet(t, `/projects/${project.id}/packages/pypi/simple/${name}`);
      expect([res.status, res.text], name).toEqual([200, expected]);
    }
    // GitLab compares the normalized names with the request lower-cased, not normalized.
    const raw = await pypiGet(t, `/projects/${project.id}/packages/pypi/simple/my_pkg.name`);
    expect([raw.status, JSON.parse(raw.text)]).toEqual([404, { message: '404 Package Not Found' }]);
  });

  it('downloads a file by its SHA-256 and name', async () => {
    const res = await pypiGet(t, `/projects/${project.id}/packages/pypi/files/${dists.wheel.sha256}/${dists.wheel.fileName}`);
    expect(res.status).toBe(200);
    expect(sha256(res.bytes)).toBe(dists.wheel.sha256);
    expect(res.headers.get('content-disposition')).toContain(dists.wheel.fileName);
    const wrong = await pypiGet(t, `/projects/${project.id}/packages/pypi/files/${dists.sdist.sha256}/${dists.wheel.fileName}`);
    expect([wrong.status, JSON.parse(wrong.text)]).toEqual([404, { message: '404 Package Not Found' }]);
  });

  it("serves a group's packages at the group endpoints", async () => {
    const index = await pypiGet(t, `/groups/${group.id}/-/packages/pypi/simple`);
    expect(index.status).toBe(200);
    expect(index.text).toContain(`<title>Links for ${group.name}</title>`);
    expect(index.text).toContain(`<a href="${EXTERNAL_URL}/api/v4/groups/${group.id}/-/packages/pypi/simple/my-pkg-name" data-requires-python="&gt;=3.7">My_Pkg.Name</a>`);
    const versions = await pypiGet(t, `/groups/${group.id}/-/packages/pypi/simple/my-pkg-name`);
    const link = `${EXTERNAL_URL}/api/v4/groups/${group.id}/-/packages/pypi/files/${dists.wheel.sha256}/${dists.wheel.fileName}#sha256=${dists.wheel.sha256}`;
    expect(versions.text).toContain(`<a href="${link}" data-requires-python="&gt;=3.7">${dists.wheel.fileName}</a>`);
    const file = await pypiGet(t, `/groups/${group.id}/-/packages/pypi/files/${dists.wheel.sha256}/${dists.wheel.fileName}`);
    expect(sha256(file.bytes)).toBe(dists.wheel.sha256);
    expect((await pypiGet(t, '/groups/999999/-/packages/pypi/simple', auth(owner))).status).toBe(404);
  });
});

describe('query budget', () => {
  /** The statements one read of a PyPI page costs. */
  async function cost(path: string): Promise<number> {
    queries = 0;
    counting = true;
    const res = await pypiGet(t, path, auth(owner));
    counting = false;
    expect(res.status, path).toBe(200);
    return queries;
  }

  it('reads the index and a package page in as many statements for four packages and files as for one', async () => {
    const few = await createProject(t, owner.token, { visibility: 'private' });
    const many = await createProject(t, owner.token, { visibility: 'private' });
    const { dir, wheel, sdist } = await buildDists('budget', '1.0');
    try {
      expect((await pypiUpload(t, few.id, wheel, fields('budget', '1.0'), auth(owner))).status).toBe(201);
      for (const version of ['1.0', '1.1', '1.2', '1.3']) {
        for (const dist of [wheel, sdist]) {
          const renamed = { ...dist, fileName: dist.fileName.replace('1.0', version) };
          expect((await pypiUpload(t, many.id, renamed, fields('budget', version), auth(owner))).status).toBe(201);
        }
      }
      for (const suffix of ['simple', 'simple/budget']) {
        expect(await cost(`/projects/${many.id}/packages/pypi/${suffix}`), suffix).toBe(await cost(`/projects/${few.id}/packages/pypi/${suffix}`));
      }
    } finally {
      await removeDir(dir);
    }
  });
});

describe('who may do what', () => {
  let hidden: Dist;

  beforeAll(async () => {
    hidden = dists.wheel;
    expect((await pypiUpload(t, secret.id, hidden, fields('My_Pkg.Name', '1.0.0'), auth(owner))).status).toBe(201);
  });

  it('challenges anonymous callers of a private project for Basic credentials, and lets the token in', async () => {
    for (const path of [`/projects/${secret.id}/packages/pypi/simple`, `/projects/${secret.id}/packages/pypi/simple/my-pkg-name`, `/projects/${secret.id}/packages/pypi/files/${hidden.sha256}/${hidden.fileName}`]) {
      const anonymous = await pypiGet(t, path);
      expect([anonymous.status, anonymous.headers.get('www-authenticate'), JSON.parse(anonymous.text)], path).toEqual([401, REALM, { message: '401 Unauthorized' }]);
      expect((await pypiGet(t, path, auth(owner))).status, path).toBe(200);
      // A guest or reporter pulls (GitLab's allow_guest_plus_roles_to_pull_packages).
      expect((await pypiGet(t, path, auth(reporter))).status, path).toBe(200);
      const other = await pypiGet(t, path, auth(stranger));
      expect([other.status, JSON.parse(other.text)], path).toEqual([404, { message: '404 Not Found' }]);
      const bad = await pypiGet(t, path, basic('user', 'glpat-not-a-token'));
      expect([bad.status, bad.headers.get('www-authenticate')], path).toEqual([401, REALM]);
    }
    // The project named by its URL-encoded path, as GitLab's :id takes it.
    expect((await pypiGet(t, `/projects/${encodeURIComponent(project.path_with_namespace)}/packages/pypi/simple/my-pkg-name`)).status).toBe(200);
    // A project that does not exist is 404 to everyone.
    expect((await pypiGet(t, '/projects/999999/packages/pypi/simple')).status).toBe(404);
    // PRIVATE-TOKEN works as on every package route.
    const res = await fetch(`${t.url}/api/v4/projects/${secret.id}/packages/pypi/simple`, { headers: { 'PRIVATE-TOKEN': owner.token } });
    expect(res.status).toBe(200);
  });

  it('lets Developers upload; 401 anonymous, 403 a Reporter, 404 a stranger of a private project', async () => {
    const { dir, wheel } = await buildDists('perm-pkg', '1.0');
    try {
      const anonymous = await pypiUpload(t, project.id, wheel, fields('perm-pkg', '1.0'), null);
      expect([anonymous.status, anonymous.headers.get('www-authenticate'), anonymous.body]).toEqual([401, REALM, { message: '401 Unauthorized' }]);
      const visitor = await pypiUpload(t, project.id, wheel, fields('perm-pkg', '1.0'), auth(stranger));
      expect([visitor.status, visitor.body]).toEqual([403, { message: '403 Forbidden' }]);
      const rep = await pypiUpload(t, secret.id, wheel, fields('perm-pkg', '1.0'), auth(reporter));
      expect([rep.status, rep.body]).toEqual([403, { message: '403 Forbidden' }]);
      const hiddenFrom = await pypiUpload(t, secret.id, wheel, fields('perm-pkg', '1.0'), auth(stranger));
      expect([hiddenFrom.status, hiddenFrom.body]).toEqual([404, { message: '404 Not Found' }]);
      expect(await filesOnDisk(t)).not.toContain(wheel.sha256);
    } finally {
      await removeDir(dir);
    }
  });

  it('takes a project access token whatever the login', async () => {
    const created = await t.api('POST', `/projects/${secret.id}/access_tokens`, { token: owner.token, body: { name: 'pypi-bot', scopes: ['api'], access_level: 30, expires_at: new Date(Date.now() + 7 * 86400e3).toISOString().slice(0, 10) } });
    expect(created.status, created.text).toBe(201);
    const { dir, wheel } = await buildDists('bot-pkg', '3.1.4');
    try {
      expect((await pypiUpload(t, secret.id, wheel, fields('bot-pkg', '3.1.4'), basic('anything', created.body.token))).status).toBe(201);
      expect((await pypiGet(t, `/projects/${secret.id}/packages/pypi/simple/bot-pkg`, basic('__token__', created.body.token))).status).toBe(200);
    } finally {
      await removeDir(dir);
    }
  });

  it("records a CI job's pipeline when its job token uploads", async () => {
    const { project: ci, pipeline, job } = await runningJob(t);
    const { dir, wheel } = await buildDists('ci-pkg', '1.0');
    try {
      const up = await pypiUpload(t, ci.id, wheel, fields('ci-pkg', '1.0'), basic('gitlab-ci-token', job.token));
      expect(up.status, up.text).toBe(201);
      const list = await t.api('GET', `/projects/${ci.id}/packages`, { token: t.rootToken });
      expect(list.body[0].pipelines.map((p: { id: number }) => p.id)).toEqual([pipeline.id]);
      expect((await pypiGet(t, `/projects/${ci.id}/packages/pypi/simple/ci-pkg`, basic('gitlab-ci-token', job.token))).status).toBe(200);
      // The job's token reaches no other project's registry.
      expect((await pypiGet(t, `/projects/${secret.id}/packages/pypi/simple`, basic('gitlab-ci-token', job.token))).status).toBe(404);
    } finally {
      await removeDir(dir);
    }
  });
});

describe('the registry around it', () => {
  it('shows PyPI packages and their metadata in GraphQL project.packages', async () => {
    const res = await t.graphql<{ project: { packages: { nodes: { name: string; version: string; packageType: string; metadata: Record<string, unknown> }[] } } }>(
      `query($path: ID!) { project(fullPath: $path) { packages(packageType: PYPI, sort: NAME_ASC) { nodes { id name version packageType
        metadata { __typename ... on PypiMetadata { id requiredPython metadataVersion summary keywords authorEmail description descriptionContentType } } } } } }`,
      { path: project.path_with_namespace },
      owner.token,
    );
    expect(res.body.errors).toBeUndefined();
    const nodes = res.body.data?.project.packages.nodes ?? [];
    expect(nodes.map((n) => [n.name, n.version, n.packageType])).toEqual([
      ['My_Pkg.Name', '1.0.0', 'PYPI'],
      ['meta-pkg', '0.1', 'PYPI'],
    ]);
    const id = String((nodes[0] as unknown as { id: string }).id).split('/').pop();
    expect(nodes[0].metadata).toEqual({
      __typename: 'PypiMetadata',
      id: `gid://gitlab/Packages::Pypi::Metadatum/${id}`,
      requiredPython: '>=3.7',
      metadataVersion: '2.1',
      summary: 'A package',
      keywords: null,
      authorEmail: null,
      description: null,
      descriptionContentType: null,
    });
    // The newest upload's metadata, its requires_python cut to GitLab's 255 characters.
    expect(String(nodes[1].metadata.requiredPython)).toHaveLength(255);
  });

  it('deletes a package: gone from the index and downloads, its bytes removed by the job', async () => {
    const { dir, wheel } = await buildDists('doomed', '1.0');
    try {
      expect((await pypiUpload(t, project.id, wheel, fields('doomed', '1.0'), auth(owner))).status).toBe(201);
      const [pkg] = (await t.api('GET', `/projects/${project.id}/packages?package_name=doomed`, { token: owner.token })).body;
      expect((await t.api('DELETE', `/projects/${project.id}/packages/${pkg.id}`, { token: owner.token })).status).toBe(204);
      expect((await pypiGet(t, `/projects/${project.id}/packages/pypi/simple/doomed`)).status).toBe(404);
      expect((await pypiGet(t, `/projects/${project.id}/packages/pypi/files/${wheel.sha256}/${wheel.fileName}`)).status).toBe(404);
      expect((await pypiGet(t, `/projects/${project.id}/packages/pypi/simple`)).text).not.toContain('doomed');
      await t.server.app.jobs.drain();
      expect(await filesOnDisk(t)).not.toContain(wheel.sha256);
      // The version can be published again once deleted.
      expect((await pypiUpload(t, project.id, wheel, fields('doomed', '1.0'), auth(owner))).status).toBe(201);
    } finally {
      await removeDir(dir);
    }
  });
});
