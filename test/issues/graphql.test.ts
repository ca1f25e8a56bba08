/** Issues over GraphQL with GitLab's names: Project.issue(s), Issue, createIssue, updateIssue, issueSetWeight, issueSetAssignees, issueSetConfidential, issueSetDueDate, issueSetLocked, notes on issues. */
import { beforeAll, describe, expect, it } from 'vitest';
import { suiteServer, EXTERNAL_URL } from '../support/server.js';
import { addMember, createProject, createUser, type TestUser } from '../support/factories.js';

const t = suiteServer();

let owner: TestUser;
let guest: TestUser;
let stranger: TestUser;
let project: { id: number; path_with_namespace: string };
let labels: { id: number; name: string }[];

beforeAll(async () => {
  [owner, guest, stranger] = await Promise.all([1, 2, 3].map(() => createUser(t)));
  project = await createProject(t, owner.token);
  await addMember(t, owner.token, 'projects', project.id, guest.id, 10);
  labels = [];
  for (const name of ['alpha', 'beta']) labels.push((await t.api('POST', `/projects/${project.id}/labels`, { token: owner.token, body: { name, color: '#112233' } })).body);
});

const ISSUE = `id iid title state confidential weight dueDate discussionLocked webUrl reference(full: true)
  author { username } assignees { nodes { username } } labels { nodes { title } } userNotesCount
  timeStats: timeEstimate taskCompletionStatus { count completedCount }`;

describe('issues in GraphQL', () => {
  it('creates, reads and lists issues', async () => {
    const created = await t.graphql(
      `mutation($input: CreateIssueInput!) { createIssue(input: $input) { errors clientMutationId issue { ${ISSUE} } } }`,
      { input: { clientMutationId: 'c1', projectPath: project.path_with_namespace, title: 'From GraphQL', labelIds: [`gid://gitlab/ProjectLabel/${labels[0].id}`], weight: 2, dueDate: '2031-05-06', confidential: true } },
      owner.token,
    );
    expect(created.body.errors).toBeUndefined();
    const issue = created.body.data.createIssue.issue;
    expect(created.body.data.createIssue).toMatchObject({ errors: [], clientMutationId: 'c1' });
    expect(issue).toMatchObject({
      iid: '1',
      title: 'From GraphQL',
      state: 'opened',
      confidential: true,
      weight: 2,
      // GitLab's Issue.dueDate is a Time: the day at midnight UTC.
      dueDate: '2031-05-06T00:00:00.000Z',
      discussionLocked: false,
      webUrl: `${EXTERNAL_URL}/${project.path_with_namespace}/-/issues/1`,
      reference: `${project.path_with_namespace}#1`,
      author: { username: owner.username },
      labels: { nodes: [{ title: 'alpha' }] },
      userNotesCount: 0,
    });
    expect(issue.id).toMatch(/^gid:\/\/gitlab\/Issue\/\d+$/);
    const read = await t.graphql(`query($p: ID!) { project(fullPath: $p) { issue(iid: "1") { id } issues(sort: CREATED_ASC) { count nodes { iid } } } }`, { p: project.path_with_namespace }, owner.token);
    expect(read.body.data.project).toEqual({ issue: { id: issue.id }, issues: { count: 1, nodes: [{ iid: '1' }] } });
    // The guest cannot see the confidential issue, by iid, in lists or by global ID.
    const hidden = await t.graphql(`query($p: ID!, $id: IssueID!) { project(fullPath: $p) { issue(iid: "1") { id } issues { count } } issue(id: $id) { id } }`, { p: project.path_with_namespace, id: issue.id }, guest.token);
    expect(hidden.body.data).toEqual({ project: { issue: null, issues: { count: 0 } }, issue: null });
  });

  it('updates labels by ID, weight and assignees in relay shape', async () => {
    const [alpha, beta] = labels.map((l) => `gid://gitlab/ProjectLabel/${l.id}`);
    const updated = await t.graphql(
      `mutation($input: UpdateIssueInput!) { updateIssue(input: $input) { errors issue { labels { nodes { title } } state confidential } } }`,
      { input: { projectPath: project.path_with_namespace, iid: '1', addLabelIds: [beta], removeLabelIds: [alpha], stateEvent: 'CLOSE', confidential: false } },
      owner.token,
    );
    expect(updated.body.data.updateIssue).toEqual({ errors: [], issue: { labels: { nodes: [{ title: 'beta' }] }, state: 'closed', confidential: false } });
    const weight = await t.graphql(
      `mutation { issueSetWeight(input: { projectPath: "${project.path_with_namespace}", iid: "1", weight: 7 }) { errors issue { weight } } }`,
      {},
      owner.token,
    );
    expect(weight.body.data.issueSetWeight).toEqual({ errors: [], issue: { weight: 7 } });
    const cleared = await t.graphql(`mutation { issueSetWeight(input: { projectPath: "${project.path_with_namespace}", iid: "1", weight: null }) { issue { weight } } }`, {}, owner.token);
    expect(cleared.body.data.issueSetWeight.issue.weight).toBeNull();
    const assign = (usernames: string[], mode: string) =>
      t.graphql(
        `mutation($u: [String!]!) { issueSetAssignees(input: { projectPath: "${project.path_with_namespace}", iid: "1", assigneeUsernames: $u, operationMode: ${mode} }) { errors issue { assignees { nodes { username } } } } }`,
        { u: usernames },
        owner.token,
      );
    expect((await assign([guest.username], 'REPLACE')).body.data.issueSetAssignees.issue.assignees.nodes).toEqual([{ username: guest.username }]);
    expect((await assign([owner.username], 'APPEND')).body.data.issueSetAssignees.issue.assignees.nodes).toHaveLength(2);
    expect((await assign([guest.username], 'REMOVE')).body.data.issueSetAssignees.issue.assignees.nodes).toEqual([{ username: owner.username }]);
    // Others may not: a stranger does not see the private project's issue.
    const refused = await t.graphql(`mutation { issueSetWeight(input: { projectPath: "${project.path_with_namespace}", iid: "1", weight: 1 }) { issue { weight } } }`, {}, stranger.token);
    expect(refused.body.errors?.[0]?.message).toMatch(/not exist|Not Found|permission/i);
  });

  it('takes notes on issues through createNote with an Issue global ID', async () => {
    const read = await t.graphql(`query($p: ID!) { project(fullPath: $p) { issue(iid: "1") { id } } }`, { p: project.path_with_namespace }, owner.token);
    const note = await t.graphql(
      `mutation($id: NoteableID!) { createNote(input: { noteableId: $id, body: "From GraphQL" }) { errors note { body } } }`,
      { id: read.body.data.project.issue.id },
      guest.token,
    );
    expect(note.body.data.createNote).toEqual({ errors: [], note: { body: 'From GraphQL' } });
    const count = await t.graphql(`query($p: ID!) { project(fullPath: $p) { issue(iid: "1") { userNotesCount } } }`, { p: project.path_with_namespace }, owner.token);
    expect(count.body.data.project.issue.userNotesCount).toBe(1);
  });

  it('reads an issue’s notes and discussions as GitLab’s Noteable fields', async () => {
    const res = await t.graphql(
      `query($p: ID!) { project(fullPath: $p) { issue(iid: "1") { notes(first: 50) { nodes { body system } } discussions { nodes { individualNote notes { nodes { body } } } } } } }`,
      { p: project.path_with_namespace },
      guest.token,
    );
    expect(res.body.errors).toBeUndefined();
    const issue = res.body.data.project.issue;
    expect(issue.notes.nodes.filter((n: any) => !n.system).map((n: any) => n.body)).toEqual(['From GraphQL']);
    expect(issue.discussions.nodes.filter((d: any) => d.notes.nodes[0].body === 'From GraphQL')).toEqual([{ individualNote: true, notes: { nodes: [{ body: 'From GraphQL' }] } }]);
  });

  it('sets confidentiality, the due date and the discussion lock with their own mutations', async () => {
    const set = (field: string, input: string, token = owner.token) =>
      t.graphql(`mutation { ${field}(input: { projectPath: "${project.path_with_namespace}", iid: "1", ${input} }) { errors issue { confidential dueDate discussionLocked } } }`, {}, token);
    expect((await set('issueSetConfidential', 'confidential: true')).body.data.issueSetConfidential).toMatchObject({ errors: [], issue: { confidential: true } });
    expect((await set('issueSetDueDate', 'dueDate: "2032-02-03T00:00:00Z"')).body.data.issueSetDueDate).toMatchObject({ errors: [], issue: { dueDate: '2032-02-03T00:00:00.000Z' } });
    expect((await set('issueSetDueDate', 'dueDate: null')).body.data.issueSetDueDate.issue.dueDate).toBeNull();
    expect((await set('issueSetLocked', 'locked: true')).body.data.issueSetLocked).toMatchObject({ errors: [], issue: { discussionLocked: true } });
    const rest = (await t.api('GET', `/projects/${project.id}/issues/1`, { token: owner.token })).body;
    expect(rest).toMatchObject({ confidential: true, due_date: null, discussion_locked: true });
    expect((await set('issueSetConfidential', 'confidential: false')).body.data.issueSetConfidential.issue.confidential).toBe(false);
    // Who may not see the issue learns nothing.
    const refused = await set('issueSetLocked', 'locked: false', stranger.token);
    expect(refused.body.data.issueSetLocked).toBeNull();
    expect(refused.body.errors?.[0]?.message).toMatch(/does not exist or you don't have permission/);
  });
});
