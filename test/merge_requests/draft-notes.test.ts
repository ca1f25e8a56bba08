/**
 * The Draft Notes API (GitLab's lib/api/draft_notes.rb, API::Entities::DraftNote): a reviewer's pending comments on a
 * merge request, seen by their author alone, published one by one or all at once as real notes (replies resolving
 * their thread, plain comments, to-do items for the users they mention), over raw HTTP and gitbeaker's
 * MergeRequestDraftNotes.
 */
import { Gitlab } from '@gitbeaker/rest';
import { beforeAll, describe, expect, it } from 'vitest';
import { suiteServer } from '../support/server.js';
import { addMember, apiOk, createProject, createUser, type TestUser } from '../support/factories.js';

const t = suiteServer({ logLevel: 'error' });
let owner: TestUser;
let dev: TestUser;
let guest: TestUser;
let stranger: TestUser;
let project: { id: number };
let branches = 0;

const ok = (method: string, path: string, body?: object, token = owner.token) => apiOk(t, token, method, path, body);

const EMPTY_POSITION = {
  base_sha: null,
  start_sha: null,
  head_sha: null,
  old_path: null,
  new_path: null,
  position_type: 'text',
  old_line: null,
  new_line: null,
  line_range: null,
};

/** A new merge request from a branch of its own, with `dev` as its reviewer. */
async function newMergeRequest(): Promise<{ id: number; iid: number; path: string }> {
  const branch = `feature-${++branches}`;
  await ok('POST', `/projects/${project.id}/repository/commits`, { branch, start_branch: 'main', commit_message: branch, actions: [{ action: 'create', file_path: `${branch}.txt`, content: 'x\n' }] });
  const mr = await ok('POST', `/projects/${project.id}/merge_requests`, { source_branch: branch, target_branch: 'main', title: branch, reviewer_ids: [dev.id] });
  return { id: mr.id, iid: mr.iid, path: `/projects/${project.id}/merge_requests/${mr.iid}` };
}

beforeAll(async () => {
  [owner, dev, guest, stranger] = await Promise.all([1, 2, 3, 4].map(() => createUser(t)));
  project = await createProject(t, owner.token, { visibility: 'private' });
  await addMember(t, owner.token, 'projects', project.id, dev.id, 30);
  await addMember(t, owner.token, 'projects', project.id, guest.id, 10);
  await ok('POST', `/projects/${project.id}/repository/commits`, { branch: 'main', commit_message: 'init', actions: [{ action: 'create', file_path: 'a.txt', content: 'a\n' }] });
});

describe('draft notes', () => {
  it('are created, listed, read, changed and deleted by their author alone, in GitLab entity', async () => {
    const mr = await newMergeRequest();
    const created = await t.api('POST', `${mr.path}/draft_notes`, { token: dev.token, body: { note: 'first thought' } });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toEqual({
      id: created.body.id,
      author_id: dev.id,
      merge_request_id: mr.id,
      resolve_discussion: false,
      discussion_id: null,
      note: 'first thought',
      commit_id: null,
      line_code: null,
      position: EMPTY_POSITION,
    });
    expect(typeof created.body.id).toBe('number');
    const theirs = await ok('POST', `${mr.path}/draft_notes`, { note: 'owner draft', commit_id: 'undefined' });
    expect(theirs.commit_id).toBeNull();

    const list = await t.api('GET', `${mr.path}/draft_notes`, { token: dev.token });
    expect(list.status).toBe(200);
    expect(list.headers.get('x-total')).toBe('1');
    expect(list.body).toEqual([created.body]);
    expect(await ok('GET', `${mr.path}/draft_notes/${created.body.id}`, undefined, dev.token)).toEqual(created.body);

    // Another user's draft is not found, whoever they are; the MR's notes do not show drafts.
    const hidden = await t.api('GET', `${mr.path}/draft_notes/${theirs.id}`, { token: dev.token });
    expect([hidden.status, hidden.body]).toEqual([404, { message: '404 Not found' }]);
    expect((await t.api('PUT', `${mr.path}/draft_notes/${theirs.id}`, { token: dev.token, body: { note: 'x' } })).status).toBe(404);
    expect((await t.api('DELETE', `${mr.path}/draft_notes/${theirs.id}`, { token: dev.token })).status).toBe(404);
    expect((await t.api('PUT', `${mr.path}/draft_notes/${theirs.id}/publish`, { token: dev.token })).status).toBe(404);
    expect((await ok('GET', `${mr.path}/notes`)).filter((n: { system: boolean }) => !n.system)).toEqual([]);

    const missing = await t.api('PUT', `${mr.path}/draft_notes/${created.body.id}`, { token: dev.token, body: {} });
    expect([missing.status, missing.body]).toEqual([400, { message: '400 Bad request - Missing params to modify' }]);
    const empty = await t.api('PUT', `${mr.path}/draft_notes/${created.body.id}`, { token: dev.token, body: { note: '' } });
    expect([empty.status, empty.body]).toEqual([400, { error: 'note is empty' }]);
    const changed = await t.api('PUT', `${mr.path}/draft_notes/${created.body.id}`, { token: dev.token, body: { note: 'second thought' } });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body).toEqual({ ...created.body, note: 'second thought' });

    const deleted = await t.api('DELETE', `${mr.path}/draft_notes/${created.body.id}`, { token: dev.token });
    expect([deleted.status, deleted.text]).toEqual([204, '']);
    expect((await t.api('GET', `${mr.path}/draft_notes/${created.body.id}`, { token: dev.token })).status).toBe(404);
    expect(await ok('GET', `${mr.path}/draft_notes`, undefined, dev.token)).toEqual([]);
  });

  it('are refused to anonymous callers, guests of a private project and strangers', async () => {
    const mr = await newMergeRequest();
    expect((await t.api('GET', `${mr.path}/draft_notes`, { token: null })).status).toBe(401);
    expect((await t.api('POST', `${mr.path}/draft_notes`, { token: null, body: { note: 'x' } })).status).toBe(401);
    const guestRead = await t.api('GET', `${mr.path}/draft_notes`, { token: guest.token });
    expect([guestRead.status, guestRead.body]).toEqual([404, { message: '404 Not found' }]);
    const guestWrite = await t.api('POST', `${mr.path}/draft_notes`, { token: guest.token, body: { note: 'x' } });
    expect([guestWrite.status, guestWrite.body]).toEqual([404, { message: '404 Not found' }]);
    const noSuch = await t.api('GET', `/projects/${project.id}/merge_requests/9999/draft_notes`, { token: dev.token });
    expect([noSuch.status, noSuch.body]).toEqual([404, { message: '404 Not found' }]);
    const strangerRead = await t.api('GET', `${mr.path}/draft_notes`, { token: stranger.token });
    expect([strangerRead.status, strangerRead.body]).toEqual([404, { message: '404 Project Not Found' }]);
    const noNote = await t.api('POST', `${mr.path}/draft_notes`, { token: dev.token, body: {} });
    expect([noNote.status, noNote.body]).toEqual([400, { error: 'note is missing' }]);
  });

  it('reply in a thread and resolve it when published; their checks are GitLab validation errors', async () => {
    const mr = await newMergeRequest();
    const thread = await ok('POST', `${mr.path}/discussions`, { body: 'please look' });
    const unknown = await t.api('POST', `${mr.path}/draft_notes`, { token: dev.token, body: { note: 'x', in_reply_to_discussion_id: 'f'.repeat(40) } });
    expect([unknown.status, unknown.body]).toEqual([400, { message: { base: ['Thread to reply to cannot be found'] } }]);
    const alone = await t.api('POST', `${mr.path}/draft_notes`, { token: dev.token, body: { note: 'x', resolve_discussion: true } });
    expect([alone.status, alone.body]).toEqual([400, { message: { base: ['User is not allowed to resolve thread'] } }]);

    const reply = await t.api('POST', `${mr.path}/draft_notes`, { token: dev.token, body: { note: 'done', in_reply_to_discussion_id: thread.id, resolve_discussion: true } });
    expect(reply.status, reply.text).toBe(201);
    expect(reply.body).toMatchObject({ discussion_id: thread.id, resolve_discussion: true });
    const again = await t.api('POST', `${mr.path}/draft_notes`, { token: dev.token, body: { note: 'again', in_reply_to_discussion_id: thread.id } });
    expect([again.status, again.body]).toEqual([400, { message: { author_id: ['has already been taken'] } }]);

    const published = await t.api('PUT', `${mr.path}/draft_notes/${reply.body.id}/publish`, { token: dev.token });
    expect([published.status, published.text]).toEqual([204, '']);
    const after = await ok('GET', `${mr.path}/discussions/${thread.id}`);
    expect(after.notes.map((n: { body: string; author: { id: number }; type: string; resolved: boolean }) => [n.body, n.author.id, n.type, n.resolved])).toEqual([
      ['please look', owner.id, 'DiscussionNote', true],
      ['done', dev.id, 'DiscussionNote', true],
    ]);
    expect(after.notes[1].resolved_by).toMatchObject({ id: dev.id });
    expect(await ok('GET', `${mr.path}/draft_notes`, undefined, dev.token)).toEqual([]);
  });

  it('are published all at once as a review: comments, mentions as to-do items, the reviewer marked reviewed (gitbeaker)', async () => {
    const mr = await newMergeRequest();
    const api = new Gitlab({ host: t.url, token: dev.token });
    const first = await api.MergeRequestDraftNotes.create(project.id, mr.iid, 'looks fine');
    const second = await api.MergeRequestDraftNotes.create(project.id, mr.iid, `@${owner.username} one question`);
    expect((await api.MergeRequestDraftNotes.all(project.id, mr.iid)).map((d) => d.id)).toEqual([first.id, second.id]);
    expect(await api.MergeRequestDraftNotes.show(project.id, mr.iid, first.id)).toMatchObject({ id: first.id, note: 'looks fine', author_id: dev.id });
    const owners = await ok('POST', `${mr.path}/draft_notes`, { note: 'not published by dev' });

    await api.MergeRequestDraftNotes.publishBulk(project.id, mr.iid);
    expect(await api.MergeRequestDraftNotes.all(project.id, mr.iid)).toEqual([]);
    // The owner's draft is the owner's: still there, not published.
    expect((await ok('GET', `${mr.path}/draft_notes`)).map((d: { id: number }) => d.id)).toEqual([owners.id]);
    const notes = (await ok('GET', `${mr.path}/notes?sort=asc`)).filter((n: { system: boolean }) => !n.system);
    expect(notes.map((n: { body: string; type: string | null; author: { id: number } }) => [n.body, n.type, n.author.id])).toEqual([
      ['looks fine', null, dev.id],
      [`@${owner.username} one question`, null, dev.id],
    ]);
    const todos = await ok('GET', '/todos');
    const mention = todos.find((todo: { target: { id: number } }) => todo.target.id === mr.id);
    expect(mention).toMatchObject({ action_name: 'directly_addressed', target_type: 'MergeRequest', author: { id: dev.id }, body: `@${owner.username} one question` });
    const reviewers = await ok('GET', `${mr.path}/reviewers`);
    expect(reviewers.map((r: { user: { id: number }; state: string }) => [r.user.id, r.state])).toEqual([[dev.id, 'reviewed']]);

    // Publishing none is a success that does nothing; deleting through gitbeaker.
    const nothing = await t.api('POST', `${mr.path}/draft_notes/bulk_publish`, { token: dev.token });
    expect([nothing.status, nothing.text]).toEqual([204, '']);
    const third = await api.MergeRequestDraftNotes.create(project.id, mr.iid, 'gone soon');
    await api.MergeRequestDraftNotes.remove(project.id, mr.iid, third.id);
    await api.MergeRequestDraftNotes.create(project.id, mr.iid, 'published alone').then((d) => api.MergeRequestDraftNotes.publish(project.id, mr.iid, d.id));
    expect((await ok('GET', `${mr.path}/notes?sort=asc`)).filter((n: { system: boolean }) => !n.system).map((n: { body: string }) => n.body)).toEqual([
      'looks fine',
      `@${owner.username} one question`,
      'published alone',
    ]);
  });

  it('keep a diff position, published as a diff thread at it', async () => {
    const mr = await newMergeRequest();
    const version = (await ok('GET', `${mr.path}/versions`))[0];
    const file = `feature-${branches}.txt`;
    const position = { base_sha: version.base_commit_sha, start_sha: version.start_commit_sha, head_sha: version.head_commit_sha, position_type: 'text', new_path: file, old_path: file, new_line: 1 };
    const draft = await t.api('POST', `${mr.path}/draft_notes`, { token: dev.token, body: { note: 'on the line', position } });
    expect(draft.status, draft.text).toBe(201);
    expect(draft.body.position).toEqual({ ...EMPTY_POSITION, base_sha: position.base_sha, start_sha: position.start_sha, head_sha: position.head_sha, old_path: file, new_path: file, new_line: 1 });
    expect((await t.api('PUT', `${mr.path}/draft_notes/${draft.body.id}/publish`, { token: dev.token })).status).toBe(204);
    const threads = await ok('GET', `${mr.path}/discussions`);
    const diff = threads.find((d: { notes: { body: string }[] }) => d.notes[0].body === 'on the line');
    expect(diff.notes[0]).toMatchObject({ type: 'DiffNote', author: { id: dev.id }, position: { new_path: file, new_line: 1, head_sha: position.head_sha } });
  });
});
