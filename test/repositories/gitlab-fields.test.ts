/** GitLab's GraphQL fields of repository files: RepositoryBlob's paths, viewers and abilities, trees' entries, paginated trees, branch names, disk path. */
import { writeFileSync, mkdirSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { suiteServer, EXTERNAL_URL } from '../support/server.js';
import { addMember, createProject, createUser, PNG, type TestUser } from '../support/factories.js';
import { cloneUrl, gitSandbox } from '../support/git.js';
import { eventually } from '../support/wait.js';

let counting = false;
let statements = 0;
const t = suiteServer({}, { onQuery: () => counting && statements++ });
const git = gitSandbox();

const LFS_OID = 'a'.repeat(64);
const POINTER = `version https://git-lfs.github.com/spec/v1\noid sha256:${LFS_OID}\nsize 12345678\n`;

let project: any;
let reporter: TestUser;
let developer: TestUser;
let head = '';
let subSha = '';

const BLOB_FIELDS = `id oid path name size rawSize rawBlob rawTextBlob plainData webPath rawPath blamePath historyPath permalinkPath
  editBlobPath ideEditPath forkAndEditPath forkAndViewPath ideForkAndEditPath replacePath findFilePath projectBlobPathRoot pipelineEditorPath language fileType archived lfsOid
  storedExternally externalStorage canModifyBlob canCurrentUserPushToBranch
  simpleViewer { type loadAsync collapsed tooLarge renderError fileType loadingPartialName }
  richViewer { type loadAsync collapsed tooLarge renderError fileType loadingPartialName }`;

async function blobs(paths: string[], token: string | null = t.rootToken, ref: string | null = 'main') {
  const res = await t.graphql(
    `query($p: ID!, $paths: [String!]!, $ref: String) { project(fullPath: $p) { repository { blobs(paths: $paths, ref: $ref) { nodes { ${BLOB_FIELDS} } } } } }`,
    { p: project.path_with_namespace, paths, ref },
    token,
  );
  expect(res.body.errors).toBeUndefined();
  return res.body.data.project?.repository?.blobs.nodes as any[] | undefined;
}

beforeAll(async () => {
  project = await createProject(t, t.rootToken);
  reporter = await createUser(t);
  developer = await createUser(t);
  await addMember(t, t.rootToken, 'projects', project.id, reporter.id, 20);
  await addMember(t, t.rootToken, 'projects', project.id, developer.id, 30);
  const work = git.folder();
  await git.ok(work, ['init', '-q', '-b', 'main']);
  writeFileSync(join(work, 'README.md'), '# Title\n\nSome <b>text</b> & more\n');
  writeFileSync(join(work, '.gitlab-ci.yml'), 'test:\n  script: echo\n');
  writeFileSync(join(work, 'logo.png'), PNG);
  writeFileSync(join(work, 'model.bin'), POINTER);
  writeFileSync(join(work, 'empty.txt'), '');
  mkdirSync(join(work, 'src', 'deep'), { recursive: true });
  writeFileSync(join(work, 'src', 'app file.rb'), 'puts 1\n');
  writeFileSync(join(work, 'src', 'deep', 'x.ts'), 'export {};\n');
  writeFileSync(join(work, '.gitmodules'), '[submodule "gh"]\n\tpath = vendor/gh\n\turl = https://github.com/acme/widget.git\n[submodule "sib"]\n\tpath = vendor/sib\n\turl = ../sibling.git\n');
  await git.ok(work, ['add', '.']);
  await git.ok(work, ['commit', '-q', '-m', 'First']);
  subSha = (await git.ok(work, ['rev-parse', 'HEAD'])).trim();
  await git.ok(work, ['update-index', '--add', '--cacheinfo', `160000,${subSha},vendor/gh`]);
  await git.ok(work, ['update-index', '--add', '--cacheinfo', `160000,${subSha},vendor/sib`]);
  await git.ok(work, ['commit', '-q', '-m', 'Submodules']);
  writeFileSync(join(work, 'src', 'deep', 'x.ts'), 'export const x = 1;\n');
  await git.ok(work, ['add', 'src/deep/x.ts']);
  await git.ok(work, ['commit', '-q', '-m', 'Change deep']);
  head = (await git.ok(work, ['rev-parse', 'HEAD'])).trim();
  await git.ok(work, ['branch', 'feature/one']);
  await git.ok(work, ['branch', 'feature/two']);
  await git.ok(work, ['branch', 'fix']);
  await git.ok(work, ['push', '-q', cloneUrl(t.url, project.path_with_namespace, t.rootToken), 'main', 'feature/one', 'feature/two', 'fix']);
});

describe('RepositoryBlob', () => {
  it("answers GitLab's paths, language, file type and viewers of a text file to a maintainer", async () => {
    const [readme] = (await blobs(['README.md']))!;
    const full = project.path_with_namespace;
    const content = '# Title\n\nSome <b>text</b> & more\n';
    const sha = createHash('sha1').update(`blob ${content.length}\0${content}`).digest('hex');
    expect(readme).toMatchObject({
      id: sha,
      oid: sha,
      rawBlob: content,
      rawTextBlob: content,
      plainData:
        '<span id="LC1" class="line" lang="markdown"># Title</span>\n<span id="LC2" class="line" lang="markdown"></span>\n<span id="LC3" class="line" lang="markdown">Some &lt;b&gt;text&lt;/b&gt; &amp; more</span>',
      webPath: `/${full}/-/blob/main/README.md`,
      rawPath: `/${full}/-/raw/main/README.md`,
      blamePath: `/${full}/-/blame/main/README.md`,
      historyPath: `/${full}/-/commits/main/README.md`,
      permalinkPath: `/${full}/-/blob/${head}/README.md`,
      editBlobPath: `/${full}/-/edit/main/README.md`,
      ideEditPath: `/-/ide/project/${full}/edit/main/-/README.md`,
      replacePath: `/${full}/-/update/main/README.md`,
      findFilePath: `/${full}/-/find_file/main/README.md`,
      projectBlobPathRoot: `/${full}/-/blob/main`,
      pipelineEditorPath: null,
      language: 'markdown',
      fileType: 'readme',
      archived: false,
      lfsOid: null,
      storedExternally: false,
      externalStorage: null,
      canModifyBlob: true,
      canCurrentUserPushToBranch: true,
      simpleViewer: { type: 'simple', loadAsync: true, collapsed: false, tooLarge: false, renderError: null, fileType: 'text', loadingPartialName: 'loading' },
      richViewer: { type: 'rich', loadAsync: true, collapsed: false, tooLarge: false, renderError: null, fileType: 'markup', loadingPartialName: 'loading' },
    });
  });

  it('escapes paths, finds the CI file, binary images, empty files and LFS pointers', async () => {
    const full = project.path_with_namespace;
    const rows = (await blobs(['src/app file.rb', '.gitlab-ci.yml', 'logo.png', 'empty.txt', 'model.bin', 'missing']))!;
    expect(rows.map((r) => r.path)).toEqual(['src/app file.rb', '.gitlab-ci.yml', 'logo.png', 'empty.txt', 'model.bin']);
    const [rb, ci, png, empty, lfs] = rows;
    expect(rb).toMatchObject({ webPath: `/${full}/-/blob/main/src/app%20file.rb`, ideEditPath: `/-/ide/project/${full}/edit/main/-/src/app%20file.rb`, language: 'ruby', fileType: null, richViewer: null });
    expect(ci).toMatchObject({ pipelineEditorPath: `/${full}/-/ci/editor?branch_name=main`, fileType: 'gitlab_ci', language: 'yaml' });
    expect(png).toMatchObject({ rawTextBlob: null, plainData: null, simpleViewer: { fileType: 'download', loadAsync: false, renderError: null }, richViewer: { type: 'rich', fileType: 'image', loadAsync: false } });
    expect(empty).toMatchObject({ simpleViewer: { fileType: 'empty' }, richViewer: null, size: '0' });
    expect(lfs).toMatchObject({
      lfsOid: LFS_OID,
      storedExternally: true,
      externalStorage: 'lfs',
      rawSize: '12345678',
      size: String(POINTER.length),
      canModifyBlob: false,
      simpleViewer: { fileType: 'download' },
    });
  });

  it('answers a Reporter the fork paths and no abilities, and a Developer the branch abilities', async () => {
    const full = project.path_with_namespace;
    const [ci] = (await blobs(['.gitlab-ci.yml'], reporter.token))!;
    expect(ci).toMatchObject({ canModifyBlob: false, canCurrentUserPushToBranch: false, pipelineEditorPath: null, ideEditPath: `/-/ide/project/${reporter.username}/${project.path}/edit/main/-/.gitlab-ci.yml` });
    const namespaceId = (await t.api('GET', `/users/${reporter.id}`)).body.namespace_id;
    expect(namespaceId).toEqual(expect.any(Number));
    const fork = (to: string) =>
      `/${full}/-/forks?continue%5Bnotice%5D=You%27re+not+allowed+to+make+changes+to+this+project+directly.+A+fork+of+this+project+has+been+created+that+you+can+make+changes+in%2C+so+you+can+submit+a+merge+request.` +
      `&continue%5Bnotice_now%5D=You%27re+not+allowed+to+make+changes+to+this+project+directly.+A+fork+of+this+project+is+being+created+that+you+can+make+changes+in%2C+so+you+can+submit+a+merge+request.` +
      `&continue%5Bto%5D=${encodeURIComponent(to)}&namespace_key=${namespaceId}`;
    expect(ci.forkAndEditPath).toBe(fork(`/${full}/-/edit/main/.gitlab-ci.yml`));
    expect(ci.forkAndViewPath).toBe(fork(`/${full}/-/blob/main/.gitlab-ci.yml`));
    expect(ci.ideForkAndEditPath).toBe(fork(`/-/ide/project/${reporter.username}/${project.path}/edit/main/-/.gitlab-ci.yml`));
    const [dev] = (await blobs(['.gitlab-ci.yml'], developer.token))!;
    // main is protected by default (Maintainers push): a Developer pushes code but not to main.
    expect(dev).toMatchObject({ canModifyBlob: true, canCurrentUserPushToBranch: false, pipelineEditorPath: `/${full}/-/ci/editor?branch_name=main` });
    const [devFeature] = (await blobs(['.gitlab-ci.yml'], developer.token, 'feature/one'))!;
    expect(devFeature).toMatchObject({ canCurrentUserPushToBranch: true, webPath: `/${full}/-/blob/feature/one/.gitlab-ci.yml` });
    // At a commit rather than a branch nothing can be modified.
    const [atSha] = (await blobs(['.gitlab-ci.yml'], t.rootToken, head))!;
    expect(atSha).toMatchObject({ canModifyBlob: false, canCurrentUserPushToBranch: false, webPath: `/${full}/-/blob/${head}/.gitlab-ci.yml` });
    // Someone outside the private project does not see its repository.
    const outsider = await createUser(t);
    expect(await blobs(['README.md'], outsider.token)).toBeUndefined();
  });

  it('reads the blobs of four paths in as many statements as one (no query per blob)', async () => {
    const count = async (paths: string[]) => {
      statements = 0;
      counting = true;
      const rows = await blobs(paths, developer.token, 'feature/one');
      counting = false;
      expect(rows).toHaveLength(paths.length);
      return statements;
    };
    // The pushes' pipelines (one per branch: each has .gitlab-ci.yml) are made in the background, whose statements
    // would be counted too: wait for them first.
    await eventually(async () => ((await t.api('GET', `/projects/${project.id}/pipelines`)).body as unknown[]).length >= 4);
    // The fewest of a few runs: other background jobs' statements (counted too) may fall into any one run.
    const fewest = async (paths: string[]) => Math.min(await count(paths), await count(paths), await count(paths));
    await count(['README.md']);
    const one = await fewest(['README.md']);
    const four = await fewest(['README.md', '.gitlab-ci.yml', 'logo.png', 'model.bin']);
    expect(four).toBe(one);
  });
});

describe('RepositoryBlob of a large file', () => {
  it("loads GitLab's first 10 MB of it, and its viewers say it is too large", async () => {
    const other = await createProject(t, t.rootToken);
    const work = git.folder();
    await git.ok(work, ['init', '-q', '-b', 'big']);
    const line = 'abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz01\n';
    const content = line.repeat(Math.ceil((11 * 1024 * 1024) / line.length));
    writeFileSync(join(work, 'big.txt'), content);
    await git.ok(work, ['add', 'big.txt']);
    await git.ok(work, ['commit', '-q', '-m', 'Big']);
    await git.ok(work, ['push', '-q', cloneUrl(t.url, other.path_with_namespace, t.rootToken), 'big']);
    const res = await t.graphql(
      `query($p: ID!) { project(fullPath: $p) { repository { blobs(paths: ["big.txt"], ref: "big") { nodes { size rawSize rawBlob simpleViewer { collapsed tooLarge renderError } } } } } }`,
      { p: other.path_with_namespace },
    );
    expect(res.body.errors).toBeUndefined();
    const [big] = res.body.data.project.repository.blobs.nodes;
    expect(big.size).toBe(String(content.length));
    expect(big.rawSize).toBe(String(content.length));
    expect(big.rawBlob).toHaveLength(10 * 1024 * 1024);
    expect(big.rawBlob.startsWith(line)).toBe(true);
    expect(big.simpleViewer).toEqual({ collapsed: true, tooLarge: true, renderError: 'too_large' });
  });
});

describe('Tree and its entries', () => {
  it("answers the entries' IDs, web paths, LFS objects, submodule links and the tree's last commit", async () => {
    const full = project.path_with_namespace;
    const res = await t.graphql(
      `query($p: ID!) { project(fullPath: $p) { repository {
        root: tree(ref: "main") { lastCommit { sha title } trees { nodes { id sha name webPath webUrl } } blobs(first: 100) { nodes { id name lfsOid webPath webUrl } } }
        vendor: tree(ref: "main", path: "vendor") { submodules { nodes { id name webUrl treeUrl } } }
        src: tree(ref: "main", path: "src") { lastCommit { sha title } }
      } } }`,
      { p: full },
    );
    expect(res.body.errors).toBeUndefined();
    const { root, src, vendor } = res.body.data.project.repository;
    expect(root.lastCommit).toEqual({ sha: head, title: 'Change deep' });
    expect(src.lastCommit).toMatchObject({ sha: head });
    const dir = root.trees.nodes.find((n: any) => n.name === 'src');
    expect(dir).toMatchObject({ id: dir.sha, webPath: `/${full}/-/tree/main/src`, webUrl: `${EXTERNAL_URL}/${full}/-/tree/main/src` });
    const byName = Object.fromEntries(root.blobs.nodes.map((n: any) => [n.name, n]));
    expect(byName['model.bin'].lfsOid).toBe(LFS_OID);
    expect(byName['README.md']).toMatchObject({ lfsOid: null, webPath: `/${full}/-/blob/main/README.md`, webUrl: `${EXTERNAL_URL}/${full}/-/blob/main/README.md` });
    expect(vendor.submodules.nodes).toEqual([
      { id: subSha, name: 'gh', webUrl: 'https://github.com/acme/widget', treeUrl: `https://github.com/acme/widget/tree/${subSha}` },
      { id: subSha, name: 'sib', webUrl: `/${project.namespace.full_path}/sibling`, treeUrl: `/${project.namespace.full_path}/sibling/-/tree/${subSha}` },
    ]);
  });

  it("pages a tree as GitLab's paginatedTree: one tree per page", async () => {
    const query = `query($p: ID!, $after: String) { project(fullPath: $p) { repository { paginatedTree(ref: "main", first: 3, after: $after) {
      count pageInfo { hasNextPage endCursor } nodes { trees { nodes { name } } blobs { nodes { name } } submodules { nodes { name } } lastCommit { sha } } } } } }`;
    const first = await t.graphql(query, { p: project.path_with_namespace });
    expect(first.body.errors).toBeUndefined();
    const page = first.body.data.project.repository.paginatedTree;
    expect(page.nodes).toHaveLength(1);
    expect(page.nodes[0].trees.nodes.map((n: any) => n.name)).toEqual(['src', 'vendor']);
    expect(page.nodes[0].blobs.nodes.map((n: any) => n.name)).toEqual(['.gitlab-ci.yml']);
    expect(page.nodes[0].lastCommit.sha).toBe(head);
    expect(page.pageInfo.hasNextPage).toBe(true);
    const second = await t.graphql(query, { p: project.path_with_namespace, after: page.pageInfo.endCursor });
    expect(second.body.data.project.repository.paginatedTree.nodes[0].blobs.nodes.map((n: any) => n.name)).toEqual(['.gitmodules', 'README.md', 'empty.txt']);
  });
});

describe('Repository', () => {
  it('lists branch names by glob, with offset and limit', async () => {
    const query = `query($p: ID!, $s: String!, $o: Int!, $l: Int!) { project(fullPath: $p) { repository { branchNames(searchPattern: $s, offset: $o, limit: $l) } } }`;
    const names = async (s: string, o = 0, l = 10) => (await t.graphql(query, { p: project.path_with_namespace, s, o, l })).body.data.project.repository.branchNames;
    expect(await names('*')).toEqual(['feature/one', 'feature/two', 'fix', 'main']);
    expect(await names('feature/*')).toEqual(['feature/one', 'feature/two']);
    expect(await names('f?x')).toEqual(['fix']);
    expect(await names('*', 1, 2)).toEqual(['feature/two', 'fix']);
    expect(await names('FIX')).toEqual([]);
  });

  it('shows the disk path to administrators only', async () => {
    const query = `query($p: ID!) { project(fullPath: $p) { repository { diskPath } } }`;
    const hash = createHash('sha256').update(String(project.id)).digest('hex');
    const admin = await t.graphql(query, { p: project.path_with_namespace });
    expect(admin.body.data.project.repository.diskPath).toBe(`@hashed/${hash.slice(0, 2)}/${hash.slice(2, 4)}/${hash}`);
    const dev = await t.graphql(query, { p: project.path_with_namespace }, developer.token);
    expect(dev.body.errors).toBeUndefined();
    expect(dev.body.data.project.repository.diskPath).toBeNull();
  });
});
