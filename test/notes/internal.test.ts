/**
 * Internal notes (GitLab's `internal`, once `confidential`): made by Reporters and above on issues and epics (a
 * Guest's flag is dropped, other noteables refuse it), replies in an internal thread internal, and every read path,
 * REST and GraphQL, events too, hiding them from Guests and non-members while Reporters see them.
 */
import { Gitlab } from '@gitbeaker/rest';
import { beforeAll, describe, expect, it } from 'vitest';
import { suiteServer } from '../support/server.js';
import { addMember, createGroup, createProject, createUser, type TestUser } from '../support/factories.js';

const t = suiteServer();
let owner: TestUser;
let reporter: TestUser;
let guest: TestUser;
let stranger: TestUser;
let project: { id: number };
let iid: number;
let issueGid: string;
/** The internal note (a thread by now, with an internal reply) and a public one. */
let secret: { id: number; discussionId: string };
let open: { id: number };

const notes = () => `/projects/${project.id}/issues/${iid}/notes`;
const discussions = () => `/projects/${project.id}/issues/${iid}/discussions`;

beforeAll(async () => {
  [owner, reporter, guest, stranger] = await Promise.all([1, 2, 3, 4].map(() => createUser(t)));
  project = await createProject(t, owner.token, { visibility: 'public' });
  await addMember(t, owner.token, 'projects', project.id, reporter.id, 20);
  await addMember(t, owner.token, 'projects', project.id, guest.id, 10);
  const issue = await t.api('POST', `/projects/${project.id}/issues`, { token: owner.token, body: { title: 'Internal notes' } });
  iid = issue.body.iid;
  issueGid = `gid://gitlab/Issue/${issue.body.id}`;
});

describe('internal notes', () => {
  it('lets a Reporter make one through REST (internal, or the old confidential) and drops a Guest’s flag', async () => {
    const api = new Gitlab({ host: t.url, token: reporter.token });
    const made = await api.IssueNotes.create(project.id, iid, 'For the team only', { internal: true } as never);
    expect(made).toMatchObject({ body: 'For the team only', internal: true, confidential: true, type: null });
    secret = { id: made.id as number, discussionId: '' };
    const old = await t.api('POST', notes(), { token: reporter.token, body: { body: 'Old name', confidential: true } });
    expect(old.status).toBe(201);
    expect(old.body).toMatchObject({ internal: true, confidential: true });
    await t.api('DELETE', `${notes()}/${old.body.id}`, { token: reporter.token });
    // Notes::BuildService: one who may not mark notes internal gets a public note, as GitLab answers.
    const guests = await t.api('POST', notes(), { token: guest.token, body: { body: 'I tried', internal: true } });
    expect(guests.status).toBe(201);
    expect(guests.body).toMatchObject({ body: 'I tried', internal: false, confidential: false });
    open = { id: guests.body.id };
  });

  it('makes a reply in an internal thread internal, whatever the reply asked', async () => {
    const thread = (await t.api('GET', discussions(), { token: reporter.token })).body.find((d: { notes: { id: number }[] }) => d.notes[0].id === secret.id);
    secret.discussionId = thread.id;
    const reply = await t.api('POST', `${discussions()}/${thread.id}/notes`, { token: owner.token, body: { body: 'Agreed' } });
    expect(reply.status).toBe(201);
    expect(reply.body).toMatchObject({ body: 'Agreed', type: 'DiscussionNote', internal: true });
    // createNote in the same thread asking for a public note gets an internal one all the same.
    const viaGraphql = await t.graphql(
      `mutation($id: NoteableID!, $d: DiscussionID) { createNote(input: { noteableId: $id, body: "me too", discussionId: $d, internal: false }) { errors note { internal confidential } } }`,
      { id: issueGid, d: `gid://gitlab/Discussion/${thread.id}` },
      reporter.token,
    );
    expect(viaGraphql.body.data.createNote).toEqual({ errors: [], note: { internal: true, confidential: true } });
  });

  it('hides internal notes from Guests and non-members on every REST read, and shows them to Reporters', async () => {
    for (const [who, sees] of [[reporter, true], [owner, true], [guest, false], [stranger, false]] as const) {
      const list = await t.api('GET', `${notes()}?sort=asc`, { token: who.token });
      expect(list.status).toBe(200);
      const bodies = list.body.map((n: { body: string }) => n.body);
      expect(bodies.includes('For the team only'), who.username).toBe(sees);
      expect(bodies).toContain('I tried');
      expect(Number(list.headers.get('x-total'))).toBe(list.body.length);
      const threads = await t.api('GET', discussions(), { token: who.token });
      expect(threads.body.some((d: { id: string }) => d.id === secret.discussionId)).toBe(sees);
      expect(Number(threads.headers.get('x-total'))).toBe(threads.body.length);
      const one = await t.api('GET', `${notes()}/${secret.id}`, { token: who.token });
      const thread = await t.api('GET', `${discussions()}/${secret.discussionId}`, { token: who.token });
      const threadNotes = await t.api('GET', `${discussions()}/${secret.discussionId}/notes`, { token: who.token });
      const inThread = await t.api('GET', `${discussions()}/${secret.discussionId}/notes/${secret.id}`, { token: who.token });
      if (sees) {
        expect([one.status, thread.status, threadNotes.status, inThread.status]).toEqual([200, 200, 200, 200]);
        expect(thread.body.notes.every((n: { internal: boolean }) => n.internal)).toBe(true);
      } else {
        expect(one.status).toBe(404);
        expect(one.body).toEqual({ message: '404 Note Not Found' });
        expect(inThread.body).toEqual({ message: '404 Note Not Found' });
        expect(thread.body).toEqual({ message: '404 Discussion Not Found' });
        expect(threadNotes.body).toEqual({ message: '404 Notes Not Found' });
        // Nor can they reply in it (the Discussions API finds no thread they may read).
        const reply = await t.api('POST', `${discussions()}/${secret.discussionId}/notes`, { token: who.token, body: { body: 'let me in' } });
        expect(reply.status).toBe(404);
        expect(reply.body).toEqual({ message: '404 Discussion Not Found' });
      }
    }
  });

  it('hides them in GraphQL’s notes, discussions and participants, and in updateNote and award emoji', async () => {
    const query = `query($path: ID!, $iid: String!) { project(fullPath: $path) { issue(iid: $iid) {
      notes { count nodes { body internal } } discussions { count nodes { id notes { nodes { body } } } } participants { nodes { username } } } } }`;
    for (const [who, sees] of [[reporter, true], [guest, false], [stranger, false]] as const) {
      const res = await t.graphql(query, { path: String(project.id), iid: String(iid) }, who.token);
      expect(res.body.errors).toBeUndefined();
      const issue = res.body.data.project.issue;
      const bodies = issue.notes.nodes.map((n: { body: string }) => n.body);
      expect(bodies.includes('For the team only')).toBe(sees);
      expect(bodies.includes('Agreed')).toBe(sees);
      expect(issue.notes.count).toBe(issue.notes.nodes.length);
      expect(issue.discussions.nodes.some((d: { id: string }) => d.id === `gid://gitlab/Discussion/${secret.discussionId}`)).toBe(sees);
      expect(issue.discussions.count).toBe(issue.discussions.nodes.length);
      // The reporter wrote only internal notes: a participant to those who may read them.
      expect(issue.participants.nodes.some((u: { username: string }) => u.username === reporter.username)).toBe(sees);
      const edit = await t.graphql(`mutation($id: NoteID!) { updateNote(input: { id: $id, body: "edited" }) { errors note { body } } }`, { id: `gid://gitlab/Note/${secret.id}` }, who.token);
      if (!sees) expect(edit.body.errors?.[0].message).toMatch(/does not exist or you don't have permission/);
      const award = await t.api('POST', `${notes()}/${secret.id}/award_emoji`, { token: who.token, body: { name: 'thumbsup' } });
      expect(award.status).toBe(sees ? 201 : 404);
    }
  });

  it('keeps the comment events of internal notes from those who may not read them', async () => {
    const targets = async (who: TestUser) =>
      ((await t.api('GET', `/projects/${project.id}/events?action=commented&per_page=100`, { token: who.token })).body as { target_id: number }[]).map((e) => e.target_id);
    expect(await targets(reporter)).toEqual(expect.arrayContaining([secret.id, open.id]));
    for (const who of [guest, stranger]) {
      const seen = await targets(who);
      expect(seen).toContain(open.id);
      expect(seen).not.toContain(secret.id);
    }
  });

  it('creates internal notes through createNote (internal or the deprecated confidential), and refuses changing it', async () => {
    const create = (token: string, flag: string) =>
      t.graphql(`mutation($id: NoteableID!) { createNote(input: { noteableId: $id, body: "graphql", ${flag}: true, mergeRequestDiffHeadSha: "abc" }) { errors note { id internal } } }`, { id: issueGid }, token);
    const internal = (await create(reporter.token, 'internal')).body.data.createNote;
    expect(internal).toMatchObject({ errors: [], note: { internal: true } });
    expect((await create(reporter.token, 'confidential')).body.data.createNote.note.internal).toBe(true);
    expect((await create(guest.token, 'internal')).body.data.createNote).toMatchObject({ errors: [], note: { internal: false } });
    const change = (id: string, confidential: boolean) =>
      t.graphql(`mutation($id: NoteID!, $c: Boolean) { updateNote(input: { id: $id, confidential: $c }) { errors note { internal } } }`, { id, c: confidential }, reporter.token);
    expect((await change(internal.note.id, false)).body.data.updateNote).toEqual({ errors: ['Confidential can not be changed for existing notes'], note: null });
    expect((await change(internal.note.id, true)).body.data.updateNote).toEqual({ errors: [], note: { internal: true } });
    // The Notes API's PUT takes the deprecated `confidential` the same way.
    const put = await t.api('PUT', `${notes()}/${open.id}`, { token: owner.token, body: { confidential: true } });
    expect(put.status).toBe(400);
    expect(put.body).toEqual({ message: '400 Bad request - Note {:confidential=>["can not be changed for existing notes"]}' });
  });

  it('refuses internal notes where GitLab 16.3 has none (a snippet), and lets Reporters of a group write them on its epics', async () => {
    const snippet = await t.api('POST', `/projects/${project.id}/snippets`, { token: owner.token, body: { title: 's', file_name: 'a.txt', content: 'x', visibility: 'public' } });
    expect(snippet.status, snippet.text).toBe(201);
    const refused = await t.api('POST', `/projects/${project.id}/snippets/${snippet.body.id}/notes`, { token: owner.token, body: { body: 'secret', internal: true } });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ message: '400 Bad request - Note {:confidential=>["can not be set for this resource"]}' });

    const group = await createGroup(t, owner.token, { visibility: 'public' });
    await addMember(t, owner.token, 'groups', group.id, reporter.id, 20);
    await addMember(t, owner.token, 'groups', group.id, guest.id, 10);
    const epic = (await t.api('POST', `/groups/${group.id}/epics`, { token: owner.token, body: { title: 'Epic' } })).body;
    const epicNotes = `/groups/${group.id}/epics/${epic.id}/notes`;
    const made = await t.api('POST', epicNotes, { token: reporter.token, body: { body: 'epic secret', internal: true } });
    expect(made.status, made.text).toBe(201);
    expect(made.body.internal).toBe(true);
    for (const [who, sees] of [[reporter, true], [guest, false], [stranger, false]] as const) {
      const list = await t.api('GET', epicNotes, { token: who.token });
      expect(list.body.some((n: { id: number }) => n.id === made.body.id)).toBe(sees);
    }
  });
});
