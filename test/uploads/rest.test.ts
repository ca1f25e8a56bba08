/**
 * Markdown uploads: GitLab's Markdown uploads API (lib/api/markdown_uploads.rb) through @gitbeaker/rest, python-gitlab
 * and raw HTTP; the files at the project's web paths; the web UploadsController's temporary uploads moved into a new
 * personal snippet (`uploadedFiles`); upload links in rendered Markdown.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { Gitlab } from '@gitbeaker/rest';
import { hashedPath } from '../../src/git/storages.js';
import { EXTERNAL_URL, suiteServer } from '../support/server.js';
import { PNG, addMember, createProject, createUser, unique, type TestUser } from '../support/factories.js';
import { eventually } from '../support/wait.js';
import { runCommand } from '../support/process.js';

/** A small max attachment size, so the limit can be crossed with a small file. */
const MAX_ATTACHMENT = 4096;
const t = suiteServer({ maxAttachmentSize: MAX_ATTACHMENT });
let maintainer: TestUser;
let developer: TestUser;
let guest: TestUser;
let stranger: TestUser;
let project: any;

beforeAll(async () => {
  [maintainer, developer, guest, stranger] = await Promise.all([createUser(t), createUser(t), createUser(t), createUser(t)]);
  project = await createProject(t, maintainer.token);
  await addMember(t, maintainer.token, 'projects', project.id, developer.id, 30);
  await addMember(t, maintainer.token, 'projects', project.id, guest.id, 10);
});

/** A multipart POST of `file` (none when null) to a path of the server, outside /api/v4 when it starts so. */
async function post(path: string, token: string | null, file: { content: Blob | Buffer | string; name: string } | null) {
  const form = new FormData();
  if (file) form.append('file', file.content instanceof Blob ? file.content : new Blob([file.content]), file.name);
  const url = path.startsWith('/api/') || path.startsWith('/uploads/') ? `${t.url}${path}` : `${t.url}/api/v4${path}`;
  const res = await fetch(url, { method: 'POST', headers: token ? { 'PRIVATE-TOKEN': token } : {}, body: form });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

async function web(path: string, token?: string) {
  const res = await fetch(`${t.url}${path}`, { headers: token ? { 'PRIVATE-TOKEN': token } : {} });
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}

const secretOf = (url: string) => url.split('/').at(-2)!;

describe('the Markdown uploads API', () => {
  it('uploads through @gitbeaker/rest (both of its ways), answering GitLab 17\'s ProjectUpload', async () => {
    const api = new Gitlab({ host: t.url, token: developer.token });
    const image = await api.ProjectMarkdownUploads.create(project.id, { content: new Blob([PNG]), filename: 'screen shot (1).png' });
    expect(Object.keys(image).sort()).toEqual(['alt', 'full_path', 'id', 'markdown', 'url']);
    const secret = secretOf(image.url);
    expect(secret).toMatch(/^[0-9a-f]{32}$/);
    expect(image).toEqual({
      id: expect.any(Number),
      alt: 'screen_shot__1_',
      url: `/uploads/${secret}/screen_shot__1_.png`,
      full_path: `/-/project/${project.id}/uploads/${secret}/screen_shot__1_.png`,
      markdown: `![screen_shot__1_](/uploads/${secret}/screen_shot__1_.png)`,
    });
    // Anything else is a link, named with its extension.
    const text = (await api.Projects.uploadForReference(project.id, { content: new Blob(['notes']), filename: 'notes.txt' })) as any;
    expect(text.alt).toBe('notes.txt');
    expect(text.markdown).toBe(`[notes.txt](${text.url})`);
    expect(text.id).toBeGreaterThan(image.id);

    const downloaded = (await new Gitlab({ host: t.url, token: guest.token }).ProjectMarkdownUploads.download(project.id, secret, 'screen_shot__1_.png')) as Blob;
    expect(Buffer.from(await downloaded.arrayBuffer())).toEqual(PNG);
    const byId = (await new Gitlab({ host: t.url, token: maintainer.token }).ProjectMarkdownUploads.download(project.id, image.id)) as Blob;
    expect(Buffer.from(await byId.arrayBuffer())).toEqual(PNG);
  });

  it('works with python-gitlab\'s project.upload()', async () => {
    const script = [
      'import gitlab, json, sys',
      'gl = gitlab.Gitlab(sys.argv[1], private_token=sys.argv[2])',
      'print(json.dumps(gl.projects.get(int(sys.argv[3])).upload("test.txt", "testing contents")))',
    ].join('\n');
    const probe = await runCommand('/usr/bin/python3', ['-c', 'import gitlab']);
    if (probe.code !== 0) return void console.warn(`python-gitlab not importable by /usr/bin/python3, skipped: ${probe.output.trim()}`);
    // Asynchronously: the server answering python-gitlab runs in this process.
    const run = await runCommand('/usr/bin/python3', ['-c', script, t.url, developer.token, String(project.id)]);
    expect(run.code).toBe(0);
    const uploaded = JSON.parse(run.output);
    expect(uploaded.alt).toBe('test.txt');
    expect(uploaded.url).toMatch(/^\/uploads\/[0-9a-f]{32}\/test\.txt$/);
    expect(uploaded.markdown).toBe(`[test.txt](${uploaded.url})`);
    expect((await web(`/${project.path_with_namespace}${uploaded.url}`, guest.token)).bytes.toString()).toBe('testing contents');
  });

  it('refuses anonymous callers, a missing file and one over the max attachment size, storing nothing', async () => {
    const before = await t.server.database.prisma.upload.count();
    expect(await post(`/projects/${project.id}/uploads`, null, { content: 'x', name: 'x.txt' })).toEqual({ status: 401, body: { message: '401 Unauthorized' } });
    expect(await post(`/projects/${project.id}/uploads`, developer.token, null)).toEqual({ status: 400, body: { error: 'file is missing' } });
    const big = Buffer.alloc(MAX_ATTACHMENT + 1, 1);
    expect(await post(`/projects/${project.id}/uploads`, developer.token, { content: big, name: 'big.bin' })).toEqual({ status: 413, body: { message: '413 Request Entity Too Large' } });
    expect(await post(`/projects/${project.id}/uploads`, stranger.token, { content: 'x', name: 'x.txt' })).toEqual({ status: 404, body: { message: '404 Project Not Found' } });
    expect(await t.server.database.prisma.upload.count()).toBe(before);
    // Exactly the limit is fine.
    expect((await post(`/projects/${project.id}/uploads`, developer.token, { content: Buffer.alloc(MAX_ATTACHMENT, 1), name: 'edge.bin' })).status).toBe(201);
  });

  it('lists the uploads to Maintainers, newest first, with GitLab\'s MarkdownUploadAdmin fields', async () => {
    const listed = await createProject(t, maintainer.token);
    await addMember(t, maintainer.token, 'projects', listed.id, developer.id, 30);
    const first = await post(`/projects/${listed.id}/uploads`, developer.token, { content: 'one', name: 'one.txt' });
    const second = await post(`/projects/${listed.id}/uploads`, maintainer.token, { content: 'second', name: 'two.txt' });
    const res = await t.api('GET', `/projects/${listed.id}/uploads`, { token: maintainer.token });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-total')).toBe('2');
    expect(res.body).toEqual([
      { id: second.body.id, size: 6, filename: 'two.txt', created_at: expect.any(String), uploaded_by: { id: maintainer.id, name: `User ${maintainer.username}`, username: maintainer.username } },
      { id: first.body.id, size: 3, filename: 'one.txt', created_at: expect.any(String), uploaded_by: { id: developer.id, name: `User ${developer.username}`, username: developer.username } },
    ]);
    const gitbeaker = await new Gitlab({ host: t.url, token: maintainer.token }).ProjectMarkdownUploads.all(listed.id);
    expect(gitbeaker.map((u) => u.id)).toEqual([second.body.id, first.body.id]);
    expect(await t.api('GET', `/projects/${listed.id}/uploads`, { token: developer.token })).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    expect(await t.api('GET', `/projects/${listed.id}/uploads`, { token: stranger.token })).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
    expect(await t.api('GET', `/projects/${listed.id}/uploads/${first.body.id}`, { token: developer.token })).toMatchObject({ status: 403 });
  });

  it('downloads as attachments: by ID for Maintainers, by secret and name for guests; GitLab\'s 404s', async () => {
    const { body } = await post(`/projects/${project.id}/uploads`, developer.token, { content: PNG, name: 'pixel.png' });
    const secret = secretOf(body.url);
    const res = await fetch(`${t.url}/api/v4/projects/${project.id}/uploads/${secret}/pixel.png`, { headers: { 'PRIVATE-TOKEN': guest.token } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/octet-stream');
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="pixel.png"; filename*=UTF-8''pixel.png`);
    expect(Buffer.from(await res.arrayBuffer())).toEqual(PNG);
    expect(await t.api('GET', `/projects/${project.id}/uploads/${body.id}`, { token: maintainer.token })).toMatchObject({ status: 200 });
    expect(await t.api('GET', `/projects/${project.id}/uploads/2147483000`, { token: maintainer.token })).toMatchObject({ status: 404, body: { message: '404 Not found' } });
    expect(await t.api('GET', `/projects/${project.id}/uploads/${'0'.repeat(32)}/pixel.png`, { token: guest.token })).toMatchObject({ status: 404, body: { message: '404 Not Found' } });
    expect(await t.api('GET', `/projects/${project.id}/uploads/${secret}/other.png`, { token: guest.token })).toMatchObject({ status: 404, body: { message: '404 Not Found' } });
    expect(await t.api('GET', `/projects/${project.id}/uploads/${secret}/pixel.png`, { token: stranger.token })).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
    expect(await t.api('GET', `/projects/${project.id}/uploads/${secret}/pixel.png`, { token: null })).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
  });

  it('deletes by ID or by secret and name for Maintainers, removing the file; GitLab\'s refusals', async () => {
    const api = new Gitlab({ host: t.url, token: maintainer.token });
    const one = await post(`/projects/${project.id}/uploads`, developer.token, { content: 'one', name: 'gone.txt' });
    const two = await post(`/projects/${project.id}/uploads`, developer.token, { content: 'two', name: 'gone.txt' });
    const webPath = (url: string) => `/${project.path_with_namespace}${url}`;
    expect((await web(webPath(one.body.url), developer.token)).status).toBe(200);

    expect(await t.api('DELETE', `/projects/${project.id}/uploads/${one.body.id}`, { token: developer.token })).toMatchObject({ status: 403 });
    expect(await t.api('DELETE', `/projects/${project.id}/uploads/${one.body.id}`, { token: null })).toMatchObject({ status: 401 });
    await api.ProjectMarkdownUploads.remove(project.id, one.body.id);
    expect((await web(webPath(one.body.url), maintainer.token)).status).toBe(404);
    expect(await t.api('DELETE', `/projects/${project.id}/uploads/${one.body.id}`, { token: maintainer.token })).toMatchObject({ status: 404, body: { message: '404 Not found' } });

    const del = await t.api('DELETE', `/projects/${project.id}/uploads/${secretOf(two.body.url)}/gone.txt`, { token: maintainer.token });
    expect(del.status).toBe(204);
    expect(del.text).toBe('');
    expect((await web(webPath(two.body.url), maintainer.token)).status).toBe(404);
    expect(await t.api('DELETE', `/projects/${project.id}/uploads/${secretOf(two.body.url)}/gone.txt`, { token: maintainer.token })).toEqual(
      expect.objectContaining({ status: 400, body: { message: "400 Bad request - The resource that you are attempting to access does not exist or you don't have permission to perform this action." } }),
    );
  });

  it('deletes through GraphQL\'s uploadDelete, a missing upload in the payload\'s errors', async () => {
    const { body } = await post(`/projects/${project.id}/uploads`, developer.token, { content: 'gql', name: 'gql.txt' });
    const mutation = 'mutation($i: UploadDeleteInput!) { uploadDelete(input: $i) { upload { id path size } errors } }';
    const input = { projectPath: project.path_with_namespace, secret: secretOf(body.url), filename: 'gql.txt' };
    expect((await t.graphql(mutation, { i: input }, developer.token)).body.errors?.[0]?.message).toBe(
      "The resource that you are attempting to access does not exist or you don't have permission to perform this action",
    );
    const deleted = await t.graphql(mutation, { i: input }, maintainer.token);
    expect(deleted.body.data.uploadDelete).toEqual({ upload: { id: `gid://gitlab/Upload/${body.id}`, path: `${input.secret}/gql.txt`, size: 3 }, errors: [] });
    const again = await t.graphql(mutation, { i: input }, maintainer.token);
    expect(again.body.data.uploadDelete).toEqual({ upload: null, errors: ["The resource that you are attempting to access does not exist or you don't have permission to perform this action."] });
  });
});

describe('the web paths of project uploads', () => {
  it('serve the file to the project\'s readers at its path and by its ID, inline when a browser shows it', async () => {
    const image = await post(`/projects/${project.id}/uploads`, developer.token, { content: PNG, name: 'inline.png' });
    const text = await post(`/projects/${project.id}/uploads`, developer.token, { content: '<script>x</script>', name: 'page.html' });
    for (const path of [`/${project.path_with_namespace}${image.body.url}`, image.body.full_path]) {
      const res = await web(path, guest.token);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('image/png');
      expect(res.headers.get('content-disposition')).toBe(`inline; filename="inline.png"; filename*=UTF-8''inline.png`);
      expect(res.headers.get('cache-control')).toBe('max-age=0, private, must-revalidate');
      expect(res.bytes).toEqual(PNG);
      expect((await web(path, stranger.token)).status).toBe(404);
      expect((await web(path)).status).toBe(404);
    }
    const html = await web(text.body.full_path, developer.token);
    expect(html.headers.get('content-type')).toBe('application/octet-stream');
    expect(html.headers.get('content-disposition')).toMatch(/^attachment; /);
    expect((await web(`/${project.path_with_namespace}/uploads/${secretOf(image.body.url)}/other.png`, guest.token)).status).toBe(404);
  });

  it('serve a public project\'s uploads to anonymous readers', async () => {
    const open = await createProject(t, maintainer.token, { visibility: 'public' });
    const { body } = await post(`/projects/${open.id}/uploads`, maintainer.token, { content: 'public', name: 'open.txt' });
    expect((await web(`/${open.path_with_namespace}${body.url}`)).bytes.toString()).toBe('public');
  });

  it('go with the project when it is deleted', async () => {
    const doomed = await createProject(t, maintainer.token);
    const { body } = await post(`/projects/${doomed.id}/uploads`, maintainer.token, { content: 'doomed', name: 'doomed.txt' });
    const folder = join(t.server.app.uploads.root, hashedPath(doomed.id).replace(/\.git$/, ''));
    expect(existsSync(join(folder, body.url.replace('/uploads/', '')))).toBe(true);
    expect((await t.api('DELETE', `/projects/${doomed.id}`, { token: maintainer.token })).status).toBe(202);
    await eventually(() => !existsSync(folder));
    await eventually(async () => (await t.server.database.prisma.upload.count({ where: { modelType: 'Project', modelId: doomed.id } })) === 0);
  });
});

describe('Markdown with uploads', () => {
  it('links uploads into their project in descriptions and notes, as GitLab\'s UploadLinkFilter does', async () => {
    const { body } = await post(`/projects/${project.id}/uploads`, developer.token, { content: PNG, name: 'shot.png' });
    const report = await post(`/projects/${project.id}/uploads`, developer.token, { content: 'log', name: 'report.txt' });
    const issue = await t.api('POST', `/projects/${project.id}/issues`, { token: developer.token, body: { title: 'with uploads', description: `${body.markdown} and ${report.body.markdown}` } });
    await t.api('POST', `/projects/${project.id}/issues/${issue.body.iid}/notes`, { token: developer.token, body: { body: body.markdown } });
    const query = 'query($p: ID!, $iid: String!) { project(fullPath: $p) { issue(iid: $iid) { descriptionHtml notes { nodes { bodyHtml } } } } }';
    const res = await t.graphql(query, { p: project.path_with_namespace, iid: String(issue.body.iid) }, developer.token);
    const found = res.body.data.project.issue;
    const base = `${EXTERNAL_URL}/${project.path_with_namespace}`;
    expect(found.descriptionHtml).toContain(`<img src="${base}${body.url}" alt="shot" data-canonical-src="${body.url}" class="gfm">`);
    expect(found.descriptionHtml).toContain(`<a href="${base}${report.body.url}" rel="nofollow noreferrer noopener" data-canonical-src="${report.body.url}" data-link="true" class="gfm">report.txt</a>`);
    expect(found.notes.nodes.some((n: { bodyHtml: string }) => n.bodyHtml.includes(`src="${base}${body.url}"`))).toBe(true);
  });
});

describe('temporary uploads and personal snippets', () => {
  const create = 'mutation($i: CreateSnippetInput!) { createSnippet(input: $i) { snippet { id description descriptionHtml } errors } }';

  it('moves the author\'s temporary uploads into a new personal snippet, rewriting its description', async () => {
    const author = await createUser(t);
    const upload = await post(`/uploads/user?id=${author.id}`, author.token, { content: PNG, name: 'diagram.png' });
    expect(upload.status).toBe(200);
    const secret = secretOf(upload.body.link.url);
    expect(upload.body).toEqual({ link: { alt: 'diagram', url: `/uploads/-/system/user/${author.id}/${secret}/diagram.png`, markdown: `![diagram](/uploads/-/system/user/${author.id}/${secret}/diagram.png)` } });
    // Only its uploader (and administrators) read a temporary upload.
    expect((await web(upload.body.link.url, author.token)).bytes).toEqual(PNG);
    expect((await web(upload.body.link.url, stranger.token)).status).toBe(404);
    expect((await web(upload.body.link.url, t.rootToken)).status).toBe(200);
    // Another user's temporary upload, named in uploadedFiles, is not theirs to move.
    const others = await post(`/uploads/user?id=${stranger.id}`, stranger.token, { content: 'mine', name: 'mine.txt' });

    const description = `See ${upload.body.link.markdown} and ${others.body.link.markdown}`;
    const res = await t.graphql(create, { i: { title: 'with files', visibilityLevel: 'public', description, files: [{ filePath: 'a.txt', content: 'a' }], uploadedFiles: [upload.body.link.url, others.body.link.url] } }, author.token);
    expect(res.body.data.createSnippet.errors).toEqual([]);
    const snippet = res.body.data.createSnippet.snippet;
    const id = Number(snippet.id.split('/').at(-1));
    const moved = `/uploads/-/system/personal_snippet/${id}/${secret}/diagram.png`;
    expect(snippet.description).toBe(`See ![diagram](${moved}) and ${others.body.link.markdown}`);
    expect(snippet.descriptionHtml).toContain(`src="${EXTERNAL_URL}${moved}"`);
    expect((await web(upload.body.link.url, author.token)).status).toBe(404);
    expect((await web(moved, stranger.token)).bytes).toEqual(PNG);
    expect((await web(others.body.link.url, stranger.token)).status).toBe(200);

    // A reader of the snippet uploads to it; a private snippet's files stay with its readers.
    const commented = await post(`/uploads/personal_snippet?id=${id}`, stranger.token, { content: 'comment', name: 'c.txt' });
    expect(commented.body.link.url).toMatch(new RegExp(`^/uploads/-/system/personal_snippet/${id}/[0-9a-f]{32}/c\\.txt$`));
    await t.api('PUT', `/snippets/${id}`, { token: author.token, body: { visibility: 'private' } });
    expect((await web(moved, stranger.token)).status).toBe(404);
    expect((await web(moved, author.token)).status).toBe(200);

    // Deleting the snippet removes its uploads.
    expect((await t.api('DELETE', `/snippets/${id}`, { token: author.token })).status).toBe(204);
    await eventually(async () => (await t.server.database.prisma.upload.count({ where: { modelType: 'Snippet', modelId: id } })) === 0);
    expect(existsSync(join(t.server.app.uploads.root, '-', 'system', 'personal_snippet', String(id)))).toBe(false);
  });

  it('go with their user when the user is deleted', async () => {
    const leaving = await createUser(t);
    const { body } = await post(`/uploads/user?id=${leaving.id}`, leaving.token, { content: 'bye', name: 'bye.txt' });
    const folder = join(t.server.app.uploads.root, '-', 'system', 'user', String(leaving.id));
    expect(existsSync(join(folder, secretOf(body.link.url), 'bye.txt'))).toBe(true);
    expect((await t.api('DELETE', `/users/${leaving.id}`)).status).toBe(204);
    expect(existsSync(folder)).toBe(false);
    expect(await t.server.database.prisma.upload.count({ where: { modelType: 'User', modelId: leaving.id } })).toBe(0);
  });

  it('answers the UploadsController\'s refusals', async () => {
    const user = await createUser(t);
    expect(await post(`/uploads/user?id=${user.id}`, null, { content: 'x', name: 'x.txt' })).toEqual({ status: 401, body: { error: 'You need to sign in or sign up before continuing.' } });
    expect(await post(`/uploads/user?id=${user.id}`, user.token, null)).toEqual({ status: 422, body: 'Invalid file.' });
    expect((await post(`/uploads/user?id=${stranger.id}`, user.token, { content: 'x', name: 'x.txt' })).status).toBe(404);
    expect((await post(`/uploads/user`, user.token, { content: 'x', name: 'x.txt' })).status).toBe(404);
    expect((await post(`/uploads/project?id=${project.id}`, user.token, { content: 'x', name: 'x.txt' })).status).toBe(404);
    expect((await post(`/uploads/user?id=${user.id}`, user.token, { content: Buffer.alloc(MAX_ATTACHMENT + 1), name: 'big.bin' })).status).toBe(413);
    const readOnly = await t.api('POST', `/users/${user.id}/personal_access_tokens`, { body: { name: unique('ro'), scopes: ['read_api'] } });
    expect((await post(`/uploads/user?id=${user.id}`, readOnly.body.token, { content: 'x', name: 'x.txt' })).status).toBe(403);
    // A personal snippet its caller cannot read, and a project snippet, take no uploads here.
    const hidden = await t.graphql(create, { i: { title: 'hidden', visibilityLevel: 'private', files: [{ filePath: 'a.txt', content: 'a' }] } }, stranger.token);
    const hiddenId = hidden.body.data.createSnippet.snippet.id.split('/').at(-1);
    expect((await post(`/uploads/personal_snippet?id=${hiddenId}`, user.token, { content: 'x', name: 'x.txt' })).status).toBe(404);
    expect(await t.server.database.prisma.upload.count({ where: { modelType: 'User', modelId: user.id } })).toBe(0);
  });
});
