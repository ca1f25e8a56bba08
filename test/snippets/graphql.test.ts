/** Snippets over GraphQL (GitLab's names and relay mutations), and GitLab's size limit on a server with a small one. */
import { beforeAll, describe, expect, it } from 'vitest';
import { suiteServer } from '../support/server.js';
import { createProject, createUser, type TestUser } from '../support/factories.js';

// SNIPPET_MAX_SIZE of 64 bytes, so a refusal needs no large body.
const t = suiteServer({ snippetMaxSize: 64 });

let author: TestUser;
let other: TestUser;

beforeAll(async () => {
  [author, other] = await Promise.all([createUser(t), createUser(t)]);
});

const CREATE = `mutation($input: CreateSnippetInput!) {
  createSnippet(input: $input) {
    clientMutationId errors
    snippet { id title visibilityLevel fileName author { username } project { id } blobs { nodes { path rawPath rawPlainData size } } userPermissions { readSnippet updateSnippet adminSnippet } }
  }
}`;

describe('GraphQL', () => {
  it('creates, lists, updates and destroys snippets with GitLab\'s global IDs', async () => {
    const created = await t.graphql(CREATE, { input: { clientMutationId: 'c1', title: 'gql', visibilityLevel: 'public', blobActions: [{ action: 'create', filePath: 'x.txt', content: 'hello' }] } }, author.token);
    expect(created.body.errors).toBeUndefined();
    const payload = created.body.data.createSnippet;
    expect(payload).toMatchObject({ clientMutationId: 'c1', errors: [], snippet: { title: 'gql', visibilityLevel: 'public', fileName: 'x.txt', author: { username: author.username }, project: null } });
    const id: string = payload.snippet.id;
    expect(id).toMatch(/^gid:\/\/gitlab\/PersonalSnippet\/\d+$/);
    const numeric = Number(id.split('/').pop());
    expect(payload.snippet.blobs.nodes).toEqual([{ path: 'x.txt', rawPath: `/-/snippets/${numeric}/raw/main/x.txt`, rawPlainData: 'hello', size: 5 }]);
    expect(payload.snippet.userPermissions).toEqual({ readSnippet: true, updateSnippet: true, adminSnippet: true });

    const listed = await t.graphql('query($ids: [SnippetID!]) { snippets(ids: $ids) { count nodes { id userPermissions { updateSnippet } } } }', { ids: [id] }, other.token);
    expect(listed.body.data.snippets).toEqual({ count: 1, nodes: [{ id, userPermissions: { updateSnippet: false } }] });
    // Another user may not change it: GitLab's ResourceNotAvailable.
    const refused = await t.graphql('mutation($id: SnippetID!) { updateSnippet(input: { id: $id, title: "no" }) { errors snippet { title } } }', { id }, other.token);
    expect(refused.body.errors?.[0].message).toMatch(/does not exist or you don't have permission/);

    const updated = await t.graphql(
      'mutation($id: SnippetID!) { updateSnippet(input: { id: $id, title: "gql2", blobActions: [{ action: move, previousPath: "x.txt", filePath: "y.txt" }] }) { errors snippet { title fileName } } }',
      { id },
      author.token,
    );
    expect(updated.body.data.updateSnippet).toEqual({ errors: [], snippet: { title: 'gql2', fileName: 'y.txt' } });
    // A service's refusal is in errors, with the snippet null.
    const bad = await t.graphql('mutation($id: SnippetID!) { updateSnippet(input: { id: $id, blobActions: [{ action: delete, filePath: "nope" }] }) { errors snippet { id } } }', { id }, author.token);
    expect(bad.body.data.updateSnippet).toEqual({ errors: ['Repository Error updating the snippet'], snippet: null });

    const destroyed = await t.graphql('mutation($id: SnippetID!) { destroySnippet(input: { id: $id }) { errors snippet { id } } }', { id }, author.token);
    expect(destroyed.body.data.destroySnippet).toEqual({ errors: [], snippet: null });
    const gone = await t.graphql('query($ids: [SnippetID!]) { snippets(ids: $ids) { count } }', { ids: [id] }, author.token);
    expect(gone.body.data.snippets.count).toBe(0);
  });

  it('lists a project\'s snippets as ProjectSnippet', async () => {
    const project = await createProject(t, author.token, { visibility: 'public' });
    const created = await t.graphql(CREATE, { input: { title: 'p', projectPath: project.path_with_namespace, visibilityLevel: 'internal', blobActions: [{ action: 'create', filePath: 'p', content: 'p' }] } }, author.token);
    const id: string = created.body.data.createSnippet.snippet.id;
    expect(id).toMatch(/^gid:\/\/gitlab\/ProjectSnippet\/\d+$/);
    const query = 'query($p: ID!) { project(fullPath: $p) { snippets { nodes { id visibilityLevel } } } }';
    expect((await t.graphql(query, { p: project.path_with_namespace }, other.token)).body.data.project.snippets.nodes).toEqual([{ id, visibilityLevel: 'internal' }]);
    expect((await t.graphql(query, { p: project.path_with_namespace }, null)).body.data.project.snippets.nodes).toEqual([]);
  });

  it('refuses content beyond SNIPPET_MAX_SIZE and stores nothing', async () => {
    const before = await t.server.app.db.snippet.count();
    const big = 'x'.repeat(65);
    const res = await t.api('POST', '/snippets', { token: author.token, body: { title: 'big', files: [{ file_path: 'a', content: big }] } });
    expect(res).toMatchObject({ status: 400, body: { message: { error: 'Content is too long (65 Bytes). The maximum size is 64 Bytes.' } } });
    const gql = await t.graphql(CREATE, { input: { title: 'big', blobActions: [{ action: 'create', filePath: 'a', content: big }] } }, author.token);
    expect(gql.body.data.createSnippet).toMatchObject({ errors: ['Content is too long (65 Bytes). The maximum size is 64 Bytes.'], snippet: null });
    expect(await t.server.app.db.snippet.count()).toBe(before);
    const small = await t.api('POST', '/snippets', { token: author.token, body: { title: 'ok', files: [{ file_path: 'a', content: 'x'.repeat(64) }] } });
    expect(small.status).toBe(201);
    const update = await t.api('PUT', `/snippets/${small.body.id}`, { token: author.token, body: { files: [{ action: 'update', file_path: 'a', content: big }] } });
    expect(update.status).toBe(400);
    expect((await t.api('GET', `/snippets/${small.body.id}/raw`, { token: author.token })).text).toBe('x'.repeat(64));
  });
});
