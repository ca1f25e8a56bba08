import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { suiteServer } from '../support/server.js';
import { unique } from '../support/factories.js';

// Input is checked at the edge, once, for both surfaces: each of these once answered 500.
const t = suiteServer({ bodyLimit: 64 * 1024 });

async function raw(path: string, init: RequestInit & { headers?: Record<string, string> } = {}) {
  const res = await fetch(`${t.url}${path}`, { ...init, headers: { 'PRIVATE-TOKEN': t.rootToken, ...init.headers } });
  return { status: res.status, type: res.headers.get('content-type') ?? '', text: await res.text() };
}
const json = (body: unknown, headers: Record<string, string> = {}) => ({ method: 'POST', body: JSON.stringify(body), headers: { 'Content-Type': 'application/json', ...headers } });

describe('hostile input at the edge', () => {
  it('answers malformed percent-encoding in the path with GitLab’s plain-text 400', async () => {
    const res = await raw('/api/v4/projects/%ff');
    expect(res).toMatchObject({ status: 400, text: 'Bad Request' });
    expect(res.type).toMatch(/^text\/plain/);
  });

  it('refuses NUL bytes in the query string, a JSON body, a form body and GraphQL variables', async () => {
    expect((await raw('/api/v4/users?search=%00')).status).toBe(400);
    expect((await raw('/api/v4/groups', json({ name: 'a\u0000b', path: unique('g') }))).status).toBe(400);
    expect((await raw('/api/v4/groups', { method: 'POST', body: 'name=a%00b&path=x', headers: { 'Content-Type': 'application/x-www-form-urlencoded' } })).status).toBe(400);
    expect((await raw('/api/graphql', json({ query: 'query($s: String) { projects(search: $s) { count } }', variables: { s: '\u0000' } }))).status).toBe(400);
  });

  it('refuses bodies that are not UTF-8, and form bodies whose escapes do not decode', async () => {
    const notUtf8 = Buffer.concat([Buffer.from('{"name":"'), Buffer.from([0xff, 0xfe]), Buffer.from('","path":"x"}')]);
    expect((await raw('/api/v4/groups', { method: 'POST', body: notUtf8, headers: { 'Content-Type': 'application/json' } })).status).toBe(400);
    expect((await raw('/api/v4/groups', { method: 'POST', body: 'name=%ff&path=x', headers: { 'Content-Type': 'application/x-www-form-urlencoded' } })).status).toBe(400);
  });

  it('nests parameter names as GitLab (Rack) does, the same in query strings and form bodies', async () => {
    const project = await t.api('POST', '/projects', { body: { name: unique('nest') } });
    const commit = await t.api('POST', `/projects/${project.body.id}/repository/commits`, {
      body: { branch: 'main', commit_message: 'ci', actions: [{ action: 'create', file_path: '.gitlab-ci.yml', content: 'job:\n  script: echo\n' }] },
    });
    expect(commit.status).toBe(201);
    // `variables[][key]` repeated starts a new variable (qs put both keys into one object: "variables[0][key] is invalid").
    const form = 'ref=main&variables[][key]=A&variables[][value]=1&variables[][key]=B&variables[][value]=2&variables[][variable_type]=file';
    const created = await raw(`/api/v4/projects/${project.body.id}/pipeline`, { method: 'POST', body: form, headers: { 'Content-Type': 'application/x-www-form-urlencoded' } });
    expect(created.status, created.text).toBe(201);
    const variables = await t.api('GET', `/projects/${project.body.id}/pipelines/${JSON.parse(created.text).id}/variables`);
    expect(variables.body).toEqual([
      { key: 'A', value: '1', variable_type: 'env_var', raw: false },
      { key: 'B', value: '2', variable_type: 'file', raw: false },
    ].map(({ raw: _raw, ...v }) => expect.objectContaining(v)));
    // The same shape from a query string; `a[0]` keys (an object, as Rack reads them) make a list too.
    const queried = await raw(`/api/v4/projects/${project.body.id}/pipeline?${form}`, { method: 'POST' });
    expect(queried.status, queried.text).toBe(201);
    const indexed = await raw(`/api/v4/projects/${project.body.id}/pipeline?ref=main&variables[0][key]=C&variables[0][value]=3`, { method: 'POST' });
    expect(indexed.status, indexed.text).toBe(201);
    // A name nesting deeper than 32 levels is refused as malformed, not walked; prototype keys are dropped.
    expect((await raw(`/api/v4/projects?search${'[a]'.repeat(40)}=x`)).status).toBe(400);
    expect((await raw(`/api/v4/projects?__proto__[admin]=1&constructor[prototype][x]=1&toString=1`)).status).toBe(200);
  });

  it('answers unsupported charsets and content encodings with 415, on REST and GraphQL', async () => {
    for (const path of ['/api/v4/groups', '/api/graphql']) {
      const charset = await raw(path, json({ name: 'x', path: 'x', query: '{ metadata { version } }' }, { 'Content-Type': 'application/json; charset=foo' }));
      expect(charset).toMatchObject({ status: 415, text: '{"message":"415 Unsupported Media Type"}' });
    }
    expect((await raw('/api/v4/groups', json({ name: 'x', path: 'x' }, { 'Content-Encoding': 'zstd' }))).status).toBe(415);
  });

  it('decodes a gzip body, and cuts a gzip bomb at the body limit', async () => {
    const path = unique('gz');
    const ok = await raw('/api/v4/groups', { method: 'POST', body: gzipSync(JSON.stringify({ name: path, path })), headers: { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' } });
    expect(ok.status).toBe(201);
    const bomb = gzipSync(JSON.stringify({ name: 'x', path: 'x', pad: 'a'.repeat(10 * 1024 * 1024) }));
    expect(bomb.length).toBeLessThan(64 * 1024);
    const cut = await raw('/api/v4/groups', { method: 'POST', body: bomb, headers: { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' } });
    expect(cut).toMatchObject({ status: 413, text: '{"message":"413 Request Entity Too Large"}' });
  });

  it('refuses a NUL byte in a GraphQL string literal as a client error', async () => {
    const res = await t.graphql('{ projects(search: "\\u0000") { count } }');
    expect(res.body.errors?.[0]).toMatchObject({ message: 'A string may not contain a null byte.', extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } });
  });

  it('answers a subscription sent over HTTP with a client error', async () => {
    const res = await t.graphql('subscription { heartbeat }');
    expect(res.status).toBe(400);
    expect(res.body.errors?.[0].extensions?.code).toBe('BAD_REQUEST');
  });
});
