/**
 * The collector over raw HTTP: store and envelope bodies at both path forms, the key in the query or X-Sentry-Auth,
 * gzip and deflate (zlib and raw) bodies with the decompressed size bounded, GitLab's refusals for bad keys, content
 * types and payloads (never a 5xx), grouping by name, actor and platform with users affected, sessions, the
 * client-key REST entity and who may manage keys, the GraphQL reads and status updates, and the 90-day retention job.
 */
import { deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { Gitlab } from '@gitbeaker/rest';
import { beforeAll, describe, expect, it } from 'vitest';
import { EXTERNAL_URL, suiteServer } from '../support/server.js';
import { addMember, createProject, createUser, type TestUser } from '../support/factories.js';
import { RETENTION_JOB } from '../../src/modules/error_tracking/jobs.js';

const t = suiteServer();

let maintainer: TestUser;
let developer: TestUser;
let reporter: TestUser;
let stranger: TestUser;

beforeAll(async () => {
  [maintainer, developer, reporter, stranger] = await Promise.all([createUser(t), createUser(t), createUser(t), createUser(t)]);
});

/** GitLab's collector takes events only once a project's integrated error tracking is enabled. */
async function enableIntegrated(projectId: number) {
  const res = await t.api('PUT', `/projects/${projectId}/error_tracking/settings`, { token: maintainer.token, body: { active: true, integrated: true } });
  expect(res.status).toBe(200);
}

async function newProject() {
  const project = await createProject(t, maintainer.token);
  await enableIntegrated(project.id);
  const key = (await t.api('POST', `/projects/${project.id}/error_tracking/client_keys`, { token: maintainer.token })).body;
  return { project, key: key as { id: number; public_key: string; sentry_dsn: string } };
}

interface Post {
  body: Buffer | string;
  headers?: Record<string, string>;
  query?: string;
}

async function collect(projectId: number | string, kind: 'store' | 'envelope', post: Post, path = `/api/v4/error_tracking/collector/api/${projectId}/${kind}/`) {
  const res = await fetch(`${t.url}${path}${post.query ?? ''}`, { method: 'POST', headers: post.headers, body: post.body });
  const text = await res.text();
  return { status: res.status, text, body: text ? JSON.parse(text) : null };
}

const auth = (key: string) => ({ 'X-Sentry-Auth': `Sentry sentry_version=7, sentry_client=raw/1.0, sentry_key=${key}` });

const exceptionEvent = (overrides: Record<string, unknown> = {}) => ({
  event_id: 'fc6d8c0c43fc4630ad850ee518f1b9d0',
  platform: 'python',
  level: 'error',
  environment: 'production',
  timestamp: '2026-11-28T06:00:00.000Z',
  exception: {
    values: [
      { type: 'ValueError', value: 'bad value 17', stacktrace: { frames: [{ function: 'main', module: 'app' }, { function: 'parse', module: 'app.parser', lineno: 12, context_line: 'raise ValueError', pre_context: ['def parse():'], post_context: [] }] } },
    ],
  },
  ...overrides,
});

const envelope = (...items: [Record<string, unknown>, unknown][]) =>
  [JSON.stringify({ event_id: 'fc6d8c0c43fc4630ad850ee518f1b9d0', sent_at: new Date().toISOString() }), ...items.flatMap(([h, p]) => [JSON.stringify(h), typeof p === 'string' ? p : JSON.stringify(p)])].join('\n');

const ERRORS = `query($path: ID!, $status: SentryErrorStatus) { project(fullPath: $path) { sentryErrors { externalUrl errors(status: $status, sort: "last_seen") { count nodes {
  id sentryId title type message culprit count userCount status firstSeen lastSeen shortId sentryProjectName sentryProjectSlug externalUrl frequency { count } } } } } }`;

async function errorsOf(project: { path_with_namespace: string }, token = maintainer.token, status?: string) {
  const res = await t.graphql(ERRORS, { path: project.path_with_namespace, status }, token);
  expect(res.body.errors).toBeUndefined();
  return res.body.data.project.sentryErrors?.errors ?? null;
}

describe('client keys (REST)', () => {
  it('creates, lists and deletes keys with GitLab entity, and DSN pointing at this server', async () => {
    const project = await createProject(t, maintainer.token);
    const api = new Gitlab({ host: t.url, token: maintainer.token });
    const created = await api.ErrorTrackingClientKeys.create(project.id);
    expect(Object.keys(created).sort()).toEqual(['active', 'id', 'public_key', 'sentry_dsn']);
    expect(created.public_key).toMatch(/^glet_[0-9a-f]{32}$/);
    expect(created.active).toBe(true);
    expect(created.sentry_dsn).toBe(`${EXTERNAL_URL.replace('//', `//${created.public_key}@`)}/api/v4/error_tracking/collector/${project.id}`);
    const second = await api.ErrorTrackingClientKeys.create(project.id);
    const listed = await api.ErrorTrackingClientKeys.all(project.id);
    expect(listed.map((k) => k.id)).toEqual([created.id, second.id]);

    const raw = await t.api('GET', `/projects/${project.id}/error_tracking/client_keys?per_page=1`, { token: maintainer.token });
    expect(raw.status).toBe(200);
    expect(raw.headers.get('x-total')).toBe('2');
    expect(raw.body).toHaveLength(1);

    const deleted = await t.api('DELETE', `/projects/${project.id}/error_tracking/client_keys/${created.id}`, { token: maintainer.token });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual(created);
    const again = await t.api('DELETE', `/projects/${project.id}/error_tracking/client_keys/${created.id}`, { token: maintainer.token });
    expect([again.status, again.body]).toEqual([404, { message: '404 Not found' }]);
    expect((await api.ErrorTrackingClientKeys.all(project.id)).map((k) => k.id)).toEqual([second.id]);
  });

  it('needs Maintainer, the api scope for writes, and hides private projects', async () => {
    const project = await createProject(t, maintainer.token);
    await addMember(t, maintainer.token, 'projects', project.id, developer.id, 30);
    const path = `/projects/${project.id}/error_tracking/client_keys`;
    expect((await t.api('GET', path, { token: developer.token })).status).toBe(403);
    expect((await t.api('POST', path, { token: developer.token })).status).toBe(403);
    expect((await t.api('GET', path, { token: stranger.token })).body).toEqual({ message: '404 Project Not Found' });
    expect((await t.api('GET', path, { token: null })).status).toBe(404);
    const readOnly = await createUser(t, { scopes: ['read_api'] });
    const owned = await createProject(t, readOnly.token).catch(() => null);
    expect(owned).toBeNull();
    const key = (await t.api('POST', path, { token: maintainer.token })).body;
    expect((await t.api('DELETE', `${path}/${key.id}`, { token: developer.token })).status).toBe(403);
    const other = await newProject();
    expect((await t.api('DELETE', `${path}/${other.key.id}`, { token: maintainer.token })).status).toBe(404);
    expect((await t.api('DELETE', `${path}/nope`, { token: maintainer.token })).status).toBe(400);
  });
});

describe('collector', () => {
  it('stores a store event and envelope events, grouped by name, actor and platform, with users affected', async () => {
    const { project, key } = await newProject();
    const first = await collect(project.id, 'store', { body: JSON.stringify(exceptionEvent({ user: { id: 7 } })), headers: { 'Content-Type': 'application/json', ...auth(key.public_key) } });
    expect([first.status, first.body]).toEqual([200, {}]);
    // The same exception with another value, by another user identified by e-mail, through an envelope without a trailing slash.
    const second = await collect(
      project.id,
      'envelope',
      { body: envelope([{ type: 'event' }, exceptionEvent({ exception: { values: [{ type: 'ValueError', value: 'bad value 18', stacktrace: { frames: [{ function: 'parse', module: 'app.parser' }] } }] }, user: { email: 'a@example.com' }, timestamp: 1795845600 })]), headers: { 'Content-Type': 'application/x-sentry-envelope' }, query: `?sentry_key=${key.public_key}` },
      `/api/v4/error_tracking/collector/api/${project.id}/envelope`,
    );
    expect(second.status).toBe(200);
    // The same user again, an anonymous one, and another platform (another error).
    await collect(project.id, 'store', { body: JSON.stringify(exceptionEvent({ user: { id: '7', email: 'x@example.com' } })), headers: auth(key.public_key) });
    await collect(project.id, 'store', { body: JSON.stringify(exceptionEvent()), headers: auth(key.public_key) });
    await collect(project.id, 'store', { body: JSON.stringify(exceptionEvent({ platform: 'ruby', user: { ip_address: '10.1.1.1' } })), headers: auth(key.public_key) });

    const errors = await errorsOf(project);
    expect(errors.count).toBe(2);
    const python = errors.nodes.find((e: { count: number }) => e.count === 4);
    expect(python).toMatchObject({
      // The latest description; the actor is the last frame's function and module.
      title: 'ValueError bad value 17',
      message: 'bad value 17',
      culprit: 'parse(app.parser)',
      userCount: 2,
      status: 'UNRESOLVED',
      type: 'error',
      sentryProjectName: project.name,
      sentryProjectSlug: project.path,
      frequency: [],
    });
    expect(python.id).toBe(`gid://gitlab/Gitlab::ErrorTracking::Error/${python.sentryId}`);
    expect(python.externalUrl).toBe(`${EXTERNAL_URL}/${project.path_with_namespace}/-/error_tracking/${python.sentryId}/details`);
    expect(python.firstSeen).toBe('2026-11-28T06:00:00.000Z');
    expect(python.lastSeen).toBe(new Date(1795845600 * 1000).toISOString());
    expect(errors.nodes.find((e: { count: number }) => e.count === 1)).toMatchObject({ userCount: 1 });
  });

  it('counts concurrent duplicates exactly, into one error, and finds errors by search term', async () => {
    const { project, key } = await newProject();
    const sends = Array.from({ length: 24 }, (_, i) => collect(project.id, 'store', { body: JSON.stringify(exceptionEvent({ user: { id: i % 6 } })), headers: auth(key.public_key) }));
    expect((await Promise.all(sends)).map((r) => r.status)).toEqual(Array(24).fill(200));
    await collect(project.id, 'store', { body: JSON.stringify({ message: 'Quota 100% used' }), headers: auth(key.public_key) });
    const errors = await errorsOf(project);
    expect(errors.nodes.map((e: { count: number; userCount: number }) => [e.count, e.userCount]).sort()).toEqual([[1, 0], [24, 6]]);
    const search = (term: string) =>
      t.graphql(`query($p: ID!, $q: String) { project(fullPath: $p) { sentryErrors { errors(searchTerm: $q) { nodes { title } } } } }`, { p: project.path_with_namespace, q: term }, maintainer.token);
    expect((await search('valueerror')).body.data.project.sentryErrors.errors.nodes).toEqual([{ title: 'ValueError bad value 17' }]);
    // LIKE's wildcards are searched for literally.
    expect((await search('100%')).body.data.project.sentryErrors.errors.nodes).toEqual([{ title: 'Quota 100% used' }]);
    expect((await search('1_0')).body.data.project.sentryErrors.errors.nodes).toEqual([]);
  });

  it('takes messages, skips other item types, keeps sessions, and reads every item of an envelope', async () => {
    const { project, key } = await newProject();
    const body = Buffer.from(
      envelope(
        [{ type: 'client_report' }, { discarded_events: [] }],
        [{ type: 'transaction' }, { type: 'transaction', spans: [] }],
        [{ type: 'attachment', length: 5, filename: 'a.txt' }, 'hello'],
        [{ type: 'event' }, { message: { formatted: 'disk almost full' }, level: 'warning', logger: 'ops', user: { username: 'ops' } }],
        [{ type: 'session' }, { sid: 'a1b2', status: 'exited', errors: 1, started: '2026-11-28T05:00:00Z', timestamp: '2026-11-28T05:10:00Z', attrs: { release: 'r1', environment: 'prod' } }],
      ),
    );
    expect((await collect(project.id, 'envelope', { body, headers: auth(key.public_key) })).status).toBe(200);
    const errors = await errorsOf(project);
    expect(errors.nodes).toEqual([expect.objectContaining({ title: 'disk almost full', culprit: 'ops', count: 1, userCount: 1 })]);
    const sessions = await t.graphql(`query($p: ID!) { project(fullPath: $p) { errorTrackingSessions { nodes { sid status errors release environment startedAt updatedAt } } } }`, { p: project.path_with_namespace }, maintainer.token);
    expect(sessions.body.data.project.errorTrackingSessions.nodes).toEqual([
      { sid: 'a1b2', status: 'exited', errors: 1, release: 'r1', environment: 'prod', startedAt: '2026-11-28T05:00:00.000Z', updatedAt: '2026-11-28T05:10:00.000Z' },
    ]);
  });

  it('accepts gzip and deflate bodies and refuses what decompresses beyond the limit with 413', async () => {
    const { project, key } = await newProject();
    const json = JSON.stringify(exceptionEvent());
    for (const [encoding, body] of [['gzip', gzipSync(json)], ['deflate', deflateSync(json)], ['deflate', deflateRawSync(json)]] as const) {
      const res = await collect(project.id, 'store', { body, headers: { 'Content-Encoding': encoding, 'Content-Type': 'application/json', ...auth(key.public_key) } });
      expect([encoding, res.status]).toEqual([encoding, 200]);
    }
    const env = gzipSync(envelope([{ type: 'event' }, exceptionEvent()]));
    expect((await collect(project.id, 'envelope', { body: env, headers: { 'Content-Encoding': 'gzip', ...auth(key.public_key) } })).status).toBe(200);
    expect((await errorsOf(project)).nodes[0].count).toBe(4);

    // A bomb: a few KB that inflate to 50 MB.
    const bomb = gzipSync(Buffer.alloc(50 * 1024 * 1024, 0x20));
    const refused = await collect(project.id, 'store', { body: bomb, headers: { 'Content-Encoding': 'gzip', ...auth(key.public_key) } });
    expect([refused.status, refused.body]).toEqual([413, { message: '413 Request Entity Too Large' }]);
    const broken = await collect(project.id, 'store', { body: Buffer.from('not gzip at all'), headers: { 'Content-Encoding': 'gzip', ...auth(key.public_key) } });
    expect([broken.status, broken.body]).toEqual([400, { message: '400 Bad request - Failed to parse sentry request' }]);
    expect((await collect(project.id, 'store', { body: json, headers: { 'Content-Encoding': 'compress', ...auth(key.public_key) } })).status).toBe(415);
    expect((await errorsOf(project)).nodes[0].count).toBe(4);
  });

  it('refuses bad keys, missing keys, unknown projects and foreign content types as GitLab does', async () => {
    const { project, key } = await newProject();
    const other = await newProject();
    const body = JSON.stringify(exceptionEvent());
    const cases: [string, Awaited<ReturnType<typeof collect>>, number, unknown][] = [
      ['no key', await collect(project.id, 'store', { body }), 400, { message: '400 Bad request - Failed to parse sentry request' }],
      ['empty query key', await collect(project.id, 'store', { body, query: '?sentry_key=' }), 400, { message: '400 Bad request - Failed to parse sentry request' }],
      ['wrong key', await collect(project.id, 'store', { body, headers: auth('glet_00000000000000000000000000000000') }), 404, { message: '404 Not Found' }],
      ["another project's key", await collect(project.id, 'store', { body, headers: auth(other.key.public_key) }), 404, { message: '404 Not Found' }],
      ['unknown project', await collect(2147483000, 'store', { body, headers: auth(key.public_key) }), 404, { message: '404 Project Not Found' }],
      ['project id beyond int', await collect('99999999999999', 'store', { body, headers: auth(key.public_key) }), 404, { message: '404 Project Not Found' }],
      ['unknown project path', await collect('no%2Fsuch', 'store', { body, headers: auth(key.public_key) }), 404, { message: '404 Project Not Found' }],
      ['gzip content type', await collect(project.id, 'store', { body, headers: { 'Content-Type': 'application/gzip', ...auth(key.public_key) } }), 415, { message: '415 Unsupported Media Type' }],
    ];
    expect(cases.map(([name, res]) => [name, res.status, res.body])).toEqual(cases.map(([name, , status, b]) => [name, status, b]));
    // The project's path works as its id does.
    expect((await collect(encodeURIComponent(project.path_with_namespace), 'store', { body, headers: auth(key.public_key) })).status).toBe(200);
    // A deleted key stops at once.
    await t.api('DELETE', `/projects/${project.id}/error_tracking/client_keys/${key.id}`, { token: maintainer.token });
    expect((await collect(project.id, 'store', { body, headers: auth(key.public_key) })).status).toBe(404);
    expect((await errorsOf(project)).count).toBe(1);
  });

  it('answers malformed input with 400, never a 5xx, and stores nothing of it', async () => {
    const { project, key } = await newProject();
    const h = auth(key.public_key);
    const deep = '['.repeat(100_000) + ']'.repeat(100_000);
    const bodies: [string, 'store' | 'envelope', string | Buffer][] = [
      ['store not JSON', 'store', '{"exception":'],
      ['store scalar', 'store', '"****"'],
      ['store array', 'store', '[1,2]'],
      ['store without exception or message', 'store', '{"platform":"python"}'],
      ['store exception without values', 'store', '{"exception":{"values":"x"}}'],
      ['store deep nesting', 'store', deep],
      ['store deeply nested extra', 'store', `{"message":"deep","extra":${'{"a":'.repeat(50_000)}1${'}'.repeat(50_000)}}`],
      ['store empty', 'store', ''],
      ['envelope empty', 'envelope', ''],
      ['envelope header only, broken', 'envelope', '{"event_id":'],
      ['envelope item without type', 'envelope', '{}\n{"length":2}\n{}'],
      ['envelope item length beyond the body', 'envelope', '{}\n{"type":"event","length":999}\n{}'],
      ['envelope negative length', 'envelope', '{}\n{"type":"event","length":-1}\n{}'],
      ['envelope event not JSON', 'envelope', '{}\n{"type":"event"}\n{oops'],
      ['envelope event scalar', 'envelope', '{}\n{"type":"event"}\n42'],
      ['envelope broken UTF-8', 'envelope', Buffer.concat([Buffer.from('{}\n{"type":"event"}\n{"message":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')])],
    ];
    for (const [name, kind, body] of bodies) {
      const res = await collect(project.id, kind, { body, headers: h });
      expect([name, res.status]).toEqual([name, name === 'envelope broken UTF-8' ? 200 : 400]);
    }
    // NUL characters and lone surrogates are stored cleaned, not refused.
    const odd = await collect(project.id, 'store', { body: JSON.stringify({ message: 'nul\u0000here \ud800 end', extra: { k: 'v\u0000' } }), headers: h });
    expect(odd.status).toBe(200);
    const titles = (await errorsOf(project)).nodes.map((e: { title: string }) => e.title).sort();
    expect(titles).toEqual(['nulhere \ufffd end', '\ufffd\ufffd']);
    // Over the body limit: 413 (the limit is the server's; 200 KB decompressed for compressed bodies).
    const huge = await collect(project.id, 'store', { body: JSON.stringify({ message: 'x'.repeat(11 * 1024 * 1024) }), headers: h });
    expect(huge.status).toBe(413);
  });
});

describe('reading and working errors (GraphQL)', () => {
  it('shows errors to Reporters, with details, events and the stack trace; Reporters resolve and ignore them', async () => {
    const { project, key } = await newProject();
    await addMember(t, maintainer.token, 'projects', project.id, reporter.id, 20);
    await collect(project.id, 'store', { body: JSON.stringify(exceptionEvent({ release: 'v1', user: { id: 1 } })), headers: auth(key.public_key) });
    await collect(project.id, 'store', { body: JSON.stringify(exceptionEvent({ release: 'v2', timestamp: '2026-11-28T07:00:00Z' })), headers: auth(key.public_key) });
    const [error] = (await errorsOf(project, reporter.token)).nodes;
    const detailed = `gid://gitlab/Gitlab::ErrorTracking::DetailedError/${error.sentryId}`;
    const detail = await t.graphql(
      `query($p: ID!, $id: GitlabErrorTrackingDetailedErrorID!) { project(fullPath: $p) { sentryErrors {
        detailedError(id: $id) { id title count userCount integrated firstReleaseVersion lastReleaseVersion tags { level logger } events { count nodes { description environment level occurredAt userIdentity } } }
        errorStackTrace(id: $id) { issueId dateReceived stackTraceEntries { function fileName line traceContext { line code } } } } } }`,
      { p: project.path_with_namespace, id: detailed },
      reporter.token,
    );
    expect(detail.body.errors).toBeUndefined();
    const collection = detail.body.data.project.sentryErrors;
    expect(collection.detailedError).toMatchObject({ id: detailed, count: 2, userCount: 1, integrated: true, firstReleaseVersion: 'v1', lastReleaseVersion: 'v2', tags: { level: 'error', logger: null } });
    expect(collection.detailedError.events).toEqual({
      count: 2,
      nodes: [
        { description: 'bad value 17', environment: 'production', level: 'error', occurredAt: '2026-11-28T07:00:00.000Z', userIdentity: null },
        { description: 'bad value 17', environment: 'production', level: 'error', occurredAt: '2026-11-28T06:00:00.000Z', userIdentity: 'id:1' },
      ],
    });
    expect(collection.errorStackTrace).toEqual({
      issueId: error.sentryId,
      dateReceived: '2026-11-28T07:00:00.000Z',
      stackTraceEntries: [
        { function: 'parse', fileName: null, line: '12', traceContext: [{ line: 11, code: 'def parse():' }, { line: 12, code: 'raise ValueError' }] },
        { function: 'main', fileName: null, line: null, traceContext: null },
      ],
    });

    const update = (status: string, token: string) =>
      t.graphql(`mutation($in: SentryErrorUpdateInput!) { sentryErrorUpdate(input: $in) { clientMutationId errors error { status } } }`, { in: { projectPath: project.path_with_namespace, id: detailed, status, clientMutationId: 'c1' } }, token);
    expect((await update('RESOLVED', reporter.token)).body.data.sentryErrorUpdate).toEqual({ clientMutationId: 'c1', errors: [], error: { status: 'RESOLVED' } });
    expect((await errorsOf(project, reporter.token, 'RESOLVED')).count).toBe(1);
    expect((await errorsOf(project, reporter.token, 'UNRESOLVED')).count).toBe(0);
    expect((await update('IGNORED', reporter.token)).body.data.sentryErrorUpdate.error).toEqual({ status: 'IGNORED' });
    // A new event does not reopen it (GitLab's report_error leaves the status alone).
    await collect(project.id, 'store', { body: JSON.stringify(exceptionEvent()), headers: auth(key.public_key) });
    expect((await errorsOf(project, reporter.token, 'IGNORED')).nodes[0]).toMatchObject({ status: 'IGNORED', count: 3 });

    // Strangers see no collection (the project is private) and cannot update.
    const hidden = await t.graphql(ERRORS, { path: project.path_with_namespace }, stranger.token);
    expect(hidden.body.data.project).toBeNull();
    const refused = await update('RESOLVED', stranger.token);
    expect(refused.body.data.sentryErrorUpdate).toBeNull();
    expect(refused.body.errors![0].message).toMatch(/does not exist or you don't have permission/);
    // A guest sees the project's collection as null.
    const guest = await createUser(t);
    await addMember(t, maintainer.token, 'projects', project.id, guest.id, 10);
    expect((await t.graphql(ERRORS, { path: project.path_with_namespace }, guest.token)).body.data.project.sentryErrors).toBeNull();
    expect((await update('RESOLVED', guest.token)).body.errors![0].extensions?.code).toBe('FORBIDDEN');
  });
});

describe('retention', () => {
  it('removes events, errors and sessions older than 90 days on the recurring job, and keeps the rest exact', async () => {
    const { project, key } = await newProject();
    const day = 86_400;
    const now = Date.now() / 1000;
    const at = (daysAgo: number, extra: Record<string, unknown> = {}) => JSON.stringify(exceptionEvent({ timestamp: now - daysAgo * day, ...extra }));
    // One error with an old and a recent event, one with only old events.
    await collect(project.id, 'store', { body: at(100, { user: { id: 1 } }), headers: auth(key.public_key) });
    await collect(project.id, 'store', { body: at(1, { user: { id: 2 } }), headers: auth(key.public_key) });
    await collect(project.id, 'store', { body: at(120, { platform: 'go' }), headers: auth(key.public_key) });
    const sessions = envelope([{ type: 'session' }, { sid: 'old', status: 'ok', timestamp: new Date((now - 95 * day) * 1000).toISOString() }], [{ type: 'session' }, { sid: 'new', status: 'ok' }]);
    await collect(project.id, 'envelope', { body: sessions, headers: auth(key.public_key) });
    expect((await errorsOf(project)).count).toBe(2);

    // The recurring job, made due now.
    await t.server.database.prisma.$executeRaw`UPDATE "jobs" SET "runAt" = now() WHERE "uniqueKey" = ${`recurring:${RETENTION_JOB}`} AND "status" = 'queued'`;
    t.server.app.jobs.wake();
    await t.server.app.jobs.drain();
    const errors = await errorsOf(project);
    expect(errors.nodes).toEqual([expect.objectContaining({ count: 1, userCount: 1 })]);
    const left = await t.graphql(`query($p: ID!) { project(fullPath: $p) { errorTrackingSessions { nodes { sid } } } }`, { p: project.path_with_namespace }, maintainer.token);
    expect(left.body.data.project.errorTrackingSessions.nodes).toEqual([{ sid: 'new' }]);
  });
});
