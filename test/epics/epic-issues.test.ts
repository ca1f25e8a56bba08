/** The Epic Issues API: listing, assigning (moving out of another epic), removing and reordering, and issues' `epic`. */
import { beforeAll, describe, expect, it } from 'vitest';
import { suiteServer, EXTERNAL_URL } from '../support/server.js';
import { addMember, createGroup, createProject, createUser, type TestUser } from '../support/factories.js';

const t = suiteServer();

let owner: TestUser;
let guest: TestUser;
let outsider: TestUser;
let group: { id: number; full_path: string };
let subgroup: { id: number; full_path: string };
let project: { id: number; path_with_namespace: string };
let elsewhere: { id: number };
let epicA: { id: number; iid: number };
let epicB: { id: number; iid: number };

const newIssue = async (title: string, projectId = project.id) => (await t.api('POST', `/projects/${projectId}/issues`, { token: owner.token, body: { title } })).body;
const issuesOf = (epic: { iid: number }) => `/groups/${group.id}/epics/${epic.iid}/issues`;

beforeAll(async () => {
  [owner, guest, outsider] = await Promise.all([createUser(t), createUser(t), createUser(t)]);
  group = await createGroup(t, owner.token);
  subgroup = await createGroup(t, owner.token, { parentId: group.id });
  project = await createProject(t, owner.token, { namespaceId: subgroup.id });
  elsewhere = await createProject(t, owner.token);
  await addMember(t, owner.token, 'groups', group.id, guest.id, 10);
  epicA = (await t.api('POST', `/groups/${group.id}/epics`, { token: owner.token, body: { title: 'A', due_date_is_fixed: true, due_date_fixed: '2000-01-05' } })).body;
  epicB = (await t.api('POST', `/groups/${group.id}/epics`, { token: owner.token, body: { title: 'B' } })).body;
});

describe('assigning issues to epics', () => {
  it('assigns an issue and answers the association, then shows the epic on the issue', async () => {
    const issue = await newIssue('first');
    const res = await t.api('POST', `${issuesOf(epicA)}/${issue.id}`, { token: guest.token });
    expect(res.status, res.text).toBe(201);
    expect(Object.keys(res.body)).toEqual(['id', 'relative_position', 'epic', 'issue']);
    expect(res.body.relative_position).toBe(1073741823);
    expect(res.body.epic).toMatchObject({ id: epicA.id, iid: epicA.iid, title: 'A', reference: `${group.full_path}&${epicA.iid}` });
    expect(res.body.issue).toMatchObject({ id: issue.id, iid: issue.iid, project_id: project.id, epic_iid: epicA.iid });
    expect(res.body.issue).not.toHaveProperty('_links');

    const shown = await t.api('GET', `/projects/${project.id}/issues/${issue.iid}`, { token: owner.token });
    expect(shown.body.epic_iid).toBe(epicA.iid);
    expect(shown.body.epic).toEqual({
      id: epicA.id,
      iid: epicA.iid,
      title: 'A',
      url: `/groups/${group.full_path}/-/epics/${epicA.iid}`,
      group_id: group.id,
      human_readable_end_date: 'Jan  5, 2000',
      human_readable_timestamp: '<strong>Past due</strong>',
    });
  });

  it('moves an issue out of another epic, and refuses one already in the epic', async () => {
    const issue = await newIssue('mover');
    await t.api('POST', `${issuesOf(epicA)}/${issue.id}`, { token: owner.token });
    const moved = await t.api('POST', `${issuesOf(epicB)}/${issue.id}`, { token: owner.token });
    expect(moved.status).toBe(201);
    expect(moved.body.epic.id).toBe(epicB.id);
    const inA = await t.api('GET', issuesOf(epicA), { token: owner.token });
    expect(inA.body.map((i: { id: number }) => i.id)).not.toContain(issue.id);
    const again = await t.api('POST', `${issuesOf(epicB)}/${issue.id}`, { token: owner.token });
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ message: 'Issue(s) already assigned' });
  });

  it('refuses an issue outside the epic’s group, a missing issue, and one the caller may not relate', async () => {
    const foreign = await newIssue('foreign', elsewhere.id);
    const outside = await t.api('POST', `${issuesOf(epicA)}/${foreign.id}`, { token: owner.token });
    expect(outside.status).toBe(404);
    expect(outside.body).toEqual({ message: 'No matching issue found. Make sure that you are adding a valid issue URL.' });
    const missing = await t.api('POST', `${issuesOf(epicA)}/999999`, { token: owner.token });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ message: '404 Not found' });
    const anonymous = await t.api('POST', `${issuesOf(epicA)}/${foreign.id}`, { token: null });
    expect(anonymous.status).toBe(401);
  });

  it('sets the epic through the Issues API’s epic_id, and takes it out with 0', async () => {
    const created = await t.api('POST', `/projects/${project.id}/issues`, { token: owner.token, body: { title: 'with epic', epic_id: epicB.id } });
    expect(created.status, created.text).toBe(201);
    expect(created.body.epic_iid).toBe(epicB.iid);
    const out = await t.api('PUT', `/projects/${project.id}/issues/${created.body.iid}`, { token: owner.token, body: { epic_id: 0 } });
    expect(out.body).toMatchObject({ epic_iid: null, epic: null });
    const back = await t.api('PUT', `/projects/${project.id}/issues/${created.body.iid}`, { token: owner.token, body: { epic_id: epicA.id } });
    expect(back.body.epic_iid).toBe(epicA.iid);
  });

  it('takes the legacy epic_iid as an epic of the project’s group, over epic_id, and 404s an unknown one', async () => {
    const own = (await t.api('POST', `/groups/${subgroup.id}/epics`, { token: owner.token, body: { title: 'own' } })).body;
    const created = await t.api('POST', `/projects/${project.id}/issues`, { token: owner.token, body: { title: 'by epic iid', epic_iid: own.iid, epic_id: epicA.id } });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({ epic_iid: own.iid, epic: { id: own.id, iid: own.iid, group_id: subgroup.id } });
    const missing = await t.api('PUT', `/projects/${project.id}/issues/${created.body.iid}`, { token: owner.token, body: { epic_iid: own.iid + 100 } });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ message: '404 Epic Not Found' });
    const unknownCreate = await t.api('POST', `/projects/${project.id}/issues`, { token: owner.token, body: { title: 'lost', epic_iid: own.iid + 100 } });
    expect(unknownCreate.status).toBe(404);
    const moved = await t.api('PUT', `/projects/${project.id}/issues/${created.body.iid}`, { token: owner.token, body: { epic_iid: own.iid, title: 'renamed' } });
    expect(moved.body).toMatchObject({ title: 'renamed', epic_iid: own.iid });
  });
});

describe('listing, removing and reordering', () => {
  let epic: { id: number; iid: number };
  const links: number[] = [];
  const issues: { id: number }[] = [];
  beforeAll(async () => {
    epic = (await t.api('POST', `/groups/${group.id}/epics`, { token: owner.token, body: { title: 'Ordered' } })).body;
    for (const title of ['one', 'two', 'three']) {
      const issue = await newIssue(title);
      issues.push(issue);
      links.push((await t.api('POST', `${issuesOf(epic)}/${issue.id}`, { token: owner.token })).body.id);
    }
  });

  it('lists the issues newest-assigned first with their association and position', async () => {
    const res = await t.api('GET', issuesOf(epic), { token: owner.token });
    expect(res.status).toBe(200);
    expect(res.body.map((i: { title: string }) => i.title)).toEqual(['three', 'two', 'one']);
    expect(res.body.map((i: { epic_issue_id: number }) => i.epic_issue_id)).toEqual([links[2], links[1], links[0]]);
    expect(res.body.map((i: { relative_position: number }) => i.relative_position)).toEqual([1073741823 - 1022, 1073741823 - 511, 1073741823]);
    const keys = Object.keys(res.body[0]);
    expect(keys.slice(-2)).toEqual(['epic_issue_id', 'relative_position']);
    expect(keys).toContain('_links');
    expect(res.body[0]._links.self).toBe(`${EXTERNAL_URL}/api/v4/projects/${project.id}/issues/${(issues[2] as { iid?: number }).iid}`);
    expect(res.headers.get('x-total')).toBe('3');
  });

  it('moves an issue between two others, halfway, and answers the new order', async () => {
    // one (top) between three and two: three, one, two.
    const res = await t.api('PUT', `${issuesOf(epic)}/${links[0]}`, { token: owner.token, body: { move_before_id: links[2], move_after_id: links[1] } });
    expect(res.status, res.text).toBe(200);
    expect(res.body.map((i: { title: string }) => i.title)).toEqual(['three', 'one', 'two']);
    expect(res.body[1].relative_position).toBe(Math.floor((1073741823 - 1022 + 1073741823 - 511) / 2));
    expect(res.body[0]).toHaveProperty('subscribed');
  });

  it('moves an issue after the last one, IDEAL_DISTANCE beyond it', async () => {
    const res = await t.api('PUT', `${issuesOf(epic)}/${links[2]}`, { token: owner.token, body: { move_before_id: links[1] } });
    expect(res.body.map((i: { title: string }) => i.title)).toEqual(['one', 'two', 'three']);
    expect(res.body[2].relative_position).toBe(1073741823 - 511 + 511);
  });

  it('refuses a move naming no association of the epic', async () => {
    const res = await t.api('PUT', `${issuesOf(epic)}/${links[0]}`, { token: owner.token, body: { move_before_id: 999999 } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: 'Issue could not be moved!' });
    const missing = await t.api('PUT', `${issuesOf(epic)}/999999`, { token: owner.token, body: { move_before_id: links[1] } });
    expect(missing.status).toBe(404);
  });

  it('removes an issue and answers the association', async () => {
    const res = await t.api('DELETE', `${issuesOf(epic)}/${links[1]}`, { token: guest.token });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ id: links[1], epic: { id: epic.id }, issue: { id: issues[1].id, epic_iid: null } });
    const left = await t.api('GET', issuesOf(epic), { token: owner.token });
    expect(left.body.map((i: { title: string }) => i.title)).toEqual(['one', 'three']);
  });

  it('paginates the epic’s issues', async () => {
    const res = await t.api('GET', `${issuesOf(epic)}?per_page=1&page=2`, { token: owner.token });
    expect(res.body.map((i: { title: string }) => i.title)).toEqual(['three']);
    expect(res.headers.get('x-total-pages')).toBe('2');
  });

  it('hides the private group from a non-member', async () => {
    const res = await t.api('GET', issuesOf(epic), { token: outsider.token });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: '404 Group Not Found' });
  });
});
