/**
 * The package registry over GraphQL, with GitLab's names: `Project.packages`, `Group.packages`, `package(id:)` with
 * `packageFiles`, and the relay mutations `destroyPackage` and `destroyPackageFile`; the same resolvers as REST.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { EXTERNAL_URL, suiteServer } from '../support/server.js';
import { addMember, createGroup, createProject, createUser, type TestUser } from '../support/factories.js';

const t = suiteServer();

let owner: TestUser;
let developer: TestUser;
let group: { id: number; full_path: string };
let project: { id: number; path_with_namespace: string };
let firstId: number;

async function upload(name: string, version: string, file: string, body: string, query = '') {
  const res = await fetch(`${t.url}/api/v4/projects/${project.id}/packages/generic/${name}/${version}/${file}?select=package_file${query}`, {
    method: 'PUT',
    headers: { 'PRIVATE-TOKEN': owner.token },
    body,
  });
  expect(res.status).toBe(201);
  return (await res.json()) as { id: number; package_id: number };
}

beforeAll(async () => {
  owner = await createUser(t);
  developer = await createUser(t);
  group = await createGroup(t, owner.token, { visibility: 'private' });
  project = await createProject(t, owner.token, { namespaceId: group.id, visibility: 'private' });
  await addMember(t, owner.token, 'projects', project.id, developer.id, 30);
  firstId = (await upload('lib', '1.0.0', 'lib.tgz', 'one')).package_id;
  await upload('lib', '1.1.0', 'lib.tgz', 'two');
  await upload('app', '0.1.0', 'app.bin', 'three');
});

const PACKAGES = `query($path: ID!, $sort: PackageSort, $name: String) {
  project(fullPath: $path) {
    packages(sort: $sort, packageName: $name) { count nodes { id name version packageType status canDestroy _links { webPath } } }
  }
}`;

describe('queries', () => {
  it('lists a project’s packages newest first by default, sorts and filters with GitLab’s enums', async () => {
    const res = await t.graphql(PACKAGES, { path: project.path_with_namespace }, owner.token);
    expect(res.body.errors).toBeUndefined();
    const list = res.body.data.project.packages;
    expect(list.count).toBe(3);
    expect(list.nodes.map((p: { name: string; version: string }) => `${p.name}@${p.version}`)).toEqual(['app@0.1.0', 'lib@1.1.0', 'lib@1.0.0']);
    expect(list.nodes[0]).toMatchObject({ id: expect.stringMatching(/^gid:\/\/gitlab\/Packages::Package\/\d+$/), packageType: 'GENERIC', status: 'DEFAULT', canDestroy: true });
    expect(list.nodes[0]._links.webPath).toBe(`/${project.path_with_namespace}/-/packages/${list.nodes[0].id.split('/').pop()}`);
    const byName = await t.graphql(PACKAGES, { path: project.path_with_namespace, sort: 'NAME_ASC', name: 'li' }, developer.token);
    expect(byName.body.data.project.packages.nodes.map((p: { version: string }) => p.version)).toEqual(['1.0.0', '1.1.0']);
    expect(byName.body.data.project.packages.nodes[0].canDestroy).toBe(false);
  });

  it('lists a group’s packages, none for a stranger', async () => {
    const query = 'query($path: ID!) { group(fullPath: $path) { packages(sort: PROJECT_PATH_ASC) { count } } }';
    expect((await t.graphql(query, { path: group.full_path }, owner.token)).body.data.group.packages.count).toBe(3);
    expect((await t.graphql(query, { path: group.full_path }, (await createUser(t)).token)).body.data.group).toBeNull();
  });

  it('shows one package with its files, versions and project; null for whoever may not read it', async () => {
    const query = `query($id: PackagesPackageID!) { package(id: $id) {
      name version lastDownloadedAt project { fullPath }
      npmUrl pypiUrl pypiSetupUrl mavenUrl conanUrl nugetUrl composerUrl composerConfigRepositoryUrl
      versions { nodes { __typename version } }
      packageFiles { count nodes { id fileName size fileMd5 fileSha1 fileSha256 downloadPath pipelines { id } } }
    } }`;
    const id = `gid://gitlab/Packages::Package/${firstId}`;
    const res = await t.graphql(query, { id }, owner.token);
    expect(res.body.errors).toBeUndefined();
    const pkg = res.body.data.package;
    expect(pkg).toMatchObject({ name: 'lib', version: '1.0.0', project: { fullPath: project.path_with_namespace }, versions: { nodes: [{ __typename: 'PackageBase', version: '1.1.0' }] } });
    // GitLab's PackagesHelper: the project's registries, and its group's Composer registry.
    const api = `${EXTERNAL_URL}/api/v4/projects/${project.id}/packages`;
    expect(pkg).toMatchObject({
      npmUrl: `${api}/npm`,
      pypiSetupUrl: `${api}/pypi`,
      pypiUrl: `${api}/pypi/simple/`.replace('://', '://__token__:<your_personal_token>@'),
      mavenUrl: `${api}/maven`,
      conanUrl: `${api}/conan`,
      nugetUrl: `${api}/nuget/index.json`,
      composerUrl: `${EXTERNAL_URL}/api/v4/group/${group.id}/-/packages/composer/packages.json`,
      composerConfigRepositoryUrl: `${new URL(EXTERNAL_URL).host}/${group.id}`,
    });
    expect(pkg.packageFiles.nodes[0]).toMatchObject({
      id: expect.stringMatching(/^gid:\/\/gitlab\/Packages::PackageFile\/\d+$/),
      fileName: 'lib.tgz',
      size: '3',
      fileSha256: '7692c3ad3540bb803c020b3aee66cd8887123234ea0c6e7143c0add73ff431ed',
      downloadPath: `/api/v4/projects/${project.id}/packages/generic/lib/1.0.0/lib.tgz`,
      pipelines: null,
    });
    expect((await t.graphql(query, { id }, null)).body.data.package).toBeNull();
    expect((await t.graphql(query, { id }, (await createUser(t)).token)).body.data.package).toBeNull();
    const wrong = await t.graphql(query, { id: `gid://gitlab/Project/${project.id}` }, owner.token);
    expect(wrong.body.errors?.[0].message).toContain('does not represent an instance of Packages::Package');
  });
});

describe('mutations', () => {
  const DESTROY = 'mutation($input: DestroyPackageInput!) { destroyPackage(input: $input) { clientMutationId errors package { status } } }';
  const DESTROY_FILE = 'mutation($input: DestroyPackageFileInput!) { destroyPackageFile(input: $input) { clientMutationId errors packageFile { fileName } } }';

  it('destroyPackage: Developers refused, Maintainers mark it pending destruction and the job removes it', async () => {
    const up = await upload('gone', '1.0.0', 'g.bin', 'gone bytes');
    const input = { id: `gid://gitlab/Packages::Package/${up.package_id}`, clientMutationId: 'c1' };
    const refused = await t.graphql(DESTROY, { input }, developer.token);
    expect(refused.body.errors?.[0].extensions?.code).toBe('FORBIDDEN');
    const res = await t.graphql(DESTROY, { input }, owner.token);
    expect(res.body.data.destroyPackage).toEqual({ clientMutationId: 'c1', errors: [], package: { status: 'PENDING_DESTRUCTION' } });
    await t.server.app.jobs.drain();
    expect(await t.server.app.db.package.findUnique({ where: { id: up.package_id } })).toBeNull();
    const again = await t.graphql(DESTROY, { input }, owner.token);
    expect(again.body.errors?.[0].extensions?.code).toBe('NOT_FOUND');
  });

  it('destroyPackageFile removes one file and leaves the package', async () => {
    const a = await upload('two-files', '1.0.0', 'a.txt', 'aaa');
    await upload('two-files', '1.0.0', 'b.txt', 'bbb');
    const res = await t.graphql(DESTROY_FILE, { input: { id: `gid://gitlab/Packages::PackageFile/${a.id}` } }, owner.token);
    expect(res.body.data.destroyPackageFile).toEqual({ clientMutationId: null, errors: [], packageFile: { fileName: 'a.txt' } });
    const files = await t.graphql('query($id: PackagesPackageID!) { package(id: $id) { packageFiles { nodes { fileName } } } }', { id: `gid://gitlab/Packages::Package/${a.package_id}` }, owner.token);
    expect(files.body.data.package.packageFiles.nodes).toEqual([{ fileName: 'b.txt' }]);
  });

  it('destroyPackages marks every package named, or none when one may not be destroyed; at most 20', async () => {
    const MANY = 'mutation($input: DestroyPackagesInput!) { destroyPackages(input: $input) { clientMutationId errors } }';
    const gid = (id: number) => `gid://gitlab/Packages::Package/${id}`;
    const a = await upload('bulk-a', '1.0.0', 'a.bin', 'a');
    const b = await upload('bulk-b', '1.0.0', 'b.bin', 'b');
    const otherOwner = await createUser(t);
    const otherProject = await createProject(t, otherOwner.token, { visibility: 'private' });
    const foreign = await fetch(`${t.url}/api/v4/projects/${otherProject.id}/packages/generic/theirs/1.0.0/t.bin?select=package_file`, { method: 'PUT', headers: { 'PRIVATE-TOKEN': otherOwner.token }, body: 't' });
    const theirs = ((await foreign.json()) as { package_id: number }).package_id;
    const mixed = await t.graphql(MANY, { input: { ids: [gid(a.package_id), gid(theirs)] } }, owner.token);
    expect(mixed.body.errors?.[0].message).toBe("The resource that you are attempting to access does not exist or you don't have permission to perform this action");
    const status = async (id: number) => (await t.server.app.db.package.findUnique({ where: { id } }))?.status;
    expect([await status(a.package_id), await status(theirs)]).toEqual(['default', 'default']);
    const tooMany = await t.graphql(MANY, { input: { ids: Array.from({ length: 21 }, (_, i) => gid(i + 1)) } }, owner.token);
    expect(tooMany.body.errors?.[0].message).toBe('Cannot delete more than 20 packages');
    const res = await t.graphql(MANY, { input: { clientMutationId: 'bulk', ids: [gid(a.package_id), gid(b.package_id)] } }, owner.token);
    expect(res.body.data.destroyPackages).toEqual({ clientMutationId: 'bulk', errors: [] });
    expect([await status(a.package_id), await status(b.package_id)]).toEqual(['pending_destruction', 'pending_destruction']);
    await t.server.app.jobs.drain();
    expect([await status(a.package_id), await status(b.package_id)]).toEqual([undefined, undefined]);
  });

  it('destroyPackageFiles marks files of the project named; files of another project or none are refused', async () => {
    const FILES = 'mutation($input: DestroyPackageFilesInput!) { destroyPackageFiles(input: $input) { errors } }';
    const gid = (id: number) => `gid://gitlab/Packages::PackageFile/${id}`;
    const a = await upload('files-bulk', '1.0.0', 'a.txt', 'a');
    const b = await upload('files-bulk', '1.0.0', 'b.txt', 'b');
    await upload('files-bulk', '1.0.0', 'c.txt', 'c');
    const input = { projectPath: project.path_with_namespace, ids: [gid(a.id), gid(b.id)] };
    const refused = await t.graphql(FILES, { input }, developer.token);
    expect(refused.body.errors?.[0].message).toBe("The resource that you are attempting to access does not exist or you don't have permission to perform this action");
    const none = await t.graphql(FILES, { input: { ...input, ids: [gid(999_999)] } }, owner.token);
    expect(none.body.errors?.[0].message).toBe('All files must be in the requested project');
    const res = await t.graphql(FILES, { input }, owner.token);
    expect(res.body.data.destroyPackageFiles).toEqual({ errors: [] });
    await t.server.app.jobs.drain();
    const files = await t.graphql('query($id: PackagesPackageID!) { package(id: $id) { packageFiles { nodes { fileName } } } }', { id: `gid://gitlab/Packages::Package/${a.package_id}` }, owner.token);
    expect(files.body.data.package.packageFiles.nodes).toEqual([{ fileName: 'c.txt' }]);
  });
});
