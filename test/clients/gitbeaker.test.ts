import { beforeAll, describe, expect, it } from 'vitest';
import { Gitlab } from '@gitbeaker/rest';
import { suiteServer } from '../support/server.js';
import { createUser, unique, type TestUser } from '../support/factories.js';

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
