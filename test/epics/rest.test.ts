/** Epics over REST: GitLab's entity, iids per group, parents, labels, fixed dates, state events, filters, orders, pagination and deletion. */
import { beforeAll, describe, expect, it } from 'vitest';
import { suiteServer, EXTERNAL_URL } from '../support/server.js';
import { addMember, createGroup, createUser, type TestUser } from '../support/factories.js';

const t = suiteServer();

const KEYS = [
  'id', 'work_item_id', 'iid', 'color', 'text_color', 'group_id', 'parent_id', 'parent_iid', 'imported', 'imported_from', 'title', 'description',
  'confidential', 'author', 'start_date', 'start_date_is_fixed', 'start_date_fixed', 'start_date_from_inherited_source', 'start_date_from_milestones',
  'end_date', 'due_date', 'due_date_is_fixed', 'due_date_fixed', 'due_date_from_inherited_source', 'due_date_from_milestones', 'state',
  'web_edit_url', 'web_url', 'references', 'created_at', 'updated_at', 'closed_at', 'labels', 'upvotes', 'downvotes', '_links',
];

let owner: TestUser;
let reporter: TestUser;
let group: { id: number; full_path: string };
let subgroup: { id: number; full_path: string };

beforeAll(async () => {
  [owner, reporter] = await Promise.all([createUser(t), createUser(t)]);
  group = await createGroup(t, owner.token);
  subgroup = await createGroup(t, owner.token, { parentId: group.id });
  await addMember(t, owner.token, 'groups', group.id, reporter.id, 20);
});

const epics = (g: { id: number } = group, suffix = '') => `/groups/${g.id}/epics${suffix}`;
const basic = (u: TestUser) => ({ id: u.id, username: u.username, name: `User ${u.username}`, state: 'active', locked: false });

describe('creating and reading epics', () => {
  it('creates an epic with GitLab’s entity, numbered per group, labels made in the group', async () => {
    const created = await t.api('POST', epics(), {
      token: reporter.token,
      body: { title: 'Roadmap', description: 'The plan', labels: 'plan,backend', start_date_is_fixed: true, start_date_fixed: '2030-01-02', due_date_fixed: '2030-03-04' },
    });
    expect(created.status, created.text).toBe(201);
    expect(Object.keys(created.body)).toEqual(KEYS);
    const { author, created_at, updated_at, ...rest } = created.body;
    expect(author).toMatchObject(basic(reporter));
    expect(created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(updated_at).toBe(created_at);
    expect(rest).toEqual({
      id: expect.any(Number),
      work_item_id: null,
      iid: 1,
      color: '#1068bf',
      text_color: '#FFFFFF',
      group_id: group.id,
      parent_id: null,
      parent_iid: null,
      imported: false,
      imported_from: 'none',
      title: 'Roadmap',
      description: 'The plan',
      confidential: false,
      start_date: '2030-01-02',
      start_date_is_fixed: true,
      start_date_fixed: '2030-01-02',
      start_date_from_inherited_source: null,
      start_date_from_milestones: null,
      end_date: null,
      due_date: null,
      due_date_is_fixed: false,
      due_date_fixed: '2030-03-04',
      due_date_from_inherited_source: null,
      due_date_from_milestones: null,
      state: 'opened',
      web_edit_url: `/groups/${group.full_path}/-/epics/1`,
      web_url: `${EXTERNAL_URL}/groups/${group.full_path}/-/epics/1`,
      references: { short: '&1', relative: '&1', full: `${group.full_path}&1` },
      closed_at: null,
      labels: ['backend', 'plan'],
      upvotes: 0,
      downvotes: 0,
      _links: {
        self: `${EXTERNAL_URL}/api/v4/groups/${group.id}/epics/1`,
        epic_issues: `${EXTERNAL_URL}/api/v4/groups/${group.id}/epics/1/issues`,
        group: `${EXTERNAL_URL}/api/v4/groups/${group.id}`,
        parent: null,
      },
    });
    const labels = await t.api('GET', `/groups/${group.id}/labels`, { token: owner.token });
    expect(labels.body.map((l: { name: string }) => l.name)).toEqual(expect.arrayContaining(['backend', 'plan']));

    const one = await t.api('GET', epics(group, '/1'), { token: owner.token });
    expect(one.status).toBe(200);
    expect(Object.keys(one.body)).toEqual([...KEYS.slice(0, -1), 'subscribed', '_links']);
    expect(one.body.subscribed).toBe(false);
    const own = await t.api('GET', epics(group, '/1'), { token: reporter.token });
    expect(own.body.subscribed).toBe(true);
  });

  it('numbers epics per group and takes a parent from the group or a group above it', async () => {
    const parent = await t.api('POST', epics(), { token: owner.token, body: { title: 'Parent' } });
    const child = await t.api('POST', epics(subgroup), { token: owner.token, body: { title: 'Child', parent_id: parent.body.id } });
    expect(child.status, child.text).toBe(201);
    expect(child.body).toMatchObject({ iid: 1, group_id: subgroup.id, parent_id: parent.body.id, parent_iid: parent.body.iid });
    expect(child.body._links.parent).toBe(`${EXTERNAL_URL}/api/v4/groups/${group.id}/epics/${parent.body.iid}`);
    expect(child.body.references).toEqual({ short: '&1', relative: '&1', full: `${subgroup.full_path}&1` });

    const upward = await t.api('PUT', epics(group, `/${parent.body.iid}`), { token: owner.token, body: { parent_id: child.body.id } });
    expect(upward.status).toBe(404);
    expect(upward.body).toEqual({ message: 'No matching epic found. Make sure that you are adding a valid epic URL.' });
  });

  it('refuses a blank title and a missing one in GitLab’s words', async () => {
    const blank = await t.api('POST', epics(), { token: owner.token, body: { title: ' ' } });
    expect(blank.status).toBe(400);
    expect(blank.body).toEqual({ message: { title: ["can't be blank"] } });
    const missing = await t.api('POST', epics(), { token: owner.token, body: {} });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ error: 'title is missing' });
  });
});

describe('updating epics', () => {
  it('changes fields, closes and reopens, and changes labels', async () => {
    const epic = (await t.api('POST', epics(), { token: owner.token, body: { title: 'To change', labels: 'a,b' } })).body;
    const path = epics(group, `/${epic.iid}`);
    const closed = await t.api('PUT', path, { token: reporter.token, body: { state_event: 'close', title: 'Changed', confidential: true, due_date_is_fixed: true, due_date_fixed: '2031-05-06', color: '#FFFFFF' } });
    expect(closed.status, closed.text).toBe(200);
    expect(closed.body).toMatchObject({ state: 'closed', title: 'Changed', confidential: true, due_date: '2031-05-06', end_date: '2031-05-06', color: '#FFFFFF', text_color: '#333333' });
    expect(closed.body.closed_at).toMatch(/Z$/);
    expect(closed.body).not.toHaveProperty('subscribed');

    const reopened = await t.api('PUT', path, { token: reporter.token, body: { state_event: 'reopen' } });
    expect(reopened.body).toMatchObject({ state: 'opened', closed_at: null });

    const added = await t.api('PUT', path, { token: reporter.token, body: { add_labels: 'c', remove_labels: 'a' } });
    expect(added.body.labels).toEqual(['b', 'c']);
    const replaced = await t.api('PUT', path, { token: reporter.token, body: { labels: 'z' } });
    expect(replaced.body.labels).toEqual(['z']);
    const cleared = await t.api('PUT', path, { token: reporter.token, body: { labels: '' } });
    expect(cleared.body.labels).toEqual([]);
  });

  it('wants at least one parameter', async () => {
    const res = await t.api('PUT', epics(group, '/1'), { token: owner.token, body: {} });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/are missing, at least one parameter must be provided$/);
  });
});

describe('listing epics', () => {
  let g: { id: number; full_path: string };
  let sub: { id: number; full_path: string };
  beforeAll(async () => {
    g = await createGroup(t, owner.token);
    sub = await createGroup(t, owner.token, { parentId: g.id });
    await addMember(t, owner.token, 'groups', g.id, reporter.id, 20);
    for (const [title, labels] of [['Alpha', 'x'], ['Beta', 'x,y'], ['Gamma', '']] as const) {
      await t.api('POST', epics(g), { token: owner.token, body: { title, labels } });
    }
    await t.api('POST', epics(sub), { token: reporter.token, body: { title: 'Delta' } });
    await t.api('PUT', epics(g, '/2'), { token: owner.token, body: { state_event: 'close' } });
  });

  const titles = async (query: string, token = owner.token) => {
    const res = await t.api('GET', `${epics(g)}${query}`, { token });
    expect(res.status, res.text).toBe(200);
    return res.body.map((e: { title: string }) => e.title);
  };

  it('lists the group’s and its subgroups’ epics, newest first, with filters', async () => {
    expect(await titles('')).toEqual(['Delta', 'Gamma', 'Beta', 'Alpha']);
    expect(await titles('?include_descendant_groups=false')).toEqual(['Gamma', 'Beta', 'Alpha']);
    expect(await titles('?state=closed')).toEqual(['Beta']);
    expect(await titles('?state=opened&sort=asc')).toEqual(['Alpha', 'Gamma', 'Delta']);
    expect(await titles('?labels=x')).toEqual(['Beta', 'Alpha']);
    expect(await titles('?labels=x,y')).toEqual(['Beta']);
    expect(await titles(`?author_id=${reporter.id}`)).toEqual(['Delta']);
    expect(await titles(`?author_username=${reporter.username}`)).toEqual(['Delta']);
    expect(await titles('?search=amm')).toEqual(['Gamma']);
    expect(await titles('?order_by=title&sort=asc')).toEqual(['Alpha', 'Beta', 'Delta', 'Gamma']);
    expect(await titles('?created_after=2000-01-01T00:00:00Z&created_before=2100-01-01T00:00:00Z&per_page=2')).toEqual(['Delta', 'Gamma']);
  });

  it('includes ancestors’ epics when asked', async () => {
    const res = await t.api('GET', `${epics(sub)}?include_ancestor_groups=true&order_by=title&sort=asc`, { token: owner.token });
    expect(res.body.map((e: { title: string }) => e.title)).toEqual(['Alpha', 'Beta', 'Delta', 'Gamma']);
  });

  it('paginates with GitLab’s headers', async () => {
    const res = await t.api('GET', `${epics(g)}?per_page=3&page=2`, { token: owner.token });
    expect(res.body.map((e: { title: string }) => e.title)).toEqual(['Alpha']);
    expect(res.headers.get('x-total')).toBe('4');
    expect(res.headers.get('x-total-pages')).toBe('2');
    expect(res.headers.get('x-page')).toBe('2');
    expect(res.headers.get('x-prev-page')).toBe('1');
    expect(res.headers.get('x-next-page')).toBe('');
  });
});

describe('deleting epics', () => {
  it('lets the Owner delete an epic; its children lose their parent', async () => {
    const parent = (await t.api('POST', epics(), { token: owner.token, body: { title: 'Doomed' } })).body;
    const child = (await t.api('POST', epics(), { token: owner.token, body: { title: 'Orphan', parent_id: parent.id } })).body;
    const refused = await t.api('DELETE', epics(group, `/${parent.iid}`), { token: reporter.token });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ message: '403 Forbidden' });
    const deleted = await t.api('DELETE', epics(group, `/${parent.iid}`), { token: owner.token });
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    const gone = await t.api('GET', epics(group, `/${parent.iid}`), { token: owner.token });
    expect(gone.status).toBe(403);
    const orphan = await t.api('GET', epics(group, `/${child.iid}`), { token: owner.token });
    expect(orphan.body).toMatchObject({ parent_id: null, parent_iid: null, _links: { parent: null } });
  });
});

describe('label events of epics', () => {
  it('records one event per group label added or removed, listed and read by id (GitLab\'s resource_label_events)', async () => {
    const epic = (await t.api('POST', epics(), { token: reporter.token, body: { title: 'Labelled', labels: 'front,back' } })).body;
    await t.api('PUT', epics(group, `/${epic.iid}`), { token: reporter.token, body: { remove_labels: 'front', add_labels: 'ops' } });
    const path = epics(group, `/${epic.id}/resource_label_events`);
    const list = await t.api('GET', path, { token: reporter.token });
    expect(list.status, list.text).toBe(200);
    expect(list.headers.get('x-total')).toBe('4');
    const seen = list.body.map((e: { action: string; label: { name: string } }) => [e.action, e.label.name]);
    // The creation's two, then the update's two (within one change, in label order).
    expect(seen.slice(0, 2).sort()).toEqual([['add', 'back'], ['add', 'front']]);
    expect(seen.slice(2).sort()).toEqual([['add', 'ops'], ['remove', 'front']]);
    const first = list.body[0];
    expect(Object.keys(first)).toEqual(['id', 'user', 'created_at', 'resource_type', 'resource_id', 'label', 'action']);
    expect(first).toMatchObject({ user: basic(reporter), resource_type: 'Epic', resource_id: epic.id });
    expect(Object.keys(first.label)).toEqual(expect.arrayContaining(['id', 'name', 'color', 'description']));
    const one = await t.api('GET', `${path}/${first.id}`, { token: reporter.token });
    expect(one.body).toEqual(first);
    expect((await t.api('GET', `${path}/2147483000`, { token: reporter.token })).body).toEqual({ message: '404 Not found' });
    expect((await t.api('GET', path, { token: null })).status).toBe(401);
  });
});
