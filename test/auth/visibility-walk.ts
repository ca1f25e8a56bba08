import { getNamedType, isNonNullType, isObjectType, type GraphQLField, type GraphQLObjectType } from 'graphql';
import { describe, expect, it } from 'vitest';
import { buildSchema } from '../../src/graphql/schema.js';
import { suiteServer } from '../support/server.js';
import { addMember, createGroup, createProject, createUser, type TestUser } from '../support/factories.js';
import { projectWithPipeline, running } from '../pipelines/support.js';

// Every field path of the schema, from every root field down to DEPTH levels, that leads to an object with a root
// lookup of its own (`project`, `group`, `namespace`, `user`, `personalAccessToken`) shows, to every kind of
// credential, only objects that lookup shows to the same credential: no nested field is a way around a rule. Where
// the lookup does not take the credential at all, a CI job token counts as nobody (it finds only what an anonymous
// caller finds) and a token of too narrow a scope finds nothing. The walk is built from the schema, so a new field
// is covered the day it is added. The callers are dealt out to SHARDS test files (visibility-walk-N.test.ts), which
// vitest runs side by side; each builds the same tree on its own server.
export const SHARDS = 3;
let t: ReturnType<typeof suiteServer>;
const schema = buildSchema();
const DEPTH = 3;

/** Types with a root lookup: the key each is found by, the lookup, and what shows the caller its own (any token reads itself). */
const LOOKUPS: Record<string, { key: string; query: string; own?: string }> = {
  Project: { key: 'fullPath', query: 'query($k: ID!) { found: project(fullPath: $k) { id } }' },
  Group: { key: 'fullPath', query: 'query($k: ID!) { found: group(fullPath: $k) { id } }' },
  Namespace: { key: 'fullPath', query: 'query($k: ID!) { found: namespace(fullPath: $k) { id } }' },
  UserCore: { key: 'id', query: 'query($k: ID!) { found: user(id: $k) { id } }' },
  PersonalAccessToken: { key: 'id', query: 'query($k: ID!) { found: personalAccessToken(id: $k) { id } }', own: '{ found: personalAccessTokenSelf { id } }' },
};

/** The object type a field leads to, through a connection's nodes too. */
function leadsTo(field: GraphQLField<unknown, unknown>): { type: GraphQLObjectType; connection: boolean } | null {
  const named = getNamedType(field.type);
  if (!isObjectType(named)) return null;
  const nodes = named.name.endsWith('Connection') ? named.getFields().nodes : undefined;
  const inner = nodes ? getNamedType(nodes.type) : null;
  if (inner && isObjectType(inner)) return { type: inner, connection: true };
  return { type: named, connection: false };
}

/** A field in a walk: what it selects of its own (`__typename` and the lookup key) and the fields below it. */
interface Walk {
  head: string;
  own: string;
  children: Walk[];
}

function render(walk: Walk): string {
  return `${walk.head} { ${[walk.own, ...walk.children.map(render)].filter(Boolean).join(' ')} }`;
}

/** Page sizes by depth: every object of this small tree at the top, fewer further down, within GitLab's bounds. */
const PAGE = [30, 10, 5, 5];

function args(field: GraphQLField<unknown, unknown>, depth: number): string {
  return field.args.some((a) => a.name === 'first') ? `(first: ${PAGE[DEPTH - depth]})` : '';
}

/**
 * The walk below an object of `type`: every field without required arguments that leads, within `depth` more
 * levels, to a looked-up type. No type twice and no field name three times on one path (GitLab refuses recursion).
 * With `stop`, a walk ends at the first looked-up type below its root: what is below an object the caller finds
 * is walked from that object's own lookup, which the caller must be able to use (or the find is a leak already).
 */
function below(type: GraphQLObjectType, depth: number, types: string[], names: string[], stop: boolean): Walk[] {
  if (depth === 0) return [];
  const walks: Walk[] = [];
  for (const field of Object.values(type.getFields())) {
    const to = leadsTo(field);
    if (!to || types.includes(to.type.name) || names.filter((n) => n === field.name).length >= 2) continue;
    if (field.args.some((a) => isNonNullType(a.type) && a.defaultValue === undefined)) continue;
    const walk = step(to, depth - 1, [...types, to.type.name], [...names, field.name], `${field.name}${args(field, depth)}`, stop, false);
    if (walk) walks.push(walk);
  }
  return walks;
}

function step(to: { type: GraphQLObjectType; connection: boolean }, depth: number, types: string[], names: string[], head: string, stop: boolean, root: boolean): Walk | null {
  const lookup = LOOKUPS[to.type.name];
  const children = lookup && stop && !root ? [] : below(to.type, depth, types, names, stop);
  if (!lookup && children.length === 0) return null;
  const own = lookup ? `__typename ${lookup.key}` : '';
  return to.connection ? { head, own: '', children: [{ head: 'nodes', own, children }] } : { head, own, children };
}

/** One walk per root field: lists and connections as they are, lookups by each key. */
function rootWalks(keys: Record<string, string[]>, stop: boolean): Walk[] {
  const walks: Walk[] = [];
  for (const field of Object.values(schema.getQueryType()?.getFields() ?? {})) {
    const to = leadsTo(field);
    if (!to) continue;
    const required = field.args.filter((a) => isNonNullType(a.type) && a.defaultValue === undefined);
    const types = [to.type.name];
    if (required.length === 0) {
      const walk = step(to, DEPTH, types, [field.name], `walked: ${field.name}${args(field, DEPTH)}`, stop, true);
      if (walk) walks.push(walk);
    } else if (required.length === 1) {
      for (const key of keys[to.type.name] ?? []) {
        const walk = step(to, DEPTH, types, [field.name], `walked: ${field.name}(${required[0].name}: ${JSON.stringify(key)})`, stop, true);
        if (walk) walks.push(walk);
      }
    }
  }
  return walks;
}

/** The walk cut in two or more, each keeping one branch of the first node that has several. */
function split(walk: Walk): Walk[] {
  if (walk.children.length > 1) return walk.children.map((child) => ({ ...walk, children: [child] }));
  if (walk.children.length === 1) return split(walk.children[0]).map((child) => ({ ...walk, children: [child] }));
  return [];
}

/**
 * The walk with every page below its root cut to 5, then its root's to 10 (the tree holds fewer than ten of anything
 * at the top: nine groups), or null when no page is larger.
 */
function shrink(walk: Walk): Walk | null {
  let cut = false;
  const smaller = (head: string, to: number) => head.replace(/\(first: (\d+)\)/, (all, n) => (Number(n) > to ? ((cut = true), `(first: ${to})`) : all));
  const below = (w: Walk): Walk => ({ ...w, head: smaller(w.head, 5), children: w.children.map(below) });
  const shrunk = { ...walk, children: walk.children.map(below) };
  if (cut) return shrunk;
  const root = { ...walk, head: smaller(walk.head, 10) };
  return cut ? root : null;
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

interface GraphqlAnswer {
  data?: Record<string, any> | null;
  errors?: { message: string; extensions?: Record<string, unknown> }[];
}

async function graphql(query: string, variables: Record<string, unknown>, headers: Record<string, string>): Promise<GraphqlAnswer> {
  const res = await fetch(`${t.url}/api/graphql`, { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify({ query, variables }) });
  return (await res.json()) as GraphqlAnswer;
}

const codes = (answer: GraphqlAnswer) => (answer.errors ?? []).map((e) => e.extensions?.code);

/** Runs a walk, cut into smaller ones while GitLab's bounds refuse it, and collects what it finds. */
async function run(walk: Walk, headers: Record<string, string>, seen: Map<string, Set<string>>): Promise<number> {
  const answer = await graphql(`{ ${render(walk)} }`, {}, headers);
  if (codes(answer).includes('LIMIT_EXCEEDED') || (!answer.data && !answer.errors)) {
    const parts = split(walk);
    // A single chain too deep for the bounds: smaller pages below the root (each level of this tree holds fewer).
    const smaller = parts.length === 0 ? shrink(walk) : null;
    if (smaller) return run(smaller, headers, seen);
    if (parts.length === 0) throw new Error(`a walk GitLab's bounds refuse and that cannot be cut: ${render(walk)}: ${JSON.stringify(answer.errors)}`);
    let sent = 0;
    for (const part of parts) {
      const n = await run(part, headers, seen);
      sent += n;
    }
    return sent;
  }
  expect(codes(answer).filter((code) => code === 'INTERNAL_SERVER_ERROR'), render(walk)).toEqual([]);
  collect(answer.data, seen);
  return 1;
}

interface Caller {
  label: string;
  headers: Record<string, string>;
}

/** A personal access token of an existing user, with these scopes. */
async function tokenOf(user: TestUser, scopes: string[]): Promise<string> {
  const res = await t.api('POST', `/users/${user.id}/personal_access_tokens`, { body: { name: 'walk', scopes } });
  expect(res.status).toBe(201);
  return res.body.token;
}

/** The walk for every SHARDS-th caller from `shard` on. */
export function visibilityWalk(shard: number): void {
  t = suiteServer({ rateLimitPerMinute: 0 });
  describe(`no nested field shows more than its own lookup (${shard + 1} of ${SHARDS})`, () => {
    it('holds for every kind of credential over a tree of private, internal and public groups and projects', async () => {
      const owner = await createUser(t);
      const projectMember = await createUser(t);
      const subgroupMember = await createUser(t);
      const external = await createUser(t, { external: true });
      const stranger = await createUser(t);
      const admin = await createUser(t, { admin: true });
      const keys: Record<string, string[]> = { Project: [], Group: [], Namespace: [], UserCore: [], PersonalAccessToken: [] };
      // The owner's job, whose token the `inTop` projects let in through their inbound allowlists.
      const job = await projectWithPipeline(t, owner.token);
      for (const visibility of ['private', 'internal', 'public']) {
        const top = await createGroup(t, owner.token, { visibility });
        const sub = await createGroup(t, owner.token, { parentId: top.id, visibility: 'private' });
        const inTop = await createProject(t, owner.token, { namespaceId: top.id, visibility: 'private' });
        const inSub = await createProject(t, owner.token, { namespaceId: sub.id, visibility: 'private' });
        await addMember(t, owner.token, 'projects', inTop.id, projectMember.id, 20);
        await addMember(t, owner.token, 'groups', sub.id, subgroupMember.id, 10);
        const personal = await createProject(t, owner.token, { visibility });
        // Starred projects, a user's list that other users and narrow tokens read.
        for (const project of [inTop, inSub, personal]) expect((await t.api('POST', `/projects/${project.id}/star`, { token: owner.token })).status).toBe(201);
        expect((await t.api('POST', `/projects/${inTop.id}/star`, { token: projectMember.token })).status).toBe(201);
        expect((await t.api('POST', `/projects/${inTop.id}/job_token_scope/allowlist`, { token: owner.token, body: { target_project_id: job.project.id } })).status).toBe(201);
        keys.Group.push(top.full_path, sub.full_path);
        keys.Namespace.push(top.full_path, sub.full_path, owner.username);
        keys.Project.push(inTop.path_with_namespace, inSub.path_with_namespace, personal.path_with_namespace, job.project.path_with_namespace);
      }
      const jobToken = await running(t, job.job.id);
      const users: TestUser[] = [owner, projectMember, subgroupMember, external, stranger, admin];
      keys.UserCore.push(...users.map((u) => String(u.id)));
      const labels = ['owner', 'project member', 'subgroup member', 'external', 'stranger', 'admin'];
      const everyone: Caller[] = [
        { label: 'anonymous', headers: {} },
        ...users.map((u, i) => ({ label: labels[i], headers: { 'PRIVATE-TOKEN': u.token } })),
        { label: 'owner with read_user', headers: { 'PRIVATE-TOKEN': await tokenOf(owner, ['read_user']) } },
        { label: 'project member with read_api', headers: { 'PRIVATE-TOKEN': await tokenOf(projectMember, ['read_api']) } },
        { label: "the owner's CI job token", headers: { 'JOB-TOKEN': jobToken } },
      ];
      expect(everyone.length).toBeGreaterThanOrEqual(SHARDS);
      const callers = everyone.filter((_, i) => i % SHARDS === shard);
      // A job token looks up none of these types: its walks go the whole depth below its one root field, `currentJob`.
      const walks = rootWalks(keys, true);
      const jobWalks = rootWalks(keys, false).filter((walk) => walk.head.startsWith('walked: currentJob'));
      expect(jobWalks).toHaveLength(1);
      expect(walks.length).toBeGreaterThan(20);
      const leaks: string[] = [];
      let checked = 0;
      let sent = 0;
      for (const { label, headers } of callers) {
        const mine = headers['JOB-TOKEN'] ? jobWalks : walks;
        const seen = new Map<string, Set<string>>();
        // A few walks at a time: the server answers them side by side as it would its clients.
        const queue = [...mine];
        const workers = Array.from({ length: 4 }, async () => {
          for (let walk = queue.shift(); walk; walk = queue.shift()) {
            const parts = await run(walk, headers, seen);
            sent += parts;
          }
        });
        await Promise.all(workers);
        for (const [type, found] of seen) {
          for (const key of found) {
            checked++;
            const own = await graphql(LOOKUPS[type].query, { k: key }, headers);
            if (own.data?.found) continue;
            const self = LOOKUPS[type].own;
            if (self && (await graphql(self, {}, headers)).data?.found?.id === key) continue;
            // A job token is nobody where it is not taken: it may find what an anonymous caller finds, no more.
            const refused = codes(own);
            const asNobody = refused.includes('UNAUTHENTICATED') && headers['JOB-TOKEN'] ? await graphql(LOOKUPS[type].query, { k: key }, {}) : null;
            if (!asNobody?.data?.found) leaks.push(`${label} sees ${type} ${key} through a nested field, but not through its lookup${refused.length ? ` (${refused.join(', ')})` : ''}`);
          }
        }
      }
      const walked = callers.filter(({ headers }) => !headers['JOB-TOKEN']).length;
      expect(sent).toBeGreaterThanOrEqual(walks.length * walked);
      expect(checked).toBeGreaterThan(30);
      expect(leaks).toEqual([]);
    }, 600_000);
  });
}
