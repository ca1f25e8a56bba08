/**
 * Hidden issues (Issue#hidden?: the author is banned): GitLab's IssuePolicy prevents read_issue on them for all but
 * administrators (`hidden & ~admin`), and IssuesFinder leaves them out of lists, so to everyone else they are not
 * there: one issue, project, group and instance lists, their notes, GraphQL's lookups. Unbanning shows them again.
 */
import { Gitlab } from '@gitbeaker/rest';
import { beforeAll, describe, expect, it } from 'vitest';
import { addMember, createGroup, createProject, createUser, type TestUser } from '../support/factories.js';
import { suiteServer } from '../support/server.js';

const t = suiteServer();

let owner: TestUser;
let author: TestUser;
let admin: TestUser;
let group: { id: number; full_path: string };
let project: { id: number; path_with_namespace: string };
let hidden: { id: number; iid: number };
let visible: { id: number; iid: number };

const iids = (rows: { iid: number }[]) => rows.map((r) => r.iid).sort();

beforeAll(async () => {
  owner = await createUser(t);
  author = await createUser(t);
  admin = await createUser(t, { admin: true });
  group = await createGroup(t, owner.token, { visibility: 'public' });
  project = await createProject(t, owner.token, { namespaceId: group.id, visibility: 'public' });
  await addMember(t, owner.token, 'projects', project.id, author.id, 30);
  const one = await t.api('POST', `/projects/${project.id}/issues`, { token: author.token, body: { title: 'By the author to be banned' } });
  expect(one.status, one.text).toBe(201);
  hidden = one.body;
  const note = await t.api('POST', `/projects/${project.id}/issues/${hidden.iid}/notes`, { token: owner.token, body: { body: 'A comment' } });
  expect(note.status, note.text).toBe(201);
  const two = await t.api('POST', `/projects/${project.id}/issues`, { token: owner.token, body: { title: 'By the owner' } });
  visible = two.body;
  const banned = await t.api('POST', `/users/${author.id}/ban`);
  expect([banned.status, banned.body]).toEqual([201, true]);
});

describe('issues of a banned author', () => {
  it('are not found over REST by anyone but administrators, the project owner included', async () => {
    for (const token of [owner.token, null]) {
      const one = await t.api('GET', `/projects/${project.id}/issues/${hidden.iid}`, { token });
      expect([one.status, one.body]).toEqual([404, { message: '404 Issue Not Found' }]);
      expect(iids((await t.api('GET', `/projects/${project.id}/issues`, { token })).body)).toEqual([visible.iid]);
      expect(iids((await t.api('GET', `/groups/${group.id}/issues`, { token })).body)).toEqual([visible.iid]);
    }
    const notes = await t.api('GET', `/projects/${project.id}/issues/${hidden.iid}/notes`, { token: owner.token });
    expect([notes.status, notes.body]).toEqual([404, { message: '404 Issue Not Found' }]);
    const all = await t.api('GET', '/issues?scope=all', { token: owner.token });
    expect(all.body.map((i: { id: number }) => i.id)).not.toContain(hidden.id);
    expect(all.headers.get('x-total')).toBe(String(all.body.length));
    // Comments and changes go nowhere either.
    const comment = await t.api('POST', `/projects/${project.id}/issues/${hidden.iid}/notes`, { token: owner.token, body: { body: 'Another' } });
    expect(comment.status).toBe(404);
    const update = await t.api('PUT', `/projects/${project.id}/issues/${hidden.iid}`, { token: owner.token, body: { title: 'Changed' } });
    expect(update.status).toBe(404);
  });

  it('are read by administrators, in lists and one by one', async () => {
    const one = await t.api('GET', `/projects/${project.id}/issues/${hidden.iid}`, { token: admin.token });
    expect(one.status).toBe(200);
    expect(one.body.title).toBe('By the author to be banned');
    expect((await t.api('GET', `/projects/${project.id}/issues/${hidden.iid}/notes`, { token: admin.token })).body.map((n: { body: string }) => n.body)).toEqual(['A comment']);
    expect(iids((await t.api('GET', `/projects/${project.id}/issues`, { token: admin.token })).body)).toEqual([hidden.iid, visible.iid].sort());
    expect(iids((await t.api('GET', `/groups/${group.id}/issues`, { token: admin.token })).body)).toEqual([hidden.iid, visible.iid].sort());
    const api = new Gitlab({ host: t.url, token: admin.token });
    expect((await api.Issues.all({ projectId: project.id })).map((i) => i.iid).sort()).toEqual([hidden.iid, visible.iid].sort());
  });

  it('are not there over GraphQL for anyone but administrators', async () => {
    const query = `query($p: ID!, $g: ID!, $iid: String!, $id: IssueID!) {
      project(fullPath: $p) { issue(iid: $iid) { iid hidden notes { nodes { body } } } issues { count nodes { iid } } }
      group(fullPath: $g) { issues { count nodes { iid } } }
      issue(id: $id) { iid }
    }`;
    const variables = { p: project.path_with_namespace, g: group.full_path, iid: String(hidden.iid), id: `gid://gitlab/Issue/${hidden.id}` };
    const asOwner = await t.graphql(query, variables, owner.token);
    expect(asOwner.body.errors).toBeUndefined();
    expect(asOwner.body.data).toEqual({
      project: { issue: null, issues: { count: 1, nodes: [{ iid: String(visible.iid) }] } },
      group: { issues: { count: 1, nodes: [{ iid: String(visible.iid) }] } },
      issue: null,
    });
    const asAdmin = await t.graphql(query, variables, admin.token);
    expect(asAdmin.body.errors).toBeUndefined();
    expect(asAdmin.body.data.project.issue).toEqual({ iid: String(hidden.iid), hidden: true, notes: { nodes: [{ body: 'A comment' }] } });
    expect(asAdmin.body.data.project.issues.count).toBe(2);
    expect(asAdmin.body.data.group.issues.count).toBe(2);
    expect(asAdmin.body.data.issue).toEqual({ iid: String(hidden.iid) });
  });

  it('are shown again once the author is unbanned', async () => {
    expect((await t.api('POST', `/users/${author.id}/unban`)).status).toBe(201);
    const one = await t.api('GET', `/projects/${project.id}/issues/${hidden.iid}`, { token: owner.token });
    expect(one.status).toBe(200);
    const res = await t.graphql(`query($p: ID!, $iid: String!) { project(fullPath: $p) { issue(iid: $iid) { hidden } } }`, { p: project.path_with_namespace, iid: String(hidden.iid) }, owner.token);
    expect(res.body.data.project.issue).toEqual({ hidden: false });
    expect((await t.api('POST', `/users/${author.id}/ban`)).status).toBe(201);
  });
});
