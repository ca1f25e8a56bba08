import { existsSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { Gitlab } from '@gitbeaker/rest';
import { UploadStorage } from '../../src/uploads/storage.js';
import { EXTERNAL_URL, suiteServer } from '../support/server.js';
import { PNG, createGroup, createProject, createUser, unique, type TestUser } from '../support/factories.js';
import { eventually } from '../support/wait.js';

const t = suiteServer({ bodyLimit: 300 * 1024 });
let alice: TestUser;

beforeAll(async () => {
  alice = await createUser(t);
});

/** Sends a FormData body (fetch writes the multipart encoding and its boundary). */
async function form(method: string, path: string, body: FormData, token: string | null = t.rootToken) {
  const res = await fetch(`${t.url}/api/v4${path}`, { method, body, headers: token ? { 'PRIVATE-TOKEN': token } : {} });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, body: text ? JSON.parse(text) : null };
}

/** A multipart body written by hand, for bodies fetch would not send. */
async function rawMultipart(path: string, boundary: string, payload: Buffer | string, headers: Record<string, string> = {}) {
  const res = await fetch(`${t.url}/api/v4${path}`, {
    method: 'POST',
    body: payload,
    headers: { 'PRIVATE-TOKEN': t.rootToken, 'Content-Type': `multipart/form-data; boundary=${boundary}`, ...headers },
  });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

/** The request's temporary files are removed once its response has gone out: wait for that, then none are left. */
/** The fields of a new user, `name` its display name. */
function userForm(prefix: string, name: string): { username: string; body: FormData } {
  const username = unique(prefix);
  const body = new FormData();
  body.set('username', username);
  body.set('name', name);
  body.set('email', `${username}@example.com`);
  return { username, body };
}

async function noTemporaryFilesLeft(): Promise<void> {
  await eventually(async () => (await readdir(t.server.app.uploads.tmp)).length === 0);
}

describe('multipart/form-data bodies', () => {
  it('creates a user from multipart fields, as from a form body', async () => {
    const { username, body } = userForm('multi', 'Multi Part');
    body.set('password', 'a-long-password');
    const res = await form('POST', '/users', body);
    expect(res.status).toBe(201);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(res.body).toMatchObject({ username, name: 'Multi Part', avatar_url: null });
  });

  it('reads repeated fields, a[] arrays and a[b] objects as the form parser does', async () => {
    const body = new FormData();
    body.set('name', 'tok');
    body.append('scopes[]', 'api');
    body.append('scopes[]', 'read_user');
    const res = await form('POST', `/users/${alice.id}/personal_access_tokens`, body);
    expect(res.status).toBe(201);
    expect(res.body.scopes).toEqual(['api', 'read_user']);
  });

  it('stores an avatar sent with POST /users and serves it back byte for byte', async () => {
    const { body } = userForm('face', 'Face');
    body.set('avatar', new Blob([PNG], { type: 'image/png' }), 'my face.png');
    const res = await form('POST', '/users', body);
    expect(res.status).toBe(201);
    expect(res.body.avatar_url).toBe(`${EXTERNAL_URL}/uploads/-/system/user/avatar/${res.body.id}/my_face.png`);
    const served = await fetch(`${t.url}/uploads/-/system/user/avatar/${res.body.id}/my_face.png`);
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('image/png');
    expect(served.headers.get('cache-control')).toBe('max-age=300, public');
    expect(Buffer.from(await served.arrayBuffer()).equals(PNG)).toBe(true);
    const head = await fetch(`${t.url}/uploads/-/system/user/avatar/${res.body.id}/my_face.png`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String(PNG.length));
    await noTemporaryFilesLeft();
  });

  // gitbeaker's Users.create sends JSON whatever its options, so users are covered with raw multipart above.
  it('accepts avatars through gitbeaker: groups and projects', async () => {
    const api = new Gitlab({ host: t.url, token: t.rootToken });
    const path = unique('grp');
    const group = await api.Groups.create(path, path, { avatar: { content: new Blob([PNG]), filename: 'logo.jpg' } });
    expect(group.avatar_url).toBe(`${EXTERNAL_URL}/uploads/-/system/group/avatar/${group.id}/logo.jpg`);
    const project = await api.Projects.create({ name: unique('prj'), namespaceId: group.id as number, avatar: { content: new Blob([PNG]), filename: 'icon.gif' } });
    expect(project.avatar_url).toBe(`${EXTERNAL_URL}/uploads/-/system/project/avatar/${project.id}/icon.gif`);
    expect((project.namespace as { avatar_url: string }).avatar_url).toBe(group.avatar_url);
    const served = await fetch(`${t.url}/uploads/-/system/project/avatar/${project.id}/icon.gif`, { headers: { 'PRIVATE-TOKEN': t.rootToken } });
    expect(served.headers.get('content-type')).toBe('image/gif');
    expect(served.headers.get('cache-control')).toBe('max-age=300, private, must-revalidate');
    expect(Buffer.from(await served.arrayBuffer()).equals(PNG)).toBe(true);
  });

  it('hides a private project\'s avatar from those who cannot read the project', async () => {
    const body = new FormData();
    body.set('name', unique('hidden'));
    body.set('avatar', new Blob([PNG]), 'secret.png');
    const project = await form('POST', '/projects', body);
    expect(project.status).toBe(201);
    const url = `${t.url}/uploads/-/system/project/avatar/${project.body.id}/secret.png`;
    expect((await fetch(url, { headers: { 'PRIVATE-TOKEN': t.rootToken } })).status).toBe(200);
    const callers: Record<string, string>[] = [{}, { 'PRIVATE-TOKEN': alice.token }, { 'PRIVATE-TOKEN': 'glpat-not-a-token' }];
    for (const headers of callers) {
      const res = await fetch(url, { headers });
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ error: '404 Not Found' });
    }
    // Another name in the same folder is not the avatar.
    expect((await fetch(url.replace('secret.png', 'other.png'), { headers: { 'PRIVATE-TOKEN': t.rootToken } })).status).toBe(404);
  });

  it('GET /projects/:id/avatar downloads the avatar; 404 Avatar Not Found without one', async () => {
    const withAvatar = new FormData();
    withAvatar.set('name', unique('pic'));
    withAvatar.set('visibility', 'public');
    withAvatar.set('avatar', new Blob([PNG]), 'pic.png');
    const project = await form('POST', '/projects', withAvatar);
    const res = await fetch(`${t.url}/api/v4/projects/${project.body.id}/avatar`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/octet-stream');
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="pic.png"; filename*=UTF-8''pic.png`);
    expect(Buffer.from(await res.arrayBuffer()).equals(PNG)).toBe(true);
    const api = new Gitlab({ host: t.url, token: t.rootToken });
    const plain = await api.Projects.create({ name: unique('plain') });
    expect(await t.api('GET', `/projects/${plain.id}/avatar`)).toMatchObject({ status: 404, body: { message: '404 Avatar Not Found' } });
    expect(await t.api('GET', `/projects/${plain.id}/avatar`, { token: null })).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
  });

  it('GET /groups/:id/avatar downloads the avatar (gitbeaker\'s Groups.downloadAvatar); 404 Avatar Not Found without one', async () => {
    const api = new Gitlab({ host: t.url, token: alice.token });
    const path = unique('logo');
    const group = await api.Groups.create(path, path, { avatar: { content: new Blob([PNG]), filename: 'logo.png' } });
    const res = await fetch(`${t.url}/api/v4/groups/${path}/avatar`, { headers: { 'PRIVATE-TOKEN': alice.token } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/octet-stream');
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="logo.png"; filename*=UTF-8''logo.png`);
    expect(Buffer.from(await res.arrayBuffer()).equals(PNG)).toBe(true);
    const downloaded: unknown = await api.Groups.downloadAvatar(group.id);
    expect(downloaded).toBeInstanceOf(Blob);
    expect(Buffer.from(await (downloaded as Blob).arrayBuffer()).equals(PNG)).toBe(true);
    const plain = await createGroup(t, alice.token);
    expect(await t.api('GET', `/groups/${plain.id}/avatar`, { token: alice.token })).toMatchObject({ status: 404, body: { message: '404 Avatar Not Found' } });
    expect(await t.api('GET', `/groups/${group.id}/avatar`, { token: null })).toMatchObject({ status: 404, body: { message: '404 Group Not Found' } });
  });

  it('PUT /user/avatar replaces the caller\'s avatar; the old file is gone', async () => {
    const first = new FormData();
    first.set('avatar', new Blob([PNG]), 'one.png');
    const one = await form('PUT', '/user/avatar', first, alice.token);
    expect(one.status).toBe(200);
    expect(one.body).toEqual({ avatar_url: `${EXTERNAL_URL}/uploads/-/system/user/avatar/${alice.id}/one.png` });
    const second = new FormData();
    second.set('avatar', new Blob([PNG]), 'two.webp');
    const two = await form('PUT', '/user/avatar', second, alice.token);
    expect(two.body).toEqual({ avatar_url: `${EXTERNAL_URL}/uploads/-/system/user/avatar/${alice.id}/two.webp` });
    expect((await fetch(`${t.url}/uploads/-/system/user/avatar/${alice.id}/one.png`)).status).toBe(404);
    expect((await fetch(`${t.url}/uploads/-/system/user/avatar/${alice.id}/two.webp`)).headers.get('content-type')).toBe('image/webp');
    const me = await t.api('GET', '/user', { token: alice.token });
    expect(me.body.avatar_url).toBe(two.body.avatar_url);
  });

  it('PUT /users/:id takes an avatar with other fields; a refused avatar changes nothing', async () => {
    const bob = await createUser(t);
    const body = new FormData();
    body.set('bio', 'with a picture');
    body.set('avatar', new Blob([PNG]), 'bob.png');
    const updated = await form('PUT', `/users/${bob.id}`, body);
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body).toMatchObject({ bio: 'with a picture', avatar_url: `${EXTERNAL_URL}/uploads/-/system/user/avatar/${bob.id}/bob.png` });
    const served = await fetch(`${t.url}/uploads/-/system/user/avatar/${bob.id}/bob.png`);
    expect(Buffer.from(await served.arrayBuffer())).toEqual(PNG);
    const refused = new FormData();
    refused.set('bio', 'changed');
    refused.set('avatar', new Blob(['not an image']), 'bob.txt');
    const answer = await form('PUT', `/users/${bob.id}`, refused);
    expect(answer.status).toBe(400);
    expect(answer.body.message.avatar[0]).toMatch(/^file format is not supported/);
    expect((await t.api('GET', `/users/${bob.id}`)).body).toMatchObject({ bio: 'with a picture', avatar_url: updated.body.avatar_url });
  });

  it('PUT /groups/:id takes an avatar with other settings', async () => {
    const group = await createGroup(t, t.rootToken, { visibility: 'public' });
    const body = new FormData();
    body.set('description', 'pictured');
    body.set('avatar', new Blob([PNG]), 'logo.png');
    const updated = await form('PUT', `/groups/${group.id}`, body);
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body).toMatchObject({ description: 'pictured', avatar_url: `${EXTERNAL_URL}/uploads/-/system/group/avatar/${group.id}/logo.png` });
    const served = await fetch(`${t.url}/uploads/-/system/group/avatar/${group.id}/logo.png`);
    expect(Buffer.from(await served.arrayBuffer())).toEqual(PNG);
  });

  it('PUT /projects/:id takes an avatar alone or with other settings', async () => {
    const project = await createProject(t, t.rootToken, { visibility: 'public' });
    const body = new FormData();
    body.set('avatar', new Blob([PNG]), 'icon.png');
    const updated = await form('PUT', `/projects/${project.id}`, body);
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body.avatar_url).toBe(`${EXTERNAL_URL}/uploads/-/system/project/avatar/${project.id}/icon.png`);
    const downloaded = await fetch(`${t.url}/api/v4/projects/${project.id}/avatar`);
    expect(Buffer.from(await downloaded.arrayBuffer())).toEqual(PNG);
  });

  it("removes a deleted user's, group's and project's avatar files with them", async () => {
    const avatar = () => {
      const body = new FormData();
      body.set('avatar', new Blob([PNG]), 'gone.png');
      return body;
    };
    const folder = (model: string, id: number) => join(t.server.app.uploads.root, '-', 'system', model, 'avatar', String(id));
    const user = await createUser(t);
    const group = await createGroup(t, t.rootToken);
    const project = await createProject(t, t.rootToken);
    expect((await form('PUT', `/users/${user.id}`, avatar())).status).toBe(200);
    expect((await form('PUT', `/groups/${group.id}`, avatar())).status).toBe(200);
    expect((await form('PUT', `/projects/${project.id}`, avatar())).status).toBe(200);
    for (const [model, id] of [['user', user.id], ['group', group.id], ['project', project.id]] as const) expect(existsSync(folder(model, id))).toBe(true);
    expect((await t.api('DELETE', `/users/${user.id}`)).status).toBe(204);
    expect((await t.api('DELETE', `/groups/${group.id}`)).status).toBe(202);
    expect((await t.api('DELETE', `/projects/${project.id}`)).status).toBe(202);
    expect(existsSync(folder('user', user.id))).toBe(false);
    await eventually(() => !existsSync(folder('group', group.id)) && !existsSync(folder('project', project.id)));
  });

  it('removes a project\'s or group\'s avatar given a blank one (gitbeaker\'s removeAvatar), and keeps it through other changes', async () => {
    const api = new Gitlab({ host: t.url, token: alice.token });
    const folder = (model: string, id: number) => join(t.server.app.uploads.root, '-', 'system', model, 'avatar', String(id));
    const project = await api.Projects.create({ name: unique('blank'), avatar: { content: new Blob([PNG]), filename: 'p.png' } });
    const path = unique('blank');
    const group = await api.Groups.create(path, path, { avatar: { content: new Blob([PNG]), filename: 'g.png' } });
    expect((await api.Projects.edit(project.id, { description: 'kept' })).avatar_url).toBe(project.avatar_url);
    expect((await t.api('PUT', `/groups/${group.id}`, { token: alice.token, body: { description: 'kept' } })).body.avatar_url).toBe(group.avatar_url);

    const removed: unknown = await api.Projects.removeAvatar(project.id);
    expect((removed as { avatar_url: string | null }).avatar_url).toBeNull();
    expect(existsSync(folder('project', project.id))).toBe(false);
    const blankForm = new URLSearchParams({ avatar: '' }).toString();
    const cleared = await t.api('PUT', `/groups/${group.id}`, { token: alice.token, body: blankForm, headers: { 'Content-Type': 'application/x-www-form-urlencoded' } });
    expect(cleared).toMatchObject({ status: 200, body: { avatar_url: null, description: 'kept' } });
    expect(existsSync(folder('group', group.id))).toBe(false);
    expect(await t.api('GET', `/projects/${project.id}/avatar`, { token: alice.token })).toMatchObject({ status: 404, body: { message: '404 Avatar Not Found' } });

    const blank = new FormData();
    blank.set('avatar', '');
    expect(await form('PUT', '/user/avatar', blank, alice.token)).toMatchObject({ status: 400, body: { error: 'avatar is invalid' } });
  });

  it('takes PUT /user/avatar only from a signed-in caller whose token has the api scope', async () => {
    const reader = await createUser(t, { scopes: ['read_api'] });
    const body = () => {
      const data = new FormData();
      data.set('avatar', new Blob([PNG]), 'x.png');
      return data;
    };
    expect(await form('PUT', '/user/avatar', body(), reader.token)).toMatchObject({ status: 403, body: { error: 'insufficient_scope', scope: 'api' } });
    expect(await form('PUT', '/user/avatar', body(), null)).toMatchObject({ status: 401, body: { message: '401 Unauthorized' } });
    await noTemporaryFilesLeft();
  });

  it('keeps the file of whichever avatar wins concurrent replacements', async () => {
    const racer = await createUser(t);
    const answers = await Promise.all(
      ['r1.png', 'r2.gif', 'r3.jpg', 'r4.webp'].map((name) => {
        const body = new FormData();
        body.set('avatar', new Blob([PNG]), name);
        return form('PUT', '/user/avatar', body, racer.token);
      }),
    );
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
    const me = await t.api('GET', '/user', { token: racer.token });
    const served = await fetch(String(me.body.avatar_url).replace(EXTERNAL_URL, t.url));
    expect(served.status).toBe(200);
    expect(Buffer.from(await served.arrayBuffer()).equals(PNG)).toBe(true);
  });

  it('refuses avatars GitLab refuses, in its words', async () => {
    const wrongType = new FormData();
    wrongType.set('avatar', new Blob(['not an image']), 'notes.txt');
    expect(await form('PUT', '/user/avatar', wrongType, alice.token)).toMatchObject({
      status: 400,
      body: { message: { avatar: ['file format is not supported. Please try one of the following supported formats: png, jpg, jpeg, gif, bmp, tiff, ico, webp'] } },
    });
    const tooBig = new FormData();
    tooBig.set('avatar', new Blob([Buffer.alloc(200 * 1024 + 1)]), 'big.png');
    expect(await form('PUT', '/user/avatar', tooBig, alice.token)).toMatchObject({ status: 400, body: { message: { avatar: ['is too big (should be at most 200 KB)'] } } });
    const notAFile = new FormData();
    notAFile.set('avatar', 'just text');
    expect(await form('PUT', '/user/avatar', notAFile, alice.token)).toMatchObject({ status: 400, body: { error: 'avatar is invalid' } });
    // A JSON body cannot pass a file of its own choosing.
    const json = await t.api('PUT', '/user/avatar', { token: alice.token, body: { avatar: { path: '/etc/passwd', filename: 'x.png', size: 1 } } });
    expect(json).toMatchObject({ status: 400, body: { error: 'avatar is invalid' } });
    const missing = await t.api('PUT', '/user/avatar', { token: alice.token, body: {} });
    expect(missing).toMatchObject({ status: 400, body: { error: 'avatar is missing' } });
    await noTemporaryFilesLeft();
  });

  it('answers 413 beyond BODY_LIMIT, whether declared or streamed', async () => {
    const big = new FormData();
    big.set('avatar', new Blob([Buffer.alloc(310 * 1024)]), 'huge.png');
    const res = await form('PUT', '/user/avatar', big, alice.token);
    expect(res).toMatchObject({ status: 413, body: { message: '413 Request Entity Too Large' } });
    const chunked = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('--b\r\nContent-Disposition: form-data; name="avatar"; filename="a.png"\r\n\r\n'));
        for (let i = 0; i < 40; i++) controller.enqueue(new Uint8Array(10 * 1024));
        controller.close();
      },
    });
    const streamed = await fetch(`${t.url}/api/v4/user/avatar`, {
      method: 'PUT',
      body: chunked,
      duplex: 'half',
      headers: { 'PRIVATE-TOKEN': alice.token, 'Content-Type': 'multipart/form-data; boundary=b' },
    } as RequestInit);
    expect(streamed.status).toBe(413);
    await noTemporaryFilesLeft();
  });

  it('answers 400 to a broken multipart body, never 500', async () => {
    const cases: [string, string][] = [
      ['b', '--b\r\nContent-Disposition: form-data; name="name"\r\n\r\nunterminated'],
      ['b', 'garbage without any boundary'],
      ['', '--\r\n'],
      ['b', '--b\r\nContent-Disposition: form-data; name="avatar"; filename="x.png"\r\n\r\n\x89PNG'],
    ];
    for (const [boundary, payload] of cases) {
      const res = await rawMultipart('/users', boundary, payload);
      expect(res.status, payload).toBe(400);
    }
    await noTemporaryFilesLeft();
  });

  it('drops parameters that would reach an object prototype', async () => {
    const { body } = userForm('proto', 'Proto');
    body.set('__proto__[admin]', 'true');
    body.set('constructor[prototype][admin]', 'true');
    const res = await form('POST', '/users', body);
    expect(res.status).toBe(201);
    expect(res.body.is_admin).toBe(false);
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
  });
});

describe('files a killed server left mid-upload', () => {
  it('are removed at the next start once untouched for an hour; fresh ones (a request streaming now) stay', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'uploads-sweep-'));
    try {
      const first = await UploadStorage.open({ dataDir });
      const old = first.temporaryPath();
      const fresh = first.temporaryPath();
      writeFileSync(old, 'half an upload');
      writeFileSync(fresh, 'an upload under way');
      const twoHoursAgo = new Date(Date.now() - 2 * 60 * 60 * 1000);
      utimesSync(old, twoHoursAgo, twoHoursAgo);
      const second = await UploadStorage.open({ dataDir });
      expect(existsSync(old)).toBe(false);
      expect(existsSync(fresh)).toBe(true);
      expect(second.tmp).toBe(first.tmp);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
