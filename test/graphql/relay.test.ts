/**
 * GitLab's relay mutations (graphql-ruby): every mutation, ours included, takes one `input: <Name>Input!` carrying
 * `clientMutationId` and answers a nullable `<Name>Payload { errors clientMutationId … }`. Failures GitLab reports in
 * `errors` arrive there, with the object null; a missing object or a refusal stays a top-level error in GitLab's
 * words; REST still answers the same request with its own status and body.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createProject, createUser, type TestUser } from '../support/factories.js';
import { suiteServer } from '../support/server.js';

const t = suiteServer();

type TypeRef = { kind: string; name: string | null; ofType: TypeRef | null };
const TYPE_REF = 'fragment T on __Type { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name } } } } }';
const typeName = (ref: TypeRef): string => (ref.kind === 'NON_NULL' ? `${typeName(ref.ofType!)}!` : ref.kind === 'LIST' ? `[${typeName(ref.ofType!)}]` : ref.name!);

describe('relay mutations', () => {
  let owner: TestUser;
  let outsider: TestUser;
  let project: { id: number; path_with_namespace: string };
  beforeAll(async () => {
    owner = await createUser(t);
    outsider = await createUser(t);
    project = await createProject(t, owner.token);
  });

  /** Mutations GitLab names with a lower-case first letter in their input and payload types. */
  const LOWER_CASE_NAMES = new Set(['iterationCreate']);

  it('every mutation takes input: <Name>Input! with clientMutationId and answers <Name>Payload with errors and clientMutationId', async () => {
    const res = await t.graphql(
      `{ __schema { mutationType { fields { name type { ...T } args { name type { ...T } } } } } } ${TYPE_REF}`,
      {},
      owner.token,
    );
    const mutations = res.body.data.__schema.mutationType.fields as { name: string; type: TypeRef; args: { name: string; type: TypeRef }[] }[];
    expect(mutations.length).toBeGreaterThan(100);
    const types = await t.graphql(
      `{ __schema { types { name kind fields { name type { ...T } } inputFields { name type { ...T } } } } } ${TYPE_REF}`,
      {},
      owner.token,
    );
    const byName = new Map((types.body.data.__schema.types as { name: string; fields: { name: string; type: TypeRef }[] | null; inputFields: { name: string; type: TypeRef }[] | null }[]).map((x) => [x.name, x]));
    const wrong: string[] = [];
    for (const m of mutations) {
      // GitLab's own graphql_name where it keeps the mutation's lower-case name (iterationCreate: iterationCreateInput).
      const base = LOWER_CASE_NAMES.has(m.name) ? m.name : m.name.charAt(0).toUpperCase() + m.name.slice(1);
      const args = m.args.map((a) => `${a.name}: ${typeName(a.type)}`).join(', ');
      if (args !== `input: ${base}Input!`) wrong.push(`${m.name}(${args}): arguments`);
      if (typeName(m.type) !== `${base}Payload`) wrong.push(`${m.name}: returns ${typeName(m.type)}`);
      const input = byName.get(`${base}Input`)?.inputFields ?? [];
      if (!input.some((f) => f.name === 'clientMutationId' && typeName(f.type) === 'String')) wrong.push(`${base}Input: clientMutationId`);
      const payload = byName.get(`${base}Payload`)?.fields ?? [];
      if (!payload.some((f) => f.name === 'clientMutationId' && typeName(f.type) === 'String')) wrong.push(`${base}Payload: clientMutationId`);
      if (!payload.some((f) => f.name === 'errors' && typeName(f.type) === '[String!]!')) wrong.push(`${base}Payload: errors`);
    }
    expect(wrong).toEqual([]);
  });

  it('echoes clientMutationId and answers the object with no errors', async () => {
    const res = await t.graphql(
      `mutation($p: ID!) { protectedBranchCreate(input: { projectId: $p, name: "release/*", clientMutationId: "abc-1" }) { clientMutationId errors protectedBranch { name } } }`,
      { p: project.path_with_namespace },
      owner.token,
    );
    expect(res.body).toEqual({ data: { protectedBranchCreate: { clientMutationId: 'abc-1', errors: [], protectedBranch: { name: 'release/*' } } } });
    const without = await t.graphql(
      `mutation($p: ID!) { protectedBranchUpdate(input: { projectId: $p, name: "release/*", allowForcePush: true }) { clientMutationId errors } }`,
      { p: project.path_with_namespace },
      owner.token,
    );
    expect(without.body).toEqual({ data: { protectedBranchUpdate: { clientMutationId: null, errors: [] } } });
  });

  it('reports a refusal GitLab reports in errors there, with the object null, and REST answers it with its own status', async () => {
    const res = await t.graphql(
      `mutation($p: ID!) { protectedBranchCreate(input: { projectId: $p, name: "release/*", clientMutationId: "dup" }) { clientMutationId errors protectedBranch { name } } }`,
      { p: project.path_with_namespace },
      owner.token,
    );
    expect(res.body).toEqual({ data: { protectedBranchCreate: { clientMutationId: 'dup', errors: ["Protected branch 'release/*' already exists"], protectedBranch: null } } });
    const rest = await t.api('POST', `/projects/${project.id}/protected_branches`, { token: owner.token, body: { name: 'release/*' } });
    expect(rest.status).toBe(409);
    expect(rest.body).toEqual({ message: "Protected branch 'release/*' already exists" });
  });

  it('raises a missing or hidden object as a top-level error in GitLab words, alike for both', async () => {
    const query = `mutation($p: ID!) { protectedBranchDelete(input: { projectId: $p, name: "release/*" }) { errors protectedBranch { name } } }`;
    const hidden = await t.graphql(query, { p: project.path_with_namespace }, outsider.token);
    const missing = await t.graphql(query, { p: `${project.path_with_namespace}-nope` }, owner.token);
    for (const res of [hidden, missing]) {
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({ protectedBranchDelete: null });
      expect(res.body.errors?.map((e: any) => [e.message, e.path])).toEqual([
        ["The resource that you are attempting to access does not exist or you don't have permission to perform this action", ['protectedBranchDelete']],
      ]);
    }
  });

  it('refuses flat arguments and a missing input as GraphQL validation errors', async () => {
    const flat = await t.graphql(`mutation { protectedBranchDelete(projectId: "x", name: "y") { errors } }`, {}, owner.token);
    expect(flat.status).toBe(400);
    expect(flat.body.errors?.[0].message).toBe('Unknown argument "projectId" on field "Mutation.protectedBranchDelete".');
    const none = await t.graphql(`mutation { protectedBranchDelete { errors } }`, {}, owner.token);
    expect(none.body.errors?.[0].message).toBe('Field "protectedBranchDelete" argument "input" of type "ProtectedBranchDeleteInput!" is required, but it was not provided.');
  });
});
