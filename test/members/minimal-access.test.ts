/**
 * GitLab EE's Minimal Access role (access level 5): given only on top-level groups; its member sees the group and
 * is listed among its members, but reaches nothing inside it (private or internal-to-members projects and subgroups)
 * through that membership, nor through the group's shares.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { suiteServer } from '../support/server.js';
import { addMember, apiOk, createGroup, createProject, createUser, type TestUser } from '../support/factories.js';

const t = suiteServer();
let owner: TestUser;
let minimal: TestUser;
let top: any;
let sub: any;
let privateProject: any;
let subProject: any;
let openTop: any;
let publicProject: any;
let hiddenInOpen: any;

const NOT_AVAILABLE = "The resource that you are attempting to access does not exist or you don't have permission to perform this action";

beforeAll(async () => {
  owner = await createUser(t);
  minimal = await createUser(t);
  top = await createGroup(t, owner.token);
  sub = await createGroup(t, owner.token, { parentId: top.id });
  privateProject = await createProject(t, owner.token, { namespaceId: top.id });
  subProject = await createProject(t, owner.token, { namespaceId: sub.id });
  const added = await t.api('POST', `/groups/${top.id}/members`, { token: owner.token, body: { user_id: minimal.id, access_level: 5 } });
  expect(added.status).toBe(201);
  expect(added.body).toMatchObject({ id: minimal.id, access_level: 5 });
  // A public top-level group: its public projects are everyone's, its private ones its members' only.
  openTop = await createGroup(t, owner.token, { visibility: 'public' });
  publicProject = await createProject(t, owner.token, { namespaceId: openTop.id, visibility: 'public' });
  hiddenInOpen = await createProject(t, owner.token, { namespaceId: openTop.id });
  await addMember(t, owner.token, 'groups', openTop.id, minimal.id, 5);
});

describe('granting Minimal Access', () => {
  it('is refused below a top-level group and on projects, as GitLab validates the level', async () => {
    const user = await createUser(t);
    const refusal = { message: { access_level: ['is not included in the list'] } };
    const onSub = await t.api('POST', `/groups/${sub.id}/members`, { token: owner.token, body: { user_id: user.id, access_level: 5 } });
    expect(onSub.status).toBe(400);
    expect(onSub.body).toEqual(refusal);
    const onProject = await t.api('POST', `/projects/${privateProject.id}/members`, { token: owner.token, body: { user_id: user.id, access_level: 5 } });
    expect(onProject.status).toBe(400);
    expect(onProject.body).toEqual(refusal);

    await addMember(t, owner.token, 'groups', sub.id, user.id, 10);
    const lowered = await t.api('PUT', `/groups/${sub.id}/members/${user.id}`, { token: owner.token, body: { access_level: 5 } });
    expect(lowered.status).toBe(400);
    expect(lowered.body).toEqual(refusal);
    await addMember(t, owner.token, 'projects', privateProject.id, user.id, 10);
    const loweredOnProject = await t.api('PUT', `/projects/${privateProject.id}/members/${user.id}`, { token: owner.token, body: { access_level: 5 } });
    expect(loweredOnProject.status).toBe(400);
    expect(loweredOnProject.body).toEqual(refusal);
    // Several users at once: the refusal is reported per user, nobody added.
    const many = await t.api('POST', `/projects/${privateProject.id}/members`, { token: owner.token, body: { user_id: `${user.id},${minimal.id}`, access_level: 5 } });
    expect(many.status).toBe(201);
    expect(many.body.status).toBe('error');
    expect(many.body.message).toContain('Access level is not included in the list');
    expect((await t.api('GET', `/projects/${privateProject.id}/members/${minimal.id}`, { token: owner.token })).status).toBe(404);
  });

  it('lets an Owner change a top-level member to and from Minimal Access', async () => {
    const user = await createUser(t);
    await addMember(t, owner.token, 'groups', top.id, user.id, 30);
    const lowered = await t.api('PUT', `/groups/${top.id}/members/${user.id}`, { token: owner.token, body: { access_level: 5 } });
    expect(lowered.status).toBe(200);
    expect(lowered.body.access_level).toBe(5);
    expect((await t.api('GET', `/projects/${privateProject.id}`, { token: user.token })).status).toBe(404);
    const raised = await t.api('PUT', `/groups/${top.id}/members/${user.id}`, { token: owner.token, body: { access_level: 10 } });
    expect(raised.body.access_level).toBe(10);
    expect((await t.api('GET', `/projects/${privateProject.id}`, { token: user.token })).status).toBe(200);
  });

  it('is no level a share or a project access token takes', async () => {
    const other = await createGroup(t, owner.token);
    const share = await t.api('POST', `/groups/${top.id}/share`, { token: owner.token, body: { group_id: other.id, group_access: 5 } });
    expect(share.status).toBe(400);
    expect(share.body).toEqual({ error: 'group_access does not have a valid value' });
    const projectShare = await t.api('POST', `/projects/${privateProject.id}/share`, { token: owner.token, body: { group_id: other.id, group_access: 5 } });
    expect(projectShare.status).toBe(400);
    expect(projectShare.body).toEqual({ error: 'group_access does not have a valid value' });
    const token = await t.api('POST', `/projects/${privateProject.id}/access_tokens`, { token: owner.token, body: { name: 'minimal', scopes: ['api'], access_level: 5, expires_at: '2099-01-01' } });
    expect(token.status).toBe(400);
    expect(token.body).toEqual({ error: 'access_level does not have a valid value' });
  });
});

describe('what a Minimal Access member sees', () => {
  it('reads the group and its members, not its private projects or subgroups (REST)', async () => {
    expect((await t.api('GET', `/groups/${top.id}`, { token: minimal.token })).status).toBe(200);
    const members = await t.api('GET', `/groups/${top.id}/members`, { token: minimal.token });
    expect(members.status).toBe(200);
    expect(members.body.find((m: { id: number }) => m.id === minimal.id)).toMatchObject({ access_level: 5 });
    const all = await apiOk(t, owner.token, 'GET', `/groups/${top.id}/members/all?per_page=100`);
    expect(all.find((m: { id: number }) => m.id === minimal.id)).toMatchObject({ access_level: 5 });
    // Not a member of the subgroup or of a project, even as an inherited one.
    for (const path of [`/groups/${sub.id}/members/all`, `/projects/${privateProject.id}/members/all`]) {
      const inherited = await apiOk(t, owner.token, 'GET', `${path}?per_page=100`);
      expect(inherited.map((m: { id: number }) => m.id)).not.toContain(minimal.id);
      expect(inherited.map((m: { id: number }) => m.id)).toContain(owner.id);
    }
    expect((await t.api('GET', `/projects/${privateProject.id}/members/all/${minimal.id}`, { token: owner.token })).status).toBe(404);

    for (const path of [`/projects/${privateProject.id}`, `/projects/${subProject.id}`]) {
      const hidden = await t.api('GET', path, { token: minimal.token });
      expect(hidden.status).toBe(404);
      expect(hidden.body).toEqual({ message: '404 Project Not Found' });
    }
    const hiddenSub = await t.api('GET', `/groups/${sub.id}`, { token: minimal.token });
    expect(hiddenSub.status).toBe(404);
    expect(hiddenSub.body).toEqual({ message: '404 Group Not Found' });
    expect((await t.api('GET', `/projects/${privateProject.id}/issues`, { token: minimal.token })).status).toBe(404);
    expect((await t.api('POST', `/projects/${privateProject.id}/issues`, { token: minimal.token, body: { title: 'x' } })).status).toBe(404);
    expect(await apiOk(t, minimal.token, 'GET', `/groups/${top.id}/projects?include_subgroups=true`)).toEqual([]);
    expect((await t.api('GET', `/projects/${publicProject.id}`, { token: minimal.token })).status).toBe(200);
    expect((await t.api('GET', `/projects/${hiddenInOpen.id}`, { token: minimal.token })).status).toBe(404);
    const open = await apiOk(t, minimal.token, 'GET', `/groups/${openTop.id}/projects`);
    expect(open.map((p: { id: number }) => p.id)).toEqual([publicProject.id]);
    expect(await apiOk(t, minimal.token, 'GET', `/groups/${top.id}/subgroups`)).toEqual([]);
    const mine = await apiOk(t, minimal.token, 'GET', '/projects?membership=true');
    expect(mine).toEqual([]);
    expect(await apiOk(t, minimal.token, 'GET', '/projects?min_access_level=5')).toEqual([]);
  });

  it('finds the group by min_access_level=5, not by the default Guest or above', async () => {
    const atFive = await apiOk(t, minimal.token, 'GET', '/groups?min_access_level=5');
    expect(atFive.map((g: { id: number }) => g.id).sort()).toEqual([top.id, openTop.id].sort());
    expect(await apiOk(t, minimal.token, 'GET', '/groups?min_access_level=10')).toEqual([]);
    const visible = await apiOk(t, minimal.token, 'GET', '/groups');
    expect(visible.map((g: { id: number }) => g.id)).toContain(top.id);
    expect(visible.map((g: { id: number }) => g.id)).not.toContain(sub.id);
  });

  it('reads the group, not its private projects or subgroups (GraphQL)', async () => {
    const read = await t.graphql(
      `query($top: ID!, $sub: ID!, $project: ID!) {
        top: group(fullPath: $top) { id groupMembers { nodes { user { username } accessLevel { integerValue stringValue } } } }
        sub: group(fullPath: $sub) { id }
        project(fullPath: $project) { id }
      }`,
      { top: top.full_path, sub: sub.full_path, project: privateProject.path_with_namespace },
      minimal.token,
    );
    expect(read.body.errors).toBeUndefined();
    expect(read.body.data.top.groupMembers.nodes).toContainEqual({ user: { username: minimal.username }, accessLevel: { integerValue: 5, stringValue: 'MINIMAL_ACCESS' } });
    expect(read.body.data.sub).toBeNull();
    expect(read.body.data.project).toBeNull();
    const write = await t.graphql(
      `mutation($path: ID!) { createIssue(input: { projectPath: $path, title: "x" }) { issue { id } errors } }`,
      { path: privateProject.path_with_namespace },
      minimal.token,
    );
    expect(write.body.errors?.[0]?.message).toBe(NOT_AVAILABLE);
  });

  it('counts the roles given below it: Developer of a subgroup reaches the subgroup and its projects', async () => {
    const user = await createUser(t);
    await addMember(t, owner.token, 'groups', top.id, user.id, 5);
    await addMember(t, owner.token, 'groups', sub.id, user.id, 30);
    expect((await t.api('GET', `/groups/${sub.id}`, { token: user.token })).status).toBe(200);
    expect((await t.api('GET', `/projects/${subProject.id}`, { token: user.token })).status).toBe(200);
    expect((await t.api('GET', `/projects/${privateProject.id}`, { token: user.token })).status).toBe(404);
    const mine = await apiOk(t, user.token, 'GET', '/projects?min_access_level=30');
    expect(mine.map((p: { id: number }) => p.id)).toEqual([subProject.id]);
  });

  it('reaches nothing through a share of its group', async () => {
    const other = await createGroup(t, owner.token);
    const shared = await createProject(t, owner.token, { namespaceId: other.id });
    await apiOk(t, owner.token, 'POST', `/groups/${other.id}/share`, { group_id: top.id, group_access: 30 });
    expect((await t.api('GET', `/groups/${other.id}`, { token: minimal.token })).status).toBe(404);
    expect((await t.api('GET', `/projects/${shared.id}`, { token: minimal.token })).status).toBe(404);
    // A Guest of the same group reaches what the share grants.
    const guest = await createUser(t);
    await addMember(t, owner.token, 'groups', top.id, guest.id, 10);
    expect((await t.api('GET', `/projects/${shared.id}`, { token: guest.token })).status).toBe(200);
  });
});
