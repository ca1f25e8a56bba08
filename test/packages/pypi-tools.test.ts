/**
 * The real clients against the running server: Debian's `twine upload` publishes a wheel and an sdist with a personal
 * access token, `pip install` (offline but for this index, credentials in the index URL) installs the wheel back into
 * a temporary folder, from the project's index and from its group's, and `pip download` fetches the sdist; a private
 * project refuses pip without the token.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { suiteServer } from '../support/server.js';
import { createGroup, createProject, createUser, type TestUser } from '../support/factories.js';
import { freePort, runCommand } from '../support/process.js';
import { buildDists, removeDir, sha256, type Dist } from './pypi-support.js';

const TWINE = '/usr/bin/twine';
const port = await freePort();
// pip follows the index's absolute links: the server's EXTERNAL_URL is the address the clients call.
const t = suiteServer({ port, externalUrl: `http://127.0.0.1:${port}` });
const pip = await runCommand('python3', ['-m', 'pip', '--version']);

let owner: TestUser;
let group: { id: number };
let project: { id: number };
let dists: { dir: string; wheel: Dist; sdist: Dist };
const folders: string[] = [];

/** pip's environment: no cache, no configuration files, no index or wheel folder but the one given, no keyring prompts. */
const pipEnv = { PIP_FIND_LINKS: '', PIP_NO_CACHE_DIR: '1', PIP_CONFIG_FILE: '/dev/null', PIP_DISABLE_PIP_VERSION_CHECK: '1', PIP_NO_INPUT: '1', PIP_KEYRING_PROVIDER: 'disabled' };

async function folder(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'pypi-tools-'));
  folders.push(dir);
  return dir;
}

const index = (projectId: number, token: string | null) => `http://${token ? `user:${token}@` : ''}127.0.0.1:${port}/api/v4/projects/${projectId}/packages/pypi/simple`;
const groupIndex = (groupId: number, token: string) => `http://user:${token}@127.0.0.1:${port}/api/v4/groups/${groupId}/-/packages/pypi/simple`;

beforeAll(async () => {
  owner = await createUser(t);
  group = await createGroup(t, owner.token, { visibility: 'private' });
  project = await createProject(t, owner.token, { namespaceId: group.id, visibility: 'private' });
  dists = await buildDists('Tool_Pkg', '0.3.0', '>=3.6', 'installed from the registry');
  folders.push(dists.dir);
});

afterAll(async () => {
  for (const dir of folders) await removeDir(dir);
});

describe.skipIf(!existsSync(TWINE))('twine (Debian package `twine`)', () => {
  it('uploads a wheel and an sdist with a personal access token', async () => {
    const res = await runCommand(
      TWINE,
      ['upload', '--non-interactive', '--disable-progress-bar', '--repository-url', `http://127.0.0.1:${port}/api/v4/projects/${project.id}/packages/pypi`, '-u', owner.username, '-p', owner.token, dists.wheel.fileName, dists.sdist.fileName],
      { cwd: dists.dir, env: { HOME: await folder(), TWINE_CERT: '', PYTHON_KEYRING_BACKEND: 'keyring.backends.null.Keyring' } },
    );
    expect(res.code, res.output).toBe(0);
    const list = await t.api('GET', `/projects/${project.id}/packages?package_type=pypi`, { token: owner.token });
    // twine sends the name as it reads it from the metadata, made safe (`Tool_Pkg` → `Tool-Pkg`).
    expect(list.body.map((p: { name: string; version: string }) => [p.name, p.version])).toEqual([['Tool-Pkg', '0.3.0']]);
    const files = await t.api('GET', `/projects/${project.id}/packages/${list.body[0].id}/package_files`, { token: owner.token });
    expect(files.body.map((f: { file_name: string; file_sha256: string }) => [f.file_name, f.file_sha256])).toEqual([
      [dists.wheel.fileName, dists.wheel.sha256],
      [dists.sdist.fileName, dists.sdist.sha256],
    ]);

    // twine shows GitLab's refusal of the same file again.
    const again = await runCommand(
      TWINE,
      ['upload', '--non-interactive', '--disable-progress-bar', '--repository-url', `http://127.0.0.1:${port}/api/v4/projects/${project.id}/packages/pypi`, '-u', owner.username, '-p', owner.token, dists.wheel.fileName],
      { cwd: dists.dir, env: { HOME: await folder(), PYTHON_KEYRING_BACKEND: 'keyring.backends.null.Keyring' } },
    );
    expect(again.code).not.toBe(0);
    expect(again.output).toContain('400');
  });

  it.skipIf(pip.code !== 0)('pip installs the wheel back from the project index, and downloads the sdist', async () => {
    const target = await folder();
    const res = await runCommand('python3', ['-m', 'pip', 'install', '--index-url', index(project.id, owner.token), '--no-deps', '--target', target, 'tool-pkg==0.3.0'], { env: pipEnv });
    expect(res.code, res.output).toBe(0);
    expect(await readFile(join(target, 'tool_pkg', '__init__.py'), 'utf8')).toBe('VALUE = "installed from the registry"\n');
    expect((await readdir(target)).sort()).toEqual(['Tool_Pkg-0.3.0.dist-info', 'tool_pkg']);

    const downloads = await folder();
    const sdist = await runCommand('python3', ['-m', 'pip', 'download', '--index-url', index(project.id, owner.token), '--no-deps', '--no-binary', ':all:', '--no-build-isolation', '--dest', downloads, 'Tool.Pkg'], { env: pipEnv });
    expect(sdist.code, sdist.output).toBe(0);
    const fetched = (await readdir(downloads)).filter((f) => f.endsWith('.tar.gz'));
    expect(fetched, sdist.output).toEqual([dists.sdist.fileName]);
    expect(sha256(await readFile(join(downloads, dists.sdist.fileName)))).toBe(dists.sdist.sha256);

    // The group's index serves its projects' packages the same way.
    const fromGroup = await folder();
    const viaGroup = await runCommand('python3', ['-m', 'pip', 'install', '--index-url', groupIndex(group.id, owner.token), '--no-deps', '--target', fromGroup, 'TOOL_PKG'], { env: pipEnv });
    expect(viaGroup.code, viaGroup.output).toBe(0);
    expect(await readFile(join(fromGroup, 'tool_pkg', '__init__.py'), 'utf8')).toBe('VALUE = "installed from the registry"\n');
  });

  it.skipIf(pip.code !== 0)('pip without the token is refused by the private project', async () => {
    const res = await runCommand('python3', ['-m', 'pip', 'install', '-vvv', '--index-url', index(project.id, null), '--no-deps', '--target', await folder(), 'tool-pkg'], { env: pipEnv });
    expect(res.code).not.toBe(0);
    // pip's log of the request: the server's 401 challenge, which pip cannot answer without credentials.
    expect(res.output).toMatch(/"GET \/api\/v4\/projects\/\d+\/packages\/pypi\/simple\/tool-pkg\/ HTTP\/1.1" 401/);
  });
});
