/** Snippets over REST: GitLab's shapes, versioned files, the visibility matrix, bad input, and gitbeaker. */
import { beforeAll, describe, expect, it } from 'vitest';
import { Gitlab } from '@gitbeaker/rest';
import { suiteServer, EXTERNAL_URL } from '../support/server.js';
import { addMember, createProject, createUser, type TestUser } from '../support/factories.js';

const t = suiteServer();

let author: TestUser;
let other: TestUser;
let external: TestUser;
let admin: TestUser;

beforeAll(async () => {
  [author, other] = await Promise.all([createUser(t), createUser(t)]);
  external = await createUser(t, { external: true });
  admin = await createUser(t, { admin: true });
});

async function create(token: string, body: Record<string, unknown>) {
  const res = await t.api('POST', '/snippets', { token, body });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

describe('personal snippets', () => {
  it('creates a snippet as a commit, answers GitLab\'s entity, and versions each change', async () => {
    const res = await t.api('POST', '/snippets', {
      token: author.token,
      headers: { 'User-Agent': 'snippet-test/1.0' },
      body: { title: 'Hello', description: 'first', visibility: 'public', files: [{ file_path: 'hello.rb', content: 'puts 1\n' }, { file_path: 'lib/a.txt', content: 'a' }] },
    });
    expect(res.status, res.text).toBe(201);
    const s = res.body;
    expect(Object.keys(s).sort()).toEqual(
      ['author', 'created_at', 'description', 'expires_at', 'file_name', 'files', 'http_url_to_repo', 'id', 'imported', 'imported_from', 'project_id', 'raw_url', 'ssh_url_to_repo', 'title', 'updated_at', 'visibility', 'web_url'].sort(),
    );
    expect(s).toMatchObject({
      title: 'Hello',
      description: 'first',
      visibility: 'public',
      project_id: null,
      file_name: 'hello.rb',
      imported: false,
      imported_from: 'none',
      expires_at: null,
      web_url: `${EXTERNAL_URL}/-/snippets/${s.id}`,
      raw_url: `${EXTERNAL_URL}/-/snippets/${s.id}/raw`,
      http_url_to_repo: `${EXTERNAL_URL}/snippets/${s.id}.git`,
      ssh_url_to_repo: `git@gitlab.example.com:snippets/${s.id}.git`,
      files: [
        { path: 'hello.rb', raw_url: `${EXTERNAL_URL}/-/snippets/${s.id}/raw/main/hello.rb` },
        { path: 'lib/a.txt', raw_url: `${EXTERNAL_URL}/-/snippets/${s.id}/raw/main/lib/a.txt` },
      ],
    });
    expect(s.author).toMatchObject({ id: author.id, username: author.username });

    const raw = await t.api('GET', `/snippets/${s.id}/raw`, { token: null });
    expect(raw.status).toBe(200);
    expect(raw.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(raw.text).toBe('puts 1\n');

    // Each action a commit: the file at the first commit stays readable at its sha.
    const repoPath = t.server.app.repositories.path({ id: s.id, repositoryStorage: 'default', diskPath: (await import('../../src/modules/snippets/service.js')).snippetDiskPath(s.id) });
    const { execFileSync } = await import('node:child_process');
    const first = execFileSync('git', ['-C', repoPath, 'rev-parse', 'main'], { encoding: 'utf8' }).trim();

    const upd = await t.api('PUT', `/snippets/${s.id}`, {
      token: author.token,
      body: {
        title: 'Hello 2',
        files: [
          { action: 'update', file_path: 'hello.rb', content: 'puts 2\n' },
          { action: 'move', previous_path: 'lib/a.txt', file_path: 'b.txt' },
          { action: 'create', file_path: 'c.txt', content: 'c' },
        ],
      },
    });
    expect(upd.status, upd.text).toBe(200);
    expect(upd.body.title).toBe('Hello 2');
    expect(upd.body.files.map((f: { path: string }) => f.path)).toEqual(['b.txt', 'c.txt', 'hello.rb']);
    const second = execFileSync('git', ['-C', repoPath, 'rev-parse', 'main'], { encoding: 'utf8' }).trim();
    expect(second).not.toBe(first);

    const old = await t.api('GET', `/snippets/${s.id}/files/${first}/hello.rb/raw`, { token: null });
    expect(old.status).toBe(200);
    expect(old.text).toBe('puts 1\n');
    const now = await t.api('GET', `/snippets/${s.id}/files/main/hello.rb/raw`, { token: null });
    expect(now.text).toBe('puts 2\n');
    expect((await t.api('GET', `/snippets/${s.id}/files/${first}/lib%2Fa.txt/raw`, { token: null })).text).toBe('a');
    expect(await t.api('GET', `/snippets/${s.id}/files/${second}/lib%2Fa.txt/raw`, { token: null })).toMatchObject({ status: 404, body: { message: '404 File Not Found' } });
    expect(await t.api('GET', `/snippets/${s.id}/files/nope/hello.rb/raw`, { token: null })).toMatchObject({ status: 404, body: { message: '404 Reference Not Found' } });

    const del = await t.api('PUT', `/snippets/${s.id}`, { token: author.token, body: { files: [{ action: 'delete', file_path: 'c.txt' }] } });
    expect(del.status, del.text).toBe(200);
    expect(del.body.files.map((f: { path: string }) => f.path)).toEqual(['b.txt', 'hello.rb']);

    // Several files: the deprecated single-file form is refused.
    expect(await t.api('PUT', `/snippets/${s.id}`, { token: author.token, body: { content: 'x' } })).toMatchObject({
      status: 400,
      body: { message: { error: 'To update Snippets with multiple files, you must use the `files` parameter' } },
    });

    // One snippet: the author with e-mail and created_at (the author sees their own e-mail).
    const one = await t.api('GET', `/snippets/${s.id}`, { token: author.token });
    expect(one.status).toBe(200);
    expect(Object.keys(one.body.author)).toEqual(expect.arrayContaining(['email', 'created_at']));
    expect(one.body.author.email).toBe(`${author.username}@example.com`);

    // User agent detail: administrators only.
    expect((await t.api('GET', `/snippets/${s.id}/user_agent_detail`, { token: author.token })).status).toBe(403);
    const detail = await t.api('GET', `/snippets/${s.id}/user_agent_detail`, { token: admin.token });
    expect(detail.status).toBe(200);
    expect(detail.body).toEqual({ user_agent: 'snippet-test/1.0', ip_address: expect.any(String), akismet_submitted: false });
    expect(await t.api('GET', '/snippets/999999/user_agent_detail', { token: admin.token })).toMatchObject({ status: 404, body: { message: '404 Not found' } });
  });

  it('takes the deprecated file_name and content', async () => {
    const s = await create(author.token, { title: 'old', file_name: 'x.txt', content: 'hi', visibility: 'private' });
    expect(s.file_name).toBe('x.txt');
    expect(s.visibility).toBe('private');
    const upd = await t.api('PUT', `/snippets/${s.id}`, { token: author.token, body: { file_name: 'y.txt', content: 'ho' } });
    expect(upd.status, upd.text).toBe(200);
    expect(upd.body.file_name).toBe('y.txt');
    expect((await t.api('GET', `/snippets/${s.id}/raw`, { token: author.token })).text).toBe('ho');
  });

  it('defaults to internal visibility', async () => {
    const s = await create(author.token, { title: 'internal', files: [{ file_path: 'a', content: 'a' }] });
    expect(s.visibility).toBe('internal');
  });

  it('refuses bad input with GitLab\'s 400s and stores nothing', async () => {
    const before = await t.server.app.db.snippet.count();
    const cases: [Record<string, unknown>, number, unknown][] = [
      [{ files: [{ file_path: 'a', content: 'a' }] }, 400, { error: 'title is missing' }],
      [{ title: 't' }, 400, { error: 'files, content are missing, exactly one parameter must be provided' }],
      [{ title: 't', content: 'x', files: [{ file_path: 'a', content: 'a' }] }, 400, { error: 'files, content are mutually exclusive' }],
      [{ title: 't', content: 'x' }, 400, { error: 'file_name is missing' }],
      [{ title: 't', files: [{ file_path: 'a', content: '' }] }, 400, { error: 'files[0][content] is empty' }],
      [{ title: 't', files: [{ file_path: '../etc/passwd', content: 'a' }] }, 400, { error: 'files[0][file_path] should be a valid file path' }],
      [{ title: 't', files: [{ file_path: '/abs', content: 'a' }] }, 400, { error: 'files[0][file_path] should be a valid file path' }],
      [{ title: 't', visibility: 'secret', files: [{ file_path: 'a', content: 'a' }] }, 400, { error: 'visibility does not have a valid value' }],
      [{ title: ' ', files: [{ file_path: 'a', content: 'a' }] }, 400, { message: { error: "Title can't be blank" } }],
      [{ title: 't', files: Array.from({ length: 11 }, (_, i) => ({ file_path: `f${i}`, content: 'x' })) }, 400, { message: { error: 'Repository files count over the limit' } }],
      [{ title: 't', files: [{ file_path: 'a', content: 'a' }, { file_path: 'a', content: 'b' }] }, 400, { message: { error: 'Repository Error creating the snippet' } }],
    ];
    for (const [body, status, expected] of cases) {
      const res = await t.api('POST', '/snippets', { token: author.token, body });
      expect({ status: res.status, body: res.body }, JSON.stringify(body)).toEqual({ status, body: expected });
    }
    // A NUL byte is refused before any route (GitLab's HandleMalformedStrings).
    const nul = await t.api('POST', '/snippets', { token: author.token, body: { title: 'a\u0000b', files: [{ file_path: 'a', content: 'a' }] } });
    expect(nul.status).toBe(400);
    expect(await t.server.app.db.snippet.count()).toBe(before);
    expect((await t.api('POST', '/snippets', { token: null, body: { title: 't', content: 'x', file_name: 'a' } })).status).toBe(401);
  });

  it('shows each visibility to whom GitLab shows it', async () => {
    const ids: Record<string, number> = {};
    for (const visibility of ['private', 'internal', 'public']) ids[visibility] = (await create(author.token, { title: visibility, visibility, files: [{ file_path: 'f', content: visibility }] })).id;
    const viewers: [string, string | null, Record<string, number>][] = [
      ['anonymous', null, { private: 404, internal: 404, public: 200 }],
      ['external', external.token, { private: 404, internal: 404, public: 200 }],
      ['other', other.token, { private: 404, internal: 200, public: 200 }],
      ['author', author.token, { private: 200, internal: 200, public: 200 }],
      ['admin', admin.token, { private: 200, internal: 200, public: 200 }],
    ];
    for (const [who, token, expected] of viewers) {
      for (const [visibility, status] of Object.entries(expected)) {
        const one = await t.api('GET', `/snippets/${ids[visibility]}`, { token });
        expect(one.status, `${who} ${visibility}`).toBe(status);
        if (status === 404) expect(one.body).toEqual({ message: '404 Snippet Not Found' });
        expect((await t.api('GET', `/snippets/${ids[visibility]}/raw`, { token })).status, `${who} ${visibility} raw`).toBe(status);
      }
    }
    // Only the author changes or deletes a personal snippet through /snippets/:id; others do not find it.
    expect((await t.api('PUT', `/snippets/${ids.public}`, { token: other.token, body: { title: 'x' } })).status).toBe(404);
    expect((await t.api('DELETE', `/snippets/${ids.internal}`, { token: other.token })).status).toBe(404);
    // Lists: the caller's own, public personal ones, everything readable.
    const mine = await t.api('GET', '/snippets?per_page=100', { token: other.token });
    expect(mine.body.map((s: { id: number }) => s.id)).toEqual([]);
    const pub = await t.api('GET', '/snippets/public?per_page=100', { token: other.token });
    expect(pub.body.map((s: { id: number }) => s.id)).toContain(ids.public);
    expect(pub.body.map((s: { id: number }) => s.id)).not.toContain(ids.internal);
    const all = await t.api('GET', '/snippets/all?per_page=100', { token: other.token });
    expect(all.body.map((s: { id: number }) => s.id)).toEqual(expect.arrayContaining([ids.public, ids.internal]));
    expect(all.body.map((s: { id: number }) => s.id)).not.toContain(ids.private);
    expect((await t.api('GET', '/snippets', { token: null })).status).toBe(401);
    // External users create no personal snippets (GlobalPolicy's create_snippet).
    expect(await t.api('POST', '/snippets', { token: external.token, body: { title: 'x', files: [{ file_path: 'x', content: 'x' }] } })).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    const adminAll = await t.api('GET', '/snippets/all?per_page=100&repository_storage=default', { token: admin.token });
    expect(adminAll.body.map((s: { id: number }) => s.id)).toContain(ids.private);
    expect(adminAll.body[0].repository_storage).toBe('default');
    expect((await t.api('GET', '/snippets/all?repository_storage=default', { token: other.token })).status).toBe(403);
    const page = await t.api('GET', '/snippets?per_page=1', { token: author.token });
    expect(page.body).toHaveLength(1);
    expect(Number(page.headers.get('x-total'))).toBeGreaterThan(1);
    const future = await t.api('GET', '/snippets?created_after=2100-01-01T00:00:00Z', { token: author.token });
    expect(future.body).toEqual([]);
  });

  it('deletes a snippet and its repository', async () => {
    const s = await create(author.token, { title: 'gone', files: [{ file_path: 'a', content: 'a' }] });
    const { snippetDiskPath } = await import('../../src/modules/snippets/service.js');
    const { existsSync } = await import('node:fs');
    const repository = t.server.app.repositories.path({ id: s.id, repositoryStorage: 'default', diskPath: snippetDiskPath(s.id) });
    expect(existsSync(repository)).toBe(true);
    const res = await t.api('DELETE', `/snippets/${s.id}`, { token: author.token });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    await t.server.app.jobs.drain();
    expect(existsSync(repository)).toBe(false);
    expect(await t.server.app.db.snippet.findUnique({ where: { id: s.id } })).toBeNull();
    expect((await t.api('GET', `/snippets/${s.id}`, { token: author.token })).status).toBe(404);
    expect((await t.api('DELETE', `/snippets/${s.id}`, { token: author.token })).status).toBe(404);
  });
});

describe('project snippets', () => {
  let project: { id: number; path_with_namespace: string };
  let reporter: TestUser;
  let guest: TestUser;

  beforeAll(async () => {
    [reporter, guest] = await Promise.all([createUser(t), createUser(t)]);
    project = await createProject(t, author.token, { visibility: 'private' });
    await addMember(t, author.token, 'projects', project.id, reporter.id, 20);
    await addMember(t, author.token, 'projects', project.id, guest.id, 10);
  });

  it('creates, reads and changes snippets under the project\'s rules', async () => {
    const res = await t.api('POST', `/projects/${project.id}/snippets`, { token: reporter.token, body: { title: 'p', visibility: 'private', files: [{ file_path: 'p.txt', content: 'p' }] } });
    expect(res.status, res.text).toBe(201);
    const s = res.body;
    expect(s).toMatchObject({
      project_id: project.id,
      web_url: `${EXTERNAL_URL}/${project.path_with_namespace}/-/snippets/${s.id}`,
      http_url_to_repo: `${EXTERNAL_URL}/${project.path_with_namespace}/snippets/${s.id}.git`,
    });
    // Guests read; outsiders do not find the project; guests may not create.
    expect((await t.api('GET', `/projects/${project.id}/snippets/${s.id}`, { token: guest.token })).status).toBe(200);
    expect((await t.api('GET', `/projects/${project.id}/snippets/${s.id}/raw`, { token: guest.token })).text).toBe('p');
    expect(await t.api('GET', `/projects/${project.id}/snippets/${s.id}`, { token: other.token })).toMatchObject({ status: 404 });
    expect(await t.api('GET', `/projects/${project.id}/snippets`, { token: other.token })).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
    expect((await t.api('POST', `/projects/${project.id}/snippets`, { token: guest.token, body: { title: 'g', visibility: 'private', files: [{ file_path: 'g', content: 'g' }] } })).status).toBe(403);
    expect((await t.api('PUT', `/projects/${project.id}/snippets/${s.id}`, { token: guest.token, body: { title: 'g' } })).status).toBe(403);
    // A snippet is never more visible than its project.
    expect(await t.api('POST', `/projects/${project.id}/snippets`, { token: reporter.token, body: { title: 'x', visibility: 'public', files: [{ file_path: 'x', content: 'x' }] } })).toMatchObject({ status: 400 });
    const list = await t.api('GET', `/projects/${project.id}/snippets`, { token: guest.token });
    expect(list.body.map((x: { id: number }) => x.id)).toEqual([s.id]);
    // The snippets feature turned off hides them, from members too.
    expect((await t.api('PUT', `/projects/${project.id}`, { token: author.token, body: { snippets_access_level: 'disabled' } })).status).toBe(200);
    expect((await t.api('GET', `/projects/${project.id}/snippets/${s.id}`, { token: reporter.token })).status).toBe(404);
    expect((await t.api('PUT', `/projects/${project.id}`, { token: author.token, body: { snippets_access_level: 'enabled' } })).status).toBe(200);
    expect((await t.api('DELETE', `/projects/${project.id}/snippets/${s.id}`, { token: author.token })).status).toBe(204);
  });

  it('go with their project: its deletion removes their repositories and rows', async () => {
    const doomed = await createProject(t, author.token);
    const res = await t.api('POST', `/projects/${doomed.id}/snippets`, { token: author.token, body: { title: 'doomed', visibility: 'private', files: [{ file_path: 'a.txt', content: 'a' }] } });
    expect(res.status, res.text).toBe(201);
    const { snippetDiskPath } = await import('../../src/modules/snippets/service.js');
    const { existsSync } = await import('node:fs');
    const repository = t.server.app.repositories.path({ id: res.body.id, repositoryStorage: 'default', diskPath: snippetDiskPath(res.body.id) });
    expect(existsSync(repository)).toBe(true);
    expect((await t.api('DELETE', `/projects/${doomed.id}`, { token: author.token })).status).toBe(202);
    await t.server.app.jobs.drain();
    expect(existsSync(repository)).toBe(false);
    expect(await t.server.app.db.snippet.findUnique({ where: { id: res.body.id } })).toBeNull();
  });
});

describe('gitbeaker', () => {
  it('round-trips Snippets and ProjectSnippets', async () => {
    const api = new Gitlab({ host: t.url, token: author.token });
    const s = await api.Snippets.create('gb', { files: [{ filePath: 'gb.txt', content: 'gb' }], visibility: 'internal' } as never);
    expect(s.title).toBe('gb');
    const shown = await api.Snippets.show(s.id as number);
    expect(shown.file_name).toBe('gb.txt');
    expect(await api.Snippets.showContent(s.id as number)).toBeTruthy();
    const all = await api.Snippets.all();
    expect(all.map((x) => x.id)).toContain(s.id);
    await api.Snippets.edit(s.id as number, { title: 'gb2' } as never);
    expect((await api.Snippets.show(s.id as number)).title).toBe('gb2');
    await api.Snippets.remove(s.id as number);

    const project = await createProject(t, author.token, { visibility: 'internal' });
    const ps = await api.ProjectSnippets.create(project.id, 'pgb', { visibility: 'internal', files: [{ filePath: 'p.txt', content: 'p' }] } as never);
    expect(ps.project_id).toBe(project.id);
    expect((await api.ProjectSnippets.all(project.id)).map((x) => x.id)).toEqual([ps.id]);
    expect((await api.ProjectSnippets.show(project.id, ps.id as number)).title).toBe('pgb');
    await api.ProjectSnippets.remove(project.id, ps.id as number);
  });
});
