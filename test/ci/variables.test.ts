/**
 * CI/CD variables of projects, groups and the instance: GitLab's three variables APIs (raw HTTP with exact JSON,
 * statuses and error bodies, and @gitbeaker/rest), the same data over GraphQL, who may do what, hostile input, and
 * the variables a job gets (CiVariablesService.forJob) with GitLab's masking rule.
 */
import { Gitlab } from '@gitbeaker/rest';
import { beforeAll, describe, expect, it } from 'vitest';
import { createContext } from '../../src/context.js';
import { isMaskable, scopeMatches } from '../../src/modules/ci_variables/rules.js';
import { addMember, createGroup, createProject, createUser, unique, type TestUser } from '../support/factories.js';
import { EXTERNAL_URL, suiteServer } from '../support/server.js';

const t = suiteServer({ rateLimitPerMinute: 0 });

/** GitLab's Entities::Ci::Variable for a project or group variable, defaults as GitLab creates them. */
const scoped = (fields: Record<string, unknown>) => ({
  variable_type: 'env_var',
  value: null,
  hidden: false,
  protected: false,
  masked: false,
  raw: false,
  environment_scope: '*',
  description: null,
  ...fields,
});
/** The same for an instance variable: no `hidden`, no `environment_scope`. */
const instance = (fields: Record<string, unknown>) => ({ variable_type: 'env_var', value: null, protected: false, masked: false, raw: false, description: null, ...fields });

const KEY_FORMAT = "can contain only letters, digits and '_'.";
const SCOPE_FORMAT = "can contain only letters, digits, '-', '_', '/', '$', '{', '}', '.', '*' and spaces";
const AMBIGUOUS = { message: "There are multiple variables with provided parameters. Please use 'filter[environment_scope]'" };
const FORBIDDEN = { message: '403 Forbidden' };
const key = (prefix = 'VAR') => unique(prefix).replace('-', '_').toUpperCase();
const q = (scope: string) => `filter[environment_scope]=${encodeURIComponent(scope)}`;

let owner: TestUser;
let group: { id: number; full_path: string };
let project: { id: number; path_with_namespace: string };

beforeAll(async () => {
  owner = await createUser(t);
  group = await createGroup(t, owner.token);
  project = await createProject(t, owner.token, { namespaceId: group.id });
});

describe('project variables over REST', () => {
  const base = () => `/projects/${project.id}/variables`;

  it('creates, lists, shows, updates and deletes a variable with GitLab JSON and statuses', async () => {
    const name = key();
    const created = await t.api('POST', base(), { token: owner.token, body: { key: name, value: 'plain value' } });
    expect(created.status).toBe(201);
    expect(created.body).toEqual(scoped({ key: name, value: 'plain value' }));
    expect(Object.keys(created.body)).toEqual(['variable_type', 'key', 'value', 'hidden', 'protected', 'masked', 'raw', 'environment_scope', 'description']);

    const list = await t.api('GET', base(), { token: owner.token });
    expect(list.status).toBe(200);
    expect(list.body).toContainEqual(created.body);
    expect(list.headers.get('x-page')).toBe('1');
    expect(list.headers.get('x-per-page')).toBe('20');

    const shown = await t.api('GET', `${base()}/${name}`, { token: owner.token });
    expect(shown.status).toBe(200);
    expect(shown.body).toEqual(created.body);

    const updated = await t.api('PUT', `${base()}/${name}`, {
      token: owner.token,
      body: { key: 'IGNORED', value: 'new', variable_type: 'file', protected: true, raw: true, environment_scope: 'production', description: 'updated' },
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toEqual(scoped({ key: name, value: 'new', variable_type: 'file', protected: true, raw: true, environment_scope: 'production', description: 'updated' }));

    const deleted = await t.api('DELETE', `${base()}/${name}`, { token: owner.token });
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    const gone = await t.api('GET', `${base()}/${name}`, { token: owner.token });
    expect(gone.status).toBe(404);
    expect(gone.body).toEqual({ message: '404 Variable Not Found' });
    for (const method of ['PUT', 'DELETE']) {
      const missing = await t.api(method, `${base()}/${name}`, { token: owner.token, body: method === 'PUT' ? { value: 'x' } : undefined });
      expect([method, missing.status, missing.body]).toEqual([method, 404, { message: '404 Variable Not Found' }]);
    }
  });

  it('takes every create parameter, as JSON or as form fields, and strips the key', async () => {
    const name = key();
    const res = await t.api('POST', base(), {
      token: owner.token,
      body: { key: `  ${name}\t`, value: 'masked-value_1', variable_type: 'file', protected: true, masked: true, raw: false, environment_scope: ' review/* ', description: 'all of them' },
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual(scoped({ key: name, value: 'masked-value_1', variable_type: 'file', protected: true, masked: true, environment_scope: 'review/*', description: 'all of them' }));

    const form = await t.api('POST', base(), {
      token: owner.token,
      body: `key=${key()}&value=v&protected=yes&masked=false&variable_type=env_var`,
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    expect(form.status).toBe(201);
    expect(form.body).toMatchObject({ value: 'v', protected: true, masked: false, variable_type: 'env_var' });
  });

  it('paginates with GitLab headers, by ID', async () => {
    const fresh = await createProject(t, owner.token, { namespaceId: group.id });
    const keys = [key('P'), key('P'), key('P')];
    for (const k of keys) await t.api('POST', `/projects/${fresh.id}/variables`, { token: owner.token, body: { key: k, value: k } });
    const first = await t.api('GET', `/projects/${fresh.id}/variables?per_page=2`, { token: owner.token });
    expect(first.body.map((v: { key: string }) => v.key)).toEqual(keys.slice(0, 2));
    expect(Object.fromEntries(['x-total', 'x-total-pages', 'x-page', 'x-per-page', 'x-next-page', 'x-prev-page'].map((h) => [h, first.headers.get(h)]))).toEqual({
      'x-total': '3',
      'x-total-pages': '2',
      'x-page': '1',
      'x-per-page': '2',
      'x-next-page': '2',
      'x-prev-page': '',
    });
    expect(first.headers.get('link')).toContain(`<${EXTERNAL_URL}/api/v4/projects/${fresh.id}/variables?`);
    const second = await t.api('GET', `/projects/${fresh.id}/variables?per_page=2&page=2`, { token: owner.token });
    expect(second.body.map((v: { key: string }) => v.key)).toEqual(keys.slice(2));
  });

  it("answers each model validation in GitLab's words", async () => {
    const taken = key();
    await t.api('POST', base(), { token: owner.token, body: { key: taken, value: 'x' } });
    const cases: [Record<string, unknown>, Record<string, string[]>][] = [
      [{ key: 'has-dash', value: 'x' }, { key: [KEY_FORMAT] }],
      [{ key: '', value: 'x' }, { key: ["can't be blank", KEY_FORMAT] }],
      [{ key: '   ', value: 'x' }, { key: ["can't be blank", KEY_FORMAT] }],
      [{ key: 'K'.repeat(256), value: 'x' }, { key: ['is too long (maximum is 255 characters)'] }],
      [{ key: 'ключ', value: 'x' }, { key: [KEY_FORMAT] }],
      [{ key: taken, value: 'y' }, { key: [`(${taken}) has already been taken`] }],
      [{ key: key(), value: 'short', masked: true }, { value: ['is invalid'] }],
      [{ key: key(), value: 'has a space', masked: true }, { value: ['is invalid'] }],
      [{ key: key(), value: 'line-one\nline-two', masked: true }, { value: ['is invalid'] }],
      [{ key: key(), value: 'not$expandable!', masked: true }, { value: ['is invalid'] }],
      [{ key: key(), value: 'raw but spaced', masked: true, raw: true }, { value: ['is invalid'] }],
      [{ key: key(), value: 'x', environment_scope: 'prod!' }, { environment_scope: [SCOPE_FORMAT] }],
      [{ key: key(), value: 'x', environment_scope: '' }, { environment_scope: ["can't be blank", SCOPE_FORMAT] }],
      [{ key: key(), value: 'x', environment_scope: 'e'.repeat(256) }, { environment_scope: ['is too long (maximum is 255 characters)'] }],
      [{ key: key(), value: 'x', description: 'd'.repeat(256) }, { description: ['is too long (maximum is 255 characters)'] }],
    ];
    for (const [body, message] of cases) {
      const res = await t.api('POST', base(), { token: owner.token, body });
      expect([body, res.status, res.body]).toEqual([body, 400, { message }]);
    }
    const several = await t.api('POST', base(), { token: owner.token, body: { key: 'a b', value: 'short', masked: true, environment_scope: '!', description: 'd'.repeat(300) } });
    expect(several.status).toBe(400);
    expect(Object.entries(several.body.message)).toEqual([
      ['key', [KEY_FORMAT]],
      ['value', ['is invalid']],
      ['environment_scope', [SCOPE_FORMAT]],
      ['description', ['is too long (maximum is 255 characters)']],
    ]);
  });

  it("accepts GitLab's masked values: Base64 alphabet and @:.~- when expanded, anything but whitespace when raw", async () => {
    for (const [value, raw] of [['Hello+World_123/@:-~.=', false], ['HelloWorld%#^!$', true], ['€uros-only-here', true]] as const) {
      const res = await t.api('POST', base(), { token: owner.token, body: { key: key(), value, masked: true, raw } });
      expect([value, res.status, res.body.masked]).toEqual([value, 201, true]);
    }
    const name = key();
    await t.api('POST', base(), { token: owner.token, body: { key: name, value: 'long-enough', masked: true } });
    const badUpdate = await t.api('PUT', `${base()}/${name}`, { token: owner.token, body: { value: 'short' } });
    expect([badUpdate.status, badUpdate.body]).toEqual([400, { message: { value: ['is invalid'] } }]);
  });

  it("refuses bad parameters in Grape's words", async () => {
    const cases: [unknown, unknown][] = [
      [{}, { error: 'key is missing, value is missing' }],
      [{ key: key() }, { error: 'value is missing' }],
      [{ key: key(), value: 'x', variable_type: 'secret' }, { error: 'variable_type does not have a valid value' }],
      [{ key: key(), value: 'x', protected: 'maybe' }, { error: 'protected is invalid' }],
      [{ key: { nested: 'x' }, value: 'x' }, { error: 'key is invalid' }],
      [{ key: key(), value: ['x'] }, { error: 'value is invalid' }],
      [{ key: key(), value: 'x', masked: { a: 1 } }, { error: 'masked is invalid' }],
    ];
    for (const [body, answer] of cases) {
      const res = await t.api('POST', base(), { token: owner.token, body });
      expect([body, res.status, res.body]).toEqual([body, 400, answer]);
    }
    const filter = await t.api('GET', `${base()}/ANY?filter=production`, { token: owner.token });
    expect([filter.status, filter.body]).toEqual([400, { error: 'filter is invalid' }]);
    const typed = await t.api('POST', base(), { token: owner.token, body: { key: key(), value: 12345 } });
    expect([typed.status, typed.body.value]).toEqual([201, '12345']);
  });

  it('keeps one key per environment scope, answers 409 when a key is ambiguous, and selects with filter[environment_scope]', async () => {
    const name = key();
    for (const [scope, value] of [['*', 'all'], ['production', 'prod'], ['review/*', 'review']]) {
      const res = await t.api('POST', base(), { token: owner.token, body: { key: name, value, environment_scope: scope } });
      expect(res.status).toBe(201);
    }
    const again = await t.api('POST', base(), { token: owner.token, body: { key: name, value: 'x', environment_scope: 'production' } });
    expect([again.status, again.body]).toEqual([400, { message: { key: [`(${name}) has already been taken`] } }]);

    for (const method of ['GET', 'PUT', 'DELETE']) {
      const res = await t.api(method, `${base()}/${name}`, { token: owner.token, body: method === 'PUT' ? { value: 'x' } : undefined });
      expect([method, res.status, res.body]).toEqual([method, 409, AMBIGUOUS]);
    }
    // A blank filter filters nothing (Ruby's `present?`).
    expect((await t.api('GET', `${base()}/${name}?${q(' ')}`, { token: owner.token })).status).toBe(409);

    const prod = await t.api('GET', `${base()}/${name}?${q('production')}`, { token: owner.token });
    expect([prod.status, prod.body]).toEqual([200, scoped({ key: name, value: 'prod', environment_scope: 'production' })]);
    const wrong = await t.api('GET', `${base()}/${name}?${q('staging')}`, { token: owner.token });
    expect([wrong.status, wrong.body]).toEqual([404, { message: '404 Variable Not Found' }]);

    const put = await t.api('PUT', `${base()}/${name}?${q('review/*')}`, { token: owner.token, body: { value: 'changed', environment_scope: 'review/app' } });
    expect([put.status, put.body]).toEqual([200, scoped({ key: name, value: 'changed', environment_scope: 'review/app' })]);
    // Moving a variable onto a scope its key already has is a duplicate; the filter may also come in a JSON body.
    const clash = await t.api('PUT', `${base()}/${name}`, { token: owner.token, body: { filter: { environment_scope: 'review/app' }, environment_scope: 'production' } });
    expect([clash.status, clash.body]).toEqual([400, { message: { key: [`(${name}) has already been taken`] } }]);

    expect((await t.api('DELETE', `${base()}/${name}?${q('production')}`, { token: owner.token })).status).toBe(204);
    expect((await t.api('DELETE', `${base()}/${name}?${q('review/app')}`, { token: owner.token })).status).toBe(204);
    const last = await t.api('GET', `${base()}/${name}`, { token: owner.token });
    expect([last.status, last.body.value]).toEqual([200, 'all']);
  });

  it('never shows a hidden value again, and keeps a hidden variable masked', async () => {
    const name = key();
    const created = await t.api('POST', base(), { token: owner.token, body: { key: name, value: 'secret-token-1', masked: false, masked_and_hidden: true } });
    expect([created.status, created.body]).toEqual([201, scoped({ key: name, value: null, hidden: true, masked: true })]);
    expect((await t.api('GET', `${base()}/${name}`, { token: owner.token })).body).toEqual(created.body);
    expect((await t.api('GET', `${base()}/${name}`)).body.value).toBeNull(); // not even to an administrator
    expect((await t.api('GET', `${base()}?per_page=100`, { token: owner.token })).body.find((v: { key: string }) => v.key === name)).toEqual(created.body);

    const unmask = await t.api('PUT', `${base()}/${name}`, { token: owner.token, body: { masked: false } });
    expect([unmask.status, unmask.body]).toEqual([400, { message: { base: ['The visibility setting cannot be changed for masked and hidden variables.'] } }]);
    const revalue = await t.api('PUT', `${base()}/${name}`, { token: owner.token, body: { value: 'another-secret', masked: true, description: 'rotated' } });
    expect([revalue.status, revalue.body]).toEqual([200, scoped({ key: name, value: null, hidden: true, masked: true, description: 'rotated' })]);

    const shortHidden = await t.api('POST', base(), { token: owner.token, body: { key: key(), value: 'short', masked_and_hidden: true } });
    expect([shortHidden.status, shortHidden.body]).toEqual([400, { message: { value: ['is invalid'] } }]);
    // masked_and_hidden is a create parameter only: on update it is ignored.
    const visible = key();
    await t.api('POST', base(), { token: owner.token, body: { key: visible, value: 'visible-value' } });
    const ignored = await t.api('PUT', `${base()}/${visible}`, { token: owner.token, body: { masked_and_hidden: true } });
    expect([ignored.status, ignored.body.hidden, ignored.body.value]).toEqual([200, false, 'visible-value']);

    const gql = await t.graphql(
      `query($path: ID!, $key: String!) { project(fullPath: $path) { ciVariable(key: $key) { value hidden masked } ciVariables(first: 100) { nodes { key value hidden } } } }`,
      { path: project.path_with_namespace, key: name },
      owner.token,
    );
    expect(gql.body.errors).toBeUndefined();
    expect(gql.body.data.project.ciVariable).toEqual({ value: null, hidden: true, masked: true });
    expect(gql.body.data.project.ciVariables.nodes.find((v: { key: string }) => v.key === name)).toEqual({ key: name, value: null, hidden: true });
  });
});

describe('who may use the project variables API', () => {
  const roles: Record<string, TestUser> = {};
  let privateProject: { id: number };
  let publicProject: { id: number };
  let readApi: TestUser;

  beforeAll(async () => {
    privateProject = await createProject(t, owner.token, { namespaceId: group.id });
    publicProject = await createProject(t, owner.token, { visibility: 'public' });
    for (const [role, level] of [['guest', 10], ['reporter', 20], ['developer', 30], ['maintainer', 40], ['projectOwner', 50]] as const) {
      roles[role] = await createUser(t);
      for (const p of [privateProject, publicProject]) await addMember(t, owner.token, 'projects', p.id, roles[role].id, level);
    }
    roles.stranger = await createUser(t);
    readApi = await createUser(t, { scopes: ['read_api'] });
    await addMember(t, owner.token, 'projects', privateProject.id, readApi.id, 40);
    await t.api('POST', `/projects/${privateProject.id}/variables`, { token: owner.token, body: { key: 'EXISTING', value: 'v' } });
    await t.api('POST', `/projects/${publicProject.id}/variables`, { token: owner.token, body: { key: 'EXISTING', value: 'v' } });
  });

  const tokenOf = (who: string) => (who === 'anonymous' ? null : who === 'admin' ? t.rootToken : who === 'groupOwner' ? owner.token : roles[who].token);
  const NOT_FOUND = { message: '404 Project Not Found' };
  const UNAUTHORIZED = { message: '401 Unauthorized' };

  it('lets Maintainers, Owners and administrators in; others get 403, or 404 where they cannot see the project', async () => {
    const expected: Record<string, [number, unknown, number, unknown]> = {
      // who: private project status and body, public project status and body (list route)
      anonymous: [404, NOT_FOUND, 401, UNAUTHORIZED],
      stranger: [404, NOT_FOUND, 403, FORBIDDEN],
      guest: [403, FORBIDDEN, 403, FORBIDDEN],
      reporter: [403, FORBIDDEN, 403, FORBIDDEN],
      developer: [403, FORBIDDEN, 403, FORBIDDEN],
      maintainer: [200, null, 200, null],
      projectOwner: [200, null, 200, null],
      groupOwner: [200, null, 200, null],
      admin: [200, null, 200, null],
    };
    for (const [who, [privateStatus, privateBody, publicStatus, publicBody]] of Object.entries(expected)) {
      const token = tokenOf(who);
      const onPrivate = await t.api('GET', `/projects/${privateProject.id}/variables`, { token });
      const onPublic = await t.api('GET', `/projects/${publicProject.id}/variables`, { token });
      expect([who, onPrivate.status, onPublic.status]).toEqual([who, privateStatus, publicStatus]);
      if (privateBody) expect([who, onPrivate.body]).toEqual([who, privateBody]);
      if (publicBody) expect([who, onPublic.body]).toEqual([who, publicBody]);
      // The other routes agree with the list.
      const shown = await t.api('GET', `/projects/${publicProject.id}/variables/EXISTING`, { token });
      expect([who, 'show', shown.status]).toEqual([who, 'show', publicStatus]);
      const write = await t.api('PUT', `/projects/${privateProject.id}/variables/EXISTING`, { token, body: { description: who } });
      expect([who, 'update', write.status]).toEqual([who, 'update', privateStatus === 404 && who === 'anonymous' ? 401 : privateStatus]);
    }
  });

  it('lets a read_api token read but not write', async () => {
    const read = await t.api('GET', `/projects/${privateProject.id}/variables`, { token: readApi.token });
    expect(read.status).toBe(200);
    for (const [method, path] of [['POST', ''], ['PUT', '/EXISTING'], ['DELETE', '/EXISTING']]) {
      const res = await t.api(method, `/projects/${privateProject.id}/variables${path}`, { token: readApi.token, body: method === 'DELETE' ? undefined : { key: key(), value: 'x' } });
      expect([method, res.status, res.body]).toEqual([
        method,
        403,
        { error: 'insufficient_scope', error_description: 'The request requires higher privileges than provided by the access token.', scope: 'api' },
      ]);
    }
  });

  it('asks for the same ability over GraphQL', async () => {
    const query = `query($id: ID!) { project(fullPath: $id) { ciVariables { count } } }`;
    const developer = await t.graphql(query, { id: String(privateProject.id) }, roles.developer.token);
    expect(developer.body.data.project.ciVariables).toBeNull();
    expect(developer.body.errors?.[0].extensions?.code).toBe('FORBIDDEN');
    const maintainer = await t.graphql(query, { id: String(privateProject.id) }, roles.maintainer.token);
    expect(maintainer.body).toEqual({ data: { project: { ciVariables: { count: 1 } } } });
    const create = await t.graphql(
      `mutation($id: ID!) { ciProjectVariableCreate(input: { projectId: $id, key: "FROM_GQL", value: "v" }) { ciProjectVariable { key } errors } }`,
      { id: String(privateProject.id) },
      roles.developer.token,
    );
    expect(create.body.errors?.[0].extensions?.code).toBe('FORBIDDEN');
  });
});

describe('group variables over REST', () => {
  const base = () => `/groups/${group.id}/variables`;

  it('creates, lists, shows, updates and deletes with GitLab JSON, by ID or full path', async () => {
    const name = key('G');
    const created = await t.api('POST', base(), { token: owner.token, body: { key: name, value: 'group value', protected: true, description: 'for all' } });
    expect([created.status, created.body]).toEqual([201, scoped({ key: name, value: 'group value', protected: true, description: 'for all' })]);
    const byPath = await t.api('GET', `/groups/${encodeURIComponent(group.full_path)}/variables/${name}`, { token: owner.token });
    expect([byPath.status, byPath.body]).toEqual([200, created.body]);
    expect((await t.api('GET', base(), { token: owner.token })).body).toContainEqual(created.body);
    const updated = await t.api('PUT', `${base()}/${name}`, { token: owner.token, body: { value: 'changed-value', masked: true, environment_scope: 'staging' } });
    expect([updated.status, updated.body]).toEqual([200, scoped({ key: name, value: 'changed-value', masked: true, protected: true, environment_scope: 'staging', description: 'for all' })]);
    expect((await t.api('DELETE', `${base()}/${name}`, { token: owner.token })).status).toBe(204);
    const gone = await t.api('GET', `${base()}/${name}`, { token: owner.token });
    expect([gone.status, gone.body]).toEqual([404, { message: '404 GroupVariable Not Found' }]);
  });

  it('validates, scopes and hides as project variables do', async () => {
    const name = key('G');
    await t.api('POST', base(), { token: owner.token, body: { key: name, value: 'a', environment_scope: 'production' } });
    await t.api('POST', base(), { token: owner.token, body: { key: name, value: 'b', environment_scope: 'staging' } });
    expect((await t.api('GET', `${base()}/${name}`, { token: owner.token })).body).toEqual(AMBIGUOUS);
    expect((await t.api('PUT', `${base()}/${name}`, { token: owner.token, body: { value: 'c' } })).body).toEqual(AMBIGUOUS);
    const staging = await t.api('PUT', `${base()}/${name}?${q('staging')}`, { token: owner.token, body: { value: 'c' } });
    expect([staging.status, staging.body.value, staging.body.environment_scope]).toEqual([200, 'c', 'staging']);
    const dup = await t.api('POST', base(), { token: owner.token, body: { key: name, value: 'x', environment_scope: 'staging' } });
    expect([dup.status, dup.body]).toEqual([400, { message: { key: [`(${name}) has already been taken`] } }]);
    const bad = await t.api('POST', base(), { token: owner.token, body: { key: 'bad key', value: 'x' } });
    expect([bad.status, bad.body]).toEqual([400, { message: { key: [KEY_FORMAT] } }]);
    const hidden = await t.api('POST', base(), { token: owner.token, body: { key: key('G'), value: 'group-secret', masked_and_hidden: true } });
    expect([hidden.status, hidden.body.value, hidden.body.hidden, hidden.body.masked]).toEqual([201, null, true, true]);
  });

  it('lets group Owners and administrators in; Maintainers get 403, non-members of a private group 404', async () => {
    const maintainer = await createUser(t);
    const stranger = await createUser(t);
    await addMember(t, owner.token, 'groups', group.id, maintainer.id, 40);
    const sub = await createGroup(t, owner.token, { parentId: group.id });
    const expectations: [string | null, number, unknown][] = [
      [null, 404, { message: '404 Group Not Found' }],
      [stranger.token, 404, { message: '404 Group Not Found' }],
      [maintainer.token, 403, FORBIDDEN],
      [owner.token, 200, null],
      [t.rootToken, 200, null],
    ];
    for (const [token, status, body] of expectations) {
      // An Owner of the parent group is an Owner of the subgroup.
      for (const id of [group.id, sub.id]) {
        const res = await t.api('GET', `/groups/${id}/variables`, { token });
        expect([token, id, res.status]).toEqual([token, id, status]);
        if (body) expect(res.body).toEqual(body);
      }
    }
    const denied = await t.api('POST', `/groups/${group.id}/variables`, { token: maintainer.token, body: { key: key('G'), value: 'x' } });
    expect([denied.status, denied.body]).toEqual([403, FORBIDDEN]);
  });
});

describe('instance variables over REST', () => {
  const base = '/admin/ci/variables';

  it('creates, lists, shows, updates and deletes with GitLab JSON (no hidden, no environment scope)', async () => {
    const name = key('I');
    const created = await t.api('POST', base, {
      token: t.rootToken,
      body: { key: name, value: 'instance value', raw: true, description: 'everywhere', environment_scope: 'production', masked_and_hidden: true },
    });
    expect([created.status, created.body]).toEqual([201, instance({ key: name, value: 'instance value', raw: true, description: 'everywhere' })]);
    expect(Object.keys(created.body)).toEqual(['variable_type', 'key', 'value', 'protected', 'masked', 'raw', 'description']);
    expect((await t.api('GET', base)).body).toContainEqual(created.body);
    expect((await t.api('GET', `${base}/${name}`)).body).toEqual(created.body);
    const updated = await t.api('PUT', `${base}/${name}`, { body: { value: 'masked-now', masked: true, raw: false, protected: true, variable_type: 'file' } });
    expect([updated.status, updated.body]).toEqual([200, instance({ key: name, value: 'masked-now', masked: true, protected: true, variable_type: 'file', description: 'everywhere' })]);
    expect((await t.api('DELETE', `${base}/${name}`)).status).toBe(204);
    for (const method of ['GET', 'PUT', 'DELETE']) {
      const res = await t.api(method, `${base}/${name}`, { body: method === 'PUT' ? { value: 'x' } : undefined });
      expect([method, res.status, res.body]).toEqual([method, 404, { message: '404 InstanceVariable Not Found' }]);
    }
  });

  it('is for administrators only', async () => {
    const user = await createUser(t);
    for (const [method, path] of [['GET', base], ['GET', `${base}/ANY`], ['POST', base], ['PUT', `${base}/ANY`], ['DELETE', `${base}/ANY`]]) {
      const body = method === 'POST' || method === 'PUT' ? { key: key('I'), value: 'x' } : undefined;
      const asUser = await t.api(method, path, { token: user.token, body });
      const anonymous = await t.api(method, path, { token: null, body });
      expect([method, path, asUser.status, asUser.body, anonymous.status, anonymous.body]).toEqual([method, path, 403, FORBIDDEN, 401, { message: '401 Unauthorized' }]);
    }
  });

  it('validates as Ci::InstanceVariable: 10,000 characters of value, unique keys, and at most 25 variables', async () => {
    const cases: [Record<string, unknown>, Record<string, string[]>][] = [
      [{ key: key('I'), value: 'v'.repeat(10_001) }, { value: ['The value of the provided variable exceeds the 10000 character limit'] }],
      [{ key: key('I'), value: 'short', masked: true }, { value: ['is invalid'] }],
      [{ key: 'no spaces', value: 'x', description: 'd'.repeat(256) }, { key: [KEY_FORMAT], description: ['is too long (maximum is 255 characters)'] }],
    ];
    for (const [body, message] of cases) {
      const res = await t.api('POST', base, { body });
      expect([res.status, res.body]).toEqual([400, { message }]);
    }
    expect((await t.api('POST', base, { body: { key: key('I'), value: 'v'.repeat(10_000) } })).status).toBe(201);

    const existing: { key: string }[] = (await t.api('GET', `${base}?per_page=100`)).body;
    const made: string[] = [];
    for (let i = existing.length; i < 25; i++) {
      const name = key('I');
      made.push(name);
      expect((await t.api('POST', base, { body: { key: name, value: 'x' } })).status).toBe(201);
    }
    const dup = await t.api('POST', base, { body: { key: made[0], value: 'x' } });
    // At the limit a duplicate fails twice, in the order GitLab's validators run (Limitable before uniqueness).
    expect([dup.status, Object.entries(dup.body.message)]).toEqual([
      400,
      [
        ['base', ['Maximum number of ci instance level variables (25) exceeded']],
        ['key', [`(${made[0]}) has already been taken`]],
      ],
    ]);
    const over = await t.api('POST', base, { body: { key: key('I'), value: 'x' } });
    expect([over.status, over.body]).toEqual([400, { message: { base: ['Maximum number of ci instance level variables (25) exceeded'] } }]);
    for (const v of [...existing, ...made.map((k) => ({ key: k }))]) await t.api('DELETE', `${base}/${v.key}`);
    expect((await t.api('GET', base)).body).toEqual([]);
  });
});

describe('hostile input', () => {
  it('answers 400, never 500, to NUL bytes, wrong types and odd keys, and 413 to a body past the limit', async () => {
    const base = `/projects/${project.id}/variables`;
    for (const body of [{ key: 'A\u0000B', value: 'x' }, { key: key(), value: 'a\u0000b' }, { key: key(), value: 'x', environment_scope: '\u0000' }]) {
      const res = await t.api('POST', base, { token: owner.token, body: JSON.stringify(body), headers: { 'Content-Type': 'application/json' } });
      expect([body, res.status]).toEqual([body, 400]);
    }
    expect((await t.api('GET', `${base}/A%00B`, { token: owner.token })).status).toBe(400);
    expect((await t.api('GET', `${base}/ANY?filter[environment_scope]=%00`, { token: owner.token })).status).toBe(400);
    const odd = ['%F0%9F%98%80', 'a%20b', 'a.b', 'K'.repeat(5000), '%25', "'%3B%20DROP%20TABLE%20ci_variables%3B--"];
    for (const path of odd) {
      const res = await t.api('GET', `${base}/${path}`, { token: owner.token });
      expect([path, res.status]).toEqual([path, 404]);
    }
    const wrongTypes: unknown[] = [[], 'not an object', { key: null, value: null }, { key: 1, value: true }, { key: key(), value: 'x', environment_scope: ['*'] }, { key: key(), value: 'x', filter: 'x' }, { key: key(), value: 'lone \ud800 surrogate', description: '\udfff' }, { key: '\ud800', value: 'x' }];
    for (const body of wrongTypes) {
      const res = await t.api('POST', base, { token: owner.token, body });
      expect([body, res.status < 500]).toEqual([body, true]);
      expect([body, res.status === 201 || res.status === 400]).toEqual([body, true]);
    }
    const emoji = await t.api('POST', base, { token: owner.token, body: { key: '😀'.repeat(300), value: 'x' } });
    expect([emoji.status, emoji.body]).toEqual([400, { message: { key: ['is too long (maximum is 255 characters)', KEY_FORMAT] } }]);
    const starry = await t.api('POST', base, { token: owner.token, body: { key: key(), value: 'x', environment_scope: `${'*a'.repeat(127)}*` } });
    expect(starry.status).toBe(201);

    const large = await t.api('POST', base, { token: owner.token, body: { key: key(), value: 'v'.repeat(1024 * 1024) } });
    expect([large.status, large.body.value.length]).toEqual([201, 1024 * 1024]);
    const huge = await t.api('POST', base, { token: owner.token, body: { key: key(), value: 'v'.repeat(11 * 1024 * 1024) } });
    expect([huge.status, huge.body]).toEqual([413, { message: '413 Request Entity Too Large' }]);
  });
});

describe('variables over GraphQL', () => {
  const FIELDS = 'id key value variableType protected masked hidden raw environmentScope description';

  it("lists a project's and a group's variables with GitLab's names and global IDs", async () => {
    const p = await createProject(t, owner.token, { namespaceId: group.id });
    const created = await t.api('POST', `/projects/${p.id}/variables`, { token: owner.token, body: { key: 'GQL_FILE', value: 'content', variable_type: 'file', environment_scope: 'prod' } });
    expect(created.status).toBe(201);
    const res = await t.graphql(`query($path: ID!) { project(fullPath: $path) { ciVariables(sort: KEY_ASC) { count limit nodes { ${FIELDS} } } } }`, { path: p.path_with_namespace }, owner.token);
    expect(res.body.errors).toBeUndefined();
    const connection = res.body.data.project.ciVariables;
    expect(connection.count).toBe(1);
    expect(connection.limit).toBe(8000);
    expect(connection.nodes).toEqual([
      { id: expect.stringMatching(/^gid:\/\/gitlab\/Ci::Variable\/\d+$/), key: 'GQL_FILE', value: 'content', variableType: 'FILE', protected: false, masked: false, hidden: false, raw: false, environmentScope: 'prod', description: null },
    ]);

    const g = await createGroup(t, owner.token);
    for (const k of ['B_VAR', 'A_VAR']) await t.api('POST', `/groups/${g.id}/variables`, { token: owner.token, body: { key: k, value: k } });
    const sorted = async (sort: string) =>
      (await t.graphql(`query($path: ID!) { group(fullPath: $path) { ciVariables(sort: ${sort}) { limit nodes { id key } } } }`, { path: g.full_path }, owner.token)).body.data.group.ciVariables;
    const asc = await sorted('KEY_ASC');
    expect(asc.limit).toBe(30000);
    expect(asc.nodes.map((n: { key: string }) => n.key)).toEqual(['A_VAR', 'B_VAR']);
    expect(asc.nodes[0].id).toMatch(/^gid:\/\/gitlab\/Ci::GroupVariable\/\d+$/);
    expect((await sorted('KEY_DESC')).nodes.map((n: { key: string }) => n.key)).toEqual(['B_VAR', 'A_VAR']);
  });

  it('creates, updates and deletes through mutations, with the same rules as REST', async () => {
    const p = await createProject(t, owner.token, { namespaceId: group.id });
    const create = await t.graphql(
      `mutation($id: ID!) { ciProjectVariableCreate(input: { projectId: $id, key: "M_KEY", value: "mutation-value", maskedAndHidden: true, environmentScope: "review/*" }) { ciProjectVariable { key value hidden masked environmentScope } errors } }`,
      { id: p.path_with_namespace },
      owner.token,
    );
    expect(create.body).toEqual({ data: { ciProjectVariableCreate: { ciProjectVariable: { key: 'M_KEY', value: null, hidden: true, masked: true, environmentScope: 'review/*' }, errors: [] } } });
    // GitLab's mutations answer a record that does not validate in `errors`, in Rails' full messages.
    const invalid = await t.graphql(`mutation($id: ID!) { ciProjectVariableCreate(input: { projectId: $id, key: "bad key", value: "x" }) { ciProjectVariable { key } errors } }`, { id: String(p.id) }, owner.token);
    expect(invalid.body).toEqual({ data: { ciProjectVariableCreate: { ciProjectVariable: null, errors: [`Key ${KEY_FORMAT}`] } } });
    const update = await t.graphql(
      `mutation($id: ID!) { ciProjectVariableUpdate(input: { projectId: $id, key: "M_KEY", filter: { environmentScope: "review/*" }, description: "via graphql" }) { ciProjectVariable { description value } errors } }`,
      { id: String(p.id) },
      owner.token,
    );
    expect(update.body).toEqual({ data: { ciProjectVariableUpdate: { ciProjectVariable: { description: 'via graphql', value: null }, errors: [] } } });
    const del = await t.graphql(`mutation($id: ID!) { ciProjectVariableDelete(input: { projectId: $id, key: "M_KEY" }) { ciProjectVariable { key } errors } }`, { id: String(p.id) }, owner.token);
    expect(del.body).toEqual({ data: { ciProjectVariableDelete: { ciProjectVariable: { key: 'M_KEY' }, errors: [] } } });

    const g = await createGroup(t, owner.token);
    const groupCreate = await t.graphql(
      `mutation($id: ID!) { ciGroupVariableCreate(input: { groupId: $id, key: "G_KEY", value: "v", protected: true }) { ciGroupVariable { key protected } errors } }`,
      { id: String(g.id) },
      owner.token,
    );
    expect(groupCreate.body).toEqual({ data: { ciGroupVariableCreate: { ciGroupVariable: { key: 'G_KEY', protected: true }, errors: [] } } });
    const groupMissing = await t.graphql(`mutation($id: ID!) { ciGroupVariableDelete(input: { groupId: $id, key: "NOPE" }) { ciGroupVariable { key } errors } }`, { id: String(g.id) }, owner.token);
    expect(groupMissing.body.errors?.[0]).toMatchObject({ message: "The resource that you are attempting to access does not exist or you don't have permission to perform this action", extensions: { code: 'NOT_FOUND' } });
  });

  it("takes GitLab's relay shape: clientMutationId echoed, validation and conflicts in errors, refusals raised", async () => {
    const name = key('R');
    const create = `mutation($cid: String, $key: String!) {
      ciInstanceVariableCreate(input: { clientMutationId: $cid, key: $key, value: "relay-value" }) { clientMutationId errors ciInstanceVariable { key value } }
    }`;
    const made = await t.graphql(create, { cid: 'relay-1', key: name });
    expect(made.body).toEqual({ data: { ciInstanceVariableCreate: { clientMutationId: 'relay-1', errors: [], ciInstanceVariable: { key: name, value: 'relay-value' } } } });
    const taken = await t.graphql(create, { cid: 'relay-2', key: name });
    expect(taken.body).toEqual({ data: { ciInstanceVariableCreate: { clientMutationId: 'relay-2', errors: [`Key (${name}) has already been taken`], ciInstanceVariable: null } } });
    const update = await t.graphql(
      `mutation($key: String!) { ciInstanceVariableUpdate(input: { clientMutationId: "relay-3", key: $key, protected: true }) { clientMutationId errors ciInstanceVariable { key protected } } }`,
      { key: name },
    );
    expect(update.body).toEqual({ data: { ciInstanceVariableUpdate: { clientMutationId: 'relay-3', errors: [], ciInstanceVariable: { key: name, protected: true } } } });

    // A key set for two environment scopes, named without a filter: GitLab's conflict, in errors for GraphQL.
    const p = await createProject(t, owner.token, { namespaceId: group.id });
    for (const scope of ['production', 'staging']) await t.api('POST', `/projects/${p.id}/variables`, { token: owner.token, body: { key: 'TWICE', value: 'v', environment_scope: scope } });
    const ambiguous = await t.graphql(
      `mutation($id: ID!) { ciProjectVariableDelete(input: { clientMutationId: "relay-4", projectId: $id, key: "TWICE" }) { clientMutationId errors ciProjectVariable { key } } }`,
      { id: String(p.id) },
      owner.token,
    );
    expect(ambiguous.body).toEqual({ data: { ciProjectVariableDelete: { clientMutationId: 'relay-4', errors: [AMBIGUOUS.message], ciProjectVariable: null } } });

    // Who may not, and what is not there, stay top-level errors.
    const refused = await t.graphql(create, { cid: 'relay-5', key: key('R') }, owner.token);
    expect(refused.body.data).toEqual({ ciInstanceVariableCreate: null });
    expect(refused.body.errors?.[0].extensions?.code).toBe('FORBIDDEN');
    const gone = await t.graphql(`mutation { ciInstanceVariableDelete(input: { key: "NO_SUCH_KEY" }) { errors ciInstanceVariable { key } } }`);
    expect(gone.body.data).toEqual({ ciInstanceVariableDelete: null });
    expect(gone.body.errors?.[0].extensions?.code).toBe('NOT_FOUND');
    const removed = await t.graphql(`mutation($key: String!) { ciInstanceVariableDelete(input: { key: $key }) { errors ciInstanceVariable { key } } }`, { key: name });
    expect(removed.body).toEqual({ data: { ciInstanceVariableDelete: { errors: [], ciInstanceVariable: { key: name } } } });
  });

  it("lists the instance's variables for administrators only", async () => {
    const name = key('I');
    await t.api('POST', '/admin/ci/variables', { body: { key: name, value: 'instance-wide' } });
    const query = `{ ciVariables { nodes { id key value variableType protected masked raw environmentScope description } } ciVariable(key: "${name}") { key value } }`;
    const admin = await t.graphql(query);
    expect(admin.body.errors).toBeUndefined();
    expect(admin.body.data.ciVariables.nodes).toContainEqual({
      id: expect.stringMatching(/^gid:\/\/gitlab\/Ci::InstanceVariable\/\d+$/),
      key: name,
      value: 'instance-wide',
      variableType: 'ENV_VAR',
      protected: false,
      masked: false,
      raw: false,
      environmentScope: null,
      description: null,
    });
    expect(admin.body.data.ciVariable).toEqual({ key: name, value: 'instance-wide' });
    const user = await createUser(t);
    const denied = await t.graphql(query, {}, user.token);
    expect(denied.body.data).toEqual({ ciVariables: null, ciVariable: null });
    expect(denied.body.errors?.map((e) => e.extensions?.code)).toEqual(['FORBIDDEN', 'FORBIDDEN']);
    await t.api('DELETE', `/admin/ci/variables/${name}`);
  });
});

describe('the variables a job gets (CiVariablesService.forJob)', () => {
  it('orders instance, groups from the top down, then the project; keeps protected ones for protected refs; picks the closest environment scope', async () => {
    const top = await createGroup(t, owner.token);
    const sub = await createGroup(t, owner.token, { parentId: top.id });
    const p = await createProject(t, owner.token, { namespaceId: sub.id });
    const sibling = await createProject(t, owner.token, { namespaceId: top.id });
    const tag = key('JOB');
    const add = async (path: string, k: string, value: string, extra: Record<string, unknown> = {}) => {
      const res = await t.api('POST', path, { token: path.startsWith('/admin') ? t.rootToken : owner.token, body: { key: `${tag}_${k}`, value, ...extra } });
      expect([k, value, res.status]).toEqual([k, value, 201]);
    };
    await add('/admin/ci/variables', 'SHARED', 'instance');
    await add('/admin/ci/variables', 'INSTANCE_SECRET', 'instance-secret', { protected: true, masked: true });
    await add(`/groups/${top.id}/variables`, 'SHARED', 'top');
    await add(`/groups/${top.id}/variables`, 'TOP_FILE', 'file body', { variable_type: 'file' });
    await add(`/groups/${sub.id}/variables`, 'SHARED', 'sub');
    await add(`/groups/${sub.id}/variables`, 'DEPLOY', 'sub-any');
    await add(`/groups/${sub.id}/variables`, 'DEPLOY', 'sub-review', { environment_scope: 'review/*' });
    await add(`/groups/${sub.id}/variables`, 'DEPLOY', 'sub-review-app', { environment_scope: 'review/app' });
    await add(`/groups/${sub.id}/variables`, 'DEPLOY', 'sub-r', { environment_scope: 'r*' });
    await add(`/projects/${p.id}/variables`, 'SHARED', 'project', { raw: true });
    await add(`/projects/${p.id}/variables`, 'PROTECTED', 'project-protected', { protected: true });
    await add(`/projects/${p.id}/variables`, 'PROD_ONLY', 'production', { environment_scope: 'production' });
    await add(`/projects/${sibling.id}/variables`, 'SHARED', 'sibling');

    const app = t.server.app;
    const row = await app.db.project.findUniqueOrThrow({ where: { id: p.id }, include: { namespace: true } });
    const service = createContext(app, null).services.ci_variables;
    const job = async (protectedRef: boolean, environment: string | null) =>
      (await service.forJob(row, { protectedRef, environment })).filter((v) => v.key.startsWith(tag)).map((v) => [v.key.slice(tag.length + 1), v.value]);

    expect(await job(false, null)).toEqual([
      ['SHARED', 'instance'],
      ['SHARED', 'top'],
      ['TOP_FILE', 'file body'],
      ['SHARED', 'sub'],
      ['DEPLOY', 'sub-any'],
      ['SHARED', 'project'],
    ]);
    expect(await job(true, null)).toEqual([
      ['SHARED', 'instance'],
      ['INSTANCE_SECRET', 'instance-secret'],
      ['SHARED', 'top'],
      ['TOP_FILE', 'file body'],
      ['SHARED', 'sub'],
      ['DEPLOY', 'sub-any'],
      ['SHARED', 'project'],
      ['PROTECTED', 'project-protected'],
    ]);
    const deploy = async (environment: string) => (await job(false, environment)).filter(([k]) => k === 'DEPLOY').map(([, v]) => v);
    expect(await deploy('review/app')).toEqual(['sub-review-app']);
    expect(await deploy('review/other')).toEqual(['sub-review']); // `review/*` spells more than `r*`
    expect(await deploy('rc-1')).toEqual(['sub-r']);
    expect(await deploy('staging')).toEqual(['sub-any']);
    expect((await job(false, 'production')).filter(([k]) => k === 'PROD_ONLY')).toEqual([['PROD_ONLY', 'production']]);
    expect((await job(false, 'production-eu')).filter(([k]) => k === 'PROD_ONLY')).toEqual([]);

    const all = await service.forJob(row, { protectedRef: true, environment: 'review/app' });
    const byKey = (k: string) => all.filter((v) => v.key === `${tag}_${k}`);
    expect(byKey('INSTANCE_SECRET')).toEqual([{ key: `${tag}_INSTANCE_SECRET`, value: 'instance-secret', public: false, masked: true, file: false, raw: false, protected: true }]);
    expect(byKey('TOP_FILE')[0]).toMatchObject({ file: true, masked: false, raw: false });
    expect(byKey('SHARED').at(-1)).toMatchObject({ value: 'project', raw: true });

    for (const v of ['SHARED', 'INSTANCE_SECRET']) await t.api('DELETE', `/admin/ci/variables/${tag}_${v}`);
  });

  it('hands a hidden variable its value', async () => {
    const p = await createProject(t, owner.token);
    await t.api('POST', `/projects/${p.id}/variables`, { token: owner.token, body: { key: 'HIDDEN_ONE', value: 'hidden-value', masked_and_hidden: true } });
    const row = await t.server.app.db.project.findUniqueOrThrow({ where: { id: p.id }, include: { namespace: true } });
    const vars = await createContext(t.server.app, null).services.ci_variables.forJob(row, { protectedRef: false, environment: 'production' });
    expect(vars.filter((v) => v.key === 'HIDDEN_ONE')).toEqual([{ key: 'HIDDEN_ONE', value: 'hidden-value', public: false, masked: true, file: false, raw: false, protected: false }]);
  });
});

describe('masking and scope rules', () => {
  it("follows GitLab's Ci::Maskable", () => {
    expect(isMaskable('Hello+World_123/@:-~.=')).toBe(true);
    expect(isMaskable('1234567')).toBe(false);
    expect(isMaskable('12345678')).toBe(true);
    expect(isMaskable('hello world')).toBe(false);
    expect(isMaskable('hello\nworld')).toBe(false);
    expect(isMaskable('hello$VARIABLEworld')).toBe(false);
    expect(isMaskable('hello$VARIABLEworld', true)).toBe(true);
    expect(isMaskable('HelloWorld%#^', true)).toBe(true);
    expect(isMaskable('hello world', true)).toBe(false);
    expect(isMaskable('line-one\nline-two', true)).toBe(false);
    expect(isMaskable('😀😀😀😀😀😀😀😀', true)).toBe(true);
    expect(isMaskable('😀😀😀😀', true)).toBe(false); // eight UTF-16 units, four characters
  });

  it('matches environment scopes as GitLab does, `*` spanning slashes', () => {
    expect(scopeMatches('*', 'anything/at/all')).toBe(true);
    expect(scopeMatches('review/*', 'review/app')).toBe(true);
    expect(scopeMatches('review/*', 'review/')).toBe(true);
    expect(scopeMatches('review/*', 'review')).toBe(false);
    expect(scopeMatches('*-eu', 'prod/x-eu')).toBe(true);
    expect(scopeMatches('a*b*c', 'aXXbYYc')).toBe(true);
    expect(scopeMatches('a*b*c', 'aXXbYY')).toBe(false);
    expect(scopeMatches('prod_%', 'prodX%')).toBe(false); // `_` and `%` are themselves, not LIKE wildcards
    expect(scopeMatches('Production', 'production')).toBe(false);
    expect(scopeMatches(`${'*a'.repeat(127)}*`, `${'a'.repeat(5000)}b`)).toBe(true);
  });
});

describe('@gitbeaker/rest', () => {
  it('drives project, group and instance variables', async () => {
    const api = new Gitlab({ host: t.url, token: owner.token });
    const admin = new Gitlab({ host: t.url, token: t.rootToken });
    const p = await createProject(t, owner.token, { namespaceId: group.id });

    const created = await api.ProjectVariables.create(p.id, 'GB_KEY', 'gitbeaker-value', { protected: true, environmentScope: 'production', description: 'from gitbeaker' });
    expect(created).toMatchObject({ key: 'GB_KEY', value: 'gitbeaker-value', protected: true, environment_scope: 'production', description: 'from gitbeaker' });
    await api.ProjectVariables.create(p.id, 'GB_KEY', 'staging-value', { environmentScope: 'staging' });
    expect((await api.ProjectVariables.all(p.id)).map((v) => [v.key, v.value])).toEqual([
      ['GB_KEY', 'gitbeaker-value'],
      ['GB_KEY', 'staging-value'],
    ]);
    await expect(api.ProjectVariables.show(p.id, 'GB_KEY')).rejects.toMatchObject({ cause: { response: { status: 409 } } });
    expect((await api.ProjectVariables.show(p.id, 'GB_KEY', { filter: { environment_scope: 'staging' } })).value).toBe('staging-value');
    const edited = await api.ProjectVariables.edit(p.id, 'GB_KEY', 'edited-value', { filter: { environment_scope: 'staging' }, masked: true });
    expect(edited).toMatchObject({ value: 'edited-value', masked: true, environment_scope: 'staging' });
    await api.ProjectVariables.remove(p.id, 'GB_KEY', { filter: { environment_scope: 'production' } });
    expect((await api.ProjectVariables.all(p.id)).map((v) => v.value)).toEqual(['edited-value']);

    const g = await createGroup(t, owner.token);
    await api.GroupVariables.create(g.id, 'GB_GROUP', 'group-value', { variableType: 'file' });
    expect(await api.GroupVariables.show(g.id, 'GB_GROUP')).toMatchObject({ key: 'GB_GROUP', value: 'group-value', variable_type: 'file' });
    expect(await api.GroupVariables.edit(g.id, 'GB_GROUP', 'group-edited')).toMatchObject({ value: 'group-edited' });
    await api.GroupVariables.remove(g.id, 'GB_GROUP');
    expect(await api.GroupVariables.all(g.id)).toEqual([]);

    const name = key('GB');
    expect(await admin.InstanceLevelCICDVariables.create(name, 'instance-gitbeaker', { raw: true })).toEqual(instance({ key: name, value: 'instance-gitbeaker', raw: true }));
    expect(await admin.InstanceLevelCICDVariables.show(name)).toMatchObject({ key: name, raw: true });
    expect(await admin.InstanceLevelCICDVariables.edit(name, 'instance-edited', { protected: true })).toMatchObject({ value: 'instance-edited', protected: true });
    expect((await admin.InstanceLevelCICDVariables.all()).map((v) => v.key)).toContain(name);
    // gitbeaker's InstanceLevelCICDVariables.remove sends a GET; the route itself is covered above.
    expect((await t.api('DELETE', `/admin/ci/variables/${name}`)).status).toBe(204);
  });
});
