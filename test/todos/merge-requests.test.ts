/**
 * To-do items about merge requests, as GitLab's TodoService makes them: `assigned` for new assignees (not oneself),
 * `review_requested` for new reviewers, `directly_addressed` and `mentioned` from the description and from notes for
 * users who may read the merge request, the commenter's, closer's and merger's own pending items resolved, and
 * `build_failed` for the author when the head pipeline fails. Read over raw HTTP (GitLab's Todo entity, the merge request as its target) and gitbeaker's TodoLists.
 */
import { Gitlab } from '@gitbeaker/rest';
import { beforeAll, describe, expect, it } from 'vitest';
import { EXTERNAL_URL, suiteServer } from '../support/server.js';
import { addMember, apiOk, createProject, createUser, type TestUser } from '../support/factories.js';

const t = suiteServer({ logLevel: 'error' });

const KEYS = ['id', 'project', 'author', 'action_name', 'target_type', 'target', 'target_url', 'body', 'state', 'created_at', 'updated_at'];

let owner: TestUser;
let dev: TestUser;
let reporter: TestUser;
let guest: TestUser;
let stranger: TestUser;
let project: { id: number; path_with_namespace: string };
let branches = 0;

const ok = (method: string, path: string, body?: object, token = owner.token) => apiOk(t, token, method, path, body);

/** The user's to-do items about the merge request (pending unless a state is asked for). */
const todosAbout = async (u: TestUser, mr: { id: number }, state = 'pending') => {
  const res = await t.api('GET', `/todos?type=MergeRequest&state=${state}&per_page=100`, { token: u.token });
  expect(res.status, res.text).toBe(200);
  return (res.body as any[]).filter((todo) => todo.target.id === mr.id);
};

async function newMergeRequest(body: Record<string, unknown> = {}, token = owner.token): Promise<any> {
  const branch = `todo-${++branches}`;
  await ok('POST', `/projects/${project.id}/repository/commits`, { branch, start_branch: 'main', commit_message: branch, actions: [{ action: 'create', file_path: `${branch}.txt`, content: 'x\n' }] });
  return ok('POST', `/projects/${project.id}/merge_requests`, { source_branch: branch, target_branch: 'main', title: `Work ${branch}`, ...body }, token);
}

beforeAll(async () => {
  [owner, dev, reporter, guest, stranger] = await Promise.all([1, 2, 3, 4, 5].map(() => createUser(t)));
  project = await createProject(t, owner.token, { visibility: 'private' });
  await addMember(t, owner.token, 'projects', project.id, dev.id, 30);
  await addMember(t, owner.token, 'projects', project.id, reporter.id, 20);
  await addMember(t, owner.token, 'projects', project.id, guest.id, 10);
  await ok('POST', `/projects/${project.id}/repository/commits`, { branch: 'main', commit_message: 'init', actions: [{ action: 'create', file_path: 'a.txt', content: 'a\n' }] });
});

describe('to-do items about merge requests', () => {
  it('gives new assignees `assigned`, with GitLab’s entity and the merge request as its target, never for assigning oneself', async () => {
    const mr = await newMergeRequest({ assignee_ids: [dev.id, owner.id] });
    const [todo, ...more] = await todosAbout(dev, mr);
    expect(more).toEqual([]);
    expect(Object.keys(todo).sort()).toEqual([...KEYS].sort());
    expect(todo).toMatchObject({
      project: { id: project.id, path_with_namespace: project.path_with_namespace },
      author: { id: owner.id, username: owner.username },
      action_name: 'assigned',
      target_type: 'MergeRequest',
      target_url: `${EXTERNAL_URL}/${project.path_with_namespace}/-/merge_requests/${mr.iid}`,
      body: mr.title,
      state: 'pending',
    });
    expect(todo.target).toMatchObject({ id: mr.id, iid: mr.iid, title: mr.title, project_id: project.id, state: 'opened', author: { id: owner.id } });
    expect(await todosAbout(owner, mr)).toEqual([]);

    // On update only those newly assigned get one; the reporter's own reassignment by the owner counts.
    await ok('PUT', `/projects/${project.id}/merge_requests/${mr.iid}`, { assignee_ids: [dev.id, reporter.id] });
    expect((await todosAbout(reporter, mr)).map((x) => x.action_name)).toEqual(['assigned']);
    expect(await todosAbout(dev, mr)).toHaveLength(1);
  });

  it('gives new reviewers `review_requested` on create and on update', async () => {
    const mr = await newMergeRequest({ reviewer_ids: [dev.id] });
    expect((await todosAbout(dev, mr)).map((x) => [x.action_name, x.author.id])).toEqual([['review_requested', owner.id]]);
    await ok('PUT', `/projects/${project.id}/merge_requests/${mr.iid}`, { reviewer_ids: [dev.id, reporter.id] });
    expect((await todosAbout(reporter, mr)).map((x) => x.action_name)).toEqual(['review_requested']);
    expect(await todosAbout(dev, mr)).toHaveLength(1);
  });

  it('gives users the description addresses or mentions theirs, once, and none to those who may not read it', async () => {
    const mr = await newMergeRequest({ description: `@${dev.username} please review\ncc @${reporter.username} @${guest.username} @${stranger.username}` });
    expect((await todosAbout(dev, mr)).map((x) => [x.action_name, x.author.id])).toEqual([['directly_addressed', owner.id]]);
    expect((await todosAbout(reporter, mr)).map((x) => x.action_name)).toEqual(['mentioned']);
    // A guest of a private project and a stranger cannot read its merge requests.
    expect(await todosAbout(guest, mr)).toEqual([]);
    expect((await t.api('GET', '/todos', { token: stranger.token })).body).toEqual([]);
    // Mentioned again while pending, or already mentioned before: no second item.
    await ok('PUT', `/projects/${project.id}/merge_requests/${mr.iid}`, { description: `@${dev.username} @${reporter.username} once more` });
    expect(await todosAbout(dev, mr)).toHaveLength(1);
    expect(await todosAbout(reporter, mr)).toHaveLength(1);
  });

  it('makes items from mentions in notes, anchored to the note, and resolves the commenter’s own', async () => {
    const mr = await newMergeRequest({ assignee_ids: [dev.id] });
    const note = await t.api('POST', `/projects/${project.id}/merge_requests/${mr.iid}/notes`, { token: dev.token, body: { body: `done, @${reporter.username} FYI` } });
    expect(note.status, note.text).toBe(201);
    const [r] = await todosAbout(reporter, mr);
    expect(r).toMatchObject({
      action_name: 'mentioned',
      author: { id: dev.id },
      body: `done, @${reporter.username} FYI`,
      target_url: `${EXTERNAL_URL}/${project.path_with_namespace}/-/merge_requests/${mr.iid}#note_${note.body.id}`,
    });
    // The assignee commented: their `assigned` item is done (TodoService#handle_note).
    expect(await todosAbout(dev, mr)).toEqual([]);
    expect((await todosAbout(dev, mr, 'done')).map((x) => x.action_name)).toEqual(['assigned']);
    const thread = await t.api('POST', `/projects/${project.id}/merge_requests/${mr.iid}/discussions`, { token: owner.token, body: { body: `@${dev.username} one more thing` } });
    expect(thread.status).toBe(201);
    expect((await todosAbout(dev, mr)).map((x) => x.action_name)).toEqual(['directly_addressed']);
  });

  it('resolves the closer’s and the merger’s pending items, not the others’', async () => {
    const closed = await newMergeRequest({ assignee_ids: [dev.id] });
    const marked = await t.api('POST', `/projects/${project.id}/merge_requests/${closed.iid}/todo`, { token: owner.token });
    expect(marked.status).toBe(201);
    await ok('PUT', `/projects/${project.id}/merge_requests/${closed.iid}`, { state_event: 'close' });
    expect(await todosAbout(owner, closed)).toEqual([]);
    expect((await todosAbout(owner, closed, 'done')).map((x) => x.id)).toEqual([marked.body.id]);
    expect(await todosAbout(dev, closed)).toHaveLength(1);

    const merged = await newMergeRequest({ assignee_ids: [owner.id] }, dev.token);
    expect((await todosAbout(owner, merged)).map((x) => x.action_name)).toEqual(['assigned']);
    const reviewed = await t.api('POST', `/projects/${project.id}/merge_requests/${merged.iid}/todo`, { token: dev.token });
    expect(reviewed.status).toBe(201);
    const merge = await t.api('PUT', `/projects/${project.id}/merge_requests/${merged.iid}/merge`, { token: owner.token });
    expect(merge.status, merge.text).toBe(200);
    expect(await todosAbout(owner, merged)).toEqual([]);
    expect((await todosAbout(dev, merged)).map((x) => x.action_name)).toEqual(['marked']);
  });

  it('gives the author `build_failed` when the head pipeline fails (gitbeaker’s TodoLists)', async () => {
    const mr = await newMergeRequest({}, dev.token);
    const status = await t.api('POST', `/projects/${project.id}/statuses/${mr.sha}`, { token: owner.token, body: { state: 'failed', name: 'ci/external', ref: mr.source_branch } });
    expect(status.status, status.text).toBe(201);
    await t.server.app.jobs.drain();
    const api = new Gitlab({ host: t.url, token: dev.token });
    const items = (await api.TodoLists.all({ action: 'build_failed' })).filter((todo) => (todo.target as { id: number }).id === mr.id);
    expect(items.map((todo) => [todo.action_name, todo.author.id, todo.target_type, todo.state])).toEqual([['build_failed', dev.id, 'MergeRequest', 'pending']]);
    expect((await todosAbout(owner, mr)).filter((x) => x.action_name === 'build_failed')).toEqual([]);
  });
});
