/**
 * Snippet repository storage moves against the real server with two storages: a snippet's repository copied with git
 * to the other storage, held mid-way to see it read-only for API updates and git pushes, switched, its source
 * removed, then cloned with git from its new storage; bulk moves, GitLab's entity and errors, administrators only.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { holdStorageMoves, type MovePoint } from '../../src/modules/repository_storage_moves/mover.js';
import { MOVE_UPDATED, type MoveMessage, type MoveType } from '../../src/modules/repository_storage_moves/service.js';
import { snippetDiskPath } from '../../src/modules/snippets/service.js';
import { createProject, createUser, type TestUser } from '../support/factories.js';
import { cloneUrl, gitSandbox } from '../support/git.js';
import { EXTERNAL_URL, suiteServer } from '../support/server.js';

const folders = { default: mkdtempSync(join(tmpdir(), 'snippet-moves-default-')), other: mkdtempSync(join(tmpdir(), 'snippet-moves-other-')) };
afterAll(() => Object.values(folders).forEach((f) => rmSync(f, { recursive: true, force: true })));

const t = suiteServer({
  repositoryStorages: [
    { name: 'default', path: folders.default, weight: 100 },
    { name: 'other', path: folders.other, weight: 0 },
  ],
});
const git = gitSandbox();
const SLOW = 240_000;
const READ_ONLY = 'The repository is temporarily read-only. Please try again later.';

function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

const heard: MoveMessage[] = [];
const waiters: { match: (m: MoveMessage) => boolean; resolve: () => void }[] = [];
let unsubscribe: (() => void) | undefined;
let author: TestUser;
let other: TestUser;
beforeAll(async () => {
  unsubscribe = t.server.app.bus.subscribe(MOVE_UPDATED, (payload) => {
    const message = payload as MoveMessage;
    heard.push(message);
    for (const w of waiters.splice(0)) if (w.match(message)) w.resolve();
    else waiters.push(w);
  });
  [author, other] = await Promise.all([createUser(t), createUser(t)]);
});
afterAll(() => unsubscribe?.());

function reached(type: MoveType, id: number, states: string[] = ['finished', 'failed', 'cleanup_failed']): Promise<void> {
  const match = (m: MoveMessage) => m.type === type && m.id === id && states.includes(m.state);
  if (heard.some(match)) return Promise.resolve();
  return new Promise((resolve) => waiters.push({ match, resolve }));
}

async function newSnippet(path = '/snippets'): Promise<any> {
  const res = await t.api('POST', path, { token: author.token, body: { title: 'moving', visibility: 'private', files: [{ file_path: 'a.txt', content: 'one\n' }, { file_path: 'dir/b.md', content: '# b\n' }] } });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

/** A clone of the snippet by its author; returns the clone's folder. */
async function clone(s: any, fullPath = `snippets/${s.id}`): Promise<string> {
  const dir = join(git.folder(), 'clone');
  await git.ok(git.root, ['clone', '--quiet', cloneUrl(t.url, fullPath, author.token), dir]);
  return dir;
}

describe('moving a snippet repository', () => {
  it(
    'copies it with git, refuses updates and pushes while it moves, switches, removes the source; a clone shows it',
    async () => {
      const s = await newSnippet();
      // A second commit, so the copy carries history.
      expect((await t.api('PUT', `/snippets/${s.id}`, { token: author.token, body: { files: [{ action: 'update', file_path: 'a.txt', content: 'two\n' }] } })).status).toBe(200);
      const source = join(folders.default, snippetDiskPath(s.id));
      const destination = join(folders.other, snippetDiskPath(s.id));
      expect(existsSync(join(source, 'HEAD'))).toBe(true);
      const history = execFileSync('git', ['--git-dir', source, 'log', '--format=%H %s', 'main']).toString();

      const arrived = { started: deferred(), replicated: deferred() };
      const release = { started: deferred(), replicated: deferred() };
      const remove = holdStorageMoves(t.server.app, async (point: MovePoint, type, move) => {
        if (type !== 'snippet' || move.snippetId !== s.id) return;
        arrived[point].resolve();
        await release[point].promise;
      });
      const work = await clone(s);
      try {
        // Administrators only, before anything is looked up.
        expect(await t.api('POST', `/snippets/${s.id}/repository_storage_moves`, { token: author.token, body: { destination_storage_name: 'other' } })).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
        const scheduled = await t.api('POST', `/snippets/${s.id}/repository_storage_moves`, { body: { destination_storage_name: 'other' } });
        expect(scheduled.status, scheduled.text).toBe(201);
        expect(Object.keys(scheduled.body)).toEqual(['id', 'created_at', 'state', 'source_storage_name', 'destination_storage_name', 'snippet']);
        expect(scheduled.body).toMatchObject({ state: 'scheduled', source_storage_name: 'default', destination_storage_name: 'other' });
        expect(scheduled.body.snippet).toMatchObject({
          id: s.id,
          title: 'moving',
          visibility: 'private',
          project_id: null,
          web_url: `${EXTERNAL_URL}/-/snippets/${s.id}`,
          http_url_to_repo: `${EXTERNAL_URL}/snippets/${s.id}.git`,
        });
        expect(scheduled.body.snippet.author).toMatchObject({ id: author.id });
        const id = scheduled.body.id;

        await arrived.started.promise;
        expect((await t.api('GET', `/snippet_repository_storage_moves/${id}`)).body.state).toBe('started');
        // Reads go on; the API's update and a git push are refused in GitLab's words.
        expect((await t.api('GET', `/snippets/${s.id}/raw`, { token: author.token })).text).toBe('two\n');
        const update = await t.api('PUT', `/snippets/${s.id}`, { token: author.token, body: { title: 'during' } });
        expect(update.status).toBe(403);
        expect(update.body.message).toContain(READ_ONLY);
        writeFileSync(join(work, 'a.txt'), 'pushed\n');
        await git.ok(work, ['commit', '--quiet', '-am', 'during the move']);
        const push = await git.run(work, ['push', 'origin', 'main']);
        expect(push.code).not.toBe(0);
        expect(push.stderr).toContain(READ_ONLY);
        const again = await t.api('POST', `/snippets/${s.id}/repository_storage_moves`, { body: { destination_storage_name: 'other' } });
        expect(again).toMatchObject({ status: 400, body: { message: { snippet: ['is read-only'] } } });
        expect(existsSync(destination)).toBe(false);
        release.started.resolve();

        await arrived.replicated.promise;
        expect((await t.api('GET', `/snippets/${s.id}/repository_storage_moves/${id}`)).body.state).toBe('replicated');
        expect(existsSync(join(source, 'HEAD'))).toBe(true);
        release.replicated.resolve();

        await reached('snippet', id);
        expect((await t.api('GET', `/snippet_repository_storage_moves/${id}`)).body.state).toBe('finished');
        expect(heard.filter((m) => m.type === 'snippet' && m.id === id).map((m) => m.state)).toEqual(['scheduled', 'started', 'replicated', 'finished']);
        expect(existsSync(source)).toBe(false);
        expect(execFileSync('git', ['--git-dir', destination, 'fsck', '--full', '--no-dangling', '--no-progress']).toString()).toBe('');
        expect(execFileSync('git', ['--git-dir', destination, 'log', '--format=%H %s', 'main']).toString()).toBe(history);
        const all = await t.api('GET', '/snippets/all?repository_storage=other&per_page=100');
        expect(all.body.map((x: any) => x.id)).toContain(s.id);

        // A real clone of the moved snippet shows what the API shows; it is writable again, by git and by the API.
        const moved = await clone(s);
        expect((await git.ok(moved, ['log', '--format=%H %s'])).trim()).toBe(history.trim());
        expect((await git.ok(moved, ['show', 'HEAD:a.txt']))).toBe('two\n');
        expect((await git.ok(moved, ['ls-tree', '-r', '--name-only', 'HEAD'])).trim().split('\n')).toEqual(['a.txt', 'dir/b.md']);
        await git.ok(work, ['pull', '--quiet', '--rebase', 'origin', 'main']);
        const after = await git.run(work, ['push', 'origin', 'main']);
        expect(after.code, after.stderr).toBe(0);
        expect((await t.api('GET', `/snippets/${s.id}/raw`, { token: author.token })).text).toBe('pushed\n');
        expect(execFileSync('git', ['--git-dir', destination, 'show', 'main:a.txt']).toString()).toBe('pushed\n');
        expect((await t.api('PUT', `/snippets/${s.id}`, { token: author.token, body: { title: 'after' } })).status).toBe(200);
      } finally {
        remove();
        release.started.resolve();
        release.replicated.resolve();
      }
    },
    SLOW,
  );

  it(
    'moves every snippet of a storage, answers GitLab\'s lists, and refuses others than administrators',
    async () => {
      const project = await createProject(t, author.token, { visibility: 'private' });
      const [personal, inProject] = [await newSnippet(), await newSnippet(`/projects/${project.id}/snippets`)];
      const bulk = await t.api('POST', '/snippet_repository_storage_moves', { body: { source_storage_name: 'default', destination_storage_name: 'other' } });
      expect(bulk.status, bulk.text).toBe(202);
      expect(bulk.body).toEqual({ message: '202 Accepted' });
      const moveOf = async (snippetId: number) => {
        for (;;) {
          const list = await t.api('GET', `/snippets/${snippetId}/repository_storage_moves`);
          if (list.body.length) return list.body[0];
          await new Promise<void>((resolve) => waiters.push({ match: (m) => m.type === 'snippet', resolve }));
        }
      };
      for (const s of [personal, inProject]) {
        const move = await moveOf(s.id);
        await reached('snippet', move.id);
        expect((await t.api('GET', `/snippet_repository_storage_moves/${move.id}`)).body).toMatchObject({ state: 'finished', snippet: { id: s.id } });
      }
      const dir = await clone(inProject, `${project.path_with_namespace}/snippets/${inProject.id}`);
      expect((await git.ok(dir, ['show', 'HEAD:a.txt']))).toBe('one\n');
      expect(existsSync(join(folders.default, snippetDiskPath(inProject.id)))).toBe(false);

      const list = await t.api('GET', '/snippet_repository_storage_moves?per_page=2');
      expect(list.status).toBe(200);
      expect(list.body).toHaveLength(2);
      expect(Number(list.headers.get('x-total'))).toBeGreaterThanOrEqual(2);
      expect(list.body[0].id).toBeGreaterThan(list.body[1].id);

      for (const token of [author.token, other.token]) {
        for (const [method, path] of [
          ['GET', '/snippet_repository_storage_moves'],
          ['GET', `/snippet_repository_storage_moves/${list.body[0].id}`],
          ['POST', '/snippet_repository_storage_moves'],
          ['GET', `/snippets/${personal.id}/repository_storage_moves`],
        ] as const) {
          expect(await t.api(method, path, { token, body: method === 'POST' ? { source_storage_name: 'other' } : undefined })).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
        }
      }
      expect((await t.api('GET', '/snippet_repository_storage_moves', { token: null })).status).toBe(401);
      expect(await t.api('GET', '/snippets/999999999/repository_storage_moves')).toMatchObject({ status: 404, body: { message: '404 Snippet Not Found' } });
      expect(await t.api('GET', `/snippets/${personal.id}/repository_storage_moves/${list.body.find((m: any) => m.snippet.id !== personal.id).id}`)).toMatchObject({ status: 404, body: { message: '404 Not found' } });
      expect(await t.api('GET', '/snippet_repository_storage_moves/2147483000')).toMatchObject({ status: 404, body: { message: '404 Not found' } });
      expect(await t.api('POST', `/snippets/${personal.id}/repository_storage_moves`, { body: { destination_storage_name: 'nowhere' } })).toMatchObject({
        status: 400,
        body: { message: { destination_storage_name: ['is not included in the list'] } },
      });
      expect(await t.api('POST', '/snippet_repository_storage_moves', { body: { source_storage_name: 'nowhere' } })).toMatchObject({ status: 400 });

      // GraphQL: the same moves, with the snippet.
      const gql = await t.graphql(`{ snippetRepositoryStorageMoves(snippetId: "${personal.id}") { nodes { id state humanStateName snippet { id } } } }`, {}, t.rootToken);
      expect(gql.body.data.snippetRepositoryStorageMoves.nodes[0]).toMatchObject({ state: 'FINISHED', humanStateName: 'finished', snippet: { id: `gid://gitlab/PersonalSnippet/${personal.id}` } });
      expect(gql.body.data.snippetRepositoryStorageMoves.nodes[0].id).toMatch(/^gid:\/\/gitlab\/Snippets::RepositoryStorageMove\/\d+$/);
    },
    SLOW,
  );
});
