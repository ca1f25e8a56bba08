/**
 * Repository storage moves against the real server with two storages: a project's repository copied with git to
 * the other storage while clones and API reads go on, held mid-way (through the module's test hold) to see it
 * read-only for pushes and API writes, then switched, verified with `git fsck`, its source removed; bulk moves of
 * a whole storage, group wiki moves, GitLab's errors and who may do any of it, and gitbeaker.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Gitlab } from '@gitbeaker/rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { groupWikiPath, hashedPath } from '../../src/git/storages.js';
import { holdStorageMoves, runMove, type MovePoint } from '../../src/modules/repository_storage_moves/mover.js';
import { MOVE_UPDATED, type MoveMessage, type MoveType } from '../../src/modules/repository_storage_moves/service.js';
import { addMember, createGroup, createProject, createUser, type TestUser } from '../support/factories.js';
import { cloneUrl, gitSandbox } from '../support/git.js';
import { suiteServer } from '../support/server.js';

const folders = { default: mkdtempSync(join(tmpdir(), 'moves-default-')), other: mkdtempSync(join(tmpdir(), 'moves-other-')) };
afterAll(() => Object.values(folders).forEach((f) => rmSync(f, { recursive: true, force: true })));

/** New repositories go to `default`; `other` takes none unless a move puts them there. */
const t = suiteServer({
  repositoryStorages: [
    { name: 'default', path: folders.default, weight: 100 },
    { name: 'other', path: folders.other, weight: 0 },
  ],
});
const git = gitSandbox();
/** Real git runs, many of them: on a busy machine these take their time. */
const SLOW = 240_000;
const READ_ONLY = 'The repository is temporarily read-only. Please try again later.';

function gitDir(path: string, args: string[]): string {
  return execFileSync('git', args, { env: { PATH: process.env.PATH, GIT_DIR: path, GIT_CONFIG_NOSYSTEM: '1', HOME: path } }).toString();
}

/** A promise with its resolve, for holding a move. */
function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** State changes heard on the bus, so a test waits for a move's end without polling or sleeping. */
const heard: MoveMessage[] = [];
const waiters: { match: (m: MoveMessage) => boolean; resolve: () => void }[] = [];
let unsubscribe: (() => void) | undefined;
beforeAll(() => {
  unsubscribe = t.server.app.bus.subscribe(MOVE_UPDATED, (payload) => {
    const message = payload as MoveMessage;
    heard.push(message);
    for (const w of waiters.splice(0)) if (w.match(message)) w.resolve();
    else waiters.push(w);
  });
});
afterAll(() => unsubscribe?.());

/** Resolves once a move of `type` and `id` has been heard reaching one of `states`. */
function reached(type: MoveType, id: number, states: string[] = ['finished', 'failed', 'cleanup_failed']): Promise<void> {
  const match = (m: MoveMessage) => m.type === type && m.id === id && states.includes(m.state);
  if (heard.some(match)) return Promise.resolve();
  return new Promise((resolve) => waiters.push({ match, resolve }));
}

/** A project of root's with two branches and a tag pushed over git; returns it with its refs. */
async function projectWithHistory(): Promise<{ project: any; refs: string }> {
  const project = await createProject(t, t.rootToken);
  const url = cloneUrl(t.url, project.path_with_namespace, t.rootToken);
  const dir = join(git.folder(), 'clone');
  await git.ok(git.root, ['clone', '--quiet', url, dir]);
  for (let i = 0; i < 3; i++) {
    writeFileSync(join(dir, `file-${i}.txt`), `content ${i}\n`.repeat(50));
    await git.ok(dir, ['add', '.']);
    await git.ok(dir, ['commit', '--quiet', '-m', `Commit ${i}`]);
  }
  await git.ok(dir, ['tag', '-a', 'v1', '-m', 'Version 1']);
  await git.ok(dir, ['push', '--quiet', 'origin', 'HEAD:main', 'HEAD~1:refs/heads/feature', 'v1']);
  const refs = (await git.ok(dir, ['ls-remote', 'origin'])).split('\n').filter((l) => l.includes('refs/')).sort().join('\n');
  return { project, refs };
}

/** One round of reads: a full clone and API reads of commits, a file and branches; throws on any failure. */
async function readAll(project: any, expectedRefs: string): Promise<void> {
  const dir = join(git.folder(), 'reader');
  await git.ok(git.root, ['clone', '--quiet', '--mirror', cloneUrl(t.url, project.path_with_namespace, t.rootToken), dir]);
  const refs = (await git.ok(dir, ['for-each-ref', '--format=%(objectname)\t%(refname)'])).split('\n').filter(Boolean).sort().join('\n');
  const expected = expectedRefs.split('\n').filter((l) => !l.endsWith('^{}')).sort().join('\n');
  if (refs !== expected) throw new Error(`clone saw refs\n${refs}\nexpected\n${expected}`);
  rmSync(dir, { recursive: true, force: true });
  for (const path of ['/repository/commits?ref_name=main', '/repository/files/file-1.txt?ref=main', '/repository/branches']) {
    const res = await t.api('GET', `/projects/${project.id}${path}`);
    if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${res.text}`);
  }
}

describe('moving a project repository', () => {
  it('copies it with git while reads go on, read-only until switched, then removes the source', async () => {
    const { project, refs } = await projectWithHistory();
    const source = join(folders.default, hashedPath(project.id));
    const destination = join(folders.other, hashedPath(project.id));
    expect(existsSync(join(source, 'HEAD'))).toBe(true);
    expect(existsSync(destination)).toBe(false);

    // Held at each point until the test lets it go on.
    const arrived = { started: deferred(), replicated: deferred() };
    const release = { started: deferred(), replicated: deferred() };
    const remove = holdStorageMoves(t.server.app, async (point: MovePoint, type, move) => {
      if (type !== 'project' || move.projectId !== project.id) return;
      arrived[point].resolve();
      await release[point].promise;
    });

    // Reads run all along, one round after another, until the move has finished.
    let reading = true;
    let rounds = 0;
    const readers = (async () => {
      while (reading) {
        await readAll(project, refs);
        rounds++;
      }
    })();

    try {
      const scheduled = await t.api('POST', `/projects/${project.id}/repository_storage_moves`, { body: { destination_storage_name: 'other' } });
      expect(scheduled.status, scheduled.text).toBe(201);
      expect(Object.keys(scheduled.body)).toEqual(['id', 'created_at', 'state', 'source_storage_name', 'destination_storage_name', 'project']);
      expect(scheduled.body).toMatchObject({ state: 'scheduled', source_storage_name: 'default', destination_storage_name: 'other' });
      expect(scheduled.body.project).toEqual({
        id: project.id,
        description: project.description,
        name: project.name,
        name_with_namespace: project.name_with_namespace,
        path: project.path,
        path_with_namespace: project.path_with_namespace,
        created_at: project.created_at,
      });
      const id = scheduled.body.id;

      await arrived.started.promise;
      expect((await t.api('GET', `/project_repository_storage_moves/${id}`)).body.state).toBe('started');
      // Reads work; every write is refused, in GitLab's words.
      await readAll(project, refs);
      const push = await pushFrom(project);
      expect(push.code).not.toBe(0);
      expect(push.stderr).toContain(READ_ONLY);
      const branch = await t.api('POST', `/projects/${project.id}/repository/branches`, { body: { branch: 'during-move', ref: 'main' } });
      expect(branch.status).toBe(403);
      expect(branch.body.message).toContain(READ_ONLY);
      const commit = await t.api('POST', `/projects/${project.id}/repository/commits`, {
        body: { branch: 'main', commit_message: 'During the move', actions: [{ action: 'create', file_path: 'during.txt', content: 'no' }] },
      });
      expect(commit.status).toBe(403);
      expect(commit.body.message).toContain(READ_ONLY);
      const file = await t.api('POST', `/projects/${project.id}/repository/files/new.txt`, { body: { branch: 'main', content: 'x', commit_message: 'x' } });
      expect(file.status).toBe(403);
      const tag = await t.api('POST', `/projects/${project.id}/repository/tags`, { body: { tag_name: 'v2', ref: 'main' } });
      expect(tag.status).toBe(403);
      // A second move of a repository being moved is refused.
      const again = await t.api('POST', `/projects/${project.id}/repository_storage_moves`, { body: { destination_storage_name: 'other' } });
      expect(again.status).toBe(400);
      expect(again.body).toEqual({ message: { project: ['is read-only'] } });
      expect(existsSync(destination)).toBe(false);
      release.started.resolve();

      await arrived.replicated.promise;
      // Switched: the project uses the copy, writable again; the source is still there.
      expect((await t.api('GET', `/projects/${project.id}/repository_storage_moves/${id}`)).body.state).toBe('replicated');
      expect((await t.api('GET', `/projects/${project.id}`)).body.repository_storage).toBe('other');
      expect(existsSync(join(source, 'HEAD'))).toBe(true);
      await readAll(project, refs);
      release.replicated.resolve();

      await reached('project', id);
      reading = false;
      await readers;
      expect(rounds).toBeGreaterThan(0);
      const finished = await t.api('GET', `/project_repository_storage_moves/${id}`);
      expect(finished.body.state).toBe('finished');
      expect(heard.filter((m) => m.type === 'project' && m.id === id).map((m) => m.state)).toEqual(['scheduled', 'started', 'replicated', 'finished']);

      // The copy: sound, the same refs, the source gone.
      expect(existsSync(source)).toBe(false);
      expect(gitDir(destination, ['fsck', '--full', '--no-dangling', '--no-progress'])).toBe('');
      const copied = gitDir(destination, ['for-each-ref', '--format=%(objectname)\t%(refname)']).split('\n').filter(Boolean).sort().join('\n');
      expect(copied).toBe(refs.split('\n').filter((l) => !l.endsWith('^{}')).sort().join('\n'));
      expect(gitDir(destination, ['symbolic-ref', 'HEAD']).trim()).toBe('refs/heads/main');
      await readAll(project, refs);

      // Writable on its new storage: a push lands there.
      const after = await pushFrom(project);
      expect(after.code, after.stderr).toBe(0);
      expect(gitDir(destination, ['rev-parse', 'refs/heads/after-move']).trim()).toMatch(/^[0-9a-f]{40}$/);
      expect(existsSync(source)).toBe(false);

      const onDefault = await t.api('GET', '/projects?repository_storage=default&per_page=100');
      expect(onDefault.body.map((p: any) => p.id)).not.toContain(project.id);
      const onOther = await t.api('GET', '/projects?repository_storage=other&per_page=100');
      expect(onOther.body.map((p: any) => p.id)).toContain(project.id);
    } finally {
      reading = false;
      release.started.resolve();
      release.replicated.resolve();
      remove();
      await readers.catch(() => undefined);
    }
    await readers;
  }, SLOW);
});

/** Pushes a new branch `after-move` from a fresh clone; git's exit code and what it said. */
async function pushFrom(project: any) {
  const dir = join(git.folder(), 'pusher');
  await git.ok(git.root, ['clone', '--quiet', cloneUrl(t.url, project.path_with_namespace, t.rootToken), dir]);
  writeFileSync(join(dir, 'pushed.txt'), 'pushed\n');
  await git.ok(dir, ['add', '.']);
  await git.ok(dir, ['commit', '--quiet', '-m', 'Pushed']);
  return git.run(dir, ['push', 'origin', 'HEAD:refs/heads/after-move']);
}

describe('a move interrupted mid-way', () => {
  it('is carried on from where it stood when its job runs again, and runs once only', async () => {
    const { project, refs } = await projectWithHistory();
    const source = join(folders.default, hashedPath(project.id));
    const destination = join(folders.other, hashedPath(project.id));
    // The first run dies after a partial copy: the destination has one branch, and one the source never had.
    let crashed = false;
    const crash = deferred();
    const remove = holdStorageMoves(t.server.app, async (point, type, move) => {
      if (type !== 'project' || move.projectId !== project.id || point !== 'started' || crashed) return;
      crashed = true;
      execFileSync('git', ['init', '--quiet', '--bare', destination]);
      gitDir(destination, ['fetch', '--quiet', source, 'refs/heads/feature:refs/heads/feature']);
      gitDir(destination, ['update-ref', 'refs/heads/stale', gitDir(destination, ['rev-parse', 'refs/heads/feature']).trim()]);
      crash.resolve();
      throw new Error('simulated crash');
    });
    try {
      const scheduled = await t.api('POST', `/projects/${project.id}/repository_storage_moves`, { body: { destination_storage_name: 'other' } });
      expect(scheduled.status).toBe(201);
      await crash.promise;
      // Still started, and read-only, until the job runs again.
      const id = scheduled.body.id;
      expect((await t.api('GET', `/project_repository_storage_moves/${id}`)).body.state).toBe('started');
      const push = await pushFrom(project);
      expect(push.stderr).toContain(READ_ONLY);

      // The queue's second run (a lapsed lease, or the retry of a failed attempt), here run at once.
      await runMove(t.server.app, t.server.app.db, 'project', id);
      expect((await t.api('GET', `/project_repository_storage_moves/${id}`)).body.state).toBe('finished');
      expect(existsSync(source)).toBe(false);
      expect(gitDir(destination, ['fsck', '--full', '--no-dangling', '--no-progress'])).toBe('');
      const copied = gitDir(destination, ['for-each-ref', '--format=%(objectname)\t%(refname)']).split('\n').filter(Boolean).sort().join('\n');
      expect(copied).toBe(refs.split('\n').filter((l) => !l.endsWith('^{}')).sort().join('\n'));
      await readAll(project, refs);

      // A third run of a finished move changes nothing.
      const states = heard.filter((m) => m.type === 'project' && m.id === id).map((m) => m.state);
      await runMove(t.server.app, t.server.app.db, 'project', id);
      expect(heard.filter((m) => m.type === 'project' && m.id === id).map((m) => m.state)).toEqual(states);
      expect(states).toEqual(['scheduled', 'started', 'replicated', 'finished']);
      expect(existsSync(join(destination, 'HEAD'))).toBe(true);
    } finally {
      remove();
    }
  }, SLOW);
});

describe('bulk moves', () => {
  it('moves every project repository on a storage, leaving none on it', async () => {
    const projects = await Promise.all([projectWithHistory(), projectWithHistory(), projectWithHistory()]);
    const onDefault = (await t.api('GET', '/projects?repository_storage=default&per_page=100')).body.map((p: any) => p.id);
    expect(onDefault).toEqual(expect.arrayContaining(projects.map((p) => p.project.id)));
    const before = new Set(heard.filter((m) => m.type === 'project').map((m) => m.id));
    const finishedAll = new Promise<void>((resolve) => {
      const check = () => {
        const done = new Set(heard.filter((m) => m.type === 'project' && !before.has(m.id) && m.state === 'finished').map((m) => m.id));
        if (done.size >= onDefault.length) resolve();
        else waiters.push({ match: () => true, resolve: check });
      };
      check();
    });

    const res = await t.api('POST', '/project_repository_storage_moves', { body: { source_storage_name: 'default', destination_storage_name: 'other' } });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ message: '202 Accepted' });
    await finishedAll;

    expect((await t.api('GET', '/projects?repository_storage=default')).body).toEqual([]);
    for (const { project, refs } of projects) {
      expect(existsSync(join(folders.default, hashedPath(project.id)))).toBe(false);
      expect(gitDir(join(folders.other, hashedPath(project.id)), ['fsck', '--full', '--no-dangling', '--no-progress'])).toBe('');
      await readAll(project, refs);
      const moves = await t.api('GET', `/projects/${project.id}/repository_storage_moves`);
      expect(moves.status).toBe(200);
      expect(moves.body).toHaveLength(1);
      expect(moves.body[0]).toMatchObject({ state: 'finished', source_storage_name: 'default', destination_storage_name: 'other', project: { id: project.id } });
    }
    const all = await t.api('GET', '/project_repository_storage_moves?per_page=100');
    expect(all.status).toBe(200);
    expect(all.headers.get('x-total')).toBe(String(all.body.length));
    // Newest first.
    const ids = all.body.map((m: any) => m.id);
    expect(ids).toEqual([...ids].sort((a: number, b: number) => b - a));
  }, SLOW);
});

describe('group wiki moves', () => {
  it('gives each new group a wiki repository and moves it', async () => {
    const group = await createGroup(t, t.rootToken);
    const wiki = (storage: 'default' | 'other') => join(folders[storage], groupWikiPath(group.id));
    expect(existsSync(join(wiki('default'), 'HEAD'))).toBe(true);
    expect(gitDir(wiki('default'), ['rev-parse', '--is-bare-repository']).trim()).toBe('true');

    const scheduled = await t.api('POST', `/groups/${group.id}/repository_storage_moves`, { body: { destination_storage_name: 'other' } });
    expect(scheduled.status, scheduled.text).toBe(201);
    expect(Object.keys(scheduled.body)).toEqual(['id', 'created_at', 'state', 'source_storage_name', 'destination_storage_name', 'group']);
    expect(scheduled.body).toMatchObject({ state: 'scheduled', source_storage_name: 'default', destination_storage_name: 'other' });
    expect(scheduled.body.group).toEqual({ id: group.id, web_url: group.web_url, name: group.name });
    await reached('group', scheduled.body.id);

    expect((await t.api('GET', `/group_repository_storage_moves/${scheduled.body.id}`)).body.state).toBe('finished');
    expect((await t.api('GET', `/groups/${group.id}/repository_storage_moves/${scheduled.body.id}`)).body.state).toBe('finished');
    expect((await t.api('GET', `/groups/${group.id}/repository_storage_moves`)).body.map((m: any) => m.id)).toEqual([scheduled.body.id]);
    expect(existsSync(wiki('default'))).toBe(false);
    expect(gitDir(wiki('other'), ['fsck', '--full', '--no-dangling', '--no-progress'])).toBe('');

    // Back again, in bulk: every group wiki on `other`.
    const bulk = await t.api('POST', '/group_repository_storage_moves', { body: { source_storage_name: 'other', destination_storage_name: 'default' } });
    expect(bulk.status).toBe(202);
    const back = await new Promise<number>((resolve) => {
      const check = () => {
        const move = heard.find((m) => m.type === 'group' && m.id !== scheduled.body.id && m.state === 'finished');
        if (move) resolve(move.id);
        else waiters.push({ match: () => true, resolve: check });
      };
      check();
    });
    const moveBack = await t.api('GET', `/group_repository_storage_moves/${back}`);
    expect(moveBack.body).toMatchObject({ state: 'finished', source_storage_name: 'other', destination_storage_name: 'default', group: { id: group.id } });
    expect(existsSync(join(wiki('default'), 'HEAD'))).toBe(true);
    expect(existsSync(wiki('other'))).toBe(false);
  }, SLOW);
});

describe('errors', () => {
  let user: TestUser;
  let visible: any;
  let hidden: any;
  beforeAll(async () => {
    user = await createUser(t);
    visible = await createProject(t, t.rootToken);
    await addMember(t, t.rootToken, 'projects', visible.id, user.id, 50);
    hidden = await createProject(t, t.rootToken);
  });

  it('refuses storages that are not configured or the one the repository is on, in GitLab words', async () => {
    const unknown = await t.api('POST', `/projects/${visible.id}/repository_storage_moves`, { body: { destination_storage_name: 'nope' } });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toEqual({ message: { destination_storage_name: ['is not included in the list'] } });
    const same = await t.api('POST', `/projects/${visible.id}/repository_storage_moves`, { body: { destination_storage_name: 'default' } });
    expect(same.status).toBe(400);
    expect(same.body).toEqual({ message: { destination_storage_name: ['must be different from the source storage'] } });
    // Nothing was scheduled, and the repository is still writable.
    expect((await t.api('GET', `/projects/${visible.id}/repository_storage_moves`)).body).toEqual([]);
    const branch = await t.api('POST', `/projects/${visible.id}/repository/branches`, { body: { branch: 'still-writable', ref: 'main' } });
    expect(branch.status).not.toBe(403);

    for (const kind of ['project', 'group']) {
      const missing = await t.api('POST', `/${kind}_repository_storage_moves`, { body: {} });
      expect(missing.status).toBe(400);
      expect(missing.body).toEqual({ error: 'source_storage_name is missing' });
      const badSource = await t.api('POST', `/${kind}_repository_storage_moves`, { body: { source_storage_name: 'nope' } });
      expect(badSource.status).toBe(400);
      expect(badSource.body).toEqual({ error: 'source_storage_name does not have a valid value' });
      const badDestination = await t.api('POST', `/${kind}_repository_storage_moves`, { body: { source_storage_name: 'default', destination_storage_name: 'nope' } });
      expect(badDestination.status).toBe(400);
      expect(badDestination.body).toEqual({ error: 'destination_storage_name does not have a valid value' });
    }
    expect(await t.api('GET', '/project_repository_storage_moves/2147483000')).toMatchObject({ status: 404, body: { message: '404 Not found' } });
    expect(await t.api('GET', '/group_repository_storage_moves/2147483000')).toMatchObject({ status: 404, body: { message: '404 Not found' } });
    expect(await t.api('GET', `/projects/${visible.id}/repository_storage_moves/2147483000`)).toMatchObject({ status: 404, body: { message: '404 Not found' } });
  });

  it('is for administrators only: 403 for others and 401 anonymously, before the project is looked up', async () => {
    const routes: [string, string, unknown?][] = [
      ['GET', '/project_repository_storage_moves'],
      ['GET', '/project_repository_storage_moves/1'],
      ['POST', '/project_repository_storage_moves', { source_storage_name: 'default' }],
      ['GET', '/group_repository_storage_moves'],
      ['POST', '/group_repository_storage_moves', { source_storage_name: 'default' }],
      ['GET', `/projects/${visible.id}/repository_storage_moves`],
      ['GET', `/projects/${hidden.id}/repository_storage_moves`],
      ['POST', `/projects/${visible.id}/repository_storage_moves`, { destination_storage_name: 'other' }],
      ['POST', `/projects/${hidden.id}/repository_storage_moves`, { destination_storage_name: 'other' }],
      ['GET', `/groups/1/repository_storage_moves`],
    ];
    for (const [method, path, body] of routes) {
      const res = await t.api(method, path, { token: user.token, body });
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.body).toEqual({ message: '403 Forbidden' });
      expect((await t.api(method, path, { token: null, body })).status, `${method} ${path} anonymously`).toBe(401);
    }
    // GitLab's authenticated_as_admin! comes before the project's lookup: a project they cannot see is no different.
    for (const id of [hidden.id, 2147483000]) {
      expect((await t.api('POST', `/projects/${id}/repository_storage_moves`, { token: user.token, body: { destination_storage_name: 'other' } })).status).toBe(403);
      expect((await t.api('GET', `/projects/${id}/repository_storage_moves`, { token: user.token })).status).toBe(403);
    }
    expect(await t.api('GET', '/projects/2147483000/repository_storage_moves')).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
    expect(await t.api('GET', '/groups/2147483000/repository_storage_moves')).toMatchObject({ status: 404, body: { message: '404 Group Not Found' } });
    // Nothing happened: the owner's project was not made read-only.
    expect((await t.api('GET', `/projects/${visible.id}/repository_storage_moves`)).body).toEqual([]);
  });
});

describe('gitbeaker', () => {
  it('schedules and reads project and group moves', async () => {
    const api = new Gitlab({ host: t.url, token: t.rootToken });
    const project = await createProject(t, t.rootToken);
    const source = (await t.api('GET', `/projects/${project.id}`)).body.repository_storage;
    const destination = source === 'default' ? 'other' : 'default';
    const move = await api.ProjectRepositoryStorageMoves.schedule(source, { projectId: project.id, destinationStorageName: destination });
    expect(move).toMatchObject({ state: 'scheduled', source_storage_name: source, destination_storage_name: destination, project: { id: project.id } });
    await reached('project', move.id as number);
    expect(await api.ProjectRepositoryStorageMoves.show(move.id as number)).toMatchObject({ id: move.id, state: 'finished' });
    expect(await api.ProjectRepositoryStorageMoves.show(move.id as number, { projectId: project.id })).toMatchObject({ id: move.id, state: 'finished' });
    expect((await api.ProjectRepositoryStorageMoves.all({ projectId: project.id })).map((m) => m.id)).toEqual([move.id]);
    expect((await api.ProjectRepositoryStorageMoves.all()).map((m) => m.id)).toContain(move.id);

    const group = await createGroup(t, t.rootToken);
    const groupMove = await api.GroupRepositoryStorageMoves.schedule('default', { groupId: group.id, destinationStorageName: 'other' } as any);
    expect(groupMove).toMatchObject({ state: 'scheduled', group: { id: group.id } });
    await reached('group', groupMove.id as number);
    expect(await api.GroupRepositoryStorageMoves.show(groupMove.id as number)).toMatchObject({ state: 'finished' });
    expect((await api.GroupRepositoryStorageMoves.all({ groupId: group.id } as any)).map((m) => m.id)).toEqual([groupMove.id]);
  }, SLOW);
});
