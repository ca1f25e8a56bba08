import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { UNIQUE_INDEX_ERRORS, fromDatabase } from '../../src/errors.js';
import { suiteServer, type ApiResponse } from '../support/server.js';
import { createGroup, createUser, type TestUser } from '../support/factories.js';

const t = suiteServer({ rateLimitPerMinute: 0 });
const RACERS = 50;
let owner: TestUser;
beforeAll(async () => {
  owner = await createUser(t);
});

/** `count` spellings of one lowercase word, each with another set of letters upper-cased: race, Race, rAce, RAce… */
function spellings(count = RACERS): string[] {
  const letters = 'abcdefghijklmnopqrstuvwxyz';
  const word = `race${[...randomBytes(6)].map((b) => letters[b % 26]).join('')}`;
  return Array.from({ length: count }, (_, mask) => [...word].map((c, i) => ((mask >> i) & 1 ? c.toUpperCase() : c)).join(''));
}

/** Exactly one request succeeded; every other one got `refusal`, the answer the service's own check gives. */
function expectOneWinner(results: ApiResponse[], refusal: { status: number; body: unknown }) {
  const statuses = results.map((r) => r.status);
  expect(statuses.filter((s) => s === 201)).toHaveLength(1);
  for (const r of results.filter((r) => r.status !== 201)) expect({ status: r.status, body: r.body }).toEqual(refusal);
}

const groupTaken = { status: 400, body: { message: 'Failed to save group {:path=>["has already been taken"]}' } };
const projectTaken = { status: 400, body: { message: { path: ['has already been taken'] } } };

describe('paths, usernames and e-mails are unique regardless of case', () => {
  it('creates one top-level group of 50 concurrent requests for case variants of a path; the others answer 400 has already been taken', async () => {
    const paths = spellings();
    const results = await Promise.all(paths.map((path) => t.api('POST', '/groups', { token: owner.token, body: { name: path, path } })));
    expectOneWinner(results, groupTaken);
    const search = await t.api('GET', `/groups?search=${paths[0]}&all_available=true`, { token: owner.token });
    expect(search.body).toHaveLength(1);
  });

  it('creates one subgroup of 50 concurrent requests in one parent', async () => {
    const parent = await createGroup(t, owner.token);
    const paths = spellings();
    const results = await Promise.all(paths.map((path) => t.api('POST', '/groups', { token: owner.token, body: { name: path, path, parent_id: parent.id } })));
    expectOneWinner(results, groupTaken);
    expect((await t.api('GET', `/groups/${parent.id}/subgroups`, { token: owner.token })).body).toHaveLength(1);
  });

  it('lets the same path live under two parents', async () => {
    const [a, b] = [await createGroup(t, owner.token), await createGroup(t, owner.token)];
    const [path] = spellings(1);
    expect((await t.api('POST', '/groups', { token: owner.token, body: { name: path, path, parent_id: a.id } })).status).toBe(201);
    expect((await t.api('POST', '/groups', { token: owner.token, body: { name: path, path: path.toUpperCase(), parent_id: b.id } })).status).toBe(201);
  });

  it('creates one project of 50 concurrent requests in one namespace', async () => {
    const group = await createGroup(t, owner.token);
    const paths = spellings();
    // Names differ, so only the path can clash, whichever check refuses it.
    const results = await Promise.all(
      paths.map((path, i) => t.api('POST', '/projects', { token: owner.token, body: { name: `Project ${i}`, path, namespace_id: group.id } })),
    );
    expectOneWinner(results, projectTaken);
    expect((await t.api('GET', `/groups/${group.id}/projects`, { token: owner.token })).body).toHaveLength(1);
  });

  it('creates one user of 50 concurrent requests for case variants of a username; the others answer GitLab\'s 409', async () => {
    const names = spellings();
    const results = await Promise.all(
      names.map((username, i) => t.api('POST', '/users', { body: { username, name: username, email: `${names[0]}-${i}@example.com` } })),
    );
    expectOneWinner(results, { status: 409, body: { message: 'Username has already been taken' } });
    expect((await t.api('GET', `/users?username=${names[0]}`)).body).toHaveLength(1);
  });

  it('creates one user of 50 concurrent requests for case variants of an e-mail address', async () => {
    const locals = spellings();
    const results = await Promise.all(
      locals.map((local, i) => t.api('POST', '/users', { body: { username: `${locals[0]}-${i}`, name: local, email: `${local}@Example.com` } })),
    );
    expectOneWinner(results, { status: 409, body: { message: 'Email has already been taken' } });
    expect((await t.api('GET', `/users?search=${locals[0]}`)).body).toHaveLength(1);
  });

  it('refuses a username that a group already has as its path, and a group path that a username has, in any case', async () => {
    const group = await createGroup(t, owner.token);
    const clash = await t.api('POST', '/users', { body: { username: group.path.toUpperCase(), name: 'x', email: `${group.path}@example.com` } });
    expect(clash.status).toBe(409);
    expect(clash.body).toEqual({ message: 'Username has already been taken' });
    const taken = await t.api('POST', '/groups', { token: owner.token, body: { name: 'x', path: owner.username.toUpperCase() } });
    expect({ status: taken.status, body: taken.body }).toEqual(groupTaken);
  });

  it('answers a concurrent duplicate over GraphQL as a refusal of the path, never a 500', async () => {
    const paths = spellings(20);
    const results = await Promise.all(
      paths.map((path) => t.graphql('mutation($p: String!) { groupCreate(input: { name: $p, path: $p }) { group { id } errors } }', { p: path }, owner.token)),
    );
    expect(results.map((r) => r.status).every((s) => s === 200)).toBe(true);
    const refusals = results.filter((r) => r.body.errors || r.body.data?.groupCreate?.errors.length);
    expect(refusals).toHaveLength(paths.length - 1);
    // In the payload's errors, as GitLab's mutations answer it, whether the service's check refused it or the unique
    // index did (a duplicate that passed the check at the same moment): fromDatabase gives the check's refusal.
    for (const r of refusals) expect(r.body).toEqual({ data: { groupCreate: { group: null, errors: ['Path has already been taken'] } } });
  });
});

describe('the index table', () => {
  it('maps a duplicate refused by each case-insensitive index to the service check\'s answer', async () => {
    // The duplicates go straight to the database, past the services' checks, so each index is the one that refuses.
    const db = t.server.database.prisma;
    const [word] = spellings(1);
    const parent = await createGroup(t, owner.token);
    const namespace = { kind: 'group', name: word, fullName: word, traversalIds: [] as number[] };
    const attempts: [string, () => Promise<unknown>][] = [
      ['users_lower_username_key', () => db.user.create({ data: { username: owner.username.toUpperCase(), name: 'x', email: `${word}-1@example.com` } })],
      ['users_lower_email_key', () => db.user.create({ data: { username: `${word}-2`, name: 'x', email: `${owner.username}@EXAMPLE.com` } })],
      ['namespaces_top_level_lower_path_key', () => db.namespace.create({ data: { ...namespace, path: owner.username.toUpperCase(), fullPath: `${word}-3` } })],
      ['namespaces_parentId_lower_path_key', async () => {
        await db.namespace.create({ data: { ...namespace, path: word, fullPath: `${parent.full_path}/${word}`, parentId: parent.id } });
        return db.namespace.create({ data: { ...namespace, path: word.toUpperCase(), fullPath: `${word}-4`, parentId: parent.id } });
      }],
      ['projects_namespaceId_lower_path_key', async () => {
        await db.project.create({ data: { name: `${word}-a`, path: word, fullPath: `${parent.full_path}/${word}`, namespaceId: parent.id } });
        return db.project.create({ data: { name: `${word}-b`, path: word.toUpperCase(), fullPath: `${word}-5`, namespaceId: parent.id } });
      }],
    ];
    for (const [index, attempt] of attempts) {
      const error = await attempt().then(() => null, (e: unknown) => e);
      const coded = fromDatabase(error);
      const expected = UNIQUE_INDEX_ERRORS[index]();
      expect({ message: coded?.message, extensions: coded?.extensions }, index).toEqual({ message: expected.message, extensions: expected.extensions });
    }
  });

  it('names only indexes that exist, and covers every unique index on paths, usernames and e-mails', async () => {
    const rows = await t.server.database.prisma.$queryRaw<{ indexname: string; indexdef: string }[]>`
      SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema() AND indexdef LIKE 'CREATE UNIQUE INDEX%'`;
    const existing = new Set(rows.map((r) => r.indexname));
    expect(Object.keys(UNIQUE_INDEX_ERRORS).filter((name) => !existing.has(name))).toEqual([]);
    const columns = (def: string) => /USING \w+ \((.*)\)/.exec(def)?.[1] ?? '';
    const onPaths = rows.filter((r) => /\b(path|username|email)\b|"fullPath"/.test(columns(r.indexdef))).map((r) => r.indexname);
    expect(onPaths.length).toBeGreaterThanOrEqual(10);
    expect(onPaths.filter((name) => !(name in UNIQUE_INDEX_ERRORS))).toEqual([]);
    for (const name of ['namespaces_top_level_lower_path_key', 'namespaces_parentId_lower_path_key', 'projects_namespaceId_lower_path_key', 'users_lower_username_key', 'users_lower_email_key']) {
      expect(rows.find((r) => r.indexname === name)?.indexdef, name).toMatch(/lower\(/);
    }
  });
});
