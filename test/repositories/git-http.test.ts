/**
 * Git over HTTP with the real git CLI against the running server: clone, push (branch, tag), fetch, protocol v2,
 * GitLab's Basic token authentication and its answers, push events in the database and on the bus, and bad input.
 */
import { existsSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { STALE_LOCK_MS } from '../../src/git/repository.js';
import { REPOSITORY_PUSHED, ZERO_SHA, type PushedMessage } from '../../src/modules/repositories/service.js';
import { addMember, createProject, createUser, type TestUser } from '../support/factories.js';
import { cloneUrl, gitSandbox } from '../support/git.js';
import { suiteServer } from '../support/server.js';

const t = suiteServer();
const git = gitSandbox();
const pushed: PushedMessage[] = [];
let unsubscribe: (() => void) | undefined;
afterAll(() => unsubscribe?.());

/** A clone of the project with one new commit holding `files`; returns the clone's folder. */
async function cloneAndCommit(url: string, files: Record<string, string>, message = 'Add files'): Promise<string> {
  const dir = join(git.folder(), 'clone');
  await git.ok(git.root, ['clone', '--quiet', url, dir]);
  for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), content);
  await git.ok(dir, ['add', '.']);
  await git.ok(dir, ['commit', '--quiet', '-m', message]);
  return dir;
}

function basic(token: string, login = 'anything'): string {
  return `Basic ${Buffer.from(`${login}:${token}`).toString('base64')}`;
}

describe('git over HTTP', () => {
  let owner: TestUser;
  let project: any;

  it('clones an empty project, pushes a branch with .gitlab-ci.yml and a tag, and a second clone fetches them', async () => {
    unsubscribe = t.server.app.bus.subscribe(REPOSITORY_PUSHED, (message) => void pushed.push(message as PushedMessage));
    owner = await createUser(t);
    project = await createProject(t, owner.token);
    const url = cloneUrl(t.url, project.path_with_namespace, owner.token);
    const first = await cloneAndCommit(url, { '.gitlab-ci.yml': 'test:\n  script: echo ok\n', 'README.md': '# Hello\n' }, 'Initial commit');
    await git.ok(first, ['push', '--quiet', 'origin', 'HEAD:main']);
    const main = (await git.ok(first, ['rev-parse', 'HEAD'])).trim();
    await git.ok(first, ['checkout', '--quiet', '-b', 'feature/ci']);
    writeFileSync(join(first, 'app.txt'), 'v1\n');
    await git.ok(first, ['add', '.']);
    await git.ok(first, ['commit', '--quiet', '-m', 'Add app']);
    await git.ok(first, ['push', '--quiet', 'origin', 'feature/ci']);
    const feature = (await git.ok(first, ['rev-parse', 'HEAD'])).trim();
    await git.ok(first, ['tag', 'v1.0.0']);
    await git.ok(first, ['push', '--quiet', 'origin', 'v1.0.0']);

    const second = join(git.folder(), 'second');
    await git.ok(git.root, ['clone', '--quiet', url, second]);
    expect((await git.ok(second, ['rev-parse', 'HEAD'])).trim()).toBe(main);
    await git.ok(second, ['fetch', '--quiet', '--tags', 'origin']);
    expect((await git.ok(second, ['rev-parse', 'origin/feature/ci'])).trim()).toBe(feature);
    expect((await git.ok(second, ['rev-parse', 'v1.0.0^{commit}'])).trim()).toBe(feature);
    expect(await git.ok(second, ['show', 'origin/feature/ci:.gitlab-ci.yml'])).toContain('script: echo ok');

    const after = await t.api('GET', `/projects/${project.id}`);
    expect(after.body.empty_repo).toBe(false);
    expect(after.body.default_branch).toBe('main');

    // One bus message per ref, published before the push returned.
    expect(pushed.filter((m) => m.projectId === project.id)).toEqual([
      { projectId: project.id, userId: owner.id, ref: 'refs/heads/main', before: ZERO_SHA, after: main },
      { projectId: project.id, userId: owner.id, ref: 'refs/heads/feature/ci', before: ZERO_SHA, after: feature },
      { projectId: project.id, userId: owner.id, ref: 'refs/tags/v1.0.0', before: ZERO_SHA, after: feature },
    ]);
    const events = await t.api('GET', `/projects/${project.id}/events?action=pushed&sort=asc`, { token: owner.token });
    expect(events.body.map((e: any) => [e.author_id, e.push_data.action, e.push_data.ref_type, e.push_data.ref, e.push_data.commit_count, e.push_data.commit_title])).toEqual([
      [owner.id, 'created', 'branch', 'main', 1, 'Initial commit'],
      [owner.id, 'created', 'branch', 'feature/ci', 1, 'Add app'],
      [owner.id, 'created', 'tag', 'v1.0.0', 1, 'Add app'],
    ]);
  });

  it('pushes to an existing branch and records the update', async () => {
    const url = cloneUrl(t.url, project.path_with_namespace, owner.token);
    const dir = await cloneAndCommit(url, { 'more.txt': 'more\n' }, 'More');
    const before = (await git.ok(dir, ['rev-parse', 'HEAD~1'])).trim();
    await git.ok(dir, ['push', '--quiet', 'origin', 'HEAD:main']);
    const after = (await git.ok(dir, ['rev-parse', 'HEAD'])).trim();
    expect(pushed.at(-1)).toEqual({ projectId: project.id, userId: owner.id, ref: 'refs/heads/main', before, after });
  });

  it('pushes past a ref lock a killed git left behind, and not past one a running git holds', async () => {
    const lock = join(t.server.app.repositories.path({ id: project.id, repositoryStorage: 'default' }), 'refs/heads/main.lock');
    const url = cloneUrl(t.url, project.path_with_namespace, owner.token);
    const dir = await cloneAndCommit(url, { 'locked.txt': 'x\n' }, 'Past a lock');
    // Fresh: another git may be moving the ref right now, so the push is refused and the lock left alone.
    writeFileSync(lock, '');
    const refused = await git.run(dir, ['push', '--quiet', 'origin', 'HEAD:main']);
    expect(refused.code).not.toBe(0);
    expect(existsSync(lock)).toBe(true);
    // Older than any git holds a ref lock: left by a killed one, removed, and the push goes through.
    const old = new Date(Date.now() - STALE_LOCK_MS - 1000);
    utimesSync(lock, old, old);
    await git.ok(dir, ['push', '--quiet', 'origin', 'HEAD:main']);
    expect(existsSync(lock)).toBe(false);
  });

  it('speaks protocol v2 (ls-remote) and answers the advertisement without the v0 preamble', async () => {
    const url = cloneUrl(t.url, project.path_with_namespace, owner.token);
    const out = await git.ok(git.root, ['-c', 'protocol.version=2', 'ls-remote', url]);
    expect(out).toMatch(/^[0-9a-f]{40}\tHEAD$/m);
    expect(out).toMatch(/\trefs\/heads\/main$/m);
    const v2 = await fetch(`${t.url}/${project.path_with_namespace}.git/info/refs?service=git-upload-pack`, { headers: { Authorization: basic(owner.token), 'Git-Protocol': 'version=2' } });
    expect(v2.status).toBe(200);
    expect((await v2.text()).startsWith('000eversion 2\n')).toBe(true);
    const v0 = await fetch(`${t.url}/${project.path_with_namespace}/info/refs?service=git-upload-pack`, { headers: { Authorization: basic(owner.token) } });
    expect(v0.status).toBe(200);
    expect(v0.headers.get('content-type')).toBe('application/x-git-upload-pack-advertisement');
    expect(v0.headers.get('cache-control')).toBe('no-cache, max-age=0, must-revalidate');
    expect((await v0.text()).startsWith('001e# service=git-upload-pack\n0000')).toBe(true);
  });

  it('clones a public project anonymously; a private one answers 401 with a Basic challenge, 404 to a non-member', async () => {
    const publicProject = await createProject(t, owner.token, { visibility: 'public' });
    await git.ok(git.root, ['clone', '--quiet', cloneUrl(t.url, publicProject.path_with_namespace), join(git.folder(), 'anon')]);
    const internal = await createProject(t, owner.token, { visibility: 'internal' });
    const anonymousInternal = await fetch(`${t.url}/${internal.path_with_namespace}.git/info/refs?service=git-upload-pack`);
    expect(anonymousInternal.status).toBe(401);

    const privateRefs = `${t.url}/${project.path_with_namespace}.git/info/refs?service=git-upload-pack`;
    const anonymous = await fetch(privateRefs);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toBe('Basic realm="GitLab"');
    expect(await anonymous.text()).toMatch(/^HTTP Basic: Access denied/);
    const cloned = await git.run(git.root, ['clone', cloneUrl(t.url, project.path_with_namespace), join(git.folder(), 'denied')]);
    expect(cloned.code).not.toBe(0);
    expect(cloned.stderr).toMatch(/could not read Username|Authentication failed/);

    const stranger = await createUser(t);
    const hidden = await fetch(privateRefs, { headers: { Authorization: basic(stranger.token) } });
    expect(hidden.status).toBe(404);
    expect(await hidden.text()).toBe("The project you were looking for could not be found or you don't have permission to view it.\n");
    const missing = await fetch(`${t.url}/nobody/nothing.git/info/refs?service=git-upload-pack`, { headers: { Authorization: basic(stranger.token) } });
    expect(missing.status).toBe(404);
  });

  it('refuses a wrong token, a revoked one and malformed credentials with 401', async () => {
    const wrong = await git.run(git.root, ['clone', cloneUrl(t.url, project.path_with_namespace, 'glpat-wrong'), join(git.folder(), 'wrong')]);
    expect(wrong.code).not.toBe(0);
    expect(wrong.stderr).toMatch(/Authentication failed|401/);
    const user = await createUser(t);
    await addMember(t, owner.token, 'projects', project.id, user.id, 20);
    const refs = `${t.url}/${project.path_with_namespace}.git/info/refs?service=git-upload-pack`;
    expect((await fetch(refs, { headers: { Authorization: basic(user.token, user.username) } })).status).toBe(200);
    const self = await t.api('GET', '/personal_access_tokens/self', { token: user.token });
    expect((await t.api('DELETE', `/personal_access_tokens/${self.body.id}`)).status).toBe(204);
    const revoked = await fetch(refs, { headers: { Authorization: basic(user.token) } });
    expect(revoked.status).toBe(401);
    expect(revoked.headers.get('www-authenticate')).toBe('Basic realm="GitLab"');
    expect((await fetch(refs, { headers: { Authorization: 'Basic !!!' } })).status).toBe(401);
  });

  it('lets a read_repository token clone but not push; a Reporter clones but cannot push', async () => {
    const reader = await createUser(t, { scopes: ['read_repository'] });
    await addMember(t, owner.token, 'projects', project.id, reader.id, 40);
    const readerUrl = cloneUrl(t.url, project.path_with_namespace, reader.token);
    const dir = await cloneAndCommit(readerUrl, { 'r.txt': 'r\n' });
    const push = await git.run(dir, ['push', 'origin', 'HEAD:reader-branch']);
    expect(push.code).not.toBe(0);
    const refused = await fetch(`${t.url}/${project.path_with_namespace}.git/info/refs?service=git-receive-pack`, { headers: { Authorization: basic(reader.token) } });
    expect(refused.status).toBe(403);
    expect(await refused.text()).toBe('You are not allowed to upload code.\n');

    const reporter = await createUser(t);
    await addMember(t, owner.token, 'projects', project.id, reporter.id, 20);
    const reporterDir = await cloneAndCommit(cloneUrl(t.url, project.path_with_namespace, reporter.token), { 'x.txt': 'x\n' });
    const reporterPush = await git.run(reporterDir, ['push', 'origin', 'HEAD:reporter-branch']);
    expect(reporterPush.code).not.toBe(0);
    const forbidden = await fetch(`${t.url}/${project.path_with_namespace}.git/info/refs?service=git-receive-pack`, { headers: { Authorization: basic(reporter.token) } });
    expect(forbidden.status).toBe(403);
    expect(await forbidden.text()).toBe('You are not allowed to push code to this project.\n');
    const anonymousPush = await fetch(`${t.url}/${project.path_with_namespace}.git/info/refs?service=git-receive-pack`);
    expect(anonymousPush.status).toBe(401);
  });

  it('takes a gzip request body, and answers bad input with 4xx, never a 500', async () => {
    const headers = { Authorization: basic(owner.token), 'Content-Type': 'application/x-git-upload-pack-request' };
    const base = `${t.url}/${project.path_with_namespace}.git`;
    const head = (await git.ok(git.root, ['ls-remote', cloneUrl(t.url, project.path_with_namespace, owner.token), 'refs/heads/main'])).slice(0, 40);
    const want = `0032want ${head}\n00000009done\n`;
    const gz = await fetch(`${base}/git-upload-pack`, { method: 'POST', headers: { ...headers, 'Content-Encoding': 'gzip' }, body: gzipSync(want) });
    expect(gz.status).toBe(200);
    expect(gz.headers.get('content-type')).toBe('application/x-git-upload-pack-result');
    expect(Buffer.from(await gz.arrayBuffer()).includes('PACK')).toBe(true);

    const broken = await fetch(`${base}/git-upload-pack`, { method: 'POST', headers, body: 'zzzz-not-a-pkt-line' });
    expect(broken.status).toBe(400);
    const badGzip = await fetch(`${base}/git-upload-pack`, { method: 'POST', headers: { ...headers, 'Content-Encoding': 'gzip' }, body: 'not gzip' });
    expect(badGzip.status).toBeLessThan(500);
    expect((await fetch(`${base}/git-upload-pack`, { method: 'POST', headers: { ...headers, 'Content-Type': 'text/plain' }, body: want })).status).toBe(415);
    expect((await fetch(`${base}/git-upload-pack`, { method: 'POST', headers: { ...headers, 'Content-Encoding': 'br' }, body: want })).status).toBe(415);
    expect((await fetch(`${base}/info/refs?service=git-evil`, { headers })).status).toBe(403);
    expect((await fetch(`${base}/info/refs?service[]=git-upload-pack`, { headers })).status).toBe(403);
    expect((await fetch(`${t.url}/a/%2e%2e/b.git/info/refs?service=git-upload-pack`, { headers })).status).toBe(404);
    expect((await fetch(`${t.url}/a/b%00c.git/info/refs?service=git-upload-pack`, { headers })).status).toBe(404);
    expect((await fetch(`${t.url}/a/%zz.git/info/refs?service=git-upload-pack`, { headers })).status).toBe(400);
    expect((await fetch(`${base}/info/refs?service=git-upload-pack`, { headers: { ...headers, 'Git-Protocol': 'version=2%' } })).status).toBe(200);
    expect((await fetch(`${base}/info/refs?service=git-upload-pack`, { headers: { Authorization: `Basic ${Buffer.from('x'.repeat(5000)).toString('base64')}` } })).status).toBe(401);
  });

  it('survives a client that goes away mid-request, and serves the next one', async () => {
    const controller = new AbortController();
    const body = new ReadableStream({
      start(stream) {
        stream.enqueue(new TextEncoder().encode('0032want '));
      },
    });
    const request = fetch(`${t.url}/${project.path_with_namespace}.git/git-upload-pack`, {
      method: 'POST',
      headers: { Authorization: basic(owner.token), 'Content-Type': 'application/x-git-upload-pack-request' },
      body,
      signal: controller.signal,
      duplex: 'half',
    } as RequestInit);
    // The request has reached git when it waits for the rest of the body; nothing tells the client that.
    await new Promise((resolve) => setTimeout(resolve, 200));
    controller.abort();
    await expect(request).rejects.toThrow();
    const next = await fetch(`${t.url}/${project.path_with_namespace}.git/info/refs?service=git-upload-pack`, { headers: { Authorization: basic(owner.token) } });
    expect(next.status).toBe(200);
  });
});
