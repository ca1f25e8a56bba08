/** The Events API over HTTP: GitLab's event JSON, filters, visibility, private profiles, token scopes, and a real client. */
import { Gitlab } from '@gitbeaker/rest';
import { beforeAll, describe, expect, it } from 'vitest';
import type { PushData } from '../../src/modules/activity/actions.js';
import { suiteServer, EXTERNAL_URL } from '../support/server.js';
import { addMember, createProject, createUser, type TestUser } from '../support/factories.js';

const t = suiteServer();

const DAY_MS = 24 * 60 * 60 * 1000;
/** A day ten days ago (UTC midnight): recent enough that retention never touches the events placed around it. */
const D1 = new Date(Math.floor(Date.now() / DAY_MS) * DAY_MS - 10 * DAY_MS);
const day = (offset: number) => new Date(D1.getTime() + offset * DAY_MS).toISOString().slice(0, 10);
const at = (ms: number) => new Date(D1.getTime() + ms);

let owner: TestUser;
let guest: TestUser;
let outsider: TestUser;
let actor: TestUser;
let privateProject: { id: number; path_with_namespace: string };
let publicProject: { id: number; path_with_namespace: string };
/** The actor's four events, oldest first, around the day boundaries after D1. */
let timeline: number[];
let publicPush: number;
let privatePush: number;
/** The real issue and comment the timeline's events name: an event whose target is gone is seen by no one. */
let targets: { issue: number; note: number; mergeRequest: number };

function insertEvent(data: { action: string; authorId: number; projectId: number; targetType?: string | null; createdAt?: Date; pushData?: PushData; targetId?: number; targetIid?: number; targetTitle?: string }) {
  return t.server.database.prisma.event.create({ data: { targetType: null, ...data, pushData: data.pushData ? { ...data.pushData } : undefined } });
}

const push = (action: PushData['action']): PushData => ({
  commitCount: action === 'pushed' ? 2 : 0,
  action,
  refType: 'branch',
  commitFrom: action === 'created' ? null : 'a'.repeat(40),
  commitTo: action === 'removed' ? null : 'b'.repeat(40),
  ref: 'main',
  commitTitle: action === 'removed' ? null : 'Add the events API',
  refCount: null,
});

const ids = (body: { id: number }[]) => body.map((e) => e.id);

beforeAll(async () => {
  [owner, guest, outsider, actor] = await Promise.all([createUser(t), createUser(t), createUser(t), createUser(t)]);
  privateProject = await createProject(t, owner.token, { visibility: 'private' });
  publicProject = await createProject(t, owner.token, { visibility: 'public' });
  await addMember(t, owner.token, 'projects', privateProject.id, guest.id, 10);
  privatePush = (await insertEvent({ action: 'pushed', authorId: owner.id, projectId: privateProject.id, pushData: push('pushed') })).id;
  publicPush = (await insertEvent({ action: 'pushed', authorId: owner.id, projectId: publicProject.id, pushData: push('created') })).id;
  // In a project of their own, so their own events stay out of the lists below.
  const stranger = await createUser(t);
  const elsewhere = await createProject(t, stranger.token, { visibility: 'public' });
  const issue = (await t.api('POST', `/projects/${elsewhere.id}/issues`, { token: stranger.token, body: { title: 'A title' } })).body;
  const note = (await t.api('POST', `/projects/${elsewhere.id}/issues/${issue.iid}/notes`, { token: stranger.token, body: { body: 'A comment' } })).body;
  const commit = (branch: string, extra: object) =>
    t.api('POST', `/projects/${elsewhere.id}/repository/commits`, { token: stranger.token, body: { branch, commit_message: branch, actions: [{ action: 'create', file_path: `${branch}.txt`, content: branch }], ...extra } });
  await commit('main', {});
  await commit('feature', { start_branch: 'main' });
  const mergeRequest = (await t.api('POST', `/projects/${elsewhere.id}/merge_requests`, { token: stranger.token, body: { source_branch: 'feature', target_branch: 'main', title: 'A title' } })).body;
  targets = { issue: issue.id, note: note.id, mergeRequest: mergeRequest.id };
  timeline = [];
  for (const [action, targetType, ms] of [
    ['created', 'Issue', DAY_MS - 1], // the last millisecond of D1
    ['closed', 'Issue', DAY_MS], // the first of D1 + 1
    ['commented', 'Note', 2 * DAY_MS - 1], // the last of D1 + 1
    ['merged', 'MergeRequest', 2 * DAY_MS], // the first of D1 + 2
  ] as const) {
    timeline.push((await insertEvent({ action, targetType, authorId: actor.id, projectId: publicProject.id, createdAt: at(ms), targetId: targetType === 'Note' ? targets.note : targetType === 'MergeRequest' ? targets.mergeRequest : targets.issue, targetIid: 3, targetTitle: 'A title' })).id);
  }
});

describe('GET /projects/:id/events', () => {
  it('renders an event exactly as GitLab’s Event entity, fields in its order', async () => {
    const res = await t.api('GET', `/projects/${publicProject.id}/events?action=created&target_type=issue`, { token: outsider.token });
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(1);
    const event = res.body[0];
    expect(Object.keys(event)).toEqual([
      'id', 'title', 'project_id', 'action_name', 'target_id', 'target_iid', 'target_type', 'author_id', 'target_title', 'created_at',
      'author', 'imported', 'imported_from', 'author_username',
    ]);
    expect(event).toEqual({
      id: timeline[0],
      title: null,
      project_id: publicProject.id,
      action_name: 'opened',
      target_id: targets.issue,
      target_iid: 3,
      target_type: 'Issue',
      author_id: actor.id,
      target_title: 'A title',
      created_at: at(DAY_MS - 1).toISOString(),
      author: { id: actor.id, username: actor.username, name: `User ${actor.username}`, state: 'active', locked: false, avatar_url: null, web_url: `${EXTERNAL_URL}/${actor.username}` },
      imported: false,
      imported_from: 'none',
      author_username: actor.username,
    });
  });

  it('records project creation, with no target, as `created`', async () => {
    const res = await t.api('GET', `/projects/${encodeURIComponent(publicProject.path_with_namespace)}/events?target_type=project`);
    expect(res.body).toEqual([]);
    const created = await t.api('GET', `/projects/${encodeURIComponent(publicProject.path_with_namespace)}/events?action=created&sort=asc`);
    expect(created.body[0]).toMatchObject({ action_name: 'created', author_id: owner.id, target_id: null, target_iid: null, target_type: null, target_title: null });
  });

  it('adds push_data to push events, in GitLab’s PushEventPayload order', async () => {
    const res = await t.api('GET', `/projects/${publicProject.id}/events?action=pushed`, { token: null });
    expect(res.status).toBe(200);
    expect(ids(res.body)).toEqual([publicPush]);
    const [event] = res.body;
    expect(event.action_name).toBe('pushed new');
    expect(Object.keys(event).slice(-2)).toEqual(['push_data', 'author_username']);
    expect(Object.keys(event.push_data)).toEqual(['commit_count', 'action', 'ref_type', 'commit_from', 'commit_to', 'ref', 'commit_title', 'ref_count']);
    expect(event.push_data).toEqual({ commit_count: 0, action: 'created', ref_type: 'branch', commit_from: null, commit_to: 'b'.repeat(40), ref: 'main', commit_title: 'Add the events API', ref_count: null });
  });

  it('answers 404 Project Not Found for a private project to a non-member and to anonymous callers', async () => {
    for (const token of [outsider.token, null]) {
      const res = await t.api('GET', `/projects/${privateProject.id}/events`, { token });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ message: '404 Project Not Found' });
    }
  });

  it('hides push events from a guest, who may read the project but not its code', async () => {
    const asGuest = await t.api('GET', `/projects/${privateProject.id}/events`, { token: guest.token });
    expect(asGuest.body.map((e: { action_name: string }) => e.action_name).sort()).toEqual(['created', 'joined']);
    const asOwner = await t.api('GET', `/projects/${privateProject.id}/events`, { token: owner.token });
    expect(ids(asOwner.body)).toContain(privatePush);
    expect(asOwner.body.find((e: { id: number }) => e.id === privatePush).action_name).toBe('pushed to');
  });

  it('records joining a project as `joined`, authored by the new member', async () => {
    const res = await t.api('GET', `/projects/${privateProject.id}/events?action=joined`, { token: owner.token });
    expect(res.body).toHaveLength(1);
    expect(res.body[0]).toMatchObject({ action_name: 'joined', author_id: guest.id, author_username: guest.username, target_type: null });
  });
});

describe('GET /events', () => {
  const mine = (query = '', token = actor.token) => t.api('GET', `/events${query}`, { token });

  it('lists the caller’s own events, newest first, with GitLab’s pagination headers', async () => {
    const all = await mine();
    expect(all.status).toBe(200);
    expect(ids(all.body)).toEqual([...timeline].reverse());
    expect(all.headers.get('x-total')).toBe('4');
    expect(all.headers.get('x-per-page')).toBe('20');
    const page = await mine('?per_page=3&page=2');
    expect(ids(page.body)).toEqual([timeline[0]]);
    expect([page.headers.get('x-total'), page.headers.get('x-total-pages'), page.headers.get('x-page'), page.headers.get('x-prev-page'), page.headers.get('x-next-page')]).toEqual(['4', '2', '2', '1', '']);
    expect(page.headers.get('link')).toContain('rel="first"');
  });

  it('sorts by id ascending with sort=asc', async () => {
    expect(ids((await mine('?sort=asc')).body)).toEqual(timeline);
    expect(ids((await mine('?sort=desc')).body)).toEqual([...timeline].reverse());
  });

  it('filters by action and by target type', async () => {
    expect(ids((await mine('?action=closed')).body)).toEqual([timeline[1]]);
    expect(ids((await mine('?target_type=merge_request')).body)).toEqual([timeline[3]]);
    expect(ids((await mine('?target_type=note&action=commented')).body)).toEqual([timeline[2]]);
    expect(ids((await mine('?action=pushed')).body)).toEqual([]);
  });

  it('treats after and before as whole days, both exclusive', async () => {
    // after=D1 starts after D1's last millisecond; before=D1+2 ends before its first.
    expect(ids((await mine(`?after=${day(0)}&sort=asc`)).body)).toEqual(timeline.slice(1));
    expect(ids((await mine(`?before=${day(2)}&sort=asc`)).body)).toEqual(timeline.slice(0, 3));
    expect(ids((await mine(`?after=${day(0)}&before=${day(2)}&sort=asc`)).body)).toEqual([timeline[1], timeline[2]]);
    expect(ids((await mine(`?after=${day(1)}&before=${day(2)}`)).body)).toEqual([]);
  });

  it('answers 401 to anonymous callers', async () => {
    const res = await t.api('GET', '/events', { token: null });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ message: '401 Unauthorized' });
  });

  it('with scope=all lists every event of the caller’s projects, by anyone, that the caller may see', async () => {
    const own = await t.api('GET', '/events', { token: guest.token });
    expect(own.body.map((e: { action_name: string }) => e.action_name)).toEqual(['joined']);
    const all = await t.api('GET', '/events?scope=all', { token: guest.token });
    // The owner's creation of the private project, not its push (a guest may not read code) nor the public project's events.
    expect(all.body.map((e: { action_name: string; project_id: number }) => [e.action_name, e.project_id])).toEqual([
      ['joined', privateProject.id],
      ['created', privateProject.id],
    ]);
    expect(ids((await t.api('GET', '/events?scope=mine', { token: guest.token })).body)).toEqual(ids(own.body));
  });

  it('refuses bad parameters with GitLab’s 400s', async () => {
    const cases: [string, unknown][] = [
      ['?action=opened', { error: 'action does not have a valid value' }],
      ['?target_type=epic', { error: 'target_type does not have a valid value' }],
      ['?before=yesterday', { error: 'before is invalid' }],
      ['?after=2024-02-30', { error: 'after is invalid' }],
      ['?sort=sideways', { error: 'sort does not have a valid value' }],
      ['?per_page=0', { error: 'per_page has a value not allowed' }],
    ];
    for (const [query, body] of cases) {
      const res = await mine(query);
      expect({ query, status: res.status, body: res.body }).toEqual({ query, status: 400, body });
    }
    for (const query of ['?action=%00', '?after=2024-01-01%00', '?page=99999999999', '?page=abc', '?before[]=2024-01-01']) {
      const res = await mine(query);
      expect({ query, status: res.status }).toEqual({ query, status: 400 });
    }
  });
});

describe('GET /users/:id/events', () => {
  it('shows another user only the events of projects they can read', async () => {
    const asOutsider = await t.api('GET', `/users/${owner.id}/events`, { token: outsider.token });
    expect(asOutsider.status).toBe(200);
    expect(asOutsider.body.every((e: { project_id: number }) => e.project_id === publicProject.id)).toBe(true);
    expect(asOutsider.body.map((e: { action_name: string }) => e.action_name)).toEqual(['pushed new', 'created']);
    const asOwner = await t.api('GET', `/users/${owner.id}/events`, { token: owner.token });
    expect(ids(asOwner.body)).toContain(privatePush);
    const anonymous = await t.api('GET', `/users/${owner.username}/events`, { token: null });
    expect(ids(anonymous.body)).toEqual(ids(asOutsider.body));
  });

  it('finds the user by username as by ID, and answers 404 User Not Found otherwise', async () => {
    const byName = await t.api('GET', `/users/${actor.username}/events?sort=asc`);
    expect(ids(byName.body)).toEqual(timeline);
    for (const id of ['999999', 'no-such-user']) {
      const res = await t.api('GET', `/users/${id}/events`);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ message: '404 User Not Found' });
    }
  });

  it('shows no events of a user with a private profile, except to that user and administrators', async () => {
    const shy = await createUser(t);
    const project = await createProject(t, shy.token, { visibility: 'public' });
    await t.server.database.prisma.user.update({ where: { id: shy.id }, data: { privateProfile: true } });
    expect((await t.api('GET', '/user', { token: shy.token })).body.private_profile).toBe(true);
    const asOutsider = await t.api('GET', `/users/${shy.id}/events`, { token: outsider.token });
    expect(asOutsider.status).toBe(200);
    expect(asOutsider.body).toEqual([]);
    expect(asOutsider.headers.get('x-total')).toBe('0');
    expect((await t.api('GET', `/users/${shy.id}/events`, { token: null })).body).toEqual([]);
    for (const token of [shy.token, t.rootToken]) {
      const res = await t.api('GET', `/users/${shy.id}/events`, { token });
      expect(res.body.map((e: { project_id: number }) => e.project_id)).toEqual([project.id]);
    }
    // The project's own list is not a profile: it still shows the event.
    expect((await t.api('GET', `/projects/${project.id}/events`, { token: outsider.token })).body).toHaveLength(1);
  });
});

describe('token scopes', () => {
  it('accepts api, read_api and read_user on /events and /users/:id/events (API::Events adds read_user to the defaults); project events take read_api, not read_user', async () => {
    const tokens: Record<string, string> = {};
    for (const scope of ['api', 'read_api', 'read_user']) {
      const res = await t.api('POST', `/users/${actor.id}/personal_access_tokens`, { body: { name: `events-${scope}`, scopes: [scope] } });
      tokens[scope] = res.body.token;
    }
    const status = async (path: string, scope: string) => (await t.api('GET', path, { token: tokens[scope] })).status;
    const outcomes: Record<string, number> = {};
    for (const path of ['/events', `/users/${actor.id}/events`, `/projects/${publicProject.id}/events`]) {
      for (const scope of Object.keys(tokens)) outcomes[`${scope} ${path}`] = await status(path, scope);
    }
    expect(outcomes).toEqual({
      'api /events': 200,
      'read_api /events': 200,
      'read_user /events': 200,
      [`api /users/${actor.id}/events`]: 200,
      [`read_api /users/${actor.id}/events`]: 200,
      [`read_user /users/${actor.id}/events`]: 200,
      [`api /projects/${publicProject.id}/events`]: 200,
      [`read_api /projects/${publicProject.id}/events`]: 200,
      [`read_user /projects/${publicProject.id}/events`]: 403,
    });
    const refused = await t.api('GET', `/projects/${publicProject.id}/events`, { token: tokens.read_user });
    expect(refused.body).toMatchObject({ error: 'insufficient_scope' });
  });
});

describe('@gitbeaker/rest', () => {
  it('lists the caller’s, a user’s and a project’s events through the Events resource', async () => {
    const api = new Gitlab({ host: t.url, token: actor.token });
    const closed = await api.Events.all({ action: 'closed' });
    expect(closed.map((e) => e.id)).toEqual([timeline[1]]);
    const windowed = await api.Events.all({ userId: actor.id, after: day(0), before: day(2), sort: 'asc' });
    expect(windowed.map((e) => e.id)).toEqual([timeline[1], timeline[2]]);
    const project = await api.Events.all({ projectId: publicProject.id, targetType: 'merge_request' });
    expect(project.map((e) => [e.id, e.action_name, e.author_username])).toEqual([[timeline[3], 'accepted', actor.username]]);
  });
});

describe('GraphQL', () => {
  it('serves the same lists as currentUser.events, UserCore.events and Project.events', async () => {
    const query = `query($path: ID!, $user: ID!) {
      currentUser { events(action: COMMENTED) { count nodes { databaseId actionName targetIid author { username } } } }
      user(id: $user) { events(sort: ASC, first: 2) { count nodes { databaseId } pageInfo { hasNextPage } } }
      project(fullPath: $path) { events(targetType: MERGE_REQUEST, createdAfter: "${day(1)}") { nodes { databaseId actionName } } }
    }`;
    const res = await t.graphql(query, { path: publicProject.path_with_namespace, user: String(actor.id) }, actor.token);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data).toEqual({
      currentUser: { events: { count: 1, nodes: [{ databaseId: timeline[2], actionName: 'commented on', targetIid: 3, author: { username: actor.username } }] } },
      user: { events: { count: 4, nodes: [{ databaseId: timeline[0] }, { databaseId: timeline[1] }], pageInfo: { hasNextPage: true } } },
      project: { events: { nodes: [{ databaseId: timeline[3], actionName: 'accepted' }] } },
    });
  });

  it('accepts a read_api token on user events, as REST does', async () => {
    const token = (await t.api('POST', `/users/${actor.id}/personal_access_tokens`, { body: { name: 'gql-read-api', scopes: ['read_api'] } })).body.token;
    const res = await t.graphql('{ currentUser { username events { count } } }', {}, token);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.currentUser.events.count).toBeGreaterThan(0);
  });
});
