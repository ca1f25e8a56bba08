/** Snippet discussions and notes over REST (the Discussions and Notes APIs on project snippets): shapes, permissions, events. */
import { beforeAll, describe, expect, it } from 'vitest';
import { Gitlab } from '@gitbeaker/rest';
import { suiteServer, EXTERNAL_URL } from '../support/server.js';
import { addMember, createProject, createUser, type TestUser } from '../support/factories.js';

const t = suiteServer();

let owner: TestUser;
let member: TestUser;
let other: TestUser;
let admin: TestUser;
let pub: any;
let priv: any;

const NOTE_KEYS = ['attachment', 'author', 'body', 'commands_changes', 'confidential', 'created_at', 'id', 'imported', 'imported_from', 'internal', 'noteable_id', 'noteable_iid', 'noteable_type', 'project_id', 'resolvable', 'system', 'type', 'updated_at'].sort();

async function snippet(project: any, token: string, visibility: string) {
  const res = await t.api('POST', `/projects/${project.id}/snippets`, { token, body: { title: `s-${visibility}`, visibility, files: [{ file_path: 'a.txt', content: 'a' }] } });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

beforeAll(async () => {
  [owner, member, other] = await Promise.all([createUser(t), createUser(t), createUser(t)]);
  admin = await createUser(t, { admin: true });
  pub = await createProject(t, owner.token, { visibility: 'public' });
  priv = await createProject(t, owner.token, { visibility: 'private' });
  await addMember(t, owner.token, 'projects', pub.id, member.id, 30);
  await addMember(t, owner.token, 'projects', priv.id, member.id, 30);
});

describe('snippet discussions', () => {
  it('starts a thread, replies, reads, edits and deletes as GitLab answers', async () => {
    const s = await snippet(pub, owner.token, 'public');
    const base = `/projects/${pub.id}/snippets/${s.id}/discussions`;
    const created = await t.api('POST', base, { token: other.token, body: { body: 'first thread' } });
    expect(created.status, created.text).toBe(201);
    const thread = created.body;
    expect(Object.keys(thread).sort()).toEqual(['id', 'individual_note', 'notes']);
    expect(thread.id).toMatch(/^[0-9a-f]{40}$/);
    expect(thread.individual_note).toBe(false);
    const [note] = thread.notes;
    expect(Object.keys(note).sort()).toEqual(NOTE_KEYS);
    expect(note).toMatchObject({
      type: 'DiscussionNote',
      body: 'first thread',
      attachment: null,
      system: false,
      noteable_id: s.id,
      noteable_type: 'Snippet',
      project_id: pub.id,
      resolvable: false,
      confidential: false,
      internal: false,
      imported: false,
      imported_from: 'none',
      noteable_iid: null,
      commands_changes: {},
    });
    expect(note.author).toMatchObject({ id: other.id, username: other.username, web_url: `${EXTERNAL_URL}/${other.username}` });

    const reply = await t.api('POST', `${base}/${thread.id}/notes`, { token: member.token, body: { body: 'a reply' } });
    expect(reply.status, reply.text).toBe(201);
    expect(reply.body).toMatchObject({ type: 'DiscussionNote', body: 'a reply', noteable_type: 'Snippet', noteable_id: s.id });

    const list = await t.api('GET', base, { token: other.token });
    expect(list.status).toBe(200);
    expect(list.headers.get('x-total')).toBe('1');
    expect(list.body).toEqual([{ ...thread, notes: [note, reply.body] }]);
    expect((await t.api('GET', `${base}/${thread.id}`, { token: other.token })).body).toEqual(list.body[0]);
    expect((await t.api('GET', `${base}/${thread.id}/notes/${reply.body.id}`, { token: other.token })).body).toEqual(reply.body);

    // Only its author or a Maintainer changes a note.
    const notePath = `${base}/${thread.id}/notes/${note.id}`;
    expect(await t.api('PUT', notePath, { token: member.token, body: { body: 'hijack' } })).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    const edited = await t.api('PUT', notePath, { token: other.token, body: { body: 'edited' } });
    expect(edited.status, edited.text).toBe(200);
    expect(edited.body).toMatchObject({ id: note.id, body: 'edited' });
    expect(await t.api('PUT', notePath, { token: other.token, body: { resolved: true } })).toMatchObject({ status: 400, body: { message: '400 Bad request - Note is not resolvable' } });
    expect((await t.api('DELETE', notePath, { token: owner.token })).status).toBe(204);
    expect(await t.api('GET', notePath, { token: other.token })).toMatchObject({ status: 404, body: { message: '404 Not found' } });

    expect(await t.api('GET', `${base}/${'f'.repeat(40)}`, { token: other.token })).toMatchObject({ status: 404, body: { message: '404 Discussion Not Found' } });
    expect(await t.api('POST', base, { token: other.token, body: { body: '' } })).toMatchObject({ status: 400 });
    expect(await t.api('POST', base, { token: other.token, body: {} })).toMatchObject({ status: 400, body: { error: 'body is missing' } });
  });

  it('follows the snippet policy: anonymous, author, other user, admin; private snippets and projects', async () => {
    const pubPublic = await snippet(pub, member.token, 'public');
    const pubPrivate = await snippet(pub, member.token, 'private');
    const privInternal = await snippet(priv, member.token, 'private');
    const cases: { s: any; project: any; token: string | null; read: number; write: number }[] = [
      // Anonymous callers: the Discussions API authenticates first.
      { s: pubPublic, project: pub, token: null, read: 401, write: 401 },
      { s: pubPublic, project: pub, token: member.token, read: 200, write: 201 },
      { s: pubPublic, project: pub, token: other.token, read: 200, write: 201 },
      { s: pubPublic, project: pub, token: admin.token, read: 200, write: 201 },
      // A private snippet of a public project: its author and the project's members only.
      { s: pubPrivate, project: pub, token: member.token, read: 200, write: 201 },
      { s: pubPrivate, project: pub, token: owner.token, read: 200, write: 201 },
      { s: pubPrivate, project: pub, token: other.token, read: 404, write: 404 },
      { s: pubPrivate, project: pub, token: admin.token, read: 200, write: 201 },
      // A private project hides itself.
      { s: privInternal, project: priv, token: other.token, read: 404, write: 404 },
      { s: privInternal, project: priv, token: member.token, read: 200, write: 201 },
      { s: privInternal, project: priv, token: admin.token, read: 200, write: 201 },
    ];
    for (const c of cases) {
      const base = `/projects/${c.project.id}/snippets/${c.s.id}/discussions`;
      const read = await t.api('GET', base, { token: c.token });
      expect(read.status, `${c.s.title} read ${read.text}`).toBe(c.read);
      const write = await t.api('POST', base, { token: c.token, body: { body: 'hi' } });
      expect(write.status, `${c.s.title} write ${write.text}`).toBe(c.write);
      if (c.read === 404) {
        expect(read.body.message).toBe(c.project === priv ? '404 Project Not Found' : '404 Snippet Not Found');
      }
      const notes = await t.api('GET', `/projects/${c.project.id}/snippets/${c.s.id}/notes`, { token: c.token });
      // The Notes API authenticates first too (lib/api/notes.rb's `before { authenticate! }`).
      expect(notes.status, `${c.s.title} notes ${notes.text}`).toBe(c.read);
    }
    // A snippet of another project is not found through this one.
    expect(await t.api('GET', `/projects/${priv.id}/snippets/${pubPublic.id}/discussions`, { token: admin.token })).toMatchObject({ status: 404, body: { message: '404 Snippet Not Found' } });
  });
});

describe('snippet notes (Notes API)', () => {
  it('creates plain notes, lists them newest first with order_by and sort, edits and deletes', async () => {
    const s = await snippet(pub, owner.token, 'public');
    const base = `/projects/${pub.id}/snippets/${s.id}/notes`;
    const a = await t.api('POST', base, { token: other.token, body: { body: 'note a' } });
    expect(a.status, a.text).toBe(201);
    expect(Object.keys(a.body).sort()).toEqual(NOTE_KEYS);
    expect(a.body).toMatchObject({ type: null, body: 'note a', noteable_type: 'Snippet', noteable_id: s.id, project_id: pub.id, resolvable: false });
    const b = await t.api('POST', base, { token: member.token, body: { body: 'note b' } });
    // created_at only for Owners and administrators; silently ignored for others.
    const c = await t.api('POST', base, { token: owner.token, body: { body: 'note c', created_at: '2020-01-02T03:04:05Z' } });
    expect(c.body.created_at).toBe('2020-01-02T03:04:05.000Z');
    const ignored = await t.api('POST', base, { token: other.token, body: { body: 'note d', created_at: '2020-01-02T03:04:05Z' } });
    expect(ignored.body.created_at).not.toBe('2020-01-02T03:04:05.000Z');

    const desc = await t.api('GET', base, { token: other.token });
    expect(desc.status).toBe(200);
    expect(desc.body.map((n: any) => n.body)).toEqual(['note d', 'note b', 'note a', 'note c']);
    const asc = await t.api('GET', `${base}?sort=asc&per_page=2`, { token: other.token });
    expect(asc.body.map((n: any) => n.body)).toEqual(['note c', 'note a']);
    expect(asc.headers.get('x-total')).toBe('4');
    expect((await t.api('GET', `${base}?order_by=title`, { token: other.token })).status).toBe(400);

    expect(await t.api('GET', `${base}/${a.body.id}`, { token: null })).toMatchObject({ status: 401, body: { message: '401 Unauthorized' } });
    expect((await t.api('GET', `${base}/${a.body.id}`, { token: other.token })).body).toEqual(a.body);
    expect(await t.api('PUT', `${base}/${a.body.id}`, { token: member.token, body: { body: 'x' } })).toMatchObject({ status: 403 });
    const put = await t.api('PUT', `${base}/${a.body.id}`, { token: other.token, body: { body: 'note a2' } });
    expect(put.status, put.text).toBe(200);
    expect(put.body.body).toBe('note a2');
    expect(await t.api('DELETE', `${base}/${b.body.id}`, { token: other.token })).toMatchObject({ status: 403 });
    expect((await t.api('DELETE', `${base}/${b.body.id}`, { token: member.token })).status).toBe(204);
    expect(await t.api('POST', base, { token: null, body: { body: 'anon' } })).toMatchObject({ status: 401 });
    expect(await t.api('GET', `${base}/999999999`, { token: other.token })).toMatchObject({ status: 404, body: { message: '404 Not found' } });
  });

  it('records `commented on` events of snippet notes', async () => {
    const s = await snippet(pub, owner.token, 'public');
    const note = (await t.api('POST', `/projects/${pub.id}/snippets/${s.id}/notes`, { token: member.token, body: { body: 'event me' } })).body;
    const events = await t.api('GET', `/projects/${pub.id}/events?target_type=note`, { token: member.token });
    expect(events.status).toBe(200);
    const event = events.body.find((e: any) => e.target_id === note.id);
    expect(event).toMatchObject({ action_name: 'commented on', target_type: 'Note', author_id: member.id, project_id: pub.id, target_title: null });
    expect(event.note).toMatchObject({ id: note.id, body: 'event me', noteable_type: 'Snippet', noteable_id: s.id });

    // A note on a private snippet of a public project reaches no project reader through the project's events.
    const hidden = await snippet(pub, member.token, 'private');
    const secret = (await t.api('POST', `/projects/${pub.id}/snippets/${hidden.id}/notes`, { token: member.token, body: { body: 'secret' } })).body;
    for (const token of [other.token, null]) {
      const seen = await t.api('GET', `/projects/${pub.id}/events?per_page=100`, { token });
      expect(seen.status).toBe(200);
      expect(seen.body.some((e: any) => e.target_id === secret.id)).toBe(false);
    }
  });

  it('works through gitbeaker', async () => {
    const s = await snippet(pub, owner.token, 'public');
    const api = new Gitlab({ host: t.url, token: member.token });
    const note = await api.ProjectSnippetNotes.create(pub.id, s.id, 'from gitbeaker');
    expect(note).toMatchObject({ body: 'from gitbeaker', noteable_type: 'Snippet' });
    const all = await api.ProjectSnippetNotes.all(pub.id, s.id);
    expect(all.map((n: any) => n.id)).toEqual([note.id]);
    const edited = await api.ProjectSnippetNotes.edit(pub.id, s.id, note.id as number, { body: 'edited' });
    expect(edited.body).toBe('edited');
    const thread = await api.ProjectSnippetDiscussions.create(pub.id, s.id, 'a thread');
    const reply = await api.ProjectSnippetDiscussions.addNote(pub.id, s.id, thread.id as string, 'reply');
    expect(reply.body).toBe('reply');
    const threads = await api.ProjectSnippetDiscussions.all(pub.id, s.id);
    expect(threads.map((d: any) => d.notes.length)).toEqual([1, 2]);
    await api.ProjectSnippetDiscussions.removeNote(pub.id, s.id, thread.id as string, reply.id as number);
    await api.ProjectSnippetNotes.remove(pub.id, s.id, note.id as number);
    expect((await api.ProjectSnippetNotes.all(pub.id, s.id)).map((n: any) => n.body)).toEqual(['a thread']);
  });
});

describe('snippet notes over GraphQL', () => {
  it('comments on a personal snippet by its global ID; its author administers the note, others may not; Snippet.notes lists it', async () => {
    const created = await t.api('POST', '/snippets', { token: owner.token, body: { title: 'personal', visibility: 'internal', files: [{ file_path: 'a.txt', content: 'a' }] } });
    const id = `gid://gitlab/PersonalSnippet/${created.body.id}`;
    const make = await t.graphql(`mutation($id: NoteableID!) { createNote(input: { noteableId: $id, body: "on a personal snippet" }) { errors note { id noteableType noteableId projectId userPermissions { adminNote } } } }`, { id }, other.token);
    expect(make.body.errors).toBeUndefined();
    const note = make.body.data.createNote.note;
    expect(note).toMatchObject({ noteableType: 'Snippet', noteableId: created.body.id, projectId: null, userPermissions: { adminNote: true } });
    const update = `mutation($id: NoteID!) { updateNote(input: { id: $id, body: "changed" }) { errors note { body } } }`;
    const byOwner = await t.graphql(update, { id: note.id }, owner.token);
    expect(byOwner.body.data?.updateNote ?? null).toBeNull();
    expect(byOwner.body.errors?.[0]?.message).toBe("The resource that you are attempting to access does not exist or you don't have permission to perform this action");
    expect((await t.graphql(update, { id: note.id }, other.token)).body.data.updateNote).toEqual({ errors: [], note: { body: 'changed' } });
    const listed = await t.graphql(`query($id: SnippetID!) { snippet(id: $id) { notes { count nodes { body } } discussions { count } } }`, { id }, member.token);
    expect(listed.body.data.snippet).toEqual({ notes: { count: 1, nodes: [{ body: 'changed' }] }, discussions: { count: 1 } });
    // A private snippet's notes: hidden from others, as the snippet is.
    const hidden = await t.api('POST', '/snippets', { token: owner.token, body: { title: 'hidden', visibility: 'private', files: [{ file_path: 'a.txt', content: 'a' }] } });
    const refused = await t.graphql(`mutation($id: NoteableID!) { createNote(input: { noteableId: $id, body: "x" }) { errors note { id } } }`, { id: `gid://gitlab/PersonalSnippet/${hidden.body.id}` }, other.token);
    expect(refused.body.data?.createNote ?? null).toBeNull();
    expect(refused.body.errors?.[0]?.message).toBe("The resource that you are attempting to access does not exist or you don't have permission to perform this action");
  });
});
