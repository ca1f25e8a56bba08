import { gzipSync } from 'node:zlib';
import { getNamedType, isEnumType, isInputObjectType, isListType, isNonNullType, isScalarType, type GraphQLInputType } from 'graphql';
import { describe, expect, it } from 'vitest';
import { buildSchema } from '../../src/graphql/schema.js';
import { snakeCase } from '../../src/rest/params.js';
import { restRoutes } from '../../src/rest/routes.js';
import { BOMBS } from '../ci/bombs.js';
import { suiteServer } from '../support/server.js';
import { eventually } from '../support/wait.js';
import { createGroup, createProject, createUser } from '../support/factories.js';
import { prng } from './prng.js';
import { multipart, rawExchange } from './raw-http.js';

// A seeded, bounded fuzzer over every route of the route table and every GraphQL root field: hostile values for
// each parameter's type, odd content types, charsets, encodings and tokens. Whatever it sends, the server answers
// with a 4xx or a success, never a 5xx nor INTERNAL_SERVER_ERROR, and keeps answering. The seed is printed with
// any failure, so a finding replays exactly (FUZZ_SEED=<seed>); FUZZ_REST_REQUESTS and FUZZ_GRAPHQL_REQUESTS scale it.
const SEED = Number(process.env.FUZZ_SEED ?? 20261123);
const REST_REQUESTS = Number(process.env.FUZZ_REST_REQUESTS ?? 2000);
const GRAPHQL_REQUESTS = Number(process.env.FUZZ_GRAPHQL_REQUESTS ?? 600);
const BODY_REQUESTS = Number(process.env.FUZZ_BODY_REQUESTS ?? 120);
const BODY_LIMIT = 1024 * 1024;
const CONCURRENCY = 8;

const t = suiteServer({ rateLimitPerMinute: 0, bodyLimit: BODY_LIMIT });
const schema = buildSchema();
const routes = restRoutes(schema);

const STRINGS = ['', ' ', '\0', 'a\0b', '%00', '%ff', '%', '%zz', '../../etc/passwd', 'ü/ß/日本', '😀'.repeat(50), 'a'.repeat(5000), "'; DROP TABLE users; --", '<script>', 'null', 'true', '-1', '0', '1.5', '1e308', '99999999999999999999', 'gid://gitlab/Project/1', 'gid://gitlab/User/99999999999', '\ud800', '\r\n'];
// Objects whose toString or valueOf is not a function, and lists holding nulls, where scalars and lists are expected.
const HOSTILE_OBJECTS: unknown[] = [{ toString: 'x' }, { toString: 'x', valueOf: 1 }, { valueOf: {} }, [null], ['x', null], [{ toString: 'x' }]];
const VALUES: unknown[] = [...STRINGS, -1, 0, 2147483648, 1e308, -0.5, true, false, null, [], ['x'], [['x']], {}, { nested: { deeper: ['y'] } }, { 0: 'api', 1: '\0' }, ...HOSTILE_OBJECTS];

/** A hostile value, biased towards the shape the type expects so that it passes coercion and reaches deeper. */
function hostile(type: GraphQLInputType, r: ReturnType<typeof prng>, depth = 0): unknown {
  if (r.chance(0.3) || depth > 3) return r.pick(VALUES);
  const inner = isNonNullType(type) ? type.ofType : type;
  if (isListType(inner)) return Array.from({ length: r.pick([0, 1, 2, 200]) }, () => (r.chance(0.1) ? null : hostile(inner.ofType, r, depth + 1)));
  if (isInputObjectType(inner)) return Object.fromEntries(Object.values(inner.getFields()).map((f) => [snakeCase(f.name), hostile(f.type, r, depth + 1)]));
  if (isEnumType(inner)) return r.chance(0.5) ? r.pick(inner.getValues()).name.toLowerCase() : r.pick(STRINGS);
  if (isScalarType(inner) && (inner.name === 'Int' || inner.name === 'Float')) return r.pick(['-1', '0', '2147483648', '-2147483649', '1.5', 'NaN', '1e400', ' 7 ', '0x10', '00012']);
  if (isScalarType(inner) && inner.name === 'Boolean') return r.pick(['yes', 'no', 'maybe', '1', '', 'TRUE']);
  if (isScalarType(inner) && (inner.name === 'Time' || inner.name === 'Date')) return r.pick(['2026-13-45', '2026-02-30', '9999-99-99T99:99:99Z', '2026-11-23', 'yesterday', '']);
  return r.pick(STRINGS);
}

const encodeValue = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));

/** Percent-encoding, except for what cannot be encoded (a lone surrogate), which goes raw as a careless client sends it. */
function percent(text: string): string {
  try {
    return encodeURIComponent(text);
  } catch {
    return text;
  }
}

/** An object as Rack's nested names (`k[toString]=x`), or as one JSON value, as a client might send either. */
function pairsOf(k: string, v: unknown, r: ReturnType<typeof prng>): (readonly [string, unknown])[] {
  if (Array.isArray(v)) return v.map((item) => [`${k}[]`, item] as const);
  if (v !== null && typeof v === 'object' && r.chance(0.7)) return Object.entries(v).flatMap(([sub, item]) => pairsOf(`${k}[${sub}]`, item, r));
  return [[k, v] as const];
}

/** A query string, sometimes with raw (not percent-encoded) hostile bytes the way a careless client sends them. */
function queryString(params: Record<string, unknown>, r: ReturnType<typeof prng>): string {
  return Object.entries(params)
    .flatMap(([k, v]) => pairsOf(k, v, r))
    .map(([k, v]) => `${k}=${r.chance(0.2) ? encodeValue(v).replace(/[&#\s]/g, '') : percent(encodeValue(v))}`)
    .join('&');
}

interface Outcome {
  status: number;
  text: string;
  sent: string;
  /** The whole answer, kept for a commit's (its sha). */
  body?: string;
}

async function send(method: string, path: string, headers: Record<string, string>, body: string | Buffer | undefined): Promise<Outcome> {
  const res = await fetch(`${t.url}${path}`, { method, headers, body });
  const text = await res.text();
  const kept = path.endsWith('/repository/commits') ? text : undefined;
  return { status: res.status, text: text.slice(0, 300), body: kept, sent: `${method} ${path.slice(0, 200)} ${JSON.stringify(headers).slice(0, 200)}` };
}

async function pool<T>(jobs: (() => Promise<T>)[], width: number): Promise<T[]> {
  const out: T[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < jobs.length) {
        const i = next++;
        out[i] = await jobs[i]();
      }
    }),
  );
  return out;
}

function histogram(outcomes: Outcome[]): Record<number, number> {
  const h: Record<number, number> = {};
  for (const o of outcomes) h[o.status] = (h[o.status] ?? 0) + 1;
  return h;
}

describe(`fuzzing (seed ${SEED})`, () => {
  it('never answers a hostile REST request with a 5xx, over every route', async () => {
    const owner = await createUser(t);
    const group = await createGroup(t, owner.token, { visibility: 'public' });
    const project = await createProject(t, owner.token, { namespaceId: group.id, visibility: 'public' });
    const r = prng(SEED);
    const victim = await createUser(t);
    const userIds = [String(victim.id), '%ff', '%00', '0', '-1', '99999999999', 'a'.repeat(300), '..', '%2e%2e'];
    // Bombs are committed to a project of their own, in a group of their own, which no other request names (none
    // deletes, moves or archives them: a deleted group takes its projects with it), and with an id no other fixture's
    // id equals, since the fuzz sends every fixture id to every route (`DELETE /projects/<owner's id>` deleted it once).
    const bombGroup = await createGroup(t, t.rootToken);
    const fixtureIds = new Set([group.id, project.id, owner.id, victim.id]);
    let bombProject = await createProject(t, t.rootToken, { namespaceId: bombGroup.id });
    while (fixtureIds.has(bombProject.id)) bombProject = await createProject(t, t.rootToken, { namespaceId: bombGroup.id });
    const seeded = await t.api('POST', `/projects/${bombProject.id}/repository/commits`, {
      body: { branch: 'main', commit_message: 'CI', actions: [{ action: 'create', file_path: '.gitlab-ci.yml', content: 'job:\n  script: x\n' }] },
    });
    expect(seeded.status).toBe(201);
    const tokens = [owner.token, owner.token, t.rootToken, t.rootToken, owner.token, 'glpat-not-a-token', '', 'a'.repeat(3000)];
    const ids = [String(group.id), String(project.id), encodeURIComponent(project.path_with_namespace), String(owner.id), '%ff', '%00', '0', '-1', '99999999999', 'a'.repeat(300), '..', '%2e%2e', 'gid%3A%2F%2Fgitlab%2FProject%2F1'];
    const jobs = Array.from({ length: REST_REQUESTS }, () => {
      const route = r.pick(routes);
      const params: Record<string, unknown> = {};
      for (const v of route.compiled.variables) if (v.name !== 'id' && r.chance(0.6)) params[snakeCase(v.name)] = hostile(v.type, r);
      // YAML bombs (test/ci/bombs.ts) where YAML is read: CI Lint's content, and commits below.
      if (route.compiled.variables.some((v) => v.name === 'content') && r.chance(0.3)) params.content = r.pick(Object.values(BOMBS));
      if (route.paginate && r.chance(0.3)) Object.assign(params, { page: r.pick(['0', '-3', 'x', '99999999999', { toString: 'x' }]), per_page: r.pick(['0', '101', '-1', 'many', { valueOf: 1 }]) });
      if (r.chance(0.05)) params.sudo = r.pick([...HOSTILE_OBJECTS, 'root', '99999999', '']);
      // Whatever the fuzzer does to users (block, ban, delete, demote), it does not do to root, whose token the rest needs.
      // Nor to the owner, whose token the rest needs too: user routes act on a user of their own.
      const id = r.pick(route.path.startsWith('/users/:id') ? userIds : ids);
      const path = `/api/v4${route.path.replace(':id', id)}`;
      const headers: Record<string, string> = {};
      const token = r.pick(tokens);
      if (token && r.chance(0.8)) headers['PRIVATE-TOKEN'] = token;
      let body: string | Buffer | undefined;
      let target = path;
      if (route.method === 'GET' || route.method === 'DELETE' || r.chance(0.2)) {
        target = `${path}?${queryString(params, r)}`;
      } else if (r.chance(0.3)) {
        headers['Content-Type'] = r.pick(['application/x-www-form-urlencoded', 'application/x-www-form-urlencoded; charset=latin1']);
        body = queryString(params, r);
      } else {
        headers['Content-Type'] = r.pick(['application/json', 'application/json; charset=utf-8', 'application/json; charset=foo', 'application/vnd.api+json', 'text/plain', 'multipart/form-data; boundary=x']);
        const json = r.chance(0.1) ? '{"broken": ' : JSON.stringify(params);
        body = r.chance(0.1) ? Buffer.from([0xff, 0xfe, ...Buffer.from(json)]) : json;
        if (r.chance(0.15)) {
          const encoding = r.pick(['gzip', 'deflate', 'zstd', 'identity', 'gzip, gzip']);
          headers['Content-Encoding'] = encoding;
          if (encoding === 'gzip') body = gzipSync(body);
        }
      }
      // Revoking a token must not cost the fuzzer its own: such a request runs with, and on, a fresh one.
      const revokes = route.method === 'DELETE' && route.path.startsWith('/personal_access_tokens');
      return async () => {
        if (revokes && headers['PRIVATE-TOKEN']) {
          const fresh = await t.api('POST', `/users/${owner.id}/personal_access_tokens`, { body: { name: 'fuzz', scopes: ['api'] } });
          headers['PRIVATE-TOKEN'] = fresh.body.token;
          if (route.path.endsWith(':id')) target = target.replace(/\/personal_access_tokens\/[^/?]*/, `/personal_access_tokens/${fresh.body.id}`);
        }
        return send(route.method, target, headers, body);
      };
    });
    // Every YAML bomb committed as `.gitlab-ci.yml` (well-formed otherwise, so that it lands and its push plans a
    // pipeline), twice each, among the hostile requests at places of the seed's choosing; root's token, as the fuzz may
    // block the owner or revoke their token meanwhile.
    Object.values(BOMBS).flatMap((bomb) => [bomb, bomb]).forEach((content, i) => {
      const body = JSON.stringify({ branch: `bombs-${i}`, start_branch: 'main', commit_message: 'bomb', actions: [{ action: 'update', file_path: '.gitlab-ci.yml', content }] });
      const headers = { 'PRIVATE-TOKEN': t.rootToken, 'Content-Type': 'application/json' };
      jobs.splice(Math.floor(r.next() * (jobs.length + 1)), 0, () => send('POST', `/api/v4/projects/${bombProject.id}/repository/commits`, headers, body));
    });
    const outcomes = await pool(jobs, CONCURRENCY);
    console.log(`fuzz REST: ${outcomes.length} requests, statuses ${JSON.stringify(histogram(outcomes))}`);
    const failures = outcomes.filter((o) => o.status >= 500).map((o) => `${o.status} ${o.sent} -> ${o.text}`);
    expect(failures).toEqual([]);
    const version = await t.api('GET', '/version');
    expect(version.status).toBe(200);
    // Every bomb that landed as a commit planned a pipeline that failed, saying why.
    const landed = outcomes.filter((o) => o.status === 201 && o.sent.startsWith(`POST /api/v4/projects/${bombProject.id}/repository/commits `)).map((o) => JSON.parse(o.body ?? '{}').id as string);
    const refused = outcomes.filter((o) => o.status !== 201 && o.sent.startsWith(`POST /api/v4/projects/${bombProject.id}/repository/commits `)).map((o) => `${o.status} ${o.body}`);
    expect(landed.length, refused.join('\n')).toBe(Object.keys(BOMBS).length * 2);
    for (const sha of landed) {
      const pipeline = await eventually(async () => ((await t.api('GET', `/projects/${bombProject.id}/pipelines?sha=${sha}`)).body as { id: number }[])[0]);
      const shown = await t.api('GET', `/projects/${bombProject.id}/pipelines/${pipeline.id}`);
      expect(shown.body).toMatchObject({ status: 'failed', yaml_errors: 'The parsed YAML is too big' });
    }
  }, 120_000);

  it('answers every hostile body at once with a 4xx or a success: many parts, oversize declarations, compression bombs', async () => {
    const r = prng(SEED + 2);
    const bomb = gzipSync(Buffer.alloc(BODY_LIMIT * 40, 0x20), { level: 9 });
    const paths = ['/api/graphql', ...routes.filter((route) => route.method !== 'GET').map((route) => `/api/v4${route.path.replace(':id', '1')}`)];
    const jobs = Array.from({ length: BODY_REQUESTS }, () => {
      const path = r.pick(paths);
      const token = r.chance(0.5) ? `PRIVATE-TOKEN: ${t.rootToken}\r\n` : '';
      const shape = r.pick(['parts', 'parts', 'declared', 'bomb']);
      let head: string;
      let body: Buffer;
      if (shape === 'parts') {
        body = multipart(r.pick([0, 1, 99, 100, 101, 250]), r.pick([0, 999, 1001]), r.pick([0, 0, 20_000, 100_000]));
        head = `POST ${path} HTTP/1.1\r\nHost: x\r\n${token}Content-Type: multipart/form-data; boundary=b\r\nContent-Length: ${body.length}\r\n\r\n`;
      } else if (shape === 'declared') {
        // Declared beyond the limit, of any body type; only its first bytes are ever sent.
        const type = r.pick(['application/json', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=b', 'text/plain']);
        body = Buffer.from(r.pick(['{"name":', 'name=', '--b\r\n', '']));
        head = `POST ${path} HTTP/1.1\r\nHost: x\r\n${token}Content-Type: ${type}\r\nContent-Length: ${r.pick([BODY_LIMIT + 1, 30 * BODY_LIMIT, 2 ** 40])}\r\n\r\n`;
      } else {
        body = bomb;
        const type = r.pick(['application/json', 'application/x-www-form-urlencoded']);
        head = `POST ${path} HTTP/1.1\r\nHost: x\r\n${token}Content-Type: ${type}\r\nContent-Encoding: ${r.pick(['gzip', 'gzip', 'deflate'])}\r\nContent-Length: ${body.length}\r\n\r\n`;
      }
      return async () => {
        const answer = await rawExchange(t.server.port, head, body, 10_000);
        return { status: answer.status ?? 0, text: answer.text.slice(0, 300), sent: `${shape} ${head.slice(0, 200)}` };
      };
    });
    const outcomes = await pool(jobs, CONCURRENCY);
    console.log(`fuzz bodies: ${outcomes.length} requests, statuses ${JSON.stringify(histogram(outcomes))}`);
    // 0: no answer within 10 s.
    const failures = outcomes.filter((o) => o.status === 0 || o.status >= 500).map((o) => `${o.status} ${o.sent} -> ${o.text}`);
    expect(failures).toEqual([]);
    expect((await t.api('GET', '/version')).status).toBe(200);
  }, 120_000);

  it('never answers a hostile GraphQL operation with INTERNAL_SERVER_ERROR, over every root field', async () => {
    const r = prng(SEED + 1);
    const owner = await createUser(t);
    const roots = [schema.getQueryType(), schema.getMutationType()].flatMap((type) => Object.values(type?.getFields() ?? {}).map((f) => ({ kind: type === schema.getMutationType() ? 'mutation' : 'query', field: f })));
    const jobs = Array.from({ length: GRAPHQL_REQUESTS }, () => {
      const { kind, field } = r.pick(roots);
      const args = field.args.filter((a) => isNonNullType(a.type) || r.chance(0.5));
      const variables: Record<string, unknown> = {};
      const declared: string[] = [];
      const passed: string[] = [];
      for (const arg of args) {
        if (r.chance(0.5)) {
          // As a variable of the argument's type: the server coerces it.
          declared.push(`$${arg.name}: ${String(arg.type)}`);
          passed.push(`${arg.name}: $${arg.name}`);
          const value = hostile(arg.type, r);
          variables[arg.name] = typeof value === 'string' && r.chance(0.5) ? value : value;
        } else {
          // As a literal in the document: a string with hostile content, escaped the GraphQL way.
          passed.push(`${arg.name}: ${JSON.stringify(encodeValue(hostile(arg.type, r)))}`);
        }
      }
      const named = getNamedType(field.type);
      const selection = 'getFields' in named ? ` { __typename }` : '';
      const query = `${kind} Fuzz${declared.length ? `(${declared.join(', ')})` : ''} { ${field.name}${passed.length ? `(${passed.join(', ')})` : ''}${selection} }`;
      let token = r.pick([owner.token, t.rootToken, t.rootToken, null, 'glpat-wrong']);
      const revokes = kind === 'mutation' && /Revoke/.test(field.name);
      return async () => {
        // Revoking a token must not cost the fuzzer its own.
        if (revokes && token) token = (await t.api('POST', `/users/${owner.id}/personal_access_tokens`, { body: { name: 'fuzz', scopes: ['api'] } })).body.token;
        const res = await t.graphql(query, variables, token);
        return { status: res.status, text: res.text.slice(0, 300), sent: `${query.slice(0, 200)} ${JSON.stringify(variables).slice(0, 200)}` };
      };
    });
    const outcomes = await pool(jobs, CONCURRENCY);
    console.log(`fuzz GraphQL: ${outcomes.length} operations, statuses ${JSON.stringify(histogram(outcomes))}`);
    const failures = outcomes.filter((o) => o.status >= 500 || o.text.includes('INTERNAL_SERVER_ERROR')).map((o) => `${o.status} ${o.sent} -> ${o.text}`);
    expect(failures).toEqual([]);
    expect((await t.graphql('{ metadata { version } }')).status).toBe(200);
  }, 120_000);
});
