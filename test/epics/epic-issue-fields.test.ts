/**
 * GitLab's EpicIssue: an Issue with every Issue field (through `@sameFieldsAs`, resolved by Issue's resolvers) plus
 * `epicIssueId`, `relationPath` and the issue's `id`, listed by `group { epic(iid:) { issues } }` with only the
 * issues the viewer may read.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { suiteServer } from '../support/server.js';
import { addMember, apiOk, createGroup, createProject, createUser, type TestUser } from '../support/factories.js';

let counting = false;
let statements = 0;
const t = suiteServer({}, { onQuery: () => counting && statements++ });

let owner: TestUser;
let outsider: TestUser;
let guest: TestUser;
let group: { id: number; full_path: string };
let open: { id: number; path_with_namespace: string };
let closed: { id: number; path_with_namespace: string };
let epicIid: number;
const issues: { id: number; iid: number; project_id: number }[] = [];

const QUERY = `query($path: ID!, $iid: ID) { group(fullPath: $path) { epic(iid: $iid) { issues { count nodes {
  id iid title state epicIssueId relationPath relativePosition webPath webUrl reference(full: true) confidential
  labels { nodes { title } } assignees { nodes { username } } milestone { title } author { username } projectId
  epic { iid }
} } } } }`;

beforeAll(async () => {
  [owner, outsider, guest] = await Promise.all([createUser(t), createUser(t), createUser(t)]);
  group = await createGroup(t, owner.token, { visibility: 'public' });
  open = await createProject(t, owner.token, { namespaceId: group.id, visibility: 'public' });
  closed = await createProject(t, owner.token, { namespaceId: group.id, visibility: 'private' });
  await addMember(t, owner.token, 'groups', group.id, guest.id, 10);
  const milestone = await apiOk(t, owner.token, 'POST', `/projects/${open.id}/milestones`, { title: 'v1' });
  const epic = await apiOk(t, owner.token, 'POST', `/groups/${group.id}/epics`, { title: 'Holder' });
  epicIid = epic.iid;
  issues.push(await apiOk(t, owner.token, 'POST', `/projects/${closed.id}/issues`, { title: 'private work' }));
  issues.push(await apiOk(t, owner.token, 'POST', `/projects/${open.id}/issues`, { title: 'secret work', confidential: true }));
  // Added last, so first in the epic's order.
  issues.push(await apiOk(t, owner.token, 'POST', `/projects/${open.id}/issues`, { title: 'public work', labels: 'bug', assignee_ids: [owner.id], milestone_id: milestone.id }));
  for (const issue of issues) await apiOk(t, owner.token, 'POST', `/groups/${group.id}/epics/${epic.iid}/issues/${issue.id}`);
});

const read = async (token: string | null) => {
  const res = await t.graphql(QUERY, { path: group.full_path, iid: String(epicIid) }, token);
  expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
  return res.body.data.group.epic.issues;
};

describe('EpicIssue', () => {
  it('answers every Issue field the way Issue does, with the relation’s own fields', async () => {
    const list = await read(owner.token);
    expect(list.count).toBe(3);
    const node = list.nodes.find((n: { title: string }) => n.title === 'public work');
    const links = await apiOk(t, owner.token, 'GET', `/groups/${group.id}/epics/${epicIid}/issues`);
    const link = links.find((l: { id: number }) => l.id === issues[2].id);
    expect(node).toEqual({
      id: `gid://gitlab/Issue/${issues[2].id}`,
      iid: String(issues[2].iid),
      title: 'public work',
      state: 'opened',
      epicIssueId: `gid://gitlab/EpicIssue/${link.epic_issue_id}`,
      relationPath: `/groups/${group.full_path}/-/epics/${epicIid}/issues/${link.epic_issue_id}`,
      relativePosition: link.relative_position,
      webPath: `/${open.path_with_namespace}/-/issues/${issues[2].iid}`,
      webUrl: expect.stringMatching(new RegExp(`/${open.path_with_namespace}/-/issues/${issues[2].iid}$`)),
      reference: `${open.path_with_namespace}#${issues[2].iid}`,
      confidential: false,
      labels: { nodes: [{ title: 'bug' }] },
      assignees: { nodes: [{ username: owner.username }] },
      milestone: { title: 'v1' },
      author: { username: owner.username },
      projectId: open.id,
      epic: { iid: String(epicIid) },
    });
  });

  it('lists only the issues the viewer may read, and their relation path only to who may relate them', async () => {
    const seen = await read(outsider.token);
    expect(seen.count).toBe(1);
    expect(seen.nodes.map((n: { title: string; relationPath: string | null }) => [n.title, n.relationPath])).toEqual([['public work', null]]);
    const anonymous = await read(null);
    expect(anonymous.nodes.map((n: { title: string }) => n.title)).toEqual(['public work']);
    // A Guest of the group reads the private project's issue but not the confidential one, and relates what it reads.
    const member = await read(guest.token);
    expect(member.nodes.map((n: { title: string }) => n.title).sort()).toEqual(['private work', 'public work']);
    expect(member.nodes.every((n: { relationPath: string | null }) => n.relationPath?.startsWith(`/groups/${group.full_path}/-/epics/`))).toBe(true);
  });

  it('reads a page of epic issues with their Issue fields in as many statements for three issues as for one', async () => {
    // Three issues alike, so a page of one and of three read the same kinds of rows.
    const milestone = await apiOk(t, owner.token, 'POST', `/projects/${open.id}/milestones`, { title: 'v2' });
    const epic = await apiOk(t, owner.token, 'POST', `/groups/${group.id}/epics`, { title: 'Alike' });
    for (const title of ['one', 'two', 'three']) {
      const issue = await apiOk(t, owner.token, 'POST', `/projects/${open.id}/issues`, { title, labels: 'bug', assignee_ids: [owner.id], milestone_id: milestone.id });
      await apiOk(t, owner.token, 'POST', `/groups/${group.id}/epics/${epic.iid}/issues/${issue.id}`);
    }
    const query = `query($path: ID!, $iid: ID, $first: Int) { group(fullPath: $path) { epic(iid: $iid) { issues(first: $first) { nodes {
      id epicIssueId relationPath webPath reference labels { nodes { title } } assignees { nodes { username } } milestone { title } author { username }
    } } } } }`;
    const count = async (first: number) => {
      statements = 0;
      counting = true;
      const res = await t.graphql(query, { path: group.full_path, iid: String(epic.iid), first }, owner.token);
      counting = false;
      expect(res.body.errors).toBeUndefined();
      expect(res.body.data.group.epic.issues.nodes).toHaveLength(first);
      return statements;
    };
    // Warm both sizes first: the token, memberships and (on PostgreSQL) pool connections are remembered after.
    await count(1);
    await count(3);
    expect(await count(3)).toBe(await count(1));
  });
});
