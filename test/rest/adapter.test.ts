import { describe, expect, it } from 'vitest';
import { GraphQLError } from 'graphql';
import { buildSchema } from '../../src/graphql/schema.js';
import { applyOutput } from '../../src/rest/output.js';
import { restOperations } from '../../src/rest/routes.js';
import { variablesFromParams } from '../../src/rest/params.js';
import { connectionArgs, readOffsetPage } from '../../src/rest/pagination.js';
import { connection, encodeCursor, encodeKeysetCursor } from '../../src/graphql/connection.js';
import { restError } from '../../src/errors.js';

const schema = buildSchema();
const operations = restOperations(schema);

function paramsError(fn: () => unknown): string | undefined {
  try {
    fn();
    return undefined;
  } catch (err) {
    return JSON.stringify(restError(err as GraphQLError).body);
  }
}

describe('parameter coercion', () => {
  const listProjects = operations.get('RestListProjects')!;
  const createToken = operations.get('RestCreatePersonalAccessToken')!;

  it('maps snake_case parameters onto camelCase variables and coerces by declared type', () => {
    expect(variablesFromParams(listProjects.variables, { min_access_level: '30', owned: 'yes', visibility: 'public', order_by: 'name', sort: 'asc', unknown: 'x' })).toEqual({
      minAccessLevel: 'DEVELOPER',
      owned: true,
      visibility: 'public',
      orderBy: 'name',
      sort: 'ASC',
    });
  });

  it('accepts Grape booleans and refuses anything else', () => {
    for (const [raw, value] of [['1', true], ['t', true], ['FALSE', false], ['off', false], [true, true]] as const) {
      expect(variablesFromParams(listProjects.variables, { archived: raw })).toEqual({ archived: value });
    }
    expect(paramsError(() => variablesFromParams(listProjects.variables, { archived: 'perhaps' }))).toBe('{"error":"archived is invalid"}');
  });

  it('takes arrays from JSON, from scopes[]=… and from indexed objects', () => {
    const base = { id: '5', name: 'n' };
    expect(variablesFromParams(createToken.variables, { ...base, scopes: ['api', 'read_api'] }).scopes).toEqual(['api', 'read_api']);
    expect(variablesFromParams(createToken.variables, { ...base, scopes: { 0: 'api', 1: 'read_user' } }).scopes).toEqual(['api', 'read_user']);
    expect(variablesFromParams(createToken.variables, { ...base, scopes: 'api' }).scopes).toEqual(['api']);
  });

  it('lists every problem at once, in declaration order', () => {
    expect(paramsError(() => variablesFromParams(createToken.variables, { expires_at: 'soon' }))).toBe(
      '{"error":"id is missing, name is missing, scopes is missing, expires_at is invalid"}',
    );
  });

  it('refuses integers that are not integers and enum values outside the list', () => {
    expect(paramsError(() => variablesFromParams(listProjects.variables, { min_access_level: '12abc' }))).toBe('{"error":"min_access_level is invalid"}');
    expect(paramsError(() => variablesFromParams(listProjects.variables, { min_access_level: '35' }))).toBe('{"error":"min_access_level does not have a valid value"}');
    expect(paramsError(() => variablesFromParams(listProjects.variables, { order_by: 'stars' }))).toBe('{"error":"order_by does not have a valid value"}');
  });

  it('treats an empty optional non-string parameter as not given', () => {
    expect(variablesFromParams(listProjects.variables, { owned: '', search: '' })).toEqual({ search: '' });
  });
});

describe('pagination', () => {
  it('turns page and per_page into connection arguments', async () => {
    expect(connectionArgs(readOffsetPage({}))).toEqual({ first: 20, after: null });
    const third = connectionArgs(readOffsetPage({ page: '3', per_page: '10' }));
    const fetched: unknown[] = [];
    await connection(third, async (page) => (fetched.push(page), []), async () => 0).nodes;
    expect(fetched).toEqual([{ skip: 20, take: 11 }]);
    expect(readOffsetPage({ per_page: '500' }).perPage).toBe(100);
  });

  it('refuses per_page=0, negative values and non-integers in Grape words', () => {
    expect(paramsError(() => readOffsetPage({ per_page: '0' }))).toBe('{"error":"per_page has a value not allowed"}');
    expect(paramsError(() => readOffsetPage({ page: '0' }))).toBe('{"error":"page does not have a valid value"}');
    expect(paramsError(() => readOffsetPage({ per_page: '-5' }))).toBe('{"error":"per_page does not have a valid value"}');
    expect(paramsError(() => readOffsetPage({ page: 'x', per_page: 'y' }))).toBe('{"error":"page is invalid, per_page is invalid"}');
  });

  it('fetches one extra row to know whether a next page exists, and counts only when asked', async () => {
    const items = Array.from({ length: 7 }, (_, i) => i);
    const fetched: { skip: number; take: number }[] = [];
    let counted = 0;
    const conn = connection(
      { first: 3, after: null },
      async (page) => {
        fetched.push(page);
        return items.slice(page.skip, page.skip + page.take);
      },
      async () => {
        counted++;
        return items.length;
      },
    );
    expect(await conn.nodes).toEqual([0, 1, 2]);
    expect(await conn.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: false });
    expect(fetched).toEqual([{ skip: 0, take: 4 }]);
    expect(counted).toBe(0);
    expect(await conn.count).toBe(7);
  });
});

describe('Relay paging in both directions (GitLab’s first/after, last/before)', () => {
  const items = Array.from({ length: 10 }, (_, i) => ({ id: i + 1 }));
  /** An offset list of `items`; `counted` says whether `last` needed the total. */
  function offsetList(args: Parameters<typeof connection>[0]) {
    const state = { counted: 0, fetched: [] as { skip: number; take: number }[] };
    const conn = connection(
      args,
      async (page) => (state.fetched.push({ skip: page.skip, take: page.take }), items.slice(page.skip, page.skip + page.take)),
      async () => (state.counted++, items.length),
    );
    return { conn, state };
  }
  const ids = async (conn: { nodes: Promise<{ id: number }[]> }) => (await conn.nodes).map((n) => n.id);

  it('reads the last nodes of an offset list from its count, with cursors that page on backwards', async () => {
    const { conn, state } = offsetList({ last: 3 });
    expect(await ids(conn)).toEqual([8, 9, 10]);
    expect(await conn.pageInfo).toEqual({ hasNextPage: false, hasPreviousPage: true, startCursor: encodeCursor(7), endCursor: encodeCursor(9) });
    expect(state).toEqual({ counted: 1, fetched: [{ skip: 7, take: 3 }] });
    const back = offsetList({ last: 3, before: encodeCursor(7) });
    expect(await ids(back.conn)).toEqual([5, 6, 7]);
    expect(await back.conn.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: true });
    expect(back.state.counted).toBe(0);
    const start = offsetList({ last: 5, before: encodeCursor(2) });
    expect(await ids(start.conn)).toEqual([1, 2]);
    expect(await start.conn.pageInfo).toMatchObject({ hasPreviousPage: false });
  });

  it('takes the window between after and before, then first, then last, as Relay’s algorithm does', async () => {
    expect(await ids(offsetList({ after: encodeCursor(1), before: encodeCursor(6) }).conn)).toEqual([3, 4, 5, 6]);
    expect(await ids(offsetList({ first: 2, after: encodeCursor(1), before: encodeCursor(6) }).conn)).toEqual([3, 4]);
    const both = offsetList({ first: 6, last: 2 });
    expect(await ids(both.conn)).toEqual([5, 6]);
    expect(both.state.counted).toBe(0);
    const window = offsetList({ first: 5, before: encodeCursor(3) });
    expect(await ids(window.conn)).toEqual([1, 2, 3]);
    expect(await window.conn.pageInfo).toMatchObject({ hasNextPage: false });
  });

  it('refuses a negative last and a cursor that is not one of ours, naming the argument', async () => {
    expect(() => connection({ last: -1 }, async () => [], async () => 0)).toThrow(/last/);
    expect(() => connection({ before: 'nonsense' }, async () => [], async () => 0)).toThrow(/before/);
  });

  it('reads a keyset list backwards in reverse order and turns the rows back', async () => {
    const order = [['id', 'asc']] as const;
    const seen: unknown[] = [];
    const fetch = async (page: { take: number; seek?: Record<string, unknown>; orderBy?: unknown }) => {
      seen.push({ take: page.take, seek: page.seek, orderBy: page.orderBy });
      const bound = (page.seek as { OR: { id: { lt?: number; gt?: number } }[] } | undefined)?.OR[0].id;
      const desc = JSON.stringify(page.orderBy) === JSON.stringify([{ id: 'desc' }]);
      const rows = items.filter((r) => (bound?.lt === undefined || r.id < bound.lt) && (bound?.gt === undefined || r.id > bound.gt));
      return (desc ? [...rows].reverse() : rows).slice(0, page.take);
    };
    const conn = connection({ last: 2, before: encodeKeysetCursor([5]) }, fetch, async () => items.length, order);
    expect(await ids(conn)).toEqual([3, 4]);
    expect(await conn.pageInfo).toEqual({ hasNextPage: true, hasPreviousPage: true, startCursor: encodeKeysetCursor([3]), endCursor: encodeKeysetCursor([4]) });
    expect(seen).toEqual([{ take: 3, seek: { OR: [{ id: { lt: 5 } }] }, orderBy: [{ id: 'desc' }] }]);
    const end = connection({ last: 2 }, fetch, async () => items.length, order);
    expect(await ids(end)).toEqual([9, 10]);
    expect(await end.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: true });
  });
});

describe('output plans', () => {
  it('applies @spread, @unwrap and @omitIfNull from the operation, keeping key order', () => {
    const op = operations.get('RestListGroupMembers')!;
    const nodes = op.output.find((p) => p.key === 'group')!.children.find((p) => p.key === 'groupMembers')!.children.find((p) => p.key === 'nodes')!.children;
    const out = applyOutput(
      [{ user: { id: 3, username: 'u' }, access_level: { integerValue: 30 }, created_at: 't' }],
      nodes,
    );
    expect(out).toEqual([{ id: 3, username: 'u', access_level: 30, created_at: 't' }]);
    expect(Object.keys((out as object[])[0])).toEqual(['id', 'username', 'access_level', 'created_at']);
  });

  it('maps enum values to their REST strings', () => {
    const op = operations.get('RestCurrentUser')!;
    const plans = op.output.find((p) => p.key === 'currentUser')!.children;
    expect(applyOutput({ state: 'active', administration: null }, plans)).toEqual({ state: 'active' });
  });
});
