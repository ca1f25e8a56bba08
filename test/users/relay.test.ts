/**
 * Users' mutations in GitLab's relay shape: one `input:` argument carrying `clientMutationId`, answered with a payload
 * of the object, `errors` and the echoed `clientMutationId`. A record's validation failures and refusals of a
 * well-formed request go to `errors` for GraphQL callers (REST keeps its coded answer); missing objects and
 * authorisation failures stay top-level errors.
 */
import { describe, expect, it } from 'vitest';
import { suiteServer } from '../support/server.js';
import { createUser, unique } from '../support/factories.js';

const t = suiteServer();
const RESOURCE_NOT_AVAILABLE = "The resource that you are attempting to access does not exist or you don't have permission to perform this action";

const CREATE = `mutation($input: UserCreateInput!) {
  userCreate(input: $input) { clientMutationId errors user { username email } }
}`;

describe('user mutations (relay)', () => {
  it('echoes clientMutationId, and answers a taken username in errors with no user', async () => {
    const username = unique('relay');
    const input = { clientMutationId: 'create-1', username, name: 'Relay', email: `${username}@example.com` };
    const created = await t.graphql(CREATE, { input });
    expect(created.body).toEqual({ data: { userCreate: { clientMutationId: 'create-1', errors: [], user: { username, email: `${username}@example.com` } } } });
    const again = await t.graphql(CREATE, { input: { ...input, clientMutationId: 'create-2', email: `${unique('other')}@example.com` } });
    expect(again.body).toEqual({ data: { userCreate: { clientMutationId: 'create-2', errors: ['Username has already been taken'], user: null } } });
    // REST keeps its own answer for the same refusal.
    const rest = await t.api('POST', '/users', { body: { username, name: 'Relay', email: `${unique('rest')}@example.com` } });
    expect([rest.status, rest.body]).toEqual([409, { message: 'Username has already been taken' }]);
  });

  it("words a record's validation failure as Rails' full message", async () => {
    const user = await createUser(t);
    const taken = `${user.username}@example.com`;
    const res = await t.graphql(
      'mutation($e: String!) { emailCreate(input: { email: $e, clientMutationId: "email-1" }) { clientMutationId errors email { id } } }',
      { e: taken },
      user.token,
    );
    expect(res.body).toEqual({ data: { emailCreate: { clientMutationId: 'email-1', errors: ['Email has already been taken'], email: null } } });
    const rest = await t.api('POST', '/user/emails', { token: user.token, body: { email: taken } });
    expect([rest.status, rest.body]).toEqual([400, { message: { email: ['has already been taken'] } }]);
  });

  it("keeps a payload's own fields: userApprove's message, and a block of a blocked user", async () => {
    const user = await createUser(t);
    const approve = await t.graphql('mutation($id: ID!) { userApprove(input: { id: $id }) { message errors } }', { id: String(user.id) });
    expect(approve.body).toEqual({ data: { userApprove: { message: null, errors: ['The user you are trying to approve is not pending approval'] } } });
    const block = 'mutation($id: ID!) { userBlock(input: { id: $id }) { blocked errors } }';
    expect((await t.graphql(block, { id: String(user.id) })).body).toEqual({ data: { userBlock: { blocked: true, errors: [] } } });
    expect((await t.graphql(block, { id: String(user.id) })).body).toEqual({ data: { userBlock: { blocked: null, errors: [] } } });
  });

  it('keeps a missing user and a refused caller as top-level errors', async () => {
    const missing = await t.graphql('mutation { userDelete(input: { id: "2147483000" }) { deleted errors } }');
    expect(missing.body).toMatchObject({ data: { userDelete: null }, errors: [{ message: RESOURCE_NOT_AVAILABLE, extensions: { code: 'NOT_FOUND' } }] });
    const user = await createUser(t);
    const refused = await t.graphql(CREATE, { input: { username: unique('nope'), name: 'N', email: `${unique('nope')}@example.com` } }, user.token);
    expect(refused.body).toMatchObject({ data: { userCreate: null }, errors: [{ message: RESOURCE_NOT_AVAILABLE, extensions: { code: 'FORBIDDEN' } }] });
  });
});
