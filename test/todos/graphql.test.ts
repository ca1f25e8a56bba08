/**
 * To-do items over GraphQL: `currentUser.todos` with GitLab's filters, the Todo type and its Todoable target,
 * todoMarkDone, todoRestore, todosMarkAllDone, todoCreate, and alertTodoCreate on an alert an HTTP integration made.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { suiteServer, EXTERNAL_URL } from '../support/server.js';
import { addMember, createProject, createUser, type TestUser } from '../support/factories.js';
import { createHttpIntegration, notify } from '../alert_management/support.js';

const t = suiteServer({ logLevel: 'error' });

let maintainer: TestUser;
let developer: TestUser;
let reporter: TestUser;
let stranger: TestUser;
let project: { id: number; path_with_namespace: string };
let path: string;

beforeAll(async () => {
  [maintainer, developer, reporter, stranger] = await Promise.all([1, 2, 3, 4].map(() => createUser(t)));
  project = await createProject(t, maintainer.token);
  path = project.path_with_namespace;
  await addMember(t, maintainer.token, 'projects', project.id, developer.id, 30);
  await addMember(t, maintainer.token, 'projects', project.id, reporter.id, 20);
});

const TODO = `id action state body targetType targetUrl createdAt author { username } project { fullPath } group { fullPath }
  target { __typename webUrl ... on Issue { iid title } ... on AlertManagementAlert { alertIid: iid alertTitle: title } }`;

async function myTodos(u: TestUser, args = '') {
  const res = await t.graphql(`{ currentUser { todos${args ? `(${args})` : ''} { count nodes { ${TODO} } } } }`, {}, u.token);
  expect(res.body.errors, res.text).toBeUndefined();
  return res.body.data.currentUser.todos as { count: number; nodes: any[] };
}

async function newIssue(token: string, body: Record<string, unknown>) {
  const res = await t.api('POST', `/projects/${project.id}/issues`, { token, body });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

describe('currentUser.todos', () => {
  it('lists the user’s pending items with GitLab’s Todo fields and the issue as target', async () => {
    const issue = await newIssue(maintainer.token, { title: 'Please review', assignee_ids: [developer.id] });
    const { count, nodes } = await myTodos(developer);
    expect(count).toBe(1);
    expect(nodes[0]).toMatchObject({
      action: 'assigned',
      state: 'pending',
      body: 'Please review',
      targetType: 'ISSUE',
      targetUrl: `${EXTERNAL_URL}/${path}/-/issues/${issue.iid}`,
      author: { username: maintainer.username },
      project: { fullPath: path },
      group: null,
      target: { __typename: 'Issue', iid: String(issue.iid), title: 'Please review', webUrl: `${EXTERNAL_URL}/${path}/-/issues/${issue.iid}` },
    });
    expect(nodes[0].id).toMatch(/^gid:\/\/gitlab\/Todo\/\d+$/);
  });

  it('takes GitLab’s filters', async () => {
    expect((await myTodos(developer, 'action: [mentioned]')).count).toBe(0);
    expect((await myTodos(developer, 'action: [assigned], type: [ISSUE]')).count).toBe(1);
    expect((await myTodos(developer, 'type: [ALERT]')).count).toBe(0);
    expect((await myTodos(developer, `authorId: ["${maintainer.id}"]`)).count).toBe(1);
    expect((await myTodos(developer, `authorId: ["gid://gitlab/User/${stranger.id}"]`)).count).toBe(0);
    expect((await myTodos(developer, `projectId: ["${project.id}"]`)).count).toBe(1);
    expect((await myTodos(developer, 'state: [done]')).count).toBe(0);
  });

  it('shows nobody another user’s items, and nothing to anonymous callers', async () => {
    const res = await t.graphql(`query($u: String!) { user(username: $u) { todos { count nodes { id } } } }`, { u: developer.username }, reporter.token);
    expect(res.body.data?.user?.todos ?? { count: 0, nodes: [] }).toEqual({ count: 0, nodes: [] });
    const anon = await t.graphql('{ currentUser { todos { count } } }', {}, null);
    expect(anon.body.data.currentUser).toBeNull();
  });
});

describe('todo mutations', () => {
  it('todoMarkDone, todoRestore and todosMarkAllDone change only the caller’s own items', async () => {
    const [todo] = (await myTodos(developer)).nodes;
    const MARK = 'mutation($id: TodoID!) { todoMarkDone(input: { id: $id }) { errors todo { id state } } }';
    const foreign = await t.graphql(MARK, { id: todo.id }, reporter.token);
    expect(foreign.body.errors?.[0]?.message).toMatch(/does not exist or you don't have permission/);
    const done = await t.graphql(MARK, { id: todo.id }, developer.token);
    expect(done.body.data.todoMarkDone).toEqual({ errors: [], todo: { id: todo.id, state: 'done' } });
    const restored = await t.graphql('mutation($id: TodoID!) { todoRestore(input: { id: $id }) { errors todo { state } } }', { id: todo.id }, developer.token);
    expect(restored.body.data.todoRestore).toEqual({ errors: [], todo: { state: 'pending' } });
    const all = await t.graphql('mutation { todosMarkAllDone(input: {}) { errors todos { id state } } }', {}, developer.token);
    expect(all.body.data.todosMarkAllDone).toEqual({ errors: [], todos: [{ id: todo.id, state: 'done' }] });
    expect((await myTodos(developer)).count).toBe(0);
    const bad = await t.graphql(MARK, { id: 'gid://gitlab/Issue/1' }, developer.token);
    expect(bad.body.errors?.[0]?.message).toMatch(/does not represent an instance of Todo/);
  });

  it('todoCreate adds a `marked` item once, only on an issue the caller can read', async () => {
    const issue = await newIssue(maintainer.token, { title: 'Remember me' });
    const CREATE = 'mutation($id: TodoableID!) { todoCreate(input: { targetId: $id }) { errors todo { action target { ... on Issue { iid } } } } }';
    const gid = `gid://gitlab/Issue/${issue.id}`;
    const made = await t.graphql(CREATE, { id: gid }, reporter.token);
    expect(made.body.data.todoCreate).toEqual({ errors: [], todo: { action: 'marked', target: { iid: String(issue.iid) } } });
    const again = await t.graphql(CREATE, { id: gid }, reporter.token);
    expect(again.body.data.todoCreate).toEqual({ errors: [], todo: null });
    const hidden = await t.graphql(CREATE, { id: gid }, stranger.token);
    expect(hidden.body.errors?.[0]?.message).toMatch(/does not exist or you don't have permission/);
    const wrong = await t.graphql(CREATE, { id: 'gid://gitlab/Label/1' }, reporter.token);
    expect(wrong.body.errors?.[0]?.message).toMatch(/does not represent an instance of Todoable/);
  });
});

describe('alertTodoCreate', () => {
  it('adds a `marked` item about an alert for Developers, GitLab’s error while one is pending, and refuses Reporters', async () => {
    const http = await createHttpIntegration(t, maintainer.token, path, { name: 'Todo alerts' });
    const sent = await notify(t, http.url, { title: 'Disk full' }, { bearer: http.token });
    expect(sent.status, sent.text).toBe(200);
    const iid = String(sent.body[0].iid);
    const CREATE = `mutation($p: ID!, $iid: String!) { alertTodoCreate(input: { projectPath: $p, iid: $iid }) { errors alert { iid title } issue { iid } todo { ${TODO} } } }`;
    const made = await t.graphql(CREATE, { p: path, iid }, developer.token);
    const payload = made.body.data.alertTodoCreate;
    expect(payload.errors).toEqual([]);
    expect(payload.alert).toEqual({ iid, title: 'Disk full' });
    expect(payload.issue).toBeNull();
    expect(payload.todo).toMatchObject({
      action: 'marked',
      state: 'pending',
      body: 'Disk full',
      targetType: 'ALERT',
      targetUrl: `${EXTERNAL_URL}/${path}/-/alert_management/${iid}/details`,
      author: { username: developer.username },
      target: { __typename: 'AlertManagementAlert', alertIid: iid, alertTitle: 'Disk full' },
    });
    const again = await t.graphql(CREATE, { p: path, iid }, developer.token);
    expect(again.body.data.alertTodoCreate).toEqual({ errors: ['You already have pending todo for this alert'], alert: { iid, title: 'Disk full' }, issue: null, todo: null });
    for (const who of [reporter, stranger]) {
      const refused = await t.graphql(CREATE, { p: path, iid }, who.token);
      expect(refused.body.errors?.[0]?.message).toMatch(/does not exist or you don't have permission/);
    }
    // It shows in the list and over REST with GitLab's alert entity as target.
    expect((await myTodos(developer, 'type: [ALERT]')).nodes.map((n) => n.target.alertIid)).toEqual([iid]);
    const rest = await t.api('GET', '/todos?type=AlertManagement::Alert', { token: developer.token });
    expect(rest.body).toHaveLength(1);
    expect(rest.body[0]).toMatchObject({ target_type: 'AlertManagement::Alert', target: { iid: Number(iid), title: 'Disk full' }, action_name: 'marked' });
    expect(Object.keys(rest.body[0].target).sort()).toEqual(['iid', 'title']);
    // A Developer demoted to Guest no longer sees the alert's item (read_alert_management_alert needs Reporter).
    await t.api('PUT', `/projects/${project.id}/members/${developer.id}`, { token: maintainer.token, body: { access_level: 10 } });
    expect((await myTodos(developer, 'type: [ALERT]')).count).toBe(0);
    await t.api('PUT', `/projects/${project.id}/members/${developer.id}`, { token: maintainer.token, body: { access_level: 30 } });
  });
});
