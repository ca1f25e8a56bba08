import { describe, expect, it } from 'vitest';
import { suiteServer } from '../support/server.js';
import { createProject, createUser } from '../support/factories.js';

// Services name GraphQL arguments in their errors; REST renders the same problem with the route's own parameter
// names, in Grape's words, from the one table in src/errors.ts.
const t = suiteServer();

describe('argument errors on both surfaces', () => {
  it('words a mutual exclusion with GraphQL names over GraphQL and REST names over REST', async () => {
    const owner = await createUser(t);
    const other = await createUser(t);
    const project = await createProject(t, owner.token);
    const rest = await t.api('POST', `/projects/${project.id}/members`, { token: owner.token, body: { user_id: other.id, username: other.username, access_level: 30 } });
    expect(rest.status).toBe(400);
    expect(rest.body).toEqual({ error: 'user_id, username are mutually exclusive' });
    const gql = await t.graphql(
      `mutation { projectMemberCreate(input: { projectId: "${project.id}", userId: "${other.id}", username: "${other.username}", accessLevel: DEVELOPER }) { projectMember { id } errors } }`,
      {},
      owner.token,
    );
    expect(gql.body.errors?.[0]).toMatchObject({
      message: 'userId, username are mutually exclusive',
      extensions: { code: 'BAD_USER_INPUT', problems: [{ arguments: ['userId', 'username'], text: 'are mutually exclusive' }] },
    });
  });

  it("names the route's parameter where the operation fills an argument from a differently named variable", async () => {
    // POST /users/:id/personal_access_tokens fills personalAccessTokenCreate(userId:) from :id.
    const rest = await t.api('POST', '/users/gid%3A%2F%2Fgitlab%2FProject%2F1/personal_access_tokens', { body: { name: 'x', scopes: ['api'] } });
    expect(rest.status).toBe(400);
    expect(rest.body).toEqual({ error: 'id is invalid' });
    const gql = await t.graphql('mutation { personalAccessTokenCreate(input: { userId: "gid://gitlab/Project/1", name: "x", scopes: ["api"] }) { personalAccessToken { id } errors } }');
    expect(gql.body.errors?.[0].message).toBe('userId is invalid');
    // The same inside other relay inputs: DELETE …/jobs/:job_id/artifacts fills jobArtifactsDestroy(input: { id }).
    const owner = await createUser(t);
    const project = await createProject(t, owner.token);
    const job = await t.api('DELETE', `/projects/${project.id}/jobs/abc/artifacts`, { token: owner.token });
    expect([job.status, job.body]).toEqual([400, { error: 'job_id is invalid' }]);
    const variable = await t.api('POST', '/projects/gid%3A%2F%2Fgitlab%2FGroup%2F1/variables', { token: owner.token, body: { key: 'K', value: 'v' } });
    expect([variable.status, variable.body]).toEqual([400, { error: 'id is invalid' }]);
  });

  it('words a record that failed validation with snake_case fields over REST', async () => {
    const owner = await createUser(t);
    const res = await t.api('POST', '/groups', { token: owner.token, body: { name: 'x', path: 'not a path!' } });
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/^Failed to save group \{:path=>\["can contain only/);
    // Over GraphQL, GitLab's mutations answer the record's full messages in the payload's errors.
    const gql = await t.graphql('mutation { groupCreate(input: { name: "x", path: "not a path!" }) { group { id } errors } }', {}, owner.token);
    expect(gql.body.errors).toBeUndefined();
    expect(gql.body.data?.groupCreate).toEqual({ group: null, errors: [expect.stringMatching(/^Path can contain only/)] });
  });
});

describe('routing', () => {
  it('routes with or without a trailing slash, in any case, HEAD as GET, OPTIONS with Allow, and decodes path parameters', async () => {
    const headers = { 'PRIVATE-TOKEN': t.rootToken };
    for (const path of ['/api/v4/version/', '/api/v4/VERSION', '/api/v4/users/root', '/api/v4/users/r%6F%6Ft']) {
      const res = await fetch(`${t.url}${path}`, { headers });
      expect([path, res.status]).toEqual([path, 200]);
    }
    const head = await fetch(`${t.url}/api/v4/version`, { method: 'HEAD', headers });
    expect([head.status, await head.text()]).toEqual([200, '']);
    const options = await fetch(`${t.url}/api/v4/personal_access_tokens/self`, { method: 'OPTIONS', headers });
    expect([options.status, options.headers.get('allow')]).toEqual([204, 'DELETE, GET, HEAD, OPTIONS']);
    expect((await fetch(`${t.url}/api/v4/nothing`, { method: 'OPTIONS', headers })).status).toBe(404);
    expect((await fetch(`${t.url}/api/v4/users//projects`, { headers })).status).toBe(404);
  });
});
