/** The Commits API's comments and the Discussions API on commits, over raw HTTP: exact bodies, statuses and who may do what. */
import { beforeAll, describe, expect, it } from 'vitest';
import { EXTERNAL_URL, suiteServer } from '../support/server.js';
import { addMember, createProject, createUser, type TestUser } from '../support/factories.js';

const t = suiteServer();

let owner: TestUser;
let maintainer: TestUser;
let developer: TestUser;
let guest: TestUser;
let stranger: TestUser;
let priv: { id: number; path_with_namespace: string };
let pub: { id: number; path_with_namespace: string };
let privSha: string;
let pubSha: string;

const TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const HEX40 = /^[0-9a-f]{40}$/;

function userBasic(u: { id: number; username: string }) {
  return {
    id: u.id,
    username: u.username,
    name: u.username === 'root' ? 'Administrator' : `User ${u.username}`,
    state: 'active',
    locked: false,
    avatar_url: null,
    web_url: `${EXTERNAL_URL}/${u.username}`,
  };
}

let root: { id: number; username: string };

async function commit(projectId: number, token: string, content = 'one\ntwo\nthree\n'): Promise<string> {
  const res = await t.api('POST', `/projects/${projectId}/repository/commits`, {
    token,
    body: { branch: 'main', commit_message: 'Add a.txt', actions: [{ action: 'create', file_path: `a-${Math.random()}.txt`, content }] },
  });
  expect(res.status).toBe(201);
  return res.body.id;
}

beforeAll(async () => {
  [owner, maintainer, developer, guest, stranger] = await Promise.all([createUser(t), createUser(t), createUser(t), createUser(t), createUser(t)]);
  root = (await t.api('GET', '/user')).body;
  priv = await createProject(t, owner.token, { visibility: 'private' });
  pub = await createProject(t, owner.token, { visibility: 'public' });
  for (const p of [priv, pub]) {
    await addMember(t, owner.token, 'projects', p.id, maintainer.id, 40);
    await addMember(t, owner.token, 'projects', p.id, developer.id, 30);
    await addMember(t, owner.token, 'projects', p.id, guest.id, 10);
  }
  privSha = await commit(priv.id, owner.token);
  pubSha = await commit(pub.id, owner.token);
});

function noteJson(body: string, author: { id: number; username: string }, projectId: number, type: string | null) {
  return {
    id: expect.any(Number),
    type,
    body,
    attachment: null,
    author: userBasic(author),
    created_at: expect.stringMatching(TIME),
    updated_at: expect.stringMatching(TIME),
    system: false,
    noteable_id: null,
    noteable_type: 'Commit',
    project_id: projectId,
    resolvable: false,
    confidential: false,
    internal: false,
    imported: false,
    imported_from: 'none',
    noteable_iid: null,
    commands_changes: {},
  };
}

describe('commit comments (Commits API)', () => {
  it('creates a comment (201, CommitNote) and lists them oldest first with pagination headers', async () => {
    const sha = await commit(pub.id, owner.token);
    const created = await t.api('POST', `/projects/${pub.id}/repository/commits/${sha}/comments`, { token: developer.token, body: { note: 'Nice code!' } });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ note: 'Nice code!', path: null, line: null, line_type: null, author: userBasic(developer), created_at: expect.stringMatching(TIME) });
    expect(Object.keys(created.body)).toEqual(['note', 'path', 'line', 'line_type', 'author', 'created_at']);
    await t.api('POST', `/projects/${pub.id}/repository/commits/${sha}/comments`, { token: owner.token, body: { note: 'Second' } });
    const list = await t.api('GET', `/projects/${pub.id}/repository/commits/${sha}/comments?per_page=1`, { token: null });
    expect(list.status).toBe(200);
    expect(list.body).toEqual([created.body]);
    expect(list.headers.get('x-total')).toBe('2');
    expect(list.headers.get('x-next-page')).toBe('2');
  });

  it('comments on a line of the diff as a LegacyDiffNote, and on a line it lacks as a plain comment', async () => {
    const sha = await commit(pub.id, owner.token, 'alpha\nbeta\n');
    const diff = await t.api('GET', `/projects/${pub.id}/repository/commits/${sha}/diff`);
    const path = diff.body[0].new_path;
    const onLine = await t.api('POST', `/projects/${pub.id}/repository/commits/${sha}/comments`, { body: { note: 'here', path, line: 2, line_type: 'new' } });
    expect(onLine.status).toBe(201);
    expect(onLine.body).toMatchObject({ note: 'here', path, line: 2, line_type: 'new' });
    const nowhere = await t.api('POST', `/projects/${pub.id}/repository/commits/${sha}/comments`, { body: { note: 'there', path, line: 40 } });
    expect(nowhere.body).toMatchObject({ path: null, line: null, line_type: null });
    // In the Discussions API the line comment is a thread of its own, not a single comment.
    const threads = await t.api('GET', `/projects/${pub.id}/repository/commits/${sha}/discussions`);
    expect(threads.body.map((d: any) => [d.individual_note, d.notes[0].type])).toEqual([
      [false, 'LegacyDiffNote'],
      [true, null],
    ]);
  });

  it('answers GitLab’s errors: missing note, blank note, line without path’s line, unknown commit', async () => {
    const base = `/projects/${pub.id}/repository/commits/${pubSha}/comments`;
    expect(await t.api('POST', base, { body: {} })).toMatchObject({ status: 400, body: { error: 'note is missing' } });
    expect(await t.api('POST', base, { body: { note: '  ' } })).toMatchObject({ status: 400, body: { message: '400 Bad request - Note {:note=>["can\'t be blank"]}' } });
    expect(await t.api('POST', base, { body: { note: 'x', path: 'a.txt' } })).toMatchObject({ status: 400, body: { error: 'line is missing' } });
    expect(await t.api('POST', base, { body: { note: 'x', path: 'a.txt', line: 1, line_type: 'both' } })).toMatchObject({ status: 400, body: { error: 'line_type does not have a valid value' } });
    expect(await t.api('GET', `/projects/${pub.id}/repository/commits/${'0'.repeat(40)}/comments`)).toMatchObject({ status: 404, body: { message: '404 Commit Not Found' } });
    expect(await t.api('POST', `/projects/${pub.id}/repository/commits/nope/comments`, { body: { note: 'x' } })).toMatchObject({ status: 404, body: { message: '404 Commit Not Found' } });
  });

  it('lets anonymous callers read a public project’s comments, not write them; hides private projects; Guests may not read code', async () => {
    expect((await t.api('GET', `/projects/${pub.id}/repository/commits/${pubSha}/comments`, { token: null })).status).toBe(200);
    expect(await t.api('POST', `/projects/${pub.id}/repository/commits/${pubSha}/comments`, { token: null, body: { note: 'x' } })).toMatchObject({ status: 401, body: { message: '401 Unauthorized' } });
    expect(await t.api('GET', `/projects/${priv.id}/repository/commits/${privSha}/comments`, { token: null })).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
    expect(await t.api('GET', `/projects/${priv.id}/repository/commits/${privSha}/comments`, { token: stranger.token })).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
    expect(await t.api('GET', `/projects/${priv.id}/repository/commits/${privSha}/comments`, { token: guest.token })).toMatchObject({ status: 403 });
    expect(await t.api('POST', `/projects/${priv.id}/repository/commits/${privSha}/comments`, { token: guest.token, body: { note: 'x' } })).toMatchObject({ status: 403 });
    // Any signed-in user may comment on a public project's commits (GitLab's guest access on public projects).
    expect((await t.api('POST', `/projects/${pub.id}/repository/commits/${pubSha}/comments`, { token: stranger.token, body: { note: 'drive-by' } })).status).toBe(201);
  });
});

describe('commit discussions (Discussions API)', () => {
  it('creates a thread, replies, reads it back, edits and deletes a note, with exact bodies and statuses', async () => {
    const sha = await commit(priv.id, owner.token);
    const base = `/projects/${priv.id}/repository/commits/${sha}/discussions`;
    const created = await t.api('POST', base, { token: developer.token, body: { body: 'discussion text' } });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ id: expect.stringMatching(HEX40), individual_note: false, notes: [noteJson('discussion text', developer, priv.id, 'DiscussionNote')] });
    expect(Object.keys(created.body.notes[0])).toEqual(Object.keys(noteJson('', developer, 0, null)));
    const id = created.body.id;

    const reply = await t.api('POST', `${base}/${id}/notes`, { token: maintainer.token, body: { body: 'reply to the discussion' } });
    expect(reply.status).toBe(201);
    expect(reply.body).toEqual(noteJson('reply to the discussion', maintainer, priv.id, 'DiscussionNote'));

    const one = await t.api('GET', `${base}/${id}`, { token: guest.token === '' ? '' : developer.token });
    expect(one.status).toBe(200);
    expect(one.body).toEqual({ id, individual_note: false, notes: [created.body.notes[0], reply.body] });
    expect(await t.api('GET', `${base}/${id}/notes`, { token: developer.token })).toMatchObject({ status: 200, body: [created.body.notes[0], reply.body] });
    expect(await t.api('GET', `${base}/${id}/notes/${reply.body.id}`, { token: developer.token })).toMatchObject({ status: 200, body: reply.body });
    const list = await t.api('GET', base, { token: developer.token });
    expect(list.body).toEqual([one.body]);
    expect(list.headers.get('x-total')).toBe('1');

    const edited = await t.api('PUT', `${base}/${id}/notes/${created.body.notes[0].id}`, { token: developer.token, body: { body: 'updated body' } });
    expect(edited.status).toBe(200);
    expect(edited.body).toEqual({ ...created.body.notes[0], body: 'updated body', updated_at: expect.stringMatching(TIME) });

    const deleted = await t.api('DELETE', `${base}/${id}/notes/${reply.body.id}`, { token: maintainer.token });
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    expect((await t.api('GET', `${base}/${id}`, { token: developer.token })).body.notes.map((n: any) => n.body)).toEqual(['updated body']);
    // The last note gone, the thread is gone.
    expect((await t.api('DELETE', `${base}/${id}/notes/${created.body.notes[0].id}`, { token: developer.token })).status).toBe(204);
    expect(await t.api('GET', `${base}/${id}`, { token: developer.token })).toMatchObject({ status: 404, body: { message: '404 Discussion Not Found' } });
  });

  it('refuses to reply to a single commit comment, as Commit is not among GitLab’s replyable types', async () => {
    const sha = await commit(pub.id, owner.token);
    await t.api('POST', `/projects/${pub.id}/repository/commits/${sha}/comments`, { body: { note: 'a single comment' } });
    const [single] = (await t.api('GET', `/projects/${pub.id}/repository/commits/${sha}/discussions`)).body;
    expect(single).toEqual({ id: expect.stringMatching(HEX40), individual_note: true, notes: [noteJson('a single comment', root, pub.id, null)] });
    const reply = await t.api('POST', `/projects/${pub.id}/repository/commits/${sha}/discussions/${single.id}/notes`, { body: { body: 'reply' } });
    expect(reply).toMatchObject({ status: 400, body: { message: '400 Bad request - Discussion can not be replied to.' } });
  });

  it('pages discussions by thread', async () => {
    const sha = await commit(pub.id, owner.token);
    const base = `/projects/${pub.id}/repository/commits/${sha}/discussions`;
    const ids: string[] = [];
    for (const body of ['one', 'two', 'three']) ids.push((await t.api('POST', base, { body: { body } })).body.id);
    await t.api('POST', `${base}/${ids[0]}/notes`, { body: { body: 'one, again' } });
    const first = await t.api('GET', `${base}?per_page=2`);
    expect(first.body.map((d: any) => d.id)).toEqual(ids.slice(0, 2));
    expect(first.body[0].notes.map((n: any) => n.body)).toEqual(['one', 'one, again']);
    expect([first.headers.get('x-total'), first.headers.get('x-total-pages'), first.headers.get('x-next-page')]).toEqual(['3', '2', '2']);
    const second = await t.api('GET', `${base}?per_page=2&page=2`);
    expect(second.body.map((d: any) => d.id)).toEqual([ids[2]]);
  });

  it('keeps a thread listed when its first note is deleted, and lists an emptied thread no more', async () => {
    const sha = await commit(pub.id, owner.token);
    const base = `/projects/${pub.id}/repository/commits/${sha}/discussions`;
    const ids: string[] = [];
    for (const body of ['one', 'two']) ids.push((await t.api('POST', base, { body: { body } })).body.id);
    // Replies and a deletion of the thread's first note, all at once: the thread keeps one start whatever the order.
    const thread = (await t.api('GET', `${base}/${ids[0]}`)).body;
    const results = await Promise.all([
      ...['r1', 'r2', 'r3'].map((body) => t.api('POST', `${base}/${ids[0]}/notes`, { body: { body } })),
      t.api('DELETE', `${base}/${ids[0]}/notes/${thread.notes[0].id}`),
    ]);
    expect(results.map((r) => r.status)).toEqual([201, 201, 201, 204]);
    const listed = await t.api('GET', base);
    expect(listed.headers.get('x-total')).toBe('2');
    expect(listed.body.map((d: any) => d.id).sort()).toEqual([...ids].sort());
    const first = listed.body.find((d: any) => d.id === ids[0]);
    expect(first.notes.map((n: any) => n.body).sort()).toEqual(['r1', 'r2', 'r3']);
    const starts = await t.server.database.prisma.note.count({ where: { discussionId: ids[0], startsDiscussion: true } });
    expect(starts).toBe(1);
    // The other thread's only note deleted: the thread is gone from the list and its count.
    const other = (await t.api('GET', `${base}/${ids[1]}`)).body;
    expect((await t.api('DELETE', `${base}/${ids[1]}/notes/${other.notes[0].id}`)).status).toBe(204);
    const after = await t.api('GET', base);
    expect([after.headers.get('x-total'), after.body.map((d: any) => d.id)]).toEqual(['1', [ids[0]]]);
  });

  it('honours created_at for administrators and Owners only', async () => {
    const sha = await commit(priv.id, owner.token);
    const base = `/projects/${priv.id}/repository/commits/${sha}/discussions`;
    const when = '2016-03-11T03:45:40.000Z';
    for (const token of [t.rootToken, owner.token]) {
      const res = await t.api('POST', base, { token, body: { body: 'back then', created_at: when } });
      expect(res.body.notes[0]).toMatchObject({ created_at: when, updated_at: when });
    }
    for (const token of [maintainer.token, developer.token]) {
      const res = await t.api('POST', base, { token, body: { body: 'now', created_at: when } });
      expect(res.status).toBe(201);
      expect(res.body.notes[0].created_at).not.toBe(when);
      const reply = await t.api('POST', `${base}/${res.body.id}/notes`, { token, body: { body: 'now too', created_at: when } });
      expect(reply.body.created_at).not.toBe(when);
    }
    const reply = await t.api('POST', `${base}/${(await t.api('POST', base, { body: { body: 'x' } })).body.id}/notes`, { body: { body: 'old reply', created_at: when } });
    expect(reply.body.created_at).toBe(when);
  });

  it('holds GitLab’s rules: authentication, hidden projects, readers of code, authors and Maintainers', async () => {
    const sha = privSha;
    const base = `/projects/${priv.id}/repository/commits/${sha}/discussions`;
    expect(await t.api('GET', `/projects/${pub.id}/repository/commits/${pubSha}/discussions`, { token: null })).toMatchObject({ status: 401, body: { message: '401 Unauthorized' } });
    expect(await t.api('GET', base, { token: null })).toMatchObject({ status: 401 });
    expect(await t.api('GET', base, { token: stranger.token })).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
    expect(await t.api('POST', base, { token: stranger.token, body: { body: 'x' } })).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
    // A Guest sees the project but not its code: the commit is not found for them.
    expect(await t.api('GET', base, { token: guest.token })).toMatchObject({ status: 404, body: { message: '404 Commit Not Found' } });
    expect(await t.api('POST', base, { token: guest.token, body: { body: 'x' } })).toMatchObject({ status: 404, body: { message: '404 Commit Not Found' } });

    const thread = (await t.api('POST', base, { token: developer.token, body: { body: 'mine' } })).body;
    const mine = thread.notes[0].id;
    const theirs = (await t.api('POST', `${base}/${thread.id}/notes`, { token: maintainer.token, body: { body: 'theirs' } })).body.id;
    // Authors edit their own; a Developer may not touch a Maintainer's note; a Maintainer edits and deletes others'.
    expect(await t.api('PUT', `${base}/${thread.id}/notes/${theirs}`, { token: developer.token, body: { body: 'hijack' } })).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    expect(await t.api('DELETE', `${base}/${thread.id}/notes/${theirs}`, { token: developer.token })).toMatchObject({ status: 403 });
    expect((await t.api('PUT', `${base}/${thread.id}/notes/${mine}`, { token: maintainer.token, body: { body: 'moderated' } })).body.body).toBe('moderated');
    expect((await t.api('PUT', `${base}/${thread.id}/notes/${mine}`, { token: developer.token, body: { body: 'mine again' } })).body.body).toBe('mine again');
    // On a public project a stranger comments, edits their own note, and touches nobody else's.
    const pubBase = `/projects/${pub.id}/repository/commits/${pubSha}/discussions`;
    const strangers = (await t.api('POST', pubBase, { token: stranger.token, body: { body: 'hello' } })).body;
    expect(strangers.notes[0].author.id).toBe(stranger.id);
    expect((await t.api('PUT', `${pubBase}/${strangers.id}/notes/${strangers.notes[0].id}`, { token: stranger.token, body: { body: 'hello!' } })).status).toBe(200);
    const ownersNote = (await t.api('POST', pubBase, { token: owner.token, body: { body: 'owner' } })).body;
    expect((await t.api('PUT', `${pubBase}/${ownersNote.id}/notes/${ownersNote.notes[0].id}`, { token: stranger.token, body: { body: 'x' } })).status).toBe(403);
    expect((await t.api('DELETE', `${pubBase}/${strangers.id}/notes/${strangers.notes[0].id}`, { token: maintainer.token })).status).toBe(204);
    // A note of another commit is not this commit's: ActiveRecord's 404.
    expect(await t.api('PUT', `${pubBase}/${thread.id}/notes/${mine}`, { body: { body: 'x' } })).toMatchObject({ status: 404, body: { message: '404 Not found' } });
  });

  it('answers bad input with 400s: blank, NUL bytes, too long, neither body nor resolved, unresolvable', async () => {
    const base = `/projects/${pub.id}/repository/commits/${pubSha}/discussions`;
    expect(await t.api('POST', base, { body: {} })).toMatchObject({ status: 400, body: { error: 'body is missing' } });
    expect(await t.api('POST', base, { body: { body: '' } })).toMatchObject({ status: 400, body: { message: '400 Bad request - Note {:note=>["can\'t be blank"]}' } });
    expect((await t.api('POST', base, { body: { body: 'nul\u0000byte' } })).status).toBe(400);
    const huge = await t.api('POST', base, { body: { body: 'x'.repeat(1_000_001) } });
    expect(huge).toMatchObject({ status: 400, body: { message: '400 Bad request - Note {:note=>["is too long (maximum is 1000000 characters)"]}' } });
    expect((await t.api('POST', base, { body: { body: 'x'.repeat(1_000_000) } })).status).toBe(201);
    const thread = (await t.api('POST', base, { body: { body: 'x' } })).body;
    const note = `${base}/${thread.id}/notes/${thread.notes[0].id}`;
    expect(await t.api('PUT', note, { body: {} })).toMatchObject({ status: 400, body: { error: 'body, resolved are missing, exactly one parameter must be provided' } });
    expect(await t.api('PUT', note, { body: { resolved: true } })).toMatchObject({ status: 400, body: { message: '400 Bad request - Note is not resolvable' } });
    expect(await t.api('PUT', note, { body: { body: '' } })).toMatchObject({ status: 400 });
    expect(await t.api('GET', `${base}/${'f'.repeat(40)}`)).toMatchObject({ status: 404, body: { message: '404 Discussion Not Found' } });
    expect(await t.api('GET', `${base}/not-a-discussion/notes`)).toMatchObject({ status: 404, body: { message: '404 Notes Not Found' } });
    expect(await t.api('POST', `${base}/${'f'.repeat(40)}/notes`, { body: { body: 'x' } })).toMatchObject({ status: 404, body: { message: '404 Discussion Not Found' } });
    expect(await t.api('GET', `/projects/${pub.id}/repository/commits/${'1'.repeat(40)}/discussions`)).toMatchObject({ status: 404, body: { message: '404 Commit Not Found' } });
  });

  it('records GitLab’s `commented on` events for notes', async () => {
    const sha = await commit(pub.id, owner.token);
    await t.api('POST', `/projects/${pub.id}/repository/commits/${sha}/discussions`, { token: developer.token, body: { body: 'event me' } });
    const events = await t.api('GET', `/projects/${pub.id}/events?action=commented`, { token: developer.token });
    expect(events.body[0]).toMatchObject({ action_name: 'commented on', target_type: 'DiscussionNote', author_id: developer.id, project_id: pub.id });
  });
});

describe('activity of notes', () => {
  it('shows a commit comment’s event, with its note, to those who may read the code and to no Guest', async () => {
    const sha = await commit(priv.id, owner.token);
    const thread = (await t.api('POST', `/projects/${priv.id}/repository/commits/${sha}/discussions`, { token: developer.token, body: { body: 'seen by code readers' } })).body;
    const events = await t.api('GET', `/projects/${priv.id}/events?target_type=note`, { token: maintainer.token });
    expect(events.status).toBe(200);
    // `target_type=note` matches plain notes only; the thread's note is a DiscussionNote.
    expect(events.body.filter((e: any) => e.target_id === thread.notes[0].id)).toEqual([]);
    const all = await t.api('GET', `/projects/${priv.id}/events?action=commented`, { token: maintainer.token });
    const event = all.body.find((e: any) => e.target_id === thread.notes[0].id);
    expect(event).toMatchObject({ action_name: 'commented on', target_type: 'DiscussionNote', target_iid: thread.notes[0].id, target_title: null, note: thread.notes[0] });
    const asGuest = await t.api('GET', `/projects/${priv.id}/events?action=commented`, { token: guest.token });
    expect(asGuest.status).toBe(200);
    expect(asGuest.body.some((e: any) => e.target_id === thread.notes[0].id)).toBe(false);
  });
});
