/**
 * Single files of a job's artifacts archive (GitLab's `lib/api/ci/job_artifacts.rb`, served as Workhorse's
 * artifacts-entry does): `GET /projects/:id/jobs/:job_id/artifacts/*artifact_path` (type by extension) and
 * `GET /projects/:id/jobs/artifacts/:ref_name/raw/*artifact_path?job=` (type by content), one member streamed out
 * of the stored zip; who may download them (`artifacts:access`, `public`); paths that try to leave the archive.
 */
import { spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { Gitlab } from '@gitbeaker/rest';
import yazl from 'yazl';
import { describe, expect, it, vi } from 'vitest';
import { runCommand } from '../support/process.js';
import { suiteServer } from '../support/server.js';
import { addMember, createUser, type TestUser } from '../support/factories.js';
import { createRunner, projectWithConfig, requestJob, runnerCall, RUNNER_INFO } from '../runners/support.js';

const t = suiteServer({ ciMaxArtifactSize: 32 * 1024 * 1024 });
// Each test runs jobs and moves megabytes: room for a machine busy with other suites.
vi.setConfig({ testTimeout: 90_000 });

const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), randomBytes(300)]);
// Binary from its first byte, so content detection cannot take it for text.
const BLOB = Buffer.concat([Buffer.from([0, 1, 2, 3]), randomBytes(4096)]);
// Large: 6 MiB of log lines (deflated) and 3 MiB that do not compress (stored as they are).
const BIG_LOG = Buffer.from(Array.from({ length: 120_000 }, (_, i) => `line ${i}: ${'x'.repeat(i % 40)}\n`).join('')).subarray(0, 6 * 1024 * 1024);
const BIG_RANDOM = randomBytes(3 * 1024 * 1024);

const FILES: Record<string, Buffer> = {
  'README.txt': Buffer.from('hello artifacts\n'),
  'dist/nested/deep/data.json': Buffer.from('{"version":"1.2.3"}\n'),
  'dist/bin/blob.bin': BLOB,
  'dist/image.png': PNG,
  'dist/big.log': BIG_LOG,
  'dist/random.dat': BIG_RANDOM,
  'dist/zip64.txt': Buffer.from('a Zip64 member\n'),
  'dist/we"ird name.txt': Buffer.from('quoted\n'),
  'dist/ünïcödé.txt': Buffer.from('unicode\n'),
};

/** The archive gitlab-runner would upload: deflated members, one Zip64 member, a folder entry, a Zip64 end record. */
function archive(files: Record<string, Buffer> = FILES): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  zip.addEmptyDirectory('dist/');
  for (const [name, content] of Object.entries(files)) {
    zip.addBuffer(content, name, { compress: name !== 'dist/random.dat', forceZip64Format: name === 'dist/zip64.txt' });
  }
  zip.end({ forceZip64Format: true, comment: '' });
  const chunks: Buffer[] = [];
  return new Promise((resolve, reject) => {
    zip.outputStream.on('data', (c: Buffer) => chunks.push(c));
    zip.outputStream.on('end', () => resolve(Buffer.concat(chunks)));
    zip.outputStream.on('error', reject);
  });
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/**
 * A project whose `build` job (on `main`) ran on a fake runner, uploaded `zip` and succeeded; `artifacts` is the
 * job's `artifacts:` keyword body.
 */
async function builtProject(options: { visibility?: string; artifacts?: string; zip?: Buffer | null } = {}) {
  const config = `build:\n  script: echo\n  artifacts:\n${options.artifacts ?? '    paths: [dist/]'}\n`;
  const { project } = await projectWithConfig(t, config, { visibility: options.visibility });
  const runner = await createRunner(t, { project_id: project.id });
  const job = await requestJob(t, runner.token);
  if (options.zip !== null) {
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(options.zip ?? (await archive()))]), 'artifacts.zip');
    const res = await fetch(`${t.url}/api/v4/jobs/${job.id}/artifacts?artifact_type=archive&artifact_format=zip`, { method: 'POST', body: form, headers: { 'JOB-TOKEN': job.token } });
    expect(res.status, await res.text()).toBe(201);
  }
  expect((await runnerCall(t, 'PUT', `/jobs/${job.id}`, { token: job.token, info: RUNNER_INFO, state: 'success' })).status).toBe(200);
  return { project, jobId: job.id as number };
}

function get(path: string, token: string | null = t.rootToken) {
  return fetch(`${t.url}/api/v4${path}`, { headers: token ? { 'PRIVATE-TOKEN': token } : {} });
}

/** A GET whose path goes out byte for byte (fetch would resolve `..` segments first). */
function rawGet(path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const url = new URL(t.url);
    const req = request({ host: url.hostname, port: url.port, path: `/api/v4${path}`, headers: { 'PRIVATE-TOKEN': t.rootToken } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    req.end();
  });
}

const encodePath = (path: string) => path.split('/').map(encodeURIComponent).join('/');

describe('GET /projects/:id/jobs/:job_id/artifacts/*artifact_path', () => {
  it('streams one member with its exact bytes, its length, an attachment and its type by extension', async () => {
    const { project, jobId } = await builtProject();
    const expected: [string, string][] = [
      ['README.txt', 'text/plain; charset=utf-8'],
      ['dist/nested/deep/data.json', 'application/json'],
      ['dist/bin/blob.bin', 'application/octet-stream'],
      ['dist/image.png', 'image/png'],
      ['dist/big.log', 'application/octet-stream'],
      ['dist/random.dat', 'application/octet-stream'],
      ['dist/zip64.txt', 'text/plain; charset=utf-8'],
    ];
    for (const [path, type] of expected) {
      const res = await get(`/projects/${project.id}/jobs/${jobId}/artifacts/${path}`);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type'), path).toBe(type);
      expect(res.headers.get('content-length'), path).toBe(String(FILES[path].length));
      expect(res.headers.get('content-disposition'), path).toBe(`attachment; filename="${path.split('/').pop()}"`);
      expect(sha256(Buffer.from(await res.arrayBuffer())), path).toBe(sha256(FILES[path]));
    }
    // Quotes escaped; a UTF-8 name sent as its UTF-8 bytes, as Workhorse does.
    const quoted = await get(`/projects/${project.id}/jobs/${jobId}/artifacts/${encodePath('dist/we"ird name.txt')}`);
    expect(quoted.status, await quoted.clone().text()).toBe(200);
    expect(quoted.headers.get('content-disposition')).toBe('attachment; filename="we\\"ird name.txt"');
    expect(await quoted.text()).toBe('quoted\n');
    const unicode = await get(`/projects/${project.id}/jobs/${jobId}/artifacts/${encodePath('dist/ünïcödé.txt')}`);
    expect(unicode.status).toBe(200);
    expect(unicode.headers.get('content-disposition')).toBe('attachment; filename="ünïcödé.txt"');
    // Slashes encoded within one segment name the same member.
    const encoded = await get(`/projects/${project.id}/jobs/${jobId}/artifacts/${encodeURIComponent('dist/nested/deep/data.json')}`);
    expect(await encoded.text()).toBe('{"version":"1.2.3"}\n');
  });

  it('answers 404 as Workhorse for a path the archive lacks or a folder, and GitLab’s 404 for a job without artifacts', async () => {
    const { project, jobId } = await builtProject();
    for (const path of ['nope.txt', 'dist/', 'dist', 'readme.txt', 'dist/nested']) {
      const res = await get(`/projects/${project.id}/jobs/${jobId}/artifacts/${path}`);
      expect(res.status, path).toBe(404);
      expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
      expect(await res.text()).toBe('404 page not found\n');
    }
    const bare = await builtProject({ zip: null });
    const none = await get(`/projects/${bare.project.id}/jobs/${bare.jobId}/artifacts/README.txt`);
    expect(none.status).toBe(404);
    expect(await none.json()).toEqual({ message: '404 Not Found' });
    expect((await get(`/projects/${project.id}/jobs/999999999/artifacts/README.txt`)).status).toBe(404);
    expect(await (await get(`/projects/${project.id}/jobs/abc/artifacts/README.txt`)).json()).toEqual({ error: 'job_id is invalid' });
  });

  it('refuses paths with NUL bytes or `..` segments (400), never a 500', async () => {
    const { project, jobId } = await builtProject();
    const base = `/projects/${project.id}/jobs/${jobId}/artifacts`;
    for (const path of ['dist/../README.txt', '../README.txt', 'dist/nested/../../README.txt', '..']) {
      expect(await rawGet(`${base}/${path}`), path).toEqual({ status: 400, body: JSON.stringify({ message: '400 Bad request' }) });
      // fetch resolves a bare `..`: only the encoded forms with a slash reach the server as they are.
      if (path !== '..') expect((await get(`${base}/${encodeURIComponent(path)}`)).status, path).toBe(400);
    }
    // A NUL anywhere in the request is refused before any route, as GitLab's HandleMalformedStrings does.
    expect(await rawGet(`${base}/README.txt%00.png`)).toEqual({ status: 400, body: 'Bad Request' });
    expect((await rawGet(`${base}/%FF%FE`)).status).toBe(400);
    expect((await rawGet(`${base}/%E0%A4%A`)).status).toBe(400);
    // `..` inside a name is a name.
    expect((await rawGet(`${base}/dist/..hidden`)).status).toBe(404);
    expect((await rawGet(`${base}//etc/passwd`)).status).toBe(404);
  });
});

describe('GET /projects/:id/jobs/artifacts/:ref_name/raw/*artifact_path', () => {
  it('serves a member of the ref’s latest successful job, typed by its content', async () => {
    const { project } = await builtProject();
    const expected: [string, string][] = [
      ['README.txt', 'text/plain; charset=utf-8'],
      ['dist/nested/deep/data.json', 'text/plain; charset=utf-8'],
      ['dist/bin/blob.bin', 'application/octet-stream'],
      ['dist/image.png', 'image/png'],
      ['dist/big.log', 'text/plain; charset=utf-8'],
    ];
    for (const [path, type] of expected) {
      const res = await get(`/projects/${project.id}/jobs/artifacts/main/raw/${path}?job=build`);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type'), path).toBe(type);
      expect(res.headers.get('content-length'), path).toBe(String(FILES[path].length));
      expect(res.headers.get('content-disposition'), path).toBe(`attachment; filename="${path.split('/').pop()}"`);
      expect(sha256(Buffer.from(await res.arrayBuffer())), path).toBe(sha256(FILES[path]));
    }
    const missing = await get(`/projects/${project.id}/jobs/artifacts/main/raw/nope.txt?job=build`);
    expect([missing.status, await missing.text()]).toEqual([404, '404 page not found\n']);
    const noJob = await get(`/projects/${project.id}/jobs/artifacts/main/raw/README.txt?job=nope`);
    expect([noJob.status, await noJob.json()]).toEqual([404, { message: '404 Not found' }]);
    const noRef = await get(`/projects/${project.id}/jobs/artifacts/other/raw/README.txt?job=build`);
    expect(noRef.status).toBe(404);
    const noParam = await get(`/projects/${project.id}/jobs/artifacts/main/raw/README.txt`);
    expect([noParam.status, await noParam.json()]).toEqual([400, { error: 'job is missing' }]);
    expect(await rawGet(`/projects/${project.id}/jobs/artifacts/main/raw/dist/../README.txt?job=build`)).toEqual({ status: 400, body: JSON.stringify({ message: '400 Bad request' }) });
  });

  it('works through gitbeaker’s JobArtifacts.downloadArchive, by job and by ref', async () => {
    const { project, jobId } = await builtProject();
    const api = new Gitlab({ host: t.url, token: t.rootToken });
    const byJob = await api.JobArtifacts.downloadArchive(project.id, { jobId, artifactPath: 'dist/nested/deep/data.json' });
    expect(byJob).toEqual({ version: '1.2.3' });
    const binary = (await api.JobArtifacts.downloadArchive(project.id, { jobId, artifactPath: 'dist/bin/blob.bin' })) as unknown as Blob;
    expect(sha256(Buffer.from(await binary.arrayBuffer()))).toBe(sha256(BLOB));
    const byRef = (await api.JobArtifacts.downloadArchive(project.id, { ref: 'main', job: 'build', artifactPath: 'dist/random.dat' })) as unknown as Blob;
    expect(sha256(Buffer.from(await byRef.arrayBuffer()))).toBe(sha256(BIG_RANDOM));
    const whole = (await api.JobArtifacts.downloadArchive(project.id, { jobId })) as unknown as Blob;
    expect(Buffer.from(await whole.arrayBuffer()).subarray(0, 2).toString()).toBe('PK');
    await expect(api.JobArtifacts.downloadArchive(project.id, { ref: 'main', job: 'build', artifactPath: 'missing.txt' })).rejects.toThrow();
  });
});

describe('GET /projects/:id/jobs/:job_id', () => {
  it('shows artifacts_file while the archive has not expired, the artifacts list and artifacts_expire_at', async () => {
    const zip = await archive();
    // The upload names no expire_in: GitLab's default, 30 days.
    const { project, jobId } = await builtProject({ zip });
    const job = (await t.api('GET', `/projects/${project.id}/jobs/${jobId}`)).body;
    expect(job.artifacts_file).toEqual({ filename: 'artifacts.zip', size: zip.length });
    expect(job.artifacts).toEqual([{ file_type: 'archive', size: zip.length, filename: 'artifacts.zip', file_format: 'zip' }]);
    expect(Math.abs(new Date(job.artifacts_expire_at).getTime() - (Date.now() + 30 * 86400_000))).toBeLessThan(60_000);
    const past = new Date(Date.now() - 1000);
    await t.server.database.prisma.ciJobArtifact.updateMany({ where: { jobId }, data: { expireAt: past } });
    const expired = (await t.api('GET', `/projects/${project.id}/jobs/${jobId}`)).body;
    expect('artifacts_file' in expired).toBe(false);
    expect(expired.artifacts).toHaveLength(1);
    expect(expired.artifacts_expire_at).toBe(past.toISOString());
  });
});

const PYTHON = '/usr/bin/python3';
const pythonGitlab = spawnSync(PYTHON, ['-c', 'import gitlab'], { encoding: 'utf8' }).status === 0;

/** python-gitlab's ProjectJob.artifact(path) and ProjectArtifactManager.raw(ref, path, job), printing what they return. */
const PYTHON_SCRIPT = `
import hashlib, os, sys, gitlab
gl = gitlab.Gitlab(os.environ['GITLAB_URL'], private_token=os.environ['GITLAB_TOKEN'])
project = gl.projects.get(int(sys.argv[1]), lazy=True)
job = project.jobs.get(int(sys.argv[2]), lazy=True)
print(job.artifact('dist/nested/deep/data.json').decode())
print(hashlib.sha256(job.artifact('dist/random.dat')).hexdigest())
print(project.artifacts.raw('main', 'README.txt', 'build').decode(), end='')
try:
    job.artifact('missing.txt')
except gitlab.exceptions.GitlabGetError as error:
    print('missing', error.response_code)
`;

describe.skipIf(!pythonGitlab)('python-gitlab', () => {
  it('downloads single files with job.artifact(path) and project.artifacts.raw(ref, path, job)', async () => {
    const { project, jobId } = await builtProject();
    const { code, output } = await runCommand(PYTHON, ['-c', PYTHON_SCRIPT, String(project.id), String(jobId)], { env: { GITLAB_URL: t.url, GITLAB_TOKEN: t.rootToken } });
    expect(output, output).toBe(`{"version":"1.2.3"}\n\n${sha256(BIG_RANDOM)}\nhello artifacts\nmissing 404\n`);
    expect(code).toBe(0);
  });
});

describe('who may download single files', () => {
  const roles = ['guest', 'reporter', 'developer', 'maintainer'] as const;
  const LEVEL = { guest: 10, reporter: 20, developer: 30, maintainer: 40 };

  // One set of users for every project here, members of each project as it is made.
  let users: Record<(typeof roles)[number] | 'stranger', TestUser> | undefined;
  async function people(projectId: number) {
    users ??= {
      guest: await createUser(t),
      reporter: await createUser(t),
      developer: await createUser(t),
      maintainer: await createUser(t),
      stranger: await createUser(t),
    };
    for (const role of roles) await addMember(t, t.rootToken, 'projects', projectId, users[role].id, LEVEL[role]);
    return users;
  }

  /** The status each caller gets for the job's README, single file and whole archive alike. */
  async function matrix(projectId: number, jobId: number, users: Record<string, TestUser>) {
    const out: Record<string, number> = {};
    const callers: [string, string | null][] = [['anonymous', null], ['admin', t.rootToken], ...Object.entries(users).map(([k, u]): [string, string] => [k, u.token])];
    for (const [who, token] of callers) {
      const single = await get(`/projects/${projectId}/jobs/${jobId}/artifacts/README.txt`, token);
      const whole = await get(`/projects/${projectId}/jobs/${jobId}/artifacts`, token);
      const byRef = await get(`/projects/${projectId}/jobs/artifacts/main/raw/README.txt?job=build`, token);
      expect([whole.status, byRef.status], who).toEqual([single.status, single.status]);
      out[who] = single.status;
    }
    return out;
  }

  const everyone = { anonymous: 200, admin: 200, guest: 200, reporter: 200, developer: 200, maintainer: 200, stranger: 200 };
  const developersOnly = { anonymous: 401, admin: 200, guest: 403, reporter: 403, developer: 200, maintainer: 200, stranger: 403 };
  const cases: [string, { visibility: string; artifacts?: string }, Record<string, number>][] = [
    ['a public project: everyone', { visibility: 'public' }, everyone],
    ['an internal project: every signed-in user', { visibility: 'internal' }, { ...everyone, anonymous: 404 }],
    ['a private project: its members', { visibility: 'private' }, { ...everyone, anonymous: 404, stranger: 404 }],
    ['`public: false`: Developers and up', { visibility: 'public', artifacts: '    paths: [dist/]\n    public: false' }, developersOnly],
    ['`access: developer`: Developers and up', { visibility: 'public', artifacts: '    paths: [dist/]\n    access: developer' }, developersOnly],
    ['`access: maintainer`: Maintainers and up', { visibility: 'public', artifacts: '    paths: [dist/]\n    access: maintainer' }, { ...developersOnly, developer: 403 }],
    ['`access: none`: nobody', { visibility: 'public', artifacts: '    paths: [dist/]\n    access: none' }, { ...developersOnly, admin: 403, developer: 403, maintainer: 403 }],
    ['`access: all`: as without it', { visibility: 'private', artifacts: '    paths: [dist/]\n    access: all' }, { ...everyone, anonymous: 404, stranger: 404 }],
  ];
  for (const [title, options, expected] of cases) {
    it(`on ${title}`, async () => {
      const { project, jobId } = await builtProject(options);
      expect(await matrix(project.id, jobId, await people(project.id))).toEqual(expected);
    });
  }

  it('refuses an unknown `access` in the configuration', async () => {
    const { project } = await builtProject();
    const lint = await t.api('POST', `/projects/${project.id}/ci/lint`, { body: { content: 'build:\n  script: echo\n  artifacts:\n    access: everybody\n' } });
    expect(lint.status).toBe(200);
    expect(lint.body.valid).toBe(false);
    expect(lint.body.errors).toEqual(['jobs:build:artifacts access should be one of: none, developer, maintainer, all']);
  });
});
