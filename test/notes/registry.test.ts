/**
 * The noteable registry as a later kind (issues, epics) will use it: a kind registered here, in the server's process,
 * is served by the same engine through GraphQL's createNote, and a kind that GitLab lets reply to single comments
 * (Noteable.replyable_types) turns a comment into a thread when it is replied to. The kind is a test's own: projects
 * noted as their own noteables, read by `read_project`.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { registerNoteable, type Noteable } from '../../src/modules/notes/noteables.js';
import type { ProjectRow } from '../../src/modules/projects/service.js';
import { suiteServer } from '../support/server.js';
import { addMember, createProject, createUser, type TestUser } from '../support/factories.js';

const TYPE = 'RegistryTestNoteable';
const noteableOf = (project: ProjectRow): Noteable => ({ type: TYPE, project, groupId: null, id: project.id, commitId: null, iid: null, title: project.name });

registerNoteable({
  type: TYPE,
  enumValue: 'REGISTRY_TEST_NOTEABLE',
  resource: 'Registry Test Noteable',
  replyable: true,
  resolvable: false,
  find: async (_ctx, project) => noteableOf(project),
  ofNote: async (ctx, note) => (note.noteableId === null ? null : noteableOf(await ctx.services.projects.get({ id: note.noteableId }))),
  canRead: async (ctx, n) => !!n.project && ctx.access.can('read_project', n.project),
  canCreateNote: async (ctx, n) => !!n.project && ctx.access.can('create_note', n.project),
  canSetCreatedAt: async (ctx, n) => !!n.project && ctx.access.can('set_note_created_at', n.project),
});

const t = suiteServer();
let owner: TestUser;
let guest: TestUser;
let project: { id: number };

beforeAll(async () => {
  [owner, guest] = await Promise.all([createUser(t), createUser(t)]);
  project = await createProject(t, owner.token, { visibility: 'private' });
  await addMember(t, owner.token, 'projects', project.id, guest.id, 10);
});

const CREATE = `mutation($id: NoteableID!, $body: String!, $d: DiscussionID) {
  createNote(input: { noteableId: $id, body: $body, discussionId: $d }) {
    errors
    note { id body noteType noteableType noteableId discussion { id individualNote noteList { body noteType } } }
  }
}`;

describe('a registered noteable kind', () => {
  it('takes comments through createNote, and turns a single comment into a thread when it is replied to', async () => {
    const id = `gid://gitlab/${TYPE}/${project.id}`;
    const comment = await t.graphql(CREATE, { id, body: 'a single comment' }, owner.token);
    expect(comment.body.errors).toBeUndefined();
    const note = comment.body.data.createNote.note;
    expect(note).toMatchObject({ body: 'a single comment', noteType: null, noteableType: TYPE, noteableId: project.id, discussion: { individualNote: true } });

    // Guests take part too (create_note is guest access).
    const reply = await t.graphql(CREATE, { id, body: 'a reply', d: note.discussion.id }, guest.token);
    expect(reply.body.data.createNote).toMatchObject({
      errors: [],
      note: {
        body: 'a reply',
        noteType: 'DiscussionNote',
        discussion: {
          id: note.discussion.id,
          individualNote: false,
          noteList: [
            { body: 'a single comment', noteType: 'DiscussionNote' },
            { body: 'a reply', noteType: 'DiscussionNote' },
          ],
        },
      },
    });
  });

  it('hides the noteable from those who may not read it, in its own words', async () => {
    const stranger = await createUser(t);
    const res = await t.graphql(CREATE, { id: `gid://gitlab/${TYPE}/${project.id}`, body: 'x' }, stranger.token);
    expect(res.body.errors?.[0]).toMatchObject({ extensions: { code: 'NOT_FOUND' } });
  });
});
