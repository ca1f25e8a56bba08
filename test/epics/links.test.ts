/**
 * Child epics (GitLab's Epic Links API: list, assign, create, reorder, unassign, with Epic#valid_parent?'s refusals),
 * and resource state events of epics (closing and reopening one).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { suiteServer, EXTERNAL_URL } from '../support/server.js';
import { addMember, createGroup, createUser, type TestUser } from '../support/factories.js';

let counting = false;
let queries = 0;
const t = suiteServer({}, { onQuery: () => void (counting && queries++) });

let owner: TestUser;
let guest: TestUser;
let reporter: TestUser;
let outsider: TestUser;
let group: { id: number; full_path: string };
let subgroup: { id: number; full_path: string };
let other: { id: number };
let publicGroup: { id: number };

interface Epic {
  id: number;
  iid: number;
  [key: string]: unknown;
}

const newEpic = async (title: string, body: Record<string, unknown> = {}, groupId = group.id): Promise<Epic> => {
  const res = await t.api('POST', `/groups/${groupId}/epics`, { token: owner.token, body: { title, ...body } });
  if (res.status !== 201) throw new Error(`epic: ${res.status} ${res.text}`);
  return res.body;
};
const childrenOf = (parent: Epic, groupId = group.id) => `/groups/${groupId}/epics/${parent.iid}/epics`;
const ids = (body: Epic[]) => body.map((e) => e.id);

beforeAll(async () => {
  [owner, guest, reporter, outsider] = await Promise.all([createUser(t), createUser(t), createUser(t), createUser(t)]);
  group = await createGroup(t, owner.token);
  subgroup = await createGroup(t, owner.token, { parentId: group.id });
  other = await createGroup(t, owner.token);
  publicGroup = await createGroup(t, owner.token, { visibility: 'public' });
  await addMember(t, owner.token, 'groups', group.id, guest.id, 10);
  await addMember(t, owner.token, 'groups', group.id, reporter.id, 20);
});

describe('listing and assigning child epics', () => {
  it('assigns epics of the group and its subgroups, each first, and lists them in tree order with the Epics API fields', async () => {
    const parent = await newEpic('parent');
    const first = await newEpic('first');
    const second = await newEpic('second', {}, subgroup.id);
    const assigned = await t.api('POST', `${childrenOf(parent)}/${first.id}`, { token: reporter.token });
    expect(assigned.status, assigned.text).toBe(201);
    const listedKeys = Object.keys((await t.api('GET', `/groups/${group.id}/epics`, { token: owner.token })).body[0]);
    expect(Object.keys(assigned.body)).toEqual(listedKeys);
    expect(assigned.body).toMatchObject({ id: first.id, parent_id: parent.id, parent_iid: parent.iid });
    expect(assigned.body._links.parent).toBe(`${EXTERNAL_URL}/api/v4/groups/${group.id}/epics/${parent.iid}`);
    expect((await t.api('POST', `${childrenOf(parent)}/${second.id}`, { token: reporter.token })).status).toBe(201);

    const listed = await t.api('GET', childrenOf(parent), { token: guest.token });
    expect(listed.status).toBe(200);
    expect(ids(listed.body)).toEqual([second.id, first.id]);
    expect(Object.keys(listed.body[0])).toEqual(listedKeys);
    expect(listed.body[1]).toEqual((await t.api('GET', `/groups/${group.id}/epics?search=first`, { token: owner.token })).body[0]);
  });

  it('creates a child epic, confidential when its parent is, answering GitLab’s LinkedEpic', async () => {
    const parent = await newEpic('secret parent', { confidential: true });
    const res = await t.api('POST', childrenOf(parent), { token: reporter.token, body: { title: 'made here' } });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(Number),
      iid: expect.any(Number),
      title: 'made here',
      group_id: group.id,
      parent_id: parent.id,
      has_children: false,
      has_issues: false,
      reference: `&${res.body.iid}`,
      url: `${EXTERNAL_URL}/groups/${group.full_path}/-/epics/${res.body.iid}`,
      relation_url: `${EXTERNAL_URL}/groups/${group.full_path}/-/epics/${parent.iid}/links/${res.body.id}`,
    });
    const shown = await t.api('GET', `/groups/${group.id}/epics/${res.body.iid}`, { token: owner.token });
    expect(shown.body).toMatchObject({ confidential: true, parent_id: parent.id });

    const open = await t.api('POST', childrenOf(parent), { token: reporter.token, body: { title: 'open', confidential: false } });
    expect(open.status).toBe(400);
    expect(open.body).toEqual({ message: { confidential: ['A non-confidential epic cannot be assigned to a confidential parent epic'] } });
    const untitled = await t.api('POST', childrenOf(parent), { token: reporter.token, body: {} });
    expect(untitled.status).toBe(400);
    expect(untitled.body).toEqual({ error: 'title is missing' });
  });

  it('refuses an epic as its own child, twice, as its ancestor’s parent, or under a confidential parent (409)', async () => {
    const top = await newEpic('top');
    const middle = await newEpic('middle');
    const secret = await newEpic('secret', { confidential: true });
    expect((await t.api('POST', `${childrenOf(top)}/${middle.id}`, { token: owner.token })).status).toBe(201);
    const cases: [Epic, Epic, string][] = [
      [top, top, 'This epic cannot be added. An epic cannot be added to itself.'],
      [top, middle, 'This epic cannot be added. It is already assigned to the parent epic.'],
      [middle, top, 'This epic cannot be added. It is already an ancestor of the parent epic.'],
      [secret, middle, 'A non-confidential epic cannot be assigned to a confidential parent epic'],
    ];
    for (const [parent, child, message] of cases) {
      const res = await t.api('POST', `${childrenOf(parent)}/${child.id}`, { token: owner.token });
      expect([res.status, res.body]).toEqual([409, { message }]);
    }
  });

  it('keeps trees at most 7 levels deep', async () => {
    const chain: Epic[] = [await newEpic('level 1')];
    for (let level = 2; level <= 7; level++) {
      const res = await t.api('POST', childrenOf(chain[chain.length - 1]), { token: owner.token, body: { title: `level ${level}` } });
      expect(res.status, res.text).toBe(201);
      chain.push(res.body);
    }
    const depth = 'This epic cannot be added. One or more epics would exceed the maximum depth (7) from its most distant ancestor.';
    const loose = await newEpic('loose');
    const deepest = await t.api('POST', `${childrenOf(chain[6])}/${loose.id}`, { token: owner.token });
    expect([deepest.status, deepest.body]).toEqual([409, { message: depth }]);
    const created = await t.api('POST', childrenOf(chain[6]), { token: owner.token, body: { title: 'level 8' } });
    expect([created.status, created.body]).toEqual([400, { message: { parent: [depth] } }]);
    // A tree of two levels under level 6 would make eight.
    const pair = await newEpic('pair');
    await t.api('POST', childrenOf(pair), { token: owner.token, body: { title: 'pair child' } });
    const tall = await t.api('POST', `${childrenOf(chain[5])}/${pair.id}`, { token: owner.token });
    expect([tall.status, tall.body]).toEqual([409, { message: depth }]);
    expect((await t.api('POST', `${childrenOf(chain[4])}/${pair.id}`, { token: owner.token })).status).toBe(201);
  });

  it('answers 404 for an epic outside the group’s tree or missing, and 403 for an unknown parent', async () => {
    const parent = await newEpic('looking');
    const foreign = await newEpic('foreign', {}, other.id);
    const message = { message: 'No matching epic found. Make sure that you are adding a valid epic URL.' };
    for (const id of [foreign.id, 99_999_999]) {
      const res = await t.api('POST', `${childrenOf(parent)}/${id}`, { token: owner.token });
      expect([res.status, res.body]).toEqual([404, message]);
    }
    const unknown = await t.api('GET', `/groups/${group.id}/epics/99999/epics`, { token: owner.token });
    expect(unknown.status).toBe(403);
  });
});

describe('reordering and unassigning child epics', () => {
  it('moves a child between its siblings and answers the children in their new order', async () => {
    const parent = await newEpic('orderly');
    const [a, b, c] = [await newEpic('a'), await newEpic('b'), await newEpic('c')];
    for (const child of [a, b, c]) await t.api('POST', `${childrenOf(parent)}/${child.id}`, { token: owner.token });
    expect(ids((await t.api('GET', childrenOf(parent), { token: owner.token })).body)).toEqual([c.id, b.id, a.id]);
    const after = await t.api('PUT', `${childrenOf(parent)}/${c.id}`, { token: reporter.token, body: { move_before_id: a.id } });
    expect(after.status, after.text).toBe(200);
    expect(ids(after.body)).toEqual([b.id, a.id, c.id]);
    const before = await t.api('PUT', `${childrenOf(parent)}/${a.id}`, { token: reporter.token, body: { move_after_id: b.id } });
    expect(ids(before.body)).toEqual([a.id, b.id, c.id]);
    expect(ids((await t.api('GET', childrenOf(parent), { token: owner.token })).body)).toEqual([a.id, b.id, c.id]);

    const stranger = await newEpic('not a sibling');
    const refused = await t.api('PUT', `${childrenOf(parent)}/${a.id}`, { token: owner.token, body: { move_before_id: stranger.id } });
    expect([refused.status, refused.body]).toEqual([404, { message: 'Epic not found for given params' }]);
  });

  it('unassigns a child, answering it without a parent', async () => {
    const parent = await newEpic('letting go');
    const child = await newEpic('leaving');
    await t.api('POST', `${childrenOf(parent)}/${child.id}`, { token: owner.token });
    const res = await t.api('DELETE', `${childrenOf(parent)}/${child.id}`, { token: reporter.token });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ id: child.id, parent_id: null, parent_iid: null });
    expect((await t.api('GET', childrenOf(parent), { token: owner.token })).body).toEqual([]);
    const again = await t.api('DELETE', `${childrenOf(parent)}/${child.id}`, { token: owner.token });
    expect([again.status, again.body]).toEqual([404, { message: '404 Not found' }]);
  });
});

describe('who may use the Epic Links API', () => {
  it('authenticates every call, lets Guests read and Reporters write, and hides private groups', async () => {
    const parent = await newEpic('guarded');
    const child = await newEpic('guarded child');
    const open = await newEpic('public parent', {}, publicGroup.id);
    expect((await t.api('GET', childrenOf(open, publicGroup.id), { token: null })).status).toBe(401);
    expect((await t.api('GET', childrenOf(open, publicGroup.id), { token: outsider.token })).status).toBe(200);
    expect((await t.api('GET', childrenOf(parent), { token: guest.token })).status).toBe(200);
    for (const [method, path, body] of [
      ['POST', `${childrenOf(parent)}/${child.id}`, {}],
      ['POST', childrenOf(parent), { title: 'nope' }],
      ['PUT', `${childrenOf(parent)}/${child.id}`, { move_after_id: child.id }],
      ['DELETE', `${childrenOf(parent)}/${child.id}`, {}],
    ] as const) {
      const res = await t.api(method, path, { token: guest.token, body });
      expect([method, path, res.status, res.body]).toEqual([method, path, 403, { message: '403 Forbidden' }]);
    }
    const hidden = await t.api('GET', childrenOf(parent), { token: outsider.token });
    expect([hidden.status, hidden.body]).toEqual([404, { message: '404 Group Not Found' }]);
  });
});

describe('resource state events of epics', () => {
  it('records closing and reopening an epic, read by the epic’s id', async () => {
    const epic = await newEpic('stateful');
    const events = `/groups/${group.id}/epics/${epic.id}/resource_state_events`;
    expect((await t.api('GET', events, { token: owner.token })).body).toEqual([]);
    expect((await t.api('PUT', `/groups/${group.id}/epics/${epic.iid}`, { token: reporter.token, body: { state_event: 'close' } })).status).toBe(200);
    // Closing a closed epic changes nothing and records nothing.
    await t.api('PUT', `/groups/${group.id}/epics/${epic.iid}`, { token: reporter.token, body: { state_event: 'close' } });
    await t.api('PUT', `/groups/${group.id}/epics/${epic.iid}`, { token: owner.token, body: { state_event: 'reopen' } });
    const listed = await t.api('GET', events, { token: guest.token });
    expect(listed.status).toBe(200);
    expect(listed.headers.get('x-total')).toBe('2');
    expect(listed.body.map((e: { state: string; user: { id: number } }) => [e.state, e.user.id])).toEqual([
      ['closed', reporter.id],
      ['reopened', owner.id],
    ]);
    const [closed] = listed.body;
    expect(closed).toEqual({
      id: closed.id,
      user: { id: reporter.id, username: reporter.username, name: expect.any(String), state: 'active', locked: false, avatar_url: closed.user.avatar_url, web_url: `${EXTERNAL_URL}/${reporter.username}` },
      created_at: expect.any(String),
      resource_type: 'Epic',
      resource_id: epic.id,
      source_commit: null,
      source_merge_request_id: null,
      state: 'closed',
    });
    const one = await t.api('GET', `${events}/${closed.id}`, { token: owner.token });
    expect(one.body).toEqual(closed);
    expect((await t.api('GET', `${events}/2147483000`, { token: owner.token })).body).toEqual({ message: '404 Not found' });
    expect((await t.api('GET', events, { token: outsider.token })).status).toBe(404);
    expect((await t.api('GET', events, { token: null })).status).toBe(401);
  });
});

describe('query budget', () => {
  it('lists four children, each with its own labels and author, in the queries of one', async () => {
    const cost = async (count: number) => {
      const parent = await newEpic(`budget ${count}`);
      for (let i = 0; i < count; i++) {
        const res = await t.api('POST', childrenOf(parent), { token: owner.token, body: { title: `budget child ${i}` } });
        await t.api('PUT', `/groups/${group.id}/epics/${res.body.iid}`, { token: owner.token, body: { labels: `budget-${count}-${i}` } });
      }
      await t.api('GET', childrenOf(parent), { token: reporter.token });
      [counting, queries] = [true, 0];
      const res = await t.api('GET', childrenOf(parent), { token: reporter.token });
      counting = false;
      expect(res.body).toHaveLength(count);
      return queries;
    };
    expect(await cost(4)).toBe(await cost(1));
  });
});
