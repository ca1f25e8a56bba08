/** Discussions and notes on epics through the notes engine: `:epic_id` is the epic's id, notes are the group's. */
import { beforeAll, describe, expect, it } from 'vitest';
import { suiteServer } from '../support/server.js';
import { addMember, createGroup, createUser, type TestUser } from '../support/factories.js';

const t = suiteServer();

let owner: TestUser;
let guest: TestUser;
let outsider: TestUser;
let group: { id: number };
let epic: { id: number; iid: number };
let secret: { id: number; iid: number };

beforeAll(async () => {
  [owner, guest, outsider] = await Promise.all([createUser(t), createUser(t), createUser(t)]);
  group = await createGroup(t, owner.token);
  await addMember(t, owner.token, 'groups', group.id, guest.id, 10);
  // Epics of another group first, so the epic's id and iid differ.
  const other = await createGroup(t, owner.token);
  for (const title of ['Filler', 'Filler too']) await t.api('POST', `/groups/${other.id}/epics`, { token: owner.token, body: { title } });
  epic = (await t.api('POST', `/groups/${group.id}/epics`, { token: owner.token, body: { title: 'Talked about' } })).body;
  secret = (await t.api('POST', `/groups/${group.id}/epics`, { token: owner.token, body: { title: 'Secret', confidential: true } })).body;
});

const base = (e: { id: number } = epic) => `/groups/${group.id}/epics/${e.id}`;

describe('epic discussions', () => {
  it('starts a thread, replies, edits and deletes a note, all as the group’s Epic notes', async () => {
    const created = await t.api('POST', `${base()}/discussions`, { token: guest.token, body: { body: 'Where next?' } });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({ individual_note: false });
    const [first] = created.body.notes;
    expect(first).toMatchObject({ type: 'DiscussionNote', body: 'Where next?', noteable_id: epic.id, noteable_type: 'Epic', project_id: null, noteable_iid: null, system: false });

    const reply = await t.api('POST', `${base()}/discussions/${created.body.id}/notes`, { token: owner.token, body: { body: 'There.' } });
    expect(reply.status).toBe(201);
    expect(reply.body).toMatchObject({ type: 'DiscussionNote', body: 'There.', noteable_type: 'Epic' });

    const listed = await t.api('GET', `${base()}/discussions`, { token: guest.token });
    expect(listed.status).toBe(200);
    expect(listed.body).toHaveLength(1);
    expect(listed.body[0].notes.map((n: { body: string }) => n.body)).toEqual(['Where next?', 'There.']);

    const one = await t.api('GET', `${base()}/discussions/${created.body.id}`, { token: guest.token });
    expect(one.body.id).toBe(created.body.id);

    const edited = await t.api('PUT', `${base()}/discussions/${created.body.id}/notes/${reply.body.id}`, { token: owner.token, body: { body: 'Over there.' } });
    expect(edited.status).toBe(200);
    expect(edited.body.body).toBe('Over there.');

    const deleted = await t.api('DELETE', `${base()}/discussions/${created.body.id}/notes/${reply.body.id}`, { token: owner.token });
    expect(deleted.status).toBe(204);
  });

  it('takes the epic’s id, not its iid', async () => {
    const byIid = await t.api('GET', `/groups/${group.id}/epics/${epic.iid}/discussions`, { token: owner.token });
    expect(epic.iid).not.toBe(epic.id);
    expect(byIid.status).toBe(404);
    expect(byIid.body).toEqual({ message: '404 Epic Not Found' });
  });
});

describe('epic notes', () => {
  it('comments and lists comments newest first', async () => {
    const note = await t.api('POST', `${base()}/notes`, { token: guest.token, body: { body: 'A comment' } });
    expect(note.status, note.text).toBe(201);
    expect(note.body).toMatchObject({ type: null, body: 'A comment', noteable_type: 'Epic', noteable_id: epic.id, project_id: null });
    const listed = await t.api('GET', `${base()}/notes`, { token: guest.token });
    expect(listed.status).toBe(200);
    expect(listed.body[0].body).toBe('A comment');
    const counted = await t.api('GET', `/groups/${group.id}/epics/${epic.iid}`, { token: guest.token });
    expect(counted.status).toBe(200);
  });

  it('hides a confidential epic’s notes from Guests, and the group from non-members', async () => {
    const hidden = await t.api('GET', `${base(secret)}/notes`, { token: guest.token });
    expect(hidden.status).toBe(404);
    expect(hidden.body).toEqual({ message: '404 Epic Not Found' });
    const owners = await t.api('GET', `${base(secret)}/notes`, { token: owner.token });
    expect(owners.status).toBe(200);
    const stranger = await t.api('GET', `${base()}/notes`, { token: outsider.token });
    expect(stranger.status).toBe(404);
    expect(stranger.body).toEqual({ message: '404 Group Not Found' });
  });
});

describe('GraphQL notes of an epic', () => {
  it('creates a note on an epic by its global ID', async () => {
    const res = await t.graphql(
      'mutation($id: NoteableID!) { createNote(input: { noteableId: $id, body: "From GraphQL" }) { note { body } errors } }',
      { id: `gid://gitlab/Epic/${epic.id}` },
      owner.token,
    );
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data).toEqual({ createNote: { note: { body: 'From GraphQL' }, errors: [] } });
  });
});
