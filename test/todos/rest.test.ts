/** To-do items over REST: GitLab's entity, creation by assignment, mentions and notes, filters, marking done, readability, and gitbeaker's TodoLists. */
import { beforeAll, describe, expect, it } from 'vitest';
import { Gitlab } from '@gitbeaker/rest';
import { suiteServer, EXTERNAL_URL } from '../support/server.js';
import { addMember, createProject, createUser, type TestUser } from '../support/factories.js';

const t = suiteServer({ logLevel: 'error' });

const KEYS = ['id', 'project', 'author', 'action_name', 'target_type', 'target', 'target_url', 'body', 'state', 'created_at', 'updated_at'];

let owner: TestUser;
let dev: TestUser;
let guest: TestUser;
let stranger: TestUser;
let project: { id: number; name: string; path: string; path_with_namespace: string; name_with_namespace: string; description: string | null; created_at: string };

beforeAll(async () => {
  [owner, dev, guest, stranger] = await Promise.all([1, 2, 3, 4].map(() => createUser(t)));
  project = await createProject(t, owner.token);
  await addMember(t, owner.token, 'projects', project.id, dev.id, 30);
  await addMember(t, owner.token, 'projects', project.id, guest.id, 10);
});

const newIssue = async (token: string, body: Record<string, unknown>) => {
  const res = await t.api('POST', `/projects/${project.id}/issues`, { token, body });
  expect(res.status, res.text).toBe(201);
  return res.body;
};
const todos = async (u: TestUser, query = '') => {
  const res = await t.api('GET', `/todos${query}`, { token: u.token });
  expect(res.status, res.text).toBe(200);
  return res.body as any[];
};

describe('the To-Do List API', () => {
  it('needs a signed-in caller', async () => {
    expect((await t.api('GET', '/todos', { token: null })).status).toBe(401);
    expect((await t.api('POST', '/todos/mark_as_done', { token: null })).status).toBe(401);
  });

  it('gives an assignee an `assigned` item with GitLab’s entity, the issue as the Issues API shows it', async () => {
    const issue = await newIssue(owner.token, { title: 'Assigned work', assignee_ids: [dev.id] });
    const [todo] = await todos(dev);
    expect(Object.keys(todo).sort()).toEqual([...KEYS].sort());
    expect(todo).toMatchObject({
      project: { id: project.id, name: project.name, path: project.path, path_with_namespace: project.path_with_namespace, name_with_namespace: project.name_with_namespace, description: project.description, created_at: project.created_at },
      author: { id: owner.id, username: owner.username },
      action_name: 'assigned',
      target_type: 'Issue',
      target_url: `${EXTERNAL_URL}/${project.path_with_namespace}/-/issues/${issue.iid}`,
      body: 'Assigned work',
      state: 'pending',
    });
    expect(Object.keys(todo.project).sort()).toEqual(['created_at', 'description', 'id', 'name', 'name_with_namespace', 'path', 'path_with_namespace']);
    const single = await t.api('GET', `/projects/${project.id}/issues/${issue.iid}`, { token: dev.token });
    expect(todo.target).toEqual(single.body);
  });

  it('makes none for assigning oneself', async () => {
    const before = (await todos(owner)).length;
    await newIssue(owner.token, { title: 'Mine', assignee_ids: [owner.id] });
    expect(await todos(owner)).toHaveLength(before);
  });

  it('gives new assignees an item on update, and the closer’s items are done when they close the issue', async () => {
    const issue = await newIssue(owner.token, { title: 'Reassigned' });
    await t.api('PUT', `/projects/${project.id}/issues/${issue.iid}`, { token: owner.token, body: { assignee_ids: [guest.id] } });
    const mine = (await todos(guest)).filter((x) => x.target.iid === issue.iid);
    expect(mine.map((x) => x.action_name)).toEqual(['assigned']);
    // Reporter rights are needed to close someone else's issue: the guest cannot; the owner closes, guest's stays.
    await t.api('PUT', `/projects/${project.id}/issues/${issue.iid}`, { token: owner.token, body: { state_event: 'close' } });
    expect((await todos(guest)).filter((x) => x.target.iid === issue.iid)).toHaveLength(1);
    const marked = await t.api('POST', `/projects/${project.id}/issues/${issue.iid}/todo`, { token: owner.token });
    expect(marked.status).toBe(201);
    await t.api('PUT', `/projects/${project.id}/issues/${issue.iid}`, { token: owner.token, body: { state_event: 'reopen' } });
    await t.api('PUT', `/projects/${project.id}/issues/${issue.iid}`, { token: owner.token, body: { state_event: 'close' } });
    expect((await todos(owner, '?state=done')).map((x) => x.id)).toContain(marked.body.id);
  });

  it('gives mentioned users `mentioned`, those a line starts with `directly_addressed`, once per issue', async () => {
    const issue = await newIssue(owner.token, { title: 'Mentions', description: `@${dev.username} please look\ncc @${guest.username}` });
    const [d] = (await todos(dev)).filter((x) => x.target.iid === issue.iid);
    const [g] = (await todos(guest)).filter((x) => x.target.iid === issue.iid);
    expect(d.action_name).toBe('directly_addressed');
    expect(g.action_name).toBe('mentioned');
    // Another mention while one is pending makes no second item (GitLab's one pending item per target).
    await t.api('PUT', `/projects/${project.id}/issues/${issue.iid}`, { token: owner.token, body: { description: `@${dev.username} and @${guest.username} again` } });
    expect((await todos(dev)).filter((x) => x.target.iid === issue.iid)).toHaveLength(1);
  });

  it('mentions in a note make items whose body is the note, anchored to it; the note’s author’s items on the issue are done', async () => {
    const issue = await newIssue(owner.token, { title: 'Noted', assignee_ids: [dev.id] });
    const note = await t.api('POST', `/projects/${project.id}/issues/${issue.iid}/notes`, { token: dev.token, body: { body: `thanks, cc @${guest.username}` } });
    expect(note.status, note.text).toBe(201);
    const [g] = (await todos(guest)).filter((x) => x.target.iid === issue.iid);
    expect(g).toMatchObject({ action_name: 'mentioned', body: `thanks, cc @${guest.username}`, author: { id: dev.id }, target_url: `${EXTERNAL_URL}/${project.path_with_namespace}/-/issues/${issue.iid}#note_${note.body.id}` });
    // The assignee commented: their `assigned` item is resolved (TodoService#handle_note).
    expect((await todos(dev)).filter((x) => x.target.iid === issue.iid)).toHaveLength(0);
    expect((await todos(dev, '?state=done')).filter((x) => x.target.iid === issue.iid).map((x) => x.action_name)).toEqual(['assigned']);
  });

  it('makes none for a mentioned user who cannot read the confidential issue or the project', async () => {
    const issue = await newIssue(owner.token, { title: 'Secret', confidential: true, description: `@${guest.username} @${stranger.username} @${dev.username}` });
    expect((await todos(guest)).filter((x) => x.target.iid === issue.iid)).toHaveLength(0);
    expect(await todos(stranger)).toHaveLength(0);
    expect((await todos(dev)).filter((x) => x.target.iid === issue.iid)).toHaveLength(1);
  });

  it('filters by action, author, project, state and type, and refuses bad values', async () => {
    const all = await todos(dev);
    expect(all.length).toBeGreaterThan(1);
    expect((await todos(dev, '?action=assigned')).every((x) => x.action_name === 'assigned')).toBe(true);
    expect(await todos(dev, `?author_id=${stranger.id}`)).toEqual([]);
    expect((await todos(dev, `?project_id=${project.id}`)).length).toBe(all.length);
    expect(await todos(dev, '?type=MergeRequest')).toEqual([]);
    expect((await todos(dev, '?type=Issue')).length).toBe(all.length);
    expect((await t.api('GET', '/todos?type=Nonsense', { token: dev.token })).status).toBe(400);
    expect((await t.api('GET', '/todos?action=nonsense', { token: dev.token })).status).toBe(400);
    // Newest first, paginated with GitLab's headers.
    expect(all.map((x) => x.id)).toEqual([...all.map((x) => x.id)].sort((a, b) => b - a));
    const page = await t.api('GET', '/todos?per_page=1', { token: dev.token });
    expect(page.body).toHaveLength(1);
    expect(page.headers.get('x-total')).toBe(String(all.length));
  });

  it('marks one done (201 with the item), 404 for another user’s, and all done with 204', async () => {
    const [first] = await todos(dev);
    expect((await t.api('POST', `/todos/${first.id}/mark_as_done`, { token: guest.token })).status).toBe(404);
    const done = await t.api('POST', `/todos/${first.id}/mark_as_done`, { token: dev.token });
    expect(done.status).toBe(201);
    expect(done.body).toMatchObject({ id: first.id, state: 'done' });
    const all = await t.api('POST', '/todos/mark_as_done', { token: dev.token });
    expect(all.status).toBe(204);
    expect(await todos(dev)).toEqual([]);
  });

  it('adds a `marked` item on an issue, 304 while one is pending, 404 for an issue the caller cannot see', async () => {
    const issue = await newIssue(owner.token, { title: 'To remember' });
    const first = await t.api('POST', `/projects/${project.id}/issues/${issue.iid}/todo`, { token: guest.token });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ action_name: 'marked', author: { id: guest.id }, target: { iid: issue.iid } });
    expect((await t.api('POST', `/projects/${project.id}/issues/${issue.iid}/todo`, { token: guest.token })).status).toBe(304);
    expect((await t.api('POST', `/projects/${project.id}/issues/${issue.iid}/todo`, { token: stranger.token })).status).toBe(404);
  });

  it('hides items whose target the user can no longer read', async () => {
    const issue = await newIssue(owner.token, { title: 'Will be secret', assignee_ids: [] });
    await t.api('POST', `/projects/${project.id}/issues/${issue.iid}/todo`, { token: guest.token });
    expect((await todos(guest)).some((x) => x.target.iid === issue.iid)).toBe(true);
    await t.api('PUT', `/projects/${project.id}/issues/${issue.iid}`, { token: owner.token, body: { confidential: true } });
    expect((await todos(guest)).some((x) => x.target.iid === issue.iid)).toBe(false);
  });

  it('serves gitbeaker’s TodoLists', async () => {
    const api = new Gitlab({ host: t.url, token: guest.token });
    const issue = await newIssue(owner.token, { title: 'Via gitbeaker', description: `@${guest.username}` });
    const list = await api.TodoLists.all();
    const mine = list.find((x: any) => x.target.iid === issue.iid)!;
    expect(mine).toMatchObject({ action_name: 'directly_addressed' });
    await api.TodoLists.done({ todoId: mine.id as number });
    expect((await api.TodoLists.all()).some((x: any) => x.id === mine.id)).toBe(false);
  });
});
