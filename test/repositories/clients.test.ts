/** Real clients: @gitbeaker/rest's Commits, RepositoryFiles, Branches, Tags and Repositories; GitLab-style GraphQL. */
import { Gitlab } from '@gitbeaker/rest';
import { beforeAll, describe, expect, it } from 'vitest';
import { suiteServer } from '../support/server.js';
import { addMember, createProject, createUser } from '../support/factories.js';

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
      blobs: { nodes: [{ path: 'top.txt', rawTextBlob: 'top', size: '3' }] },
    });
  });

  it("takes GitLab's relay shape: input, clientMutationId echoed, refusals in errors, missing and forbidden objects raised", async () => {
    const p = await createProject(t, t.rootToken);
    const file = `mutation($id: ID!, $cid: String) {
      repositoryFileCreate(input: { clientMutationId: $cid, projectId: $id, input: { filePath: "a.txt", branch: "main", commitMessage: "Add a", content: "a" } }) {
        clientMutationId errors repositoryFileCommit { filePath branch }
      }
    }`;
    const written = await t.graphql(file, { id: String(p.id), cid: 'file-1' });
    expect(written.body).toEqual({ data: { repositoryFileCreate: { clientMutationId: 'file-1', errors: [], repositoryFileCommit: { filePath: 'a.txt', branch: 'main' } } } });

    const commit = `mutation($id: ID!) {
      repositoryCommitCreate(input: { projectId: $id, input: { branch: "main", commitMessage: "Add b", actions: [{ action: CREATE, filePath: "b.txt", content: "b" }] } }) { errors commit { title } }
    }`;
    expect((await t.graphql(commit, { id: String(p.id) })).body).toEqual({ data: { repositoryCommitCreate: { errors: [], commit: { title: 'Add b' } } } });
    expect((await t.graphql(commit, { id: String(p.id) })).body).toEqual({ data: { repositoryCommitCreate: { errors: ['A file with this name already exists'], commit: null } } });

    const branch = `mutation($id: ID!, $cid: String) {
      repositoryBranchCreate(input: { clientMutationId: $cid, projectId: $id, branch: "feature", ref: "main" }) { clientMutationId errors branch { name default } }
    }`;
    const created = await t.graphql(branch, { id: p.path_with_namespace, cid: 'branch-1' });
    expect(created.body).toEqual({ data: { repositoryBranchCreate: { clientMutationId: 'branch-1', errors: [], branch: { name: 'feature', default: false } } } });
    // A refusal of a well-formed request is the payload's, with the object null and no top-level error.
    const again = await t.graphql(branch, { id: p.path_with_namespace, cid: 'branch-2' });
    expect(again.body).toEqual({ data: { repositoryBranchCreate: { clientMutationId: 'branch-2', errors: ['Branch already exists'], branch: null } } });

    const tag = `mutation($id: ID!) { repositoryTagCreate(input: { projectId: $id, tagName: "v1", ref: "main", message: "First" }) { errors tag { name message } } }`;
    expect((await t.graphql(tag, { id: String(p.id) })).body).toEqual({ data: { repositoryTagCreate: { errors: [], tag: { name: 'v1', message: 'First' } } } });
    expect((await t.graphql(tag, { id: String(p.id) })).body).toEqual({ data: { repositoryTagCreate: { errors: ['Tag v1 already exists'], tag: null } } });
    const deleted = await t.graphql(`mutation($id: ID!) { repositoryTagDelete(input: { projectId: $id, tagName: "v1" }) { errors tag { name } } }`, { id: String(p.id) });
    expect(deleted.body).toEqual({ data: { repositoryTagDelete: { errors: [], tag: { name: 'v1' } } } });

    // A missing object, a refused operation and a caller without the right stay top-level errors.
    const missing = await t.graphql(`mutation($id: ID!) { repositoryTagDelete(input: { projectId: $id, tagName: "v1" }) { errors tag { name } } }`, { id: String(p.id) });
    expect(missing.body.data).toEqual({ repositoryTagDelete: null });
    expect(missing.body.errors?.[0]).toMatchObject({ message: "The resource that you are attempting to access does not exist or you don't have permission to perform this action", extensions: { code: 'NOT_FOUND' } });
    const defaultBranch = await t.graphql(`mutation($id: ID!) { repositoryBranchDelete(input: { projectId: $id, branch: "main" }) { errors branch { name } } }`, { id: String(p.id) });
    expect(defaultBranch.body.data).toEqual({ repositoryBranchDelete: null });
    expect(defaultBranch.body.errors?.[0].extensions?.code).toBe('METHOD_NOT_ALLOWED');
    const reporter = await createUser(t);
    await addMember(t, t.rootToken, 'projects', p.id, reporter.id, 20);
    const forbidden = await t.graphql(branch, { id: String(p.id), cid: 'branch-3' }, reporter.token);
    expect(forbidden.body.data).toEqual({ repositoryBranchCreate: null });
    expect(forbidden.body.errors?.[0].extensions?.code).toBe('FORBIDDEN');
  });
});
