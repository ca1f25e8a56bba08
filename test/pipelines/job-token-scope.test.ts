/**
 * CI/CD job token scopes (GitLab's inbound job token allowlist): the REST API and GraphQL that keep a project's
 * allowlist of projects and groups and its "limit access" setting, who may use them, and what they let a job token
 * of another project do there (API calls, artifact downloads, git over HTTP).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { suiteServer } from '../support/server.js';
import { addMember, createGroup, createProject, createUser, type TestUser } from '../support/factories.js';
import { cloneUrl, gitSandbox } from '../support/git.js';
import { projectWithPipeline, running } from './support.js';

const t = suiteServer({ rateLimitPerMinute: 0 });
const git = gitSandbox();

const ARCHIVE = Buffer.from('PK\u0005\u0006'.padEnd(22, '\u0000'), 'binary');
const INSUFFICIENT = { message: '403 Forbidden - Insufficient permissions to modify the job token scope' };
const UNREADABLE_PROJECT = {
  message: "400 Bad request - The target_project that you are attempting to access does not exist or you don't have permission to perform this action",
};

let owner: TestUser;
let maintainer: TestUser;
let developer: TestUser;
let stranger: TestUser;
/** A's group, and its subgroup holding A. */
let group: any;
let subgroup: any;
let a: Awaited<ReturnType<typeof projectWithPipeline>>;
let b: Awaited<ReturnType<typeof projectWithPipeline>>;
let aToken: string;
let bJobArtifacts: string;

beforeAll(async () => {
  [owner, maintainer, developer, stranger] = await Promise.all([createUser(t), createUser(t), createUser(t), createUser(t)]);
  group = await createGroup(t, owner.token, { visibility: 'private' });
  subgroup = await createGroup(t, owner.token, { parentId: group.id, visibility: 'private' });
  [a, b] = await Promise.all([projectWithPipeline(t, owner.token, subgroup.id), projectWithPipeline(t, owner.token)]);
  await addMember(t, owner.token, 'projects', b.project.id, maintainer.id, 40);
  await addMember(t, owner.token, 'projects', b.project.id, developer.id, 30);
  aToken = await running(t, a.job.id);
  // B's job keeps an artifact that A's job may download once B lets it in.
  const bToken = await running(t, b.job.id);
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(ARCHIVE)]), 'artifacts.zip');
  const uploaded = await fetch(`${t.url}/api/v4/jobs/${b.job.id}/artifacts`, { method: 'POST', body: form, headers: { 'JOB-TOKEN': bToken } });
  expect(uploaded.status).toBe(201);
  bJobArtifacts = `/projects/${b.project.id}/jobs/${b.job.id}/artifacts`;
});

describe('GET and PATCH /projects/:id/job_token_scope', () => {
  it('answers the inbound setting, enabled for a new project, and changes it with 204', async () => {
    const project = await createProject(t, owner.token);
    const path = `/projects/${project.id}/job_token_scope`;
    const before = await t.api('GET', path, { token: owner.token });
    expect(before.status).toBe(200);
    expect(before.body).toEqual({ inbound_enabled: true, outbound_enabled: false });
    const patched = await t.api('PATCH', path, { token: owner.token, body: { enabled: false } });
    expect(patched.status).toBe(204);
    expect(patched.text).toBe('');
    expect((await t.api('GET', path, { token: owner.token })).body).toEqual({ inbound_enabled: false, outbound_enabled: false });
    expect((await t.api('PATCH', `${path}?enabled=true`, { token: owner.token })).status).toBe(204);
    expect((await t.api('GET', `/projects/${encodeURIComponent(project.path_with_namespace)}/job_token_scope`, { token: owner.token })).body.inbound_enabled).toBe(true);
  });

  it('refuses a missing or non-boolean enabled with 400, changing nothing', async () => {
    const path = `/projects/${b.project.id}/job_token_scope`;
    expect(await t.api('PATCH', path, { token: owner.token, body: {} })).toMatchObject({ status: 400, body: { error: 'enabled is missing' } });
    expect(await t.api('PATCH', path, { token: owner.token, body: { enabled: 123 } })).toMatchObject({ status: 400, body: { error: 'enabled is invalid' } });
    expect(await t.api('PATCH', path, { token: owner.token, body: { enabled: null } })).toMatchObject({ status: 400, body: { error: 'enabled is missing' } });
    expect(await t.api('PATCH', path, { token: owner.token, body: { enabled: 'maybe\u0000' } })).toMatchObject({ status: 400 });
    expect((await t.api('GET', path, { token: owner.token })).body.inbound_enabled).toBe(true);
  });

  it('is for Maintainers: 403 to a Developer, 404 to a non-member of a private project, 401 anonymously on a public one', async () => {
    const path = `/projects/${b.project.id}/job_token_scope`;
    expect((await t.api('GET', path, { token: maintainer.token })).status).toBe(200);
    expect(await t.api('GET', path, { token: developer.token })).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    expect(await t.api('PATCH', path, { token: developer.token, body: { enabled: false } })).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    expect(await t.api('GET', path, { token: stranger.token })).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
    expect(await t.api('PATCH', path, { token: stranger.token, body: { enabled: false } })).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
    expect((await t.api('PATCH', path, { token: null, body: { enabled: false } })).status).toBe(401);
    const open = await createProject(t, owner.token, { visibility: 'public' });
    expect(await t.api('GET', `/projects/${open.id}/job_token_scope`, { token: null })).toMatchObject({ status: 401, body: { message: '401 Unauthorized' } });
    expect(await t.api('GET', `/projects/${open.id}/job_token_scope`, { token: stranger.token })).toMatchObject({ status: 403 });
    expect((await t.api('GET', path, { token: owner.token })).body.inbound_enabled).toBe(true);
  });
});

describe('/projects/:id/job_token_scope/allowlist', () => {
  it('lists the project itself, adds a project with 201, refuses duplicates and itself, and removes it with 204', async () => {
    const source = await createProject(t, owner.token);
    const target = await createProject(t, owner.token);
    const path = `/projects/${source.id}/job_token_scope/allowlist`;
    const initial = await t.api('GET', path, { token: owner.token });
    expect(initial.status).toBe(200);
    expect(initial.headers.get('x-total')).toBe('1');
    expect(initial.body.map((p: { id: number }) => p.id)).toEqual([source.id]);
    expect(Object.keys(initial.body[0]).sort()).toEqual(
      [
        'id', 'description', 'name', 'name_with_namespace', 'path', 'path_with_namespace', 'created_at', 'default_branch', 'tag_list', 'topics',
        'ssh_url_to_repo', 'http_url_to_repo', 'web_url', 'readme_url', 'forks_count', 'avatar_url', 'star_count', 'last_activity_at', 'namespace',
      ].sort(),
    );

    const added = await t.api('POST', path, { token: owner.token, body: { target_project_id: target.id } });
    expect(added.status).toBe(201);
    expect(added.body).toEqual({ source_project_id: source.id, target_project_id: target.id });
    expect(await t.api('POST', path, { token: owner.token, body: { target_project_id: target.id } })).toMatchObject({
      status: 400,
      body: { message: '400 Bad request - Target project is already in the job token scope' },
    });
    expect(await t.api('POST', path, { token: owner.token, body: { target_project_id: source.id } })).toMatchObject({
      status: 400,
      body: { message: "400 Bad request - Validation failed: Target project can't be the same as the source project" },
    });
    const listed = await t.api('GET', `${path}?per_page=1&page=2`, { token: owner.token });
    expect(listed.headers.get('x-total')).toBe('2');
    expect(listed.body.map((p: { id: number }) => p.id)).toEqual([target.id]);

    const removed = await t.api('DELETE', `${path}/${target.id}`, { token: owner.token });
    expect(removed.status).toBe(204);
    expect(removed.text).toBe('');
    expect(await t.api('DELETE', `${path}/${target.id}`, { token: owner.token })).toMatchObject({
      status: 400,
      body: { message: '400 Bad request - Target project is not in the job token scope' },
    });
    expect(await t.api('DELETE', `${path}/${source.id}`, { token: owner.token })).toMatchObject({
      status: 400,
      body: { message: '400 Bad request - Source project cannot be removed from the job token scope' },
    });
    expect((await t.api('GET', path, { token: owner.token })).body.map((p: { id: number }) => p.id)).toEqual([source.id]);
  });

  it("answers GitLab's errors for missing, unreadable and malformed targets", async () => {
    const path = `/projects/${b.project.id}/job_token_scope/allowlist`;
    const hidden = await createProject(t, stranger.token);
    expect(await t.api('POST', path, { token: owner.token, body: { target_project_id: 2147483000 } })).toMatchObject({
      status: 404,
      body: { message: '404 target_project_id not found Not Found' },
    });
    expect(await t.api('POST', path, { token: owner.token, body: { target_project_id: hidden.id } })).toMatchObject({ status: 400, body: UNREADABLE_PROJECT });
    expect(await t.api('POST', path, { token: owner.token, body: {} })).toMatchObject({ status: 400, body: { error: 'target_project_id is missing' } });
    for (const value of ['abc', 12.34, '', '99999999999', [1], { a: 1 }]) {
      expect(await t.api('POST', path, { token: owner.token, body: { target_project_id: value } }), String(value)).toMatchObject({
        status: 400,
        body: { error: 'target_project_id is invalid' },
      });
    }
    expect(await t.api('DELETE', `${path}/${hidden.id}`, { token: owner.token })).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
    expect(await t.api('DELETE', `${path}/2147483000`, { token: owner.token })).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
  });

  it('is for Maintainers: Developers get 403, non-members of a private project 404, anonymous callers 401 or 404', async () => {
    const path = `/projects/${b.project.id}/job_token_scope/allowlist`;
    const target = await createProject(t, maintainer.token);
    expect((await t.api('GET', path, { token: maintainer.token })).status).toBe(200);
    expect(await t.api('GET', path, { token: developer.token })).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    expect(await t.api('POST', path, { token: developer.token, body: { target_project_id: target.id } })).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    expect(await t.api('GET', path, { token: stranger.token })).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
    expect((await t.api('POST', path, { token: stranger.token, body: { target_project_id: target.id } })).status).toBe(404);
    expect((await t.api('GET', path, { token: null })).status).toBe(404);
    expect((await t.api('POST', path, { token: null, body: { target_project_id: target.id } })).status).toBe(401);

    // The maintainer adds a project of their own, which the owner cannot read but sees listed. Removing needs a
    // target the caller can read (GitLab's find_project!: 404), then Maintainer (403 with the service's words).
    expect((await t.api('POST', path, { token: maintainer.token, body: { target_project_id: target.id } })).status).toBe(201);
    expect(await t.api('DELETE', `${path}/${target.id}`, { token: developer.token })).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
    expect(await t.api('DELETE', `${path}/${a.project.id}`, { token: developer.token })).toMatchObject({ status: 404 });
    await addMember(t, maintainer.token, 'projects', target.id, developer.id, 10);
    expect(await t.api('DELETE', `${path}/${target.id}`, { token: developer.token })).toMatchObject({ status: 403, body: INSUFFICIENT });
    expect((await t.api('GET', path, { token: owner.token })).body.map((p: { id: number }) => p.id)).toEqual([b.project.id, target.id]);
    expect((await t.api('DELETE', `${path}/${target.id}`, { token: maintainer.token })).status).toBe(204);
  });

  it('keeps one link of concurrent duplicate requests, the others answering 400', async () => {
    const source = await createProject(t, owner.token);
    const target = await createProject(t, owner.token);
    const path = `/projects/${source.id}/job_token_scope/allowlist`;
    const results = await Promise.all(Array.from({ length: 8 }, () => t.api('POST', path, { token: owner.token, body: { target_project_id: target.id } })));
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    for (const r of results.filter((r) => r.status !== 201)) {
      expect({ status: r.status, body: r.body }).toEqual({ status: 400, body: { message: '400 Bad request - Target project is already in the job token scope' } });
    }
    expect((await t.api('GET', path, { token: owner.token })).headers.get('x-total')).toBe('2');
  });
});

describe('allowlist limits', () => {
  it("holds a project to GitLab's 200 project links and 200 group links", async () => {
    const source = await createProject(t, owner.token);
    const db = t.server.database.prisma;
    const many = Array.from({ length: 200 }, (_, i) => ({ sourceProjectId: source.id, targetProjectId: 1_000_000 + i }));
    await db.ciJobTokenProjectScopeLink.createMany({ data: many });
    await db.ciJobTokenGroupScopeLink.createMany({ data: many.map((link) => ({ sourceProjectId: link.sourceProjectId, targetGroupId: link.targetProjectId })) });
    const target = await createProject(t, owner.token);
    expect(await t.api('POST', `/projects/${source.id}/job_token_scope/allowlist`, { token: owner.token, body: { target_project_id: target.id } })).toMatchObject({
      status: 400,
      body: { message: '400 Bad request - Validation failed: Source project exceeds the allowable number of project links in this direction' },
    });
    expect(await t.api('POST', `/projects/${source.id}/job_token_scope/groups_allowlist`, { token: owner.token, body: { target_group_id: group.id } })).toMatchObject({
      status: 400,
      body: { message: '400 Bad request - Validation failed: Source project exceeds the allowable number of group links' },
    });
  });
});

describe('/projects/:id/job_token_scope/groups_allowlist', () => {
  it('adds a group with 201, lists it, refuses duplicates, and removes it with 204', async () => {
    const source = await createProject(t, owner.token);
    const path = `/projects/${source.id}/job_token_scope/groups_allowlist`;
    const empty = await t.api('GET', path, { token: owner.token });
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual([]);
    expect(empty.headers.get('x-total')).toBe('0');
    const added = await t.api('POST', path, { token: owner.token, body: { target_group_id: group.id } });
    expect(added.status).toBe(201);
    expect(added.body).toEqual({ source_project_id: source.id, target_group_id: group.id });
    expect((await t.api('GET', path, { token: owner.token })).body).toEqual([{ id: group.id, web_url: group.web_url, name: group.name }]);
    expect(await t.api('POST', path, { token: owner.token, body: { target_group_id: group.id } })).toMatchObject({
      status: 400,
      body: { message: '400 Bad request - This group is already in the job token allowlist.' },
    });
    expect((await t.api('DELETE', `${path}/${group.id}`, { token: owner.token })).status).toBe(204);
    expect(await t.api('DELETE', `${path}/${group.id}`, { token: owner.token })).toMatchObject({
      status: 400,
      body: { message: '400 Bad request - Target group is not in the job token scope' },
    });
  });

  it("answers GitLab's errors for missing, unreadable and malformed groups, and to Developers", async () => {
    const path = `/projects/${b.project.id}/job_token_scope/groups_allowlist`;
    const hidden = await createGroup(t, stranger.token, { visibility: 'private' });
    expect(await t.api('POST', path, { token: owner.token, body: { target_group_id: 2147483000 } })).toMatchObject({
      status: 404,
      body: { message: '404 target_group_id not found Not Found' },
    });
    expect(await t.api('POST', path, { token: owner.token, body: { target_group_id: hidden.id } })).toMatchObject({
      status: 400,
      body: { message: "400 Bad request - The target_group that you are attempting to access does not exist or you don't have permission to perform this action" },
    });
    expect(await t.api('POST', path, { token: owner.token, body: { target_group_id: 'x' } })).toMatchObject({ status: 400, body: { error: 'target_group_id is invalid' } });
    expect(await t.api('DELETE', `${path}/2147483000`, { token: owner.token })).toMatchObject({ status: 404, body: { message: '404 target_group_id not found Not Found' } });
    expect(await t.api('DELETE', `${path}/abc`, { token: owner.token })).toMatchObject({ status: 400, body: { error: 'target_group_id is invalid' } });
    expect(await t.api('GET', path, { token: developer.token })).toMatchObject({ status: 403 });
    expect(await t.api('POST', path, { token: developer.token, body: { target_group_id: group.id } })).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    expect(await t.api('DELETE', `${path}/${group.id}`, { token: developer.token })).toMatchObject({ status: 403, body: INSUFFICIENT });
    expect(await t.api('DELETE', `${path}/${group.id}`, { token: stranger.token })).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
  });
});

describe('GraphQL', () => {
  const SCOPE = `query($path: ID!) { project(fullPath: $path) {
    ciCdSettings { inboundJobTokenScopeEnabled jobTokenScopeEnabled }
    ciJobTokenScope { inboundAllowlistCount groupsAllowlistCount inboundAllowlist { count nodes { fullPath } } groupsAllowlist { nodes { fullPath } } }
  } }`;

  it("keeps the allowlists with GitLab's mutations and shows them on Project.ciJobTokenScope", async () => {
    const source = await createProject(t, owner.token);
    const target = await createProject(t, owner.token);
    const add = `mutation($p: ID!, $t: ID!) { ciJobTokenScopeAddGroupOrProject(input: { projectPath: $p, targetPath: $t }) {
      errors ciJobTokenScopeAllowlistEntry { sourceProject { fullPath } direction target { __typename ... on Project { fullPath } ... on Group { fullPath } } addedBy { username } }
    } }`;
    const addedProject = await t.graphql(add, { p: source.path_with_namespace, t: target.path_with_namespace }, owner.token);
    expect(addedProject.body.data?.ciJobTokenScopeAddGroupOrProject).toEqual({
      errors: [],
      ciJobTokenScopeAllowlistEntry: {
        sourceProject: { fullPath: source.path_with_namespace },
        direction: 'INBOUND',
        target: { __typename: 'Project', fullPath: target.path_with_namespace },
        addedBy: { username: owner.username },
      },
    });
    const addedGroup = await t.graphql(add, { p: source.path_with_namespace, t: subgroup.full_path }, owner.token);
    expect(addedGroup.body.data?.ciJobTokenScopeAddGroupOrProject.ciJobTokenScopeAllowlistEntry.target).toEqual({ __typename: 'Group', fullPath: subgroup.full_path });
    const missing = await t.graphql(add, { p: source.path_with_namespace, t: 'no/such-thing' }, owner.token);
    expect(missing.body.errors?.[0].extensions?.code).toBe('NOT_FOUND');
    const settings = await t.graphql(
      `mutation($p: ID!) { projectCiCdSettingsUpdate(input: { fullPath: $p, inboundJobTokenScopeEnabled: false }) { errors ciCdSettings { inboundJobTokenScopeEnabled } } }`,
      { p: source.path_with_namespace },
      owner.token,
    );
    expect(settings.body.data?.projectCiCdSettingsUpdate).toEqual({ errors: [], ciCdSettings: { inboundJobTokenScopeEnabled: false } });

    const read = await t.graphql(SCOPE, { path: source.path_with_namespace }, owner.token);
    expect(read.body.data?.project).toEqual({
      ciCdSettings: { inboundJobTokenScopeEnabled: false, jobTokenScopeEnabled: false },
      ciJobTokenScope: {
        inboundAllowlistCount: 2,
        groupsAllowlistCount: 1,
        inboundAllowlist: { count: 2, nodes: [{ fullPath: source.path_with_namespace }, { fullPath: target.path_with_namespace }] },
        groupsAllowlist: { nodes: [{ fullPath: subgroup.full_path }] },
      },
    });

    const removeProject = await t.graphql(
      `mutation($p: ID!, $t: ID!) { ciJobTokenScopeRemoveProject(input: { projectPath: $p, targetProjectPath: $t }) { errors ciJobTokenScope { inboundAllowlistCount } } }`,
      { p: source.path_with_namespace, t: target.path_with_namespace },
      owner.token,
    );
    expect(removeProject.body.data?.ciJobTokenScopeRemoveProject).toEqual({ errors: [], ciJobTokenScope: { inboundAllowlistCount: 1 } });
    const removeGroup = await t.graphql(
      `mutation($p: ID!, $t: ID!) { ciJobTokenScopeRemoveGroup(input: { projectPath: $p, targetGroupPath: $t }) { errors ciJobTokenScope { groupsAllowlistCount } } }`,
      { p: source.path_with_namespace, t: subgroup.full_path },
      owner.token,
    );
    expect(removeGroup.body.data?.ciJobTokenScopeRemoveGroup).toEqual({ errors: [], ciJobTokenScope: { groupsAllowlistCount: 0 } });
    const addProject = await t.graphql(
      `mutation($p: ID!, $t: ID!) { ciJobTokenScopeAddProject(input: { projectPath: $p, targetProjectPath: $t }) { ciJobTokenScopeAllowlistEntry { target { ... on Project { fullPath } } } } }`,
      { p: source.path_with_namespace, t: target.path_with_namespace },
      owner.token,
    );
    expect(addProject.body.data?.ciJobTokenScopeAddProject.ciJobTokenScopeAllowlistEntry.target).toEqual({ fullPath: target.path_with_namespace });
  });

  it("echoes clientMutationId, answers a refused addition in errors (REST keeps its 400), and raises a hidden project", async () => {
    const source = await createProject(t, owner.token);
    const target = await createProject(t, owner.token);
    const add = `mutation($p: ID!, $t: ID!, $c: String) { ciJobTokenScopeAddProject(input: { projectPath: $p, targetProjectPath: $t, clientMutationId: $c }) {
      clientMutationId errors ciJobTokenScopeAllowlistEntry { target { ... on Project { fullPath } } }
    } }`;
    const vars = { p: source.path_with_namespace, t: target.path_with_namespace };
    const added = await t.graphql(add, { ...vars, c: 'first' }, owner.token);
    expect(added.body.errors).toBeUndefined();
    expect(added.body.data?.ciJobTokenScopeAddProject).toEqual({ clientMutationId: 'first', errors: [], ciJobTokenScopeAllowlistEntry: { target: { fullPath: target.path_with_namespace } } });
    const again = await t.graphql(add, { ...vars, c: 'again' }, owner.token);
    expect(again.body.errors).toBeUndefined();
    expect(again.body.data?.ciJobTokenScopeAddProject).toEqual({ clientMutationId: 'again', errors: ['Target project is already in the job token scope'], ciJobTokenScopeAllowlistEntry: null });
    const rest = await t.api('POST', `/projects/${source.id}/job_token_scope/allowlist`, { token: owner.token, body: { target_project_id: target.id } });
    expect(rest).toMatchObject({ status: 400, body: { message: '400 Bad request - Target project is already in the job token scope' } });
    const hidden = await t.graphql(add, { ...vars, c: 'stranger' }, stranger.token);
    expect(hidden.body.data?.ciJobTokenScopeAddProject).toBeNull();
    expect(hidden.body.errors?.[0].extensions?.code).toBe('NOT_FOUND');
  });

  it("keeps GitLab 16's frozen outbound scope: off, its allowlist the project alone, no OUTBOUND entry added", async () => {
    const source = await createProject(t, owner.token);
    const target = await createProject(t, owner.token);
    const vars = { p: source.path_with_namespace, t: target.path_with_namespace };
    const outbound = await t.graphql(
      `mutation($p: ID!, $t: ID!) { ciJobTokenScopeAddProject(input: { projectPath: $p, targetProjectPath: $t, direction: OUTBOUND }) { errors } }`,
      vars,
      owner.token,
    );
    expect(outbound.body.data?.ciJobTokenScopeAddProject).toBeNull();
    expect(outbound.body.errors?.[0].message).toBe('direction: OUTBOUND scope entries can only be removed. Only INBOUND scope can be expanded.');
    // A stranger learns nothing from the direction: the project is looked up first.
    const hidden = await t.graphql(
      `mutation($p: ID!, $t: ID!) { ciJobTokenScopeAddProject(input: { projectPath: $p, targetProjectPath: $t, direction: OUTBOUND }) { errors } }`,
      vars,
      stranger.token,
    );
    expect(hidden.body.errors?.[0].extensions?.code).toBe('NOT_FOUND');
    // An inbound entry is not an outbound one: removing it as OUTBOUND finds nothing.
    const inbound = await t.graphql(
      `mutation($p: ID!, $t: ID!) { ciJobTokenScopeAddProject(input: { projectPath: $p, targetProjectPath: $t, direction: INBOUND }) { ciJobTokenScopeAllowlistEntry { direction } } }`,
      vars,
      owner.token,
    );
    expect(inbound.body.data?.ciJobTokenScopeAddProject.ciJobTokenScopeAllowlistEntry).toEqual({ direction: 'INBOUND' });
    const remove = `mutation($p: ID!, $t: ID!, $d: CiJobTokenScopeDirection) { ciJobTokenScopeRemoveProject(input: { projectPath: $p, targetProjectPath: $t, direction: $d }) { errors } }`;
    const removeOutbound = await t.graphql(remove, { ...vars, d: 'OUTBOUND' }, owner.token);
    expect(removeOutbound.body.data?.ciJobTokenScopeRemoveProject).toEqual({ errors: ['Target project is not in the job token scope'] });
    const scope = await t.graphql(
      `query($p: ID!) { project(fullPath: $p) { ciCdSettings { jobTokenScopeEnabled } ciJobTokenScope {
        outboundAllowlist { nodes { fullPath } } projects { nodes { fullPath } } inboundAllowlist { nodes { fullPath } } } } }`,
      { p: source.path_with_namespace },
      owner.token,
    );
    expect(scope.body.data?.project).toEqual({
      ciCdSettings: { jobTokenScopeEnabled: false },
      ciJobTokenScope: {
        outboundAllowlist: { nodes: [{ fullPath: source.path_with_namespace }] },
        projects: { nodes: [{ fullPath: source.path_with_namespace }] },
        inboundAllowlist: { nodes: [{ fullPath: source.path_with_namespace }, { fullPath: target.path_with_namespace }] },
      },
    });
    const removeInbound = await t.graphql(remove, { ...vars, d: null }, owner.token);
    expect(removeInbound.body.data?.ciJobTokenScopeRemoveProject).toEqual({ errors: [] });
    // The outbound setting can be set off (what it is) but not on.
    const settings = `mutation($p: ID!, $on: Boolean) { projectCiCdSettingsUpdate(input: { fullPath: $p, jobTokenScopeEnabled: $on }) { errors ciCdSettings { jobTokenScopeEnabled } } }`;
    const off = await t.graphql(settings, { p: source.path_with_namespace, on: false }, owner.token);
    expect(off.body.data?.projectCiCdSettingsUpdate).toEqual({ errors: [], ciCdSettings: { jobTokenScopeEnabled: false } });
    const on = await t.graphql(settings, { p: source.path_with_namespace, on: true }, owner.token);
    expect(on.body.data?.projectCiCdSettingsUpdate).toBeNull();
    expect(on.body.errors?.[0].message).toBe('job_token_scope_enabled can only be set to false');
  });

  it('hides the scope from Developers and refuses their changes', async () => {
    const read = await t.graphql(SCOPE, { path: b.project.path_with_namespace }, developer.token);
    expect(read.body.data?.project).toEqual({ ciCdSettings: null, ciJobTokenScope: null });
    expect(read.body.errors?.map((e) => e.extensions?.code)).toEqual(['FORBIDDEN', 'FORBIDDEN']);
    const change = await t.graphql(
      `mutation($p: ID!) { projectCiCdSettingsUpdate(input: { fullPath: $p, inboundJobTokenScopeEnabled: false }) { errors } }`,
      { p: b.project.path_with_namespace },
      developer.token,
    );
    expect(change.body.errors?.[0].extensions?.code).toBe('FORBIDDEN');
  });
});

describe("a job token of another project (A) on project B", () => {
  const headers = () => ({ 'JOB-TOKEN': aToken });
  const scope = (suffix = '') => `/projects/${b.project.id}/job_token_scope${suffix}`;

  /** What A's job can do on B: rename B's pipeline (REST and GraphQL), download B's artifacts, clone B over git. */
  async function reaches(): Promise<boolean[]> {
    const rename = await t.api('PUT', `/projects/${b.project.id}/pipelines/${b.pipeline.id}/metadata`, { token: null, headers: headers(), body: { name: 'from A' } });
    expect([200, 404]).toContain(rename.status);
    if (rename.status === 404) expect(rename.body).toEqual({ message: '404 Project Not Found' });
    const viaGraphql = await fetch(`${t.url}/api/graphql`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...headers() },
      body: JSON.stringify({
        query: `mutation($p: ID!, $id: ID!) { pipelineUpdateMetadata(input: { projectPath: $p, id: $id, name: "from A over GraphQL" }) { pipeline { name } errors } }`,
        variables: { p: b.project.path_with_namespace, id: String(b.pipeline.id) },
      }),
    }).then((res) => res.json() as Promise<{ data?: { pipelineUpdateMetadata: { pipeline: { name: string } | null; errors: string[] } | null }; errors?: { extensions?: { code?: string } }[] }>);
    if (viaGraphql.errors) expect(viaGraphql.errors[0].extensions?.code).toBe('NOT_FOUND');
    const artifacts = await fetch(`${t.url}/api/v4${bJobArtifacts}`, { headers: headers() });
    const body = Buffer.from(await artifacts.arrayBuffer());
    if (artifacts.status === 200) expect(body.equals(ARCHIVE)).toBe(true);
    else expect(JSON.parse(body.toString())).toEqual({ message: '404 Project Not Found' });
    const clone = await git.run(git.folder(), ['clone', '--quiet', cloneUrl(t.url, b.project.path_with_namespace, aToken, 'gitlab-ci-token'), 'b']);
    return [rename.status === 200, !!viaGraphql.data?.pipelineUpdateMetadata?.pipeline, artifacts.status === 200, clone.code === 0];
  }

  it('is treated as not found until B allowlists A, and again once B removes it', async () => {
    expect(await reaches()).toEqual([false, false, false, false]);
    expect((await t.api('POST', scope('/allowlist'), { token: owner.token, body: { target_project_id: a.project.id } })).status).toBe(201);
    expect(await reaches()).toEqual([true, true, true, true]);
    expect((await t.api('DELETE', scope(`/allowlist/${a.project.id}`), { token: owner.token })).status).toBe(204);
    expect(await reaches()).toEqual([false, false, false, false]);
  });

  it("reaches B when B allowlists A's group or a group above it, not a sibling group", async () => {
    const sibling = await createGroup(t, owner.token, { parentId: group.id });
    expect((await t.api('POST', scope('/groups_allowlist'), { token: owner.token, body: { target_group_id: sibling.id } })).status).toBe(201);
    expect(await reaches()).toEqual([false, false, false, false]);
    for (const allowed of [group, subgroup]) {
      expect((await t.api('POST', scope('/groups_allowlist'), { token: owner.token, body: { target_group_id: allowed.id } })).status).toBe(201);
      expect(await reaches()).toEqual([true, true, true, true]);
      expect((await t.api('DELETE', scope(`/groups_allowlist/${allowed.id}`), { token: owner.token })).status).toBe(204);
    }
    expect(await reaches()).toEqual([false, false, false, false]);
    expect((await t.api('DELETE', scope(`/groups_allowlist/${sibling.id}`), { token: owner.token })).status).toBe(204);
  });

  it('reaches B freely while B disables its inbound scope', async () => {
    expect((await t.api('PATCH', scope(), { token: owner.token, body: { enabled: false } })).status).toBe(204);
    expect(await reaches()).toEqual([true, true, true, true]);
    expect((await t.api('PATCH', scope(), { token: owner.token, body: { enabled: true } })).status).toBe(204);
    expect(await reaches()).toEqual([false, false, false, false]);
  });

  it("still acts with its user's rights: an allowlist does not let a job reach what its user cannot", async () => {
    // A job of the stranger's own project, allowlisted by B: the stranger is no member of B, so B stays hidden.
    const theirs = await projectWithPipeline(t, stranger.token);
    const token = await running(t, theirs.job.id);
    expect((await t.api('POST', scope('/allowlist'), { token: owner.token, body: { target_project_id: theirs.project.id } })).status).toBe(400);
    await t.server.database.prisma.ciJobTokenProjectScopeLink.create({ data: { sourceProjectId: b.project.id, targetProjectId: theirs.project.id } });
    const rename = await t.api('PUT', `/projects/${b.project.id}/pipelines/${b.pipeline.id}/metadata`, { token: null, headers: { 'JOB-TOKEN': token }, body: { name: 'x' } });
    expect(rename).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
    // A job token is no way into the allowlist API itself.
    expect((await t.api('GET', scope(), { token: null, headers: { 'JOB-TOKEN': aToken } })).status).toBe(401);
  });
});
