/** Epics over GraphQL (GitLab's names: Group.epic, Group.epics, createEpic, updateEpic, epicAddIssue, issueSetEpic) and gitbeaker's Epics, EpicIssues, EpicDiscussions and EpicNotes. */
import { beforeAll, describe, expect, it } from 'vitest';
import { Gitlab } from '@gitbeaker/rest';
import { suiteServer } from '../support/server.js';
import { createGroup, createProject, createUser, type TestUser } from '../support/factories.js';

const t = suiteServer();

let owner: TestUser;
let group: { id: number; full_path: string };
let project: { id: number; path_with_namespace: string };

beforeAll(async () => {
  owner = await createUser(t);
  group = await createGroup(t, owner.token);
  project = await createProject(t, owner.token, { namespaceId: group.id });
});

const gql = async <T = any>(query: string, variables: Record<string, unknown> = {}) => {
  const res = await t.graphql<T>(query, variables, owner.token);
  expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
  return res.body.data as T;
};

describe('GraphQL', () => {
  it('creates, updates and reads epics with GitLab’s types', async () => {
    const created = await gql(
      `mutation($path: ID!) {
        createEpic(input: { groupPath: $path, title: "Launch", description: "Go", addLabels: ["ship"], startDateFixed: "2030-01-01", startDateIsFixed: true, clientMutationId: "c1" }) {
          clientMutationId errors epic { id iid title state confidential startDate startDateIsFixed webPath reference(full: true) labels { nodes { title } } author { username } group { fullPath } }
        }
      }`,
      { path: group.full_path },
    );
    const epic = created.createEpic.epic;
    expect(created.createEpic).toMatchObject({ clientMutationId: 'c1', errors: [] });
    expect(epic).toMatchObject({
      iid: '1',
      title: 'Launch',
      state: 'opened',
      confidential: false,
      startDate: '2030-01-01T00:00:00.000Z',
      startDateIsFixed: true,
      webPath: `/groups/${group.full_path}/-/epics/1`,
      reference: `${group.full_path}&1`,
      labels: { nodes: [{ title: 'ship' }] },
      author: { username: owner.username },
      group: { fullPath: group.full_path },
    });
    expect(epic.id).toMatch(/^gid:\/\/gitlab\/Epic\/\d+$/);

    const updated = await gql(`mutation($path: ID!) { updateEpic(input: { groupPath: $path, iid: "1", stateEvent: CLOSE, removeLabels: ["ship"] }) { errors epic { state closedAt labels { nodes { title } } } } }`, {
      path: group.full_path,
    });
    expect(updated.updateEpic.epic).toMatchObject({ state: 'closed', labels: { nodes: [] } });

    const read = await gql(`query($path: ID!) { group(fullPath: $path) { epic(iid: "1") { title } missing: epic(iid: "99") { title } epics(state: closed) { count nodes { iid } } } }`, {
      path: group.full_path,
    });
    expect(read.group).toEqual({ epic: { title: 'Launch' }, missing: null, epics: { count: 1, nodes: [{ iid: '1' }] } });
  });

  it('adds an issue to an epic, sets an issue’s epic, and lists the epic’s issues', async () => {
    await t.api('POST', `/groups/${group.id}/epics`, { token: owner.token, body: { title: 'Holder' } });
    const issue = (await t.api('POST', `/projects/${project.id}/issues`, { token: owner.token, body: { title: 'work' } })).body;
    const added = await gql(
      `mutation($path: ID!, $project: ID!) { epicAddIssue(input: { groupPath: $path, iid: "2", projectPath: $project, issueIid: "${issue.iid}" }) { errors epic { iid hasIssues } epicIssue { iid title epicIssueId relativePosition issue { epic { iid } } } } }`,
      { path: group.full_path, project: project.path_with_namespace },
    );
    expect(added.epicAddIssue).toMatchObject({ errors: [], epic: { iid: '2', hasIssues: true }, epicIssue: { iid: String(issue.iid), title: 'work', relativePosition: 1073741823, issue: { epic: { iid: '2' } } } });
    expect(added.epicAddIssue.epicIssue.epicIssueId).toMatch(/^gid:\/\/gitlab\/EpicIssue\/\d+$/);

    const epics = await gql(`query($path: ID!) { group(fullPath: $path) { epic(iid: "1") { id } } }`, { path: group.full_path });
    const moved = await gql(`mutation($project: ID!, $epic: EpicID) { issueSetEpic(input: { projectPath: $project, iid: "${issue.iid}", epicId: $epic }) { errors issue { epic { iid } } } }`, {
      project: project.path_with_namespace,
      epic: epics.group.epic.id,
    });
    expect(moved.issueSetEpic).toEqual({ errors: [], issue: { epic: { iid: '1' } } });
    const listed = await gql(`query($path: ID!) { group(fullPath: $path) { epic(iid: "1") { issues { count nodes { title } } } } }`, { path: group.full_path });
    expect(listed.group.epic.issues).toEqual({ count: 1, nodes: [{ title: 'work' }] });
  });
});

describe('gitbeaker', () => {
  it('drives Epics, EpicIssues, EpicDiscussions and EpicNotes', async () => {
    const api = new Gitlab({ host: t.url, token: owner.token });
    const epic = await api.Epics.create(group.id, 'From gitbeaker', { description: 'via client', labels: 'client' });
    expect(epic).toMatchObject({ title: 'From gitbeaker', labels: ['client'], group_id: group.id });
    const shown = await api.Epics.show(group.id, epic.iid);
    expect(shown.id).toBe(epic.id);
    const edited = await api.Epics.edit(group.id, epic.iid, { title: 'Renamed' });
    expect(edited.title).toBe('Renamed');
    const all = await api.Epics.all(group.id, { search: 'Renamed' });
    expect(all.map((e) => e.iid)).toEqual([epic.iid]);

    const issue = (await t.api('POST', `/projects/${project.id}/issues`, { token: owner.token, body: { title: 'client issue' } })).body;
    const link = await api.EpicIssues.assign(group.id, epic.iid, issue.id);
    expect(link).toMatchObject({ epic: { id: epic.id }, issue: { id: issue.id } });
    expect((await api.EpicIssues.all(group.id, epic.iid)).map((i) => i.id)).toEqual([issue.id]);
    const removed = await api.EpicIssues.remove(group.id, epic.iid, (link as { id: number }).id);
    expect(removed).toMatchObject({ id: (link as { id: number }).id });

    const thread = await api.EpicDiscussions.create(group.id, epic.id, 'A thread');
    expect(thread.notes?.[0]).toMatchObject({ body: 'A thread', noteable_type: 'Epic' });
    const note = await api.EpicNotes.create(group.id, epic.id, 'A note');
    expect(note).toMatchObject({ body: 'A note', noteable_type: 'Epic' });
    expect((await api.EpicNotes.all(group.id, epic.id)).length).toBe(2);

    await api.Epics.remove(group.id, epic.iid);
    await expect(api.Epics.show(group.id, epic.iid)).rejects.toThrow(/Forbidden/);
  });
});
