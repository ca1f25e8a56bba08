/**
 * To-do items about merge requests and epics, and about targets a user lost: `POST …/merge_requests/:iid/todo` and
 * `POST /groups/:id/epics/:epic_iid/todo` (201, 304), their targets in `GET /todos` as the Merge Requests and Epics
 * APIs show them, epic mentions, notes and quick actions, todoCreate and Epic.currentUserTodos; items whose target the
 * user may no longer read left out of every list and deleted where GitLab deletes them (leaving a project or group,
 * an issue turning confidential), with Query.todo null and the mark-done mutations refused.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { Gitlab } from '@gitbeaker/rest';
import { suiteServer, EXTERNAL_URL } from '../support/server.js';
import { addMember, createGroup, createProject, createUser, unique, type TestUser } from '../support/factories.js';

const t = suiteServer({ logLevel: 'error' });

const TODO_KEYS = ['id', 'project', 'author', 'action_name', 'target_type', 'target', 'target_url', 'body', 'state', 'created_at', 'updated_at'];

let owner: TestUser;
let dev: TestUser;
let reporter: TestUser;
let stranger: TestUser;
let project: { id: number; path_with_namespace: string };
let group: { id: number; full_path: string };

beforeAll(async () => {
  [owner, dev, reporter, stranger] = await Promise.all([1, 2, 3, 4].map(() => createUser(t)));
  project = await createProject(t, owner.token);
  await addMember(t, owner.token, 'projects', project.id, dev.id, 30);
  group = await createGroup(t, owner.token);
  await addMember(t, owner.token, 'groups', group.id, reporter.id, 20);
  const first = await t.api('POST', `/projects/${project.id}/repository/commits`, {
    token: owner.token,
    body: { branch: 'main', commit_message: 'init', actions: [{ action: 'create', file_path: 'README.md', content: 'hello' }] },
  });
  expect(first.status, first.text).toBe(201);
});

async function newMergeRequest(title: string): Promise<{ iid: number; id: number }> {
  const branch = unique('mr');
  const c = await t.api('POST', `/projects/${project.id}/repository/commits`, {
    token: owner.token,
    body: { branch, start_branch: 'main', commit_message: title, actions: [{ action: 'create', file_path: `${branch}.txt`, content: 'x' }] },
  });
  expect(c.status, c.text).toBe(201);
  const res = await t.api('POST', `/projects/${project.id}/merge_requests`, { token: owner.token, body: { source_branch: branch, target_branch: 'main', title } });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

async function newEpic(body: Record<string, unknown>, token = owner.token): Promise<{ id: number; iid: number }> {
  const res = await t.api('POST', `/groups/${group.id}/epics`, { token, body });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

const todos = async (u: TestUser, query = '') => {
  const res = await t.api('GET', `/todos${query}`, { token: u.token });
  expect(res.status, res.text).toBe(200);
  return res.body as any[];
};

describe('to-do items about merge requests', () => {
  it('POST …/merge_requests/:iid/todo: 201 with the item, the merge request as the Merge Requests API shows it; 304 while one is pending', async () => {
    const mr = await newMergeRequest('Review me');
    const made = await t.api('POST', `/projects/${project.id}/merge_requests/${mr.iid}/todo`, { token: dev.token });
    expect(made.status, made.text).toBe(201);
    expect(Object.keys(made.body).sort()).toEqual([...TODO_KEYS].sort());
    expect(made.body).toMatchObject({
      action_name: 'marked',
      target_type: 'MergeRequest',
      target_url: `${EXTERNAL_URL}/${project.path_with_namespace}/-/merge_requests/${mr.iid}`,
      body: 'Review me',
      state: 'pending',
      author: { id: dev.id },
    });
    // The Merge Requests API's entity, but for its pipelines (left out: they would take the operation past GitLab's
    // GraphQL complexity bound).
    const { pipeline, head_pipeline, ...single } = (await t.api('GET', `/projects/${project.id}/merge_requests/${mr.iid}`, { token: dev.token })).body;
    expect([pipeline, head_pipeline]).toEqual([null, null]);
    expect(made.body.target).toEqual(single);
    // GET /todos shows it the same way (the branches' clashing keys, `state` among them, each the MR's own).
    const [listed] = (await todos(dev, '?type=MergeRequest')).filter((x) => x.id === made.body.id);
    expect(listed.target).toEqual(single);
    expect(listed.target.state).toBe('opened');
    const again = await t.api('POST', `/projects/${project.id}/merge_requests/${mr.iid}/todo`, { token: dev.token });
    expect(again.status).toBe(304);
    expect((await t.api('POST', `/projects/${project.id}/merge_requests/${mr.iid}/todo`, { token: stranger.token })).status).toBe(404);
    expect((await t.api('POST', `/projects/${project.id}/merge_requests/999999/todo`, { token: dev.token })).status).toBe(404);
    expect((await t.api('POST', `/projects/${project.id}/merge_requests/${mr.iid}/todo`, { token: null })).status).toBe(401);
  });

  it('serves gitbeaker’s MergeRequests.createTodo and TodoLists with a merge request', async () => {
    const mr = await newMergeRequest('Via gitbeaker');
    const api = new Gitlab({ host: t.url, token: owner.token });
    const todo = await api.MergeRequests.createTodo(project.id, mr.iid);
    expect(todo).toMatchObject({ action_name: 'marked', target_type: 'MergeRequest', target: { iid: mr.iid, title: 'Via gitbeaker', state: 'opened' } });
    const list = await api.TodoLists.all({ type: 'MergeRequest' } as never);
    expect(list.map((x: any) => x.id)).toContain(todo.id);
  });

  it('todoCreate takes a merge request’s global ID', async () => {
    const mr = await newMergeRequest('By global ID');
    const CREATE = 'mutation($id: TodoableID!) { todoCreate(input: { targetId: $id }) { errors todo { action target { __typename ... on MergeRequest { iid title } } } } }';
    const made = await t.graphql(CREATE, { id: `gid://gitlab/MergeRequest/${mr.id}` }, dev.token);
    expect(made.body.data.todoCreate).toEqual({ errors: [], todo: { action: 'marked', target: { __typename: 'MergeRequest', iid: String(mr.iid), title: 'By global ID' } } });
    const hidden = await t.graphql(CREATE, { id: `gid://gitlab/MergeRequest/${mr.id}` }, stranger.token);
    expect(hidden.body.errors?.[0]?.message).toMatch(/does not exist or you don't have permission/);
  });
});

describe('to-do items about epics', () => {
  it('POST /groups/:id/epics/:epic_iid/todo: 201 with the epic as the Epics API shows it, 304 while one is pending', async () => {
    const epic = await newEpic({ title: 'Roadmap' });
    const made = await t.api('POST', `/groups/${group.id}/epics/${epic.iid}/todo`, { token: reporter.token });
    expect(made.status, made.text).toBe(201);
    // No project: GitLab's entity shows the group instead.
    expect(Object.keys(made.body).sort()).toEqual([...TODO_KEYS.filter((k) => k !== 'project'), 'group'].sort());
    expect(made.body).toMatchObject({
      action_name: 'marked',
      target_type: 'Epic',
      target_url: `${EXTERNAL_URL}/groups/${group.full_path}/-/epics/${epic.iid}`,
      body: 'Roadmap',
      group: { id: group.id, full_path: group.full_path },
      author: { id: reporter.id },
    });
    const listed = await t.api('GET', `/groups/${group.id}/epics`, { token: reporter.token });
    expect(made.body.target).toEqual(listed.body.find((e: any) => e.iid === epic.iid));
    expect((await t.api('POST', `/groups/${group.id}/epics/${epic.iid}/todo`, { token: reporter.token })).status).toBe(304);
    expect((await t.api('POST', `/groups/${group.id}/epics/${epic.iid}/todo`, { token: stranger.token })).status).toBe(404);
    const [mine] = (await todos(reporter, '?type=Epic')).filter((x) => x.id === made.body.id);
    expect(mine.target).toEqual(made.body.target);
  });

  // gitbeaker's Epics.createTodo posts to `…/epics/:epic_iid/todos`, a path GitLab's Epics API does not have (its
  // route is `…/todo`): the route is checked over REST above.

  it('mentions in an epic’s description and notes make items for readers only; todoCreate and Epic.currentUserTodos', async () => {
    const epic = await newEpic({ title: 'Mentioning', description: `@${reporter.username} please plan\nalso @${stranger.username}` });
    const [d] = (await todos(reporter, '?type=Epic')).filter((x) => x.target.iid === epic.iid);
    expect(d).toMatchObject({ action_name: 'directly_addressed', body: 'Mentioning', author: { id: owner.id } });
    expect(await todos(stranger)).toEqual([]);
    const note = await t.api('POST', `/groups/${group.id}/epics/${epic.id}/notes`, { token: reporter.token, body: { body: `cc @${owner.username}` } });
    expect(note.status, note.text).toBe(201);
    const [o] = (await todos(owner, '?type=Epic')).filter((x) => x.target.iid === epic.iid);
    expect(o).toMatchObject({ action_name: 'mentioned', body: `cc @${owner.username}`, target_url: `${EXTERNAL_URL}/groups/${group.full_path}/-/epics/${epic.iid}#note_${note.body.id}` });
    // The note's author's pending items about the epic are done.
    expect((await todos(reporter, '?type=Epic')).filter((x) => x.target.iid === epic.iid)).toEqual([]);
    const q = `query($g: ID!, $iid: ID!) { group(fullPath: $g) { epic(iid: $iid) { currentUserTodos { nodes { action state target { __typename webUrl } } } } } }`;
    const states = await t.graphql(q, { g: group.full_path, iid: String(epic.iid) }, reporter.token);
    expect(states.body.errors, states.text).toBeUndefined();
    expect(states.body.data.group.epic.currentUserTodos.nodes).toEqual([
      { action: 'directly_addressed', state: 'done', target: { __typename: 'Epic', webUrl: `${EXTERNAL_URL}/groups/${group.full_path}/-/epics/${epic.iid}` } },
    ]);
    const created = await t.graphql('mutation($id: TodoableID!) { todoCreate(input: { targetId: $id }) { errors todo { action targetType } } }', { id: `gid://gitlab/Epic/${epic.id}` }, reporter.token);
    expect(created.body.data.todoCreate).toEqual({ errors: [], todo: { action: 'marked', targetType: 'EPIC' } });
  });

  it('`/todo` and `/done` on an epic’s notes add and resolve the caller’s item', async () => {
    const epic = await newEpic({ title: 'Quick' });
    const add = await t.api('POST', `/groups/${group.id}/epics/${epic.id}/notes`, { token: reporter.token, body: { body: '/todo' } });
    expect(add.status, add.text).toBe(202);
    expect((await todos(reporter, '?type=Epic')).filter((x) => x.target.iid === epic.iid).map((x) => x.action_name)).toEqual(['marked']);
    const done = await t.api('POST', `/groups/${group.id}/epics/${epic.id}/notes`, { token: reporter.token, body: { body: '/done' } });
    expect(done.status, done.text).toBe(202);
    expect((await todos(reporter, '?type=Epic')).filter((x) => x.target.iid === epic.iid)).toEqual([]);
  });
});

describe('to-do items whose target the user lost', () => {
  const TODO_Q = 'query($id: TodoID!) { todo(id: $id) { id target { __typename } } }';

  it('a member removed from a project loses its items: left out of lists, Query.todo null, marking refused, deleted', async () => {
    const member = await createUser(t);
    await addMember(t, owner.token, 'projects', project.id, member.id, 30);
    const issue = await t.api('POST', `/projects/${project.id}/issues`, { token: owner.token, body: { title: 'Secret plans', assignee_ids: [member.id] } });
    expect(issue.status).toBe(201);
    const [todo] = await todos(member);
    expect(todo.target.title).toBe('Secret plans');
    const gid = `gid://gitlab/Todo/${todo.id}`;
    expect((await t.graphql(TODO_Q, { id: gid }, member.token)).body.data.todo).toEqual({ id: gid, target: { __typename: 'Issue' } });
    const removed = await t.api('DELETE', `/projects/${project.id}/members/${member.id}`, { token: owner.token });
    expect(removed.status, removed.text).toBe(204);
    for (const state of ['pending', 'done']) {
      const list = await t.api('GET', `/todos?state=${state}`, { token: member.token });
      expect(list.body).toEqual([]);
      expect(list.headers.get('x-total')).toBe('0');
      expect(list.text).not.toContain('Secret plans');
    }
    const gql = await t.graphql('{ currentUser { todos(state: [pending, done]) { count nodes { id } } } }', {}, member.token);
    expect(gql.body.data.currentUser.todos).toEqual({ count: 0, nodes: [] });
    expect((await t.graphql(TODO_Q, { id: gid }, member.token)).body.data.todo).toBeNull();
    const mark = await t.graphql('mutation($id: TodoID!) { todoMarkDone(input: { id: $id }) { errors todo { id } } }', { id: gid }, member.token);
    expect(mark.body.errors?.[0]?.message).toMatch(/does not exist or you don't have permission/);
    expect(mark.text).not.toContain('Secret plans');
    expect((await t.api('POST', `/todos/${todo.id}/mark_as_done`, { token: member.token })).status).toBe(404);
    // Deleted, not merely hidden (Todos::Destroy::EntityLeaveService): rejoining brings it back no more.
    await addMember(t, owner.token, 'projects', project.id, member.id, 30);
    expect(await todos(member)).toEqual([]);
    expect(await todos(member, '?state=done')).toEqual([]);
  });

  it('a member removed from a private group loses the items about its epics', async () => {
    const member = await createUser(t);
    await addMember(t, owner.token, 'groups', group.id, member.id, 20);
    const epic = await newEpic({ title: 'Group secret', description: `@${member.username}` });
    expect((await todos(member)).map((x) => x.target.iid)).toEqual([epic.iid]);
    const removed = await t.api('DELETE', `/groups/${group.id}/members/${member.id}`, { token: owner.token });
    expect(removed.status, removed.text).toBe(204);
    expect(await todos(member)).toEqual([]);
    await addMember(t, owner.token, 'groups', group.id, member.id, 20);
    expect(await todos(member)).toEqual([]);
  });

  it('an issue turned confidential deletes the items of those who may no longer read it, and keeps the others’', async () => {
    const guest = await createUser(t);
    await addMember(t, owner.token, 'projects', project.id, guest.id, 10);
    const issue = await t.api('POST', `/projects/${project.id}/issues`, { token: owner.token, body: { title: 'Turning secret', description: `@${guest.username} @${dev.username}` } });
    expect(issue.status).toBe(201);
    expect((await todos(guest)).filter((x) => x.target.iid === issue.body.iid)).toHaveLength(1);
    await t.api('PUT', `/projects/${project.id}/issues/${issue.body.iid}`, { token: owner.token, body: { confidential: true } });
    const hidden = await t.api('GET', '/todos', { token: guest.token });
    expect(hidden.text).not.toContain('Turning secret');
    expect((await todos(dev)).filter((x) => x.target.iid === issue.body.iid)).toHaveLength(1);
    // Gone for good: the issue made public again shows the guest nothing.
    await t.api('PUT', `/projects/${project.id}/issues/${issue.body.iid}`, { token: owner.token, body: { confidential: false } });
    expect((await todos(guest)).filter((x) => x.target.iid === issue.body.iid)).toHaveLength(0);
  });
});
