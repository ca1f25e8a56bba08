/**
 * Personal access token mutations in GitLab's relay shape: `input:` with `clientMutationId`, a payload with the
 * token, `errors` and the echoed `clientMutationId`. A token that does not validate is reported in `errors` to
 * GraphQL callers (REST keeps its 400); a token the viewer may not see stays a top-level error.
 */
import { describe, expect, it } from 'vitest';
import { suiteServer } from '../support/server.js';
import { createUser } from '../support/factories.js';

const t = suiteServer();

const CREATE = `mutation($input: PersonalAccessTokenCreateInput!) {
  personalAccessTokenCreate(input: $input) { clientMutationId errors personalAccessToken { name scopes token } }
}`;

describe('personal access token mutations (relay)', () => {
  it('creates a token, echoing clientMutationId', async () => {
    const user = await createUser(t);
    const res = await t.graphql(CREATE, { input: { clientMutationId: 'pat-1', userId: `gid://gitlab/User/${user.id}`, name: 'relay', scopes: ['read_api'] } });
    expect(res.body).toEqual({
      data: { personalAccessTokenCreate: { clientMutationId: 'pat-1', errors: [], personalAccessToken: { name: 'relay', scopes: ['read_api'], token: expect.stringMatching(/^glpat-/) } } },
    });
    const self = await t.graphql('{ personalAccessTokenSelf { name } }', {}, res.body.data?.personalAccessTokenCreate.personalAccessToken.token);
    expect(self.body).toEqual({ data: { personalAccessTokenSelf: { name: 'relay' } } });
  });

  it("answers a token that does not validate in errors, with Rails' full messages", async () => {
    const user = await createUser(t);
    const blank = await t.graphql(CREATE, { input: { clientMutationId: 'pat-2', userId: String(user.id), name: ' ', scopes: ['api'] } });
    expect(blank.body).toEqual({ data: { personalAccessTokenCreate: { clientMutationId: 'pat-2', errors: ["Name can't be blank"], personalAccessToken: null } } });
    const past = await t.graphql(CREATE, { input: { userId: String(user.id), name: 'old', scopes: ['api'], expiresAt: '2020-01-01' } });
    expect(past.body).toEqual({ data: { personalAccessTokenCreate: { clientMutationId: null, errors: ['Expires at must be in the future'], personalAccessToken: null } } });
    const rest = await t.api('POST', `/users/${user.id}/personal_access_tokens`, { body: { name: ' ', scopes: ['api'] } });
    expect([rest.status, rest.body]).toEqual([400, { message: { name: ["can't be blank"] } }]);
  });

  it("lets a token of any scope revoke itself, and keeps another user's token a top-level error", async () => {
    const owner = await createUser(t);
    const other = await createUser(t);
    const reader = await createUser(t, { scopes: ['read_repository'] });
    const own = await t.graphql('{ personalAccessTokenSelf { id } }', {}, owner.token);
    const mutation = 'mutation($id: ID!) { personalAccessTokenRevoke(input: { id: $id }) { errors personalAccessToken { id revoked } } }';
    const refused = await t.graphql(mutation, { id: own.body.data?.personalAccessTokenSelf.id }, other.token);
    expect(refused.body).toMatchObject({ data: { personalAccessTokenRevoke: null }, errors: [{ extensions: { code: 'NOT_FOUND' } }] });
    const revoked = await t.graphql(
      'mutation { personalAccessTokenSelfRevoke(input: { clientMutationId: "self-1" }) { clientMutationId errors personalAccessToken { revoked active } } }',
      {},
      reader.token,
    );
    expect(revoked.body).toEqual({ data: { personalAccessTokenSelfRevoke: { clientMutationId: 'self-1', errors: [], personalAccessToken: { revoked: true, active: false } } } });
    expect((await t.graphql('{ currentUser { id } }', {}, reader.token)).status).toBe(401);
    expect((await t.graphql('{ currentUser { id } }', {}, owner.token)).status).toBe(200);
  });
});
