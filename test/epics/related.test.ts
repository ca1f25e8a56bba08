/**
 * Related epics (GitLab's Related Epic Links API: list, relate, unrelate), their system notes, GraphQL's blocking
 * fields, and gitbeaker's LinkedEpics.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { Gitlab } from '@gitbeaker/rest';
import { suiteServer } from '../support/server.js';
import { addMember, createGroup, createUser, type TestUser } from '../support/factories.js';

let counting = false;
let queries = 0;
const t = suiteServer({}, { onQuery: () => void (counting && queries++) });

let owner: TestUser;
let guest: TestUser;
let reporter: TestUser;
let outsider: TestUser;
let group: { id: number; full_path: string };
let other: { id: number; full_path: string };
let publicGroup: { id: number };

interface Epic {
  id: number;
  iid: number;
  [key: string]: unknown;
}

const newEpic = async (title: string, groupId = group.id): Promise<Epic> => {
  const res = await t.api('POST', `/groups/${groupId}/epics`, { token: owner.token, body: { title } });
  if (res.status !== 201) throw new Error(`epic: ${res.status} ${res.text}`);
  return res.body;
};
const relatedOf = (epic: Epic, groupId = group.id) => `/groups/${groupId}/epics/${epic.iid}/related_epics`;
const relate = (from: Epic, to: Epic, token: string, extra: Record<string, unknown> = {}, toGroup = group.id) =>
  t.api('POST', relatedOf(from), { token, body: { target_group_id: toGroup, target_epic_iid: to.iid, ...extra } });

beforeAll(async () => {
  [owner, guest, reporter, outsider] = await Promise.all([createUser(t), createUser(t), createUser(t), createUser(t)]);
  group = await createGroup(t, owner.token);
  other = await createGroup(t, owner.token);
  publicGroup = await createGroup(t, owner.token, { visibility: 'public' });
  await addMember(t, owner.token, 'groups', group.id, guest.id, 10);
  await addMember(t, owner.token, 'groups', group.id, reporter.id, 20);
});

describe('relating epics', () => {
  it('relates two epics and answers the link with both epics as the Epics API shows them', async () => {
    const [a, b] = [await newEpic('a'), await newEpic('b')];
    const res = await relate(a, b, reporter.token);
    expect(res.status, res.text).toBe(201);
    expect(Object.keys(res.body)).toEqual(['id', 'source_epic', 'target_epic', 'link_type', 'created_at', 'updated_at']);
    // The Epics API's epic, which alone adds `subscribed`.
    const shown = async (iid: number) => {
      const { subscribed: _, ...epic } = (await t.api('GET', `/groups/${group.id}/epics/${iid}`, { token: owner.token })).body;
      return epic;
    };
    expect(res.body.source_epic).toEqual(await shown(a.iid));
    expect(res.body.target_epic).toEqual(await shown(b.iid));
    expect(res.body.link_type).toBe('relates_to');

    const fromA = await t.api('GET', relatedOf(a), { token: guest.token });
    expect(fromA.status).toBe(200);
    expect(fromA.body).toEqual([{ ...(await shown(b.iid)), related_epic_link_id: res.body.id, link_type: 'relates_to', link_created_at: res.body.created_at, link_updated_at: res.body.updated_at }]);
    const fromB = await t.api('GET', relatedOf(b), { token: guest.token });
    expect(fromB.body.map((e: Epic) => [e.id, e.link_type])).toEqual([[a.id, 'relates_to']]);

    const notes = await t.api('GET', `/groups/${group.id}/epics/${a.id}/notes`, { token: owner.token });
    expect(notes.body.map((n: { body: string; system: boolean }) => [n.body, n.system])).toEqual([[`marked this epic as related to &${b.iid}`, true]]);
  });

  it('stores is_blocked_by as a blocks link the other way round, and shows each side its own type', async () => {
    const [blocker, blocked, third] = [await newEpic('blocker'), await newEpic('blocked'), await newEpic('third')];
    const res = await relate(blocked, blocker, owner.token, { link_type: 'is_blocked_by' });
    expect(res.status, res.text).toBe(201);
    expect([res.body.source_epic.id, res.body.target_epic.id, res.body.link_type]).toEqual([blocker.id, blocked.id, 'blocks']);
    await relate(blocker, third, owner.token, { link_type: 'blocks' });
    expect((await t.api('GET', relatedOf(blocked), { token: owner.token })).body.map((e: Epic) => [e.id, e.link_type])).toEqual([[blocker.id, 'is_blocked_by']]);
    expect((await t.api('GET', relatedOf(blocker), { token: owner.token })).body.map((e: Epic) => [e.id, e.link_type])).toEqual([
      [blocked.id, 'blocks'],
      [third.id, 'blocks'],
    ]);

    const query = `query($path: ID!) { group(fullPath: $path) { epics(sort: CREATED_AT_ASC) { nodes { title blocked blockedByCount blockingCount blockedByEpics { nodes { title } } } } } }`;
    const gql = await t.graphql(query, { path: group.full_path }, owner.token);
    const byTitle = Object.fromEntries(gql.body.data.group.epics.nodes.map((n: { title: string }) => [n.title, n]));
    expect(byTitle.blocker).toEqual({ title: 'blocker', blocked: false, blockedByCount: 0, blockingCount: 2, blockedByEpics: { nodes: [] } });
    expect(byTitle.blocked).toEqual({ title: 'blocked', blocked: true, blockedByCount: 1, blockingCount: 0, blockedByEpics: { nodes: [{ title: 'blocker' }] } });
  });

  it('refuses epics already related either way (409), itself (422), and bad targets in GitLab’s words', async () => {
    const [a, b] = [await newEpic('one'), await newEpic('two')];
    await relate(a, b, owner.token);
    const twice = await relate(b, a, owner.token);
    expect([twice.status, twice.body]).toEqual([409, { message: 'Epic(s) already assigned' }]);
    const itself = await relate(a, a, owner.token);
    expect([itself.status, itself.body]).toEqual([422, { message: `&${a.iid} cannot be added: cannot be related to itself` }]);
    const missing = await relate(a, { id: 0, iid: 99_999 }, owner.token);
    expect([missing.status, missing.body]).toEqual([404, { message: '404 Not found' }]);
    const hiddenGroup = await relate(a, b, owner.token, {}, 99_999_999);
    expect([hiddenGroup.status, hiddenGroup.body]).toEqual([404, { message: '404 Group Not Found' }]);
    const badType = await relate(a, b, owner.token, { link_type: 'sibling' });
    expect([badType.status, badType.body]).toEqual([400, { error: 'link_type does not have a valid value' }]);
  });

  it('relates epics of another group the caller may change epics of, with the group in the note', async () => {
    const [here, there] = [await newEpic('here'), await newEpic('there', other.id)];
    const res = await relate(here, there, owner.token, {}, other.id);
    expect(res.status, res.text).toBe(201);
    const notes = await t.api('GET', `/groups/${group.id}/epics/${here.id}/notes`, { token: owner.token });
    expect(notes.body[0].body).toBe(`marked this epic as related to ${other.full_path}&${there.iid}`);
    // The reporter of this group is no one in the other: the other group hides itself.
    const refused = await relate(here, there, reporter.token, {}, other.id);
    expect(refused.status).toBe(404);
  });
});

describe('unrelating epics', () => {
  it('removes a link from either side, answering it, and 404s for a link of other epics', async () => {
    const [a, b, c] = [await newEpic('x'), await newEpic('y'), await newEpic('z')];
    const link = (await relate(a, b, owner.token)).body;
    const unrelated = (await relate(b, c, owner.token)).body;
    const wrong = await t.api('DELETE', `${relatedOf(a)}/${unrelated.id}`, { token: owner.token });
    expect([wrong.status, wrong.body]).toEqual([404, { message: '404 Not found' }]);
    const res = await t.api('DELETE', `${relatedOf(b)}/${link.id}`, { token: guest.token });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ ...link, source_epic: { ...link.source_epic, updated_at: res.body.source_epic.updated_at }, target_epic: { ...link.target_epic, updated_at: res.body.target_epic.updated_at } });
    expect((await t.api('GET', relatedOf(a), { token: owner.token })).body).toEqual([]);
    const notes = await t.api('GET', `/groups/${group.id}/epics/${b.id}/notes?sort=asc`, { token: owner.token });
    expect(notes.body.map((n: { body: string }) => n.body)).toContain(`removed the relation with &${a.iid}`);
  });
});

describe('who may use the Related Epic Links API', () => {
  it('lets anyone who reads the epic list, Guests relate from an epic, Reporters to one, and hides private groups', async () => {
    const open = await newEpic('public', publicGroup.id);
    expect((await t.api('GET', relatedOf(open, publicGroup.id), { token: null })).status).toBe(200);
    const [a, b] = [await newEpic('guarded a'), await newEpic('guarded b')];
    const byGuest = await relate(a, b, guest.token);
    expect([byGuest.status, byGuest.body]).toEqual([403, { message: '403 Forbidden' }]);
    expect((await relate(a, b, null as unknown as string)).status).toBe(401);
    const hidden = await t.api('GET', relatedOf(a), { token: outsider.token });
    expect([hidden.status, hidden.body]).toEqual([404, { message: '404 Group Not Found' }]);
    expect((await t.api('GET', relatedOf({ id: 0, iid: 99_999 }), { token: owner.token })).status).toBe(403);
  });
});

describe('gitbeaker', () => {
  it('drives LinkedEpics', async () => {
    const api = new Gitlab({ host: t.url, token: owner.token });
    const [a, b] = [await newEpic('client a'), await newEpic('client b')];
    const link = await api.LinkedEpics.create(group.id, a.iid, b.iid, group.id);
    expect(link).toMatchObject({ source_epic: { id: a.id }, target_epic: { id: b.id }, link_type: 'relates_to' });
    expect((await api.LinkedEpics.all(group.id, a.iid)).map((e) => e.id)).toEqual([b.id]);
    await api.LinkedEpics.remove(group.id, a.iid, (link as unknown as { id: number }).id);
    expect(await api.LinkedEpics.all(group.id, b.iid)).toEqual([]);
  });
});

describe('query budget', () => {
  it('lists four related epics in the queries of one', async () => {
    const cost = async (count: number) => {
      const epic = await newEpic(`budget ${count}`);
      for (let i = 0; i < count; i++) await relate(epic, await newEpic(`budget ${count} ${i}`), owner.token, { link_type: i % 2 ? 'blocks' : 'relates_to' });
      await t.api('GET', relatedOf(epic), { token: reporter.token });
      [counting, queries] = [true, 0];
      const res = await t.api('GET', relatedOf(epic), { token: reporter.token });
      counting = false;
      expect(res.body).toHaveLength(count);
      return queries;
    };
    expect(await cost(4)).toBe(await cost(1));
  });
});
