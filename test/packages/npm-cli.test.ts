/**
 * The real `npm` CLI against the server: publish (and republish refused), install from a fresh folder through the
 * project and the instance endpoints, `npm dist-tag ls/add/rm`, `npm deprecate`, and a private project npm is told is not there. Each
 * folder has its own `.npmrc`, cache and empty user/global configs, and every registry npm knows is this server, so
 * nothing leaves the machine.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, runCommand } from '../support/process.js';
import { suiteServer } from '../support/server.js';
import { createGroup, createProject, createUser, type TestUser } from '../support/factories.js';

const NPM = '/usr/bin/npm';
const port = await freePort();
const base = `http://127.0.0.1:${port}`;
// The tarball URLs in the metadata are the external URL's: this server's own address.
const t = suiteServer({ port, externalUrl: base });

let root: string;
let owner: TestUser;
let stranger: TestUser;
let scope: string;
let project: { id: number };
let hidden: { id: number };
const name = () => `@${scope}/cli-pkg`;
const projectRegistry = (id: number) => `${base}/api/v4/projects/${id}/packages/npm/`;
const instanceRegistry = `${base}/api/v4/packages/npm/`;

/** A folder with its own `.npmrc`: `scope` served by `registry`, the token for each of `auth`'s URL prefixes. */
async function folder(label: string, registry: string, token: string, files: Record<string, string> = {}): Promise<string> {
  const dir = join(root, label);
  await mkdir(dir, { recursive: true });
  const auth = [registry, projectRegistry(project.id), projectRegistry(hidden.id)].map((url) => `${url.replace(/^http:/, '')}:_authToken=${token}`);
  await writeFile(join(dir, '.npmrc'), [`@${scope}:registry=${registry}`, `registry=${registry}`, ...auth, ''].join('\n'));
  for (const [file, text] of Object.entries(files)) await writeFile(join(dir, file), text);
  return dir;
}

function npm(dir: string, ...args: string[]) {
  return runCommand(NPM, args, {
    cwd: dir,
    env: {
      npm_config_cache: join(root, 'cache'),
      npm_config_userconfig: join(root, 'empty-npmrc'),
      npm_config_globalconfig: join(root, 'empty-globalrc'),
      npm_config_audit: 'false',
      npm_config_fund: 'false',
      npm_config_update_notifier: 'false',
      npm_config_loglevel: 'warn',
      npm_config_fetch_retries: '0',
      NO_COLOR: '1',
    },
  });
}

const manifest = (version: string, extra: Record<string, unknown> = {}) => JSON.stringify({ name: name(), version, main: 'index.js', license: 'MIT', ...extra });

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'npm-cli-'));
  await writeFile(join(root, 'empty-npmrc'), '');
  await writeFile(join(root, 'empty-globalrc'), '');
  owner = await createUser(t);
  stranger = await createUser(t);
  const group = await createGroup(t, owner.token, { visibility: 'public' });
  scope = group.full_path;
  project = await createProject(t, owner.token, { namespaceId: group.id, visibility: 'public' });
  hidden = await createProject(t, owner.token, { namespaceId: group.id, visibility: 'private' });
});

afterAll(async () => {
  if (root) await rm(root, { recursive: true, force: true });
});

// Each npm run starts a Node process; on a shared machine a test's few runs take well beyond the default 30 s.
describe.skipIf(!existsSync(NPM))('the npm CLI', { timeout: 180_000 }, () => {
  it('publishes, refuses a republish, and installs from a fresh folder by the project endpoint', async () => {
    const dir = await folder('publish', projectRegistry(project.id), owner.token, { 'package.json': manifest('1.0.0'), 'index.js': 'module.exports = "one";\n' });
    const published = await npm(dir, 'publish');
    expect(published.code, published.output).toBe(0);
    expect(published.output).toContain(`${name()}@1.0.0`);
    await t.server.app.jobs.drain();

    // npm itself refuses a version the registry's metadata lists; forced, it asks, and the server refuses.
    const again = await npm(dir, 'publish');
    expect(again.code).not.toBe(0);
    expect(again.output).toContain('You cannot publish over the previously published versions: 1.0.0.');
    const forced = await npm(dir, 'publish', '--force');
    expect(forced.code).not.toBe(0);
    expect(forced.output).toContain('403 Forbidden - PUT');

    await writeFile(join(dir, 'package.json'), manifest('1.1.0', { dependencies: {} }));
    await writeFile(join(dir, 'index.js'), 'module.exports = "two";\n');
    const beta = await npm(dir, 'publish', '--tag', 'beta');
    expect(beta.code, beta.output).toBe(0);
    await t.server.app.jobs.drain();

    const consumer = await folder('install', projectRegistry(project.id), owner.token, { 'package.json': JSON.stringify({ name: 'consumer', version: '1.0.0', private: true }) });
    const installed = await npm(consumer, 'install', name());
    expect(installed.code, installed.output).toBe(0);
    const run = await runCommand(process.execPath, ['-e', `console.log(require(${JSON.stringify(name())}))`], { cwd: consumer });
    expect(run.output.trim()).toBe('one'); // `latest`, not the beta
    const lock = JSON.parse(await readFile(join(consumer, 'package-lock.json'), 'utf8'));
    const entry = lock.packages[`node_modules/${name()}`];
    // npm checked the tarball against the metadata's integrity, and wrote it down.
    const meta = await fetch(`${projectRegistry(project.id)}${name().replace('/', '%2f')}`, { headers: { Authorization: `Bearer ${owner.token}` } }).then((r) => r.json() as Promise<any>);
    expect(entry).toMatchObject({ version: '1.0.0', integrity: meta.versions['1.0.0'].dist.integrity });

    const pinned = await npm(consumer, 'install', `${name()}@beta`);
    expect(pinned.code, pinned.output).toBe(0);
    const two = await runCommand(process.execPath, ['-e', `console.log(require(${JSON.stringify(name())}))`], { cwd: consumer });
    expect(two.output.trim()).toBe('two');
  });

  it('lists, adds and removes dist-tags', async () => {
    const dir = await folder('tags', projectRegistry(project.id), owner.token);
    const ls = await npm(dir, 'dist-tag', 'ls', name());
    expect(ls.code, ls.output).toBe(0);
    expect(ls.output.trim().split('\n').sort()).toEqual(['beta: 1.1.0', 'latest: 1.0.0']);

    const add = await npm(dir, 'dist-tag', 'add', `${name()}@1.1.0`, 'stable');
    expect(add.code, add.output).toBe(0);
    expect((await npm(dir, 'dist-tag', 'ls', name())).output.trim().split('\n').sort()).toEqual(['beta: 1.1.0', 'latest: 1.0.0', 'stable: 1.1.0']);

    const rmTag = await npm(dir, 'dist-tag', 'rm', name(), 'stable');
    expect(rmTag.code, rmTag.output).toBe(0);
    expect((await npm(dir, 'dist-tag', 'ls', name())).output.trim().split('\n').sort()).toEqual(['beta: 1.1.0', 'latest: 1.0.0']);

    // A stranger may read the public project's tags but not change them.
    const other = await folder('tags-stranger', projectRegistry(project.id), stranger.token);
    const refused = await npm(other, 'dist-tag', 'add', `${name()}@1.1.0`, 'mine');
    expect(refused.code).not.toBe(0);
    expect(refused.output).toContain('403');
  });

  it('deprecates a version and takes the deprecation back', async () => {
    const dir = await folder('deprecate', projectRegistry(project.id), owner.token);
    const deprecated = await npm(dir, 'deprecate', `${name()}@1.0.0`, 'please use 1.1.0');
    expect(deprecated.code, deprecated.output).toBe(0);
    const view = await npm(dir, 'view', `${name()}@1.0.0`, 'deprecated');
    expect(view.output.trim()).toBe('please use 1.1.0');
    const undone = await npm(dir, 'deprecate', `${name()}@1.0.0`, '');
    expect(undone.code, undone.output).toBe(0);
    expect((await npm(dir, 'view', `${name()}@1.0.0`, 'deprecated')).output.trim()).toBe('');
  });

  it('installs through the instance endpoint, the project found from the scope', async () => {
    const dir = await folder('instance', instanceRegistry, owner.token, { 'package.json': JSON.stringify({ name: 'consumer', version: '1.0.0', private: true }) });
    const installed = await npm(dir, 'install', `${name()}@1.1.0`);
    expect(installed.code, installed.output).toBe(0);
    const run = await runCommand(process.execPath, ['-e', `console.log(require(${JSON.stringify(name())}))`], { cwd: dir });
    expect(run.output.trim()).toBe('two');
    const view = await npm(dir, 'view', name(), 'dist-tags', '--json');
    expect(JSON.parse(view.output)).toEqual({ latest: '1.0.0', beta: '1.1.0' });
  });

  it('hides a private project from other users: publish and install are 404s', async () => {
    const privateName = `@${scope}/private-pkg`;
    const dir = await folder('private', projectRegistry(hidden.id), owner.token, { 'package.json': JSON.stringify({ name: privateName, version: '1.0.0' }), 'index.js': '' });
    expect((await npm(dir, 'publish')).code).toBe(0);
    await t.server.app.jobs.drain();

    const other = await folder('private-stranger', projectRegistry(hidden.id), stranger.token, { 'package.json': JSON.stringify({ name: 'consumer', version: '1.0.0', private: true }) });
    const install = await npm(other, 'install', privateName);
    expect(install.code).not.toBe(0);
    expect(install.output).toContain('404');
    const ownerInstall = await folder('private-owner', projectRegistry(hidden.id), owner.token, { 'package.json': JSON.stringify({ name: 'consumer', version: '1.0.0', private: true }) });
    expect((await npm(ownerInstall, 'install', privateName)).code).toBe(0);
  });
});
