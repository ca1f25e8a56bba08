/** GitLab's GraphQL fields of snippets (descriptionHtml, SnippetBlob's viewers and highlighted data, unretrievable blobs) and Project.languages. */
import { describe, expect, it } from 'vitest';
import { suiteServer } from '../support/server.js';
import { addMember, apiOk, createProject, createUser } from '../support/factories.js';

const t = suiteServer();

const BLOB = `path externalStorage plainData renderedAsText richData
  simpleViewer { type loadAsync collapsed tooLarge renderError fileType loadingPartialName }
  richViewer { type fileType loadAsync }`;

describe('Snippet', () => {
  it("renders its description and its files' viewers, highlighted lines and Markdown", async () => {
    const user = await createUser(t);
    const snippet = await apiOk(t, user.token, 'POST', '/snippets', {
      title: 'files',
      description: 'See **this** and @' + user.username,
      visibility: 'private',
      files: [
        { file_path: 'notes.md', content: '# Head\n\n*em*\n' },
        { file_path: 'run.sh', content: 'echo "<hi>"\n' },
        { file_path: 'pic.svg', content: '<svg/>' },
        { file_path: 'model.bin', content: `version https://git-lfs.github.com/spec/v1\noid sha256:${'b'.repeat(64)}\nsize 10\n` },
      ],
    });
    const query = `query($id: SnippetID!, $paths: [String!]) { snippet(id: $id) { descriptionHtml blobs(paths: $paths) { hasUnretrievableBlobs nodes { ${BLOB} } } } }`;
    const gid = `gid://gitlab/PersonalSnippet/${snippet.id}`;
    const res = await t.graphql(query, { id: gid }, user.token);
    expect(res.body.errors).toBeUndefined();
    const s = res.body.data.snippet;
    expect(s.descriptionHtml).toContain('<strong>this</strong>');
    expect(s.descriptionHtml).toContain(`data-user`);
    expect(s.blobs.hasUnretrievableBlobs).toBe(false);
    const byPath = Object.fromEntries(s.blobs.nodes.map((b: any) => [b.path, b]));
    expect(byPath['notes.md']).toMatchObject({
      externalStorage: null,
      renderedAsText: true,
      plainData: '<span id="LC1" class="line" lang="markdown"># Head</span>\n<span id="LC2" class="line" lang="markdown"></span>\n<span id="LC3" class="line" lang="markdown">*em*</span>',
      simpleViewer: { type: 'simple', loadAsync: true, collapsed: false, tooLarge: false, renderError: null, fileType: 'text', loadingPartialName: 'loading' },
      richViewer: { type: 'rich', fileType: 'markup', loadAsync: true },
    });
    expect(byPath['notes.md'].richData).toContain('<em>em</em>');
    expect(byPath['run.sh']).toMatchObject({ plainData: '<span id="LC1" class="line" lang="shell">echo &quot;&lt;hi&gt;&quot;</span>', richViewer: null, richData: null });
    // Binary files are covered by test/repositories/gitlab-fields.test.ts (the API refuses NUL bytes in a snippet's content).
    expect(byPath['pic.svg']).toMatchObject({ plainData: '<span id="LC1" class="line" lang="xml">&lt;svg/&gt;</span>', renderedAsText: true, simpleViewer: { fileType: 'text' }, richViewer: { type: 'rich', fileType: 'svg', loadAsync: false }, richData: null });
    expect(byPath['model.bin']).toMatchObject({ externalStorage: 'lfs' });

    const some = await t.graphql(query, { id: gid, paths: ['run.sh', 'nope.txt'] }, user.token);
    expect(some.body.data.snippet.blobs.hasUnretrievableBlobs).toBe(true);
    expect(some.body.data.snippet.blobs.nodes.map((b: any) => b.path)).toEqual(['run.sh']);

    // Someone else does not see a private snippet.
    const other = await createUser(t);
    const hidden = await t.graphql(query, { id: gid }, other.token);
    expect(hidden.body.data?.snippet ?? null).toBeNull();
  });
});

describe('Snippet.commenters', () => {
  it('lists the authors of its comments once each, by ID', async () => {
    const [a, b] = [await createUser(t), await createUser(t)];
    const project = await createProject(t, t.rootToken, { visibility: 'public' });
    const snippet = await apiOk(t, t.rootToken, 'POST', `/projects/${project.id}/snippets`, { title: 'talk', visibility: 'public', files: [{ file_path: 'a.txt', content: 'a' }] });
    const query = `query($id: SnippetID!) { snippet(id: $id) { commenters { count nodes { username } } } }`;
    const gid = `gid://gitlab/ProjectSnippet/${snippet.id}`;
    expect((await t.graphql(query, { id: gid })).body.data.snippet.commenters).toEqual({ count: 0, nodes: [] });
    for (const [user, body] of [[b, 'first'], [a, 'second'], [b, 'third']] as const) {
      await apiOk(t, user.token, 'POST', `/projects/${project.id}/snippets/${snippet.id}/notes`, { body });
    }
    const res = await t.graphql(query, { id: gid }, a.token);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.snippet.commenters).toEqual({ count: 2, nodes: [{ username: a.username }, { username: b.username }] });
  });
});

describe('Project.languages', () => {
  it("answers the shares of the default branch's languages by bytes, largest first, and nothing to a Guest", async () => {
    const project = await createProject(t, t.rootToken);
    await apiOk(t, t.rootToken, 'POST', `/projects/${project.id}/repository/commits`, {
      branch: 'main',
      commit_message: 'Code',
      actions: [
        { action: 'create', file_path: 'app.rb', content: 'x'.repeat(600) },
        { action: 'create', file_path: 'lib/util.rb', content: 'x'.repeat(150) },
        { action: 'create', file_path: 'web/app.js', content: 'x'.repeat(200) },
        { action: 'create', file_path: 'Dockerfile', content: 'x'.repeat(50) },
        { action: 'create', file_path: 'README.md', content: 'x'.repeat(5000) },
        { action: 'create', file_path: 'vendor/big.js', content: 'x'.repeat(5000) },
        { action: 'create', file_path: 'docs/guide.rb', content: 'x'.repeat(5000) },
      ],
    });
    const query = `query($p: ID!) { project(fullPath: $p) { languages { name share color } } }`;
    const res = await t.graphql(query, { p: project.path_with_namespace });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.project.languages).toEqual([
      { name: 'Ruby', share: 75, color: '#701516' },
      { name: 'JavaScript', share: 20, color: '#f1e05a' },
      { name: 'Dockerfile', share: 5, color: '#384d54' },
    ]);
    const guest = await createUser(t);
    await addMember(t, t.rootToken, 'projects', project.id, guest.id, 10);
    const asGuest = await t.graphql(query, { p: project.path_with_namespace }, guest.token);
    expect(asGuest.body.data.project.languages).toBeNull();
    // An empty repository has no languages.
    const empty = await createProject(t, t.rootToken);
    expect((await t.graphql(query, { p: empty.path_with_namespace })).body.data.project.languages).toEqual([]);
  });
});
