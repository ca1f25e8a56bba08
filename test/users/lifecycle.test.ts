/**
 * Users' lifecycle as GitLab's API has it: PUT /users/:id, the state actions (block, unblock, ban, unban,
 * deactivate, activate, approve, reject) with GitLab's codes and words, DELETE /users/:id with the ghost user, and a
 * user who stops being active losing their tokens at once. Through REST (raw HTTP and gitbeaker) and GraphQL.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { Gitlab } from '@gitbeaker/rest';
import { suiteServer } from '../support/server.js';
import { addMember, createGroup, createProject, createUser, unique, type TestUser } from '../support/factories.js';
import { freshKey } from './ssh-keys.js';
import { eventually } from '../support/wait.js';

const t = suiteServer();
let admin: InstanceType<typeof Gitlab>;

beforeAll(() => {
  admin = new Gitlab({ host: t.url, token: t.rootToken });
});

const db = () => t.server.database.prisma;

describe('PUT /users/:id', () => {
  it('changes every profile field GitLab accepts and answers UserWithAdmin', async () => {
    const user = await createUser(t);
    const res = await t.api('PUT', `/users/${user.id}`, {
      body: {
        name: 'Renamed Person',
        bio: 'Writes code',
        location: 'Lisbon',
        skype: 'sk',
        linkedin: 'li',
        twitter: 'tw',
        discord: '123456789012345678',
        website_url: 'https://example.com',
        organization: 'ACME',
        job_title: 'Engineer',
        pronouns: 'they/them',
        note: 'watch this one',
        projects_limit: 7,
        can_create_group: false,
        external: true,
        private_profile: true,
        theme_id: 2,
        color_scheme_id: 4,
        public_email: `${user.username}@example.com`,
      },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.body).toMatchObject({
      id: user.id,
      name: 'Renamed Person',
      bio: 'Writes code',
      location: 'Lisbon',
      public_email: `${user.username}@example.com`,
      skype: 'sk',
      linkedin: 'li',
      twitter: 'tw',
      discord: '123456789012345678',
      website_url: 'https://example.com',
      organization: 'ACME',
      job_title: 'Engineer',
      pronouns: 'they/them',
      work_information: 'Engineer at ACME',
      note: 'watch this one',
      projects_limit: 7,
      can_create_group: false,
      external: true,
      private_profile: true,
      theme_id: 2,
      color_scheme_id: 4,
      is_admin: false,
      created_by: { id: 1, username: 'root' },
    });
    expect(Object.keys(res.body)).toEqual([
      'id', 'username', 'name', 'state', 'locked', 'avatar_url', 'web_url', 'created_at', 'bio', 'location', 'public_email', 'skype', 'linkedin',
      'twitter', 'discord', 'website_url', 'organization', 'job_title', 'pronouns', 'bot', 'work_information', 'followers', 'following',
      'is_followed', 'local_time', 'last_sign_in_at', 'confirmed_at', 'last_activity_on', 'email', 'theme_id', 'color_scheme_id',
      'projects_limit', 'current_sign_in_at', 'identities', 'can_create_group', 'can_create_project', 'two_factor_enabled', 'external',
      'private_profile', 'commit_email', 'preferred_language', 'is_admin', 'note', 'namespace_id', 'created_by', 'email_reset_offered_at',
    ]);
    // What a user sees: GitLab's User entity, and a private profile hides when the user joined and their follow counts.
    const other = await createUser(t);
    const seen = await t.api('GET', `/users/${user.id}`, { token: other.token });
    expect(Object.keys(seen.body)).toEqual([
      'id', 'username', 'name', 'state', 'locked', 'avatar_url', 'web_url', 'bio', 'location', 'public_email', 'skype', 'linkedin', 'twitter',
      'discord', 'website_url', 'organization', 'job_title', 'pronouns', 'bot', 'work_information', 'local_time',
    ]);
  });

  it('gives a new user GitLab\'s empty strings and nulls', async () => {
    const user = await createUser(t);
    const other = await createUser(t);
    const seen = await t.api('GET', `/users/${user.id}`, { token: other.token });
    expect(seen.body).toMatchObject({
      bio: '', location: '', public_email: null, skype: '', linkedin: '', twitter: '', discord: '', website_url: '', organization: '',
      job_title: '', pronouns: null, bot: false, work_information: null, followers: 0, following: 0, is_followed: false, local_time: null,
      created_at: expect.any(String),
    });
    const asAdmin = await t.api('GET', `/users/${user.id}`);
    expect(asAdmin.body).toMatchObject({
      email: `${user.username}@example.com`, commit_email: `${user.username}@example.com`, identities: [], two_factor_enabled: false,
      highest_role: 0, sign_in_count: 0, current_sign_in_ip: null, last_sign_in_ip: null, namespace_id: expect.any(Number),
      confirmed_at: expect.any(String), note: null, email_reset_offered_at: null,
    });
    const anonymous = await t.api('GET', `/users/${user.id}`, { token: null });
    expect([anonymous.status, anonymous.body]).toEqual([403, { message: '403 Forbidden - Not authorized!' }]);
  });

  it('answers 409 for an address or username another user has, and 400 with the field for invalid values', async () => {
    const a = await createUser(t);
    const b = await createUser(t);
    const email = await t.api('PUT', `/users/${a.id}`, { body: { email: `${b.username.toUpperCase()}@example.com` } });
    expect([email.status, email.body]).toEqual([409, { message: 'Email has already been taken' }]);
    const username = await t.api('PUT', `/users/${a.id}`, { body: { username: b.username } });
    expect([username.status, username.body]).toEqual([409, { message: 'Username has already been taken' }]);
    const bad = await t.api('PUT', `/users/${a.id}`, { body: { name: '', bio: 'x'.repeat(256), discord: 'nope', projects_limit: -1 } });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({
      message: {
        name: ["can't be blank"],
        bio: ['is too long (maximum is 255 characters)'],
        discord: ['must contain only a discord user ID.'],
        projects_limit: ['must be greater than or equal to 0'],
      },
    });
    const notOwned = await t.api('PUT', `/users/${a.id}`, { body: { public_email: `${b.username}@example.com` } });
    expect(notOwned.body).toEqual({ message: { public_email: ['is not an email you own'] } });
    expect((await t.api('PUT', `/users/${a.id}`, { body: { projects_limit: 'many' } })).body).toEqual({ error: 'projects_limit is invalid' });
  });

  it('renames the personal namespace and its projects with the username', async () => {
    const user = await createUser(t);
    const project = await createProject(t, user.token);
    const username = unique('renamed');
    const res = await t.api('PUT', `/users/${user.id}`, { body: { username } });
    expect(res.body.username).toBe(username);
    const moved = await t.api('GET', `/projects/${project.id}`, { token: user.token });
    expect(moved.body.path_with_namespace).toBe(`${username}/${project.path}`);
    expect((await t.api('GET', `/projects/${encodeURIComponent(`${username}/${project.path}`)}`, { token: user.token })).status).toBe(200);
    // A username may change its case alone.
    expect((await t.api('PUT', `/users/${user.id}`, { body: { username: username.toUpperCase() } })).status).toBe(200);
  });

  it('refuses non-administrators (403) and anonymous callers (401), and unknown users (404)', async () => {
    const user = await createUser(t);
    expect((await t.api('PUT', `/users/${user.id}`, { token: user.token, body: { name: 'Me' } })).body).toEqual({ message: '403 Forbidden' });
    expect((await t.api('PUT', `/users/${user.id}`, { token: null, body: { name: 'Me' } })).status).toBe(401);
    expect((await t.api('PUT', '/users/2147483000', { body: { name: 'Me' } })).body).toEqual({ message: '404 User Not Found' });
  });

  it('makes a new admin flag count on the user\'s very next request, and counts highest_role from memberships', async () => {
    const user = await createUser(t);
    expect((await t.api('GET', '/user', { token: user.token })).body.is_admin).toBeUndefined();
    await createProject(t, user.token);
    const edited = await t.api('PUT', `/users/${user.id}`, { body: { admin: true, password: 'another-long-password' } });
    expect(edited.body.is_admin).toBe(true);
    expect((await t.api('GET', '/user', { token: user.token })).body.is_admin).toBe(true);
    expect((await t.api('GET', `/users/${user.id}`)).body.highest_role).toBe(50);
  });
});

describe('state actions', () => {
  it('blocks and unblocks as GitLab: true, null when already blocked, 403 for oneself', async () => {
    const user = await createUser(t);
    expect([(await t.api('POST', `/users/${user.id}/block`)).status]).toEqual([201]);
    const again = await t.api('POST', `/users/${user.id}/block`);
    expect([again.status, again.text]).toEqual([201, 'null']);
    expect((await t.api('POST', '/users/1/block')).body).toEqual({ message: '403 Forbidden - The API initiating user cannot be blocked by the API' });
    expect((await t.api('POST', `/users/${user.id}/activate`)).body).toEqual({ message: '403 Forbidden - A blocked user must be unblocked to be activated' });
    expect((await t.api('POST', `/users/${user.id}/deactivate`)).body).toEqual({ message: '403 Forbidden - A blocked user cannot be deactivated by the API' });
    const unblocked = await t.api('POST', `/users/${user.id}/unblock`);
    expect([unblocked.status, unblocked.body]).toEqual([201, true]);
    expect((await t.api('POST', `/users/${user.id}/unblock`)).body).toBe(false);
    expect((await t.api('GET', '/user', { token: user.token })).status).toBe(200);
  });

  it('bans and unbans active users only', async () => {
    const user = await createUser(t);
    expect((await t.api('POST', `/users/${user.id}/unban`)).body).toEqual({ message: 'You cannot unban active users.' });
    const banned = await t.api('POST', `/users/${user.id}/ban`);
    expect([banned.status, banned.body]).toEqual([201, true]);
    expect((await t.api('GET', `/users/${user.id}`)).body.state).toBe('banned');
    const twice = await t.api('POST', `/users/${user.id}/ban`);
    expect([twice.status, twice.body]).toEqual([403, { message: 'You cannot ban banned users.' }]);
    const refused = await t.api('GET', '/user', { token: user.token });
    expect([refused.status, refused.body]).toEqual([403, { message: '403 Forbidden - Your account has been blocked.' }]);
    expect((await t.api('POST', `/users/${user.id}/unban`)).body).toBe(true);
    expect((await t.api('GET', '/user', { token: user.token })).status).toBe(200);
  });

  it('deactivates users without recent activity, and activates them again', async () => {
    const user = await createUser(t);
    expect((await t.api('GET', '/user', { token: user.token })).status).toBe(200);
    // That request made the user active today, and GitLab keeps users active in the last 90 days: make it long ago.
    await eventually(async () => (await db().user.findUnique({ where: { id: user.id } }))?.lastActivityOn);
    await db().user.update({ where: { id: user.id }, data: { lastActivityOn: new Date(Date.now() - 100 * 86_400_000) } });
    expect((await t.api('POST', `/users/${user.id}/deactivate`)).body).toBe(true);
    const refused = await t.api('GET', '/user', { token: user.token });
    expect(refused.status).toBe(403);
    expect(refused.body.message).toMatch(/^403 Forbidden - Your account has been deactivated by your administrator\. Please log back in from a web browser to reactivate your account at http/);
    expect((await t.api('POST', `/users/${user.id}/deactivate`)).text).toBe('null');
    expect((await t.api('POST', `/users/${user.id}/unblock`)).body).toEqual({ message: '403 Forbidden - Deactivated users cannot be unblocked by the API' });
    expect((await t.api('POST', `/users/${user.id}/activate`)).body).toBe(true);
    expect((await t.api('POST', `/users/${user.id}/activate`)).body).toBe(false);
    expect((await t.api('GET', '/user', { token: user.token })).status).toBe(200);
    await db().user.update({ where: { id: user.id }, data: { lastActivityOn: new Date() } });
    expect((await t.api('POST', `/users/${user.id}/deactivate`)).body).toEqual({
      message: '403 Forbidden - The user you are trying to deactivate has been active in the past 90 days and cannot be deactivated',
    });
  });

  it('approves and rejects users pending approval only', async () => {
    const pending = await createUser(t);
    const other = await createUser(t);
    await db().user.update({ where: { id: pending.id }, data: { state: 'blocked_pending_approval' } });
    expect((await t.api('GET', '/user', { token: pending.token })).body).toEqual({ message: '403 Forbidden - Your account is pending approval from your administrator and hence blocked.' });
    expect((await t.api('POST', `/users/${pending.id}/approve`, { token: other.token })).body).toEqual({ message: 'You are not allowed to approve a user' });
    const approved = await t.api('POST', `/users/${pending.id}/approve`);
    expect([approved.status, approved.body]).toEqual([201, { message: 'Success' }]);
    expect((await t.api('POST', `/users/${pending.id}/approve`)).body).toEqual({ message: 'The user you are trying to approve is not pending approval' });
    expect((await t.api('POST', `/users/${pending.id}/reject`)).status).toBe(409);
    expect((await t.api('POST', `/users/${pending.id}/reject`)).body).toEqual({ message: 'User does not have a pending request' });
    await db().user.update({ where: { id: pending.id }, data: { state: 'blocked_pending_approval' } });
    expect((await t.api('POST', `/users/${pending.id}/reject`, { token: other.token })).body).toEqual({ message: 'You are not allowed to reject a user' });
    const rejected = await t.api('POST', `/users/${pending.id}/reject`);
    expect([rejected.status, rejected.body.id, rejected.body.username]).toEqual([201, pending.id, pending.username]);
    expect((await t.api('GET', `/users/${pending.id}`)).status).toBe(404);
    expect(await db().user.count({ where: { id: pending.id } })).toBe(0);
  });

  it('lists users as UserBasic to users and as UserWithAdmin to administrators', async () => {
    const user = await createUser(t);
    const basic = await t.api('GET', `/users?username=${user.username}`, { token: user.token });
    expect(Object.keys(basic.body[0])).toEqual(['id', 'username', 'name', 'state', 'locked', 'avatar_url', 'web_url']);
    expect((await t.api('GET', `/users?username=${user.username}`, { token: null })).body).toEqual(basic.body);
    const anonymous = await t.api('GET', '/users', { token: null });
    expect([anonymous.status, anonymous.body]).toEqual([403, { message: '403 Forbidden - Not authorized to access /api/v4/users' }]);
    const full = await t.api('GET', `/users?username=${user.username}`);
    expect(full.body[0]).toMatchObject({ bio: '', email: `${user.username}@example.com`, is_admin: false, private_profile: false, namespace_id: expect.any(Number) });
    expect(full.body[0]).not.toHaveProperty('highest_role');
    const me = await t.api('GET', '/user', { token: user.token });
    expect(me.body).toMatchObject({ email: `${user.username}@example.com`, commit_email: `${user.username}@example.com`, theme_id: 3, color_scheme_id: 1 });
    expect(me.body).not.toHaveProperty('note');
  });

  it('refuses every state action to non-administrators and answers 404 for unknown users', async () => {
    const user = await createUser(t);
    for (const action of ['block', 'unblock', 'ban', 'unban', 'deactivate', 'activate']) {
      expect((await t.api('POST', `/users/${user.id}/${action}`, { token: user.token })).body).toEqual({ message: '403 Forbidden' });
      expect((await t.api('POST', `/users/${user.id}/${action}`, { token: null })).status).toBe(401);
      expect((await t.api('POST', `/users/2147483000/${action}`)).body).toEqual({ message: '404 User Not Found' });
    }
  });

  it('works through gitbeaker', async () => {
    const user = await createUser(t);
    await admin.Users.block(user.id);
    await admin.Users.unblock(user.id);
    await admin.Users.ban(user.id);
    await admin.Users.unban(user.id);
    await admin.Users.deactivate(user.id);
    await admin.Users.activate(user.id);
    expect((await admin.Users.show(user.id)).state).toBe('active');
  });

  it('runs through GraphQL, where `active` follows the state', async () => {
    const user = await createUser(t);
    const state = async () => (await t.graphql('{ currentUser { active state } }', {}, user.token)).body.data?.currentUser;
    expect(await state()).toEqual({ active: true, state: 'active' });
    const ban = await t.graphql('mutation($id: ID!) { userBan(input: { id: $id }) { banned errors } }', { id: `gid://gitlab/User/${user.id}` }, t.rootToken);
    expect(ban.body.data).toEqual({ userBan: { banned: true, errors: [] } });
    expect((await t.graphql('{ currentUser { active } }', {}, user.token)).status).toBe(403);
    const seen = await t.graphql('query($id: ID!) { user(id: $id) { active state } }', { id: String(user.id) }, t.rootToken);
    expect(seen.body.data?.user).toEqual({ active: false, state: 'banned' });
    const unban = await t.graphql('mutation($id: ID!) { userUnban(input: { id: $id }) { unbanned errors } }', { id: String(user.id) }, t.rootToken);
    expect(unban.body.data).toEqual({ userUnban: { unbanned: true, errors: [] } });
    expect(await state()).toEqual({ active: true, state: 'active' });
  });
});

describe('DELETE /users/:id', () => {
  async function withEverything(user: TestUser) {
    const project = await createProject(t, user.token);
    const key = await t.api('POST', '/user/keys', { token: user.token, body: { title: 'k', key: freshKey() } });
    const email = await t.api('POST', '/user/emails', { token: user.token, body: { email: `${unique('e')}@example.com` } });
    await t.api('PUT', '/user/status', { token: user.token, body: { message: 'away' } });
    return { project, keyId: key.body.id as number, emailId: email.body.id as number };
  }

  it('deletes the user, their personal projects, tokens, keys and addresses, and makes the ghost user', async () => {
    const user = await createUser(t);
    const other = await createUser(t);
    const { project } = await withEverything(user);
    await addMember(t, user.token, 'projects', project.id, other.id, 30);
    expect((await t.api('GET', `/projects/${project.id}`, { token: other.token })).status).toBe(200);
    const res = await t.api('DELETE', `/users/${user.id}`);
    expect([res.status, res.text]).toEqual([204, '']);
    expect((await t.api('GET', `/users/${user.id}`)).status).toBe(404);
    expect((await t.api('GET', '/user', { token: user.token })).status).toBe(401);
    expect((await t.api('GET', `/projects/${project.id}`, { token: other.token })).status).toBe(404);
    expect((await t.api('GET', `/users?username=${user.username}`)).body).toEqual([]);
    const ghost = await t.api('GET', '/users?username=ghost');
    expect(ghost.body).toHaveLength(1);
    expect(ghost.body[0]).toMatchObject({ username: 'ghost', name: 'Ghost User', state: 'active' });
    expect(ghost.body[0].bio).toMatch(/Ghost User/);
    expect((await t.graphql('{ user(username: "ghost") { type human } }', {}, t.rootToken)).body.data?.user).toEqual({ type: 'GHOST', human: false });
    await expectNothingLeftOf(user.id);
  });

  it('keeps one ghost user however many are deleted, and makes none on hard deletes', async () => {
    const before = await db().user.count({ where: { userType: 'ghost' } });
    const a = await createUser(t);
    const b = await createUser(t);
    expect((await t.api('DELETE', `/users/${a.id}?hard_delete=true`)).status).toBe(204);
    expect(await db().user.count({ where: { userType: 'ghost' } })).toBe(before);
    expect((await t.api('DELETE', `/users/${b.id}`)).status).toBe(204);
    expect(await db().user.count({ where: { userType: 'ghost' } })).toBe(Math.max(before, 1));
    await expectNothingLeftOf(a.id);
    await expectNothingLeftOf(b.id);
  });

  it('nullifies what GitLab keeps: the creator of projects, runners and memberships', async () => {
    const creator = await createUser(t);
    const owner = await createUser(t);
    const group = await createGroup(t, owner.token);
    const project = await createProject(t, owner.token, { namespaceId: group.id });
    await addMember(t, owner.token, 'groups', group.id, creator.id, 40);
    const invited = await createUser(t);
    await addMember(t, creator.token, 'projects', project.id, invited.id, 30);
    expect((await t.api('DELETE', `/users/${creator.id}`)).status).toBe(204);
    const members = await t.api('GET', `/projects/${project.id}/members`, { token: owner.token });
    const kept = members.body.find((m: { id: number }) => m.id === invited.id);
    expect(kept).toMatchObject({ access_level: 30, created_by: null });
    await expectNothingLeftOf(creator.id);
  });

  it("keeps what the user made, authored by the ghost user: issues, notes, label and state events, award emoji, project snippets, others' to-dos", async () => {
    const author = await createUser(t);
    const owner = await createUser(t);
    const project = await createProject(t, owner.token);
    await addMember(t, owner.token, 'projects', project.id, author.id, 30);
    const base = `/projects/${project.id}`;
    const issue = (await t.api('POST', `${base}/issues`, { token: author.token, body: { title: 'kept', assignee_ids: [owner.id] } })).body;
    await t.api('PUT', `${base}/issues/${issue.iid}`, { token: author.token, body: { add_labels: 'bug', state_event: 'close' } });
    const note = (await t.api('POST', `${base}/issues/${issue.iid}/notes`, { token: author.token, body: { body: 'a comment' } })).body;
    expect((await t.api('POST', `${base}/issues/${issue.iid}/award_emoji`, { token: author.token, body: { name: 'thumbsup' } })).status).toBe(201);
    const shared = (await t.api('POST', `${base}/snippets`, { token: author.token, body: { title: 's', file_name: 'a.txt', content: 'x', visibility: 'private' } })).body;
    const personal = (await t.api('POST', '/snippets', { token: author.token, body: { title: 'p', file_name: 'p.txt', content: 'y', visibility: 'public' } })).body;
    expect([shared.id, personal.id].every(Number.isInteger)).toBe(true);
    expect((await t.api('GET', '/todos', { token: owner.token })).body.map((todo: { author: { id: number } }) => todo.author.id)).toContain(author.id);

    expect((await t.api('DELETE', `/users/${author.id}`)).status).toBe(204);
    const ghost = (await t.api('GET', '/users?username=ghost')).body[0];
    const kept = await t.api('GET', `${base}/issues/${issue.iid}`, { token: owner.token });
    expect([kept.status, kept.body.author.username, kept.body.state, kept.body.labels]).toEqual([200, ghost.username, 'closed', ['bug']]);
    const notes = await t.api('GET', `${base}/issues/${issue.iid}/notes?sort=asc`, { token: owner.token });
    expect(notes.body.find((n: { id: number }) => n.id === note.id)).toMatchObject({ body: 'a comment', author: { id: ghost.id } });
    const labelEvents = await t.api('GET', `${base}/issues/${issue.iid}/resource_label_events`, { token: owner.token });
    expect(labelEvents.body.map((e: { user: { id: number } }) => e.user.id)).toEqual([ghost.id]);
    const stateEvents = await t.api('GET', `${base}/issues/${issue.iid}/resource_state_events`, { token: owner.token });
    expect(stateEvents.body.map((e: { user: { id: number }; state: string }) => [e.user.id, e.state])).toEqual([[ghost.id, 'closed']]);
    const awards = await t.api('GET', `${base}/issues/${issue.iid}/award_emoji`, { token: owner.token });
    expect(awards.body.map((a: { name: string; user: { id: number } }) => [a.name, a.user.id])).toEqual([['thumbsup', ghost.id]]);
    expect((await t.api('GET', `${base}/snippets/${shared.id}`, { token: owner.token })).body.author.id).toBe(ghost.id);
    expect((await t.api('GET', `/snippets/${personal.id}`)).status).toBe(404);
    expect((await t.api('GET', '/todos', { token: owner.token })).body.map((todo: { author: { id: number } }) => todo.author.id)).toContain(ghost.id);
    await expectNothingLeftOf(author.id);
  });

  it("hands a deleted user's pipeline schedules to the ghost user, inactive, on soft and hard deletion", async () => {
    const owner = await createUser(t);
    const project = await createProject(t, owner.token);
    const base = `/projects/${project.id}`;
    const commit = await t.api('POST', `${base}/repository/commits`, {
      token: owner.token,
      body: { branch: 'main', commit_message: 'CI', actions: [{ action: 'create', file_path: '.gitlab-ci.yml', content: 'build:\n  script: echo hi\n' }] },
    });
    expect(commit.status, commit.text).toBe(201);
    const schedule = async (token: string) => {
      const res = await t.api('POST', `${base}/pipeline_schedules`, { token, body: { description: 'nightly', ref: 'main', cron: '0 1 * * *' } });
      expect(res.status, res.text).toBe(201);
      return res.body as { id: number };
    };
    const [soft, hard] = await Promise.all([createUser(t), createUser(t)]);
    for (const user of [soft, hard]) await addMember(t, owner.token, 'projects', project.id, user.id, 40);
    const [softSchedule, hardSchedule] = [await schedule(soft.token), await schedule(hard.token)];
    expect((await t.api('DELETE', `/users/${soft.id}`)).status).toBe(204);
    expect((await t.api('DELETE', `/users/${hard.id}?hard_delete=true`)).status).toBe(204);

    const ghost = (await t.api('GET', '/users?username=ghost')).body[0];
    for (const s of [softSchedule, hardSchedule]) {
      const res = await t.api('GET', `${base}/pipeline_schedules/${s.id}`, { token: owner.token });
      expect([res.status, res.body.active, res.body.owner.id]).toEqual([200, false, ghost.id]);
    }
    const gql = await t.graphql(
      'query($p: ID!) { project(fullPath: $p) { pipelineSchedules { nodes { active owner { username } } } } }',
      { p: project.path_with_namespace },
      owner.token,
    );
    expect(gql.body.errors).toBeUndefined();
    expect(gql.body.data.project.pipelineSchedules.nodes).toEqual([
      { active: false, owner: { username: ghost.username } },
      { active: false, owner: { username: ghost.username } },
    ]);
    // A Maintainer takes one over and runs it again.
    expect((await t.api('POST', `${base}/pipeline_schedules/${softSchedule.id}/take_ownership`, { token: owner.token })).status).toBe(201);
    const resumed = await t.api('PUT', `${base}/pipeline_schedules/${softSchedule.id}`, { token: owner.token, body: { active: true } });
    expect([resumed.status, resumed.body.active, resumed.body.owner.id]).toEqual([200, true, owner.id]);
  });

  it('does not double an award the ghost user already gave', async () => {
    const owner = await createUser(t);
    const project = await createProject(t, owner.token, { visibility: 'public' });
    const issue = (await t.api('POST', `/projects/${project.id}/issues`, { token: owner.token, body: { title: 'liked' } })).body;
    const fans = await Promise.all([createUser(t), createUser(t)]);
    for (const fan of fans) expect((await t.api('POST', `/projects/${project.id}/issues/${issue.iid}/award_emoji`, { token: fan.token, body: { name: 'heart' } })).status).toBe(201);
    for (const fan of fans) expect((await t.api('DELETE', `/users/${fan.id}`)).status).toBe(204);
    const awards = await t.api('GET', `/projects/${project.id}/issues/${issue.iid}/award_emoji`, { token: owner.token });
    expect(awards.body.map((a: { name: string; user: { username: string } }) => a.name)).toEqual(['heart']);
  });

  it('refuses to delete the sole owner of a group, as GitLab does', async () => {
    const owner = await createUser(t);
    const group = await createGroup(t, owner.token);
    const res = await t.api('DELETE', `/users/${owner.id}`);
    expect([res.status, res.body]).toEqual([409, { message: 'User cannot be removed while is the sole-owner of a group' }]);
    const second = await createUser(t);
    await addMember(t, owner.token, 'groups', group.id, second.id, 50);
    expect((await t.api('DELETE', `/users/${owner.id}`)).status).toBe(204);
    expect((await t.api('GET', `/groups/${group.id}`, { token: second.token })).status).toBe(200);
  });

  it('deletes the groups a user solely owns with hard_delete, with their projects', async () => {
    const owner = await createUser(t);
    const solo = await createGroup(t, owner.token);
    const project = await createProject(t, owner.token, { namespaceId: solo.id });
    const shared = await createGroup(t, owner.token);
    const coOwner = await createUser(t);
    await addMember(t, owner.token, 'groups', shared.id, coOwner.id, 50);
    expect((await t.api('DELETE', `/users/${owner.id}?hard_delete=true`)).status).toBe(204);
    await eventually(async () => (await t.api('GET', `/groups/${solo.id}`)).status === 404);
    expect((await t.api('GET', `/projects/${project.id}`)).status).toBe(404);
    expect((await t.api('GET', `/groups/${shared.id}`, { token: coOwner.token })).status).toBe(200);
  });

  it('refuses non-administrators and anonymous callers, and answers 404 for unknown users', async () => {
    const user = await createUser(t);
    expect((await t.api('DELETE', `/users/${user.id}`, { token: user.token })).body).toEqual({ message: '403 Forbidden' });
    expect((await t.api('DELETE', `/users/${user.id}`, { token: null })).status).toBe(401);
    expect((await t.api('DELETE', '/users/2147483000')).body).toEqual({ message: '404 User Not Found' });
  });

  it('works through gitbeaker and GraphQL', async () => {
    const a = await createUser(t);
    const b = await createUser(t);
    await admin.Users.remove(a.id);
    const gql = await t.graphql('mutation($id: ID!) { userDelete(input: { id: $id, hardDelete: true }) { deleted errors } }', { id: `gid://gitlab/User/${b.id}` }, t.rootToken);
    expect(gql.body).toEqual({ data: { userDelete: { deleted: true, errors: [] } } });
    await expectNothingLeftOf(a.id);
    await expectNothingLeftOf(b.id);
  });
});

/** No row anywhere still points at the user. */
async function expectNothingLeftOf(userId: number): Promise<void> {
  const rows = await db().$queryRaw<{ n: bigint }[]>`
    SELECT (SELECT count(*) FROM "users" WHERE "id" = ${userId} OR "createdById" = ${userId})
         + (SELECT count(*) FROM "personal_access_tokens" WHERE "userId" = ${userId})
         + (SELECT count(*) FROM "namespaces" WHERE "ownerId" = ${userId})
         + (SELECT count(*) FROM "members" WHERE "userId" = ${userId} OR "createdById" = ${userId})
         + (SELECT count(*) FROM "projects" WHERE "creatorId" = ${userId})
         + (SELECT count(*) FROM "events" WHERE "authorId" = ${userId})
         + (SELECT count(*) FROM "keys" WHERE "userId" = ${userId})
         + (SELECT count(*) FROM "emails" WHERE "userId" = ${userId})
         + (SELECT count(*) FROM "user_statuses" WHERE "userId" = ${userId})
         + (SELECT count(*) FROM "user_preferences" WHERE "userId" = ${userId})
         + (SELECT count(*) FROM "ci_pipelines" WHERE "userId" = ${userId})
         + (SELECT count(*) FROM "ci_builds" WHERE "userId" = ${userId})
         + (SELECT count(*) FROM "ci_runners" WHERE "creatorId" = ${userId})
         + (SELECT count(*) FROM "ci_triggers" WHERE "ownerId" = ${userId})
         + (SELECT count(*) FROM "issues" WHERE "authorId" = ${userId})
         + (SELECT count(*) FROM "merge_requests" WHERE "authorId" = ${userId} OR "mergeUserId" = ${userId})
         + (SELECT count(*) FROM "notes" WHERE "authorId" = ${userId})
         + (SELECT count(*) FROM "snippets" WHERE "authorId" = ${userId})
         + (SELECT count(*) FROM "releases" WHERE "authorId" = ${userId})
         + (SELECT count(*) FROM "epics" WHERE "authorId" = ${userId})
         + (SELECT count(*) FROM "todos" WHERE "authorId" = ${userId} OR "userId" = ${userId})
         + (SELECT count(*) FROM "award_emoji" WHERE "userId" = ${userId})
         + (SELECT count(*) FROM "resource_label_events" WHERE "userId" = ${userId})
         + (SELECT count(*) FROM "resource_state_events" WHERE "userId" = ${userId}) AS n`;
  expect(Number(rows[0].n)).toBe(0);
  // Nothing is left of projects that are gone.
  const orphans = await db().$queryRaw<{ n: bigint }[]>`
    SELECT (SELECT count(*) FROM "ci_variables" v WHERE v."projectId" IS NOT NULL AND NOT EXISTS (SELECT 1 FROM "projects" p WHERE p."id" = v."projectId"))
         + (SELECT count(*) FROM "project_ci_cd_settings" s WHERE NOT EXISTS (SELECT 1 FROM "projects" p WHERE p."id" = s."projectId"))
         + (SELECT count(*) FROM "ci_triggers" g WHERE NOT EXISTS (SELECT 1 FROM "projects" p WHERE p."id" = g."projectId")) AS n`;
  expect(Number(orphans[0].n)).toBe(0);
}
