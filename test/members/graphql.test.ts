import { Gitlab } from '@gitbeaker/rest';
import { beforeAll, describe, expect, it } from 'vitest';
import { suiteServer } from '../support/server.js';
import { addMember, createGroup, createProject, createUser, type TestUser } from '../support/factories.js';

const t = suiteServer();
let owner: TestUser;
let asOwner: InstanceType<typeof Gitlab>;

beforeAll(async () => {
  owner = await createUser(t);
  asOwner = new Gitlab({ host: t.url, token: owner.token });
});

/** The status of a failed gitbeaker call. */
async function statusOf(call: Promise<unknown>): Promise<number | undefined> {
  const error = await call.then(() => undefined, (e: unknown) => e);
  return (error as { cause?: { response?: { status: number } } } | undefined)?.cause?.response?.status;
}

describe('@gitbeaker/rest GroupMembers and ProjectMembers', () => {
  it('shows, edits and removes group members, inherited ones included', async () => {
    const group = await createGroup(t, owner.token);
    const sub = await createGroup(t, owner.token, { parentId: group.id });
    const dev = await createUser(t);
    await asOwner.GroupMembers.add(group.id, 30, { userId: dev.id });
    expect(await asOwner.GroupMembers.show(group.id, dev.id)).toMatchObject({ id: dev.id, access_level: 30 });
    expect(await asOwner.GroupMembers.show(sub.id, dev.id, { includeInherited: true })).toMatchObject({ id: dev.id, access_level: 30 });
    expect(await statusOf(asOwner.GroupMembers.show(sub.id, dev.id))).toBe(404);

    const edited = await asOwner.GroupMembers.edit(group.id, dev.id, 40, { expiresAt: '2099-01-31', memberRoleId: 7 });
    expect(edited).toMatchObject({ id: dev.id, access_level: 40, expires_at: '2099-01-31' });
    expect(await statusOf(asOwner.GroupMembers.edit(group.id, owner.id, 30))).toBe(403);

    await asOwner.GroupMembers.remove(group.id, dev.id);
    expect((await asOwner.GroupMembers.all(group.id)).map((m) => m.id)).toEqual([owner.id]);
    expect(await statusOf(asOwner.GroupMembers.remove(group.id, dev.id))).toBe(404);
  });

  it('shows, edits and removes project members, and filters lists by user ids', async () => {
    const group = await createGroup(t, owner.token);
    const project = await createProject(t, owner.token, { namespaceId: group.id });
    const [a, b] = [await createUser(t), await createUser(t)];
    await asOwner.ProjectMembers.add(project.id, 20, { userId: a.id });
    await asOwner.ProjectMembers.add(project.id, 10, { username: b.username });
    expect(await asOwner.ProjectMembers.show(project.id, a.id)).toMatchObject({ username: a.username, access_level: 20 });
    expect((await asOwner.ProjectMembers.all(project.id, { userIds: [b.id] })).map((m) => m.id)).toEqual([b.id]);
    expect((await asOwner.ProjectMembers.all(project.id, { includeInherited: true, skipUsers: [a.id] })).map((m) => m.id).sort()).toEqual([owner.id, b.id].sort());
    expect(await asOwner.ProjectMembers.edit(project.id, a.id, 30)).toMatchObject({ access_level: 30 });
    await asOwner.ProjectMembers.remove(project.id, a.id);
    expect(await statusOf(asOwner.ProjectMembers.show(project.id, a.id))).toBe(404);
  });
});

describe('GraphQL', () => {
  it('reads one member and filtered lists through Group and Project', async () => {
    const group = await createGroup(t, owner.token);
    const project = await createProject(t, owner.token, { namespaceId: group.id });
    const dev = await createUser(t);
    await addMember(t, owner.token, 'groups', group.id, dev.id, 30);
    const res = await t.graphql(
      `query($path: ID!, $path2: ID!, $user: ID!) {
        group(fullPath: $path) {
          groupMember(userId: $user) { id accessLevel { integerValue stringValue } user { username } }
          groupMembers(userIds: [$user]) { count nodes { user { username } } }
        }
        project(fullPath: $path2) { projectMember(userId: $user, relations: [DIRECT, INHERITED]) { accessLevel { integerValue } } }
      }`,
      { path: group.full_path, path2: project.path_with_namespace, user: `gid://gitlab/User/${dev.id}` },
      owner.token,
    );
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data).toEqual({
      group: {
        groupMember: { id: expect.stringMatching(/^gid:\/\/gitlab\/GroupMember\/\d+$/), accessLevel: { integerValue: 30, stringValue: 'DEVELOPER' }, user: { username: dev.username } },
        groupMembers: { count: 1, nodes: [{ user: { username: dev.username } }] },
      },
      project: { projectMember: { accessLevel: { integerValue: 30 } } },
    });
    const typed = await t.graphql(
      `query($path: ID!) { project(fullPath: $path) { projectMembers(relations: [DIRECT, INHERITED]) {
        nodes { __typename ... on GroupMember { id } ... on ProjectMember { id } user { username } }
      } } }`,
      { path: project.path_with_namespace },
      owner.token,
    );
    const projectDev = await createUser(t);
    expect(typed.body.data.project.projectMembers.nodes).toEqual(
      expect.arrayContaining([{ __typename: 'GroupMember', id: expect.stringMatching(/^gid:\/\/gitlab\/GroupMember\//), user: { username: dev.username } }]),
    );
    await addMember(t, owner.token, 'projects', project.id, projectDev.id, 30);
    const direct = await t.graphql('query($path: ID!) { project(fullPath: $path) { projectMembers(relations: [DIRECT]) { nodes { __typename user { username } } } } }', { path: project.path_with_namespace }, owner.token);
    expect(direct.body.data.project.projectMembers.nodes).toEqual([{ __typename: 'ProjectMember', user: { username: projectDev.username } }]);
    const missing = await t.graphql('query($path: ID!) { project(fullPath: $path) { projectMember(userId: "1") { id } } }', { path: project.path_with_namespace }, owner.token);
    expect(missing.body.errors?.[0]).toMatchObject({ message: '404 Not found', extensions: { code: 'NOT_FOUND' } });
  });

  it('updates and removes members with the same rules as REST', async () => {
    const group = await createGroup(t, owner.token);
    const dev = await createUser(t);
    await addMember(t, owner.token, 'groups', group.id, dev.id, 30);
    const update = 'mutation($g: ID!, $u: ID!, $level: MemberAccessLevel!) { groupMemberUpdate(input: { groupId: $g, userId: $u, accessLevel: $level }) { groupMember { accessLevel { integerValue } } errors } }';
    const raised = await t.graphql(update, { g: group.full_path, u: String(dev.id), level: 'MAINTAINER' }, owner.token);
    expect(raised.body.data).toEqual({ groupMemberUpdate: { groupMember: { accessLevel: { integerValue: 40 } }, errors: [] } });
    const lastOwner = await t.graphql(update, { g: group.full_path, u: String(owner.id), level: 'GUEST' }, owner.token);
    expect(lastOwner.body.errors?.[0].extensions).toMatchObject({ code: 'FORBIDDEN' });
    const remove = 'mutation($g: ID!, $u: ID!) { groupMemberDelete(input: { groupId: $g, userId: $u }) { groupMember { user { username } } errors } }';
    const removed = await t.graphql(remove, { g: group.full_path, u: String(dev.id) }, owner.token);
    expect(removed.body.data).toEqual({ groupMemberDelete: { groupMember: { user: { username: dev.username } }, errors: [] } });
    const again = await t.graphql(remove, { g: group.full_path, u: String(dev.id) }, owner.token);
    expect(again.body.errors?.[0].extensions).toMatchObject({ code: 'NOT_FOUND' });
  });

  it('bulk-updates direct members as GitLab’s groupMemberBulkUpdate and projectMemberBulkUpdate do, all or none', async () => {
    const group = await createGroup(t, owner.token);
    const project = await createProject(t, owner.token, { namespaceId: group.id });
    const [a, b, outsider] = [await createUser(t), await createUser(t), await createUser(t)];
    for (const u of [a, b]) await addMember(t, owner.token, 'groups', group.id, u.id, 20);
    const groupBulk = `mutation($input: GroupMemberBulkUpdateInput!) {
      groupMemberBulkUpdate(input: $input) { clientMutationId errors groupMembers { user { username } accessLevel { integerValue } expiresAt } }
    }`;
    const gid = (id: number) => `gid://gitlab/User/${id}`;
    const res = await t.graphql(groupBulk, { input: { clientMutationId: 'x1', groupId: `gid://gitlab/Group/${group.id}`, userIds: [gid(a.id), gid(b.id)], accessLevel: 'DEVELOPER', expiresAt: '2099-06-30T00:00:00Z' } }, owner.token);
    expect(res.body.data).toEqual({
      groupMemberBulkUpdate: {
        clientMutationId: 'x1',
        errors: [],
        groupMembers: [a, b].map((u) => ({ user: { username: u.username }, accessLevel: { integerValue: 30 }, expiresAt: '2099-06-30T00:00:00.000Z' })),
      },
    });
    const partial = await t.graphql(groupBulk, { input: { groupId: `gid://gitlab/Group/${group.id}`, userIds: [gid(a.id), gid(outsider.id)], accessLevel: 'GUEST' } }, owner.token);
    expect(partial.body.errors?.[0]).toMatchObject({ message: "The resource that you are attempting to access does not exist or you don't have permission to perform this action" });
    expect((await t.api('GET', `/groups/${group.id}/members/${a.id}`, { token: owner.token })).body.access_level).toBe(30);
    const tooMany = await t.graphql(groupBulk, { input: { groupId: `gid://gitlab/Group/${group.id}`, userIds: Array.from({ length: 51 }, (_, i) => gid(i + 1)), accessLevel: 'GUEST' } }, owner.token);
    // A refusal of the request as a whole: the payload's errors, nothing changed.
    expect(tooMany.body.errors).toBeUndefined();
    expect(tooMany.body.data).toEqual({ groupMemberBulkUpdate: { clientMutationId: null, errors: ['Count of members to be updated should be less than 50.'], groupMembers: null } });

    await addMember(t, owner.token, 'projects', project.id, outsider.id, 10);
    const projectBulk = 'mutation($input: ProjectMemberBulkUpdateInput!) { projectMemberBulkUpdate(input: $input) { projectMembers { accessLevel { integerValue } } errors } }';
    const updated = await t.graphql(projectBulk, { input: { projectId: `gid://gitlab/Project/${project.id}`, userIds: [gid(outsider.id)], accessLevel: 'REPORTER' } }, owner.token);
    expect(updated.body.data).toEqual({ projectMemberBulkUpdate: { projectMembers: [{ accessLevel: { integerValue: 20 } }], errors: [] } });
    const refused = await t.graphql(projectBulk, { input: { projectId: `gid://gitlab/Project/${project.id}`, userIds: [gid(outsider.id)], accessLevel: 'OWNER' } }, a.token);
    expect(refused.body.errors?.[0].extensions).toMatchObject({ code: 'FORBIDDEN' });
  });

  it("answers GitLab's relay payloads: clientMutationId echoed, refusals and invalid records in errors, missing members raised", async () => {
    const group = await createGroup(t, owner.token);
    const project = await createProject(t, owner.token);
    const [dev, late] = [await createUser(t), await createUser(t)];
    const create = `mutation($input: GroupMemberCreateInput!) {
      groupMemberCreate(input: $input) { clientMutationId errors groupMember { user { username } accessLevel { integerValue } } }
    }`;
    const input = { groupId: String(group.id), userId: String(dev.id), accessLevel: 'DEVELOPER' };
    const added = await t.graphql(create, { input: { ...input, clientMutationId: 'add-1' } }, owner.token);
    expect(added.body).toEqual({
      data: { groupMemberCreate: { clientMutationId: 'add-1', errors: [], groupMember: { user: { username: dev.username }, accessLevel: { integerValue: 30 } } } },
    });
    // The service's refusal (REST's 409) is the payload's error, without the status, and nothing is returned.
    const twice = await t.graphql(create, { input: { ...input, clientMutationId: 'add-2' } }, owner.token);
    expect(twice.body).toEqual({ data: { groupMemberCreate: { clientMutationId: 'add-2', errors: ['Member already exists'], groupMember: null } } });
    const rest = await t.api('POST', `/groups/${group.id}/members`, { token: owner.token, body: { user_id: dev.id, access_level: 30 } });
    expect({ status: rest.status, body: rest.body }).toEqual({ status: 409, body: { message: 'Member already exists' } });

    // A record that does not validate: Rails' full message.
    const past = await t.graphql(
      'mutation($p: ID!, $u: ID!) { projectMemberCreate(input: { projectId: $p, userId: $u, accessLevel: GUEST, expiresAt: "2000-01-01" }) { errors projectMember { id } } }',
      { p: project.path_with_namespace, u: String(late.id) },
      owner.token,
    );
    expect(past.body).toEqual({ data: { projectMemberCreate: { errors: ['Expires at cannot be a date in the past'], projectMember: null } } });

    // Several users at once: the payload's membersAddResult is GitLab's service status.
    const several = await t.graphql(
      'mutation($p: ID!, $u: String!) { projectMembersAdd(input: { projectId: $p, userId: $u, accessLevel: REPORTER, clientMutationId: "many" }) { clientMutationId errors membersAddResult { status message member { id } } } }',
      { p: project.path_with_namespace, u: `${dev.id},${late.id}` },
      owner.token,
    );
    expect(several.body.data).toEqual({ projectMembersAdd: { clientMutationId: 'many', errors: [], membersAddResult: { status: 'success', message: null, member: null } } });

    // A member that does not exist, and a caller who may not change members, stay top-level errors.
    const update = 'mutation($p: ID!, $u: ID!) { projectMemberUpdate(input: { projectId: $p, userId: $u, accessLevel: GUEST }) { errors projectMember { id } } }';
    const stranger = await createUser(t);
    const missing = await t.graphql(update, { p: project.path_with_namespace, u: String(stranger.id) }, owner.token);
    expect(missing.body.data).toEqual({ projectMemberUpdate: null });
    expect(missing.body.errors?.[0].extensions).toMatchObject({ code: 'NOT_FOUND' });
    const byReporter = await t.graphql(update, { p: project.path_with_namespace, u: String(late.id) }, dev.token);
    expect(byReporter.body.data).toEqual({ projectMemberUpdate: null });
    expect(byReporter.body.errors?.[0].extensions).toMatchObject({ code: 'FORBIDDEN' });
  });

  it('tells an expiry left out (kept) from a null one (removed), over GraphQL and REST alike', async () => {
    const group = await createGroup(t, owner.token);
    const dev = await createUser(t);
    await addMember(t, owner.token, 'groups', group.id, dev.id, 30);
    const update = `mutation($g: ID!, $u: ID!, $level: MemberAccessLevel!, $expires: Date) {
      groupMemberUpdate(input: { groupId: $g, userId: $u, accessLevel: $level, expiresAt: $expires }) { errors groupMember { accessLevel { integerValue } expiresAt } }
    }`;
    const vars = { g: String(group.id), u: String(dev.id) };
    const set = await t.graphql(update, { ...vars, level: 'DEVELOPER', expires: '2099-03-01' }, owner.token);
    expect(set.body.data?.groupMemberUpdate).toEqual({ errors: [], groupMember: { accessLevel: { integerValue: 30 }, expiresAt: '2099-03-01T00:00:00.000Z' } });
    const kept = await t.graphql(update, { ...vars, level: 'REPORTER' }, owner.token);
    expect(kept.body.data?.groupMemberUpdate).toEqual({ errors: [], groupMember: { accessLevel: { integerValue: 20 }, expiresAt: '2099-03-01T00:00:00.000Z' } });
    // REST runs the same input literal without `$expiresAt` (graphql-jit): still left out, not null.
    const rest = await t.api('PUT', `/groups/${group.id}/members/${dev.id}`, { token: owner.token, body: { access_level: 30 } });
    expect(rest.body).toMatchObject({ access_level: 30, expires_at: '2099-03-01' });
    const removed = await t.graphql(update, { ...vars, level: 'DEVELOPER', expires: null }, owner.token);
    expect(removed.body.data?.groupMemberUpdate).toEqual({ errors: [], groupMember: { accessLevel: { integerValue: 30 }, expiresAt: null } });
  });
});
