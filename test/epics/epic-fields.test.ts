/**
 * GitLab's Epic fields: userPermissions (EpicPermissions), titleHtml, descriptionHtml, ancestors, descendantCounts,
 * descendantWeightSum, healthStatus, participants, commenters, relationPath, userDiscussionsCount and
 * defaultProjectForIssueCreation, each as GitLab answers it, to readers with more and fewer rights.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { suiteServer } from '../support/server.js';
import { addMember, apiOk, createGroup, createProject, createUser, type TestUser } from '../support/factories.js';

let counting = false;
let statements = 0;
const t = suiteServer({}, { onQuery: () => counting && statements++ });

let owner: TestUser;
let reporter: TestUser;
let commenter: TestUser;
let outsider: TestUser;
let group: { id: number; full_path: string };
let project: { id: number; path_with_namespace: string };
const epics: Record<'top' | 'middle' | 'leaf', { id: number; iid: number }> = {} as never;

const gql = async (query: string, variables: Record<string, unknown>, token: string | null) => {
  const res = await t.graphql(query, variables, token);
  expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
  return res.body.data;
};
const epicQuery = (fields: string) => `query($path: ID!, $iid: ID) { group(fullPath: $path) { epic(iid: $iid) { ${fields} } } }`;
const readEpic = async (iid: number, fields: string, token: string | null) => (await gql(epicQuery(fields), { path: group.full_path, iid: String(iid) }, token)).group.epic;

async function issueIn(epic: { iid: number }, input: Record<string, unknown>, close = false) {
  const created = await gql(
    `mutation($input: CreateIssueInput!) { createIssue(input: $input) { errors issue { iid databaseId } } }`,
    { input: { projectPath: project.path_with_namespace, ...input } },
    owner.token,
  );
  const issue = created.createIssue.issue;
  await apiOk(t, owner.token, 'POST', `/groups/${group.id}/epics/${epic.iid}/issues/${issue.databaseId}`);
  if (close) await apiOk(t, owner.token, 'PUT', `/projects/${project.id}/issues/${issue.iid}`, { state_event: 'close' });
}

beforeAll(async () => {
  [owner, reporter, commenter, outsider] = await Promise.all([createUser(t), createUser(t), createUser(t), createUser(t)]);
  group = await createGroup(t, owner.token, { visibility: 'public' });
  project = await createProject(t, owner.token, { namespaceId: group.id, visibility: 'public' });
  await addMember(t, owner.token, 'groups', group.id, reporter.id, 20);
  epics.top = await apiOk(t, owner.token, 'POST', `/groups/${group.id}/epics`, { title: 'Launch *now*', description: 'Hello **world**' });
  epics.middle = await apiOk(t, owner.token, 'POST', `/groups/${group.id}/epics`, { title: 'Middle', parent_id: epics.top.id, confidential: true });
  epics.leaf = await apiOk(t, owner.token, 'POST', `/groups/${group.id}/epics`, { title: 'Leaf', parent_id: epics.middle.id });
  await apiOk(t, owner.token, 'PUT', `/groups/${group.id}/epics/${epics.leaf.iid}`, { state_event: 'close' });
  await issueIn(epics.top, { title: 'risky', weight: 3, healthStatus: 'atRisk' });
  await issueIn(epics.leaf, { title: 'done', weight: 5, healthStatus: 'needsAttention' }, true);
  await issueIn(epics.leaf, { title: 'fine', weight: 2, healthStatus: 'onTrack' });
  await apiOk(t, commenter.token, 'POST', `/groups/${group.id}/epics/${epics.top.id}/notes`, { body: 'first' });
  await apiOk(t, reporter.token, 'POST', `/groups/${group.id}/epics/${epics.top.id}/notes`, { body: 'internal', internal: true });
});

describe('Epic', () => {
  it('answers userPermissions from the epics policy', async () => {
    const fields = 'userPermissions { adminEpic awardEmoji createEpic createNote destroyEpic readEpic readEpicIid updateEpic }';
    expect((await readEpic(epics.top.iid, fields, owner.token)).userPermissions).toEqual({
      adminEpic: true, awardEmoji: true, createEpic: true, createNote: true, destroyEpic: true, readEpic: true, readEpicIid: true, updateEpic: true,
    });
    expect((await readEpic(epics.top.iid, fields, reporter.token)).userPermissions).toMatchObject({ adminEpic: true, updateEpic: true, createEpic: true, destroyEpic: false });
    expect((await readEpic(epics.top.iid, fields, outsider.token)).userPermissions).toEqual({
      adminEpic: false, awardEmoji: true, createEpic: false, createNote: true, destroyEpic: false, readEpic: true, readEpicIid: true, updateEpic: false,
    });
    expect((await readEpic(epics.top.iid, fields, null)).userPermissions).toMatchObject({ readEpic: true, createNote: false, awardEmoji: false });
  });

  it('renders titleHtml and descriptionHtml', async () => {
    const epic = await readEpic(epics.top.iid, 'titleHtml descriptionHtml', outsider.token);
    expect(epic.titleHtml).toBe('Launch <em>now</em>');
    expect(epic.descriptionHtml).toContain('Hello <strong>world</strong>');
  });

  it('adds up descendant epics, issues, weights and health over the whole tree', async () => {
    const fields = 'descendantCounts { openedEpics closedEpics openedIssues closedIssues } descendantWeightSum { openedIssues closedIssues } healthStatus { issuesAtRisk issuesNeedingAttention issuesOnTrack }';
    expect(await readEpic(epics.top.iid, fields, owner.token)).toEqual({
      descendantCounts: { openedEpics: 1, closedEpics: 1, openedIssues: 2, closedIssues: 1 },
      descendantWeightSum: { openedIssues: 5, closedIssues: 5 },
      // Only open issues count towards health, as in GitLab's EpicNode.
      healthStatus: { issuesAtRisk: 1, issuesNeedingAttention: 0, issuesOnTrack: 1 },
    });
    expect(await readEpic(epics.leaf.iid, fields, owner.token)).toEqual({
      descendantCounts: { openedEpics: 0, closedEpics: 0, openedIssues: 1, closedIssues: 1 },
      descendantWeightSum: { openedIssues: 2, closedIssues: 5 },
      healthStatus: { issuesAtRisk: 0, issuesNeedingAttention: 0, issuesOnTrack: 1 },
    });
  });

  it('lists readable ancestors top first, stopping at one the viewer may not read, and the relation path to the parent', async () => {
    const fields = 'ancestors { count nodes { iid } } relationPath';
    expect(await readEpic(epics.leaf.iid, fields, owner.token)).toEqual({
      ancestors: { count: 2, nodes: [{ iid: String(epics.top.iid) }, { iid: String(epics.middle.iid) }] },
      relationPath: `/groups/${group.full_path}/-/epics/${epics.middle.iid}/links/${epics.leaf.id}`,
    });
    expect((await readEpic(epics.leaf.iid, fields, outsider.token)).ancestors).toEqual({ count: 0, nodes: [] });
    expect((await readEpic(epics.top.iid, fields, owner.token)).relationPath).toBeNull();
  });

  it('lists participants and commenters, and counts discussions, leaving out internal notes for who may not read them', async () => {
    const fields = 'participants { nodes { username } } commenters { nodes { username } } userDiscussionsCount';
    const seen = await readEpic(epics.top.iid, fields, outsider.token);
    expect(seen).toEqual({ participants: { nodes: [{ username: owner.username }, { username: commenter.username }] }, commenters: { nodes: [{ username: commenter.username }] }, userDiscussionsCount: 1 });
    const member = await readEpic(epics.top.iid, fields, reporter.token);
    expect(member.participants.nodes.map((u: { username: string }) => u.username)).toEqual([owner.username, commenter.username, reporter.username]);
    expect(member.commenters.nodes.map((u: { username: string }) => u.username).sort()).toEqual([commenter.username, reporter.username].sort());
    expect(member.userDiscussionsCount).toBe(2);
  });

  it('suggests the project the viewer last created an issue in, when it is in the epic’s group', async () => {
    expect((await readEpic(epics.top.iid, 'defaultProjectForIssueCreation { fullPath }', owner.token)).defaultProjectForIssueCreation).toEqual({ fullPath: project.path_with_namespace });
    expect((await readEpic(epics.top.iid, 'defaultProjectForIssueCreation { fullPath }', outsider.token)).defaultProjectForIssueCreation).toBeNull();
    const elsewhere = await createProject(t, owner.token);
    await apiOk(t, owner.token, 'POST', `/projects/${elsewhere.id}/issues`, { title: 'other' });
    expect((await readEpic(epics.top.iid, 'defaultProjectForIssueCreation { fullPath }', owner.token)).defaultProjectForIssueCreation).toBeNull();
  });

  it('reads a page of epics with these fields in as many statements for three as for one', async () => {
    const query = `query($path: ID!, $first: Int) { group(fullPath: $path) { epics(first: $first, sort: CREATED_AT_ASC) { nodes {
      titleHtml userPermissions { readEpic adminEpic } descendantCounts { openedIssues } descendantWeightSum { openedIssues } healthStatus { issuesAtRisk }
      commenters { nodes { username } } participants { nodes { username } } userDiscussionsCount relationPath
    } } } }`;
    const count = async (first: number) => {
      statements = 0;
      counting = true;
      const data = await gql(query, { path: group.full_path, first }, owner.token);
      counting = false;
      expect(data.group.epics.nodes).toHaveLength(first);
      return statements;
    };
    // Warm both sizes first: the token, memberships and (on PostgreSQL) pool connections are remembered after.
    await count(1);
    await count(3);
    expect(await count(3)).toBe(await count(1));
  });
});
