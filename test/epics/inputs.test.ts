/**
 * GitLab 16.3's epic inputs: createEpic's and updateEpic's `color` as GitLab's `Color` scalar (a hex code or a named
 * CSS colour, `Not a color` otherwise; REST's `color` alike), and their `addLabelIds`/`removeLabelIds` (global IDs or
 * numeric ids of labels of the group and its ancestors; others are dropped).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { suiteServer } from '../support/server.js';
import { apiOk, createGroup, createProject, createUser, type TestUser } from '../support/factories.js';

const t = suiteServer();

let owner: TestUser;
let parent: { id: number; full_path: string };
let group: { id: number; full_path: string };
let labels: { parent: { id: number }; own: { id: number }; other: { id: number }; project: { id: number } };

const EPIC = 'errors epic { iid color textColor labels { nodes { title } } }';
const CREATE = `mutation($input: CreateEpicInput!) { createEpic(input: $input) { ${EPIC} } }`;
const UPDATE = `mutation($input: UpdateEpicInput!) { updateEpic(input: $input) { ${EPIC} } }`;
const titles = (epic: any) => epic.labels.nodes.map((n: any) => n.title).sort();

beforeAll(async () => {
  owner = await createUser(t);
  parent = await createGroup(t, owner.token);
  group = await createGroup(t, owner.token, { parentId: parent.id });
  const elsewhere = await createGroup(t, owner.token);
  const project = await createProject(t, owner.token, { namespaceId: group.id });
  labels = {
    parent: await apiOk(t, owner.token, 'POST', `/groups/${parent.id}/labels`, { name: 'inherited', color: '#111111' }),
    own: await apiOk(t, owner.token, 'POST', `/groups/${group.id}/labels`, { name: 'own', color: '#222222' }),
    other: await apiOk(t, owner.token, 'POST', `/groups/${elsewhere.id}/labels`, { name: 'elsewhere', color: '#333333' }),
    project: await apiOk(t, owner.token, 'POST', `/projects/${project.id}/labels`, { name: 'project-only', color: '#444444' }),
  };
});

describe('epic inputs', () => {
  it('takes a colour as a hex code or a CSS name, and refuses anything else as GitLab’s Color does', async () => {
    const named = await t.graphql(CREATE, { input: { groupPath: group.full_path, title: 'Red', color: 'red' } }, owner.token);
    expect(named.body.errors).toBeUndefined();
    expect(named.body.data.createEpic).toMatchObject({ errors: [], epic: { color: '#FF0000', textColor: '#FFFFFF' } });
    const iid = named.body.data.createEpic.epic.iid;
    const hex = await t.graphql(UPDATE, { input: { groupPath: group.full_path, iid, color: '#fefefe' } }, owner.token);
    expect(hex.body.data.updateEpic).toMatchObject({ errors: [], epic: { color: '#fefefe', textColor: '#333333' } });
    const bad = await t.graphql(UPDATE, { input: { groupPath: group.full_path, iid, color: 'not-a-colour' } }, owner.token);
    expect(bad.body.data?.updateEpic ?? null).toBeNull();
    expect(bad.body.errors?.[0].message).toContain('Not a color');
    const literal = await t.graphql(`mutation { updateEpic(input: { groupPath: "${group.full_path}", iid: "${iid}", color: "#12" }) { errors } }`, {}, owner.token);
    expect(literal.body.errors?.[0].message).toContain('Not a color');
    // REST's color, through the same scalar.
    const rest = await t.api('PUT', `/groups/${group.id}/epics/${iid}`, { token: owner.token, body: { color: 'blue' } });
    expect([rest.status, rest.body.color]).toEqual([200, '#0000FF']);
    const restBad = await t.api('PUT', `/groups/${group.id}/epics/${iid}`, { token: owner.token, body: { color: 'xyz' } });
    expect([restBad.status, restBad.body]).toEqual([400, { error: 'color is invalid' }]);
  });

  it('adds and removes labels by id on create and update, the group’s and its ancestors’ only', async () => {
    const created = await t.graphql(
      CREATE,
      {
        input: {
          groupPath: group.full_path,
          title: 'Labelled',
          addLabelIds: [`gid://gitlab/GroupLabel/${labels.parent.id}`, String(labels.own.id), String(labels.other.id), String(labels.project.id), 'junk'],
        },
      },
      owner.token,
    );
    expect(created.body.errors).toBeUndefined();
    const epic = created.body.data.createEpic.epic;
    expect(titles(epic)).toEqual(['inherited', 'own']);
    const updated = await t.graphql(
      UPDATE,
      { input: { groupPath: group.full_path, iid: epic.iid, removeLabelIds: [`gid://gitlab/Label/${labels.parent.id}`], addLabels: ['by-title'] } },
      owner.token,
    );
    expect(updated.body.data.updateEpic.errors).toEqual([]);
    expect(titles(updated.body.data.updateEpic.epic)).toEqual(['by-title', 'own']);
    const readded = await t.graphql(UPDATE, { input: { groupPath: group.full_path, iid: epic.iid, addLabelIds: [labels.parent.id], removeLabelIds: [String(labels.own.id)] } }, owner.token);
    expect(titles(readded.body.data.updateEpic.epic)).toEqual(['by-title', 'inherited']);
    // Label events follow the ids as they follow titles.
    const events = (await t.api('GET', `/groups/${group.id}/epics/${epic.iid}/resource_label_events`, { token: owner.token })).body as any[];
    expect(events.filter((e) => e.label?.id === labels.parent.id).map((e) => e.action)).toEqual(['add', 'remove', 'add']);
  });
});
