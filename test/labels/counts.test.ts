/**
 * Label counts (`with_counts=true`) as GitLab's Label#open_issues_count and the others count them: through the finders,
 * as the current user, within the parent the label is listed in (the project; a group's own projects for a group's
 * listing). Confidential issues and projects the viewer cannot read stay out; merge requests are counted; a deleted
 * issue takes its label links with it.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { suiteServer } from '../support/server.js';
import { addMember, apiOk, createGroup, createProject, createUser, type TestUser } from '../support/factories.js';

const t = suiteServer();

let owner: TestUser;
let reporter: TestUser;
let stranger: TestUser;
let group: { id: number };
let open: { id: number };
let hidden: { id: number };
let sub: { id: number };

const ok = (method: string, path: string, token: string, body?: object) => apiOk(t, token, method, path, body);

/** The counts of the label named `bug` in a listing. */
async function counts(path: string, token: string | null) {
  const res = await t.api('GET', `${path}/labels?with_counts=true`, { token });
  expect(res.status, res.text).toBe(200);
  const bug = res.body.find((l: { name: string }) => l.name === 'bug');
  return { open: bug.open_issues_count, closed: bug.closed_issues_count, mrs: bug.open_merge_requests_count };
}

beforeAll(async () => {
  [owner, reporter, stranger] = await Promise.all([1, 2, 3].map(() => createUser(t)));
  group = await createGroup(t, owner.token, { visibility: 'public' });
  open = await createProject(t, owner.token, { namespaceId: group.id, visibility: 'public' });
  hidden = await createProject(t, owner.token, { namespaceId: group.id, visibility: 'private' });
  const child = await createGroup(t, owner.token, { parentId: group.id, visibility: 'public' });
  sub = await createProject(t, owner.token, { namespaceId: child.id, visibility: 'public' });
  await addMember(t, owner.token, 'projects', open.id, reporter.id, 20);
  await ok('POST', `/groups/${group.id}/labels`, owner.token, { name: 'bug', color: '#ff0000' });
  const issue = (p: { id: number }, body: object) => ok('POST', `/projects/${p.id}/issues`, owner.token, { labels: 'bug', ...body });
  await issue(open, { title: 'open' });
  await issue(open, { title: 'secret', confidential: true });
  const closed = await issue(open, { title: 'closed' });
  await ok('PUT', `/projects/${open.id}/issues/${closed.iid}`, owner.token, { state_event: 'close' });
  await issue(hidden, { title: 'in a private project' });
  await issue(sub, { title: 'in a subgroup' });
  await ok('POST', `/projects/${open.id}/repository/commits`, owner.token, {
    branch: 'main',
    commit_message: 'init',
    actions: [{ action: 'create', file_path: 'README.md', content: 'hi\n' }],
  });
  await ok('POST', `/projects/${open.id}/repository/commits`, owner.token, {
    branch: 'feature',
    start_branch: 'main',
    commit_message: 'change',
    actions: [{ action: 'update', file_path: 'README.md', content: 'hello\n' }],
  });
  await ok('POST', `/projects/${open.id}/merge_requests`, owner.token, { source_branch: 'feature', target_branch: 'main', title: 'fix', labels: 'bug' });
});

describe('label counts', () => {
  it('count within the project the label is listed in, what the viewer may read', async () => {
    // A Reporter reads the confidential issue; a stranger to the public project does not.
    expect(await counts(`/projects/${open.id}`, reporter.token)).toEqual({ open: 2, closed: 1, mrs: 1 });
    expect(await counts(`/projects/${open.id}`, stranger.token)).toEqual({ open: 1, closed: 1, mrs: 1 });
    // The same group label listed in another project counts that project's issues only.
    expect(await counts(`/projects/${hidden.id}`, owner.token)).toEqual({ open: 1, closed: 0, mrs: 0 });
  });

  it('count a group listing over the group’s own projects the viewer may read', async () => {
    expect(await counts(`/groups/${group.id}`, owner.token)).toEqual({ open: 3, closed: 1, mrs: 1 });
    expect(await counts(`/groups/${group.id}`, reporter.token)).toEqual({ open: 2, closed: 1, mrs: 1 });
    expect(await counts(`/groups/${group.id}`, stranger.token)).toEqual({ open: 1, closed: 1, mrs: 1 });
  });

  it('filter lists by label in SQL: None, Any and titles, on issues and merge requests', async () => {
    const titles = async (path: string) => (await ok('GET', path, owner.token)).map((i: { title: string }) => i.title).sort();
    await ok('POST', `/projects/${open.id}/issues`, owner.token, { title: 'plain' });
    expect(await titles(`/projects/${open.id}/issues?labels=None&state=all`)).toEqual(['plain']);
    expect(await titles(`/projects/${open.id}/issues?labels=Any&state=all`)).toEqual(['closed', 'open', 'secret']);
    expect(await titles(`/projects/${open.id}/issues?labels=bug,other&state=all`)).toEqual([]);
    expect(await titles(`/projects/${open.id}/merge_requests?labels=bug`)).toEqual(['fix']);
    expect(await titles(`/projects/${open.id}/merge_requests?labels=None`)).toEqual([]);
  });

  it('drop a deleted issue’s links with it', async () => {
    const issues = await ok('GET', `/projects/${hidden.id}/issues`, owner.token);
    const del = await t.api('DELETE', `/projects/${hidden.id}/issues/${issues[0].iid}`, { token: owner.token });
    expect(del.status, del.text).toBe(204);
    expect(await counts(`/projects/${hidden.id}`, owner.token)).toEqual({ open: 0, closed: 0, mrs: 0 });
  });
});
