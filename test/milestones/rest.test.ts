/** Project and group milestones over REST: GitLab's shapes, iids, states, validation, visibility, promotion, and gitbeaker. */
import { beforeAll, describe, expect, it } from 'vitest';
import { Gitlab } from '@gitbeaker/rest';
import { suiteServer, EXTERNAL_URL } from '../support/server.js';
import { addMember, createGroup, createProject, createUser, type TestUser } from '../support/factories.js';

const t = suiteServer();

const KEYS = ['created_at', 'description', 'due_date', 'expired', 'id', 'iid', 'start_date', 'state', 'title', 'updated_at', 'web_url'];

let owner: TestUser;
let reporter: TestUser;
let guest: TestUser;
let stranger: TestUser;
let group: { id: number; full_path: string };
let project: { id: number; path_with_namespace: string };

beforeAll(async () => {
  [owner, reporter, guest, stranger] = await Promise.all([1, 2, 3, 4].map(() => createUser(t)));
  group = await createGroup(t, owner.token);
  project = await createProject(t, owner.token, { namespaceId: group.id });
  await addMember(t, owner.token, 'projects', project.id, reporter.id, 20);
  await addMember(t, owner.token, 'projects', project.id, guest.id, 10);
});

const milestones = (suffix = '') => `/projects/${project.id}/milestones${suffix}`;

describe('project milestones', () => {
  it('creates milestones numbered per project with GitLab’s entity', async () => {
    const first = await t.api('POST', milestones(), { token: reporter.token, body: { title: 'v1', description: 'one', start_date: '2030-01-01', due_date: '2030-02-01' } });
    expect(first.status, first.text).toBe(201);
    expect(Object.keys(first.body).sort()).toEqual([...KEYS, 'project_id'].sort());
    expect(first.body).toMatchObject({
      iid: 1,
      project_id: project.id,
      title: 'v1',
      description: 'one',
      state: 'active',
      start_date: '2030-01-01',
      due_date: '2030-02-01',
      expired: false,
      web_url: `${EXTERNAL_URL}/${project.path_with_namespace}/-/milestones/1`,
    });
    const second = await t.api('POST', milestones(), { token: reporter.token, body: { title: 'v0', due_date: '2000-01-01' } });
    expect(second.body).toMatchObject({ iid: 2, expired: true, start_date: null });
  });

  it('refuses bad dates, duplicate titles and guests in GitLab’s words', async () => {
    const dates = await t.api('POST', milestones(), { token: reporter.token, body: { title: 'bad', start_date: '2030-02-01', due_date: '2030-01-01' } });
    expect(dates.status).toBe(400);
    expect(dates.body).toEqual({ message: 'Failed to create milestone {:due_date=>["must be greater than start date"]}' });
    const dup = await t.api('POST', milestones(), { token: reporter.token, body: { title: 'v1' } });
    expect(dup.status).toBe(400);
    expect(dup.body).toEqual({ message: 'Failed to create milestone {:title=>["already being used for another group or project milestone."]}' });
    expect((await t.api('POST', milestones(), { token: guest.token, body: { title: 'g' } })).status).toBe(403);
    expect((await t.api('POST', milestones(), { token: reporter.token, body: {} })).body).toEqual({ error: 'title is missing' });
  });

  it('lists with state, iids, title and search; gets; closes and activates; deletes', async () => {
    const list = await t.api('GET', milestones(), { token: guest.token });
    expect(list.status).toBe(200);
    expect(list.body.map((m: { title: string }) => m.title)).toEqual(['v0', 'v1']);
    const made = await t.api('POST', milestones(), { token: reporter.token, body: { title: 'later' } });
    const closed = await t.api('PUT', milestones(`/${made.body.id}`), { token: reporter.token, body: { state_event: 'close' } });
    expect(closed.body.state).toBe('closed');
    expect((await t.api('GET', milestones('?state=closed'), { token: guest.token })).body.map((m: { id: number }) => m.id)).toEqual([made.body.id]);
    expect((await t.api('GET', milestones('?iids[]=1'), { token: guest.token })).body.map((m: { iid: number }) => m.iid)).toEqual([1]);
    expect((await t.api('GET', milestones('?title=v0'), { token: guest.token })).body).toHaveLength(1);
    expect((await t.api('GET', milestones('?search=ONE'), { token: guest.token })).body.map((m: { title: string }) => m.title)).toEqual(['v1']);
    expect((await t.api('PUT', milestones(`/${made.body.id}`), { token: reporter.token, body: { state_event: 'bogus' } })).status).toBe(400);
    const active = await t.api('PUT', milestones(`/${made.body.id}`), { token: reporter.token, body: { state_event: 'activate' } });
    expect(active.body.state).toBe('active');
    expect((await t.api('GET', milestones(`/${made.body.id}`), { token: guest.token })).body.title).toBe('later');
    expect((await t.api('DELETE', milestones(`/${made.body.id}`), { token: reporter.token })).status).toBe(204);
    const gone = await t.api('GET', milestones(`/${made.body.id}`), { token: guest.token });
    expect(gone.status).toBe(404);
  });

  it('refuses bad list parameters with 400', async () => {
    const state = await t.api('GET', milestones('?state=open'), { token: guest.token });
    expect(state.status).toBe(400);
    expect(state.body).toEqual({ error: 'state does not have a valid value' });
    const iids = await t.api('GET', milestones('?iids[]=x'), { token: guest.token });
    expect(iids.status).toBe(400);
    expect(iids.body.error).toMatch(/^iids/);
    const updated = await t.api('GET', milestones('?updated_after=yesterday'), { token: guest.token });
    expect(updated.status).toBe(400);
    expect(updated.body).toEqual({ error: 'updated_after is invalid' });
  });

  it('hides private projects: 401 anonymous, 404 for others', async () => {
    expect((await t.api('GET', milestones(), { token: null })).status).toBe(401);
    expect((await t.api('GET', milestones(), { token: stranger.token })).body).toEqual({ message: '404 Project Not Found' });
  });

  it('records milestone activity events', async () => {
    const made = await t.api('POST', milestones(), { token: owner.token, body: { title: 'evented' } });
    await t.api('PUT', milestones(`/${made.body.id}`), { token: owner.token, body: { state_event: 'close' } });
    const events = await t.api('GET', `/projects/${project.id}/events?target_type=milestone`, { token: owner.token });
    expect(events.status, events.text).toBe(200);
    expect(events.body.slice(0, 2).map((e: { action_name: string; target_title: string }) => [e.action_name, e.target_title])).toEqual([
      ['closed', 'evented'],
      ['opened', 'evented'],
    ]);
  });

  it('promotes a project milestone to the group', async () => {
    const made = await t.api('POST', milestones(), { token: owner.token, body: { title: 'promo' } });
    const promoted = await t.api('POST', milestones(`/${made.body.id}/promote`), { token: owner.token });
    expect(promoted.status, promoted.text).toBe(200);
    const groupList = await t.api('GET', `/groups/${group.id}/milestones?title=promo`, { token: owner.token });
    expect(groupList.body).toHaveLength(1);
    expect(groupList.body[0]).toMatchObject({ group_id: group.id, iid: 1, web_url: `${EXTERNAL_URL}/groups/${group.full_path}/-/milestones/1` });
    expect((await t.api('GET', milestones(`/${made.body.id}`), { token: owner.token })).status).toBe(404);
  });
});

describe('a milestone’s issues and merge requests', () => {
  it('lists those the viewer may read, in the project or the group’s projects; 404 for a missing milestone', async () => {
    const m = (await t.api('POST', milestones(), { token: owner.token, body: { title: 'sub-lists' } })).body;
    const g = (await t.api('POST', `/groups/${group.id}/milestones`, { token: owner.token, body: { title: 'group sub-lists' } })).body;
    const issue = (body: object) => t.api('POST', `/projects/${project.id}/issues`, { token: owner.token, body });
    await issue({ title: 'in it', milestone_id: m.id });
    await issue({ title: 'secret', milestone_id: m.id, confidential: true });
    await issue({ title: 'elsewhere' });
    await issue({ title: 'in the group one', milestone_id: g.id });
    const titles = async (path: string, token: string) => {
      const res = await t.api('GET', path, { token });
      expect(res.status, res.text).toBe(200);
      return res.body.map((i: { title: string }) => i.title).sort();
    };
    expect(await titles(milestones(`/${m.id}/issues`), owner.token)).toEqual(['in it', 'secret']);
    // A Guest does not read the confidential issue.
    expect(await titles(milestones(`/${m.id}/issues`), guest.token)).toEqual(['in it']);
    const page = await t.api('GET', milestones(`/${m.id}/issues?per_page=1`), { token: owner.token });
    expect(page.headers.get('x-total')).toBe('2');
    expect(page.body[0]).toMatchObject({ project_id: project.id, milestone: { id: m.id, title: 'sub-lists' } });
    expect(await titles(`/groups/${group.id}/milestones/${g.id}/issues`, owner.token)).toEqual(['in the group one']);
    expect(await titles(milestones(`/${m.id}/merge_requests`), owner.token)).toEqual([]);
    expect(await titles(`/groups/${group.id}/milestones/${g.id}/merge_requests`, owner.token)).toEqual([]);
    expect(await t.api('GET', milestones('/999999/issues'), { token: owner.token })).toMatchObject({ status: 404 });
    expect(await t.api('GET', milestones(`/${m.id}/issues`), { token: stranger.token })).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
    expect(await t.api('GET', milestones(`/${m.id}/issues`), { token: null })).toMatchObject({ status: 401 });
  });
});

describe('gitbeaker', () => {
  it('ProjectMilestones and GroupMilestones round-trip', async () => {
    const api = new Gitlab({ host: t.url, token: owner.token });
    const m = await api.ProjectMilestones.create(project.id, 'beaker');
    expect((await api.ProjectMilestones.show(project.id, m.id)).title).toBe('beaker');
    expect((await api.ProjectMilestones.edit(project.id, m.id, { stateEvent: 'close' })).state).toBe('closed');
    expect((await api.ProjectMilestones.all(project.id, { state: 'closed' })).map((x) => x.id)).toContain(m.id);
    const g = await api.GroupMilestones.create(group.id, 'gbeaker');
    expect((await api.GroupMilestones.all(group.id)).map((x) => x.id)).toContain(g.id);
    await api.GroupMilestones.remove(group.id, g.id);
  });
});
