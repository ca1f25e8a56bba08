/**
 * The real Sentry SDKs against the collector: `@sentry/node` and Debian's python3-sentry-sdk, each configured only with
 * the DSN of a client key created through the API, send an exception (twice, by two users), a message and a session;
 * the errors show up grouped with their counts and users affected, the sessions are kept, and the same SDK with a
 * deleted key's DSN is refused and stores nothing.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Gitlab } from '@gitbeaker/rest';
import { beforeAll, describe, expect, it } from 'vitest';
import { suiteServer } from '../support/server.js';
import { createProject, createUser, type TestUser } from '../support/factories.js';

const run = promisify(execFile);
const PYTHON = '/usr/bin/python3';
const here = (name: string) => fileURLToPath(new URL(name, import.meta.url));

/** A port free now, so the server's external URL (and so the DSNs it hands out) can name it before it starts. */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

const port = await freePort();
const t = suiteServer({ port, externalUrl: `http://127.0.0.1:${port}` });

async function pythonHasSentry(): Promise<string | null> {
  if (!existsSync(PYTHON)) return `${PYTHON} is absent`;
  try {
    await run(PYTHON, ['-c', 'import sentry_sdk']);
    return null;
  } catch {
    return 'python3-sentry-sdk is not installed (.ci/run installs it)';
  }
}
const pythonMissing = await pythonHasSentry();

let maintainer: TestUser;

beforeAll(async () => {
  maintainer = await createUser(t);
});

const ERRORS = `query($path: ID!) { project(fullPath: $path) { sentryErrors { errors(sort: "frequency") { count nodes {
  title type message culprit count userCount status firstSeen lastSeen } } } } }`;
const SESSIONS = `query($path: ID!) { project(fullPath: $path) { errorTrackingSessions { nodes { status release environment } } } }`;

async function newProjectKey() {
  const project = await createProject(t, maintainer.token);
  const api = new Gitlab({ host: t.url, token: maintainer.token });
  // GitLab's collector takes events only once integrated error tracking is enabled.
  await api.ErrorTrackingSettings.create(project.id, true, true);
  const key = await api.ErrorTrackingClientKeys.create(project.id);
  return { project, key, api };
}

async function errorsOf(project: { path_with_namespace: string }) {
  const res = await t.graphql(ERRORS, { path: project.path_with_namespace }, maintainer.token);
  expect(res.body.errors).toBeUndefined();
  return res.body.data.project.sentryErrors.errors;
}

async function sessionsOf(project: { path_with_namespace: string }) {
  const res = await t.graphql(SESSIONS, { path: project.path_with_namespace }, maintainer.token);
  return res.body.data.project.errorTrackingSessions.nodes;
}

const lines = (stdout: string) =>
  stdout
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as { status: number; items?: string[] });

describe('@sentry/node', () => {
  const sdk = (dsn: string) => run(process.execPath, [here('sentry-node.mjs')], { env: { ...process.env, SENTRY_DSN: dsn }, timeout: 60_000 });

  it('delivers an exception, a message and a session, grouped with users affected', async () => {
    const { project, key } = await newProjectKey();
    expect(key.sentry_dsn).toBe(`http://${key.public_key}@127.0.0.1:${port}/api/v4/error_tracking/collector/${project.id}`);
    const sent = lines((await sdk(key.sentry_dsn)).stdout);
    expect(sent.length).toBeGreaterThanOrEqual(4);
    expect(sent.every((s) => s.status === 200)).toBe(true);
    expect(sent.flatMap((s) => s.items)).toEqual(expect.arrayContaining(['event', 'session']));

    const errors = await errorsOf(project);
    expect(errors.count).toBe(2);
    const [exception, message] = errors.nodes;
    expect(exception).toMatchObject({ type: 'error', count: 2, userCount: 2, status: 'UNRESOLVED', culprit: expect.stringContaining('checkout') });
    expect(exception.title).toMatch(/^TypeError /);
    expect(message).toMatchObject({ title: 'node: payment provider slow', message: 'node: payment provider slow', count: 1, userCount: 1 });
    expect(new Date(exception.firstSeen).getTime()).toBeLessThanOrEqual(new Date(exception.lastSeen).getTime());
    expect(await sessionsOf(project)).toEqual([expect.objectContaining({ release: 'shop@1.2.3', environment: 'test', status: 'exited' })]);
  });

  it('is refused with a deleted key, at once, and nothing is stored', async () => {
    const { project, key } = await newProjectKey();
    await t.api('DELETE', `/projects/${project.id}/error_tracking/client_keys/${key.id}`, { token: maintainer.token });
    const sent = lines((await sdk(key.sentry_dsn)).stdout);
    expect(sent.length).toBeGreaterThan(0);
    expect(sent.every((s) => s.status === 404)).toBe(true);
    expect((await errorsOf(project)).count).toBe(0);
    expect(await sessionsOf(project)).toEqual([]);
  });
});

describe.skipIf(pythonMissing)(`python3-sentry-sdk${pythonMissing ? ` (skipped: ${pythonMissing})` : ''}`, () => {
  const sdk = (dsn: string) => run(PYTHON, [here('sentry-python.py')], { env: { ...process.env, SENTRY_DSN: dsn }, timeout: 60_000 });

  it('delivers an exception, a message and a session, grouped with users affected', async () => {
    const { project, key } = await newProjectKey();
    const sent = lines((await sdk(key.sentry_dsn)).stdout);
    expect(sent.length).toBeGreaterThanOrEqual(4);
    expect(sent.every((s) => s.status === 200)).toBe(true);

    const errors = await errorsOf(project);
    expect(errors.count).toBe(2);
    const [exception, message] = errors.nodes;
    expect(exception).toMatchObject({ title: "KeyError 'items'", count: 2, userCount: 2, culprit: 'checkout(__main__)' });
    expect(message).toMatchObject({ message: 'python: payment provider slow', count: 1, userCount: 1 });
    expect(await sessionsOf(project)).toEqual([expect.objectContaining({ release: 'shop@1.2.3', environment: 'test', status: 'exited' })]);
  });

  it('is refused with a deleted key', async () => {
    const { project, key } = await newProjectKey();
    const deleted = await t.api('DELETE', `/projects/${project.id}/error_tracking/client_keys/${key.id}`, { token: maintainer.token });
    expect(deleted.status).toBe(200);
    const sent = lines((await sdk(key.sentry_dsn)).stdout);
    expect(sent.length).toBeGreaterThan(0);
    expect(sent.every((s) => s.status === 404)).toBe(true);
    expect((await errorsOf(project)).count).toBe(0);
  });
});
