import { beforeAll, describe, expect, it } from 'vitest';
import { suiteServer } from '../support/server.js';
import { createUser, type TestUser } from '../support/factories.js';

// GitLab's bounds on /api/graphql (complexity 200/250/300, depth 15/20, recursion, 10,000 characters) and ours
// (objects the connections may return), all answered before any resolver runs.
let statements = 0;
const t = suiteServer({}, { onQuery: () => void statements++ });
let alice: TestUser;
beforeAll(async () => {
  alice = await createUser(t);
  // What creating her queued (system hook events) runs now, not while a test counts statements.
  await t.server.app.jobs.drain();
});

const LIMIT_EXCEEDED = { code: 'LIMIT_EXCEEDED' };
const refusal = (message: string) => ({ message, extensions: LIMIT_EXCEEDED });

/** A query of the given complexity score: `queryComplexity { limit score }` (3) and `__typename` aliases (1 each). */
function scoring(score: number): string {
  const names = Array.from({ length: score - 3 }, (_, i) => `t${i}: __typename`);
  return `{ queryComplexity { limit score } ${names.join(' ')} }`;
}

/** A query nested `depth` fields deep that names no field more than twice in a branch (`ofType` does not count). */
function deep(depth: number): string {
  const ofTypes = depth - 5;
  return `{ __schema { queryType { fields { type { ${'ofType { '.repeat(ofTypes)}name${' }'.repeat(ofTypes)} } } } } }`;
}

// Four nested 20-item connections in 242 bytes: 168,420 objects if it ran.
const RECURSIVE =
  '{ projects(first: 20) { nodes { group { projects(first: 20) { nodes { group { projects(first: 20) { nodes { group { projects(first: 20) { nodes { id name topics fullPath webUrl description createdAt updatedAt starCount } } } } } } } } } } } }';
const NESTED =
  '{ groups(first: 20) { nodes { projects(first: 20) { nodes { projectMembers(first: 20) { nodes { user { namespace { projects(first: 20) { nodes { id name emptyRepo fullPath webUrl description createdAt updatedAt starCount } } } } } } } } } } }';
const ALIASES = `{${Array.from({ length: 250 }, (_, i) => `p${i}:projects(first:100){nodes{id}}`).join(' ')}}`;

describe('refusing hostile queries', () => {
  it('refuses four nested 20-item connections in 242 bytes, at once and without touching the database', async () => {
    expect([RECURSIVE.length, NESTED.length]).toEqual([242, 242]);
    const before = statements;
    const recursive = await t.graphql(RECURSIVE, {}, null);
    expect(recursive.status).toBe(200);
    expect(recursive.body).toEqual({
      errors: [
        refusal(`Recursive query - too many of fields '{"projects"=>4, "group"=>3}' detected\nin single branch of the query")\n`),
        refusal('Query has node count of 168420, which exceeds max node count of 25000'),
      ],
    });
    const nested = await t.graphql(NESTED, {}, null);
    expect(nested.status).toBe(200);
    expect(nested.body).toEqual({ errors: [refusal('Query has node count of 168420, which exceeds max node count of 25000')] });
    expect(statements).toBe(before);
  });

  it('refuses 250 aliases of projects(first: 100) with GitLab\'s message', async () => {
    const res = await t.graphql(ALIASES, {}, alice.token);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ errors: [refusal('Query has complexity of 2000, which exceeds max complexity of 250')] });
  });

  it('answers refused queries in milliseconds while /api/v4/version keeps answering', async () => {
    const timed = async <T>(run: () => Promise<T>) => {
      const start = performance.now();
      const value = await run();
      return { value, ms: performance.now() - start };
    };
    const hostile = Array.from({ length: 30 }, (_, i) => timed(() => t.graphql([RECURSIVE, NESTED, ALIASES][i % 3], {}, alice.token)));
    const versions = Array.from({ length: 10 }, () => timed(() => t.api('GET', '/version', { token: alice.token })));
    const [refused, answered] = await Promise.all([Promise.all(hostile), Promise.all(versions)]);
    for (const { value } of refused) expect(value.body.errors?.[0].extensions).toEqual(LIMIT_EXCEEDED);
    for (const { value } of answered) expect(value.status).toBe(200);
    // Thirty refusals and ten reads at once: none waits on the others' work (running the hostile queries would take
    // minutes). The bound is loose, as a shared two-core machine running other suites can stall anything for a second.
    expect(Math.max(...refused.map((r) => r.ms), ...answered.map((r) => r.ms))).toBeLessThan(5000);
  });

  it('refuses a fragment that multiplies itself before measuring it out', async () => {
    const levels = 24;
    const fragments = Array.from({ length: levels }, (_, i) =>
      i === levels - 1 ? `fragment F${i} on Query { __typename }` : `fragment F${i} on Query { a: queryComplexity { score } ...F${i + 1} b: __typename ...F${i + 1} }`,
    );
    const res = await t.graphql(`{ ...F0 } ${fragments.join(' ')}`, {}, null);
    expect(res.body).toEqual({ errors: [refusal('Timeout on validation of query')] });
  });
});

describe('complexity limits by caller', () => {
  it('allows an anonymous caller 200 and refuses 201', async () => {
    const allowed = await t.graphql(scoring(200), {}, null);
    expect(allowed.body.data?.queryComplexity).toEqual({ limit: 200, score: 200 });
    const refused = await t.graphql(scoring(201), {}, null);
    expect(refused.body).toEqual({ errors: [refusal('Query has complexity of 201, which exceeds max complexity of 200')] });
  });

  it('allows a signed-in user 250 and refuses 251', async () => {
    const allowed = await t.graphql(scoring(250), {}, alice.token);
    expect(allowed.body.data?.queryComplexity).toEqual({ limit: 250, score: 250 });
    const refused = await t.graphql(scoring(251), {}, alice.token);
    expect(refused.body).toEqual({ errors: [refusal('Query has complexity of 251, which exceeds max complexity of 250')] });
  });

  it('allows an administrator 300 and refuses 301', async () => {
    const allowed = await t.graphql(scoring(300), {}, t.rootToken);
    expect(allowed.body.data?.queryComplexity).toEqual({ limit: 300, score: 300 });
    const refused = await t.graphql(scoring(301), {}, t.rootToken);
    expect(refused.body).toEqual({ errors: [refusal('Query has complexity of 301, which exceeds max complexity of 300')] });
  });

  it('allows an anonymous IntrospectionQuery 217, as GitLab does for GraphiQL', async () => {
    const res = await t.graphql('query IntrospectionQuery { queryComplexity { limit score } }', {}, null);
    expect(res.body.data?.queryComplexity).toEqual({ limit: 217, score: 3 });
  });
});

describe('queryComplexity', () => {
  /** The score of a selection, without the 2 of `queryComplexity { score }` itself. */
  const score = async (selection: string, options: { variables?: string; values?: Record<string, unknown>; fragments?: string } = {}) => {
    const res = await t.graphql(`query${options.variables ?? ''} { queryComplexity { score } ${selection} } ${options.fragments ?? ''}`, options.values ?? {}, alice.token);
    expect(res.body.errors).toBeUndefined();
    return (res.body.data?.queryComplexity.score as number) - 2;
  };

  it('weighs a connection by its page: 1% of its cost per item, a full page (or none given) doubling it', async () => {
    // nodes { id } is 2; projects adds 1, and 1 for its (default) sort argument: 4, times 1 + first / 100.
    expect(await score('projects(first: 50) { nodes { id } }')).toBe(6);
    expect(await score('projects(first: 100) { nodes { id } }')).toBe(8);
    expect(await score('projects { nodes { id } }')).toBe(8);
    expect(await score('projects(first: 1000) { nodes { id } }')).toBe(8);
    expect(await score('projects(first: 1) { nodes { id } }')).toBe(4);
    expect(await score('projects(first: $first) { nodes { id } }', { variables: '($first: Int)', values: { first: 50 } })).toBe(6);
  });

  it('adds 5 for a search argument', async () => {
    expect(await score('projects(first: 50, search: "x") { nodes { id } }')).toBe(13);
  });

  it('counts aliases and fragments, merges fields of one response key, and leaves out skipped fields', async () => {
    expect(await score('a: projects(first: 50) { nodes { id } } b: projects(first: 50) { nodes { id } }')).toBe(12);
    expect(await score('projects(first: 50) { nodes { ...P } }', { fragments: 'fragment P on Project { id }' })).toBe(6);
    expect(await score('projects(first: 50) { nodes { id } } projects(first: 50) { nodes { name } }')).toBe(7);
    const skipping = { variables: '($skip: Boolean!)', values: { skip: true } };
    expect(await score('projects(first: 50) { nodes { id name @skip(if: $skip) } }', skipping)).toBe(6);
    expect(await score('projects(first: 50) { nodes { id name @skip(if: $skip) } }', { ...skipping, values: { skip: false } })).toBe(7);
  });
});

describe('depth limits by caller', () => {
  it('allows an anonymous caller depth 15 and refuses 16', async () => {
    expect((await t.graphql(deep(15), {}, null)).body.errors).toBeUndefined();
    expect((await t.graphql(deep(16), {}, null)).body).toEqual({ errors: [refusal('Query has depth of 16, which exceeds max depth of 15')] });
  });

  it('allows a signed-in user depth 20 and refuses 21, as GitLab does', async () => {
    expect((await t.graphql(deep(20), {}, alice.token)).body.errors).toBeUndefined();
    expect((await t.graphql(deep(21), {}, alice.token)).body).toEqual({ errors: [refusal('Query has depth of 21, which exceeds max depth of 20')] });
  });

  it('reports every bound exceeded, in GitLab\'s order, ours last', async () => {
    const nested = `a: projects { nodes { group { ${'projects { nodes { group { '.repeat(4)}id${' } } }'.repeat(4)} } } }`;
    const res = await t.graphql(`{${nested} ${ALIASES.slice(1)}`, {}, null);
    expect(res.body.errors?.map((e) => e.message)).toEqual([
      `Recursive query - too many of fields '{"projects"=>5, "group"=>5}' detected\nin single branch of the query")\n`,
      'Query has depth of 16, which exceeds max depth of 15',
      'Query has complexity of 2220, which exceeds max complexity of 200',
      'Query has node count of 3393420, which exceeds max node count of 25000',
    ]);
  });
});

describe('node count (ours)', () => {
  it('allows a page of 100 projects with a page of 100 members each', async () => {
    const res = await t.graphql('{ projects(first: 100) { nodes { projectMembers(first: 100) { nodes { id } } } } }', {}, alice.token);
    expect(res.body).toEqual({ data: { projects: { nodes: expect.any(Array) } } });
  });

  it('weighs each parent\'s query like ten objects, so small pages cannot multiply queries', async () => {
    const res = await t.graphql('{ groups(first: 100) { nodes { projects(first: 100) { nodes { projectMembers(first: 1) { count } } } } } }', {}, alice.token);
    expect(res.body).toEqual({ errors: [refusal('Query has node count of 110100, which exceeds max node count of 25000')] });
  });
});

describe('query size', () => {
  it('answers a query over 10,000 characters with 422 and GitLab\'s message, after authentication', async () => {
    const query = (size: number) => `{ __typename }${' '.repeat(size - 14)}`;
    expect((await t.graphql(query(10_000), {}, null)).body).toEqual({ data: { __typename: 'Query' } });
    const large = await t.graphql(query(10_001), {}, null);
    expect(large.status).toBe(422);
    expect(large.body).toEqual({ errors: [refusal('Query too large')] });
    expect((await t.graphql(query(10_001), {}, 'glpat-not-a-token')).status).toBe(401);
  });

  it('counts characters, not bytes or UTF-16 units', async () => {
    const query = `{ __typename } #${'🦊'.repeat(9_984)}`;
    expect([...query].length).toBe(10_000);
    expect((await t.graphql(query, {}, null)).body).toEqual({ data: { __typename: 'Query' } });
  });
});
