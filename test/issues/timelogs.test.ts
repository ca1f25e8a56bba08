/**
 * Time tracking as GitLab keeps it, in timelogs: REST's add_spent_time and reset_spent_time on issues and merge
 * requests, `/spend` (with its date) and `/estimate` on both, GraphQL's Timelog lists (Issue, MergeRequest, Project,
 * Group, Query with TimelogResolver's rules), timelogCreate and timelogDelete with GitLab's permissions, and
 * humanTimeEstimate/humanTotalTimeSpent.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { Gitlab } from '@gitbeaker/rest';
import { suiteServer } from '../support/server.js';
import { addMember, createGroup, createProject, createUser, type TestUser } from '../support/factories.js';

let counting = false;
let statements = 0;
const t = suiteServer({ logLevel: 'error' }, { onQuery: () => counting && statements++ });

let owner: TestUser;
let maintainer: TestUser;
let reporter: TestUser;
let other: TestUser;
let guest: TestUser;
let admin: TestUser;
let group: { id: number; full_path: string };
let project: { id: number; path_with_namespace: string };
let elsewhere: { id: number; path_with_namespace: string };

const issues = (suffix = '') => `/projects/${project.id}/issues${suffix}`;

beforeAll(async () => {
  [owner, maintainer, reporter, other, guest] = await Promise.all([1, 2, 3, 4, 5].map(() => createUser(t)));
  admin = await createUser(t, { admin: true });
  group = await createGroup(t, owner.token);
  project = await createProject(t, owner.token, { namespaceId: group.id });
  elsewhere = await createProject(t, owner.token);
  await addMember(t, owner.token, 'projects', project.id, maintainer.id, 40);
  await addMember(t, owner.token, 'projects', project.id, reporter.id, 20);
  await addMember(t, owner.token, 'projects', project.id, other.id, 20);
  await addMember(t, owner.token, 'projects', project.id, guest.id, 10);
  for (const title of ['First', 'Second']) expect((await t.api('POST', issues(), { token: owner.token, body: { title } })).status).toBe(201);
  expect((await t.api('POST', issues(), { token: owner.token, body: { title: 'Secret', confidential: true } })).status).toBe(201);
  expect((await t.api('POST', `/projects/${elsewhere.id}/issues`, { token: owner.token, body: { title: 'Elsewhere' } })).status).toBe(201);
});

const TIMELOGS = `count totalSpentTime nodes { id timeSpent summary spentAt user { username } issue { iid } mergeRequest { iid } project { fullPath } note { body } userPermissions { adminTimelog } }`;

async function issueTimelogs(iid: number, token: string) {
  const res = await t.graphql(`query($p: ID!, $iid: String!) { project(fullPath: $p) { issue(iid: $iid) { totalTimeSpent humanTimeEstimate humanTotalTimeSpent timelogs { ${TIMELOGS} } } } }`, { p: project.path_with_namespace, iid: String(iid) }, token);
  expect(res.body.errors).toBeUndefined();
  return res.body.data.project.issue;
}

describe('spent time on issues', () => {
  it('logs add_spent_time as timelogs, resets with a negative one and refuses subtracting more than was spent', async () => {
    expect((await t.api('POST', issues('/1/time_estimate'), { token: reporter.token, body: { duration: '1w 2d' } })).status).toBe(200);
    const added = await t.api('POST', issues('/1/add_spent_time'), { token: reporter.token, body: { duration: '1h30m', summary: 'Reading' } });
    expect(added.status, added.text).toBe(201);
    expect(added.body).toEqual({ time_estimate: 201600, total_time_spent: 5400, human_time_estimate: '1w 2d', human_total_time_spent: '1h 30m' });
    const less = await t.api('POST', issues('/1/add_spent_time'), { token: maintainer.token, body: { duration: '-30m' } });
    expect(less.body).toMatchObject({ total_time_spent: 3600 });
    const tooMuch = await t.api('POST', issues('/1/add_spent_time'), { token: reporter.token, body: { duration: '-2h' } });
    expect(tooMuch.status).toBe(400);
    expect(tooMuch.body).toEqual({ message: { base: ['Time to subtract exceeds the total time spent'] } });
    let issue = await issueTimelogs(1, reporter.token);
    expect(issue).toMatchObject({ totalTimeSpent: 3600, humanTimeEstimate: '1w 2d', humanTotalTimeSpent: '1h' });
    expect(issue.timelogs).toMatchObject({
      count: 2,
      totalSpentTime: '3600',
      nodes: [
        { timeSpent: 5400, summary: 'Reading', user: { username: reporter.username }, issue: { iid: '1' }, mergeRequest: null, project: { fullPath: project.path_with_namespace }, userPermissions: { adminTimelog: true } },
        { timeSpent: -1800, summary: null, user: { username: maintainer.username }, userPermissions: { adminTimelog: false } },
      ],
    });
    expect(issue.timelogs.nodes[0].id).toMatch(/^gid:\/\/gitlab\/Timelog\/\d+$/);
    const reset = await t.api('POST', issues('/1/reset_spent_time'), { token: reporter.token });
    expect(reset.body).toMatchObject({ total_time_spent: 0, human_total_time_spent: null });
    issue = await issueTimelogs(1, reporter.token);
    expect(issue.timelogs.nodes.map((n: { timeSpent: number }) => n.timeSpent)).toEqual([5400, -1800, -3600]);
    expect(issue.timelogs.totalSpentTime).toBe('0');
    const notes = await t.api('GET', issues('/1/notes?sort=asc'), { token: reporter.token });
    expect(notes.body.filter((n: { system: boolean }) => n.system).map((n: { body: string }) => n.body)).toEqual([
      'added time estimate of 1w 2d',
      'added 1h 30m of time spent',
      'subtracted 30m of time spent',
      'removed time spent',
    ]);
    // A guest may not log time (admin_issue), as GitLab's API answers.
    expect((await t.api('POST', issues('/1/add_spent_time'), { token: guest.token, body: { duration: '1h' } })).status).toBe(403);
  });

  it('logs /spend with its date on the day given, and /estimate', async () => {
    const note = await t.api('POST', issues('/2/notes'), { token: reporter.token, body: { body: '/spend 2h 2026-11-01\n/estimate 1d' } });
    expect(note.status, note.text).toBe(202);
    const issue = await issueTimelogs(2, reporter.token);
    expect(issue).toMatchObject({ totalTimeSpent: 7200, humanTimeEstimate: '1d', humanTotalTimeSpent: '2h' });
    expect(issue.timelogs.nodes).toMatchObject([{ timeSpent: 7200, spentAt: '2026-11-01T00:00:00.000Z', user: { username: reporter.username } }]);
    const notes = await t.api('GET', issues('/2/notes?sort=asc'), { token: reporter.token });
    expect(notes.body.map((n: { body: string }) => n.body)).toContain('added 2h of time spent at 2026-11-01');
    expect(issue.timelogs.nodes[0].note).toBeNull();
    // Time spent from a comment that says more than its commands points at that comment (the timelog's note).
    const said = await t.api('POST', issues('/2/notes'), { token: reporter.token, body: { body: 'Paired on it\n/spend 15m' } });
    expect(said.status, said.text).toBe(201);
    const after = await issueTimelogs(2, reporter.token);
    expect(after.timelogs.nodes[1]).toMatchObject({ timeSpent: 900, note: { body: 'Paired on it' } });
  });
});

describe('spent time on merge requests', () => {
  it('tracks time over REST and with quick actions, listed as MergeRequest.timelogs', async () => {
    const commit = async (branch: string, start?: string) => {
      const res = await t.api('POST', `/projects/${project.id}/repository/commits`, {
        token: owner.token,
        body: { branch, ...(start ? { start_branch: start } : {}), commit_message: branch, actions: [{ action: 'create', file_path: `${branch}.txt`, content: branch }] },
      });
      expect(res.status, res.text).toBe(201);
    };
    await commit('main');
    await commit('feature', 'main');
    const created = await t.api('POST', `/projects/${project.id}/merge_requests`, { token: owner.token, body: { source_branch: 'feature', target_branch: 'main', title: 'Feature' } });
    expect(created.status, created.text).toBe(201);
    const mr = (suffix = '') => `/projects/${project.id}/merge_requests/${created.body.iid}${suffix}`;
    const estimate = await t.api('POST', mr('/time_estimate'), { token: reporter.token, body: { duration: '3h' } });
    expect(estimate.status, estimate.text).toBe(200);
    expect(estimate.body).toEqual({ time_estimate: 10800, total_time_spent: 0, human_time_estimate: '3h', human_total_time_spent: null });
    const spent = await t.api('POST', mr('/add_spent_time'), { token: reporter.token, body: { duration: '1h' } });
    expect(spent.status).toBe(201);
    expect(spent.body).toMatchObject({ total_time_spent: 3600 });
    expect((await t.api('POST', mr('/add_spent_time'), { token: guest.token, body: { duration: '1h' } })).status).toBe(403);
    const note = await t.api('POST', mr('/notes'), { token: reporter.token, body: { body: '/spend 30m\n/estimate 4h' } });
    expect(note.status, note.text).toBe(202);
    const api = new Gitlab({ host: t.url, token: reporter.token });
    const stats = await api.MergeRequests.showTimeStats(project.id, created.body.iid);
    expect(stats).toMatchObject({ time_estimate: 14400, total_time_spent: 5400, human_total_time_spent: '1h 30m' });
    const read = await t.graphql(
      `query($p: ID!, $iid: String!) { project(fullPath: $p) { mergeRequest(iid: $iid) { humanTimeEstimate humanTotalTimeSpent timelogs { ${TIMELOGS} } } } }`,
      { p: project.path_with_namespace, iid: String(created.body.iid) },
      reporter.token,
    );
    expect(read.body.errors).toBeUndefined();
    expect(read.body.data.project.mergeRequest).toMatchObject({
      humanTimeEstimate: '4h',
      humanTotalTimeSpent: '1h 30m',
      timelogs: { count: 2, totalSpentTime: '5400', nodes: [{ timeSpent: 3600, mergeRequest: { iid: String(created.body.iid) }, issue: null }, { timeSpent: 1800 }] },
    });
    const logged = await t.graphql(
      `mutation($id: IssuableID!) { timelogCreate(input: { issuableId: $id, timeSpent: "45m", spentAt: "2026-10-05T09:00:00Z", summary: "Review" }) { errors timelog { timeSpent mergeRequest { iid } issue { iid } } } }`,
      { id: `gid://gitlab/MergeRequest/${created.body.id}` },
      reporter.token,
    );
    expect(logged.body.data.timelogCreate).toEqual({ errors: [], timelog: { timeSpent: 2700, mergeRequest: { iid: String(created.body.iid) }, issue: null } });
    expect((await api.MergeRequests.showTimeStats(project.id, created.body.iid)).total_time_spent).toBe(8100);
    const reset = await t.api('POST', mr('/reset_spent_time'), { token: reporter.token });
    expect(reset.body).toMatchObject({ total_time_spent: 0 });
    expect((await t.api('POST', mr('/reset_time_estimate'), { token: reporter.token })).body).toMatchObject({ time_estimate: 0 });
  });
});

describe('timelogCreate and timelogDelete', () => {
  const create = (token: string, input: Record<string, unknown>) =>
    t.graphql(`mutation($input: TimelogCreateInput!) { timelogCreate(input: $input) { errors clientMutationId timelog { id timeSpent summary spentAt user { username } } } }`, { input }, token);
  const destroy = (token: string, id: string) => t.graphql(`mutation($id: TimelogID!) { timelogDelete(input: { id: $id }) { errors timelog { id timeSpent } } }`, { id }, token);
  let issueId: string;

  beforeAll(async () => {
    issueId = `gid://gitlab/Issue/${(await t.api('GET', issues('/3'), { token: owner.token })).body.id}`;
  });

  it('logs time for Reporters, with a system note, and refuses what GitLab refuses', async () => {
    const made = await create(reporter.token, { clientMutationId: 'm1', issuableId: issueId, timeSpent: '1h 15m', spentAt: '2026-10-01T10:00:00Z', summary: 'Triage' });
    expect(made.body.errors).toBeUndefined();
    expect(made.body.data.timelogCreate).toMatchObject({
      errors: [],
      clientMutationId: 'm1',
      timelog: { timeSpent: 4500, summary: 'Triage', spentAt: '2026-10-01T10:00:00.000Z', user: { username: reporter.username } },
    });
    expect((await t.api('GET', issues('/3'), { token: reporter.token })).body.time_stats.total_time_spent).toBe(4500);
    const notes = await t.api('GET', issues('/3/notes'), { token: reporter.token });
    expect(notes.body[0].body).toBe('added 1h 15m of time spent at 2026-10-01');
    const bad = await create(reporter.token, { issuableId: issueId, timeSpent: 'a while', spentAt: '2026-10-01T10:00:00Z', summary: '' });
    expect(bad.body.data.timelogCreate).toEqual({ errors: ['Time spent must be formatted correctly. For example: 1h 30m.'], clientMutationId: null, timelog: null });
    const future = await create(reporter.token, { issuableId: issueId, timeSpent: '1h', spentAt: '2099-01-01T00:00:00Z', summary: '' });
    expect(future.body.data.timelogCreate.errors).toEqual(["Spent at can't be a future date and time."]);
    const zero = await create(reporter.token, { issuableId: issueId, timeSpent: '0h', spentAt: '2026-10-01T10:00:00Z', summary: '' });
    expect(zero.body.data.timelogCreate.errors).toEqual(["Time spent can't be zero."]);
    // A guest cannot read the confidential issue, and could not log time on it anyway: GitLab's ResourceNotAvailable.
    const refused = await create(guest.token, { issuableId: issueId, timeSpent: '1h', spentAt: '2026-10-01T10:00:00Z', summary: '' });
    expect(refused.body.data.timelogCreate).toBeNull();
    expect(refused.body.errors?.[0].message).toBe("The resource that you are attempting to access does not exist or you don't have permission to perform this action");
  });

  it('deletes a timelog for its author or a Maintainer only, lowering the total', async () => {
    const first = await create(reporter.token, { issuableId: issueId, timeSpent: '30m', spentAt: '2026-10-02T10:00:00Z', summary: 'More' });
    const id = first.body.data.timelogCreate.timelog.id;
    const byOther = await destroy(other.token, id);
    expect(byOther.body.data.timelogDelete).toBeNull();
    expect(byOther.body.errors?.[0].message).toMatch(/does not exist or you don't have permission/);
    const seen = await t.graphql(`query($id: IssueID!) { issue(id: $id) { timelogs { nodes { id userPermissions { adminTimelog } } } } }`, { id: issueId }, other.token);
    expect(seen.body.data.issue.timelogs.nodes.find((n: { id: string }) => n.id === id)).toEqual({ id, userPermissions: { adminTimelog: false } });
    const byMaintainer = await destroy(maintainer.token, id);
    expect(byMaintainer.body.data.timelogDelete).toEqual({ errors: [], timelog: { id, timeSpent: 1800 } });
    expect((await t.api('GET', issues('/3'), { token: reporter.token })).body.time_stats.total_time_spent).toBe(4500);
    const notes = await t.api('GET', issues('/3/notes'), { token: reporter.token });
    expect(notes.body[0].body).toBe('deleted 30m of spent time from 2026-10-02');
    const own = await create(other.token, { issuableId: issueId, timeSpent: '10m', spentAt: '2026-10-02T10:00:00Z', summary: '' });
    const ownId = own.body.data.timelogCreate.timelog.id;
    expect((await destroy(other.token, ownId)).body.data.timelogDelete.timelog).toEqual({ id: ownId, timeSpent: 600 });
    expect((await destroy(other.token, ownId)).body.errors?.[0].message).toMatch(/does not exist/);
  });
});

describe('timelog lists', () => {
  const query = (args: string, token: string | null, variables: Record<string, unknown> = {}) =>
    t.graphql(`query${Object.keys(variables).length ? `(${Object.keys(variables).map((k) => `$${k}: ${k === 'g' ? 'GroupID' : k === 'pid' ? 'ProjectID' : 'String'}`).join(', ')})` : ''} { timelogs${args} { count totalSpentTime nodes { timeSpent spentAt issue { title } user { username } } } }`, variables, token);

  it('needs a group, a project or the current username unless an administrator asks', async () => {
    const words = 'Non-admin users must provide a group_id, project_id, or current username';
    expect((await query('', reporter.token)).body.errors?.[0].message).toBe(words);
    expect((await query('(username: $u)', reporter.token, { u: owner.username })).body.errors?.[0].message).toBe(words);
    const own = await query('(username: $u)', reporter.token, { u: reporter.username });
    expect(own.body.errors).toBeUndefined();
    expect(own.body.data.timelogs.nodes.every((n: { user: { username: string } }) => n.user.username === reporter.username)).toBe(true);
    const all = await query('', admin.token);
    expect(all.body.errors).toBeUndefined();
    expect(all.body.data.timelogs.count).toBeGreaterThan(0);
  });

  it('filters by project, group, dates and times, sorts by GitLab’s orders and hides what the viewer may not read', async () => {
    const elsewhereIssue = (await t.api('GET', `/projects/${elsewhere.id}/issues/1`, { token: owner.token })).body.id;
    const made = await t.graphql(
      `mutation($id: IssuableID!) { timelogCreate(input: { issuableId: $id, timeSpent: "5m", spentAt: "2026-09-15T12:00:00Z", summary: "" }) { errors } }`,
      { id: `gid://gitlab/Issue/${elsewhereIssue}` },
      owner.token,
    );
    expect(made.body.data.timelogCreate.errors).toEqual([]);
    const pid = `gid://gitlab/Project/${project.id}`;
    const byProject = await query('(projectId: $pid)', owner.token, { pid });
    const inProject = byProject.body.data.timelogs;
    expect(inProject.nodes.some((n: { issue: { title: string } | null }) => n.issue?.title === 'Elsewhere')).toBe(false);
    const byGroup = await query('(groupId: $g)', owner.token, { g: `gid://gitlab/Group/${group.id}` });
    expect(byGroup.body.data.timelogs.count).toBe(inProject.count);
    // Spent-at ascending by default.
    const times = inProject.nodes.map((n: { spentAt: string }) => n.spentAt);
    expect([...times].sort()).toEqual(times);
    const desc = await query('(projectId: $pid, sort: SPENT_AT_DESC)', owner.token, { pid });
    expect(desc.body.data.timelogs.nodes.map((n: { spentAt: string }) => n.spentAt)).toEqual([...times].reverse());
    // A day range takes the whole end day; a time range is exact.
    const day = await query('(projectId: $pid, startDate: "2026-10-01T00:00:00Z", endDate: "2026-10-01T00:00:00Z")', owner.token, { pid });
    expect(day.body.data.timelogs.nodes.map((n: { spentAt: string }) => n.spentAt)).toEqual(['2026-10-01T10:00:00.000Z']);
    const time = await query('(projectId: $pid, startTime: "2026-10-01T11:00:00Z", endTime: "2026-10-02T23:00:00Z")', owner.token, { pid });
    expect(time.body.data.timelogs.nodes).toEqual([]);
    expect((await query('(projectId: $pid, startTime: "2026-10-01T00:00:00Z", startDate: "2026-10-01T00:00:00Z")', owner.token, { pid })).body.errors?.[0].message).toBe(
      'Provide either a start date or time, but not both',
    );
    expect((await query('(projectId: $pid, endTime: "2026-10-01T00:00:00Z", endDate: "2026-10-01T00:00:00Z")', owner.token, { pid })).body.errors?.[0].message).toBe(
      'Provide either an end date or time, but not both',
    );
    expect((await query('(projectId: $pid, startTime: "2026-10-02T00:00:00Z", endTime: "2026-10-01T00:00:00Z")', owner.token, { pid })).body.errors?.[0].message).toBe(
      'Start argument must be before End argument',
    );
    // The guest does not see the confidential issue's timelogs; Project.timelogs and Group.timelogs agree with Query.timelogs.
    const guestView = await query('(projectId: $pid)', guest.token, { pid });
    expect(guestView.body.data.timelogs.nodes.some((n: { issue: { title: string } | null }) => n.issue?.title === 'Secret')).toBe(false);
    expect(guestView.body.data.timelogs.count).toBeLessThan(inProject.count);
    const nested = await t.graphql(
      `query($p: ID!, $g: ID!) { project(fullPath: $p) { timelogs { count totalSpentTime } } group(fullPath: $g) { timelogs(username: "${reporter.username}") { count } } }`,
      { p: project.path_with_namespace, g: group.full_path },
      guest.token,
    );
    expect(nested.body.errors).toBeUndefined();
    expect(nested.body.data.project.timelogs).toEqual({ count: guestView.body.data.timelogs.count, totalSpentTime: guestView.body.data.timelogs.totalSpentTime });
    expect(nested.body.data.group.timelogs.count).toBeGreaterThan(0);
  });

  it('reads the timelogs of listed issues in the same number of statements for one issue as for three', async () => {
    const run = async (first: number) => {
      statements = 0;
      counting = true;
      const res = await t.graphql(
        `query($p: ID!) { project(fullPath: $p) { issues(first: ${first}, sort: CREATED_ASC) { nodes { timelogs { count totalSpentTime nodes { timeSpent user { username } issue { iid } } } } } } }`,
        { p: project.path_with_namespace },
        owner.token,
      );
      counting = false;
      expect(res.body.errors).toBeUndefined();
      return statements;
    };
    await run(1);
    expect(await run(3)).toBe(await run(1));
  });
});
