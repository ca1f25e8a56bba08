/** Real clients: @gitbeaker/rest's Commits, RepositoryFiles, Branches, Tags and Repositories; GitLab-style GraphQL. */
import { Gitlab } from '@gitbeaker/rest';
import { beforeAll, describe, expect, it } from 'vitest';
import { suiteServer } from '../support/server.js';
import { createProject } from '../support/factories.js';

const t = suiteServer();
let api: InstanceType<typeof Gitlab>;

beforeAll(() => {
  api = new Gitlab({ host: t.url, token: t.rootToken });
});

describe('@gitbeaker/rest', () => {
  it('commits, reads files, branches, tags, tree and compare', async () => {
    const p = await createProject(t, t.rootToken);
    const commit = await api.Commits.create(p.id, 'main', 'Add CI', [
      { action: 'create', filePath: '.gitlab-ci.yml', content: 'test:\n  script: echo ok\n' },
      { action: 'create', filePath: 'lib/a.ts', content: 'a' },
    ]);
    expect(commit.title).toBe('Add CI');
    const file = await api.RepositoryFiles.show(p.id, '.gitlab-ci.yml', 'main');
    expect(Buffer.from(file.content, 'base64').toString()).toBe('test:\n  script: echo ok\n');
    expect(file.last_commit_id).toBe(commit.id);
    expect(await api.RepositoryFiles.showRaw(p.id, 'lib/a.ts', 'main')).toBe('a');
    await api.RepositoryFiles.create(p.id, 'lib/b.ts', 'main', 'b', 'Add b');
    await api.RepositoryFiles.edit(p.id, 'lib/b.ts', 'main', 'B', 'Edit b');
    await api.RepositoryFiles.remove(p.id, 'lib/a.ts', 'main', 'Remove a');
    const commits = await api.Commits.all(p.id, { refName: 'main' });
    expect(commits.map((c) => c.title)).toEqual(['Remove a', 'Edit b', 'Add b', 'Add CI']);
    expect((await api.Commits.show(p.id, commit.id)).id).toBe(commit.id);

    const branch = await api.Branches.create(p.id, 'feature', 'main');
    expect(branch.name).toBe('feature');
    expect((await api.Branches.all(p.id)).map((b) => b.name)).toEqual(['feature', 'main']);
    expect((await api.Branches.show(p.id, 'feature')).commit.id).toBe(commits[0].id);
    await api.Branches.remove(p.id, 'feature');

    const tag = await api.Tags.create(p.id, 'v1', 'main', { message: 'First' });
    expect(tag.message).toBe('First');
    expect((await api.Tags.all(p.id)).map((x) => x.name)).toEqual(['v1']);
    expect((await api.Tags.show(p.id, 'v1')).commit.id).toBe(commits[0].id);
    await api.Tags.remove(p.id, 'v1');

    const tree = await api.Repositories.allRepositoryTrees(p.id, { recursive: true });
    expect(tree.map((e) => e.path)).toEqual(['lib', '.gitlab-ci.yml', 'lib/b.ts']);
    const compare = await api.Repositories.compare(p.id, commit.id, 'main');
    expect(compare.commits).toHaveLength(3);
    const blob = await api.Repositories.showBlobRaw(p.id, tree[1].id);
    expect(String(blob)).toContain('script: echo ok');
  });
});

describe('GraphQL', () => {
  it('commitCreate, tree and blobs with GitLab names; refusals in errors', async () => {
    const p = await createProject(t, t.rootToken);
    const mutation = `mutation($input: CommitCreateInput!) { commitCreate(input: $input) { commit { sha title message } errors } }`;
    const input = {
      projectPath: p.path_with_namespace,
      branch: 'main',
      message: 'Via GraphQL',
      actions: [
        { action: 'CREATE', filePath: 'docs/readme.md', content: 'hi' },
        { action: 'CREATE', filePath: 'top.txt', content: Buffer.from('top').toString('base64'), encoding: 'BASE64' },
      ],
    };
    const made = await t.graphql(mutation, { input });
    expect(made.body.errors).toBeUndefined();
    expect(made.body.data.commitCreate).toMatchObject({ commit: { title: 'Via GraphQL', message: 'Via GraphQL' }, errors: [] });
    const refused = await t.graphql(mutation, { input });
    expect(refused.body.data.commitCreate).toEqual({ commit: null, errors: ['A file with this name already exists'] });

    const query = `query($path: ID!) { project(fullPath: $path) { repository {
      rootRef
      tree(path: "", ref: "main", recursive: true) { trees { nodes { name path type flatPath } } blobs { nodes { name path type mode } } }
      blobs(paths: ["top.txt", "missing"], ref: "main") { nodes { path rawTextBlob size } }
    } } }`;
    const read = await t.graphql(query, { path: p.path_with_namespace });
    expect(read.body.errors).toBeUndefined();
    expect(read.body.data.project.repository).toEqual({
      rootRef: 'main',
      tree: {
        trees: { nodes: [{ name: 'docs', path: 'docs', type: 'tree', flatPath: 'docs' }] },
        blobs: { nodes: [{ name: 'readme.md', path: 'docs/readme.md', type: 'blob', mode: '100644' }, { name: 'top.txt', path: 'top.txt', type: 'blob', mode: '100644' }] },
      },
      blobs: { nodes: [{ path: 'top.txt', rawTextBlob: 'top', size: 3 }] },
    });
  });
});
