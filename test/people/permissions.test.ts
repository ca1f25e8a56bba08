/**
 * GitLab's permission types on projects, groups, users and memberships: ProjectPermissions (Project.userPermissions),
 * GroupPermissions (Group.userPermissions), UserPermissions (UserCore.userPermissions), and on GroupMember and
 * ProjectMember their group or project, their userPermissions and mergeRequestInteraction(id:).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { suiteServer } from '../support/server.js';
import { addMember, apiOk, createGroup, createProject, createUser, type TestUser } from '../support/factories.js';

let counting = false;
let statements = 0;
const t = suiteServer({}, { onQuery: () => counting && statements++ });

let owner: TestUser;
let reporter: TestUser;
let developer: TestUser;
let stranger: TestUser;
let external: TestUser;
let group: { id: number; full_path: string };
let project: { id: number; path_with_namespace: string };
let publicProject: { id: number; path_with_namespace: string };

const ALL = `adminOperations adminPathLocks adminProject adminRemoteMirror adminWiki archiveProject changeNamespace
  changeVisibilityLevel createDeployment createIssue createMergeRequestFrom createMergeRequestIn createPipeline
  createPipelineSchedule createSnippet createWiki downloadCode downloadWikiCode forkProject pushCode
  pushToDeleteProtectedBranch readCommitStatus readCycleAnalytics readEnvironment readMergeRequest readPagesContent
  readProject readProjectMember readWiki removeForkProject removePages removeProject renameProject requestAccess
  updatePages uploadFile`;

async function permissions(path: string, token: string | null): Promise<Record<string, boolean> | null> {
  const res = await t.graphql(`query($p: ID!) { project(fullPath: $p) { userPermissions { ${ALL} } } }`, { p: path }, token);
  expect(res.body.errors, res.text).toBeUndefined();
  return res.body.data.project?.userPermissions ?? null;
}

beforeAll(async () => {
  [owner, reporter, developer, stranger, external] = await Promise.all([createUser(t), createUser(t), createUser(t), createUser(t), createUser(t, { external: true })]);
  group = await createGroup(t, owner.token);
  project = await createProject(t, owner.token, { namespaceId: group.id });
  publicProject = await createProject(t, owner.token, { visibility: 'public' });
  await addMember(t, owner.token, 'projects', project.id, reporter.id, 20);
  await addMember(t, owner.token, 'groups', group.id, developer.id, 30);
});

describe('ProjectPermissions', () => {
  it("answers each ability by the viewer's role: Owner, Developer through the group, Reporter", async () => {
    const asOwner = await permissions(project.path_with_namespace, owner.token);
    // An Owner may do everything but ask to join.
    expect(Object.entries(asOwner!).filter(([, v]) => !v).map(([k]) => k)).toEqual(['requestAccess']);
    expect(asOwner).toMatchObject({ adminProject: true, removeProject: true, renameProject: true, adminWiki: true, pushCode: true, requestAccess: false, removeForkProject: true });

    const asDeveloper = await permissions(project.path_with_namespace, developer.token);
    expect(asDeveloper).toMatchObject({
      readProject: true, pushCode: true, createWiki: true, createPipeline: true, createMergeRequestFrom: true, createDeployment: true,
      adminWiki: false, adminProject: false, adminOperations: false, removeProject: false, renameProject: false, archiveProject: false,
      pushToDeleteProtectedBranch: false, updatePages: false, removePages: false, adminPathLocks: false, adminRemoteMirror: false, requestAccess: false,
    });

    const asReporter = await permissions(project.path_with_namespace, reporter.token);
    expect(asReporter).toMatchObject({
      readProject: true, readProjectMember: true, readWiki: true, downloadCode: true, downloadWikiCode: true, createSnippet: true, createIssue: true,
      uploadFile: true, readCycleAnalytics: true, readMergeRequest: true, readCommitStatus: true, readEnvironment: true, readPagesContent: true,
      pushCode: false, createWiki: false, createPipeline: false, createMergeRequestFrom: false, createMergeRequestIn: true, adminProject: false,
    });
  });

  it('gives a signed-in non-member of a public project the public abilities, and a request to join', async () => {
    const p = await permissions(publicProject.path_with_namespace, stranger.token);
    expect(p).toMatchObject({ readProject: true, downloadCode: true, readWiki: true, uploadFile: true, createIssue: true, forkProject: true, requestAccess: true, pushCode: false, createSnippet: false, adminProject: false });
    const anonymous = await permissions(publicProject.path_with_namespace, null);
    expect(anonymous).toMatchObject({ readProject: true, downloadCode: true, uploadFile: false, requestAccess: false, createIssue: false, forkProject: false });
    // An external user sees no internal project, and asks nothing of a private one.
    expect(await permissions(project.path_with_namespace, external.token)).toBeNull();
  });

  it('follows the wiki and analytics features and the request access setting', async () => {
    await apiOk(t, owner.token, 'PUT', `/projects/${publicProject.id}`, { wiki_access_level: 'disabled', analytics_access_level: 'disabled', request_access_enabled: false });
    const p = await permissions(publicProject.path_with_namespace, stranger.token);
    expect(p).toMatchObject({ readWiki: false, downloadWikiCode: false, readCycleAnalytics: false, requestAccess: false, readProject: true });
    expect(await permissions(publicProject.path_with_namespace, owner.token)).toMatchObject({ readWiki: false, adminWiki: false, createWiki: false, readCycleAnalytics: false });
  });

  it('refuses the writes on an archived project', async () => {
    const archived = await createProject(t, owner.token);
    await apiOk(t, owner.token, 'POST', `/projects/${archived.id}/archive`);
    expect(await permissions(archived.path_with_namespace, owner.token)).toMatchObject({
      readProject: true, pushCode: false, pushToDeleteProtectedBranch: false, createWiki: false, adminWiki: false, uploadFile: false, createIssue: false, updatePages: false, removeProject: true, archiveProject: true,
    });
  });

  it('costs no query per project in a list', async () => {
    const q = `{ projects(membership: true) { nodes { userPermissions { ${ALL} } } } }`;
    counting = true;
    statements = 0;
    const one = await t.graphql(q, {}, reporter.token);
    const few = statements;
    statements = 0;
    const many = await t.graphql(q, {}, owner.token);
    counting = false;
    expect(one.body.errors ?? many.body.errors, one.text + many.text).toBeUndefined();
    expect(many.body.data.projects.nodes.length).toBeGreaterThan(one.body.data.projects.nodes.length);
    expect(statements).toBeLessThanOrEqual(few);
  });
});

describe('GroupPermissions and UserPermissions', () => {
  it("answers the group's read_group and create_projects", async () => {
    const q = `query($p: ID!) { group(fullPath: $p) { userPermissions { readGroup createProjects } } }`;
    const asDeveloper = await t.graphql(q, { p: group.full_path }, developer.token);
    expect(asDeveloper.body.data.group.userPermissions).toEqual({ readGroup: true, createProjects: true });
    await apiOk(t, owner.token, 'PUT', `/groups/${group.id}`, { project_creation_level: 'maintainer' });
    const after = await t.graphql(q, { p: group.full_path }, developer.token);
    expect(after.body.data.group.userPermissions).toEqual({ readGroup: true, createProjects: false });
    expect((await t.graphql(q, { p: group.full_path }, stranger.token)).body.data.group).toBeNull();
  });

  it("answers create_snippet for the current user, whichever user is shown", async () => {
    const q = `query($u: String!) { currentUser { userPermissions { createSnippet } } user(username: $u) { userPermissions { createSnippet } } }`;
    const own = await t.graphql(q, { u: owner.username }, stranger.token);
    expect(own.body.data).toEqual({ currentUser: { userPermissions: { createSnippet: true } }, user: { userPermissions: { createSnippet: true } } });
    const ext = await t.graphql(q, { u: owner.username }, external.token);
    expect(ext.body.data.user.userPermissions.createSnippet).toBe(false);
    const anonymous = await t.graphql(`query($u: String!) { user(username: $u) { userPermissions { createSnippet } } }`, { u: owner.username }, null);
    expect(anonymous.body.data.user.userPermissions.createSnippet).toBe(false);
  });
});

describe('GroupMember and ProjectMember', () => {
  it('show their group or project, and the permissions the viewer holds there', async () => {
    const res = await t.graphql(
      `query($g: ID!, $p: ID!) {
        group(fullPath: $g) { groupMembers { nodes { user { username } group { fullPath } userPermissions { readGroup createProjects } } } }
        project(fullPath: $p) { projectMembers { nodes { __typename user { username } ... on ProjectMember { project { fullPath } userPermissions { readProject pushCode } } } } }
      }`,
      { g: group.full_path, p: project.path_with_namespace },
      reporter.token,
    );
    expect(res.body.errors, res.text).toBeUndefined();
    const groupMember = res.body.data.group.groupMembers.nodes.find((m: any) => m.user.username === developer.username);
    expect(groupMember).toMatchObject({ group: { fullPath: group.full_path }, userPermissions: { readGroup: true, createProjects: false } });
    const projectMember = res.body.data.project.projectMembers.nodes.find((m: any) => m.user.username === reporter.username);
    expect(projectMember).toMatchObject({ __typename: 'ProjectMember', project: { fullPath: project.path_with_namespace }, userPermissions: { readProject: true, pushCode: false } });
  });

  it("answers mergeRequestInteraction for a merge request the viewer reads, null for one they cannot", async () => {
    await apiOk(t, owner.token, 'POST', `/projects/${project.id}/repository/commits`, { branch: 'main', commit_message: 'init', actions: [{ action: 'create', file_path: 'a.txt', content: 'a' }] });
    await apiOk(t, owner.token, 'POST', `/projects/${project.id}/repository/branches`, { branch: 'feature', ref: 'main' });
    const mr = await apiOk(t, owner.token, 'POST', `/projects/${project.id}/merge_requests`, { source_branch: 'feature', target_branch: 'main', title: 'MR', reviewer_ids: [reporter.id] });
    const gid = `gid://gitlab/MergeRequest/${mr.id}`;
    const q = `query($p: ID!, $id: MergeRequestID!) { project(fullPath: $p) { projectMembers { nodes { user { username } mergeRequestInteraction(id: $id) { canMerge canUpdate reviewState reviewed approved } } } } }`;
    const res = await t.graphql(q, { p: project.path_with_namespace, id: gid }, owner.token);
    expect(res.body.errors, res.text).toBeUndefined();
    const byUser = Object.fromEntries(res.body.data.project.projectMembers.nodes.map((m: any) => [m.user.username, m.mergeRequestInteraction]));
    expect(byUser[reporter.username]).toEqual({ canMerge: false, canUpdate: false, reviewState: 'UNREVIEWED', reviewed: false, approved: false });
    expect(byUser[owner.username]).toMatchObject({ canMerge: true, canUpdate: true, reviewState: null });

    // A merge request of a project the viewer cannot read: null.
    const hidden = await createProject(t, stranger.token);
    await apiOk(t, stranger.token, 'POST', `/projects/${hidden.id}/repository/commits`, { branch: 'main', commit_message: 'init', actions: [{ action: 'create', file_path: 'a.txt', content: 'a' }] });
    await apiOk(t, stranger.token, 'POST', `/projects/${hidden.id}/repository/branches`, { branch: 'x', ref: 'main' });
    const other = await apiOk(t, stranger.token, 'POST', `/projects/${hidden.id}/merge_requests`, { source_branch: 'x', target_branch: 'main', title: 'hidden' });
    const none = await t.graphql(q, { p: project.path_with_namespace, id: `gid://gitlab/MergeRequest/${other.id}` }, owner.token);
    expect(none.body.data.project.projectMembers.nodes.every((m: any) => m.mergeRequestInteraction === null)).toBe(true);
  });
});
