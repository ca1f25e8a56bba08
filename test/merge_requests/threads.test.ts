/**
 * Resolvable threads on merge requests (GitLab's ResolvableDiscussion): `PUT …/discussions/:discussion_id` with
 * `resolved`, a note's `resolved` through `PUT …/discussions/:discussion_id/notes/:note_id`, the note entity's
 * resolution keys, who may resolve (Developers, the note's and the merge request's authors), GraphQL's
 * discussionToggleResolve and resolution fields, and `only_allow_merge_if_all_discussions_are_resolved`
 * (`blocking_discussions_resolved`, `discussions_not_resolved`, the merge refused until resolved).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { suiteServer } from '../support/server.js';
import { addMember, apiOk, createProject, createUser, type TestUser } from '../support/factories.js';

const t = suiteServer();
let owner: TestUser;
let author: TestUser;
let reporter: TestUser;
let stranger: TestUser;
let project: { id: number; path_with_namespace: string };
let iid: number;

const mr = (suffix = '') => `/projects/${project.id}/merge_requests/${iid}${suffix}`;
const basic = (u: TestUser) => expect.objectContaining({ id: u.id, username: u.username });

beforeAll(async () => {
  [owner, author, reporter, stranger] = await Promise.all([createUser(t), createUser(t), createUser(t), createUser(t)]);
  project = await createProject(t, owner.token, { visibility: 'private' });
  await addMember(t, owner.token, 'projects', project.id, author.id, 30);
  await addMember(t, owner.token, 'projects', project.id, reporter.id, 20);
  await apiOk(t, owner.token, 'POST', `/projects/${project.id}/repository/commits`, { branch: 'main', commit_message: 'init', actions: [{ action: 'create', file_path: 'a.txt', content: 'a\n' }] });
  await apiOk(t, owner.token, 'POST', `/projects/${project.id}/repository/commits`, { branch: 'topic', start_branch: 'main', commit_message: 'b', actions: [{ action: 'create', file_path: 'b.txt', content: 'b\n' }] });
  await apiOk(t, owner.token, 'PUT', `/projects/${project.id}`, { only_allow_merge_if_all_discussions_are_resolved: true });
  iid = (await apiOk(t, author.token, 'POST', `/projects/${project.id}/merge_requests`, { source_branch: 'topic', target_branch: 'main', title: 'Topic' })).iid;
});

describe('resolvable threads', () => {
  it('shows resolution keys on thread notes only, and blocks the merge while a thread is unresolved', async () => {
    const thread = await t.api('POST', mr('/discussions'), { token: reporter.token, body: { body: 'Why?' } });
    expect(thread.status, thread.text).toBe(201);
    expect(thread.body.notes[0]).toMatchObject({ type: 'DiscussionNote', resolvable: true, resolved: false, resolved_by: null, resolved_at: null });
    const single = await t.api('POST', mr('/notes'), { token: reporter.token, body: { body: 'Nice' } });
    expect(single.body.resolvable).toBe(false);
    expect(Object.keys(single.body)).not.toContain('resolved');
    expect(Object.keys(single.body)).not.toContain('resolved_by');

    const blocked = (await t.api('GET', mr(), { token: author.token })).body;
    expect(blocked).toMatchObject({ blocking_discussions_resolved: false, detailed_merge_status: 'discussions_not_resolved' });
    const refused = await t.api('PUT', mr('/merge'), { token: owner.token });
    expect([refused.status, refused.body]).toEqual([405, { message: '405 Method Not Allowed' }]);

    // A single comment is not resolvable: 400 for the note, 403 for its "thread".
    const individual = (await t.api('GET', mr('/discussions'), { token: owner.token })).body.find((d: any) => d.individual_note && d.notes[0].body === 'Nice');
    const notResolvable = await t.api('PUT', mr(`/discussions/${individual.id}/notes/${individual.notes[0].id}`), { token: owner.token, body: { resolved: true } });
    expect([notResolvable.status, notResolvable.body]).toEqual([400, { message: '400 Bad request - Note is not resolvable' }]);
    expect((await t.api('PUT', mr(`/discussions/${individual.id}`), { token: owner.token, body: { resolved: true } })).status).toBe(403);

    // A Reporter may resolve their own note, not the thread; the merge request's author (a Developer) may.
    const noteId = thread.body.notes[0].id;
    const own = await t.api('PUT', mr(`/discussions/${thread.body.id}/notes/${noteId}`), { token: reporter.token, body: { resolved: true } });
    expect(own.status, own.text).toBe(200);
    expect(own.body).toMatchObject({ id: noteId, resolved: true, resolved_by: basic(reporter), resolved_at: expect.stringMatching(/Z$/) });
    expect((await t.api('PUT', mr(`/discussions/${thread.body.id}/notes/${noteId}`), { token: reporter.token, body: { resolved: false } })).body.resolved).toBe(false);
    const forbidden = await t.api('PUT', mr(`/discussions/${thread.body.id}`), { token: reporter.token, body: { resolved: true } });
    expect([forbidden.status, forbidden.body]).toEqual([403, { message: '403 Forbidden' }]);
    expect((await t.api('PUT', mr(`/discussions/${thread.body.id}`), { token: stranger.token, body: { resolved: true } })).status).toBe(404);
    const missing = await t.api('PUT', mr(`/discussions/${thread.body.id}`), { token: author.token, body: {} });
    expect([missing.status, missing.body]).toEqual([400, { error: 'resolved is missing' }]);

    // A reply, then the whole thread resolved by the merge request's author.
    await apiOk(t, owner.token, 'POST', mr(`/discussions/${thread.body.id}/notes`), { body: 'Because.' });
    const resolved = await t.api('PUT', mr(`/discussions/${thread.body.id}`), { token: author.token, body: { resolved: true } });
    expect(resolved.status, resolved.text).toBe(200);
    expect(resolved.body).toMatchObject({ id: thread.body.id, individual_note: false });
    expect(resolved.body.notes.map((n: any) => [n.body, n.resolved, n.resolved_by?.id])).toEqual([
      ['Why?', true, author.id],
      ['Because.', true, author.id],
    ]);

    const open = (await t.api('GET', mr(), { token: author.token })).body;
    expect(open).toMatchObject({ blocking_discussions_resolved: true, detailed_merge_status: 'mergeable' });

    // GraphQL: the thread's state, who may resolve, and discussionToggleResolve in relay shape.
    const query = `query($p: ID!, $iid: String!) { project(fullPath: $p) { mergeRequest(iid: $iid) { mergeableDiscussionsState
      discussions { nodes { id resolvable resolved resolvedBy { username } notes { nodes { body resolvable resolved userPermissions { resolveNote } } } } } } } }`;
    const read = async (token: string) => (await t.graphql(query, { p: project.path_with_namespace, iid: String(iid) }, token)).body.data.project.mergeRequest;
    const byReporter = await read(reporter.token);
    const gqlThread = byReporter.discussions.nodes.find((d: any) => d.resolvable);
    expect(gqlThread).toMatchObject({ id: `gid://gitlab/Discussion/${thread.body.id}`, resolved: true, resolvedBy: { username: author.username } });
    expect(gqlThread.notes.nodes.map((n: any) => [n.body, n.resolved, n.userPermissions.resolveNote])).toEqual([
      ['Why?', true, true],
      ['Because.', true, false],
    ]);
    expect(byReporter.mergeableDiscussionsState).toBe(true);
    const toggle = await t.graphql(
      `mutation($id: DiscussionID!) { discussionToggleResolve(input: { id: $id, resolve: false, clientMutationId: "u" }) { clientMutationId errors discussion { resolved notes { nodes { resolved } } } } }`,
      { id: gqlThread.id },
      owner.token,
    );
    expect(toggle.body).toEqual({ data: { discussionToggleResolve: { clientMutationId: 'u', errors: [], discussion: { resolved: false, notes: { nodes: [{ resolved: false }, { resolved: false }] } } } } });
    expect((await t.api('GET', mr(), { token: author.token })).body.detailed_merge_status).toBe('discussions_not_resolved');
    const hidden = await t.graphql(`mutation($id: DiscussionID!) { discussionToggleResolve(input: { id: $id, resolve: true }) { errors } }`, { id: gqlThread.id }, stranger.token);
    expect(hidden.body.data.discussionToggleResolve).toBeNull();
    expect(hidden.body.errors?.[0]?.message).toMatch(/does not exist or you don't have permission/);
  });
});
