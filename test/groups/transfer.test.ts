import { beforeAll, describe, expect, it } from 'vitest';
import { Gitlab } from '@gitbeaker/rest';
import { suiteServer } from '../support/server.js';
import { addMember, createGroup, createProject, createUser, type TestUser } from '../support/factories.js';

const t = suiteServer();
let owner: TestUser;
let gitbeaker: InstanceType<typeof Gitlab>;
beforeAll(async () => {
  owner = await createUser(t);
  gitbeaker = new Gitlab({ host: t.url, token: owner.token });
});

const ids = (list: { id: number }[]) => list.map((g) => g.id);

describe('POST /groups/:id/transfer', () => {
  it('moves a group with its subgroups and projects under a new parent, then back to the top level', async () => {
    const source = await createGroup(t, owner.token, { visibility: 'public' });
    const moved = await createGroup(t, owner.token, { parentId: source.id, visibility: 'public' });
    const child = await createGroup(t, owner.token, { parentId: moved.id, visibility: 'public' });
    const project = await createProject(t, owner.token, { namespaceId: child.id, visibility: 'public' });
    const target = await createGroup(t, owner.token, { visibility: 'internal' });

    const res = await gitbeaker.Groups.transfer(moved.id, { groupId: target.id });
    expect(res).toMatchObject({ id: moved.id, parent_id: target.id, full_path: `${target.path}/${moved.path}`, visibility: 'internal' });
    const childNow = await t.api('GET', `/groups/${child.id}`, { token: owner.token });
    expect(childNow.body).toMatchObject({ full_path: `${target.path}/${moved.path}/${child.path}`, visibility: 'internal' });
    const projectNow = await t.api('GET', `/projects/${project.id}`, { token: owner.token });
    expect(projectNow.body).toMatchObject({ path_with_namespace: `${target.path}/${moved.path}/${child.path}/${project.path}`, visibility: 'internal' });
    const descendants = await t.api('GET', `/groups/${target.id}/descendant_groups`, { token: owner.token });
    expect(ids(descendants.body).sort()).toEqual([moved.id, child.id].sort());
    expect((await t.api('GET', `/groups/${source.id}/descendant_groups`, { token: owner.token })).body).toEqual([]);

    const top = await t.api('POST', `/groups/${moved.id}/transfer`, { token: owner.token });
    expect(top.status).toBe(201);
    expect(top.body).toMatchObject({ parent_id: null, full_path: moved.path, full_name: moved.name });
    const gql = await t.graphql('query($p: ID!) { group(fullPath: $p) { fullPath parent { id } } }', { p: `${moved.path}/${child.path}` }, owner.token);
    expect(gql.body.data?.group).toEqual({ fullPath: `${moved.path}/${child.path}`, parent: { id: `gid://gitlab/Group/${moved.id}` } });
  });

  it("refuses what GitLab refuses, in its words", async () => {
    const top = await createGroup(t, owner.token);
    const sub = await createGroup(t, owner.token, { parentId: top.id });
    const deeper = await createGroup(t, owner.token, { parentId: sub.id });
    const transfer = (id: number, groupId?: number, token = owner.token) =>
      t.api('POST', `/groups/${id}/transfer`, { token, body: groupId === undefined ? {} : { group_id: groupId } });
    expect((await transfer(top.id)).body).toEqual({ message: 'Transfer failed: Group is already a root group.' });
    expect((await transfer(sub.id, top.id)).body).toEqual({ message: 'Transfer failed: Group is already associated to the parent group.' });
    expect((await transfer(sub.id, sub.id)).body).toEqual({ message: 'Transfer failed: Cannot transfer group to one of its subgroup.' });
    const intoChild = await transfer(top.id, deeper.id);
    expect(intoChild.status).toBe(400);
    expect(intoChild.body).toEqual({ message: 'Transfer failed: Cannot transfer group to one of its subgroup.' });
    const other = await createGroup(t, owner.token);
    await createGroup(t, owner.token, { parentId: other.id, path: `${sub.path}` }).catch(() => undefined);
    expect((await transfer(sub.id, other.id)).body).toEqual({ message: 'Transfer failed: The parent group already has a subgroup or a project with the same path.' });
    expect((await transfer(sub.id, 2147483647)).body).toEqual({ message: '404 Group Not Found' });
  });

  it('asks for Owner on the group and for creating subgroups in the new parent', async () => {
    const group = await createGroup(t, owner.token);
    const sub = await createGroup(t, owner.token, { parentId: group.id });
    const developer = await createUser(t);
    await addMember(t, owner.token, 'groups', group.id, developer.id, 30);
    expect((await t.api('POST', `/groups/${sub.id}/transfer`, { token: developer.token })).status).toBe(403);
    const stranger = await createUser(t);
    expect((await t.api('POST', `/groups/${sub.id}/transfer`, { token: stranger.token })).status).toBe(404);
    const elsewhere = await createGroup(t, stranger.token, { visibility: 'public' });
    const refused = await t.api('POST', `/groups/${sub.id}/transfer`, { token: owner.token, body: { group_id: elsewhere.id } });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ message: "Transfer failed: You don't have enough permissions." });
    expect((await t.api('GET', `/groups/${sub.id}`, { token: owner.token })).body.parent_id).toBe(group.id);
  });
});

describe('group lists', () => {
  it('lists descendants at every level with the filters of subgroups, through gitbeaker and GraphQL', async () => {
    const top = await createGroup(t, owner.token);
    const a = await createGroup(t, owner.token, { parentId: top.id, visibility: 'private' });
    const b = await createGroup(t, owner.token, { parentId: a.id });
    const c = await createGroup(t, owner.token, { parentId: top.id });
    const all = await gitbeaker.Groups.allDescendantGroups(top.id, {});
    expect(ids(all as { id: number }[]).sort()).toEqual([a.id, b.id, c.id].sort());
    const skipped = await t.api('GET', `/groups/${top.id}/descendant_groups?skip_groups[]=${a.id}&skip_groups[]=${c.id}`, { token: owner.token });
    expect(ids(skipped.body)).toEqual([b.id]);
    expect(skipped.headers.get('x-total')).toBe('1');
    // Comma-separated, as GitLab's CommaSeparatedToIntegerArray reads it.
    const commas = await t.api('GET', `/groups/${top.id}/descendant_groups?skip_groups=${a.id},${c.id}`, { token: owner.token });
    expect(ids(commas.body)).toEqual([b.id]);
    expect((await t.api('GET', `/groups/${top.id}/descendant_groups?skip_groups=${a.id},x`, { token: owner.token })).status).toBe(400);
    const searched = await t.api('GET', `/groups/${top.id}/descendant_groups?search=${b.path}`, { token: owner.token });
    expect(ids(searched.body)).toEqual([b.id]);
    const desc = await t.api('GET', `/groups/${top.id}/descendant_groups?order_by=id&sort=desc`, { token: owner.token });
    expect(ids(desc.body)).toEqual([c.id, b.id, a.id]);
    const gql = await t.graphql('query($p: ID!) { group(fullPath: $p) { descendantGroups(orderBy: id) { count nodes { databaseId } } } }', { p: top.full_path }, owner.token);
    expect(gql.body.data?.group.descendantGroups).toEqual({ count: 3, nodes: [{ databaseId: a.id }, { databaseId: b.id }, { databaseId: c.id }] });
    const outsider = await createUser(t);
    expect((await t.api('GET', `/groups/${top.id}/descendant_groups`, { token: outsider.token })).status).toBe(404);
  });

  it('skips groups, keeps to top-level ones, and filters by the viewer level in GET /groups', async () => {
    const top = await createGroup(t, owner.token);
    const sub = await createGroup(t, owner.token, { parentId: top.id });
    const other = await createGroup(t, owner.token);
    const mine = await t.api('GET', `/groups?skip_groups[]=${other.id}&per_page=100`, { token: owner.token });
    expect(ids(mine.body)).toEqual(expect.arrayContaining([top.id, sub.id]));
    expect(ids(mine.body)).not.toContain(other.id);
    const tops = await t.api('GET', '/groups?top_level_only=true&per_page=100', { token: owner.token });
    expect(ids(tops.body)).not.toContain(sub.id);
    const guest = await createUser(t);
    await addMember(t, owner.token, 'groups', top.id, guest.id, 10);
    expect(ids((await t.api('GET', '/groups?min_access_level=30', { token: guest.token })).body)).toEqual([]);
    expect(ids((await t.api('GET', '/groups?min_access_level=10', { token: guest.token })).body).sort()).toEqual([top.id, sub.id].sort());
    const bad = await t.api('GET', '/groups?skip_groups[]=abc', { token: owner.token });
    expect(bad.status).toBe(400);
  });

  it('shows statistics to administrators who ask, and to nobody else', async () => {
    const group = await createGroup(t, owner.token);
    const asAdmin = await t.api('GET', `/groups?statistics=true&search=${group.path}`);
    expect(asAdmin.body[0].statistics).toEqual({
      storage_size: 0, repository_size: 0, wiki_size: 0, lfs_objects_size: 0, job_artifacts_size: 0,
      pipeline_artifacts_size: 0, packages_size: 0, snippets_size: 0, uploads_size: 0,
    });
    expect((await t.api('GET', `/groups?search=${group.path}`)).body[0]).not.toHaveProperty('statistics');
    expect((await t.api('GET', `/groups?statistics=true&search=${group.path}`, { token: owner.token })).body[0]).not.toHaveProperty('statistics');
  });
});
