/** Feature flags and experiments over GraphQL: the same resolvers as REST, relay mutations with refusals in `errors`. */
import { beforeAll, describe, expect, it } from 'vitest';
import { suiteServer } from '../support/server.js';
import { createUser, unique, type TestUser } from '../support/factories.js';

const t = suiteServer({ experimentsTeamGroup: null });

let admin: TestUser;
let user: TestUser;

beforeAll(async () => {
  [admin, user] = await Promise.all([createUser(t, { admin: true }), createUser(t)]);
});

const SET = `mutation($input: FeatureSetInput!) { featureSet(input: $input) { clientMutationId errors feature { name state gates { key value } definition { name type defaultEnabled } } } }`;

describe('featureSet and featureDelete', () => {
  it('sets gates and answers the flag, echoing clientMutationId', async () => {
    const name = unique('gql_flag');
    const res = await t.graphql(SET, { input: { clientMutationId: 'a1', name, value: 40, key: 'percentage_of_actors' } }, admin.token);
    expect(res.body).toEqual({
      data: { featureSet: { clientMutationId: 'a1', errors: [], feature: { name, state: 'conditional', gates: [{ key: 'boolean', value: false }, { key: 'percentage_of_actors', value: 40 }], definition: null } } },
    });
    const defined = await t.graphql(SET, { input: { name: 'null_hypothesis', value: true } }, admin.token);
    expect(defined.body.data?.featureSet.feature).toEqual({ name: 'null_hypothesis', state: 'on', gates: [{ key: 'boolean', value: true }], definition: { name: 'null_hypothesis', type: 'experiment', defaultEnabled: false } });
    const deleted = await t.graphql(`mutation { featureDelete(input: { name: "${name}" }) { errors feature { name } } }`, {}, admin.token);
    expect(deleted.body).toEqual({ data: { featureDelete: { errors: [], feature: { name } } } });
  });

  it("puts the service's refusals in errors, and refuses non-administrators at the top level", async () => {
    const refused = await t.graphql(SET, { input: { name: 'x_flag', value: 250 } }, admin.token);
    expect(refused.body).toEqual({ data: { featureSet: { clientMutationId: null, errors: ['Percentage must be between 0 and 100'], feature: null } } });
    const forbidden = await t.graphql(SET, { input: { name: 'x_flag', value: true } }, user.token);
    expect(forbidden.body.data?.featureSet).toBeNull();
    expect(forbidden.body.errors?.[0].extensions?.code).toBe('FORBIDDEN');
  });
});

describe('features, featureDefinitions and experiments', () => {
  it('lists for administrators; with no team group, only administrators read the experiments', async () => {
    const res = await t.graphql(`{ experiments { key currentStatus { state } } featureDefinitions { name } }`, {}, admin.token);
    expect(res.body.data?.experiments).toHaveLength(5);
    expect(res.body.data?.featureDefinitions.map((d: { name: string }) => d.name)).toContain('null_hypothesis');
    const denied = await t.graphql(`{ experiments { key } }`, {}, user.token);
    expect(denied.body.errors?.[0].extensions?.code).toBe('FORBIDDEN');
    const features = await t.graphql(`{ features { name } }`, {}, user.token);
    expect(features.body.errors?.[0].extensions?.code).toBe('FORBIDDEN');
  });
});
