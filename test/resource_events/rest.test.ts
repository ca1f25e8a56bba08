/**
 * The resource events APIs of issues over REST: GitLab's entities (label, weight, milestone and state events), one
 * event per label added or removed whichever way (REST `labels`, `add_labels`, `remove_labels`, GraphQL updateIssue),
 * weight on create and on change, milestone `add`/`remove`, close and reopen, a deleted label shown as null,
 * pagination, 404 for another issue's event, and gitbeaker's resource event classes.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { Gitlab } from '@gitbeaker/rest';
import { suiteServer, EXTERNAL_URL } from '../support/server.js';
import { addMember, createGroup, createProject, createUser, type TestUser } from '../support/factories.js';

const t = suiteServer();

let owner: TestUser;
let reporter: TestUser;
let project: { id: number; path_with_namespace: string };

const USER_KEYS = ['id', 'username', 'name', 'state', 'locked', 'avatar_url', 'web_url'];
const userOf = (u: TestUser) => ({ id: u.id, username: u.username, name: `User ${u.username}`, state: 'active', locked: false, web_url: `${EXTERNAL_URL}/${u.username}` });
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

beforeAll(async () => {
  [owner, reporter] = await Promise.all([createUser(t), createUser(t)]);
  const group = await createGroup(t, owner.token);
  project = await createProject(t, owner.token, { namespaceId: group.id });
  await addMember(t, owner.token, 'projects', project.id, reporter.id, 20);
});

const issuePath = (iid: number, suffix = '') => `/projects/${project.id}/issues/${iid}${suffix}`;

async function newIssue(body: Record<string, unknown> = {}, token = reporter.token): Promise<{ id: number; iid: number }> {
  const res = await t.api('POST', `/projects/${project.id}/issues`, { token, body: { title: 'An issue', ...body } });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

async function update(iid: number, body: Record<string, unknown>, token = reporter.token) {
  const res = await t.api('PUT', issuePath(iid), { token, body });
  expect(res.status, res.text).toBe(200);
  return res.body;
}

async function labelEvents(iid: number, token = reporter.token): Promise<{ action: string; label: { name: string } | null }[]> {
  const res = await t.api('GET', issuePath(iid, '/resource_label_events'), { token });
  expect(res.status, res.text).toBe(200);
  return res.body;
}

const summary = (events: { action: string; label: { name: string } | null }[]) => events.map((e) => `${e.action} ${e.label?.name ?? null}`);

describe('label events', () => {
  it('records one event per label on create and shows GitLab’s entity', async () => {
    const issue = await newIssue({ labels: 'bug,backend' });
    const res = await t.api('GET', issuePath(issue.iid, '/resource_label_events'), { token: reporter.token });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-total')).toBe('2');
    const labels = await t.api('GET', `/projects/${project.id}/labels`, { token: reporter.token });
    const bug = labels.body.find((l: { name: string }) => l.name === 'bug');
    const event = res.body.find((e: { label: { name: string } }) => e.label.name === 'bug');
    expect(Object.keys(event)).toEqual(['id', 'user', 'created_at', 'resource_type', 'resource_id', 'label', 'action']);
    expect(Object.keys(event.user)).toEqual(USER_KEYS);
    expect(event).toMatchObject({
      user: userOf(reporter),
      resource_type: 'Issue',
      resource_id: issue.id,
      label: { id: bug.id, name: 'bug', color: bug.color, description: null, description_html: null, text_color: bug.text_color },
      action: 'add',
    });
    expect(Object.keys(event.label)).toEqual(['id', 'name', 'color', 'description', 'description_html', 'text_color']);
    expect(event.created_at).toMatch(ISO);
    const one = await t.api('GET', issuePath(issue.iid, `/resource_label_events/${event.id}`), { token: reporter.token });
    expect(one.status).toBe(200);
    expect(one.body).toEqual(event);
  });

  it('records each label added or removed through labels, add_labels, remove_labels and GraphQL, and nothing when nothing changes', async () => {
    const issue = await newIssue();
    expect(await labelEvents(issue.iid)).toEqual([]);
    await update(issue.iid, { labels: 'one,two' });
    await update(issue.iid, { labels: 'two,three' });
    await update(issue.iid, { add_labels: 'four,two' });
    await update(issue.iid, { remove_labels: 'one,three' });
    await update(issue.iid, { title: 'Only the title' });
    const gql = await t.graphql(
      `mutation($p: ID!, $l: [ID!]) { updateIssue(input: { projectPath: $p, iid: "${issue.iid}", addLabelIds: $l }) { errors } }`,
      { p: project.path_with_namespace, l: [] },
      reporter.token,
    );
    expect(gql.body.errors).toBeUndefined();
    const five = await t.api('POST', `/projects/${project.id}/labels`, { token: owner.token, body: { name: 'five', color: '#ff0000' } });
    const two = (await t.api('GET', `/projects/${project.id}/labels/two`, { token: reporter.token })).body;
    const both = await t.graphql(
      `mutation($p: ID!, $add: [ID!], $remove: [ID!]) { updateIssue(input: { projectPath: $p, iid: "${issue.iid}", addLabelIds: $add, removeLabelIds: $remove }) { errors issue { labels { nodes { title } } } } }`,
      { p: project.path_with_namespace, add: [`gid://gitlab/ProjectLabel/${five.body.id}`], remove: [`gid://gitlab/ProjectLabel/${two.id}`] },
      reporter.token,
    );
    expect(both.body.errors, JSON.stringify(both.body)).toBeUndefined();
    expect(summary(await labelEvents(issue.iid))).toEqual(['add one', 'add two', 'add three', 'remove one', 'add four', 'remove three', 'add five', 'remove two']);
  });

  it('shows a deleted label as null', async () => {
    const issue = await newIssue({ labels: 'doomed' });
    const label = (await t.api('GET', `/projects/${project.id}/labels/doomed`, { token: reporter.token })).body;
    expect((await t.api('DELETE', `/projects/${project.id}/labels/${label.id}`, { token: owner.token })).status).toBe(204);
    const events = await labelEvents(issue.iid);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ action: 'add', label: null });
  });

  it('pages with GitLab’s headers', async () => {
    const issue = await newIssue({ labels: 'p1,p2,p3' });
    const page = await t.api('GET', issuePath(issue.iid, '/resource_label_events?per_page=2&page=2'), { token: reporter.token });
    expect(page.status).toBe(200);
    expect(page.body).toHaveLength(1);
    expect([page.headers.get('x-total'), page.headers.get('x-total-pages'), page.headers.get('x-page'), page.headers.get('x-per-page'), page.headers.get('x-prev-page')]).toEqual(['3', '2', '2', '2', '1']);
  });

  it('answers 404 Not found for another issue’s event or an id that is no number', async () => {
    const a = await newIssue({ labels: 'x1' });
    const b = await newIssue();
    const [event] = await labelEvents(a.iid);
    const other = await t.api('GET', issuePath(b.iid, `/resource_label_events/${(event as unknown as { id: number }).id}`), { token: reporter.token });
    expect([other.status, other.body]).toEqual([404, { message: '404 Not found' }]);
    const junk = await t.api('GET', issuePath(b.iid, '/resource_label_events/abc'), { token: reporter.token });
    expect([junk.status, junk.body]).toEqual([404, { message: '404 Not found' }]);
    const missing = await t.api('GET', issuePath(9999, '/resource_label_events'), { token: reporter.token });
    expect([missing.status, missing.body]).toEqual([404, { message: '404 Issue Not Found' }]);
  });
});

describe('weight events', () => {
  it('records the weight set on create and each change, with GitLab’s entity', async () => {
    const issue = await newIssue({ weight: 3 });
    await update(issue.iid, { weight: 5 });
    await update(issue.iid, { title: 'No weight change' });
    const cleared = await t.graphql(`mutation { issueSetWeight(input: { projectPath: "${project.path_with_namespace}", iid: "${issue.iid}", weight: null }) { errors } }`, {}, reporter.token);
    expect(cleared.body.errors).toBeUndefined();
    const res = await t.api('GET', issuePath(issue.iid, '/resource_weight_events'), { token: reporter.token });
    expect(res.status).toBe(200);
    expect(res.body.map((e: { weight: number | null }) => e.weight)).toEqual([3, 5, null]);
    const [first] = res.body;
    expect(Object.keys(first)).toEqual(['id', 'user', 'created_at', 'issue_id', 'weight']);
    expect(first).toMatchObject({ user: userOf(reporter), issue_id: issue.id, weight: 3 });
    const one = await t.api('GET', issuePath(issue.iid, `/resource_weight_events/${first.id}`), { token: reporter.token });
    expect(one.body).toEqual(first);
  });

  it('first records the weight an issue had before any event was kept, at its previous update (GitLab’s first_weight_event?)', async () => {
    const issue = await newIssue({ weight: 2 });
    const before = (await t.api('GET', issuePath(issue.iid), { token: reporter.token })).body;
    // An issue weighted before weight events were kept: none recorded for it.
    await t.server.database.prisma.resourceWeightEvent.deleteMany({ where: { issueId: issue.id } });
    await update(issue.iid, { weight: 7 });
    const res = await t.api('GET', issuePath(issue.iid, '/resource_weight_events'), { token: reporter.token });
    expect(res.body.map((e: { weight: number; created_at: string }) => [e.weight, e.created_at === before.updated_at])).toEqual([
      [2, true],
      [7, false],
    ]);
  });

  it('records nothing for an issue created without a weight', async () => {
    const issue = await newIssue();
    expect((await t.api('GET', issuePath(issue.iid, '/resource_weight_events'), { token: reporter.token })).body).toEqual([]);
  });
});

describe('milestone events', () => {
  it('records add on set and on change, remove with the milestone taken off, with the issue’s state', async () => {
    const v1 = (await t.api('POST', `/projects/${project.id}/milestones`, { token: owner.token, body: { title: 'm-v1' } })).body;
    const v2 = (await t.api('POST', `/projects/${project.id}/milestones`, { token: owner.token, body: { title: 'm-v2' } })).body;
    const issue = await newIssue({ milestone_id: v1.id });
    await update(issue.iid, { milestone_id: v2.id });
    await update(issue.iid, { state_event: 'close' });
    await update(issue.iid, { milestone_id: 0 });
    const res = await t.api('GET', issuePath(issue.iid, '/resource_milestone_events'), { token: reporter.token });
    expect(res.status).toBe(200);
    expect(res.body.map((e: { action: string; milestone: { title: string }; state: string }) => [e.action, e.milestone.title, e.state])).toEqual([
      ['add', 'm-v1', 'opened'],
      ['add', 'm-v2', 'opened'],
      ['remove', 'm-v2', 'closed'],
    ]);
    const [first] = res.body;
    expect(Object.keys(first)).toEqual(['id', 'user', 'created_at', 'resource_type', 'resource_id', 'milestone', 'action', 'state']);
    expect(first).toMatchObject({ resource_type: 'Issue', resource_id: issue.id, user: userOf(reporter) });
    expect(first.milestone).toEqual(v1);
    const one = await t.api('GET', issuePath(issue.iid, `/resource_milestone_events/${first.id}`), { token: reporter.token });
    expect(one.body).toEqual(first);
  });
});

describe('state events', () => {
  it('records close and reopen, not the opening, with GitLab’s entity', async () => {
    const issue = await newIssue();
    expect((await t.api('GET', issuePath(issue.iid, '/resource_state_events'), { token: reporter.token })).body).toEqual([]);
    await update(issue.iid, { state_event: 'close' });
    await update(issue.iid, { state_event: 'close' });
    await update(issue.iid, { state_event: 'reopen' }, owner.token);
    const res = await t.api('GET', issuePath(issue.iid, '/resource_state_events'), { token: reporter.token });
    expect(res.body.map((e: { state: string }) => e.state)).toEqual(['closed', 'reopened']);
    expect(Object.keys(res.body[0])).toEqual(['id', 'user', 'created_at', 'resource_type', 'resource_id', 'source_commit', 'source_merge_request_id', 'state']);
    expect(res.body[0]).toMatchObject({ user: userOf(reporter), resource_type: 'Issue', resource_id: issue.id, source_commit: null, source_merge_request_id: null });
    expect(res.body[1].user).toMatchObject(userOf(owner));
    const one = await t.api('GET', issuePath(issue.iid, `/resource_state_events/${res.body[1].id}`), { token: reporter.token });
    expect(one.body).toEqual(res.body[1]);
  });
});

describe('deleting an issue', () => {
  it('removes its events with it', async () => {
    const milestone = (await t.api('POST', `/projects/${project.id}/milestones`, { token: owner.token, body: { title: 'gone' } })).body;
    const issue = await newIssue({ labels: 'gone', weight: 1, milestone_id: milestone.id });
    await update(issue.iid, { state_event: 'close' });
    const { prisma } = t.server.database;
    const counts = () =>
      Promise.all([
        prisma.resourceLabelEvent.count({ where: { resourceType: 'Issue', resourceId: issue.id } }),
        prisma.resourceWeightEvent.count({ where: { issueId: issue.id } }),
        prisma.resourceMilestoneEvent.count({ where: { resourceType: 'Issue', resourceId: issue.id } }),
        prisma.resourceStateEvent.count({ where: { resourceType: 'Issue', resourceId: issue.id } }),
      ]);
    expect(await counts()).toEqual([1, 1, 1, 1]);
    expect((await t.api('DELETE', issuePath(issue.iid), { token: owner.token })).status).toBe(204);
    expect(await counts()).toEqual([0, 0, 0, 0]);
  });
});

describe('gitbeaker', () => {
  it('reads label, milestone and state events through its Issue*Events classes', async () => {
    const milestone = (await t.api('POST', `/projects/${project.id}/milestones`, { token: owner.token, body: { title: 'gb' } })).body;
    const issue = await newIssue({ labels: 'gb1', milestone_id: milestone.id });
    await update(issue.iid, { state_event: 'close' });
    const api = new Gitlab({ host: t.url, token: reporter.token });
    const labels = await api.IssueLabelEvents.all(project.id, issue.iid);
    expect(labels.map((e) => [e.action, e.label.name])).toEqual([['add', 'gb1']]);
    expect((await api.IssueLabelEvents.show(project.id, issue.iid, labels[0].id)).id).toBe(labels[0].id);
    const milestones = await api.IssueMilestoneEvents.all(project.id, issue.iid);
    expect(milestones.map((e) => [e.action, e.milestone.title])).toEqual([['add', 'gb']]);
    const states = await api.IssueStateEvents.all(project.id, issue.iid);
    expect(states.map((e) => e.state)).toEqual(['closed']);
    expect((await api.IssueStateEvents.show(project.id, issue.iid, states[0].id)).state).toBe('closed');
  });
});
