import { describe, expect, it } from 'vitest';
import { suiteServer } from '../support/server.js';
import { createGroup, createProject, createUser } from '../support/factories.js';
import { projectWithPipeline, running } from '../pipelines/support.js';
import { freshKey } from '../users/ssh-keys.js';

// A narrow credential (a `read_user` token, a CI job token) reaches through nested GraphQL fields no more than its
// root fields reach: the cases a route-wide probe found, each answered as GitLab answers the same over REST.
const t = suiteServer({ rateLimitPerMinute: 0 });

async function graphql(query: string, headers: Record<string, string>, variables: Record<string, unknown> = {}) {
  const res = await fetch(`${t.url}/api/graphql`, { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify({ query, variables }) });
  expect(res.status).toBe(200);
  return (await res.json()) as { data?: any; errors?: { message: string; extensions?: { code?: string } }[] };
}

/** A user with a private and an internal project starred, a secret file and a job log in the private one, and an SSH key. */
async function userWithSecrets() {
  const user = await createUser(t);
  const group = await createGroup(t, user.token, { visibility: 'private' });
  const secret = await createProject(t, user.token, { namespaceId: group.id, visibility: 'private' });
  const internal = await createProject(t, user.token, { visibility: 'internal' });
  const commit = await t.api('POST', `/projects/${secret.id}/repository/commits`, {
    token: user.token,
    body: { branch: 'main', commit_message: 'secret', actions: [{ action: 'create', file_path: 'secret.txt', content: 'the secret' }] },
  });
  expect(commit.status).toBe(201);
  for (const project of [secret, internal]) expect((await t.api('POST', `/projects/${project.id}/star`, { token: user.token })).status).toBe(201);
  expect((await t.api('POST', `/users/${user.id}/keys`, { body: { title: 'laptop', key: freshKey() } })).status).toBe(201);
  return { user, secret, internal };
}

describe('a CI job token', () => {
  it("does not read its user's starred projects, e-mail or SSH keys through GraphQL, as REST refuses them", async () => {
    const { user } = await userWithSecrets();
    const job = await projectWithPipeline(t, user.token);
    const headers = { 'JOB-TOKEN': await running(t, job.job.id) };
    // Over REST the token is no credential on these routes (GitLab reads a job token only on job_token_allowed routes).
    for (const path of [`/projects/${job.project.id}`, `/users/${user.id}/starred_projects`, '/user', '/user/keys']) {
      expect((await t.api('GET', path, { token: null, headers })).status, path).toBe(401);
    }
    const starred = await graphql('{ currentJob { user { starredProjects { nodes { fullPath visibility } } } } }', headers);
    expect(JSON.stringify(starred.data ?? null)).not.toContain('fullPath');
    expect(starred.errors?.map((e) => e.extensions?.code)).toEqual(['UNAUTHENTICATED']);
    const keys = await graphql('{ currentJob { user { sshKeys { nodes { title } } } } }', headers);
    expect(JSON.stringify(keys.data ?? null)).not.toContain('laptop');
    expect(keys.errors?.map((e) => e.extensions?.code)).toEqual(['UNAUTHENTICATED']);
    // The job's user as GitLab's job entity shows it: the public profile, not the private e-mail address.
    const profile = await graphql('{ currentJob { user { username email account { email } } } }', headers);
    expect(profile.errors).toBeUndefined();
    expect(profile.data.currentJob.user).toEqual({ username: user.username, email: null, account: null });
    // Nor its project, which its token may not look up either.
    const project = await graphql('{ currentJob { project { fullPath } } }', headers);
    expect(JSON.stringify(project.data ?? null)).not.toContain(job.project.path_with_namespace);
    expect(project.errors?.map((e) => e.extensions?.code)).toEqual(['UNAUTHENTICATED']);
    // GET /job still shows the job's user, pipeline and runner, as GitLab's does.
    const current = await t.api('GET', '/job', { token: null, headers });
    expect(current.status).toBe(200);
    expect(current.body.user).toMatchObject({ id: user.id, username: user.username });
    expect(current.body.user.email).toBeUndefined();
  });
});

describe('a read_user token', () => {
  const privateCode = `query($username: String) {
    user(username: $username) { starredProjects(visibility: private) { nodes { fullPath repository { blobs(paths: ["secret.txt"], ref: "main") { nodes { rawTextBlob } } } jobs { nodes { trace { htmlSummary } } } } } }
  }`;

  it('reads no private code, jobs or projects through the user fields it may read', async () => {
    const { user } = await userWithSecrets();
    const token = (await t.api('POST', `/users/${user.id}/personal_access_tokens`, { body: { name: 'profile', scopes: ['read_user'] } })).body.token;
    const headers = { 'PRIVATE-TOKEN': token };
    const own = await graphql('{ currentUser { username starredProjects(visibility: private) { nodes { fullPath repository { blobs(paths: ["secret.txt"], ref: "main") { nodes { rawTextBlob } } } } } } }', headers);
    expect(JSON.stringify(own.data ?? null)).not.toContain('the secret');
    expect(own.errors?.map((e) => e.extensions?.code)).toEqual(['INSUFFICIENT_SCOPE']);
    // Another user's starred internal projects, through `user(username:)`.
    const other = await createUser(t);
    const otherToken = (await t.api('POST', `/users/${other.id}/personal_access_tokens`, { body: { name: 'profile', scopes: ['read_user'] } })).body.token;
    const theirs = await graphql('query($username: String) { user(username: $username) { starredProjects { nodes { fullPath } } } }', { 'PRIVATE-TOKEN': otherToken }, { username: user.username });
    expect(JSON.stringify(theirs.data ?? null)).not.toContain('fullPath');
    expect(theirs.errors?.map((e) => e.extensions?.code)).toEqual(['INSUFFICIENT_SCOPE']);
    // What the token is for still works: the profile and the user's own SSH keys (GitLab's API::Users takes read_user for reads).
    const profile = await graphql('{ currentUser { username sshKeys { nodes { title } } } }', headers);
    expect(profile.errors).toBeUndefined();
    expect(profile.data.currentUser).toEqual({ username: user.username, sshKeys: { nodes: [{ title: 'laptop' }] } });
    expect((await t.api('GET', '/user/keys', { token })).status).toBe(200);
    // REST: GitLab defines GET /users/:id/starred_projects in API::Projects, which does not take read_user.
    const rest = await t.api('GET', `/users/${user.id}/starred_projects`, { token });
    expect(rest.status).toBe(403);
    expect(rest.body).toMatchObject({ error: 'insufficient_scope' });
    expect((await graphql(privateCode, headers, { username: user.username })).errors?.map((e) => e.extensions?.code)).toEqual(['INSUFFICIENT_SCOPE']);
  });
});
