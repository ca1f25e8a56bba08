/**
 * GitLab's Issue fields: userPermissions (IssuePermissions), titleHtml, descriptionHtml, updatedBy,
 * userDiscussionsCount, commenters, currentUserTodos, hasEpic, hidden, emailsEnabled, and closedAsDuplicateOf with
 * the `/duplicate` quick action (Issues::DuplicateService), each read on a real server, by viewers who may and may not.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { Gitlab } from '@gitbeaker/rest';
import { suiteServer } from '../support/server.js';
import { addMember, createGroup, createProject, createUser, type TestUser } from '../support/factories.js';

let counting = false;
let statements = 0;
const t = suiteServer({ logLevel: 'error' }, { onQuery: () => counting && statements++ });

let owner: TestUser;
let reporter: TestUser;
let guest: TestUser;
let stranger: TestUser;
let admin: TestUser;
let group: { id: number; full_path: string };
let project: { id: number; path_with_namespace: string };

const issues = (suffix = '') => `/projects/${project.id}/issues${suffix}`;

beforeAll(async () => {
  [owner, reporter, guest, stranger] = await Promise.all([1, 2, 3, 4].map(() => createUser(t)));
  admin = await createUser(t, { admin: true });
  group = await createGroup(t, owner.token, { visibility: 'public' });
  project = await createProject(t, owner.token, { namespaceId: group.id, visibility: 'public' });
  await addMember(t, owner.token, 'projects', project.id, reporter.id, 20);
  await addMember(t, owner.token, 'projects', project.id, guest.id, 10);
  const make = async (token: string, body: object) => {
    const res = await t.api('POST', issues(), { token, body });
    expect(res.status, res.text).toBe(201);
    return res.body;
  };
  await make(guest.token, { title: 'Fix *this* `now`', description: 'See #2 and @' + reporter.username });
  await make(owner.token, { title: 'Canonical' });
  await make(owner.token, { title: 'Secret canonical', confidential: true });
  await make(owner.token, { title: 'Locked' });
});

async function issue(iid: number, fields: string, token: string | null) {
  const res = await t.graphql(`query($p: ID!, $iid: String!) { project(fullPath: $p) { issue(iid: $iid) { ${fields} } } }`, { p: project.path_with_namespace, iid: String(iid) }, token);
  expect(res.body.errors).toBeUndefined();
  return res.body.data.project.issue;
}

const PERMISSIONS = 'userPermissions { adminIssue createDesign createNote destroyDesign readDesign readIssue reopenIssue updateDesign updateIssue }';
const none = { adminIssue: false, createDesign: false, createNote: false, destroyDesign: false, readDesign: false, readIssue: false, reopenIssue: false, updateDesign: false, updateIssue: false };

describe('Issue fields', () => {
  it('gives IssuePermissions from IssuePolicy: Reporters administer, authors update, a locked discussion stops non-members and reopening', async () => {
    expect((await issue(1, PERMISSIONS, reporter.token)).userPermissions).toEqual({ ...none, adminIssue: true, createNote: true, readIssue: true, reopenIssue: true, updateIssue: true });
    // The guest wrote issue 1: they update it, without administering it.
    expect((await issue(1, PERMISSIONS, guest.token)).userPermissions).toEqual({ ...none, createNote: true, readIssue: true, reopenIssue: true, updateIssue: true });
    expect((await issue(1, PERMISSIONS, stranger.token)).userPermissions).toEqual({ ...none, createNote: true, readIssue: true });
    expect((await issue(1, PERMISSIONS, null)).userPermissions).toEqual({ ...none, readIssue: true });
    expect((await t.api('PUT', issues('/4'), { token: owner.token, body: { discussion_locked: true } })).status).toBe(200);
    expect((await issue(4, PERMISSIONS, stranger.token)).userPermissions).toEqual({ ...none, readIssue: true });
    expect((await issue(4, PERMISSIONS, guest.token)).userPermissions).toMatchObject({ createNote: true, reopenIssue: false, updateIssue: false });
    expect((await issue(4, PERMISSIONS, owner.token)).userPermissions).toMatchObject({ createNote: true, reopenIssue: false, updateIssue: true });
  });

  it('renders titleHtml and descriptionHtml, mentions resolved', async () => {
    const read = await issue(1, 'titleHtml descriptionHtml', stranger.token);
    expect(read.titleHtml).toBe('Fix <em>this</em> <code>now</code>');
    expect(read.descriptionHtml).toContain(`data-reference-type="user" data-user="${reporter.id}"`);
    expect((await issue(2, 'descriptionHtml', stranger.token)).descriptionHtml).toBe('');
  });

  it('names who last updated it (updatedBy), null until then', async () => {
    expect((await issue(2, 'updatedBy { username }', owner.token)).updatedBy).toBeNull();
    expect((await t.api('PUT', issues('/2'), { token: reporter.token, body: { description: 'Now described' } })).status).toBe(200);
    expect((await issue(2, 'updatedBy { username }', stranger.token)).updatedBy).toEqual({ username: reporter.username });
  });

  it('counts user discussions and lists commenters, an internal-only commenter for those who read internal notes', async () => {
    const thread = await t.api('POST', issues('/1/discussions'), { token: stranger.token, body: { body: 'A question' } });
    expect(thread.status, thread.text).toBe(201);
    expect((await t.api('POST', issues(`/1/discussions/${thread.body.id}/notes`), { token: guest.token, body: { body: 'An answer' } })).status).toBe(201);
    expect((await t.api('POST', issues('/1/notes'), { token: reporter.token, body: { body: 'Internal', internal: true } })).status).toBe(201);
    // A system note is no discussion of users.
    expect((await t.api('PUT', issues('/1'), { token: reporter.token, body: { title: 'Fix *this* `now`!' } })).status).toBe(200);
    const byReporter = await issue(1, 'userDiscussionsCount commenters { count nodes { username } }', reporter.token);
    expect(byReporter.userDiscussionsCount).toBe(2);
    expect(byReporter.commenters.nodes.map((u: { username: string }) => u.username).sort()).toEqual([reporter.username, guest.username, stranger.username].sort());
    const byStranger = await issue(1, 'commenters { nodes { username } }', stranger.token);
    expect(byStranger.commenters.nodes.map((u: { username: string }) => u.username).sort()).toEqual([guest.username, stranger.username].sort());
  });

  it('lists the current user’s to-do items about it, by state', async () => {
    const todo = await t.api('POST', issues('/2/todo'), { token: guest.token });
    expect(todo.status, todo.text).toBe(201);
    const pending = await issue(2, 'currentUserTodos { count nodes { id state } }', guest.token);
    expect(pending.currentUserTodos.count).toBe(1);
    expect(pending.currentUserTodos.nodes[0]).toMatchObject({ id: `gid://gitlab/Todo/${todo.body.id}`, state: 'pending' });
    expect((await issue(2, 'currentUserTodos(state: done) { count }', guest.token)).currentUserTodos.count).toBe(0);
    expect((await issue(2, 'currentUserTodos { count }', reporter.token)).currentUserTodos.count).toBe(0);
    expect((await issue(2, 'currentUserTodos { count }', null)).currentUserTodos.count).toBe(0);
    expect((await t.api('POST', `/todos/${todo.body.id}/mark_as_done`, { token: guest.token })).status).toBe(201);
    expect((await issue(2, 'currentUserTodos(state: done) { nodes { state } }', guest.token)).currentUserTodos.nodes).toEqual([{ state: 'done' }]);
  });

  it('says whether it is in an epic (hasEpic)', async () => {
    expect((await issue(2, 'hasEpic', stranger.token)).hasEpic).toBe(false);
    const epic = await t.api('POST', `/groups/${group.id}/epics`, { token: owner.token, body: { title: 'An epic' } });
    expect(epic.status, epic.text).toBe(201);
    const issueId = (await t.api('GET', issues('/2'), { token: owner.token })).body.id;
    expect((await t.api('POST', `/groups/${group.id}/epics/${epic.body.iid}/issues/${issueId}`, { token: owner.token })).status).toBe(201);
    expect((await issue(2, 'hasEpic', stranger.token)).hasEpic).toBe(true);
  });

  it('is emailsEnabled unless its group turned emails off', async () => {
    expect((await issue(2, 'emailsEnabled', stranger.token)).emailsEnabled).toBe(true);
    expect((await t.api('PUT', `/groups/${group.id}`, { token: owner.token, body: { emails_enabled: false } })).status).toBe(200);
    expect((await issue(2, 'emailsEnabled', stranger.token)).emailsEnabled).toBe(false);
    expect((await t.api('PUT', `/groups/${group.id}`, { token: owner.token, body: { emails_enabled: true } })).status).toBe(200);
  });

  it('is hidden once its author is banned', async () => {
    const author = await createUser(t);
    const made = await t.api('POST', issues(), { token: author.token, body: { title: 'By someone banned later' } });
    expect(made.status).toBe(201);
    expect((await issue(made.body.iid, 'hidden', owner.token)).hidden).toBe(false);
    expect((await t.api('POST', `/users/${author.id}/ban`, { token: admin.token })).status).toBe(201);
    expect((await issue(made.body.iid, 'hidden', admin.token)).hidden).toBe(true);
  });

  it('closes an issue as a duplicate with /duplicate: notes on both, related, closedAsDuplicateOf for its readers', async () => {
    const dup = await t.api('POST', issues(), { token: owner.token, body: { title: 'Duplicate' } });
    const iid = dup.body.iid;
    const note = await t.api('POST', issues(`/${iid}/notes`), { token: reporter.token, body: { body: '/duplicate #2' } });
    expect(note.status, note.text).toBe(202);
    expect(note.body.summary).toEqual(['Closed this issue. Marked as related to, and a duplicate of, #2.']);
    const read = await issue(iid, 'state closedAsDuplicateOf { iid title }', stranger.token);
    expect(read).toEqual({ state: 'closed', closedAsDuplicateOf: { iid: '2', title: 'Canonical' } });
    const notes = async (n: number) => (await t.api('GET', issues(`/${n}/notes?sort=asc&per_page=100`), { token: owner.token })).body.map((x: { body: string }) => x.body);
    expect(await notes(iid)).toContain('marked this issue as a duplicate of #2');
    expect(await notes(2)).toContain(`marked #${iid} as a duplicate of this issue`);
    const links = await t.api('GET', issues(`/${iid}/links`), { token: owner.token });
    expect(links.body.map((l: { iid: number; link_type: string }) => [l.iid, l.link_type])).toEqual([[2, 'relates_to']]);
    // A canonical issue the viewer may not read is not shown.
    const other = await t.api('POST', issues(), { token: owner.token, body: { title: 'Duplicate of a secret' } });
    expect((await t.api('POST', issues(`/${other.body.iid}/notes`), { token: owner.token, body: { body: '/duplicate #3' } })).status).toBe(202);
    expect((await issue(other.body.iid, 'closedAsDuplicateOf { iid }', stranger.token)).closedAsDuplicateOf).toBeNull();
    expect((await issue(other.body.iid, 'closedAsDuplicateOf { iid }', owner.token)).closedAsDuplicateOf).toEqual({ iid: '3' });
    // Naming no issue closes nothing.
    const none = await t.api('POST', issues('/4/notes'), { token: owner.token, body: { body: '/duplicate #999' } });
    expect(none.body.summary).toEqual(['Failed to mark this issue as a duplicate because referenced issue was not found.']);
    expect((await issue(4, 'state', owner.token)).state).toBe('opened');
  });

  it('reads these fields for a list of issues in the same number of statements for one issue as for three', async () => {
    const run = async (first: number) => {
      statements = 0;
      counting = true;
      const res = await t.graphql(
        `query($p: ID!) { project(fullPath: $p) { issues(first: ${first}, sort: CREATED_ASC) { nodes { ${PERMISSIONS} titleHtml updatedBy { username } userDiscussionsCount
          commenters { nodes { username } } currentUserTodos { count nodes { id } } hasEpic hidden emailsEnabled closedAsDuplicateOf { iid } } } } }`,
        { p: project.path_with_namespace },
        owner.token,
      );
      counting = false;
      expect(res.body.errors).toBeUndefined();
      return statements;
    };
    await run(1);
    expect(await run(3)).toBe(await run(1));
  });

  it('renders the descriptions of a list whose texts reference issues in the same number of statements for one as for three', async () => {
    for (const iid of [2, 3]) expect((await t.api('PUT', issues(`/${iid}`), { token: owner.token, body: { description: `Follows #1 and #${iid + 1}` } })).status).toBe(200);
    const run = async (first: number) => {
      statements = 0;
      counting = true;
      const res = await t.graphql(`query($p: ID!) { project(fullPath: $p) { issues(first: ${first}, sort: CREATED_ASC) { nodes { descriptionHtml } } } }`, { p: project.path_with_namespace }, owner.token);
      counting = false;
      expect(res.body.errors).toBeUndefined();
      expect(res.body.data.project.issues.nodes.every((n: { descriptionHtml: string }) => n.descriptionHtml.includes('gfm-issue'))).toBe(true);
      return statements;
    };
    await run(1);
    expect(await run(3)).toBe(await run(1));
  });
});

describe('PUT /projects/:id/issues/:issue_iid/reorder', () => {
  it('places an issue between two others (move_before_id above it, move_after_id below), as Issues::ReorderService', async () => {
    const make = async (title: string) => (await t.api('POST', issues(), { token: owner.token, body: { title } })).body;
    const [a, b, c] = [await make('A'), await make('B'), await make('C')];
    const order = async () => {
      const res = await t.graphql(`query($p: ID!) { project(fullPath: $p) { issues(sort: RELATIVE_POSITION_ASC, first: 100) { nodes { title } } } }`, { p: project.path_with_namespace }, owner.token);
      return res.body.data.project.issues.nodes.map((n: { title: string }) => n.title).filter((tt: string) => ['A', 'B', 'C'].includes(tt));
    };
    const first = await t.api('PUT', issues(`/${b.iid}/reorder`), { token: reporter.token, body: { move_before_id: a.id } });
    expect(first.status, first.text).toBe(200);
    expect(first.body).toMatchObject({ id: b.id, iid: b.iid, title: 'B' });
    const api = new Gitlab({ host: t.url, token: reporter.token });
    await api.Issues.reorder(project.id, c.iid, { moveBeforeId: a.id, moveAfterId: b.id });
    expect(await order()).toEqual(['A', 'C', 'B']);
    expect((await t.api('PUT', issues(`/${a.iid}/reorder`), { token: reporter.token, body: { move_before_id: b.id } })).status).toBe(200);
    expect(await order()).toEqual(['C', 'B', 'A']);
    const neither = await t.api('PUT', issues(`/${a.iid}/reorder`), { token: reporter.token, body: {} });
    expect(neither.status).toBe(400);
    expect(neither.body).toEqual({ error: 'move_after_id, move_before_id are missing, at least one parameter must be provided' });
    const unknown = await t.api('PUT', issues(`/${a.iid}/reorder`), { token: reporter.token, body: { move_after_id: 2147483000 } });
    expect(unknown.status).toBe(422);
    expect(unknown.body).toEqual({ message: { error: 'Unprocessable Entity' } });
    expect((await t.api('PUT', issues(`/${a.iid}/reorder`), { token: stranger.token, body: { move_after_id: b.id } })).status).toBe(403);
    expect((await t.api('PUT', issues(`/${a.iid}/reorder`), { token: null, body: { move_after_id: b.id } })).status).toBe(401);
  });
});
