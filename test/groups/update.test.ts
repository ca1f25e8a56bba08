import { beforeAll, describe, expect, it } from 'vitest';
import { Gitlab } from '@gitbeaker/rest';
import { suiteServer, EXTERNAL_URL } from '../support/server.js';
import { addMember, createGroup, createProject, createUser, unique, type TestUser } from '../support/factories.js';

const t = suiteServer();
let owner: TestUser;
let gitbeaker: InstanceType<typeof Gitlab>;
beforeAll(async () => {
  owner = await createUser(t);
  gitbeaker = new Gitlab({ host: t.url, token: owner.token });
});

const GROUP_KEYS = [
  'id', 'web_url', 'name', 'path', 'description', 'visibility', 'share_with_group_lock', 'require_two_factor_authentication',
  'two_factor_grace_period', 'project_creation_level', 'auto_devops_enabled', 'subgroup_creation_level', 'emails_disabled',
  'emails_enabled', 'mentions_disabled', 'lfs_enabled', 'default_branch', 'avatar_url', 'request_access_enabled', 'full_name',
  'full_path', 'created_at', 'parent_id',
].sort();

describe('PUT /groups/:id', () => {
  it("shows GitLab's group entity with the settings' defaults, and shared_with_groups in the detail", async () => {
    const group = await createGroup(t, owner.token);
    const res = await t.api('GET', `/groups/${group.id}`, { token: owner.token });
    expect(Object.keys(res.body).sort()).toEqual([...GROUP_KEYS, 'shared_runners_setting', 'shared_with_groups'].sort());
    expect(res.body).toMatchObject({
      share_with_group_lock: false, require_two_factor_authentication: false, two_factor_grace_period: 48, project_creation_level: 'developer',
      auto_devops_enabled: null, subgroup_creation_level: 'maintainer', emails_disabled: false, emails_enabled: true, mentions_disabled: null,
      lfs_enabled: true, default_branch: null, request_access_enabled: true, shared_runners_setting: 'enabled', shared_with_groups: [],
    });
    const list = await t.api('GET', '/groups', { token: owner.token });
    expect(Object.keys(list.body[0]).sort()).toEqual(GROUP_KEYS);
  });

  it("keeps the old paths of a renamed group's projects, in subgroups too, answering until something takes them", async () => {
    const group = await createGroup(t, owner.token);
    const sub = await createGroup(t, owner.token, { parentId: group.id });
    const top = await createProject(t, owner.token, { namespaceId: group.id });
    const deep = await createProject(t, owner.token, { namespaceId: sub.id });
    const renamed = await t.api('PUT', `/groups/${group.id}`, { token: owner.token, body: { path: unique('renamed') } });
    expect(renamed.status, renamed.text).toBe(200);
    for (const project of [top, deep]) {
      const old = await t.api('GET', `/projects/${encodeURIComponent(project.path_with_namespace)}`, { token: owner.token });
      expect(old.status).toBe(200);
      expect(old.body).toMatchObject({ id: project.id, path_with_namespace: `${renamed.body.full_path}${project.path_with_namespace.slice(group.full_path.length)}` });
      // GitLab's GraphQL looks full paths up without following redirects: the old path names nothing there.
      const gql = await t.graphql('query($p: ID!) { project(fullPath: $p) { id } }', { p: project.path_with_namespace }, owner.token);
      expect(gql.body.data?.project).toBeNull();
    }
    // A stranger learns nothing through an old path of a private project.
    const stranger = await createUser(t);
    expect((await t.api('GET', `/projects/${encodeURIComponent(top.path_with_namespace)}`, { token: stranger.token })).status).toBe(404);
    // A new group taking the old path takes its routes back: the old project path no longer redirects.
    await createGroup(t, owner.token, { path: group.path });
    expect((await t.api('GET', `/projects/${encodeURIComponent(top.path_with_namespace)}`, { token: owner.token })).status).toBe(404);
  });

  it('changes the settings through gitbeaker and reads them back through REST and GraphQL', async () => {
    const group = await createGroup(t, owner.token);
    const edited = await gitbeaker.Groups.edit(group.id, {
      description: 'new words', projectCreationLevel: 'maintainer', subgroupCreationLevel: 'owner', requestAccessEnabled: false,
      shareWithGroupLock: true, lfsEnabled: false, mentionsDisabled: true, emailsDisabled: true,
      requireTwoFactorAuthentication: true, twoFactorGracePeriod: 12, autoDevopsEnabled: true,
    });
    expect(edited).toMatchObject({
      description: 'new words', project_creation_level: 'maintainer', subgroup_creation_level: 'owner', request_access_enabled: false,
      share_with_group_lock: true, lfs_enabled: false, mentions_disabled: true, emails_enabled: false, emails_disabled: true,
      default_branch: null, require_two_factor_authentication: true, two_factor_grace_period: 12, auto_devops_enabled: true,
    });
    const again = await t.api('PUT', `/groups/${group.id}`, { token: owner.token, body: { emails_disabled: false, default_branch: 'trunk' } });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ emails_enabled: true, emails_disabled: false, description: 'new words', default_branch: 'trunk' });
    const gql = await t.graphql(
      'query($p: ID!) { group(fullPath: $p) { description projectCreationLevel subgroupCreationLevel shareWithGroupLock lfsEnabled defaultBranch emailsEnabled } }',
      { p: group.full_path },
      owner.token,
    );
    expect(gql.body.data?.group).toEqual({
      description: 'new words', projectCreationLevel: 'maintainer', subgroupCreationLevel: 'owner', shareWithGroupLock: true, lfsEnabled: false,
      defaultBranch: 'trunk', emailsEnabled: true,
    });
  });

  it('renames a group: the full paths and names of its subgroups and their projects follow, old paths stop answering', async () => {
    const top = await createGroup(t, owner.token);
    const sub = await createGroup(t, owner.token, { parentId: top.id });
    const deep = await createGroup(t, owner.token, { parentId: sub.id });
    const project = await createProject(t, owner.token, { namespaceId: deep.id });
    const newPath = unique('renamed');
    const res = await t.api('PUT', `/groups/${top.id}`, { token: owner.token, body: { name: 'Renamed Top', path: newPath } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name: 'Renamed Top', path: newPath, full_path: newPath, full_name: 'Renamed Top', web_url: `${EXTERNAL_URL}/groups/${newPath}` });
    const deepNow = await t.api('GET', `/groups/${deep.id}`, { token: owner.token });
    expect(deepNow.body).toMatchObject({ full_path: `${newPath}/${sub.path}/${deep.path}`, full_name: `Renamed Top / ${sub.name} / ${deep.name}` });
    const projectNow = await t.api('GET', `/projects/${project.id}`, { token: owner.token });
    expect(projectNow.body).toMatchObject({ path_with_namespace: `${newPath}/${sub.path}/${deep.path}/${project.path}`, web_url: `${EXTERNAL_URL}/${newPath}/${sub.path}/${deep.path}/${project.path}` });
    expect((await t.api('GET', `/projects/${encodeURIComponent(`${newPath}/${sub.path}/${deep.path}/${project.path}`)}`, { token: owner.token })).status).toBe(200);
    expect((await t.api('GET', `/groups/${encodeURIComponent(`${top.path}/${sub.path}`)}`, { token: owner.token })).status).toBe(404);
    const gql = await t.graphql('query($p: ID!) { group(fullPath: $p) { databaseId fullName } }', { p: `${newPath}/${sub.path}` }, owner.token);
    expect(gql.body.data?.group).toEqual({ databaseId: sub.id, fullName: `Renamed Top / ${sub.name}` });
  });

  it("refuses a path in use by a sibling group or a project of the parent, and an invalid path, in GitLab's words", async () => {
    const top = await createGroup(t, owner.token);
    const a = await createGroup(t, owner.token, { parentId: top.id });
    const b = await createGroup(t, owner.token, { parentId: top.id });
    const project = await createProject(t, owner.token, { namespaceId: top.id });
    const clash = await t.api('PUT', `/groups/${b.id}`, { token: owner.token, body: { path: a.path.toUpperCase() } });
    expect(clash.status).toBe(400);
    expect(clash.body).toEqual({ message: { path: ['has already been taken'] } });
    const projectClash = await t.api('PUT', `/groups/${b.id}`, { token: owner.token, body: { path: project.path } });
    expect(projectClash.body).toEqual({ message: { path: ['has already been taken'] } });
    const bad = await t.api('PUT', `/groups/${b.id}`, { token: owner.token, body: { path: 'bad path.git', name: '  ' } });
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body.message).sort()).toEqual(['name', 'path']);
    const enumBad = await t.api('PUT', `/groups/${b.id}`, { token: owner.token, body: { project_creation_level: 'everyone' } });
    expect(enumBad.status).toBe(400);
    expect(enumBad.body).toEqual({ error: 'project_creation_level does not have a valid value' });
    expect((await t.api('PUT', `/groups/${b.id}`, { token: owner.token, body: { two_factor_grace_period: '99999999999' } })).status).toBe(400);
    const long = await t.api('PUT', `/groups/${b.id}`, { token: owner.token, body: { description: 'd'.repeat(100_000) } });
    expect(long.body).toEqual({ message: { description: ['is too long (maximum is 255 characters)'] } });
    const negative = await t.api('PUT', `/groups/${b.id}`, { token: owner.token, body: { two_factor_grace_period: -1 } });
    expect(negative.body).toEqual({ message: { two_factor_grace_period: ['must be greater than or equal to 0'] } });
    const nul = await t.api('PUT', `/groups/${b.id}`, { token: owner.token, body: { name: 'a\u0000b' } });
    expect(nul.status).toBe(400);
    expect((await t.api('GET', `/groups/${b.id}`, { token: owner.token })).body.path).toBe(b.path);
  });

  it("applies GitLab's visibility rules: not above the parent, not below its projects or subgroups", async () => {
    const top = await createGroup(t, owner.token, { visibility: 'internal' });
    const sub = await createGroup(t, owner.token, { parentId: top.id, visibility: 'internal' });
    await createProject(t, owner.token, { namespaceId: sub.id, visibility: 'internal' });
    const up = await t.api('PUT', `/groups/${sub.id}`, { token: owner.token, body: { visibility: 'public' } });
    expect(up.status).toBe(400);
    expect(up.body).toEqual({ message: { visibility_level: ['public is not allowed since the parent group has a internal visibility.'] } });
    const down = await t.api('PUT', `/groups/${sub.id}`, { token: owner.token, body: { visibility: 'private' } });
    expect(down.body).toEqual({ message: { visibility_level: ['private is not allowed since this group contains projects with higher visibility.'] } });
    const topDown = await t.api('PUT', `/groups/${top.id}`, { token: owner.token, body: { visibility: 'private' } });
    expect(topDown.body).toEqual({ message: { visibility_level: ['private is not allowed since there are sub-groups with higher visibility.'] } });
    const topUp = await t.api('PUT', `/groups/${top.id}`, { token: owner.token, body: { visibility: 'public' } });
    expect(topUp.status).toBe(200);
    expect(topUp.body.visibility).toBe('public');
  });

  it('is for Owners and administrators: Maintainers get 403, strangers 404, anonymous callers 401', async () => {
    const group = await createGroup(t, owner.token);
    const maintainer = await createUser(t);
    await addMember(t, owner.token, 'groups', group.id, maintainer.id, 40);
    expect((await t.api('PUT', `/groups/${group.id}`, { token: maintainer.token, body: { name: 'x' } })).status).toBe(403);
    const stranger = await createUser(t);
    const hidden = await t.api('PUT', `/groups/${group.id}`, { token: stranger.token, body: { name: 'x' } });
    expect(hidden.status).toBe(404);
    expect(hidden.body).toEqual({ message: '404 Group Not Found' });
    expect((await t.api('PUT', `/groups/${group.id}`, { token: null, body: { name: 'x' } })).status).toBe(401);
    const admin = await t.api('PUT', `/groups/${group.id}`, { body: { name: 'By Admin' } });
    expect(admin.status).toBe(200);
    expect(admin.body.name).toBe('By Admin');
  });

  it('locks sharing in every subgroup, and only an Owner of the locked parent unlocks a subgroup', async () => {
    const top = await createGroup(t, owner.token);
    const sub = await createGroup(t, owner.token, { parentId: top.id });
    await t.api('PUT', `/groups/${top.id}`, { token: owner.token, body: { share_with_group_lock: true } });
    expect((await t.api('GET', `/groups/${sub.id}`, { token: owner.token })).body.share_with_group_lock).toBe(true);
    const later = await createGroup(t, owner.token, { parentId: top.id });
    expect(later.share_with_group_lock).toBe(true);
    const subOwner = await createUser(t);
    await addMember(t, owner.token, 'groups', sub.id, subOwner.id, 50);
    const refused = await t.api('PUT', `/groups/${sub.id}`, { token: subOwner.token, body: { share_with_group_lock: false } });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({
      message: { share_with_group_lock: ['cannot be disabled when the parent group "Share with group lock" is enabled, except by the owner of the parent group'] },
    });
    const allowed = await t.api('PUT', `/groups/${sub.id}`, { token: owner.token, body: { share_with_group_lock: false } });
    expect(allowed.body.share_with_group_lock).toBe(false);
  });

  it('honours project_creation_level and subgroup_creation_level where projects and subgroups are created', async () => {
    const group = await createGroup(t, owner.token);
    const developer = await createUser(t);
    const maintainer = await createUser(t);
    await addMember(t, owner.token, 'groups', group.id, developer.id, 30);
    await addMember(t, owner.token, 'groups', group.id, maintainer.id, 40);
    const create = (user: TestUser) => t.api('POST', '/projects', { token: user.token, body: { name: unique('p'), namespace_id: group.id } });
    expect((await create(developer)).status).toBe(201);
    await t.api('PUT', `/groups/${group.id}`, { token: owner.token, body: { project_creation_level: 'maintainer' } });
    expect((await create(developer)).status).toBe(403);
    expect((await create(maintainer)).status).toBe(201);
    await t.api('PUT', `/groups/${group.id}`, { token: owner.token, body: { project_creation_level: 'noone' } });
    expect((await create(owner)).status).toBe(403);
    expect((await t.api('POST', '/projects', { body: { name: unique('p'), namespace_id: group.id } })).status).toBe(403);
    const subgroup = (user: TestUser) => t.api('POST', '/groups', { token: user.token, body: { name: 's', path: unique('s'), parent_id: group.id } });
    expect((await subgroup(maintainer)).status).toBe(201);
    await t.api('PUT', `/groups/${group.id}`, { token: owner.token, body: { subgroup_creation_level: 'owner' } });
    expect((await subgroup(maintainer)).status).toBe(403);
    expect((await subgroup(owner)).status).toBe(201);
  });

  it('changes a group through the groupUpdate mutation, with the same rules', async () => {
    const group = await createGroup(t, owner.token);
    const res = await t.graphql(
      'mutation($i: GroupUpdateInput!) { groupUpdate(input: $i) { errors group { name description visibility requestAccessEnabled } } }',
      { i: { fullPath: group.full_path, name: 'From GraphQL', description: 'gql', visibility: 'internal', requestAccessEnabled: false } },
      owner.token,
    );
    expect(res.body.data?.groupUpdate).toEqual({ errors: [], group: { name: 'From GraphQL', description: 'gql', visibility: 'internal', requestAccessEnabled: false } });
    // Now internal: another user reads it but may not change it; a private group stays hidden from them.
    const stranger = await createUser(t);
    const change = (fullPath: string) => t.graphql('mutation($i: GroupUpdateInput!) { groupUpdate(input: $i) { errors } }', { i: { fullPath, name: 'no' } }, stranger.token);
    expect((await change(group.full_path)).body.errors?.[0]).toMatchObject({ message: "The resource that you are attempting to access does not exist or you don't have permission to perform this action", extensions: { code: 'FORBIDDEN' } });
    const hidden = await createGroup(t, owner.token);
    expect((await change(hidden.full_path)).body.errors?.[0]).toMatchObject({ message: "The resource that you are attempting to access does not exist or you don't have permission to perform this action", extensions: { code: 'NOT_FOUND' } });
  });

  it("answers GitLab's relay payloads: clientMutationId echoed, invalid records and refusals in errors, missing groups raised", async () => {
    const path = unique('relay');
    const create = 'mutation($i: GroupCreateInput!) { groupCreate(input: $i) { clientMutationId errors group { fullPath parentId } } }';
    const created = await t.graphql(create, { i: { name: path, path, clientMutationId: 'create-1' } }, owner.token);
    expect(created.body).toEqual({ data: { groupCreate: { clientMutationId: 'create-1', errors: [], group: { fullPath: path, parentId: null } } } });
    // The record's validation failures as Rails' full messages, the group null, no GraphQL error; REST keeps its body.
    const taken = await t.graphql(create, { i: { name: 'again', path, clientMutationId: 'create-2' } }, owner.token);
    expect(taken.body).toEqual({ data: { groupCreate: { clientMutationId: 'create-2', errors: ['Path has already been taken'], group: null } } });
    const rest = await t.api('POST', '/groups', { token: owner.token, body: { name: 'again', path } });
    expect({ status: rest.status, body: rest.body }).toEqual({ status: 400, body: { message: 'Failed to save group {:path=>["has already been taken"]}' } });

    const other = await createGroup(t, owner.token);
    const update = await t.graphql('mutation($i: GroupUpdateInput!) { groupUpdate(input: $i) { errors group { path } } }', { i: { fullPath: other.full_path, path } }, owner.token);
    expect(update.body).toEqual({ data: { groupUpdate: { errors: ['Path has already been taken'], group: null } } });

    const transfer = 'mutation($i: GroupTransferInput!) { groupTransfer(input: $i) { clientMutationId errors group { fullPath } } }';
    const parent = (await t.api('GET', `/groups/${path}`, { token: owner.token })).body;
    const moved = await t.graphql(transfer, { i: { fullPath: other.full_path, groupId: `gid://gitlab/Group/${parent.id}`, clientMutationId: 't' } }, owner.token);
    expect(moved.body).toEqual({ data: { groupTransfer: { clientMutationId: 't', errors: [], group: { fullPath: `${path}/${other.path}` } } } });
    const root = await t.graphql(transfer, { i: { fullPath: path } }, owner.token);
    expect(root.body).toEqual({ data: { groupTransfer: { clientMutationId: null, errors: ['Transfer failed: Group is already a root group.'], group: null } } });

    const gone = await t.graphql('mutation($i: GroupDeleteInput!) { groupDelete(input: $i) { errors message } }', { i: { fullPath: unique('missing') } }, owner.token);
    expect(gone.body.data).toEqual({ groupDelete: null });
    expect(gone.body.errors?.[0].extensions).toMatchObject({ code: 'NOT_FOUND' });
  });
});
