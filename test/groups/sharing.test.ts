import { beforeAll, describe, expect, it } from 'vitest';
import { Gitlab } from '@gitbeaker/rest';
import { MEMBERSHIPS_CHANGED } from '../../src/auth/memberships.js';
import { suiteServer } from '../support/server.js';
import { addMember, createGroup, createProject, createUser, type TestUser } from '../support/factories.js';

const t = suiteServer();
let owner: TestUser;
let gitbeaker: InstanceType<typeof Gitlab>;
beforeAll(async () => {
  owner = await createUser(t);
  gitbeaker = new Gitlab({ host: t.url, token: owner.token });
});

/** A group of the owner's with one Developer member, to share things with. */
async function teamWithDeveloper() {
  const team = await createGroup(t, owner.token);
  const developer = await createUser(t);
  await addMember(t, owner.token, 'groups', team.id, developer.id, 30);
  return { team, developer };
}

const readsProject = async (token: string, projectId: number) =>
  (await t.graphql('query($p: ID!) { project(fullPath: $p) { id } }', { p: String(projectId) }, token)).body.data?.project !== null;

describe('group sharing', () => {
  it('shares a group with a group: members of the invited group reach it, its subgroups and projects at the lesser level, until unshared', async () => {
    const shared = await createGroup(t, owner.token);
    const sub = await createGroup(t, owner.token, { parentId: shared.id });
    const project = await createProject(t, owner.token, { namespaceId: sub.id });
    const { team, developer } = await teamWithDeveloper();
    expect((await t.api('GET', `/groups/${shared.id}`, { token: developer.token })).status).toBe(404);

    const res = await gitbeaker.Groups.share(shared.id, team.id, 40, { expiresAt: '2999-01-31' });
    expect(res).toMatchObject({ id: shared.id, shared_with_groups: [{ group_id: team.id, group_name: team.name, group_full_path: team.full_path, group_access_level: 40, expires_at: '2999-01-31' }] });
    expect((await t.api('GET', `/groups/${sub.id}`, { token: developer.token })).status).toBe(200);
    expect((await t.api('GET', `/projects/${project.id}`, { token: developer.token })).status).toBe(200);
    // The lesser of Developer (own) and Maintainer (share): Developer, who may create projects but not subgroups.
    const gql = await t.graphql('query($p: ID!) { group(fullPath: $p) { viewerAccess { integerValue } } }', { p: sub.full_path }, developer.token);
    expect(gql.body.data?.group.viewerAccess).toEqual({ integerValue: 30 });
    expect((await t.api('POST', '/groups', { token: developer.token, body: { name: 'n', path: 'n-sub', parent_id: shared.id } })).status).toBe(403);
    const mine = await t.api('GET', '/groups', { token: developer.token });
    expect(mine.body.map((g: { id: number }) => g.id)).toEqual(expect.arrayContaining([shared.id, sub.id, team.id]));
    const invitedTo = await t.api('GET', `/groups/${team.id}/groups/shared`, { token: owner.token });
    expect(invitedTo.body.map((g: { id: number }) => g.id)).toEqual([shared.id]);

    const gone = await t.api('DELETE', `/groups/${shared.id}/share/${team.id}`, { token: owner.token });
    expect(gone.status).toBe(204);
    expect(gone.text).toBe('');
    expect((await t.api('GET', `/groups/${sub.id}`, { token: developer.token })).status).toBe(404);
    expect((await t.api('GET', `/projects/${project.id}`, { token: developer.token })).status).toBe(404);
    expect((await t.api('GET', `/groups/${shared.id}`, { token: owner.token })).body.shared_with_groups).toEqual([]);
    const again = await t.api('DELETE', `/groups/${shared.id}/share/${team.id}`, { token: owner.token });
    expect(again.status).toBe(404);
    expect(again.body).toEqual({ message: '404 Group Link Not Found' });
  });

  it('grants nothing through an expired share, and only the invited group direct members get access', async () => {
    const shared = await createGroup(t, owner.token);
    const { team, developer } = await teamWithDeveloper();
    const subteam = await createGroup(t, owner.token, { parentId: team.id });
    const subMember = await createUser(t);
    await addMember(t, owner.token, 'groups', subteam.id, subMember.id, 50);
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    const res = await t.api('POST', `/groups/${shared.id}/share`, { token: owner.token, body: { group_id: team.id, group_access: 30, expires_at: yesterday } });
    expect(res.status).toBe(201);
    expect((await t.api('GET', `/groups/${shared.id}`, { token: developer.token })).status).toBe(404);
    const sharedSub = await createGroup(t, owner.token);
    await t.api('POST', `/groups/${sharedSub.id}/share`, { token: owner.token, body: { group_id: subteam.id, group_access: 30 } });
    await t.api('POST', `/groups/${sharedSub.id}/share`, { token: owner.token, body: { group_id: team.id, group_access: 30 } });
    expect((await t.api('GET', `/groups/${sharedSub.id}`, { token: developer.token })).status).toBe(200);
    expect((await t.api('GET', `/groups/${sharedSub.id}`, { token: subMember.token })).status).toBe(200);
    // A member of the team's subgroup is no direct member of the team: the team's share gives them nothing.
    const onlyTeam = await createGroup(t, owner.token);
    await t.api('POST', `/groups/${onlyTeam.id}/share`, { token: owner.token, body: { group_id: team.id, group_access: 30 } });
    expect((await t.api('GET', `/groups/${onlyTeam.id}`, { token: subMember.token })).status).toBe(404);
  });

  it("refuses what GitLab refuses: duplicates, non-Owners, unreadable groups, bad levels", async () => {
    const shared = await createGroup(t, owner.token);
    const { team, developer } = await teamWithDeveloper();
    const share = (body: Record<string, unknown>, token = owner.token) => t.api('POST', `/groups/${shared.id}/share`, { token, body });
    expect((await share({ group_id: team.id, group_access: 30 })).status).toBe(201);
    const dup = await share({ group_id: team.id, group_access: 20 });
    expect(dup.status).toBe(409);
    expect(dup.body).toEqual({ message: 'Shared group The group has already been shared with this group' });
    expect((await share({ group_id: team.id, group_access: 31 })).body).toEqual({ error: 'group_access does not have a valid value' });
    expect((await share({ group_access: 30 })).body).toEqual({ error: 'group_id is missing' });
    const hidden = await createGroup(t, (await createUser(t)).token);
    expect((await share({ group_id: hidden.id, group_access: 30 })).body).toEqual({ message: '404 Group Not Found' });
    await addMember(t, owner.token, 'groups', shared.id, developer.id, 40);
    const other = await createGroup(t, developer.token);
    const byMaintainer = await share({ group_id: other.id, group_access: 30 }, developer.token);
    expect(byMaintainer.status).toBe(404);
    expect(byMaintainer.body).toEqual({ message: 'Not Found' });
    expect((await t.api('DELETE', `/groups/${shared.id}/share/${team.id}`, { token: developer.token })).status).toBe(404);
    expect((await t.api('GET', `/groups/${shared.id}`, { token: owner.token })).body.shared_with_groups).toHaveLength(1);
  });

  it('shows only the invited groups the viewer can read in shared_with_groups', async () => {
    const shared = await createGroup(t, owner.token, { visibility: 'public' });
    const outsider = await createUser(t);
    const privateTeam = await createGroup(t, owner.token);
    const publicTeam = await createGroup(t, owner.token, { visibility: 'public' });
    await t.api('POST', `/groups/${shared.id}/share`, { token: owner.token, body: { group_id: privateTeam.id, group_access: 20 } });
    await t.api('POST', `/groups/${shared.id}/share`, { token: owner.token, body: { group_id: publicTeam.id, group_access: 20 } });
    const seen = await t.api('GET', `/groups/${shared.id}`, { token: outsider.token });
    expect(seen.body.shared_with_groups.map((s: { group_id: number }) => s.group_id)).toEqual([publicTeam.id]);
    expect((await t.api('GET', `/groups/${shared.id}`, { token: owner.token })).body.shared_with_groups).toHaveLength(2);
  });
});

describe('project sharing', () => {
  it('shares a project with a group: its members (inherited too) reach it at the lesser level, until unshared', async () => {
    const project = await createProject(t, owner.token);
    const { team, developer } = await teamWithDeveloper();
    const subteam = await createGroup(t, owner.token, { parentId: team.id });
    expect(await readsProject(developer.token, project.id)).toBe(false);

    const link = await gitbeaker.Projects.share(project.id, subteam.id, 20, { expiresAt: '2999-12-31' });
    expect(link).toEqual({ id: expect.any(Number), project_id: project.id, group_id: subteam.id, group_access: 20, expires_at: '2999-12-31' });
    expect(await readsProject(developer.token, project.id)).toBe(true);
    const shown = await t.api('GET', `/projects/${project.id}`, { token: developer.token });
    expect(shown.body.shared_with_groups).toEqual([{ group_id: subteam.id, group_name: subteam.name, group_full_path: subteam.full_path, group_access_level: 20, expires_at: '2999-12-31' }]);
    const membership = await t.api('GET', '/projects?membership=true', { token: developer.token });
    expect(membership.body.map((p: { id: number }) => p.id)).toContain(project.id);
    const inGroup = await t.api('GET', `/groups/${subteam.id}/projects`, { token: developer.token });
    expect(inGroup.body.map((p: { id: number }) => p.id)).toEqual([project.id]);
    expect((await t.api('GET', `/groups/${subteam.id}/projects?with_shared=false`, { token: developer.token })).body).toEqual([]);
    const groups = await t.api('GET', `/projects/${project.id}/groups?with_shared=true`, { token: developer.token });
    expect(groups.body).toEqual([{ id: subteam.id, web_url: subteam.web_url, name: subteam.name, avatar_url: null, full_name: subteam.full_name, full_path: subteam.full_path }]);
    expect((await t.api('GET', `/projects/${project.id}/groups`, { token: developer.token })).body).toEqual([]);
    expect((await t.api('GET', `/projects/${project.id}/groups?with_shared=true&shared_min_access_level=30`, { token: developer.token })).body).toEqual([]);

    await gitbeaker.Projects.unshare(project.id, subteam.id);
    expect(await readsProject(developer.token, project.id)).toBe(false);
    expect((await t.api('GET', `/projects/${project.id}`, { token: owner.token })).body.shared_with_groups).toEqual([]);
  });

  it('lets whoever reaches a project through a share read the private groups it is in, and only those', async () => {
    const top = await createGroup(t, owner.token);
    const sub = await createGroup(t, owner.token, { parentId: top.id });
    const sibling = await createGroup(t, owner.token, { parentId: top.id });
    const project = await createProject(t, owner.token, { namespaceId: sub.id });
    const { team, developer } = await teamWithDeveloper();
    expect((await t.api('GET', `/groups/${sub.id}`, { token: developer.token })).status).toBe(404);
    await t.api('POST', `/projects/${project.id}/share`, { token: owner.token, body: { group_id: team.id, group_access: 20 } });
    expect((await t.api('GET', `/groups/${sub.id}`, { token: developer.token })).status).toBe(200);
    expect((await t.api('GET', `/groups/${top.id}`, { token: developer.token })).status).toBe(200);
    expect((await t.api('GET', `/groups/${sibling.id}`, { token: developer.token })).status).toBe(404);
    const groups = await t.api('GET', `/projects/${project.id}/groups`, { token: developer.token });
    expect(groups.body.map((g: { id: number }) => g.id)).toEqual([sub.id, top.id]);
  });

  it('lists the project group and its ancestors', async () => {
    const top = await createGroup(t, owner.token);
    const sub = await createGroup(t, owner.token, { parentId: top.id });
    const project = await createProject(t, owner.token, { namespaceId: sub.id });
    const groups = await gitbeaker.Projects.allGroups(project.id);
    expect((groups as { id: number }[]).map((g) => g.id)).toEqual([sub.id, top.id]);
    expect((await t.api('GET', `/projects/${project.id}/groups?skip_groups[]=${top.id}`, { token: owner.token })).body.map((g: { id: number }) => g.id)).toEqual([sub.id]);
  });

  it("refuses what GitLab refuses: the project's own groups, duplicates, locked groups, Owner access by Maintainers, other users' groups", async () => {
    const group = await createGroup(t, owner.token);
    const project = await createProject(t, owner.token, { namespaceId: group.id });
    const { team } = await teamWithDeveloper();
    const share = (body: Record<string, unknown>, token = owner.token) => t.api('POST', `/projects/${project.id}/share`, { token, body });
    const own = await share({ group_id: group.id, group_access: 30 });
    expect(own.status).toBe(409);
    expect(own.body).toEqual({ message: 'Project cannot be shared with the group it is in or one of its ancestors.' });
    expect((await share({ group_id: team.id, group_access: 30 })).status).toBe(201);
    expect((await share({ group_id: team.id, group_access: 30 })).body).toEqual({ message: 'Project already shared with this group' });
    const stranger = await createUser(t);
    const theirs = await createGroup(t, stranger.token, { visibility: 'public' });
    const foreign = await share({ group_id: theirs.id, group_access: 30 });
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual({ message: 'Not Found' });
    expect((await share({ group_id: 2147483647, group_access: 30 })).body).toEqual({ message: 'Not Found' });
    const maintainer = await createUser(t);
    await addMember(t, owner.token, 'projects', project.id, maintainer.id, 40);
    const mine = await createGroup(t, maintainer.token);
    expect((await share({ group_id: mine.id, group_access: 50 }, maintainer.token)).status).toBe(403);
    expect((await share({ group_id: mine.id, group_access: 40 }, maintainer.token)).status).toBe(201);
    const developer = await createUser(t);
    await addMember(t, owner.token, 'projects', project.id, developer.id, 30);
    expect((await share({ group_id: mine.id, group_access: 10 }, developer.token)).status).toBe(403);
    expect((await t.api('DELETE', `/projects/${project.id}/share/${mine.id}`, { token: developer.token })).status).toBe(403);
    expect((await t.api('POST', `/projects/${project.id}/share`, { token: stranger.token, body: { group_id: theirs.id, group_access: 30 } })).status).toBe(404);

    await t.api('PUT', `/groups/${group.id}`, { token: owner.token, body: { share_with_group_lock: true } });
    const locked = await share({ group_id: mine.id, group_access: 10 });
    expect(locked.status).toBe(400);
    expect(locked.body).toEqual({ message: 'The project sharing with group is disabled' });
  });

  it('stops granting through existing shares while the project group locks sharing', async () => {
    const group = await createGroup(t, owner.token);
    const project = await createProject(t, owner.token, { namespaceId: group.id });
    const { team, developer } = await teamWithDeveloper();
    await t.api('POST', `/projects/${project.id}/share`, { token: owner.token, body: { group_id: team.id, group_access: 30 } });
    expect(await readsProject(developer.token, project.id)).toBe(true);
    await t.api('PUT', `/groups/${group.id}`, { token: owner.token, body: { share_with_group_lock: true } });
    expect(await readsProject(developer.token, project.id)).toBe(false);
    await t.api('PUT', `/groups/${group.id}`, { token: owner.token, body: { share_with_group_lock: false } });
    expect(await readsProject(developer.token, project.id)).toBe(true);
  });

  it('reaches a project through a group that was itself shared with the viewer group', async () => {
    const project = await createProject(t, owner.token);
    const middle = await createGroup(t, owner.token);
    const { team, developer } = await teamWithDeveloper();
    await t.api('POST', `/groups/${middle.id}/share`, { token: owner.token, body: { group_id: team.id, group_access: 30 } });
    await t.api('POST', `/projects/${project.id}/share`, { token: owner.token, body: { group_id: middle.id, group_access: 20 } });
    const level = await t.graphql('query($p: ID!) { project(fullPath: $p) { id } }', { p: project.path_with_namespace }, developer.token);
    expect(level.body.data?.project).not.toBeNull();
    await t.api('DELETE', `/groups/${middle.id}/share/${team.id}`, { token: owner.token });
    expect(await readsProject(developer.token, project.id)).toBe(false);
  });
});

describe('sharing through GraphQL', () => {
  it('shares and unshares a group and a project with the same rules, read back as sharedWithGroups', async () => {
    const shared = await createGroup(t, owner.token);
    const project = await createProject(t, owner.token);
    const { team, developer } = await teamWithDeveloper();
    const groupShare = await t.graphql(
      'mutation($i: GroupShareInput!) { groupShare(input: $i) { errors group { sharedWithGroups { groupId groupFullPath groupAccessLevel expiresAt } } } }',
      { i: { fullPath: shared.full_path, groupId: `gid://gitlab/Group/${team.id}`, groupAccess: 'REPORTER' } },
      owner.token,
    );
    expect(groupShare.body.data?.groupShare).toEqual({ errors: [], group: { sharedWithGroups: [{ groupId: team.id, groupFullPath: team.full_path, groupAccessLevel: 20, expiresAt: null }] } });
    const projectShare = await t.graphql(
      'mutation($i: ProjectShareInput!) { projectShare(input: $i) { errors link { projectId groupId groupAccess } } }',
      { i: { fullPath: project.path_with_namespace, groupId: String(team.id), groupAccess: 'DEVELOPER' } },
      owner.token,
    );
    expect(projectShare.body.data?.projectShare).toEqual({ errors: [], link: { projectId: project.id, groupId: team.id, groupAccess: 30 } });
    const seen = await t.graphql('query($p: ID!) { project(fullPath: $p) { sharedWithGroups { groupName } } }', { p: project.path_with_namespace }, developer.token);
    expect(seen.body.data?.project).toEqual({ sharedWithGroups: [{ groupName: team.name }] });
    const byDeveloper = await t.graphql('mutation($i: ProjectUnshareInput!) { projectUnshare(input: $i) { errors } }', { i: { fullPath: project.path_with_namespace, groupId: String(team.id) } }, developer.token);
    expect(byDeveloper.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    const unshare = await t.graphql('mutation($i: ProjectUnshareInput!) { projectUnshare(input: $i) { errors } }', { i: { fullPath: project.path_with_namespace, groupId: String(team.id) } }, owner.token);
    expect(unshare.body.data?.projectUnshare).toEqual({ errors: [] });
    expect(await readsProject(developer.token, project.id)).toBe(false);
    const groupUnshare = await t.graphql('mutation($i: GroupUnshareInput!) { groupUnshare(input: $i) { errors } }', { i: { fullPath: shared.full_path, groupId: String(team.id) } }, owner.token);
    expect(groupUnshare.body.data?.groupUnshare).toEqual({ errors: [] });
    expect((await t.api('GET', `/groups/${shared.id}`, { token: developer.token })).status).toBe(404);
  });

  it("answers GitLab's relay payloads: clientMutationId echoed, a refused share in errors, a missing share raised", async () => {
    const shared = await createGroup(t, owner.token);
    const project = await createProject(t, owner.token);
    const { team } = await teamWithDeveloper();
    const share = 'mutation($i: ProjectShareInput!) { projectShare(input: $i) { clientMutationId errors link { groupId groupAccess } } }';
    const input = { fullPath: project.path_with_namespace, groupId: String(team.id), groupAccess: 'REPORTER' };
    const first = await t.graphql(share, { i: { ...input, clientMutationId: 'share-1' } }, owner.token);
    expect(first.body).toEqual({ data: { projectShare: { clientMutationId: 'share-1', errors: [], link: { groupId: team.id, groupAccess: 20 } } } });
    // Sharing again is the service's refusal (REST's 409): the payload's error, the link null, no GraphQL error.
    const again = await t.graphql(share, { i: input }, owner.token);
    expect(again.body).toEqual({ data: { projectShare: { clientMutationId: null, errors: ['Project already shared with this group'], link: null } } });
    const groupShare = 'mutation($i: GroupShareInput!) { groupShare(input: $i) { clientMutationId errors group { fullPath } } }';
    const groupInput = { fullPath: shared.full_path, groupId: String(team.id), groupAccess: 'GUEST', clientMutationId: 'g' };
    expect((await t.graphql(groupShare, { i: groupInput }, owner.token)).body.data?.groupShare).toEqual({ clientMutationId: 'g', errors: [], group: { fullPath: shared.full_path } });
    expect((await t.graphql(groupShare, { i: groupInput }, owner.token)).body).toEqual({
      data: { groupShare: { clientMutationId: 'g', errors: ['Shared group The group has already been shared with this group'], group: null } },
    });
    // A share that does not exist stays a top-level error, the payload null.
    const unshare = 'mutation($i: GroupUnshareInput!) { groupUnshare(input: $i) { errors group { id } } }';
    expect((await t.graphql(unshare, { i: { fullPath: shared.full_path, groupId: String(team.id) } }, owner.token)).body.data?.groupUnshare.errors).toEqual([]);
    const missing = await t.graphql(unshare, { i: { fullPath: shared.full_path, groupId: String(team.id) } }, owner.token);
    expect(missing.body.data).toEqual({ groupUnshare: null });
    expect(missing.body.errors?.[0].extensions).toMatchObject({ code: 'NOT_FOUND' });
  });
});

describe('expiry', () => {
  it('stops granting once a share expires', async () => {
    const shared = await createGroup(t, owner.token);
    const project = await createProject(t, owner.token);
    const { team, developer } = await teamWithDeveloper();
    await t.api('POST', `/groups/${shared.id}/share`, { token: owner.token, body: { group_id: team.id, group_access: 30, expires_at: '2999-01-01' } });
    await t.api('POST', `/projects/${project.id}/share`, { token: owner.token, body: { group_id: team.id, group_access: 30, expires_at: '2999-01-01' } });
    expect((await t.api('GET', `/groups/${shared.id}`, { token: developer.token })).status).toBe(200);
    expect(await readsProject(developer.token, project.id)).toBe(true);
    // The day the shares end: remembered memberships lapse at midnight by themselves; the test announces it at once.
    const { app } = t.server;
    await app.db.groupGroupLink.updateMany({ where: { sharedGroupId: shared.id }, data: { expiresAt: new Date('2020-01-01') } });
    await app.db.projectGroupLink.updateMany({ where: { projectId: project.id }, data: { expiresAt: new Date('2020-01-01') } });
    await app.bus.delivered([await app.bus.publish(MEMBERSHIPS_CHANGED, { userIds: [developer.id] })]);
    expect((await t.api('GET', `/groups/${shared.id}`, { token: developer.token })).status).toBe(404);
    expect(await readsProject(developer.token, project.id)).toBe(false);
  });
});

describe('sharing under concurrency and hostile input', () => {
  it('answers one concurrent duplicate share with 201 and the rest with 409, never 500', async () => {
    const shared = await createGroup(t, owner.token);
    const project = await createProject(t, owner.token);
    const { team } = await teamWithDeveloper();
    const groupShares = await Promise.all([1, 2, 3].map(() => t.api('POST', `/groups/${shared.id}/share`, { token: owner.token, body: { group_id: team.id, group_access: 30 } })));
    expect(groupShares.map((r) => r.status).sort()).toEqual([201, 409, 409]);
    const projectShares = await Promise.all([1, 2, 3].map(() => t.api('POST', `/projects/${project.id}/share`, { token: owner.token, body: { group_id: team.id, group_access: 30 } })));
    expect(projectShares.map((r) => r.status).sort()).toEqual([201, 409, 409]);
  });

  it('refuses malformed ids, dates and levels with 400s', async () => {
    const shared = await createGroup(t, owner.token);
    const { team } = await teamWithDeveloper();
    const share = (body: Record<string, unknown>) => t.api('POST', `/groups/${shared.id}/share`, { token: owner.token, body });
    // Any integer is an ID to Grape; one no group can have names nothing (Rails finds no row for it).
    expect((await share({ group_id: '99999999999999999999', group_access: 30 })).status).toBe(404);
    expect((await share({ group_id: team.id, group_access: 30, expires_at: 'tomorrow' })).status).toBe(400);
    expect((await share({ group_id: team.id, group_access: '30\u0000' })).status).toBe(400);
    expect((await t.api('DELETE', `/groups/${shared.id}/share/abc`, { token: owner.token })).status).toBe(400);
    expect((await t.api('GET', `/projects/${(await createProject(t, owner.token)).id}/groups?shared_min_access_level=7`, { token: owner.token })).status).toBe(400);
  });
});
