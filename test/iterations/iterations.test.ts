/**
 * Iterations: cadences, iterations made by hand in a manual cadence (dates, overlap, sequences, states from the
 * dates), an automatic cadence scheduled ahead by its background job, the Iterations API (@gitbeaker/rest's
 * GroupIterations and ProjectIterations, and GitLab's exact entity), and an issue's iteration (issueSetIteration,
 * CreateIssueInput, the REST issue's `iteration`, `iteration_id` filters, the system note).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { Gitlab } from '@gitbeaker/rest';
import { EXTERNAL_URL, suiteServer } from '../support/server.js';
import { addMember, createGroup, createProject, createUser, type TestUser } from '../support/factories.js';
import { eventually } from '../support/wait.js';

const t = suiteServer();

let owner: TestUser;
let reporter: TestUser;
let guest: TestUser;
let stranger: TestUser;
let group: { id: number; full_path: string; name: string };
let subgroup: { id: number; full_path: string };
let project: { id: number; path_with_namespace: string };

const DAY = 86_400_000;
const utcToday = () => new Date(new Date().toISOString().slice(0, 10));
const day = (offset: number) => new Date(utcToday().getTime() + offset * DAY).toISOString().slice(0, 10);

beforeAll(async () => {
  [owner, reporter, guest, stranger] = await Promise.all([createUser(t), createUser(t), createUser(t), createUser(t)]);
  group = await createGroup(t, owner.token);
  subgroup = await createGroup(t, owner.token, { parentId: group.id });
  project = await createProject(t, owner.token, { namespaceId: subgroup.id });
  await addMember(t, owner.token, 'groups', group.id, reporter.id, 20);
  await addMember(t, owner.token, 'groups', group.id, guest.id, 10);
});

const gql = async (query: string, variables: Record<string, unknown>, token: string) => {
  const res = await t.graphql(query, variables, token);
  expect(res.status, res.text).toBe(200);
  return res.body;
};

const CREATE_CADENCE = `mutation($input: IterationCadenceCreateInput!) { iterationCadenceCreate(input: $input) { errors iterationCadence { id title automatic active startDate durationInWeeks iterationsInAdvance rollOver } } }`;
const CREATE_ITERATION = `mutation($input: iterationCreateInput!) { iterationCreate(input: $input) { errors iteration { id iid sequence title state startDate dueDate webUrl iterationCadence { id } } } }`;

let manualCadence: string;
let current: { id: string; iid: string };
let upcoming: { id: string };

describe('cadences and iterations made by hand', () => {
  it('lets Reporters create a manual cadence, and refuses Guests', async () => {
    const refused = await gql(CREATE_CADENCE, { input: { groupPath: group.full_path, title: 'Guests', automatic: false, active: true } }, guest.token);
    expect(refused.errors?.[0].message).toMatch(/resource that you are attempting to access does not exist or you don't have permission/);
    const body = await gql(CREATE_CADENCE, { input: { groupPath: group.full_path, title: 'Sprints', automatic: false, active: true } }, reporter.token);
    expect(body.data.iterationCadenceCreate.errors).toEqual([]);
    manualCadence = body.data.iterationCadenceCreate.iterationCadence.id;
    expect(body.data.iterationCadenceCreate.iterationCadence).toMatchObject({ title: 'Sprints', automatic: false, active: true, rollOver: false });
    expect(manualCadence).toMatch(/^gid:\/\/gitlab\/Iterations::Cadence\/\d+$/);
  });

  it('reports an automatic cadence without its automation in Rails’ words', async () => {
    const body = await gql(CREATE_CADENCE, { input: { groupPath: group.full_path, automatic: true, active: true, iterationsInAdvance: 11 } }, owner.token);
    expect(body.data.iterationCadenceCreate).toEqual({
      errors: ["Title can't be blank", "Start date can't be blank", "Duration in weeks can't be blank", 'Iterations in advance is not included in the list'],
      iterationCadence: null,
    });
  });

  it('creates iterations with optional titles, sequences by start date and states from the dates', async () => {
    const make = (title: string | null, start: number, due: number) =>
      gql(CREATE_ITERATION, { input: { groupPath: group.full_path, iterationsCadenceId: manualCadence, title, startDate: day(start), dueDate: day(due) } }, reporter.token);
    const later = (await make(null, 10, 16)).data.iterationCreate;
    expect(later.errors).toEqual([]);
    expect(later.iteration).toMatchObject({ title: null, state: 'upcoming', sequence: 1, iid: '1' });
    const now = (await make('Now', -2, 5)).data.iterationCreate;
    expect(now.iteration).toMatchObject({ title: 'Now', state: 'current', sequence: 1, iid: '2', iterationCadence: { id: manualCadence } });
    const past = (await make('Past', -20, -10)).data.iterationCreate;
    expect(past.iteration).toMatchObject({ state: 'closed', sequence: 1 });
    current = now.iteration;
    upcoming = later.iteration;
    expect(current.id).toMatch(/^gid:\/\/gitlab\/Iteration\/\d+$/);
    expect(now.iteration.webUrl).toBe(`${EXTERNAL_URL}/groups/${group.full_path}/-/iterations/${current.id.split('/').pop()}`);
    const list = await gql(`query($p: ID!) { group(fullPath: $p) { iterations { nodes { title sequence state } } } }`, { p: group.full_path }, guest.token);
    expect(list.data.group.iterations.nodes).toEqual([
      { title: 'Past', sequence: 1, state: 'closed' },
      { title: 'Now', sequence: 2, state: 'current' },
      { title: null, sequence: 3, state: 'upcoming' },
    ]);
  });

  it('refuses overlapping dates, a taken title and missing dates in GitLab’s words', async () => {
    const overlap = await gql(CREATE_ITERATION, { input: { groupPath: group.full_path, iterationsCadenceId: manualCadence, startDate: day(4), dueDate: day(8) } }, reporter.token);
    expect(overlap.data.iterationCreate).toEqual({ errors: ['Dates cannot overlap with other existing Iterations within this iterations cadence'], iteration: null });
    const taken = await gql(CREATE_ITERATION, { input: { groupPath: group.full_path, iterationsCadenceId: manualCadence, title: 'Now', startDate: day(30), dueDate: day(31) } }, reporter.token);
    expect(taken.data.iterationCreate.errors).toEqual(['Title already being used for another iteration within this cadence.']);
    const blank = await gql(CREATE_ITERATION, { input: { groupPath: group.full_path, description: 'x' } }, reporter.token);
    expect(blank.data.iterationCreate.errors).toEqual(["Start date can't be blank", "Due date can't be blank"]);
    const empty = await gql(CREATE_ITERATION, { input: { groupPath: group.full_path } }, reporter.token);
    expect(empty.errors?.[0].message).toBe('The list of iteration attributes is empty');
  });

  it('updates an iteration and re-numbers the cadence, and deletes only the last open one', async () => {
    const update = `mutation($input: UpdateIterationInput!) { updateIteration(input: $input) { errors iteration { title startDate sequence } } }`;
    const moved = await gql(update, { input: { groupPath: group.full_path, id: upcoming.id, title: 'Next', startDate: day(20), dueDate: day(26) } }, reporter.token);
    expect(moved.data.updateIteration).toMatchObject({ errors: [], iteration: { title: 'Next', sequence: 3 } });
    const overlap = await gql(update, { input: { groupPath: group.full_path, id: upcoming.id, startDate: day(0) } }, reporter.token);
    expect(overlap.data.updateIteration.errors).toEqual(['Dates cannot overlap with other existing Iterations within this iterations cadence']);
    const del = `mutation($id: IterationID!) { iterationDelete(input: { id: $id }) { errors group { fullPath } } }`;
    const refused = await gql(del, { id: current.id }, reporter.token);
    expect(refused.data.iterationDelete).toEqual({ errors: ["upcoming/current iterations can't be deleted unless they are the last one in the cadence"], group: { fullPath: group.full_path } });
    const old = await gql(CREATE_ITERATION, { input: { groupPath: group.full_path, iterationsCadenceId: manualCadence, startDate: day(-60), dueDate: day(-50) } }, reporter.token);
    expect(old.data.iterationCreate.iteration.sequence).toBe(1);
    const deleted = await gql(del, { id: old.data.iterationCreate.iteration.id }, reporter.token);
    expect(deleted.data.iterationDelete).toEqual({ errors: [], group: { fullPath: group.full_path } });
    const list = await gql(`query($p: ID!) { group(fullPath: $p) { iterations(includeAncestors: false) { nodes { sequence } } } }`, { p: group.full_path }, reporter.token);
    expect(list.data.group.iterations.nodes.map((n: { sequence: number }) => n.sequence)).toEqual([1, 2, 3]);
  });

  it('puts an iteration with no cadence in the group’s first manual cadence', async () => {
    const body = await gql(CREATE_ITERATION, { input: { groupPath: subgroup.full_path, title: 'Loose', startDate: day(40), dueDate: day(41) } }, owner.token);
    expect(body.data.iterationCreate.errors).toEqual([]);
    const cadences = await gql(`query($p: ID!) { group(fullPath: $p) { iterationCadences { nodes { title automatic } } } }`, { p: subgroup.full_path }, owner.token);
    expect(cadences.data.group.iterationCadences.nodes).toEqual([{ title: expect.stringMatching(/ Iterations$/), automatic: false }]);
  });
});

describe('automatic cadences', () => {
  it('refuses iterations made by hand, and schedules upcoming iterations ahead on the job queue', async () => {
    const created = await gql(CREATE_CADENCE, { input: { groupPath: group.full_path, title: 'Auto', automatic: true, active: true, startDate: day(0), durationInWeeks: 1, iterationsInAdvance: 2 } }, owner.token);
    expect(created.data.iterationCadenceCreate.errors).toEqual([]);
    const cadence = created.data.iterationCadenceCreate.iterationCadence.id;
    const manual = await gql(CREATE_ITERATION, { input: { groupPath: group.full_path, iterationsCadenceId: cadence, startDate: day(100), dueDate: day(101) } }, owner.token);
    expect(manual.data.iterationCreate).toEqual({ errors: ['Iterations cannot be manually added to cadences that use automatic scheduling'], iteration: null });
    const query = `query($p: ID!, $c: [IterationsCadenceID!]) { group(fullPath: $p) { iterations(iterationCadenceIds: $c) { nodes { title sequence state startDate dueDate } } } }`;
    const nodes = await eventually(async () => {
      const body = await gql(query, { p: group.full_path, c: [cadence] }, owner.token);
      return body.data.group.iterations.nodes.length === 3 && body.data.group.iterations.nodes;
    });
    expect(nodes.map((n: { sequence: number; state: string; title: string | null }) => [n.sequence, n.state, n.title])).toEqual([
      [1, 'current', null],
      [2, 'upcoming', null],
      [3, 'upcoming', null],
    ]);
    expect(nodes[0].startDate.slice(0, 10)).toBe(day(0));
    expect(nodes[0].dueDate.slice(0, 10)).toBe(day(6));
    expect(nodes[2].dueDate.slice(0, 10)).toBe(day(20));
  });
});

describe('the Iterations API', () => {
  it('lists a group’s iterations with GitLab’s entity, through @gitbeaker/rest', async () => {
    const api = new Gitlab({ host: t.url, token: guest.token });
    const all = await api.GroupIterations.all(group.id, { state: 'current' } as never);
    expect(all.map((i) => i.title)).toEqual(['Now', null]);
    const res = await t.api('GET', `/groups/${group.id}/iterations?state=started&search=now`, { token: guest.token });
    expect(res.status).toBe(200);
    const id = Number(current.id.split('/').pop());
    expect(res.body).toEqual([
      {
        id,
        iid: 2,
        sequence: 2,
        group_id: group.id,
        title: 'Now',
        description: null,
        state: 2,
        created_at: expect.stringMatching(/Z$/),
        updated_at: expect.stringMatching(/Z$/),
        start_date: day(-2),
        due_date: day(5),
        web_url: `${EXTERNAL_URL}/groups/${group.full_path}/-/iterations/${id}`,
      },
    ]);
    expect(res.headers.get('x-total')).toBe('1');
  });

  // @gitbeaker/rest's ProjectIterations asks `/project/:id/iterations` (singular, a 404 on GitLab too): raw HTTP here.
  it('lists a project’s iterations with its ancestors’ unless include_ancestors=false', async () => {
    const withAncestors = (await t.api('GET', `/projects/${project.id}/iterations`, { token: owner.token })).body as { title: string }[];
    expect(withAncestors.map((i) => i.title)).toEqual(expect.arrayContaining(['Past', 'Now', 'Next', 'Loose']));
    const own = await t.api('GET', `/projects/${project.id}/iterations?include_ancestors=false`, { token: owner.token });
    expect(own.body.map((i: { title: string }) => i.title)).toEqual(['Loose']);
    const closed = await t.api('GET', `/groups/${group.id}/iterations?state=closed&updated_after=2000-01-01T00:00:00Z`, { token: owner.token });
    expect(closed.body.map((i: { title: string; state: number }) => [i.title, i.state])).toEqual([['Past', 3]]);
  });

  it('hides a private group and answers a bad state with 400', async () => {
    const hidden = await t.api('GET', `/groups/${group.id}/iterations`, { token: stranger.token });
    expect([hidden.status, hidden.body]).toEqual([404, { message: '404 Group Not Found' }]);
    const bad = await t.api('GET', `/groups/${group.id}/iterations?state=later`, { token: owner.token });
    expect(bad.status).toBe(400);
  });
});

describe('an issue’s iteration', () => {
  it('sets it with issueSetIteration, notes the change, and shows it in REST', async () => {
    const issue = (await t.api('POST', `/projects/${project.id}/issues`, { token: owner.token, body: { title: 'Work' } })).body;
    const set = `mutation($p: ID!, $iid: String!, $it: IterationID) { issueSetIteration(input: { projectPath: $p, iid: $iid, iterationId: $it }) { errors issue { iteration { title } } } }`;
    const body = await gql(set, { p: project.path_with_namespace, iid: String(issue.iid), it: current.id }, owner.token);
    expect(body.data.issueSetIteration).toEqual({ errors: [], issue: { iteration: { title: 'Now' } } });
    const rest = await t.api('GET', `/projects/${project.id}/issues/${issue.iid}`, { token: owner.token });
    expect(rest.body.iteration).toMatchObject({ id: Number(current.id.split('/').pop()), title: 'Now', state: 2 });
    const notes = await t.api('GET', `/projects/${project.id}/issues/${issue.iid}/notes`, { token: owner.token });
    expect(notes.body.map((n: { body: string }) => n.body)).toContain(`changed iteration to *iteration:${current.id.split('/').pop()}`);
    const filtered = await t.api('GET', `/projects/${project.id}/issues?iteration_id=Current`, { token: owner.token });
    expect(filtered.body.map((i: { iid: number }) => i.iid)).toEqual([issue.iid]);
    const none = await t.api('GET', `/projects/${project.id}/issues?iteration_id=None`, { token: owner.token });
    expect(none.body.map((i: { iid: number }) => i.iid)).not.toContain(issue.iid);
    const byTitle = await t.api('GET', `/projects/${project.id}/issues?iteration_title=Now`, { token: owner.token });
    expect(byTitle.body.map((i: { iid: number }) => i.iid)).toEqual([issue.iid]);
    const removed = await gql(set, { p: project.path_with_namespace, iid: String(issue.iid), it: null }, owner.token);
    expect(removed.data.issueSetIteration.issue.iteration).toBeNull();
    const after = await t.api('GET', `/projects/${project.id}/issues/${issue.iid}/notes?sort=desc`, { token: owner.token });
    expect(after.body[0].body).toBe('removed iteration');
    const events = await t.api('GET', `/projects/${project.id}/issues/${issue.iid}/resource_iteration_events`, { token: guest.token });
    expect(events.status).toBe(200);
    expect(events.body.map((e: { action: string; resource_type: string; resource_id: number; iteration: { title: string } }) => [e.action, e.resource_type, e.resource_id, e.iteration.title])).toEqual([
      ['add', 'Issue', issue.id, 'Now'],
      ['remove', 'Issue', issue.id, 'Now'],
    ]);
    expect(Object.keys(events.body[0])).toEqual(['id', 'user', 'created_at', 'resource_type', 'resource_id', 'iteration', 'action']);
    const one = await t.api('GET', `/projects/${project.id}/issues/${issue.iid}/resource_iteration_events/${events.body[1].id}`, { token: owner.token });
    expect(one.body).toEqual(events.body[1]);
    const missing = await t.api('GET', `/projects/${project.id}/issues/${issue.iid}/resource_iteration_events/0`, { token: owner.token });
    expect([missing.status, missing.body]).toEqual([404, { message: '404 Not found' }]);
  });

  it('creates an issue in the current iteration of a cadence (CreateIssueInput)', async () => {
    const create = `mutation($p: ID!, $c: IterationsCadenceID) { createIssue(input: { projectPath: $p, title: "Now please", iterationWildcardId: CURRENT, iterationCadenceId: $c }) { errors issue { iid iteration { title } } } }`;
    const body = await gql(create, { p: project.path_with_namespace, c: manualCadence }, reporter.token);
    expect(body.data.createIssue).toMatchObject({ errors: [], issue: { iteration: { title: 'Now' } } });
    const missing = await gql(create, { p: project.path_with_namespace, c: null }, reporter.token);
    expect(missing.errors?.[0].message).toMatch(/iterationCadenceId is required/);
    const filtered = await gql(`query($p: ID!, $c: [IterationsCadenceID!]) { project(fullPath: $p) { issues(iterationCadenceId: $c, iterationWildcardId: CURRENT) { nodes { title } } } }`, { p: project.path_with_namespace, c: [manualCadence] }, owner.token);
    expect(filtered.data.project.issues.nodes.map((n: { title: string }) => n.title)).toContain('Now please');
  });

  it('sets and removes it with /iteration and /remove_iteration (open iterations only, Reporters and up)', async () => {
    const issue = (await t.api('POST', `/projects/${project.id}/issues`, { token: owner.token, body: { title: 'Quick' } })).body;
    const notes = `/projects/${project.id}/issues/${issue.iid}/notes`;
    const nextId = Number(upcoming.id.split('/').pop());
    const byId = await t.api('POST', notes, { token: reporter.token, body: { body: `/iteration *iteration:${nextId}` } });
    expect(byId.status, byId.text).toBe(202);
    expect(byId.body.summary).toEqual([`Set the iteration to *iteration:${nextId}.`]);
    expect((await t.api('GET', `/projects/${project.id}/issues/${issue.iid}`, { token: owner.token })).body.iteration).toMatchObject({ title: 'Next' });
    const byTitle = await t.api('POST', notes, { token: reporter.token, body: { body: 'Moving on\n/iteration *iteration:"Now"' } });
    expect(byTitle.status, byTitle.text).toBe(201);
    expect((await t.api('GET', `/projects/${project.id}/issues/${issue.iid}`, { token: owner.token })).body.iteration).toMatchObject({ title: 'Now' });
    // A closed iteration is no open one: nothing changes.
    const past = await t.api('POST', notes, { token: reporter.token, body: { body: '/iteration *iteration:Past' } });
    expect(past.body.summary ?? []).not.toContain(expect.stringMatching(/Set the iteration/));
    expect((await t.api('GET', `/projects/${project.id}/issues/${issue.iid}`, { token: owner.token })).body.iteration).toMatchObject({ title: 'Now' });
    const refused = await t.api('POST', notes, { token: guest.token, body: { body: '/remove_iteration' } });
    expect(refused.body.summary).toEqual(['Could not apply remove_iteration command.']);
    const removed = await t.api('POST', notes, { token: reporter.token, body: { body: '/remove_iteration' } });
    expect(removed.body.summary).toEqual(['Removed *iteration:"Now" iteration.']);
    expect((await t.api('GET', `/projects/${project.id}/issues/${issue.iid}`, { token: owner.token })).body.iteration).toBeNull();
    const trail = await t.api('GET', `${notes}?sort=asc`, { token: owner.token });
    expect(trail.body.filter((n: { system: boolean }) => n.system).map((n: { body: string }) => n.body)).toEqual([
      `changed iteration to *iteration:${nextId}`,
      `changed iteration to *iteration:${current.id.split('/').pop()}`,
      'removed iteration',
    ]);
  });
});

describe('cadence changes', () => {
  it('updates and destroys a cadence with its iterations', async () => {
    const update = await gql(`mutation($id: IterationsCadenceID!) { iterationCadenceUpdate(input: { id: $id, title: "Renamed", description: "d" }) { errors iterationCadence { title description } } }`, { id: manualCadence }, reporter.token);
    expect(update.data.iterationCadenceUpdate).toEqual({ errors: [], iterationCadence: { title: 'Renamed', description: 'd' } });
    const destroy = await gql(`mutation($id: IterationsCadenceID!) { iterationCadenceDestroy(input: { id: $id }) { errors group { fullPath } } }`, { id: manualCadence }, reporter.token);
    expect(destroy.data.iterationCadenceDestroy).toEqual({ errors: [], group: { fullPath: group.full_path } });
    const gone = await gql(`query($id: IterationID!) { iteration(id: $id) { title } }`, { id: current.id }, owner.token);
    expect(gone.data.iteration).toBeNull();
  });
});
