import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execute } from 'graphql';
import { buildSchema } from '../../src/graphql/schema.js';
import { restOperations } from '../../src/rest/routes.js';
import { serviceHarness, type ServiceHarness } from '../support/context.js';
import { unique } from '../support/factories.js';
import type { Viewer } from '../../src/auth/viewer.js';

// REST runs its operations compiled (graphql-jit); /api/graphql runs graphql-js. Same schema, same resolvers:
// the two must give the same data and the same errors for every operation the routes use.
const schema = buildSchema();
const operations = restOperations(schema);
let h: ServiceHarness;
let owner: Viewer;
let outsider: Viewer;
let ids: Record<string, string>;

beforeAll(async () => {
  h = await serviceHarness();
  const a = await h.user();
  const b = await h.user();
  owner = a.viewer;
  outsider = b.viewer;
  const group = await a.ctx.services.groups.create({ name: 'g', path: unique('g') });
  const project = await a.ctx.services.projects.create({ name: unique('p'), namespace: { id: group.id } });
  await a.ctx.services.members.addToProject(project, { userId: b.viewer.id, accessLevel: 20 });
  ids = { group: String(group.id), project: String(project.id), user: String(b.viewer.id) };
});
afterAll(() => h?.close());

async function both(name: string, viewer: Viewer | null, variables: Record<string, unknown>) {
  const op = operations.get(name);
  if (!op) throw new Error(`no operation ${name}`);
  const ctx = () => (viewer ? h.contextFor(viewer) : h.anonymous());
  const viaGraphql = await execute({ schema, document: op.document, contextValue: ctx(), variableValues: variables });
  const viaJit = await op.run(ctx(), variables);
  // A write run twice stamps two times: compare what the operation answered, not when.
  const json = (result: unknown) => JSON.parse(JSON.stringify(result), (key, value) => (key === 'updated_at' || key === 'last_activity_at' ? 'stamped' : value));
  return { graphql: json(viaGraphql), jit: json(viaJit) };
}

describe('compiled REST execution agrees with graphql-js', () => {
  const cases: [string, () => Record<string, unknown>, () => Viewer | null][] = [
    ['RestGetProject', () => ({ id: ids.project }), () => owner],
    ['RestGetProject', () => ({ id: ids.project }), () => null],
    ['RestListProjects', () => ({ first: 20 }), () => owner],
    ['RestListAllProjectMembers', () => ({ id: ids.project, first: 20 }), () => outsider],
    ['RestListGroupMembers', () => ({ id: ids.group, first: 20 }), () => owner],
    ['RestListNamespaces', () => ({ first: 20 }), () => owner],
    ['RestGetUser', () => ({ id: ids.user }), () => owner],
    ['RestCurrentUser', () => ({}), () => outsider],
    ['RestCreateGroup', () => ({ name: 'x', path: 'not a path!' }), () => owner],
    // A relay input's optional fields the request left out stay out (graphql-jit would pass them as null: a blank name).
    ['RestUpdateProject', () => ({ id: ids.project, description: 'changed' }), () => owner],
  ];
  for (const [name, variables, viewer] of cases) {
    it(`${name} as ${viewer() === null ? 'anonymous' : 'a user'}`, async () => {
      const { graphql, jit } = await both(name, viewer(), variables());
      expect(jit.data).toEqual(graphql.data);
      expect(jit.errors?.map((e: { message: string; extensions: unknown }) => [e.message, e.extensions])).toEqual(
        graphql.errors?.map((e: { message: string; extensions: unknown }) => [e.message, e.extensions]),
      );
    });
  }
});
