/**
 * UserCore's lists from other domains: authored, assigned and review-requested merge requests (through the merge
 * requests finder, with GitLab's arguments), snippets, group and project memberships, group count; Email's
 * timestamps.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { suiteServer } from '../support/server.js';
import { addMember, apiOk, createGroup, createProject, createUser, type TestUser } from '../support/factories.js';

let counting = false;
let statements = 0;
const t = suiteServer({}, { onQuery: () => counting && statements++ });

let alice: TestUser;
let bob: TestUser;
let carol: TestUser;
let project: { id: number; path_with_namespace: string };
let hidden: { id: number; path_with_namespace: string };
let group: { id: number; full_path: string };
const mrs: Record<string, { id: number; iid: number }> = {};

async function mergeRequest(token: string, p: { id: number }, branch: string, body: Record<string, unknown>) {
  await apiOk(t, token, 'POST', `/projects/${p.id}/repository/branches`, { branch, ref: 'main' });
  return apiOk(t, token, 'POST', `/projects/${p.id}/merge_requests`, { source_branch: branch, target_branch: 'main', ...body });
}

beforeAll(async () => {
  [alice, bob, carol] = await Promise.all([createUser(t), createUser(t), createUser(t)]);
  group = await createGroup(t, alice.token);
  project = await createProject(t, alice.token, { namespaceId: group.id });
  hidden = await createProject(t, alice.token);
  await addMember(t, alice.token, 'projects', project.id, bob.id, 30);
  await addMember(t, alice.token, 'projects', hidden.id, bob.id, 30);
  for (const p of [project, hidden]) {
    await apiOk(t, alice.token, 'POST', `/projects/${p.id}/repository/commits`, { branch: 'main', commit_message: 'init', actions: [{ action: 'create', file_path: 'a', content: 'a' }] });
  }
  mrs.one = await mergeRequest(alice.token, project, 'one', { title: 'One', assignee_ids: [bob.id], reviewer_ids: [bob.id] });
  mrs.two = await mergeRequest(alice.token, project, 'two', { title: 'Two', assignee_ids: [bob.id], labels: 'bug' });
  mrs.three = await mergeRequest(bob.token, project, 'three', { title: 'Three', reviewer_ids: [alice.id] });
  mrs.secret = await mergeRequest(alice.token, hidden, 'secret', { title: 'Secret', assignee_ids: [bob.id] });
  await apiOk(t, alice.token, 'PUT', `/projects/${project.id}/merge_requests/${mrs.two.iid}`, { state_event: 'close' });
});

const titles = (conn: { nodes: { title: string }[] }) => conn.nodes.map((n) => n.title);

describe('UserCore merge request lists', () => {
  it("lists the user's authored, assigned and review-requested merge requests the viewer may read, with GitLab's filters", async () => {
    const q = `query($u: String!, $p: String) { user(username: $u) {
      authoredMergeRequests(projectPath: $p) { count nodes { title } }
      assignedMergeRequests(projectPath: $p) { count nodes { title } }
      openAssigned: assignedMergeRequests(state: opened) { nodes { title } }
      labelled: assignedMergeRequests(labels: ["bug"]) { nodes { title } }
      reviewRequestedMergeRequests(sort: CREATED_ASC) { nodes { title } }
      byAuthor: reviewRequestedMergeRequests(authorUsername: $u) { nodes { title } }
    } }`;
    const asBob = await t.graphql(q, { u: bob.username }, bob.token);
    expect(asBob.body.errors, asBob.text).toBeUndefined();
    const user = asBob.body.data.user;
    expect(titles(user.authoredMergeRequests)).toEqual(['Three']);
    expect(titles(user.assignedMergeRequests)).toEqual(['Secret', 'Two', 'One']);
    expect(titles(user.openAssigned)).toEqual(['Secret', 'One']);
    expect(titles(user.labelled)).toEqual(['Two']);
    expect(titles(user.reviewRequestedMergeRequests)).toEqual(['One']);
    expect(titles(user.byAuthor)).toEqual([]);

    // Carol reads the group's project only once she is a member, never the hidden one.
    const asCarol = await t.graphql(q, { u: bob.username }, carol.token);
    expect(asCarol.body.data.user.assignedMergeRequests).toEqual({ count: 0, nodes: [] });
    await addMember(t, alice.token, 'groups', group.id, carol.id, 20);
    const member = await t.graphql(q, { u: bob.username, p: project.path_with_namespace }, carol.token);
    expect(titles(member.body.data.user.assignedMergeRequests)).toEqual(['Two', 'One']);
    expect(titles(member.body.data.user.openAssigned)).toEqual(['One']);

    const inProject = await t.graphql(`query($u: String!, $p: String) { user(username: $u) { assignedMergeRequests(projectPath: $p) { count } } }`, { u: bob.username, p: hidden.path_with_namespace }, carol.token);
    expect(inProject.body.data.user.assignedMergeRequests.count).toBe(0);
    const inGroup = await t.graphql(`query($u: String!, $g: GroupID) { user(username: $u) { assignedMergeRequests(groupId: $g) { nodes { title } } } }`, { u: bob.username, g: `gid://gitlab/Group/${group.id}` }, bob.token);
    expect(titles(inGroup.body.data.user.assignedMergeRequests)).toEqual(['Two', 'One']);
  });
});

describe('UserCore memberships, group count and snippets', () => {
  it("lists the memberships in groups and projects the viewer may read, and the count to the user and administrators only", async () => {
    const q = `query($u: String!) { user(username: $u) {
      groupCount
      groupMemberships { count nodes { group { fullPath } accessLevel { integerValue } } }
      projectMemberships { count nodes { project { fullPath } accessLevel { integerValue } } }
    } }`;
    const own = await t.graphql(q, { u: bob.username }, bob.token);
    expect(own.body.errors, own.text).toBeUndefined();
    expect(own.body.data.user.groupCount).toBe(0);
    expect(own.body.data.user.projectMemberships.nodes.map((n: any) => n.project.fullPath)).toEqual([project.path_with_namespace, hidden.path_with_namespace]);
    const ofAlice = await t.graphql(q, { u: alice.username }, carol.token);
    expect(ofAlice.body.data.user.groupCount).toBeNull();
    expect(ofAlice.body.data.user.groupMemberships.nodes).toEqual([{ group: { fullPath: group.full_path }, accessLevel: { integerValue: 50 } }]);
    // Alice's one project membership is of her personal project, which Carol cannot read; of Bob's two, Carol sees one.
    expect(ofAlice.body.data.user.projectMemberships).toEqual({ count: 0, nodes: [] });
    const ofBob = await t.graphql(q, { u: bob.username }, carol.token);
    expect(ofBob.body.data.user.projectMemberships).toEqual({ count: 1, nodes: [{ project: { fullPath: project.path_with_namespace }, accessLevel: { integerValue: 30 } }] });
    expect((await t.graphql(q, { u: alice.username }, alice.token)).body.data.user.groupCount).toBe(1);
    expect((await t.graphql(q, { u: alice.username }, t.rootToken)).body.data.user.groupCount).toBe(1);
  });

  it("lists the user's groups to the user and administrators, by search and permission scope", async () => {
    const dev = await createGroup(t, alice.token, { path: `zz-dev-${Date.now()}` });
    const sub = await createGroup(t, alice.token, { parentId: dev.id });
    const maint = await createGroup(t, alice.token, { path: `zz-maint-${Date.now()}` });
    await addMember(t, alice.token, 'groups', dev.id, bob.id, 30);
    await addMember(t, alice.token, 'groups', maint.id, bob.id, 40);
    await apiOk(t, alice.token, 'PUT', `/groups/${maint.id}`, { project_creation_level: 'maintainer' });
    const q = `query($u: String!) { user(username: $u) {
      groups { count nodes { fullPath } }
      searched: groups(search: "maint") { nodes { fullPath } }
      create: groups(permissionScope: CREATE_PROJECTS) { nodes { fullPath } }
      transfer: groups(permissionScope: TRANSFER_PROJECTS) { nodes { fullPath } }
    } }`;
    const own = await t.graphql(q, { u: bob.username }, bob.token);
    expect(own.body.errors, own.text).toBeUndefined();
    const paths = (c: { nodes: { fullPath: string }[] }) => c.nodes.map((n) => n.fullPath);
    expect(paths(own.body.data.user.groups)).toEqual([dev.full_path, maint.full_path]);
    expect(paths(own.body.data.user.searched)).toEqual([maint.full_path]);
    // Developers create projects in the group and its subgroup (project_creation_level developer), Maintainers in theirs.
    expect(paths(own.body.data.user.create).sort()).toEqual([dev.full_path, sub.full_path, maint.full_path].sort());
    expect(paths(own.body.data.user.transfer)).toEqual([maint.full_path]);
    expect(paths((await t.graphql(q, { u: bob.username }, t.rootToken)).body.data.user.groups)).toEqual([dev.full_path, maint.full_path]);
    expect((await t.graphql(q, { u: bob.username }, carol.token)).body.data.user).toEqual({ groups: null, searched: null, create: null, transfer: null });
  });

  it("lists the user's snippets the viewer may read, by visibility and type", async () => {
    await apiOk(t, bob.token, 'POST', '/snippets', { title: 'mine', visibility: 'private', files: [{ file_path: 'a.txt', content: 'a' }] });
    await apiOk(t, bob.token, 'POST', '/snippets', { title: 'shared', visibility: 'public', files: [{ file_path: 'a.txt', content: 'a' }] });
    await apiOk(t, bob.token, 'POST', `/projects/${project.id}/snippets`, { title: 'in project', visibility: 'private', files: [{ file_path: 'a.txt', content: 'a' }] });
    const q = `query($u: String!) { user(username: $u) { snippets { nodes { title } } public: snippets(visibility: public) { nodes { title } } personal: snippets(type: personal) { nodes { title } } } }`;
    const own = (await t.graphql(q, { u: bob.username }, bob.token)).body.data.user;
    expect(titles(own.snippets)).toEqual(['in project', 'shared', 'mine']);
    expect(titles(own.public)).toEqual(['shared']);
    expect(titles(own.personal)).toEqual(['shared', 'mine']);
    const other = (await t.graphql(q, { u: bob.username }, carol.token)).body.data.user;
    expect(titles(other.snippets)).toEqual(['in project', 'shared']);
  });

  it("shows an e-mail address's timestamps", async () => {
    const email = await apiOk(t, bob.token, 'POST', '/user/emails', { email: `${bob.username}-2@example.com` });
    const res = await t.graphql(`{ currentUser { emails { nodes { email createdAt updatedAt } } } }`, {}, bob.token);
    expect(res.body.errors, res.text).toBeUndefined();
    const node = res.body.data.currentUser.emails.nodes.find((n: any) => n.email === email.email);
    expect(Date.parse(node.createdAt)).toBeGreaterThan(Date.now() - 60_000);
    expect(node.updatedAt).toBe(node.createdAt);
  });

  it('counts the groups of a list of users in one query', async () => {
    counting = true;
    statements = 0;
    const one = await t.graphql(`query($u: String) { users(username: $u) { nodes { groupCount } } }`, { u: alice.username }, t.rootToken);
    const single = statements;
    statements = 0;
    const all = await t.graphql(`{ users(search: "user-") { nodes { groupCount } } }`, {}, t.rootToken);
    counting = false;
    expect(one.body.errors ?? all.body.errors, one.text + all.text).toBeUndefined();
    expect(all.body.data.users.nodes.length).toBeGreaterThanOrEqual(3);
    expect(statements).toBeLessThanOrEqual(single);
  });
});
