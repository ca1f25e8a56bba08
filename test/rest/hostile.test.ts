import { randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { request } from 'node:http';
import { connect } from 'node:net';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { suiteServer } from '../support/server.js';
import { createGroup, createUser } from '../support/factories.js';
import { eventually } from '../support/wait.js';
import { bodyOf, multipart, rawExchange as exchangeWith, type RawAnswer } from './raw-http.js';

// Hostile input anyone can send, with no token, that once crashed (500), hung, or leaked: objects whose `toString`
// is not a function where a scalar is expected, lists with null items, multipart bodies with too many parts, bodies
// declared larger than the limit, requests that never finish, HEAD requests the parser refuses, bodies cut off.
const BODY_LIMIT = 256 * 1024;
const HEADERS_TIMEOUT_MS = 1000;
const REQUEST_TIMEOUT_MS = 1500;
const t = suiteServer({ bodyLimit: BODY_LIMIT, headersTimeoutMs: HEADERS_TIMEOUT_MS, requestTimeoutMs: REQUEST_TIMEOUT_MS, rateLimitPerMinute: 0 });

async function get(path: string, token: string | null = t.rootToken) {
  const res = await fetch(`${t.url}/api/v4${path}`, { headers: token ? { 'PRIVATE-TOKEN': token } : {} });
  return { status: res.status, body: (await res.json()) as unknown };
}

/** A GET with a JSON body (fetch sends none), as curl -d with -X GET does. */
function getWithBody(path: string, body: unknown): Promise<{ status: number; body: unknown }> {
  const payload = JSON.stringify(body);
  const headers = { 'PRIVATE-TOKEN': t.rootToken, 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(payload)) };
  return new Promise((resolve, reject) => {
    const req = request(`${t.url}/api/v4${path}`, { method: 'GET', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString()) }));
    });
    req.on('error', reject);
    req.end(payload);
  });
}

describe('parameters that are objects or hold nulls where scalars are expected', () => {
  it('answers 400 "<param> is invalid" to an object with a toString key in the query, for scalars, enums and pages', async () => {
    for (const token of [t.rootToken, null]) {
      expect(await get('/projects?archived[toString]=x', token)).toEqual({ status: 400, body: { error: 'archived is invalid' } });
      expect(await get('/projects?visibility[toString]=x', token)).toEqual({ status: 400, body: { error: 'visibility is invalid' } });
      expect(await get('/projects?per_page[toString]=x', token)).toEqual({ status: 400, body: { error: 'per_page is invalid' } });
      expect(await get('/projects?page[valueOf]=1', token)).toEqual({ status: 400, body: { error: 'page is invalid' } });
    }
  });

  it('answers 400 to an object with toString and valueOf in a JSON body', async () => {
    const owner = await createUser(t);
    const group = await createGroup(t, owner.token);
    const res = await t.api('PUT', `/groups/${group.id}`, { token: owner.token, body: { auto_devops_enabled: { toString: 'x', valueOf: 1 } } });
    expect(res).toMatchObject({ status: 400, body: { error: 'auto_devops_enabled is invalid' } });
    const form = await t.api('PUT', `/groups/${group.id}`, { token: owner.token, body: 'description[toString]=x', headers: { 'Content-Type': 'application/x-www-form-urlencoded' } });
    expect(form).toMatchObject({ status: 400, body: { error: 'description is invalid' } });
  });

  it('answers 400 "sudo is invalid" to a sudo parameter that is an object, whoever asks', async () => {
    for (const token of [t.rootToken, null]) expect(await get('/version?sudo[toString]=x', token)).toEqual({ status: 400, body: { error: 'sudo is invalid' } });
    const json = await getWithBody('/version', { sudo: { toString: 'x' } });
    expect(json).toEqual({ status: 400, body: { error: 'sudo is invalid' } });
    // A list of names is still one identifier, as before.
    expect((await get('/version?sudo[]=root')).status).toBe(200);
  });

  it('keeps pagination links when the query holds a nested parameter with a toString key', async () => {
    const res = await fetch(`${t.url}/api/v4/projects?per_page=1&foo[][toString]=x&foo[]=y`, { headers: { 'PRIVATE-TOKEN': t.rootToken } });
    expect(res.status).toBe(200);
    expect(res.headers.get('link')).toContain('foo%5B%5D=y');
  });

  it('answers 400 "<param> is invalid" to a list with null items', async () => {
    const user = await createUser(t);
    const token = await t.api('POST', `/users/${user.id}/impersonation_tokens`, { body: { name: 'x', scopes: [null] } });
    expect(token).toMatchObject({ status: 400, body: { error: 'scopes is invalid' } });
    const groups = await getWithBody('/groups', { skip_groups: [null] });
    expect(groups).toEqual({ status: 400, body: { error: 'skip_groups is invalid' } });
    // Nulls are refused, not the lists: the same lists without them pass.
    expect((await t.api('POST', `/users/${user.id}/impersonation_tokens`, { body: { name: 'x', scopes: ['api'] } })).status).toBe(201);
    expect((await getWithBody('/groups', { skip_groups: [1] })).status).toBe(200);
  });
});

const rawExchange = (head: string, body?: Buffer | string, waitMs?: number) => exchangeWith(t.server.port, head, body, waitMs);

function post(path: string, type: string, body: Buffer, extra = ''): Promise<RawAnswer> {
  return rawExchange(`POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: ${type}\r\nContent-Length: ${body.length}\r\n${extra}\r\n`, body);
}

const openFiles = () => readdirSync('/proc/self/fd').length;

describe('multipart bodies beyond the bounds on parts, fields and headers', () => {
  it('answers each at once, and leaves no file descriptor open and no temporary file behind', async () => {
    const tmp = t.server.app.uploads.tmp;
    // Warm: the first requests open what stays open (database connections, compiled routes).
    expect((await post('/api/v4/users', 'multipart/form-data; boundary=b', multipart(2, 0))).status).toBe(400);
    await eventually(async () => (await readdir(tmp)).length === 0);
    const before = openFiles();
    const cases: [string, Buffer, number][] = [
      ['101 file parts', multipart(101, 0), 413],
      ['300 file parts', multipart(300, 0), 413],
      ['one file, then 1,001 fields', multipart(1, 1001), 413],
      ['one file, then a part header of 100 KB', multipart(1, 0, 100 * 1024), 400],
      ['100 file parts (within the bound: the route answers)', multipart(100, 0), 400],
    ];
    for (const [name, body, status] of cases) {
      const answers = await Promise.all(Array.from({ length: 3 }, () => post('/api/v4/users', 'multipart/form-data; boundary=b', body)));
      for (const answer of answers) {
        expect(answer.status, name).toBe(status);
        expect(answer.ms, name).toBeLessThan(3000);
      }
    }
    await eventually(async () => (await readdir(tmp)).length === 0);
    await eventually(() => openFiles() <= before);
  });
});

describe('bodies declared larger than BODY_LIMIT, and requests that never finish', () => {
  const declared = (path: string, type: string, extra = '') => `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: ${type}\r\nContent-Length: ${BODY_LIMIT + 1}\r\n${extra}\r\n`;

  it('answers 413 at once, before the body arrives, for JSON, form and GraphQL bodies', async () => {
    const answers = await Promise.all([
      rawExchange(declared('/api/v4/projects', 'application/json'), '{"name":'),
      rawExchange(declared('/api/v4/projects', 'application/x-www-form-urlencoded'), 'name='),
      rawExchange(declared('/api/graphql', 'application/json'), '{"query":'),
      rawExchange(declared('/api/v4/users', 'multipart/form-data; boundary=b'), '--b\r\n'),
    ]);
    for (const answer of answers) {
      expect(answer.status, answer.text).toBe(413);
      expect(JSON.parse(bodyOf(answer))).toEqual({ message: '413 Request Entity Too Large' });
      expect(answer.ms).toBeLessThan(HEADERS_TIMEOUT_MS);
      expect(answer.text).toMatch(/\r\nConnection: close\r\n/i);
    }
  });

  it('answers 413 to a body sent without a length (chunked) once it passes the limit, though it never ends', async () => {
    const chunk = (data: Buffer) => Buffer.concat([Buffer.from(`${data.length.toString(16)}\r\n`), data, Buffer.from('\r\n')]);
    const json = chunk(Buffer.from(`{"name":"${'x'.repeat(BODY_LIMIT + 1024)}`));
    const plain = await rawExchange('POST /api/v4/projects HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n', json);
    // Compressed: what arrives passes the limit (random bytes do not shrink), whatever it would inflate to.
    const noise = chunk(gzipSync(randomBytes(BODY_LIMIT + 1024)));
    const gzip = await rawExchange('POST /api/graphql HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n\r\n', noise);
    for (const answer of [plain, gzip]) {
      expect(answer.status, answer.text).toBe(413);
      expect(answer.ms).toBeLessThan(REQUEST_TIMEOUT_MS);
    }
  });

  it('refuses a compressed body by its bytes: declared beyond the limit at once, a bomb once its inflation passes the limit', async () => {
    // 30 MB of JSON compressed: declared, and refused before it is read.
    const big = gzipSync(JSON.stringify({ name: 'x'.repeat(30 * 1024 * 1024) }));
    const declaredBig = await rawExchange(`POST /api/v4/projects HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\nContent-Length: ${big.length + BODY_LIMIT}\r\n\r\n`, big.subarray(0, 1024));
    expect(declaredBig.status).toBe(413);
    expect(declaredBig.ms).toBeLessThan(HEADERS_TIMEOUT_MS);
    // A bomb within the declared limit: 100 MB of spaces in about 100 KB, refused by what it inflates to.
    const bomb = gzipSync(Buffer.alloc(100 * 1024 * 1024, 0x20), { level: 9 });
    expect(bomb.length).toBeLessThan(BODY_LIMIT);
    const answer = await post('/api/v4/projects', 'application/json', bomb, 'Content-Encoding: gzip\r\n');
    expect(answer.status).toBe(413);
    expect(answer.ms).toBeLessThan(2000);
  });

  it('answers 408 to headers or a body that stop coming, within the configured timeouts', async () => {
    const headers = await rawExchange('GET /api/v4/version HTTP/1.1\r\nHost: x\r\n', '', 10_000);
    expect(headers.status).toBe(408);
    expect(JSON.parse(bodyOf(headers))).toEqual({ message: '408 Request Timeout' });
    expect(headers.ms).toBeLessThan(HEADERS_TIMEOUT_MS * 2);
    const body = await rawExchange('POST /api/v4/projects HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n', '{"name":', 10_000);
    expect(body.status).toBe(408);
    expect(body.ms).toBeLessThan(REQUEST_TIMEOUT_MS * 2);
  });
});

describe('answers of the HTTP parser, and bodies cut off', () => {
  it('sends no body with the 400 or 414 a HEAD request gets from the parser', async () => {
    const long = await rawExchange(`HEAD /api/v4/projects?search=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
    expect(long.status).toBe(414);
    expect(long.text.endsWith('\r\n\r\n')).toBe(true);
    const broken = await rawExchange('HEAD /api/v4/version HTTP/1.1\r\nHost: x\r\nnot a header\r\n\r\n');
    expect(broken.status).toBe(400);
    expect(broken.text.endsWith('\r\n\r\n')).toBe(true);
    // GET keeps its body.
    const get = await rawExchange('GET /api/v4/version HTTP/1.1\r\nHost: x\r\nnot a header\r\n\r\n');
    expect(JSON.parse(bodyOf(get))).toEqual({ message: '400 Bad Request' });
  });

  it('does not log a runner cut off in the middle of a trace patch as an unhandled error', async () => {
    const logger = t.server.app.logger;
    const { error, debug } = logger;
    const errors: unknown[] = [];
    const cutOff: unknown[] = [];
    logger.error = (fields, msg) => {
      errors.push({ fields, msg });
      error(fields, msg);
    };
    logger.debug = (fields, msg) => {
      if (msg === 'client closed the request') cutOff.push(fields);
      debug(fields, msg);
    };
    try {
      const socket = connect(t.server.port, '127.0.0.1');
      await new Promise((resolve) => socket.once('connect', resolve));
      socket.write('PATCH /api/v4/jobs/1/trace HTTP/1.1\r\nHost: x\r\nJOB-TOKEN: x\r\nContent-Range: 0-999\r\nContent-Length: 1000\r\n\r\nfirst line\n');
      // Once another request has been answered, the server has read the patch's headers and waits for its body.
      expect((await t.api('GET', '/version')).status).toBe(200);
      socket.destroy();
      await eventually(() => cutOff.length > 0 || errors.length > 0);
      expect(errors).toEqual([]);
    } finally {
      logger.error = error;
      logger.debug = debug;
    }
  });
});
