/**
 * IssuesFinder's list filters and issues statistics on a real server: `not[…]`, `in`, `weight`, `epic_id`,
 * `my_reaction_emoji`, `due_date`, GitLab's 400s for parameters given together, the issues statistics of a project,
 * a group and the instance behind the same visibility (a guest does not count a confidential issue), GraphQL's
 * `not`, `or` and Project.issueStatusCounts, and the administrators' `GET /issues/:id`.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { Gitlab } from '@gitbeaker/rest';
import { suiteServer } from '../support/server.js';
import { addMember, createGroup, createProject, createUser, unique, type TestUser } from '../support/factories.js';

const t = suiteServer({ logLevel: 'error' });

let owner: TestUser;
let other: TestUser;
let guest: TestUser;
let admin: TestUser;
let group: { id: number; full_path: string };
let project: { id: number; path_with_namespace: string };
let epic: { id: number };
/** Issue ids by iid. */
const ids: Record<number, number> = {};

const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

beforeAll(async () => {
  [owner, other, guest] = await Promise.all([1, 2, 3].map(() => createUser(t)));
  admin = await createUser(t, { admin: true });
  group = await createGroup(t, owner.token, { visibility: 'public' });
  project = await createProject(t, owner.token, { namespaceId: group.id, visibility: 'public' });
  await addMember(t, owner.token, 'projects', project.id, other.id, 30);
  await addMember(t, owner.token, 'projects', project.id, guest.id, 10);
  const milestone = await t.api('POST', `/projects/${project.id}/milestones`, { token: owner.token, body: { title: 'v1' } });
  expect(milestone.status, milestone.text).toBe(201);
  const created = await t.api('POST', `/groups/${group.id}/epics`, { token: owner.token, body: { title: 'Epic' } });
  expect(created.status, created.text).toBe(201);
  epic = created.body;
  const make = async (token: string, body: object) => {
    const res = await t.api('POST', `/projects/${project.id}/issues`, { token, body });
    expect(res.status, res.text).toBe(201);
    ids[res.body.iid] = res.body.id;
    return res.body;
  };
  await make(owner.token, { title: 'Alpha', description: 'a needle here', labels: 'bug', weight: 1, due_date: day(0), milestone_id: milestone.body.id, assignee_ids: [owner.id] });
  await make(other.token, { title: 'Needle title', labels: 'ui', weight: 3, due_date: '2000-01-01' });
  await make(owner.token, { title: 'Gamma', confidential: true, assignee_ids: [other.id] });
  await make(owner.token, { title: 'Delta', labels: 'bug,ui', weight: 3, due_date: day(1) });
  expect((await t.api('PUT', `/projects/${project.id}/issues/4`, { token: owner.token, body: { state_event: 'close' } })).status).toBe(200);
  // The group's Owner puts issue 2 in the epic (its author, a project Developer, may not).
  const inEpic = await t.api('PUT', `/projects/${project.id}/issues/2`, { token: owner.token, body: { epic_id: epic.id } });
  expect(inEpic.status, inEpic.text).toBe(200);
  for (const [iid, name] of [
    [1, 'thumbsup'],
    [2, 'tada'],
  ] as const) {
    const award = await t.api('POST', `/projects/${project.id}/issues/${iid}/award_emoji`, { token: owner.token, body: { name } });
    expect(award.status, award.text).toBe(201);
  }
  // Another user's reaction does not count as the viewer's.
  expect((await t.api('POST', `/projects/${project.id}/issues/3/award_emoji`, { token: other.token, body: { name: 'tada' } })).status).toBe(201);
});

/** The iids a project list answers for a query string, ascending. */
async function iids(query: string, token: string | null = owner.token, path = `/projects/${project.id}/issues`): Promise<number[]> {
  const res = await t.api('GET', `${path}?per_page=100&${query}`, { token });
  expect(res.status, res.text).toBe(200);
  return res.body.filter((i: { project_id: number }) => i.project_id === project.id).map((i: { iid: number }) => i.iid).sort((a: number, b: number) => a - b);
}

describe('issue list filters (REST)', () => {
  it('negates labels, milestones, iids, authors, assignees, weights and the viewer\'s reactions', async () => {
    expect(await iids('not[labels]=bug')).toEqual([2, 3]);
    expect(await iids('not[labels]=bug,ui')).toEqual([3]);
    expect(await iids('not[labels][]=ui')).toEqual([1, 3]);
    expect(await iids('not[milestone]=v1')).toEqual([2, 3, 4]);
    expect(await iids('not[iids]=1,2')).toEqual([3, 4]);
    expect(await iids(`not[author_id]=${other.id}`)).toEqual([1, 3, 4]);
    expect(await iids(`not[author_username]=${other.username}`)).toEqual([1, 3, 4]);
    expect(await iids(`not[assignee_id]=${owner.id}`)).toEqual([2, 3, 4]);
    expect(await iids(`not[assignee_username]=${other.username}`)).toEqual([1, 2, 4]);
    // Issues without a weight are not of the weight negated.
    expect(await iids('not[weight]=3')).toEqual([1, 3]);
    expect(await iids('not[my_reaction_emoji]=thumbsup')).toEqual([2, 3, 4]);
    expect(await iids('not[labels]=bug&not[weight]=1')).toEqual([2, 3]);
  });

  it('filters by weight, epic and the viewer\'s reaction, with None and Any', async () => {
    expect(await iids('weight=3')).toEqual([2, 4]);
    expect(await iids('weight=None')).toEqual([3]);
    expect(await iids('weight=any')).toEqual([1, 2, 4]);
    expect(await iids(`epic_id=${epic.id}`)).toEqual([2]);
    expect(await iids('epic_id=None')).toEqual([1, 3, 4]);
    expect(await iids('epic_id=Any')).toEqual([2]);
    expect(await iids(`not[epic_id]=${epic.id}`)).toEqual([1, 3, 4]);
    expect(await iids('my_reaction_emoji=tada')).toEqual([2]);
    expect(await iids('my_reaction_emoji=None')).toEqual([3, 4]);
    expect(await iids('my_reaction_emoji=Any')).toEqual([1, 2]);
    expect(await iids('my_reaction_emoji=tada', other.token)).toEqual([3]);
    // An anonymous caller has no reactions: the filter is ignored (confidential issue 3 stays hidden).
    expect(await iids('my_reaction_emoji=tada', null)).toEqual([1, 2, 4]);
  });

  it('searches where `in` says, and filters by due date, type and confidentiality', async () => {
    expect(await iids('search=needle')).toEqual([1, 2]);
    expect(await iids('search=needle&in=title')).toEqual([2]);
    expect(await iids('search=needle&in=description')).toEqual([1]);
    expect(await iids('search=needle&in=title,description')).toEqual([1, 2]);
    expect(await iids('due_date=0')).toEqual([3]);
    expect(await iids('due_date=none')).toEqual([3]);
    expect(await iids('due_date=any')).toEqual([1, 2, 4]);
    expect(await iids('due_date=today')).toEqual([1]);
    expect(await iids('due_date=tomorrow')).toEqual([4]);
    expect(await iids('due_date=overdue')).toEqual([2]);
    for (const range of ['week', 'month', 'next_month_and_previous_two_weeks']) {
      const found = await iids(`due_date=${range}`);
      expect(found, range).toContain(1);
      expect(found, range).not.toContain(2);
      expect(found, range).not.toContain(3);
    }
    expect(await iids('issue_type=issue&confidential=true')).toEqual([3]);
    expect(await iids('issue_type=incident')).toEqual([]);
  });

  it('filters group and instance lists the same way', async () => {
    expect(await iids('not[labels]=bug', owner.token, `/groups/${group.id}/issues`)).toEqual([2, 3]);
    expect(await iids('scope=all&weight=3&state=opened', owner.token, '/issues')).toEqual([2]);
    expect(await iids('not[iids]=1', owner.token, '/issues')).toEqual([3, 4]);
  });

  it('answers GitLab\'s 400 for parameters given together and for values it does not take', async () => {
    const bad = async (query: string, error: string) => {
      const res = await t.api('GET', `/projects/${project.id}/issues?${query}`, { token: owner.token });
      expect(res.status, query).toBe(400);
      expect(res.body, query).toEqual({ error });
    };
    await bad(`assignee_id=${owner.id}&assignee_username=${owner.username}`, 'assignee_id, assignee_username are mutually exclusive');
    await bad(`author_id=${owner.id}&author_username=${owner.username}`, 'author_id, author_username are mutually exclusive');
    await bad(`not[author_id]=${owner.id}&not[author_username]=${owner.username}`, 'not[author_id], not[author_username] are mutually exclusive');
    await bad('due_date=someday', 'due_date does not have a valid value');
    await bad('weight=heavy', 'weight does not have a valid value');
    await bad('not[author_id]=me', 'not[author_id] is invalid');
    const stats = await t.api('GET', `/projects/${project.id}/issues_statistics?author_id=1&author_username=x`, { token: owner.token });
    expect(stats.status).toBe(400);
    expect(stats.body).toEqual({ error: 'author_id, author_username are mutually exclusive' });
  });

  it('serves gitbeaker\'s Issues.all with these filters', async () => {
    const api = new Gitlab({ host: t.url, token: owner.token });
    const byIid = (list: { iid: number }[]) => list.map((i) => i.iid).sort((a, b) => a - b);
    expect(byIid(await api.Issues.all({ projectId: project.id, weight: 3 }))).toEqual([2, 4]);
    expect(byIid(await api.Issues.all({ projectId: project.id, myReactionEmoji: 'thumbsup' }))).toEqual([1]);
    expect(byIid(await api.Issues.all({ projectId: project.id, not: { labels: 'bug' } }))).toEqual([2, 3]);
    expect(byIid(await api.Issues.all({ projectId: project.id, search: 'needle', in: 'title' }))).toEqual([2]);
    expect(byIid(await api.Issues.all({ groupId: group.id, dueDate: 'overdue' }))).toEqual([2]);
  });
});

describe('issues statistics', () => {
  const counts = (all: number, closed: number, opened: number) => ({ statistics: { counts: { all, closed, opened } } });
  const stats = async (path: string, token: string | null = owner.token) => {
    const res = await t.api('GET', path, { token });
    expect(res.status, res.text).toBe(200);
    return res.body;
  };

  it('counts a project\'s issues by state with the list filters, whatever `state` says', async () => {
    expect(await stats(`/projects/${project.id}/issues_statistics`)).toEqual(counts(4, 1, 3));
    expect(await stats(`/projects/${project.id}/issues_statistics?labels=bug`)).toEqual(counts(2, 1, 1));
    expect(await stats(`/projects/${project.id}/issues_statistics?state=closed&not[labels]=bug`)).toEqual(counts(2, 0, 2));
    expect(await stats(`/projects/${project.id}/issues_statistics?weight=3&my_reaction_emoji=tada`)).toEqual(counts(1, 0, 1));
    expect(await stats(`/projects/${project.id}/issues_statistics?iids[]=1&iids[]=4`)).toEqual(counts(2, 1, 1));
  });

  it('counts only what the viewer may read: a guest and an anonymous caller do not count the confidential issue', async () => {
    expect(await stats(`/projects/${project.id}/issues_statistics`, guest.token)).toEqual(counts(3, 1, 2));
    expect(await stats(`/projects/${project.id}/issues_statistics`, null)).toEqual(counts(3, 1, 2));
    expect(await stats(`/groups/${group.id}/issues_statistics?confidential=true`, guest.token)).toEqual(counts(0, 0, 0));
    expect(await stats(`/groups/${group.id}/issues_statistics?confidential=true`, other.token)).toEqual(counts(1, 0, 1));
  });

  it('counts a group\'s issues and the instance\'s (the caller\'s own by default; anonymous callers only with scope=all)', async () => {
    expect(await stats(`/groups/${group.id}/issues_statistics?not[labels]=bug`)).toEqual(counts(2, 0, 2));
    expect(await stats('/issues_statistics')).toEqual(counts(3, 1, 2));
    expect(await stats('/issues_statistics', other.token)).toEqual(counts(1, 0, 1));
    expect(await stats(`/issues_statistics?scope=assigned_to_me`, other.token)).toEqual(counts(1, 0, 1));
    expect((await t.api('GET', '/issues_statistics', { token: null })).status).toBe(401);
    const all = await stats(`/issues_statistics?scope=all&search=${encodeURIComponent('needle')}`, null);
    expect(all).toEqual(counts(2, 0, 2));
  });

  it('answers 404 for a project or group the caller may not see', async () => {
    const hidden = await createProject(t, owner.token, { visibility: 'private' });
    const res = await t.api('GET', `/projects/${hidden.id}/issues_statistics`, { token: guest.token });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: '404 Project Not Found' });
    const missing = await t.api('GET', `/groups/${unique('nogroup')}/issues_statistics`, { token: owner.token });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ message: '404 Group Not Found' });
  });

  it('serves gitbeaker\'s IssuesStatistics.all', async () => {
    const api = new Gitlab({ host: t.url, token: owner.token });
    expect(await api.IssuesStatistics.all({ projectId: project.id, labels: 'ui' })).toEqual(counts(2, 1, 1));
    expect(await api.IssuesStatistics.all({ groupId: group.id, myReactionEmoji: 'thumbsup' })).toEqual(counts(1, 0, 1));
    expect(await api.IssuesStatistics.all()).toEqual(counts(3, 1, 2));
  });
});

describe('GraphQL issue filters', () => {
  const query = `query($p: ID!, $not: NegatedIssueFilterInput, $or: UnionedIssueFilterInput, $weight: String, $in: [IssuableSearchableField!], $search: String) {
    project(fullPath: $p) {
      issues(not: $not, or: $or, weight: $weight, in: $in, search: $search) { nodes { iid } }
      issueStatusCounts(not: $not, or: $or, weight: $weight, in: $in, search: $search) { all opened closed }
    }
  }`;
  const run = async (variables: object, token: string | null = owner.token) => {
    const res = await t.graphql(query, { p: project.path_with_namespace, ...variables }, token);
    expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
    const { issues, issueStatusCounts } = res.body.data.project;
    return { iids: issues.nodes.map((n: { iid: string }) => Number(n.iid)).sort((a: number, b: number) => a - b), counts: issueStatusCounts };
  };

  it('takes `not` and `or` as GitLab names them, in lists and status counts alike', async () => {
    expect(await run({ not: { labelName: ['bug'] } })).toEqual({ iids: [2, 3], counts: { all: 2, opened: 2, closed: 0 } });
    expect(await run({ not: { assigneeUsernames: [owner.username, other.username] } })).toEqual({ iids: [2, 4], counts: { all: 2, opened: 1, closed: 1 } });
    expect(await run({ not: { iids: ['1', '4'], myReactionEmoji: 'tada' } })).toEqual({ iids: [3], counts: { all: 1, opened: 1, closed: 0 } });
    expect(await run({ or: { authorUsernames: [other.username, admin.username] } })).toEqual({ iids: [2], counts: { all: 1, opened: 1, closed: 0 } });
    expect(await run({ or: { labelNames: ['bug', 'ui'] }, not: { labelName: ['ui'] } })).toEqual({ iids: [1], counts: { all: 1, opened: 1, closed: 0 } });
    expect(await run({ or: { assigneeUsernames: [owner.username, other.username] } })).toEqual({ iids: [1, 3], counts: { all: 2, opened: 2, closed: 0 } });
    expect(await run({ weight: 'None', in: ['TITLE'], search: 'gam' })).toEqual({ iids: [3], counts: { all: 1, opened: 1, closed: 0 } });
    expect((await run({ or: { labelNames: ['bug'] } }, guest.token)).counts).toEqual({ all: 2, opened: 1, closed: 1 });
  });
});

describe('GET /issues/:id', () => {
  it('gives administrators any issue by id; others 403, anonymous callers 401, a missing one 404 Not found', async () => {
    const res = await t.api('GET', `/issues/${ids[3]}`, { token: admin.token });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ id: ids[3], iid: 3, project_id: project.id, title: 'Gamma', confidential: true, subscribed: false });
    expect((await t.api('GET', `/issues/${ids[3]}`, { token: owner.token })).body).toEqual({ message: '403 Forbidden' });
    expect((await t.api('GET', `/issues/${ids[1]}`, { token: owner.token })).status).toBe(403);
    expect((await t.api('GET', `/issues/${ids[1]}`, { token: null })).status).toBe(401);
    const missing = await t.api('GET', '/issues/2147483000', { token: admin.token });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ message: '404 Not found' });
    expect((await t.api('GET', '/issues/abc', { token: admin.token })).status).toBe(404);
  });
});
