/**
 * Subscriptions to issues, merge requests and epics (GitLab's Subscribable): `POST …/subscribe` and `…/unsubscribe`
 * (201 with the entity, 304 when nothing would change), GraphQL's issueSetSubscription, mergeRequestSetSubscription and
 * epicSetSubscription, and `subscribed`, where a user's own choice wins over being a participant. Through gitbeaker
 * and raw HTTP.
 */
import { Gitlab } from '@gitbeaker/rest';
import { beforeAll, describe, expect, it } from 'vitest';
import { suiteServer } from '../support/server.js';
import { addMember, apiOk, createGroup, createProject, createUser, type TestUser } from '../support/factories.js';

const t = suiteServer();
let owner: TestUser;
let developer: TestUser;
let stranger: TestUser;
let project: { id: number; path_with_namespace: string };
let group: { id: number; full_path: string };

const ok = (method: string, path: string, body?: object, token = owner.token) => apiOk(t, token, method, path, body);

beforeAll(async () => {
  [owner, developer, stranger] = await Promise.all([createUser(t), createUser(t), createUser(t)]);
  group = await createGroup(t, owner.token, { visibility: 'private' });
  project = await createProject(t, owner.token, { visibility: 'private', namespaceId: group.id });
  await addMember(t, owner.token, 'groups', group.id, developer.id, 30);
  await ok('POST', `/projects/${project.id}/repository/commits`, { branch: 'main', commit_message: 'init', actions: [{ action: 'create', file_path: 'a.txt', content: 'a\n' }] });
});

describe('issue subscriptions', () => {
  it('subscribes and unsubscribes with 201 and the issue, 304 when nothing changes; a choice wins over authorship', async () => {
    const issue = await ok('POST', `/projects/${project.id}/issues`, { title: 'Follow me' });
    const path = `/projects/${project.id}/issues/${issue.iid}`;
    // The author is a participant, so subscribed; the developer is not.
    expect((await t.api('GET', path, { token: owner.token })).body.subscribed).toBe(true);
    expect((await t.api('GET', path, { token: developer.token })).body.subscribed).toBe(false);

    const subscribed = await t.api('POST', `${path}/subscribe`, { token: developer.token });
    expect(subscribed.status, subscribed.text).toBe(201);
    expect(subscribed.body).toMatchObject({ id: issue.id, iid: issue.iid, title: 'Follow me', subscribed: true });
    const again = await t.api('POST', `${path}/subscribe`, { token: developer.token });
    expect([again.status, again.text]).toEqual([304, '']);
    expect((await t.api('GET', path, { token: developer.token })).body.subscribed).toBe(true);

    const unsubscribed = await t.api('POST', `${path}/unsubscribe`, { token: developer.token });
    expect([unsubscribed.status, unsubscribed.body.subscribed]).toEqual([201, false]);
    expect((await t.api('POST', `${path}/unsubscribe`, { token: developer.token })).status).toBe(304);

    // The author unsubscribes: their choice wins over being the author, for them only.
    expect((await t.api('POST', `${path}/subscribe`, { token: owner.token })).status).toBe(304);
    expect((await t.api('POST', `${path}/unsubscribe`, { token: owner.token })).body.subscribed).toBe(false);
    expect((await t.api('GET', path, { token: owner.token })).body.subscribed).toBe(false);
    expect((await t.api('GET', `/projects/${project.id}/issues`, { token: owner.token })).status).toBe(200);
  });

  it('hides the issue from who may not read it and asks anonymous callers to sign in', async () => {
    const issue = await ok('POST', `/projects/${project.id}/issues`, { title: 'Hidden' });
    const path = `/projects/${project.id}/issues/${issue.iid}/subscribe`;
    expect(await t.api('POST', path, { token: stranger.token })).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
    expect(await t.api('POST', path, { token: null })).toMatchObject({ status: 401, body: { message: '401 Unauthorized' } });
    expect(await t.api('POST', `/projects/${project.id}/issues/99999/subscribe`, { token: developer.token })).toMatchObject({ status: 404, body: { message: '404 Issue Not Found' } });
    expect(await t.server.database.prisma.subscription.count({ where: { subscribableType: 'Issue', subscribableId: issue.id } })).toBe(0);
  });

  it('sets the state over GraphQL in GitLab’s relay shape, without refusing a state already set', async () => {
    const issue = await ok('POST', `/projects/${project.id}/issues`, { title: 'Over GraphQL' });
    const mutation = `mutation($input: IssueSetSubscriptionInput!) { issueSetSubscription(input: $input) { clientMutationId errors issue { iid subscribed } } }`;
    for (const state of [true, true, false]) {
      const res = await t.graphql(mutation, { input: { projectPath: project.path_with_namespace, iid: String(issue.iid), subscribedState: state, clientMutationId: 'c' } }, developer.token);
      expect(res.body).toEqual({ data: { issueSetSubscription: { clientMutationId: 'c', errors: [], issue: { iid: String(issue.iid), subscribed: state } } } });
    }
    const hidden = await t.graphql(mutation, { input: { projectPath: project.path_with_namespace, iid: String(issue.iid), subscribedState: true } }, stranger.token);
    expect(hidden.body.data.issueSetSubscription).toBeNull();
    expect(hidden.body.errors?.[0]?.message).toMatch(/does not exist or you don't have permission/);
  });

  it('forgets the choices about a deleted issue', async () => {
    const issue = await ok('POST', `/projects/${project.id}/issues`, { title: 'Short-lived' });
    await ok('POST', `/projects/${project.id}/issues/${issue.iid}/subscribe`, undefined, developer.token);
    expect(await t.server.database.prisma.subscription.count({ where: { subscribableType: 'Issue', subscribableId: issue.id } })).toBe(1);
    expect((await t.api('DELETE', `/projects/${project.id}/issues/${issue.iid}`, { token: owner.token })).status).toBe(204);
    expect(await t.server.database.prisma.subscription.count({ where: { subscribableType: 'Issue', subscribableId: issue.id } })).toBe(0);
  });
});

describe('merge request subscriptions', () => {
  it('subscribes and unsubscribes through gitbeaker; reviewers are subscribed until they choose otherwise', async () => {
    await ok('POST', `/projects/${project.id}/repository/commits`, { branch: 'follow', start_branch: 'main', commit_message: 'f', actions: [{ action: 'create', file_path: 'f.txt', content: 'f\n' }] });
    const mr = await ok('POST', `/projects/${project.id}/merge_requests`, { source_branch: 'follow', target_branch: 'main', title: 'Follow', reviewer_ids: [developer.id] });
    const api = new Gitlab({ host: t.url, token: developer.token });
    const path = `/projects/${project.id}/merge_requests/${mr.iid}`;
    expect((await t.api('GET', path, { token: developer.token })).body.subscribed).toBe(true);
    expect((await t.api('POST', `${path}/subscribe`, { token: developer.token })).status).toBe(304);
    const off = await api.MergeRequests.unsubscribe(project.id, mr.iid);
    expect(off).toMatchObject({ id: mr.id, iid: mr.iid, subscribed: false, head_pipeline: null, diff_refs: expect.any(Object) });
    expect((await t.api('GET', path, { token: developer.token })).body.subscribed).toBe(false);
    const on = await api.MergeRequests.subscribe(project.id, mr.iid);
    expect(on.subscribed).toBe(true);
    const issue = await ok('POST', `/projects/${project.id}/issues`, { title: 'Through gitbeaker' });
    expect((await api.Issues.subscribe(project.id, issue.iid)).subscribed).toBe(true);
    expect((await api.Issues.unsubscribe(project.id, issue.iid)).subscribed).toBe(false);

    const gql = await t.graphql(
      `mutation($input: MergeRequestSetSubscriptionInput!) { mergeRequestSetSubscription(input: $input) { errors mergeRequest { subscribed } } }`,
      { input: { projectPath: project.path_with_namespace, iid: String(mr.iid), subscribedState: false } },
      developer.token,
    );
    expect(gql.body).toEqual({ data: { mergeRequestSetSubscription: { errors: [], mergeRequest: { subscribed: false } } } });
    expect((await t.api('POST', `${path}/subscribe`, { token: stranger.token })).status).toBe(404);
  });
});

describe('epic subscriptions', () => {
  it('sets the state with epicSetSubscription; the author is subscribed until they choose otherwise', async () => {
    const created = await t.graphql(`mutation($p: ID!) { createEpic(input: { groupPath: $p, title: "Follow" }) { epic { iid subscribed } } }`, { p: group.full_path }, owner.token);
    const epic = created.body.data.createEpic.epic;
    expect(epic.subscribed).toBe(true);
    const set = (token: string, state: boolean) =>
      t.graphql(`mutation($input: EpicSetSubscriptionInput!) { epicSetSubscription(input: $input) { errors epic { subscribed } } }`, { input: { groupPath: group.full_path, iid: epic.iid, subscribedState: state } }, token);
    expect((await set(owner.token, false)).body.data.epicSetSubscription).toEqual({ errors: [], epic: { subscribed: false } });
    expect((await set(developer.token, true)).body.data.epicSetSubscription).toEqual({ errors: [], epic: { subscribed: true } });
    const read = async (token: string) => (await t.graphql(`query($p: ID!, $iid: ID!) { group(fullPath: $p) { epic(iid: $iid) { subscribed } } }`, { p: group.full_path, iid: epic.iid }, token)).body.data.group.epic.subscribed;
    expect([await read(owner.token), await read(developer.token)]).toEqual([false, true]);
    const refused = await set(stranger.token, true);
    expect(refused.body.data.epicSetSubscription).toBeNull();
  });
});
