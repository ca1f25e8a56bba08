import { beforeAll, describe, expect, it } from 'vitest';
import { Gitlab } from '@gitbeaker/rest';
import { EXTERNAL_URL, suiteServer } from '../support/server.js';
import { PNG, createUser, unique, type TestUser } from '../support/factories.js';
import { eventually } from '../support/wait.js';

const t = suiteServer();
let admin: InstanceType<typeof Gitlab>;
let alice: TestUser;
let asAlice: InstanceType<typeof Gitlab>;

beforeAll(async () => {
  admin = new Gitlab({ host: t.url, token: t.rootToken });
  alice = await createUser(t);
  asAlice = new Gitlab({ host: t.url, token: alice.token });
});

describe('@gitbeaker/rest against the server', () => {
  it('reads the current user and the version', async () => {
    const me = await asAlice.Users.showCurrentUser();
    expect(me.username).toBe(alice.username);
    const version = await asAlice.Metadata.show();
    expect(version.version).toMatch(/^\d+\.\d+/);
  });

  it('creates users and personal access tokens as an administrator', async () => {
    const username = unique('bob');
    const bob = await admin.Users.create({ username, name: 'Bob', email: `${username}@example.com`, password: 'a-long-password' });
    expect(bob.username).toBe(username);
    const shown = await admin.Users.show(bob.id);
    expect(shown.id).toBe(bob.id);
    const token = await admin.Users.createPersonalAccessToken(bob.id, 'ci', ['read_api']);
    expect(token.token).toMatch(/^glpat-/);
    const mine = await new Gitlab({ host: t.url, token: token.token as string }).PersonalAccessTokens.show();
    expect(mine.id).toBe(token.id);
  });

  it('creates a group, a project in it, adds a member, and lists them back with pagination', async () => {
    const path = unique('squad');
    const group = await asAlice.Groups.create(path, path, { description: 'made by gitbeaker' });
    expect(group.full_path).toBe(path);
    const project = await asAlice.Projects.create({ name: 'service', namespaceId: group.id });
    expect(project.path_with_namespace).toBe(`${path}/service`);
    const bob = await createUser(t);
    const member = await asAlice.ProjectMembers.add(project.id, 30, { userId: bob.id });
    expect(member).toMatchObject({ id: bob.id, access_level: 30 });
    await asAlice.GroupMembers.add(group.id, 20, { username: bob.username });

    const members = await asAlice.ProjectMembers.all(project.id);
    expect(members.map((m) => m.username)).toEqual([bob.username]);
    const groupMembers = await asAlice.GroupMembers.all(group.id);
    expect(groupMembers.map((m) => m.username).sort()).toEqual([alice.username, bob.username].sort());

    const shown = await asAlice.Projects.show(`${path}/service`);
    expect(shown.id).toBe(project.id);

    for (let i = 0; i < 4; i++) await asAlice.Projects.create({ name: `extra-${i}`, namespaceId: group.id });
    const page = await asAlice.Groups.allProjects(group.id, { perPage: 2, page: 2, showExpanded: true, pagination: 'offset' });
    expect(page.data).toHaveLength(2);
    expect(page.paginationInfo).toMatchObject({ total: 5, totalPages: 3, current: 2, next: 3, previous: 1, perPage: 2 });
    const everything = await asAlice.Groups.allProjects(group.id, { perPage: 2 });
    expect(everything).toHaveLength(5);
    const owned = await asAlice.Projects.all({ membership: true, perPage: 2 });
    expect(owned.length).toBeGreaterThanOrEqual(5);
  });

  it('reads namespaces and checks whether a path exists', async () => {
    const namespaces = await asAlice.Namespaces.all();
    expect(namespaces.map((n) => n.full_path)).toContain(alice.username);
    const exists = await asAlice.Namespaces.exists(alice.username);
    expect(exists.exists).toBe(true);
    expect(exists.suggests).toEqual([`${alice.username}1`]);
    const shown = await asAlice.Namespaces.show(alice.username);
    expect(shown.kind).toBe('user');
  });

  it('surfaces GitLab error bodies through gitbeaker errors', async () => {
    const error = await asAlice.Projects.show(999999).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    const cause = (error as { cause?: { description?: string; response?: { status: number } } }).cause;
    expect(cause?.response?.status).toBe(404);
    expect(cause?.description).toBe('404 Project Not Found');
  });
});

/** The status of a gitbeaker error (its cause carries GitLab's response), or null when `call` succeeds. */
async function statusOf(call: Promise<unknown>): Promise<number | null> {
  try {
    await call;
    return null;
  } catch (error) {
    return (error as { cause?: { response?: { status: number } } }).cause?.response?.status ?? -1;
  }
}

/** The bytes an avatar URL serves (under EXTERNAL_URL in answers, this server's own address here). */
async function avatarBytes(url: string | null | undefined): Promise<Buffer> {
  const res = await fetch(String(url).replace(EXTERNAL_URL, t.url), { headers: { 'PRIVATE-TOKEN': t.rootToken } });
  expect(res.status).toBe(200);
  return Buffer.from(await res.arrayBuffer());
}

describe('a gitlab.com lifecycle script through @gitbeaker/rest', () => {
  it('creates, updates, shares, transfers and deletes users, groups, projects and memberships, with avatars and sudo, then cleans up', async () => {
    const run = unique('gb');
    const expiresAt = new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10);
    const face = (who: string) => Buffer.concat([PNG, Buffer.from(who)]);

    // Users: created as JSON, edited as multipart (gitbeaker sends every Users.edit as a form), states, tokens, sudo.
    const carolName = `carol-${run}`;
    const [alice, bob, carol] = await Promise.all(
      ['alice', 'bob', 'carol'].map((who) =>
        admin.Users.create({ username: `${who}-${run}`, name: who, email: `${who}-${run}@example.com`, password: 'a-long-password', skipConfirmation: true, bio: `${who} by gitbeaker`, canCreateGroup: true }),
      ),
    );
    expect(alice.bio).toBe('alice by gitbeaker');
    expect(await statusOf(admin.Users.create({ username: `alice-${run}`, name: 'again', email: `again-${run}@example.com`, password: 'a-long-password' }))).toBe(409);
    const edited = await admin.Users.edit(alice.id, { name: 'Alice L.', location: 'Porto', avatar: { content: new Blob([face('alice')]), filename: 'alice.png' } });
    expect(edited).toMatchObject({ name: 'Alice L.', location: 'Porto' });
    expect((await avatarBytes(edited.avatar_url as string)).equals(face('alice'))).toBe(true);
    for (const [change, state] of [
      [() => admin.Users.block(bob.id), 'blocked'],
      [() => admin.Users.unblock(bob.id), 'active'],
      [() => admin.Users.deactivate(bob.id), 'deactivated'],
      [() => admin.Users.activate(bob.id), 'active'],
      [() => admin.Users.ban(bob.id), 'banned'],
      [() => admin.Users.unban(bob.id), 'active'],
    ] as const) {
      await change();
      expect((await admin.Users.show(bob.id)).state).toBe(state);
    }
    const tokenOf = async (id: number) => (await admin.Users.createPersonalAccessToken(id, 'lifecycle', ['api'], { expiresAt })).token as string;
    const asAlice = new Gitlab({ host: t.url, token: await tokenOf(alice.id) });
    const asBob = new Gitlab({ host: t.url, token: await tokenOf(bob.id) });
    expect((await admin.Users.showCurrentUser({ sudo: bob.username })).username).toBe(bob.username);
    const sudoAlice = new Gitlab({ host: t.url, token: t.rootToken, sudo: alice.username });
    expect((await sudoAlice.Users.showCurrentUser()).username).toBe(alice.username);

    // Groups: an avatar at creation (multipart), edits, a subgroup transferred away and to the top, a share.
    const team = await asAlice.Groups.create(`Team ${run}`, `team-${run}`, { description: 'first', visibility: 'private', avatar: { content: new Blob([face('team')]), filename: 'team.png' } });
    expect((await avatarBytes(team.avatar_url as string)).equals(face('team'))).toBe(true);
    expect(await statusOf(asAlice.Groups.create('dup', `team-${run}`))).toBe(400);
    await asAlice.Groups.edit(team.id, { description: 'second' });
    expect((await asAlice.Groups.show(`team-${run}`)).description).toBe('second');
    const partners = await asAlice.Groups.create(`Partners ${run}`, `partners-${run}`, { visibility: 'private' });
    const platform = await asAlice.Groups.create('Platform', `platform-${run}`, { parentId: team.id });
    await asAlice.Groups.transfer(platform.id, { groupId: partners.id });
    expect((await asAlice.Groups.show(platform.id)).full_path).toBe(`partners-${run}/platform-${run}`);
    await asAlice.Groups.transfer(platform.id);
    expect((await asAlice.Groups.show(platform.id)).full_path).toBe(`platform-${run}`);
    await asAlice.Groups.share(team.id, partners.id, 20, { expiresAt });
    expect((await asAlice.Groups.show(team.id)).shared_with_groups).toEqual([
      expect.objectContaining({ group_id: partners.id, group_access_level: 20, expires_at: expiresAt }),
    ]);
    await asAlice.Groups.unshare(team.id, partners.id, {});
    expect((await asAlice.Groups.show(team.id)).shared_with_groups).toEqual([]);

    // Group members.
    await asAlice.GroupMembers.add(team.id, 30, { userId: bob.id });
    expect(await statusOf(asAlice.GroupMembers.add(team.id, 20, { userId: bob.id }))).toBe(409);
    await asAlice.GroupMembers.edit(team.id, bob.id, 40, { expiresAt });
    expect(await asAlice.GroupMembers.show(team.id, bob.id)).toMatchObject({ access_level: 40, expires_at: expiresAt });
    const everyone = await asAlice.GroupMembers.all(team.id, { includeInherited: true });
    expect(everyone.map((m) => m.username).sort()).toEqual([alice.username, bob.username].sort());

    // Projects: JSON and multipart creation, a rename whose old path still answers, transfer, share, members, fork, stars, archive.
    const api = await asAlice.Projects.create({ name: 'API', path: 'api', namespaceId: team.id, description: 'the API', topics: ['backend', 'go'] });
    expect(api.topics).toEqual(['backend', 'go']);
    const site = await asAlice.Projects.create({ name: `site-${run}`, avatar: { content: new Blob([face('site')]), filename: 'site.png' } });
    expect(site.namespace.full_path).toBe(alice.username);
    expect((await avatarBytes(site.avatar_url as string)).equals(face('site'))).toBe(true);
    await asAlice.Projects.transfer(site.id, team.id);
    expect((await asAlice.Projects.show(site.id)).path_with_namespace).toBe(`team-${run}/site-${run}`);
    const carols = await admin.Projects.create({ userId: carol.id, name: `carols-${run}` });
    expect(carols.namespace.full_path).toBe(carolName);
    const bobs = await admin.Projects.create({ name: `bobs-${run}`, sudo: bob.username });
    expect(bobs.namespace.full_path).toBe(bob.username);

    await asAlice.Projects.edit(api.id, { path: 'public-api', description: 'the public API' });
    const renamed = await asAlice.Projects.show(`team-${run}/api`);
    expect(renamed).toMatchObject({ id: api.id, path_with_namespace: `team-${run}/public-api`, description: 'the public API' });
    await asAlice.Projects.transfer(api.id, partners.id);
    expect((await asAlice.Projects.show(api.id)).path_with_namespace).toBe(`partners-${run}/public-api`);
    await asAlice.Projects.transfer(api.id, `team-${run}`);
    await asAlice.Projects.share(api.id, partners.id, 10, { expiresAt });
    expect((await asAlice.Projects.show(api.id)).shared_with_groups).toEqual([expect.objectContaining({ group_id: partners.id, group_access_level: 10, expires_at: expiresAt })]);
    await asAlice.Projects.unshare(api.id, partners.id);

    await asAlice.ProjectMembers.add(api.id, 20, { userId: carol.id });
    await asAlice.ProjectMembers.edit(api.id, carol.id, 30);
    expect((await asAlice.ProjectMembers.show(api.id, carol.id)).access_level).toBe(30);
    const projectMembers = await asAlice.ProjectMembers.all(api.id, { includeInherited: true });
    expect(projectMembers.map((m) => m.username).sort()).toEqual([alice.username, bob.username, carol.username].sort());

    const fork = await asBob.Projects.fork(api.id, { namespacePath: bob.username });
    expect(fork.forked_from_project).toMatchObject({ id: api.id });
    expect((await asBob.Projects.allForks(api.id)).map((p) => p.id)).toEqual([fork.id]);
    expect((await asAlice.Projects.star(api.id)).star_count).toBe(1);
    expect((await asAlice.Projects.unstar(api.id)).star_count).toBe(0);
    expect((await asAlice.Projects.archive(api.id)).archived).toBe(true);
    expect((await asAlice.Projects.unarchive(api.id)).archived).toBe(false);

    // Keyset pagination walked to the end (gitbeaker follows each Link), against offset pages of the same lists.
    const keysetUsers = await admin.Users.all({ pagination: 'keyset', orderBy: 'created_at', sort: 'desc', perPage: 2 });
    const offsetUsers = await admin.Users.all({ orderBy: 'created_at', sort: 'desc', perPage: 100 });
    expect(keysetUsers.map((u) => u.id)).toEqual(offsetUsers.map((u) => u.id));
    expect(keysetUsers.map((u) => u.id)).toEqual(expect.arrayContaining([alice.id, bob.id, carol.id]));
    const keysetProjects = await admin.Projects.all({ pagination: 'keyset', orderBy: 'id', sort: 'asc', perPage: 2 });
    const offsetProjects = await admin.Projects.all({ orderBy: 'id', sort: 'asc', perPage: 100 });
    expect(keysetProjects.map((p) => p.id)).toEqual(offsetProjects.map((p) => p.id));
    expect(keysetProjects.map((p) => p.id)).toEqual(expect.arrayContaining([api.id, site.id, carols.id, bobs.id, fork.id]));

    // Cleaning up: members, projects, groups, then users; nothing made stays readable.
    await asAlice.ProjectMembers.remove(api.id, carol.id);
    await asAlice.GroupMembers.remove(team.id, bob.id);
    expect(await statusOf(asAlice.GroupMembers.show(team.id, bob.id))).toBe(404);
    const projects = [fork, bobs, carols, site, api];
    for (const p of projects) await admin.Projects.remove(p.id);
    for (const g of [platform, partners, team]) await admin.Groups.remove(g.id);
    for (const p of projects) await eventually(async () => (await statusOf(admin.Projects.show(p.id))) === 404);
    for (const g of [platform, partners, team]) await eventually(async () => (await statusOf(admin.Groups.show(g.id))) === 404);
    for (const u of [alice, bob, carol]) await admin.Users.remove(u.id, { hardDelete: true });
    for (const u of [alice, bob, carol]) expect(await statusOf(admin.Users.show(u.id))).toBe(404);
    expect(await admin.Users.all({ search: run })).toEqual([]);
  });
});
