/**
 * A user's account data: e-mail addresses, status, preferences, impersonation tokens, memberships and personal
 * projects, through REST (raw HTTP and gitbeaker) and GraphQL.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { Gitlab } from '@gitbeaker/rest';
import { suiteServer } from '../support/server.js';
import { addMember, createGroup, createProject, createUser, unique } from '../support/factories.js';

const t = suiteServer();
let admin: InstanceType<typeof Gitlab>;

beforeAll(() => {
  admin = new Gitlab({ host: t.url, token: t.rootToken });
});

describe('e-mail addresses', () => {
  it('adds, lists, reads and deletes the current user\'s addresses', async () => {
    const user = await createUser(t);
    const email = `${unique('second')}@example.com`;
    const created = await t.api('POST', '/user/emails', { token: user.token, body: { email } });
    expect([created.status, created.body]).toEqual([201, { id: expect.any(Number), email, confirmed_at: null }]);
    const list = await t.api('GET', '/user/emails', { token: user.token });
    expect([list.headers.get('x-total'), list.body]).toEqual(['1', [created.body]]);
    expect((await t.api('GET', `/user/emails/${created.body.id}`, { token: user.token })).body).toEqual(created.body);
    // Administrators do not read others' addresses through /user/emails.
    expect((await t.api('GET', `/user/emails/${created.body.id}`)).body).toEqual({ message: '404 Email Not Found' });
    expect((await t.api('DELETE', `/user/emails/${created.body.id}`, { token: user.token })).status).toBe(204);
    expect((await t.api('GET', `/user/emails/${created.body.id}`, { token: user.token })).body).toEqual({ message: '404 Email Not Found' });
    expect((await t.api('GET', '/user/emails', { token: null })).status).toBe(401);
  });

  it('refuses taken and invalid addresses', async () => {
    const a = await createUser(t);
    const b = await createUser(t);
    const post = (email: string) => t.api('POST', '/user/emails', { token: a.token, body: { email } });
    expect((await post(`${b.username}@EXAMPLE.com`)).body).toEqual({ message: { email: ['has already been taken'] } });
    expect((await post('nope')).body).toEqual({ message: { email: ['is invalid'] } });
    expect((await t.api('POST', '/user/emails', { token: a.token, body: {} })).body).toEqual({ error: 'email is missing' });
    const email = `${unique('one')}@example.com`;
    expect((await post(email)).status).toBe(201);
    expect((await t.api('POST', '/user/emails', { token: b.token, body: { email: email.toUpperCase() } })).body).toEqual({ message: { email: ['has already been taken'] } });
    // A secondary address is taken for primary ones too.
    expect((await t.api('PUT', `/users/${b.id}`, { body: { email } })).body).toEqual({ message: 'Email has already been taken' });
  });

  it('lets administrators manage others\' addresses, confirmed when asked, and a confirmed one may become public', async () => {
    const user = await createUser(t);
    const email = `${unique('admin-made')}@example.com`;
    const created = await t.api('POST', `/users/${user.id}/emails`, { body: { email, skip_confirmation: true } });
    expect(created.body).toMatchObject({ email, confirmed_at: expect.any(String) });
    expect((await t.api('GET', `/users/${user.id}/emails`)).body).toEqual([created.body]);
    expect((await t.api('GET', `/users/${user.id}/emails`, { token: (await createUser(t)).token })).body).toEqual({ message: '403 Forbidden' });
    expect((await t.api('GET', '/users/2147483000/emails', { token: user.token })).body).toEqual({ message: '403 Forbidden' });
    expect((await t.api('GET', '/users/2147483000/emails')).body).toEqual({ message: '404 User Not Found' });
    const updated = await t.api('PUT', `/users/${user.id}`, { body: { public_email: email, commit_email: email } });
    expect([updated.body.public_email, updated.body.commit_email]).toEqual([email, email]);
    expect((await t.api('DELETE', `/users/${user.id}/emails/${created.body.id}`)).status).toBe(204);
    const after = await t.api('GET', `/users/${user.id}`);
    expect([after.body.public_email, after.body.commit_email]).toEqual([null, `${user.username}@example.com`]);
    // An unconfirmed address may not be public.
    const unconfirmed = await t.api('POST', `/users/${user.id}/emails`, { body: { email: `${unique('u')}@example.com` } });
    expect((await t.api('PUT', `/users/${user.id}`, { body: { public_email: unconfirmed.body.email } })).body).toEqual({ message: { public_email: ['is not an email you own'] } });
  });

  it('works through gitbeaker UserEmails', async () => {
    const user = await createUser(t);
    const asUser = new Gitlab({ host: t.url, token: user.token });
    const mine = await asUser.UserEmails.create(`${unique('gb')}@example.com`);
    const theirs = await admin.UserEmails.create(`${unique('gba')}@example.com`, { userId: user.id, skipConfirmation: true });
    expect((await asUser.UserEmails.all()).map((e) => e.id)).toEqual([mine.id, theirs.id]);
    expect((await asUser.UserEmails.show(mine.id)).email).toBe(mine.email);
    await asUser.UserEmails.remove(mine.id);
    await admin.UserEmails.remove(theirs.id, { userId: user.id });
    expect(await admin.UserEmails.all({ userId: user.id })).toEqual([]);
  });
});

describe('status', () => {
  it('sets, reads and clears the current user\'s status', async () => {
    const user = await createUser(t);
    const blank = { emoji: null, availability: null, message: null, message_html: '', clear_status_at: null };
    expect((await t.api('GET', '/user/status', { token: user.token })).body).toEqual(blank);
    const set = await t.api('PUT', '/user/status', { token: user.token, body: { message: 'On <leave>', availability: 'busy', clear_status_after: '3_hours' } });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ emoji: 'speech_balloon', availability: 'busy', message: 'On <leave>', message_html: 'On &lt;leave&gt;' });
    const clearsAt = new Date(set.body.clear_status_at).getTime() - Date.now();
    expect(clearsAt).toBeGreaterThan(2.9 * 3_600_000);
    expect(clearsAt).toBeLessThanOrEqual(3 * 3_600_000);
    expect((await t.api('GET', `/users/${user.username}/status`, { token: null })).body).toEqual(set.body);
    expect((await t.api('GET', `/users/${user.id}/status`)).body).toEqual(set.body);
    // Whatever is left out is cleared.
    const smirk = await t.api('PUT', '/user/status', { token: user.token, body: { emoji: 'smirk' } });
    expect(smirk.body).toMatchObject({ emoji: 'smirk', availability: 'not_set', message: null, clear_status_at: null });
    expect((await t.api('PUT', '/user/status', { token: user.token })).body).toEqual(blank);
    expect((await t.api('GET', '/user/status', { token: user.token })).body).toEqual(blank);
  });

  it('refuses bad values, and a status past its time is gone', async () => {
    const user = await createUser(t);
    const put = (body: Record<string, unknown>) => t.api('PUT', '/user/status', { token: user.token, body });
    expect((await put({ emoji: 'does not exist', message: 'hi' })).body).toEqual({ message: { emoji: ['does not exist'] } });
    expect((await put({ message: 'x'.repeat(101) })).body).toEqual({ message: { message: ['is too long (maximum is 100 characters)'] } });
    expect((await put({ message: 'hi', clear_status_after: 'wrong' })).body).toEqual({ error: 'clear_status_after does not have a valid value' });
    expect((await put({ message: 'hi', clear_status_after: '30_minutes' })).status).toBe(200);
    await t.server.database.prisma.userStatus.update({ where: { userId: user.id }, data: { clearStatusAt: new Date(Date.now() - 1000) } });
    expect((await t.api('GET', '/user/status', { token: user.token })).body.message).toBeNull();
    expect((await t.api('GET', '/users/2147483000/status')).body).toEqual({ message: '404 User Not Found' });
    expect((await t.api('PUT', '/user/status', { token: null, body: { message: 'x' } })).status).toBe(401);
  });

  it('shows in GraphQL as GitLab names it', async () => {
    const user = await createUser(t);
    await t.api('PUT', '/user/status', { token: user.token, body: { message: 'gql', emoji: 'coffee' } });
    const res = await t.graphql('{ currentUser { status { emoji message messageHtml availability } } }', {}, user.token);
    expect(res.body.data?.currentUser.status).toEqual({ emoji: 'coffee', message: 'gql', messageHtml: 'gql', availability: 'NOT_SET' });
    const set = await t.graphql('mutation { userStatusSet(input: { message: "later", clearStatusAfter: _1_day }) { userStatus { message clearStatusAt } errors } }', {}, user.token);
    expect(set.body.data?.userStatusSet).toMatchObject({ userStatus: { message: 'later' }, errors: [] });
  });
});

describe('preferences', () => {
  it('reads and changes the current user\'s preferences', async () => {
    const user = await createUser(t);
    const got = await t.api('GET', '/user/preferences', { token: user.token });
    expect(got.body).toEqual({ id: expect.any(Number), user_id: user.id, view_diffs_file_by_file: false, show_whitespace_in_diffs: true, pass_user_identities_to_ci_jwt: false });
    const put = await t.api('PUT', '/user/preferences', { token: user.token, body: { view_diffs_file_by_file: true, pass_user_identities_to_ci_jwt: true } });
    expect([put.status, put.body]).toEqual([200, { ...got.body, view_diffs_file_by_file: true, pass_user_identities_to_ci_jwt: true }]);
    const none = await t.api('PUT', '/user/preferences', { token: user.token, body: {} });
    expect([none.status, none.body]).toEqual([
      400,
      { error: 'view_diffs_file_by_file, show_whitespace_in_diffs, pass_user_identities_to_ci_jwt are missing, at least one parameter must be provided' },
    ]);
    // PUT /users/:id takes view_diffs_file_by_file too.
    await t.api('PUT', `/users/${user.id}`, { body: { view_diffs_file_by_file: false } });
    expect((await t.api('GET', '/user/preferences', { token: user.token })).body.view_diffs_file_by_file).toBe(false);
    expect((await t.api('GET', '/user/preferences', { token: null })).status).toBe(401);
  });

  it('works through gitbeaker and GraphQL', async () => {
    const user = await createUser(t);
    const asUser = new Gitlab({ host: t.url, token: user.token });
    const edited = await asUser.Users.editCurrentUserPreferences(true, false);
    expect(edited).toMatchObject({ view_diffs_file_by_file: true, show_whitespace_in_diffs: false });
    expect(await asUser.Users.showCurrentUserPreferences()).toEqual(edited);
    const gql = await t.graphql(
      'mutation { userPreferencesUpdate(input: { showWhitespaceInDiffs: true }) { userPreferences { showWhitespaceInDiffs viewDiffsFileByFile } errors } }',
      {},
      user.token,
    );
    expect(gql.body.data?.userPreferencesUpdate).toEqual({ userPreferences: { showWhitespaceInDiffs: true, viewDiffsFileByFile: true }, errors: [] });
    const idType = await t.graphql('mutation { userPreferencesUpdate(input: { visibilityPipelineIdType: IID }) { userPreferences { visibilityPipelineIdType } errors } }', {}, user.token);
    expect(idType.body.data?.userPreferencesUpdate).toEqual({ userPreferences: { visibilityPipelineIdType: 'IID' }, errors: [] });
    const read = await t.graphql('{ currentUser { preferences { visibilityPipelineIdType showWhitespaceInDiffs } } }', {}, user.token);
    expect(read.body.data?.currentUser.preferences).toEqual({ visibilityPipelineIdType: 'IID', showWhitespaceInDiffs: true });
    expect(Object.keys((await t.api('GET', '/user/preferences', { token: user.token })).body)).not.toContain('visibility_pipeline_id_type');
    // The issue lists' sort (GitLab's issues_sort): none until chosen, then the IssueSort value chosen.
    expect((await t.graphql('{ currentUser { preferences { issuesSort } } }', {}, user.token)).body.data?.currentUser.preferences).toEqual({ issuesSort: null });
    const sorted = await t.graphql('mutation { userPreferencesUpdate(input: { issuesSort: TITLE_ASC }) { userPreferences { issuesSort } errors } }', {}, user.token);
    expect(sorted.body.data?.userPreferencesUpdate).toEqual({ userPreferences: { issuesSort: 'TITLE_ASC' }, errors: [] });
    const bad = await t.graphql('mutation { userPreferencesUpdate(input: { issuesSort: SIDEWAYS }) { errors } }', {}, user.token);
    expect(bad.body.errors?.[0].message).toMatch(/SIDEWAYS/);
  });
});

describe('impersonation tokens', () => {
  it('creates a token that authenticates as the user, lists and revokes it', async () => {
    const user = await createUser(t);
    const created = await t.api('POST', `/users/${user.id}/impersonation_tokens`, { body: { name: 'support', scopes: ['api', 'read_user'], expires_at: '2099-01-01' } });
    expect(created.status).toBe(201);
    expect(Object.keys(created.body).sort()).toEqual(
      ['active', 'created_at', 'description', 'expires_at', 'id', 'impersonation', 'last_used_at', 'name', 'revoked', 'scopes', 'token', 'user_id'].sort(),
    );
    expect(created.body).toMatchObject({ name: 'support', impersonation: true, active: true, revoked: false, scopes: ['api', 'read_user'], user_id: user.id, expires_at: '2099-01-01' });
    const me = await t.api('GET', '/user', { token: created.body.token });
    expect([me.status, me.body.username]).toEqual([200, user.username]);
    const list = await t.api('GET', `/users/${user.id}/impersonation_tokens`);
    expect(list.body.map((x: { id: number }) => x.id)).toEqual([created.body.id]);
    expect(list.body[0]).not.toHaveProperty('token');
    expect((await t.api('GET', `/users/${user.id}/impersonation_tokens/${created.body.id}`)).body).toEqual(list.body[0]);
    // The user's own list of personal access tokens leaves it out; an administrator's includes it.
    expect((await t.api('GET', '/personal_access_tokens', { token: user.token })).body.map((x: { name: string }) => x.name)).toEqual(['test']);
    expect((await t.api('DELETE', `/users/${user.id}/impersonation_tokens/${created.body.id}`)).status).toBe(204);
    expect((await t.api('GET', '/user', { token: created.body.token })).status).toBe(401);
    expect((await t.api('GET', `/users/${user.id}/impersonation_tokens?state=inactive`)).body.map((x: { active: boolean }) => x.active)).toEqual([false]);
    expect((await t.api('GET', `/users/${user.id}/impersonation_tokens?state=active`)).body).toEqual([]);
    expect((await t.api('GET', `/users/${user.id}/impersonation_tokens?state=all`)).body).toHaveLength(1);
  });

  it('answers as GitLab: administrators only, 404 for unknown users and tokens, 400 for bad input', async () => {
    const user = await createUser(t);
    expect((await t.api('GET', '/users/2147483000/impersonation_tokens', { token: user.token })).body).toEqual({ message: '403 Forbidden' });
    expect((await t.api('POST', `/users/${user.id}/impersonation_tokens`, { token: user.token, body: { name: 'x', scopes: ['api'] } })).body).toEqual({ message: '403 Forbidden' });
    expect((await t.api('GET', '/users/2147483000/impersonation_tokens')).body).toEqual({ message: '404 User Not Found' });
    expect((await t.api('GET', `/users/${user.id}/impersonation_tokens/2147483000`)).body).toEqual({ message: '404 Impersonation Token Not Found' });
    // A personal access token is not an impersonation token.
    const own = await t.api('GET', '/personal_access_tokens/self', { token: user.token });
    expect((await t.api('GET', `/users/${user.id}/impersonation_tokens/${own.body.id}`)).status).toBe(404);
    expect((await t.api('POST', `/users/${user.id}/impersonation_tokens`, { body: {} })).body).toEqual({ error: 'name is missing' });
    expect((await t.api('POST', `/users/${user.id}/impersonation_tokens`, { body: { name: 'x' } })).body).toEqual({ message: { scopes: ["can't be blank"] } });
    expect((await t.api('GET', `/users/${user.id}/impersonation_tokens?state=sometimes`)).body).toEqual({ error: 'state does not have a valid value' });
  });

  it('works through gitbeaker UserImpersonationTokens', async () => {
    const user = await createUser(t);
    const token = await admin.UserImpersonationTokens.create(user.id, 'gb', ['read_api'], { expiresAt: '2099-01-01' });
    expect(token.impersonation).toBe(true);
    expect((await admin.UserImpersonationTokens.all(user.id)).map((x) => x.id)).toEqual([token.id]);
    expect((await admin.UserImpersonationTokens.show(user.id, token.id)).name).toBe('gb');
    await admin.UserImpersonationTokens.revoke(user.id, token.id);
    expect((await admin.UserImpersonationTokens.show(user.id, token.id)).revoked).toBe(true);
  });
});

describe('memberships and personal projects', () => {
  it('lists a user\'s memberships to administrators, by type', async () => {
    const owner = await createUser(t);
    const user = await createUser(t);
    const group = await createGroup(t, owner.token);
    const project = await createProject(t, owner.token);
    await addMember(t, owner.token, 'groups', group.id, user.id, 10);
    await addMember(t, owner.token, 'projects', project.id, user.id, 30);
    const all = await t.api('GET', `/users/${user.id}/memberships`);
    expect([all.status, all.headers.get('x-total')]).toEqual([200, '2']);
    expect(all.body).toEqual([
      { source_id: group.id, source_name: group.name, source_type: 'Namespace', access_level: 10 },
      { source_id: project.id, source_name: project.name, source_type: 'Project', access_level: 30 },
    ]);
    expect((await t.api('GET', `/users/${user.id}/memberships?type=Project`)).body).toEqual([all.body[1]]);
    expect((await t.api('GET', `/users/${user.id}/memberships?type=Namespace`)).body).toEqual([all.body[0]]);
    expect((await t.api('GET', `/users/${user.id}/memberships?type=foo`)).status).toBe(400);
    expect((await t.api('GET', `/users/${user.id}/memberships`, { token: user.token })).body).toEqual({ message: '403 Forbidden' });
    expect((await admin.Users.allMemberships(user.id)).map((m) => m.source_type)).toEqual(['Namespace', 'Project']);
  });

  it('lists the projects of a user\'s personal namespace that the caller can read', async () => {
    const user = await createUser(t);
    const other = await createUser(t);
    const open = await createProject(t, user.token, { visibility: 'public' });
    const closed = await createProject(t, user.token, { visibility: 'private' });
    const asOwner = await t.api('GET', `/users/${user.id}/projects`, { token: user.token });
    expect(asOwner.body.map((p: { id: number }) => p.id)).toEqual([closed.id, open.id]);
    expect(asOwner.headers.get('x-total')).toBe('2');
    expect((await t.api('GET', `/users/${user.username}/projects`, { token: other.token })).body.map((p: { id: number }) => p.id)).toEqual([open.id]);
    expect((await t.api('GET', `/users/${user.id}/projects`, { token: null })).body.map((p: { id: number }) => p.id)).toEqual([open.id]);
    expect((await t.api('GET', '/users/2147483000/projects')).body).toEqual({ message: '404 User Not Found' });
    // GitLab's filters and order: newest first unless asked otherwise.
    const get = async (query: string) => (await t.api('GET', `/users/${user.id}/projects?${query}`, { token: user.token })).body.map((p: { id: number }) => p.id);
    expect(await get('')).toEqual([closed.id, open.id]);
    expect(await get('order_by=id&sort=asc')).toEqual([open.id, closed.id]);
    expect(await get('visibility=private')).toEqual([closed.id]);
    expect(await get(`search=${closed.name}`)).toEqual([closed.id]);
    expect(await get('archived=true')).toEqual([]);
    const viaGitbeaker = await new Gitlab({ host: t.url, token: other.token }).Users.allProjects(user.id, { pagination: 'offset' });
    expect(viaGitbeaker.map((p) => p.id)).toEqual([open.id]);
  });
});

describe('GraphQL user fields', () => {
  it('answers currentUser with GitLab\'s field names', async () => {
    const user = await createUser(t);
    await t.api('PUT', `/users/${user.id}`, { body: { bio: 'hello', location: 'Porto', job_title: 'Dev', organization: 'Org', pronouns: 'she/her', linkedin: 'ln' } });
    const res = await t.graphql(
      '{ currentUser { username active state bio location publicEmail commitEmail jobTitle organization workInformation pronouns linkedin webUrl human type bot } }',
      {},
      user.token,
    );
    expect(res.body).toEqual({
      data: {
        currentUser: {
          username: user.username, active: true, state: 'active', bio: 'hello', location: 'Porto', publicEmail: null, commitEmail: `${user.username}@example.com`,
          jobTitle: 'Dev', organization: 'Org', workInformation: 'Dev at Org', pronouns: 'she/her', linkedin: 'ln', webUrl: expect.stringMatching(new RegExp(`/${user.username}$`)),
          human: true, type: 'HUMAN', bot: false,
        },
      },
    });
  });

  it('manages e-mail addresses, impersonation tokens and memberships through GraphQL with REST\'s rules', async () => {
    const user = await createUser(t);
    const email = `${unique('gql')}@example.com`;
    const created = await t.graphql('mutation($e: String!) { emailCreate(input: { email: $e }) { email { id email confirmedAt } errors } }', { e: email }, user.token);
    expect(created.body.data?.emailCreate).toMatchObject({ email: { email, confirmedAt: null }, errors: [] });
    const listed = await t.graphql('{ currentUser { emails { count nodes { email } } } }', {}, user.token);
    expect(listed.body.data?.currentUser.emails).toEqual({ count: 1, nodes: [{ email }] });
    const token = await t.graphql(
      'mutation($u: ID!) { impersonationTokenCreate(input: { userId: $u, name: "gql", scopes: ["read_api"] }) { personalAccessToken { id impersonation token user { username } } errors } }',
      { u: `gid://gitlab/User/${user.id}` },
      t.rootToken,
    );
    expect(token.body.data?.impersonationTokenCreate).toMatchObject({
      personalAccessToken: { impersonation: true, token: expect.stringMatching(/^glpat-/), user: { username: user.username } },
      errors: [],
    });
    const asImpersonated = await t.graphql('{ currentUser { username } }', {}, token.body.data?.impersonationTokenCreate.personalAccessToken.token);
    expect(asImpersonated.body.data?.currentUser.username).toBe(user.username);
    const refused = await t.graphql('query($u: ID!) { userImpersonationTokens(userId: $u) { count } }', { u: String(user.id) }, user.token);
    expect(refused.body.errors?.[0].extensions?.code).toBe('FORBIDDEN');
    const memberships = await t.graphql('query($u: ID!) { userMemberships(userId: $u) { count } }', { u: String(user.id) }, t.rootToken);
    expect(memberships.body.data?.userMemberships.count).toBe(0);
  });

  it('changes users through userUpdate, administrators only', async () => {
    const user = await createUser(t);
    const mutation = 'mutation($input: UserUpdateInput!) { userUpdate(input: $input) { user { bio jobTitle } errors } }';
    const done = await t.graphql(mutation, { input: { id: `gid://gitlab/User/${user.id}`, bio: 'set by graphql', jobTitle: 'Lead' } }, t.rootToken);
    expect(done.body).toEqual({ data: { userUpdate: { user: { bio: 'set by graphql', jobTitle: 'Lead' }, errors: [] } } });
    const refused = await t.graphql(mutation, { input: { id: String(user.id), bio: 'nope' } }, user.token);
    expect(refused.body.errors?.[0].extensions?.code).toBe('FORBIDDEN');
    expect((await t.api('GET', `/users/${user.id}`)).body.bio).toBe('set by graphql');
  });
});
