/**
 * The system notes GitLab writes for issue changes that are not resource events (SystemNotes::IssuablesService and
 * TimeTrackingService, in their words), as the Notes and Discussions APIs show them; labels, milestone, weight and
 * state changes write no note.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { suiteServer } from '../support/server.js';
import { addMember, createGroup, createProject, createUser, type TestUser } from '../support/factories.js';

const t = suiteServer();

let owner: TestUser;
let reporter: TestUser;
let dev: TestUser;
let third: TestUser;
let project: { id: number; path_with_namespace: string };
let projectPath: string;

beforeAll(async () => {
  [owner, reporter, dev, third] = await Promise.all([1, 2, 3, 4].map(() => createUser(t)));
  const group = await createGroup(t, owner.token);
  project = await createProject(t, owner.token, { namespaceId: group.id });
  projectPath = project.path_with_namespace;
  await addMember(t, owner.token, 'projects', project.id, reporter.id, 20);
  await addMember(t, owner.token, 'projects', project.id, dev.id, 30);
  await addMember(t, owner.token, 'projects', project.id, third.id, 30);
});

const issuePath = (iid: number, suffix = '') => `/projects/${project.id}/issues/${iid}${suffix}`;

async function newIssue(body: Record<string, unknown> = {}): Promise<{ id: number; iid: number }> {
  const res = await t.api('POST', `/projects/${project.id}/issues`, { token: reporter.token, body: { title: 'Old title', ...body } });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

async function put(iid: number, body: Record<string, unknown>, token = reporter.token) {
  const res = await t.api('PUT', issuePath(iid), { token, body });
  expect(res.status, res.text).toBe(200);
  return res.body;
}

/** The issue's system notes' bodies, oldest first. */
async function systemNotes(iid: number): Promise<string[]> {
  const res = await t.api('GET', issuePath(iid, '/notes?sort=asc&per_page=100'), { token: reporter.token });
  expect(res.status, res.text).toBe(200);
  return res.body.filter((n: { system: boolean }) => n.system).map((n: { body: string }) => n.body);
}

describe('system notes of issue changes', () => {
  it('writes title, description, lock and confidentiality notes in GitLab’s words, as individual system notes', async () => {
    const issue = await newIssue();
    await put(issue.iid, { title: 'New title' });
    await put(issue.iid, { title: 'New title, longer' });
    await put(issue.iid, { description: 'Now described' });
    await put(issue.iid, { description: 'Now described' });
    await put(issue.iid, { discussion_locked: true });
    await put(issue.iid, { discussion_locked: false });
    await put(issue.iid, { confidential: true });
    await put(issue.iid, { confidential: false });
    expect(await systemNotes(issue.iid)).toEqual([
      'changed title from **{-Old-} title** to **{+New+} title**',
      'changed title from **New title** to **New title{+, longer+}**',
      'changed the description',
      'locked the discussion in this issue',
      'unlocked the discussion in this issue',
      'made the issue confidential',
      'made the issue visible to everyone',
    ]);
    const notes = await t.api('GET', issuePath(issue.iid, '/notes?sort=asc'), { token: reporter.token });
    expect(notes.body[0]).toMatchObject({ type: null, system: true, noteable_type: 'Issue', noteable_id: issue.id, noteable_iid: issue.iid, project_id: project.id, author: { id: reporter.id } });
    const discussions = await t.api('GET', issuePath(issue.iid, '/discussions'), { token: reporter.token });
    expect(discussions.body).toHaveLength(7);
    expect(discussions.body.every((d: { individual_note: boolean; notes: unknown[] }) => d.individual_note && d.notes.length === 1)).toBe(true);
    const read = await t.api('GET', issuePath(issue.iid), { token: reporter.token });
    expect(read.body.user_notes_count).toBe(0);
  });

  it('writes assignee notes naming who was assigned and unassigned', async () => {
    const issue = await newIssue();
    await put(issue.iid, { assignee_ids: [dev.id] });
    await put(issue.iid, { assignee_ids: [third.id] });
    await put(issue.iid, { assignee_ids: [dev.id, third.id, owner.id] });
    await put(issue.iid, { assignee_ids: [] });
    expect(await systemNotes(issue.iid)).toEqual([
      `assigned to @${dev.username}`,
      `assigned to @${third.username} and unassigned @${dev.username}`,
      `assigned to @${dev.username} and @${owner.username}`,
      `unassigned @${third.username}, @${dev.username}, and @${owner.username}`,
    ]);
  });

  it('writes due date notes, on create too', async () => {
    const issue = await newIssue({ due_date: '2030-01-02' });
    await put(issue.iid, { due_date: '2030-09-20' });
    // Removed through GraphQL (the issues API's at-least-one check counts no null, so a second change goes with it).
    const removed = await t.graphql(
      `mutation($p: ID!) { updateIssue(input: { projectPath: $p, iid: "${issue.iid}", dueDate: null, description: "dated" }) { errors issue { dueDate } } }`,
      { p: projectPath },
      reporter.token,
    );
    expect(removed.body.data?.updateIssue.issue.dueDate, JSON.stringify(removed.body)).toBeNull();
    expect(await systemNotes(issue.iid)).toEqual([
      'changed due date to January 2, 2030',
      'changed due date to September 20, 2030',
      'changed the description',
      'removed due date September 20, 2030',
    ]);
  });

  it('writes time tracking notes for estimates and spent time', async () => {
    const issue = await newIssue();
    const post = async (path: string, body: Record<string, unknown> = {}) => {
      const res = await t.api('POST', issuePath(issue.iid, path), { token: reporter.token, body });
      expect(res.status, res.text).toBeLessThan(300);
    };
    await post('/time_estimate', { duration: '3h' });
    await post('/time_estimate', { duration: '1d' });
    await post('/reset_time_estimate');
    await post('/reset_time_estimate');
    await post('/add_spent_time', { duration: '1h30m' });
    await post('/add_spent_time', { duration: '-30m' });
    await post('/reset_spent_time');
    expect(await systemNotes(issue.iid)).toEqual([
      'added time estimate of 3h',
      'changed time estimate to 1d from 3h',
      'removed time estimate of 1d',
      'added 1h 30m of time spent',
      'subtracted 30m of time spent',
      'removed time spent',
    ]);
  });

  it('writes no note for labels, milestone, weight and state, which are resource events', async () => {
    const milestone = (await t.api('POST', `/projects/${project.id}/milestones`, { token: owner.token, body: { title: 'sn' } })).body;
    const issue = await newIssue({ labels: 'sn1', milestone_id: milestone.id, weight: 2 });
    await put(issue.iid, { labels: 'sn2', milestone_id: 0, weight: 4, state_event: 'close' });
    expect(await systemNotes(issue.iid)).toEqual([]);
  });
});
