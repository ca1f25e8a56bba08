import { getNamedType, isListType, isNonNullType, isObjectType, type GraphQLField, type GraphQLObjectType } from 'graphql';
import { describe, expect, it } from 'vitest';
import { buildSchema } from '../../src/graphql/schema.js';
import { suiteServer } from '../support/server.js';
import { addMember, createGroup, createProject, createUser, type TestUser } from '../support/factories.js';

// Every object-typed field of the schema that leads to an object with a root lookup of its own (`project`,
// `group`, `namespace`, `user`, `personalAccessToken`) shows, to every caller, only objects that lookup shows
// to the same caller: no nested field is a way around a rule. The walk is built from the schema, so a new
// field is covered the day it is added.
const t = suiteServer({ rateLimitPerMinute: 0 });
const schema = buildSchema();

/** Types with a root lookup: the key each is found by, and the lookup. */
const LOOKUPS: Record<string, { key: string; query: string }> = {
  Project: { key: 'fullPath', query: 'query($k: ID!) { found: project(fullPath: $k) { id } }' },
  Group: { key: 'fullPath', query: 'query($k: ID!) { found: group(fullPath: $k) { id } }' },
  Namespace: { key: 'fullPath', query: 'query($k: ID!) { found: namespace(fullPath: $k) { id } }' },
  UserCore: { key: 'id', query: 'query($k: ID!) { found: user(id: $k) { id } }' },
  PersonalAccessToken: { key: 'id', query: 'query($k: ID!) { found: personalAccessToken(id: $k) { id } }' },
};

/** The looked-up type a field leads to, directly or through a connection's nodes. */
function target(field: GraphQLField<unknown, unknown>): { type: string; connection: boolean } | null {
  const named = getNamedType(field.type);
  if (!isObjectType(named)) return null;
  if (LOOKUPS[named.name]) return { type: named.name, connection: false };
  const nodes = named.getFields().nodes;
  const inner = nodes ? getNamedType(nodes.type) : null;
  return inner && LOOKUPS[inner.name] ? { type: inner.name, connection: true } : null;
}

/** A selection of every field of `type` that leads to a looked-up object, with that object's key. */
function nestedSelection(type: GraphQLObjectType): string {
  return Object.values(type.getFields())
    .flatMap((f) => {
      const to = target(f);
      if (!to || f.args.some((a) => isNonNullType(a.type) && a.defaultValue === undefined)) return [];
      const key = `__typename ${LOOKUPS[to.type].key}`;
      const args = f.args.some((a) => a.name === 'first') ? '(first: 100)' : '';
      return [`${f.name}${args} { ${to.connection ? `nodes { ${key} }` : key} }`];
    })
    .join(' ');
}

/** Queries reaching every looked-up type from every root field: lists and connections as they are, lookups by each key. */
function walkQueries(keys: Record<string, string[]>): string[] {
  const queries: string[] = [];
  for (const field of Object.values(schema.getQueryType()?.getFields() ?? {})) {
    const to = target(field);
    if (!to) continue;
    const type = schema.getType(to.type) as GraphQLObjectType;
    const selection = `__typename ${LOOKUPS[to.type].key} ${nestedSelection(type)}`;
    const required = field.args.filter((a) => isNonNullType(a.type) && a.defaultValue === undefined);
    const body = to.connection ? `nodes { ${selection} }` : isListType(field.type) ? selection : selection;
    if (required.length === 0) {
      const args = field.args.some((a) => a.name === 'first') ? '(first: 100)' : '';
      queries.push(`{ walked: ${field.name}${args} { ${body} } }`);
    } else if (required.length === 1) {
      for (const key of keys[to.type] ?? []) queries.push(`{ walked: ${field.name}(${required[0].name}: ${JSON.stringify(key)}) { ${body} } }`);
    }
  }
  return queries;
}

function collect(value: unknown, out: Map<string, Set<string>>): void {
  if (Array.isArray(value)) return value.forEach((v) => collect(v, out));
  if (!value || typeof value !== 'object') return;
  const obj = value as Record<string, unknown>;
  const lookup = typeof obj.__typename === 'string' ? LOOKUPS[obj.__typename] : undefined;
  if (lookup && obj[lookup.key] != null) {
    const set = out.get(obj.__typename as string) ?? new Set<string>();
    set.add(String(obj[lookup.key]));
    out.set(obj.__typename as string, set);
  }
  for (const v of Object.values(obj)) collect(v, out);
}

describe('no nested field shows more than its own lookup', () => {
  it('holds for every caller over a tree of private, internal and public groups and projects', async () => {
    const owner = await createUser(t);
    const projectMember = await createUser(t);
    const subgroupMember = await createUser(t);
    const external = await createUser(t, { external: true });
    const stranger = await createUser(t);
    const admin = await createUser(t, { admin: true });
    const keys: Record<string, string[]> = { Project: [], Group: [], Namespace: [], UserCore: [], PersonalAccessToken: [] };
    for (const visibility of ['private', 'internal', 'public']) {
      const top = await createGroup(t, owner.token, { visibility });
      const sub = await createGroup(t, owner.token, { parentId: top.id, visibility: 'private' });
      const inTop = await createProject(t, owner.token, { namespaceId: top.id, visibility: 'private' });
      const inSub = await createProject(t, owner.token, { namespaceId: sub.id, visibility: 'private' });
      await addMember(t, owner.token, 'projects', inTop.id, projectMember.id, 20);
      await addMember(t, owner.token, 'groups', sub.id, subgroupMember.id, 10);
      const personal = await createProject(t, owner.token, { visibility });
      keys.Group.push(top.full_path, sub.full_path);
      keys.Namespace.push(top.full_path, sub.full_path, owner.username);
      keys.Project.push(inTop.path_with_namespace, inSub.path_with_namespace, personal.path_with_namespace);
    }
    const users: TestUser[] = [owner, projectMember, subgroupMember, external, stranger, admin];
    keys.UserCore.push(...users.map((u) => String(u.id)));
    const callers: [string, string | null][] = [['anonymous', null], ...users.map((u, i): [string, string] => [['owner', 'project member', 'subgroup member', 'external', 'stranger', 'admin'][i], u.token])];
    const queries = walkQueries(keys);
    expect(queries.length).toBeGreaterThan(10);
    const leaks: string[] = [];
    let checked = 0;
    for (const [label, token] of callers) {
      const seen = new Map<string, Set<string>>();
      for (const query of queries) {
        const res = await t.graphql(query, {}, token);
        expect(res.body.errors?.filter((e) => e.extensions?.code === 'INTERNAL_SERVER_ERROR') ?? []).toEqual([]);
        collect(res.body.data, seen);
      }
      for (const [type, found] of seen) {
        for (const key of found) {
          const res = await t.graphql(LOOKUPS[type].query, { k: key }, token);
          checked++;
          if (!res.body.data?.found) leaks.push(`${label} sees ${type} ${key} through a nested field, but not through its lookup`);
        }
      }
    }
    expect(checked).toBeGreaterThan(50);
    expect(leaks).toEqual([]);
  });
});
