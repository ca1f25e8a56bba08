/** Project settings, renames with redirects of old paths, archiving and transfers: REST, gitbeaker and GraphQL. */
import { Gitlab } from '@gitbeaker/rest';
import { beforeAll, describe, expect, it } from 'vitest';
import { addMember, createGroup, createProject, createUser, unique, type TestUser } from '../support/factories.js';
import { EXTERNAL_URL, suiteServer } from '../support/server.js';

const t = suiteServer();
let owner: TestUser;
let maintainer: TestUser;
let developer: TestUser;
let stranger: TestUser;

beforeAll(async () => {
  [owner, maintainer, developer, stranger] = await Promise.all([createUser(t), createUser(t), createUser(t), createUser(t)]);
});

/** A private project of the owner's with a Maintainer and a Developer. */
async function team(options: { namespaceId?: number; visibility?: string } = {}) {
  const project = await createProject(t, owner.token, options);
  await addMember(t, owner.token, 'projects', project.id, maintainer.id, 40);
  await addMember(t, owner.token, 'projects', project.id, developer.id, 30);
  return project;
}

async function commitFile(projectId: number, branch: string, file: string, token = owner.token) {
  const res = await t.api('POST', `/projects/${projectId}/repository/commits`, {
    token,
    body: { branch, commit_message: `add ${file}`, actions: [{ action: 'create', file_path: file, content: 'x\n' }] },
  });
  expect(res.status, res.text).toBe(201);
}

const encoded = (path: string) => encodeURIComponent(path);

describe('POST /projects with initialize_with_readme', () => {
  it("starts the repository with a README.md commit on the default branch, through REST and gitbeaker", async () => {
    const res = await t.api('POST', '/projects', { token: owner.token, body: { name: unique('readme'), description: 'What it is', initialize_with_readme: true } });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ empty_repo: false, default_branch: 'main' });
    const readme = await t.api('GET', `/projects/${res.body.id}/repository/files/README.md/raw?ref=main`, { token: owner.token });
    expect(readme.text).toBe(`# ${res.body.name}\n\nWhat it is\n`);
    const commits = await t.api('GET', `/projects/${res.body.id}/repository/commits`, { token: owner.token });
    expect(commits.body.map((c: { title: string; author_name: string }) => [c.title, c.author_name])).toEqual([['Initial commit', `User ${owner.username}`]]);

    const gitbeaker = new Gitlab({ host: t.url, token: owner.token });
    const made = await gitbeaker.Projects.create({ name: unique('readme-gb'), initializeWithReadme: true, defaultBranch: 'trunk' });
    expect(made).toMatchObject({ empty_repo: false, default_branch: 'trunk' });
    const plain = await createProject(t, owner.token);
    expect(plain).toMatchObject({ empty_repo: true });
  });
});

describe('PUT /projects/:id', () => {
  it('edits settings through gitbeaker and shows them on the project', async () => {
    const p = await team();
    const api = new Gitlab({ host: t.url, token: owner.token });
    const edited = await api.Projects.edit(p.id, { description: 'new words', topics: ['api', 'tools', 'API'], ciConfigPath: 'ci/pipeline.yml', requestAccessEnabled: false });
    expect(edited).toMatchObject({ id: p.id, description: 'new words', topics: ['api', 'tools'], tag_list: ['api', 'tools'], ci_config_path: 'ci/pipeline.yml', request_access_enabled: false });
    const shown = await t.api('GET', `/projects/${p.id}`, { token: owner.token });
    expect(shown.body).toMatchObject({ topics: ['api', 'tools'], ci_config_path: 'ci/pipeline.yml', request_access_enabled: false });
    // tag_list, GitLab's old name, comma-separated as GitLab splits it; an empty ci_config_path means the default.
    const again = await t.api('PUT', `/projects/${p.id}`, { token: owner.token, body: 'tag_list=one,%20two&ci_config_path=', headers: { 'Content-Type': 'application/x-www-form-urlencoded' } });
    expect(again.status, again.text).toBe(200);
    expect(again.body).toMatchObject({ topics: ['one', 'two'], ci_config_path: null });
  });

  it('renames the path: every URL follows, and the old path keeps reaching the project by REST, GraphQL and git', async () => {
    const p = await team();
    const oldPath = p.path_with_namespace;
    const newPath = unique('renamed');
    const res = await t.api('PUT', `/projects/${p.id}`, { token: owner.token, body: { path: newPath, name: 'Renamed Project' } });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({
      name: 'Renamed Project',
      path: newPath,
      path_with_namespace: `${owner.username}/${newPath}`,
      name_with_namespace: expect.stringMatching(/ \/ Renamed Project$/),
      web_url: `${EXTERNAL_URL}/${owner.username}/${newPath}`,
      http_url_to_repo: `${EXTERNAL_URL}/${owner.username}/${newPath}.git`,
      ssh_url_to_repo: `git@gitlab.example.com:${owner.username}/${newPath}.git`,
    });
    const byOld = await t.api('GET', `/projects/${encoded(oldPath)}`, { token: owner.token });
    expect(byOld.status).toBe(200);
    expect(byOld.body).toMatchObject({ id: p.id, path_with_namespace: `${owner.username}/${newPath}` });
    // Nested routes find the project by its old path too, in any letter case.
    const members = await t.api('GET', `/projects/${encoded(oldPath.toUpperCase())}/members`, { token: owner.token });
    expect(members.status).toBe(200);
    // GitLab's GraphQL looks paths up without following redirects (FullPathModelLoader): the old path names nothing.
    const gql = await t.graphql('query($p: ID!) { project(fullPath: $p) { databaseId fullPath } }', { p: oldPath }, owner.token);
    expect(gql.body.data).toEqual({ project: null });
    // The redirect hides nothing: a stranger still learns nothing about a private project.
    expect(await t.api('GET', `/projects/${encoded(oldPath)}`, { token: stranger.token })).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
    const refs = await fetch(`${t.url}/${oldPath}.git/info/refs?service=git-upload-pack`, { headers: { Authorization: `Basic ${Buffer.from(`x:${owner.token}`).toString('base64')}` } });
    expect(refs.status).toBe(200);
  });

  it("answers a request naming a moved project by its old path as GitLab's find_project! does: 301 for GET, 405 otherwise", async () => {
    const p = await team();
    const oldPath = p.path_with_namespace;
    await t.api('PUT', `/projects/${p.id}`, { token: owner.token, body: { path: unique('moved') } });
    const raw = (method: string, path: string, token = owner.token) =>
      fetch(`${t.url}/api/v4${path}`, { method, redirect: 'manual', headers: { 'PRIVATE-TOKEN': token, 'Content-Type': 'application/json' }, body: method === 'GET' || method === 'HEAD' ? undefined : '{"description":"x"}' });
    // The same request by ID: the rest of the path and the query as sent.
    const tree = await raw('GET', `/projects/${encoded(oldPath)}/repository/tree?ref=main&per_page=1`);
    const location = `${t.url}/api/v4/projects/${p.id}/repository/tree?ref=main&per_page=1`;
    expect(tree.status).toBe(301);
    expect(tree.headers.get('location')).toBe(location);
    expect(await tree.text()).toBe(`This resource has been moved permanently to ${location}`);
    expect((await raw('GET', `/projects/${encoded(oldPath.toUpperCase())}`)).headers.get('location')).toBe(`${t.url}/api/v4/projects/${p.id}`);
    // Writes are refused, and change nothing.
    for (const method of ['PUT', 'POST', 'DELETE', 'HEAD']) {
      const path = method === 'POST' ? `/projects/${encoded(oldPath)}/star` : `/projects/${encoded(oldPath)}`;
      const res = await raw(method, path);
      expect(res.status, method).toBe(405);
      if (method !== 'HEAD') expect(await res.json()).toEqual({ message: 'Non GET methods are not allowed for moved projects' });
    }
    const now = await t.api('GET', `/projects/${p.id}`, { token: owner.token });
    expect(now.body).toMatchObject({ description: p.description, star_count: 0 });
    // Those who may not read the project learn nothing of the move.
    expect((await raw('GET', `/projects/${encoded(oldPath)}`, stranger.token)).status).toBe(404);
    expect((await raw('PUT', `/projects/${encoded(oldPath)}`, stranger.token)).status).toBe(404);
    // The new path, in any case, is not a move.
    expect((await raw('GET', `/projects/${encoded(now.body.path_with_namespace.toUpperCase())}`)).status).toBe(200);
  });

  it('lets a new project take an old path: it wins over the redirect', async () => {
    const p = await team();
    const oldPath = p.path;
    await t.api('PUT', `/projects/${p.id}`, { token: owner.token, body: { path: unique('moved') } });
    const taker = await t.api('POST', '/projects', { token: owner.token, body: { name: unique('taker'), path: oldPath } });
    expect(taker.status, taker.text).toBe(201);
    const res = await t.api('GET', `/projects/${encoded(`${owner.username}/${oldPath}`)}`, { token: owner.token });
    expect(res.body.id).toBe(taker.body.id);
    // Deleting the new project does not bring the redirect back: GitLab drops redirects a new route takes over.
    const gone = await t.api('DELETE', `/projects/${taker.body.id}`, { token: owner.token });
    expect(gone.status).toBe(202);
    expect((await t.api('GET', `/projects/${encoded(`${owner.username}/${oldPath}`)}`, { token: owner.token })).status).toBe(404);
  });

  it('refuses renames and visibility changes to Maintainers, every change to Developers, and hides the project from strangers', async () => {
    const p = await team();
    const put = (token: string, body: Record<string, unknown>) => t.api('PUT', `/projects/${p.id}`, { token, body });
    expect(await put(maintainer.token, { description: 'maintained' })).toMatchObject({ status: 200, body: { description: 'maintained' } });
    expect(await put(maintainer.token, { name: 'other' })).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    expect(await put(maintainer.token, { path: unique('other') })).toMatchObject({ status: 403 });
    expect(await put(maintainer.token, { visibility: 'public' })).toMatchObject({ status: 403 });
    expect(await put(developer.token, { description: 'dev' })).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    expect(await put(stranger.token, { description: 'x' })).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
    expect(await t.api('PUT', `/projects/${p.id}`, { token: null, body: { description: 'x' } })).toMatchObject({ status: 401 });
  });

  it('answers bad input with GitLab errors', async () => {
    const group = await createGroup(t, owner.token, { visibility: 'internal' });
    const p = await createProject(t, owner.token, { namespaceId: group.id });
    const other = await createProject(t, owner.token, { namespaceId: group.id });
    const put = (body: unknown) => t.api('PUT', `/projects/${p.id}`, { token: owner.token, body });
    expect((await put({})).status).toBe(400);
    expect((await put({})).body.error).toMatch(/are missing, at least one parameter must be provided$/);
    expect(await put({ visibility: 'public' })).toMatchObject({ status: 400, body: { message: { visibility_level: ['public is not allowed in a internal group.'] } } });
    expect(await put({ path: other.path })).toMatchObject({ status: 400, body: { message: { path: ['has already been taken'] } } });
    expect(await put({ name: other.name.toUpperCase() })).toMatchObject({ status: 400, body: { message: { name: ['has already been taken'] } } });
    expect(await put({ path: 'bad path\u0000' })).toMatchObject({ status: 400 });
    expect(await put({ name: 'foo&bar' })).toMatchObject({
      status: 400,
      body: { message: { name: ["can contain only letters, digits, emoji, '_', '.', '+', dashes, or spaces. It must start with a letter, digit, emoji, or '_'."] } },
    });
    expect(await put({ name: 'nul\u0000byte' })).toMatchObject({ status: 400 });
    expect(await put({ description: 'd'.repeat(2001) })).toMatchObject({ status: 400, body: { message: { description: ['is too long (maximum is 2000 characters)'] } } });
    expect(await put({ path: 'x'.repeat(100_000) })).toMatchObject({ status: 400 });
    expect(await put({ visibility: 'secret' })).toMatchObject({ status: 400, body: { error: 'visibility does not have a valid value' } });
    expect(await put({ request_access_enabled: 'maybe' })).toMatchObject({ status: 400 });
    // Nothing of the refused changes stuck.
    expect((await t.api('GET', `/projects/${p.id}`, { token: owner.token })).body).toMatchObject({ path: p.path, name: p.name, visibility: 'private' });
  });

  it('sets the default branch only to a branch of the repository', async () => {
    const p = await team();
    await commitFile(p.id, 'main', 'README.md');
    await t.api('POST', `/projects/${p.id}/repository/branches`, { token: owner.token, body: { branch: 'develop', ref: 'main' } });
    const missing = await t.api('PUT', `/projects/${p.id}`, { token: maintainer.token, body: { default_branch: 'nope' } });
    expect(missing).toMatchObject({ status: 400, body: { message: { base: ["Could not change HEAD: branch 'nope' does not exist"] } } });
    for (const hostile of ['--upload-pack=touch /tmp/x', '../main', 'main..develop', 'a\u0000b', 'b'.repeat(100_000)]) {
      expect((await t.api('PUT', `/projects/${p.id}`, { token: maintainer.token, body: { default_branch: hostile } })).status).toBe(400);
    }
    const ok = await t.api('PUT', `/projects/${p.id}`, { token: maintainer.token, body: { default_branch: 'develop' } });
    expect(ok).toMatchObject({ status: 200, body: { default_branch: 'develop' } });
    const branches = await t.api('GET', `/projects/${p.id}/repository/branches/develop`, { token: owner.token });
    expect(branches.body).toMatchObject({ name: 'develop', default: true });
  });

  it('updates through GraphQL with the same rules', async () => {
    const p = await team();
    const mutation = 'mutation($p: ID!, $d: String, $n: String) { projectUpdate(input: { fullPath: $p, description: $d, name: $n }) { project { description name topics archived starCount forksCount } errors } }';
    const ok = await t.graphql(mutation, { p: p.path_with_namespace, d: 'via graphql' }, maintainer.token);
    expect(ok.body.data.projectUpdate).toEqual({ project: { description: 'via graphql', name: p.name, topics: [], archived: false, starCount: 0, forksCount: 0 }, errors: [] });
    const refused = await t.graphql(mutation, { p: p.path_with_namespace, n: 'renamed' }, maintainer.token);
    expect(refused.body.errors?.[0].extensions?.code).toBe('FORBIDDEN');
  });
});

describe('archiving', () => {
  it('archives and unarchives (Owners), filters lists, and refuses pipelines and pushes while archived', async () => {
    const p = await team();
    await commitFile(p.id, 'main', 'README.md');
    const api = new Gitlab({ host: t.url, token: owner.token });
    expect(await t.api('POST', `/projects/${p.id}/archive`, { token: maintainer.token })).toMatchObject({ status: 403 });
    const archived = await t.api('POST', `/projects/${p.id}/archive`, { token: owner.token });
    expect(archived).toMatchObject({ status: 201, body: { id: p.id, archived: true } });
    const listed = await t.api('GET', `/projects?archived=true&owned=true&per_page=100`, { token: owner.token });
    expect(listed.body.map((x: { id: number }) => x.id)).toContain(p.id);
    const active = await t.api('GET', `/projects?archived=false&owned=true&per_page=100`, { token: owner.token });
    expect(active.body.map((x: { id: number }) => x.id)).not.toContain(p.id);

    expect(await t.api('POST', `/projects/${p.id}/pipeline`, { token: owner.token, body: { ref: 'main' } })).toMatchObject({ status: 403 });
    const push = await t.api('POST', `/projects/${p.id}/repository/commits`, {
      token: owner.token,
      body: { branch: 'main', commit_message: 'nope', actions: [{ action: 'create', file_path: 'b.txt', content: 'b' }] },
    });
    // An archived project refuses push_code, so the commits API's own check refuses first (git pushes say why).
    expect(push).toMatchObject({ status: 403, body: { message: '403 Forbidden - You are not allowed to push into this branch' } });

    const gql = await t.graphql('query($p: ID!) { project(fullPath: $p) { archived } }', { p: p.path_with_namespace }, owner.token);
    expect(gql.body.data.project.archived).toBe(true);
    const back = await api.Projects.unarchive(p.id);
    expect(back.archived).toBe(false);
    expect(await t.api('POST', `/projects/${p.id}/unarchive`, { token: owner.token })).toMatchObject({ status: 201, body: { archived: false } });
    await commitFile(p.id, 'main', 'after.txt');
  });
});

describe('PUT /projects/:id/transfer', () => {
  it('moves a project into a group through gitbeaker; the old path redirects and the visibility falls to the group', async () => {
    const group = await createGroup(t, owner.token, { visibility: 'internal' });
    const p = await team({ visibility: 'public' });
    await commitFile(p.id, 'main', 'README.md');
    const api = new Gitlab({ host: t.url, token: owner.token });
    const moved = await api.Projects.transfer(p.id, group.full_path);
    expect(moved).toMatchObject({ id: p.id, path_with_namespace: `${group.full_path}/${p.path}`, visibility: 'internal', namespace: { id: group.id, kind: 'group' } });
    const byOld = await t.api('GET', `/projects/${encoded(p.path_with_namespace)}`, { token: owner.token });
    expect(byOld.body).toMatchObject({ id: p.id, path_with_namespace: `${group.full_path}/${p.path}` });
    // No bytes moved: the repository reads the same.
    const file = await t.api('GET', `/projects/${p.id}/repository/files/README.md/raw?ref=main`, { token: owner.token });
    expect(file.text).toBe('x\n');
    // And back again, by numeric namespace id: the personal namespace's path is free once more.
    const me = await t.api('GET', `/namespaces/${owner.username}`, { token: owner.token });
    const back = await t.api('PUT', `/projects/${p.id}/transfer`, { token: owner.token, body: { namespace: me.body.id } });
    expect(back).toMatchObject({ status: 200, body: { path_with_namespace: p.path_with_namespace } });
    expect((await t.api('GET', `/projects/${encoded(p.path_with_namespace)}`, { token: owner.token })).body.id).toBe(p.id);
  });

  it('answers GitLab errors: same namespace, a name taken there, no right to create there, unknown namespace, not Owner', async () => {
    const group = await createGroup(t, owner.token);
    const p = await team();
    const transfer = (namespace: unknown, token = owner.token) => t.api('PUT', `/projects/${p.id}/transfer`, { token, body: { namespace } });
    expect(await transfer(owner.username)).toMatchObject({ status: 400, body: { message: 'Failed to transfer project {:new_namespace=>["Project is already in this namespace."]}' } });
    await createProject(t, owner.token, { namespaceId: group.id, name: p.name });
    expect(await transfer(group.id)).toMatchObject({
      status: 400,
      body: { message: 'Failed to transfer project {:new_namespace=>["Project with same name or path in target namespace already exists"]}' },
    });
    const theirs = await createGroup(t, stranger.token);
    await addMember(t, stranger.token, 'groups', theirs.id, owner.id, 20);
    expect(await transfer(theirs.id)).toMatchObject({
      status: 400,
      body: { message: `Failed to transfer project {:new_namespace=>["You don't have permission to transfer projects into that namespace."]}` },
    });
    const hidden = await createGroup(t, stranger.token);
    expect(await transfer(hidden.id)).toMatchObject({ status: 404, body: { message: '404 Namespace Not Found' } });
    expect(await transfer('no/such/namespace')).toMatchObject({ status: 404, body: { message: '404 Namespace Not Found' } });
    expect(await transfer(group.id, maintainer.token)).toMatchObject({ status: 403 });
    expect(await t.api('PUT', `/projects/${p.id}/transfer`, { token: owner.token, body: {} })).toMatchObject({ status: 400, body: { error: 'namespace is missing' } });
    expect((await t.api('GET', `/projects/${p.id}`, { token: owner.token })).body.path_with_namespace).toBe(p.path_with_namespace);
  });

  it('transfers through GraphQL', async () => {
    const group = await createGroup(t, owner.token);
    const p = await team();
    const res = await t.graphql('mutation($p: ID!, $n: ID!) { projectTransfer(input: { fullPath: $p, namespace: $n }) { project { fullPath namespace { fullPath } } errors } }', { p: String(p.id), n: group.full_path }, owner.token);
    expect(res.body.data.projectTransfer).toEqual({ project: { fullPath: `${group.full_path}/${p.path}`, namespace: { fullPath: group.full_path } }, errors: [] });
  });
});

describe("GitLab's relay mutations", () => {
  it('echo clientMutationId, answer invalid records and refusals in errors, and raise missing or forbidden projects', async () => {
    const path = unique('relay');
    const create = 'mutation($i: ProjectCreateInput!) { projectCreate(input: $i) { clientMutationId errors project { path name } } }';
    const created = await t.graphql(create, { i: { path, clientMutationId: 'create-1' } }, owner.token);
    expect(created.body).toEqual({ data: { projectCreate: { clientMutationId: 'create-1', errors: [], project: { path, name: path } } } });
    // The record's validation failures as Rails' full messages, the project null, no GraphQL error; REST keeps its body.
    const taken = await t.graphql(create, { i: { path } }, owner.token);
    expect(taken.body).toEqual({ data: { projectCreate: { clientMutationId: null, errors: ['Path has already been taken', 'Name has already been taken'], project: null } } });
    const rest = await t.api('POST', '/projects', { token: owner.token, body: { path } });
    expect({ status: rest.status, body: rest.body }).toEqual({ status: 400, body: { message: { path: ['has already been taken'], name: ['has already been taken'] } } });
    const group = await createGroup(t, owner.token);
    const tooOpen = await t.graphql(create, { i: { path: unique('open'), namespaceId: String(group.id), visibility: 'public' } }, owner.token);
    expect(tooOpen.body.data?.projectCreate).toEqual({ clientMutationId: null, errors: ['Visibility level public is not allowed in a private group.'], project: null });

    const p = await team();
    const archive = 'mutation($i: ProjectArchiveInput!) { projectArchive(input: $i) { clientMutationId errors project { archived } } }';
    const archived = await t.graphql(archive, { i: { fullPath: p.path_with_namespace, clientMutationId: 'archive-1' } }, owner.token);
    expect(archived.body).toEqual({ data: { projectArchive: { clientMutationId: 'archive-1', errors: [], project: { archived: true } } } });
    // A project the caller may not change, and one that does not exist: top-level errors, the payload null.
    const byDeveloper = await t.graphql(archive, { i: { fullPath: p.path_with_namespace } }, developer.token);
    expect(byDeveloper.body.data).toEqual({ projectArchive: null });
    expect(byDeveloper.body.errors?.[0].extensions).toMatchObject({ code: 'FORBIDDEN' });
    const missing = await t.graphql(archive, { i: { fullPath: `${owner.username}/${unique('missing')}` } }, owner.token);
    expect(missing.body.data).toEqual({ projectArchive: null });
    expect(missing.body.errors?.[0].extensions).toMatchObject({ code: 'NOT_FOUND' });

    // Fork relations (administrators link): a second link is the service's refusal (REST's 409), in errors.
    const source = await createProject(t, owner.token);
    const link = 'mutation($p: ID!, $s: ID!) { projectForkRelationCreate(input: { fullPath: $p, forkedFromId: $s }) { errors project { forkedFromProject { id } } } }';
    const linked = await t.graphql(link, { p: String(p.id), s: String(source.id) }, t.rootToken);
    expect(linked.body).toEqual({ data: { projectForkRelationCreate: { errors: [], project: { forkedFromProject: { id: `gid://gitlab/Project/${source.id}` } } } } });
    const twice = await t.graphql(link, { p: String(p.id), s: String(source.id) }, t.rootToken);
    expect(twice.body).toEqual({ data: { projectForkRelationCreate: { errors: ['Project already forked'], project: null } } });
    const unlink = 'mutation($p: ID!) { projectForkRelationDelete(input: { fullPath: $p, clientMutationId: "unlink" }) { clientMutationId errors deleted } }';
    expect((await t.graphql(unlink, { p: String(p.id) }, owner.token)).body).toEqual({ data: { projectForkRelationDelete: { clientMutationId: 'unlink', errors: [], deleted: true } } });
    // Nothing left to unlink: REST's 304, a top-level error over GraphQL.
    const none = await t.graphql(unlink, { p: String(p.id) }, owner.token);
    expect(none.body.data).toEqual({ projectForkRelationDelete: null });
    expect(none.body.errors?.[0].extensions).toMatchObject({ code: 'NOT_MODIFIED' });
  });
});

describe('GET /projects/:id/users and POST /projects/user/:user_id', () => {
  it('lists the users of the project and its groups, searched and skipped', async () => {
    const group = await createGroup(t, owner.token);
    await addMember(t, owner.token, 'groups', group.id, developer.id, 30);
    const p = await createProject(t, owner.token, { namespaceId: group.id });
    await addMember(t, owner.token, 'projects', p.id, maintainer.id, 40);
    const api = new Gitlab({ host: t.url, token: owner.token });
    const users = await api.Projects.allUsers(p.id);
    expect(users.map((u) => u.id).sort()).toEqual([owner.id, maintainer.id, developer.id].sort());
    const skipped = await t.api('GET', `/projects/${p.id}/users?skip_users[]=${owner.id}&skip_users[]=${developer.id}`, { token: owner.token });
    expect(skipped.body.map((u: { id: number }) => u.id)).toEqual([maintainer.id]);
    expect(Object.keys(skipped.body[0]).sort()).toEqual(['avatar_url', 'id', 'locked', 'name', 'state', 'username', 'web_url']);
    const searched = await t.api('GET', `/projects/${p.id}/users?search=${developer.username}`, { token: owner.token });
    expect(searched.body.map((u: { id: number }) => u.id)).toEqual([developer.id]);
    expect(await t.api('GET', `/projects/${p.id}/users`, { token: stranger.token })).toMatchObject({ status: 404 });
  });

  it('lets only administrators create a project for a user', async () => {
    const api = new Gitlab({ host: t.url, token: t.rootToken });
    const made = await api.Projects.create({ userId: stranger.id, name: unique('for-user') });
    expect(made).toMatchObject({ creator_id: stranger.id, namespace: { kind: 'user', path: stranger.username }, owner: { id: stranger.id } });
    const mine = await t.api('GET', `/projects/${made.id}`, { token: stranger.token });
    expect(mine.body.permissions.project_access).toEqual({ access_level: 50 });
    expect(await t.api('POST', `/projects/user/${stranger.id}`, { token: owner.token, body: { name: unique('x') } })).toMatchObject({ status: 403 });
    expect(await t.api('POST', '/projects/user/99999999', { body: { name: unique('x') } })).toMatchObject({ status: 404, body: { message: '404 User Not Found' } });
  });
});
