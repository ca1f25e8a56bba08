/**
 * GitLab's root lookups by global ID: Query.todo (the current user's own), Query.note and Query.milestone (as the
 * viewer may read them); anything else is null, as GitLab's authorization answers.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { suiteServer } from '../support/server.js';
import { apiOk, createGroup, createProject, createUser, type TestUser } from '../support/factories.js';

const t = suiteServer();
let owner: TestUser;
let stranger: TestUser;
let project: { id: number };
let issue: { iid: number };

beforeAll(async () => {
  [owner, stranger] = await Promise.all([createUser(t), createUser(t)]);
  project = await createProject(t, owner.token);
  issue = await apiOk(t, owner.token, 'POST', `/projects/${project.id}/issues`, { title: 'Bug' });
});

describe('Query.todo, Query.note and Query.milestone', () => {
  it("finds the current user's to-do item, null for another user's or an anonymous caller", async () => {
    const todo = await apiOk(t, owner.token, 'POST', `/projects/${project.id}/issues/${issue.iid}/todo`);
    const q = `query($id: TodoID!) { todo(id: $id) { id state action target { ... on Issue { title } } } }`;
    const own = await t.graphql(q, { id: `gid://gitlab/Todo/${todo.id}` }, owner.token);
    expect(own.body.errors, own.text).toBeUndefined();
    expect(own.body.data.todo).toEqual({ id: `gid://gitlab/Todo/${todo.id}`, state: 'pending', action: 'marked', target: { title: 'Bug' } });
    expect((await t.graphql(q, { id: `gid://gitlab/Todo/${todo.id}` }, stranger.token)).body.data.todo).toBeNull();
    expect((await t.graphql(q, { id: `gid://gitlab/Todo/${todo.id}` }, null)).body.data).toEqual({ todo: null });
    expect((await t.graphql(q, { id: 'gid://gitlab/Todo/999999' }, owner.token)).body.data.todo).toBeNull();
  });

  it('finds a note the viewer may read, null otherwise', async () => {
    const note = await apiOk(t, owner.token, 'POST', `/projects/${project.id}/issues/${issue.iid}/notes`, { body: 'Looks good' });
    const internal = await apiOk(t, owner.token, 'POST', `/projects/${project.id}/issues/${issue.iid}/notes`, { body: 'Secret', internal: true });
    const q = `query($id: NoteID!) { note(id: $id) { id body } }`;
    const found = await t.graphql(q, { id: `gid://gitlab/Note/${note.id}` }, owner.token);
    expect(found.body.errors, found.text).toBeUndefined();
    expect(found.body.data.note).toEqual({ id: `gid://gitlab/Note/${note.id}`, body: 'Looks good' });
    expect((await t.graphql(q, { id: `gid://gitlab/Note/${note.id}` }, stranger.token)).body.data.note).toBeNull();
    await apiOk(t, owner.token, 'PUT', `/projects/${project.id}`, { visibility: 'public' });
    expect((await t.graphql(q, { id: `gid://gitlab/Note/${note.id}` }, stranger.token)).body.data.note).toEqual({ id: `gid://gitlab/Note/${note.id}`, body: 'Looks good' });
    expect((await t.graphql(q, { id: `gid://gitlab/Note/${internal.id}` }, stranger.token)).body.data.note).toBeNull();
    expect((await t.graphql(q, { id: `gid://gitlab/Note/${internal.id}` }, owner.token)).body.data.note.body).toBe('Secret');
    await apiOk(t, owner.token, 'PUT', `/projects/${project.id}`, { visibility: 'private' });
  });

  it("shows a to-do item's note while the viewer may read it", async () => {
    const open = await createProject(t, owner.token, { visibility: 'public' });
    const bug = await apiOk(t, owner.token, 'POST', `/projects/${open.id}/issues`, { title: 'Mention' });
    const note = await apiOk(t, owner.token, 'POST', `/projects/${open.id}/issues/${bug.iid}/notes`, { body: `@${stranger.username} please look` });
    const q = `{ currentUser { todos { nodes { action note { id body } } } } }`;
    const res = await t.graphql(q, {}, stranger.token);
    expect(res.body.errors, res.text).toBeUndefined();
    expect(res.body.data.currentUser.todos.nodes).toEqual([{ action: 'directly_addressed', note: { id: `gid://gitlab/Note/${note.id}`, body: `@${stranger.username} please look` } }]);
    await apiOk(t, owner.token, 'PUT', `/projects/${open.id}`, { visibility: 'private' });
    const hidden = await t.graphql(q, {}, stranger.token);
    expect(hidden.body.data.currentUser.todos.nodes.every((n: { note: unknown }) => n.note === null)).toBe(true);
  });

  it("finds a project's or group's milestone the viewer may read, null otherwise", async () => {
    const group = await createGroup(t, owner.token);
    const projectMilestone = await apiOk(t, owner.token, 'POST', `/projects/${project.id}/milestones`, { title: 'v1' });
    const groupMilestone = await apiOk(t, owner.token, 'POST', `/groups/${group.id}/milestones`, { title: 'g1' });
    const q = `query($id: MilestoneID!) { milestone(id: $id) { id title } }`;
    const one = await t.graphql(q, { id: `gid://gitlab/Milestone/${projectMilestone.id}` }, owner.token);
    expect(one.body.errors, one.text).toBeUndefined();
    expect(one.body.data.milestone).toEqual({ id: `gid://gitlab/Milestone/${projectMilestone.id}`, title: 'v1' });
    expect((await t.graphql(q, { id: `gid://gitlab/Milestone/${groupMilestone.id}` }, owner.token)).body.data.milestone.title).toBe('g1');
    expect((await t.graphql(q, { id: `gid://gitlab/Milestone/${projectMilestone.id}` }, stranger.token)).body.data.milestone).toBeNull();
    expect((await t.graphql(q, { id: `gid://gitlab/Milestone/${groupMilestone.id}` }, stranger.token)).body.data.milestone).toBeNull();
    expect((await t.graphql(q, { id: 'gid://gitlab/Milestone/999999' }, owner.token)).body.data.milestone).toBeNull();
  });
});
