/**
 * Project access tokens over GraphQL: `Project.accessTokens`/`accessToken`, and the relay mutations
 * projectAccessTokenCreate, Rotate, SelfRotate and Revoke (GitLab's GraphQL has none of its own for project tokens):
 * refusals of well-formed requests in the payload's `errors`, hidden projects and missing rights as top-level errors.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { suiteServer } from '../support/server.js';
import { addMember, createProject, createUser, type TestUser } from '../support/factories.js';

const t = suiteServer();
const inDays = (n: number) => new Date(Date.now() + n * 86_400_000).toISOString().slice(0, 10);

const FIELDS = 'id databaseId name description revoked active scopes userId user { username } accessLevel { integerValue stringValue } expiresAt lastUsedAt createdAt token';
const CREATE = `mutation($input: ProjectAccessTokenCreateInput!) { projectAccessTokenCreate(input: $input) { clientMutationId errors projectAccessToken { ${FIELDS} } } }`;
const ROTATE = `mutation($input: ProjectAccessTokenRotateInput!) { projectAccessTokenRotate(input: $input) { clientMutationId errors projectAccessToken { ${FIELDS} } } }`;
const REVOKE = 'mutation($input: ProjectAccessTokenRevokeInput!) { projectAccessTokenRevoke(input: $input) { clientMutationId errors projectAccessToken { databaseId revoked active } } }';

let owner: TestUser;
let maintainer: TestUser;
let developer: TestUser;
let project: { id: number; path_with_namespace: string };

beforeAll(async () => {
  [owner, maintainer, developer] = await Promise.all([createUser(t), createUser(t), createUser(t)]);
  project = await createProject(t, owner.token);
  await addMember(t, owner.token, 'projects', project.id, maintainer.id, 40);
  await addMember(t, owner.token, 'projects', project.id, developer.id, 30);
});

describe('project access tokens over GraphQL', () => {
  it('creates, reads, rotates and revokes through the relay mutations', async () => {
    const created = await t.graphql(
      CREATE,
      { input: { clientMutationId: 'c1', projectPath: project.path_with_namespace, name: 'gql', description: 'd', scopes: ['read_api'], expiresAt: inDays(9), accessLevel: 'REPORTER' } },
      maintainer.token,
    );
    const token = created.body.data?.projectAccessTokenCreate.projectAccessToken;
    expect(created.body.data?.projectAccessTokenCreate).toMatchObject({ clientMutationId: 'c1', errors: [] });
    expect(token).toMatchObject({
      id: `gid://gitlab/PersonalAccessToken/${token.databaseId}`,
      name: 'gql',
      description: 'd',
      revoked: false,
      active: true,
      scopes: ['read_api'],
      accessLevel: { integerValue: 20, stringValue: 'REPORTER' },
      expiresAt: inDays(9),
      lastUsedAt: null,
      token: expect.stringMatching(/^glpat-/),
    });
    expect(token.user.username).toMatch(new RegExp(`^project_${project.id}_bot_`));

    const read = await t.graphql(
      `query($path: ID!, $id: ID!) { project(fullPath: $path) { accessTokens(state: active) { count nodes { databaseId token } } accessToken(id: $id) { name accessLevel { integerValue } } } }`,
      { path: project.path_with_namespace, id: token.id },
      owner.token,
    );
    expect(read.body.data?.project.accessTokens.nodes).toContainEqual({ databaseId: token.databaseId, token: null });
    expect(read.body.data?.project.accessToken).toEqual({ name: 'gql', accessLevel: { integerValue: 20 } });

    const rotated = await t.graphql(ROTATE, { input: { clientMutationId: 'r1', projectPath: String(project.id), id: token.id, expiresAt: inDays(14) } }, owner.token);
    const next = rotated.body.data?.projectAccessTokenRotate.projectAccessToken;
    expect(rotated.body.data?.projectAccessTokenRotate).toMatchObject({ clientMutationId: 'r1', errors: [] });
    expect(next).toMatchObject({ name: 'gql', userId: token.userId, expiresAt: inDays(14), accessLevel: { integerValue: 20 }, token: expect.stringMatching(/^glpat-/) });

    // The new token rotates itself over GraphQL (api scope needed: this one has read_api only).
    const selfRotate = `mutation($input: ProjectAccessTokenSelfRotateInput!) { projectAccessTokenSelfRotate(input: $input) { errors projectAccessToken { databaseId token } } }`;
    const refused = await t.graphql(selfRotate, { input: { projectPath: String(project.id) } }, next.token);
    expect(refused.body.errors?.[0]?.extensions?.code).toBe('INSUFFICIENT_SCOPE');

    const revoked = await t.graphql(REVOKE, { input: { clientMutationId: 'v1', projectPath: String(project.id), id: String(next.databaseId) } }, owner.token);
    expect(revoked.body.data?.projectAccessTokenRevoke).toEqual({ clientMutationId: 'v1', errors: [], projectAccessToken: { databaseId: next.databaseId, revoked: true, active: false } });
    expect((await t.graphql('{ currentUser { id } }', {}, next.token)).status).toBe(401);

    // Reuse detection is the REST rotation endpoints' (GitLab's); over GraphQL, rotating a revoked token is refused in errors.
    const again = await t.graphql(ROTATE, { input: { projectPath: String(project.id), id: token.id } }, owner.token);
    expect(again.body.data?.projectAccessTokenRotate).toEqual({ clientMutationId: null, errors: ['Token already revoked'], projectAccessToken: null });
  });

  it('self-rotates a token with the self_rotate scope', async () => {
    const created = await t.graphql(CREATE, { input: { projectPath: String(project.id), name: 'selfie', scopes: ['self_rotate'], expiresAt: inDays(3) } }, owner.token);
    const token = created.body.data?.projectAccessTokenCreate.projectAccessToken;
    const rotated = await t.graphql(
      `mutation($input: ProjectAccessTokenSelfRotateInput!) { projectAccessTokenSelfRotate(input: $input) { errors projectAccessToken { name scopes expiresAt token } } }`,
      { input: { projectPath: String(project.id) } },
      token.token,
    );
    expect(rotated.body.data?.projectAccessTokenSelfRotate).toEqual({
      errors: [],
      projectAccessToken: { name: 'selfie', scopes: ['self_rotate'], expiresAt: inDays(7), token: expect.stringMatching(/^glpat-/) },
    });
  });

  it("reports refusals in the payload's errors and keeps missing rights top-level", async () => {
    const path = String(project.id);
    const owners = await t.graphql(CREATE, { input: { projectPath: path, name: 'o', scopes: ['api'], expiresAt: inDays(3), accessLevel: 'OWNER' } }, maintainer.token);
    expect(owners.body.data?.projectAccessTokenCreate).toEqual({
      clientMutationId: null,
      errors: ['Access level of the token contains permissions not held by the creating user'],
      projectAccessToken: null,
    });
    const blank = await t.graphql(CREATE, { input: { projectPath: path, name: 'b', scopes: [], expiresAt: inDays(3) } }, owner.token);
    expect(blank.body.data?.projectAccessTokenCreate.errors).toEqual(["Scopes can't be blank"]);
    const far = await t.graphql(CREATE, { input: { projectPath: path, name: 'f', scopes: ['api'], expiresAt: inDays(400) } }, owner.token);
    expect(far.body.data?.projectAccessTokenCreate.errors).toEqual([`Expires at must be before ${inDays(365)}`]);
    const scope = await t.graphql(CREATE, { input: { projectPath: path, name: 's', scopes: ['sudo'], expiresAt: inDays(3) } }, owner.token);
    expect(scope.body.errors?.[0]?.message).toBe('scopes does not have a valid value');
    const developers = await t.graphql(CREATE, { input: { projectPath: path, name: 'd', scopes: ['api'], expiresAt: inDays(3) } }, developer.token);
    expect(developers.body.data?.projectAccessTokenCreate.errors).toEqual(['User does not have permission to create project access token']);

    // Developers read no tokens: the field is an UNAUTHENTICATED error (GitLab's REST 401).
    const list = await t.graphql(`{ project(fullPath: "${project.path_with_namespace}") { accessTokens { count } } }`, {}, developer.token);
    expect(list.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    // A stranger does not see the project.
    const stranger = await createUser(t);
    const hidden = await t.graphql(CREATE, { input: { projectPath: path, name: 'x', scopes: ['api'], expiresAt: inDays(3) } }, stranger.token);
    expect(hidden.body).toMatchObject({
      data: { projectAccessTokenCreate: null },
      errors: [{ message: "The resource that you are attempting to access does not exist or you don't have permission to perform this action" }],
    });
    // An ID of another type is refused.
    const wrong = await t.graphql(REVOKE, { input: { projectPath: path, id: 'gid://gitlab/User/1' } }, owner.token);
    expect(wrong.body.errors?.[0]?.message).toBe('id is invalid');
  });
});
