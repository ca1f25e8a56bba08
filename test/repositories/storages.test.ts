/**
 * Repository storages and the repositories every module shares: REPOSITORY_STORAGES, hashed paths, a bare
 * repository created with its project on a storage picked by weight, and what a ref update records.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { createContext } from '../../src/context.js';
import { hashedPath } from '../../src/git/storages.js';
import { ZERO_SHA } from '../../src/git/repository.js';
import { REPOSITORY_PUSHED, type PushedMessage } from '../../src/modules/repositories/service.js';
import { suiteServer } from '../support/server.js';
import { createProject, createUser } from '../support/factories.js';

const folders = [mkdtempSync(join(tmpdir(), 'storage-a-')), mkdtempSync(join(tmpdir(), 'storage-b-'))];
afterAll(() => folders.forEach((f) => rmSync(f, { recursive: true, force: true })));

/** Every new repository goes to `fast` (weight 100); `default` takes none. */
const t = suiteServer({ repositoryStorages: [{ name: 'default', path: folders[0], weight: 0 }, { name: 'fast', path: folders[1], weight: 100 }] });

/** A commit on top of `parent` (or a root commit) written straight into the bare repository with git plumbing. */
function commit(gitDir: string, message: string, parent?: string): string {
  const env = { ...process.env, GIT_DIR: gitDir, GIT_AUTHOR_NAME: 'A', GIT_AUTHOR_EMAIL: 'a@example.com', GIT_COMMITTER_NAME: 'A', GIT_COMMITTER_EMAIL: 'a@example.com' };
  const tree = execFileSync('git', ['mktree'], { env, input: '' }).toString().trim();
  return execFileSync('git', ['commit-tree', tree, '-m', message, ...(parent ? ['-p', parent] : [])], { env }).toString().trim();
}

describe('REPOSITORY_STORAGES', () => {
  it('reads name=path[:weight] pairs; default takes every new repository unless weighted', () => {
    const config = loadConfig({ REPOSITORY_STORAGES: 'default=/srv/a,fast=/srv/b:30' });
    expect(config.repositoryStorages).toEqual([
      { name: 'default', path: '/srv/a', weight: 100 },
      { name: 'fast', path: '/srv/b', weight: 30 },
    ]);
    expect(loadConfig({}).repositoryStorages).toBeUndefined();
  });

  it.each([
    ['fast=/srv/b', /must include a storage named "default"/],
    ['default=/a,default=/b', /names "default" twice/],
    ['default', /name=path/],
    ['default=/a:101', /between 0 and 100/],
    ['default=/a:0', /at least one storage needs a weight/],
    ['bad name=/a', /name=path/],
  ])('refuses %s at start', (raw, message) => {
    expect(() => loadConfig({ REPOSITORY_STORAGES: raw })).toThrow(ConfigError);
    expect(() => loadConfig({ REPOSITORY_STORAGES: raw })).toThrow(message);
  });

  it('lays repositories out by GitLab hashed path', () => {
    // sha256("1"), as GitLab's Storage::Hashed names project 1.
    expect(hashedPath(1)).toBe('@hashed/6b/86/6b86b273ff34fce19d6b804eff5a3f5747ada4eaa22f1d49c01e52ddb7875b4b.git');
  });
});

describe('a project and its repository', () => {
  it('creates a bare repository on the weighted storage, shown to administrators only', async () => {
    const user = await createUser(t);
    const project = await createProject(t, user.token);
    const path = join(folders[1], hashedPath(project.id));
    expect(existsSync(join(path, 'HEAD'))).toBe(true);
    expect(execFileSync('git', ['rev-parse', '--is-bare-repository'], { env: { ...process.env, GIT_DIR: path } }).toString().trim()).toBe('true');
    expect(execFileSync('git', ['symbolic-ref', 'HEAD'], { env: { ...process.env, GIT_DIR: path } }).toString().trim()).toBe('refs/heads/main');
    expect(project.repository_storage).toBeUndefined();
    const asAdmin = await t.api('GET', `/projects/${project.id}`);
    expect(asAdmin.body.repository_storage).toBe('fast');
    expect(asAdmin.body.empty_repo).toBe(true);
  });

  it('moves aside a repository no project owns that sits at a new project\'s place (another database used the folder)', async () => {
    const user = await createUser(t);
    const before = await createProject(t, user.token);
    // What a server on another database left at the next project's place: a repository with a branch.
    const place = join(folders[1], hashedPath(before.id + 1));
    mkdirSync(place, { recursive: true });
    execFileSync('git', ['init', '--quiet', '--bare', place]);
    execFileSync('git', ['update-ref', 'refs/heads/main', commit(place, 'not yours')], { env: { ...process.env, GIT_DIR: place } });
    const project = await createProject(t, user.token);
    expect(project.id).toBe(before.id + 1);
    expect((await t.api('GET', `/projects/${project.id}/repository/branches`, { token: user.token })).body).toEqual([]);
    expect((await t.api('GET', `/projects/${project.id}`, { token: user.token })).body.empty_repo).toBe(true);
    const aside = readdirSync(dirname(place)).filter((name) => name.startsWith(`${basename(place)}.`) && name.endsWith('+stale'));
    expect(aside).toHaveLength(1);
    expect(execFileSync('git', ['rev-parse', 'refs/heads/main'], { env: { ...process.env, GIT_DIR: join(dirname(place), aside[0]) } }).toString().trim()).toMatch(/^[0-9a-f]{40}$/);
  });

  it('records a ref update: push events, one bus message per ref, empty_repo and the default branch', async () => {
    const user = await createUser(t);
    const project = await createProject(t, user.token);
    const app = t.server.app;
    const row = await app.db.project.findUniqueOrThrow({ where: { id: project.id }, include: { namespace: { include: { owner: true } }, features: true } });
    const path = join(folders[1], hashedPath(project.id));
    const first = commit(path, 'First commit\n\nbody');
    const second = commit(path, `${'x'.repeat(80)}`, first);
    execFileSync('git', ['update-ref', 'refs/heads/develop', second], { env: { ...process.env, GIT_DIR: path } });

    const heard: PushedMessage[] = [];
    const stop = app.bus.subscribe(REPOSITORY_PUSHED, (m) => void ((m as PushedMessage).projectId === project.id && heard.push(m as PushedMessage)));
    const viewer = { id: user.id, username: user.username, admin: false, external: false, bot: false, canCreateGroup: true, tokenId: 0, tokenExpiresAt: null, scopes: ['api'] };
    const ctx = createContext(app, viewer);
    await ctx.services.repositories.refsUpdated(row, user.id, [{ ref: 'refs/heads/develop', before: ZERO_SHA, after: second }]);
    await ctx.settle();
    stop();

    expect(heard).toEqual([{ projectId: project.id, userId: user.id, ref: 'refs/heads/develop', before: ZERO_SHA, after: second }]);
    // main was never pushed: the first branch becomes the default branch.
    const after = await t.api('GET', `/projects/${project.id}`, { token: user.token });
    expect(after.body).toMatchObject({ empty_repo: false, default_branch: 'develop' });
    const [event] = (await t.api('GET', `/projects/${project.id}/events?action=pushed`, { token: user.token })).body;
    expect(event.action_name).toBe('pushed new');
    expect(event.push_data).toEqual({
      commit_count: 2,
      action: 'created',
      ref_type: 'branch',
      commit_from: null,
      commit_to: second,
      ref: 'develop',
      commit_title: `${'x'.repeat(67)}...`,
      ref_count: null,
    });
  });
});

describe('GraphQL', () => {
  it('shows the repository to those who may read its code', async () => {
    const owner = await createUser(t);
    const guest = await createUser(t);
    const project = await createProject(t, owner.token);
    await t.api('POST', `/projects/${project.id}/members`, { body: { user_id: guest.id, access_level: 10 } });
    const query = `{ project(fullPath: "${project.path_with_namespace}") { repository { rootRef empty exists } } }`;
    expect((await t.graphql(query, {}, owner.token)).body.data).toEqual({ project: { repository: { rootRef: null, empty: true, exists: true } } });
    // A Guest sees the private project but not its code.
    expect((await t.graphql(query, {}, guest.token)).body.data).toEqual({ project: { repository: null } });
  });
});
