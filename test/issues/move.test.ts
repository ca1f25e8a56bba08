/** Moving and cloning issues (Issues::MoveService, CloneService): REST, gitbeaker and GraphQL's issueMove. */
import { beforeAll, describe, expect, it } from 'vitest';
import { Gitlab } from '@gitbeaker/rest';
import { suiteServer } from '../support/server.js';
import { addMember, apiOk, createGroup, createProject, createUser, type TestUser } from '../support/factories.js';

const t = suiteServer();

let owner: TestUser;
let reporter: TestUser;
let guest: TestUser;
let stranger: TestUser;
let group: { id: number; full_path: string };
let source: { id: number; path: string; path_with_namespace: string };
let target: { id: number; path: string; path_with_namespace: string };
let elsewhere: { id: number; path_with_namespace: string };

beforeAll(async () => {
  [owner, reporter, guest, stranger] = await Promise.all([1, 2, 3, 4].map(() => createUser(t)));
  group = await createGroup(t, owner.token);
  [source, target] = await Promise.all([createProject(t, owner.token, { namespaceId: group.id }), createProject(t, owner.token, { namespaceId: group.id })]);
  elsewhere = await createProject(t, stranger.token);
  for (const p of [source, target]) {
    await addMember(t, owner.token, 'projects', p.id, reporter.id, 20);
    await addMember(t, owner.token, 'projects', p.id, guest.id, 10);
  }
});

const issuePath = (p: { id: number }, iid: number, suffix = '') => `/projects/${p.id}/issues/${iid}${suffix}`;

async function richIssue(): Promise<{ iid: number; id: number }> {
  const tok = owner.token;
  await apiOk(t, tok, 'POST', `/projects/${source.id}/labels`, { name: 'bug', color: '#ff0000' }).catch(() => undefined);
  await apiOk(t, tok, 'POST', `/projects/${source.id}/labels`, { name: 'only-here', color: '#00ff00' }).catch(() => undefined);
  await apiOk(t, tok, 'POST', `/projects/${target.id}/labels`, { name: 'bug', color: '#0000ff' }).catch(() => undefined);
  const milestone = await apiOk(t, tok, 'POST', `/projects/${source.id}/milestones`, { title: `m-${Date.now()}` });
  await apiOk(t, tok, 'POST', `/projects/${target.id}/milestones`, { title: milestone.title });
  const other = await apiOk(t, tok, 'POST', `/projects/${source.id}/issues`, { title: 'Referenced' });
  const issue = await apiOk(t, reporter.token, 'POST', `/projects/${source.id}/issues`, {
    title: 'Movable',
    description: `See #${other.iid} and \`#99\`, and ${source.path_with_namespace}#${other.iid}`,
    labels: 'bug,only-here',
    milestone_id: milestone.id,
    assignee_ids: [guest.id],
    weight: 5,
    due_date: '2031-02-03',
    confidential: false,
  });
  await apiOk(t, tok, 'PUT', issuePath(source, issue.iid), { weight: 7 });
  const thread = await apiOk(t, tok, 'POST', issuePath(source, issue.iid, '/discussions'), { body: `Thread about #${other.iid}` });
  await apiOk(t, reporter.token, 'POST', issuePath(source, issue.iid, `/discussions/${thread.id}/notes`), { body: 'A reply' });
  const note = await apiOk(t, tok, 'POST', issuePath(source, issue.iid, '/notes'), { body: 'Standalone' });
  await apiOk(t, guest.token, 'POST', issuePath(source, issue.iid, '/award_emoji'), { name: 'thumbsup' });
  await apiOk(t, guest.token, 'POST', issuePath(source, issue.iid, `/notes/${note.id}/award_emoji`), { name: 'tada' });
  await apiOk(t, tok, 'POST', issuePath(source, issue.iid, '/links'), { target_project_id: source.id, target_issue_iid: other.iid });
  return issue;
}

describe('moving an issue over REST', () => {
  it('makes the issue anew in the target project with its notes, labels, milestone, awards, events and links, and closes the original', async () => {
    const issue = await richIssue();
    const before = await apiOk(t, owner.token, 'GET', issuePath(source, issue.iid, '/discussions'));
    const res = await t.api('POST', issuePath(source, issue.iid, '/move'), { token: reporter.token, body: { to_project_id: target.id } });
    expect(res.status, res.text).toBe(201);
    const moved = res.body;
    expect(moved).toMatchObject({
      project_id: target.id,
      title: 'Movable',
      state: 'opened',
      author: { id: reporter.id },
      assignees: [{ id: guest.id }],
      labels: ['bug'],
      weight: 7,
      due_date: '2031-02-03',
      moved_to_id: null,
      upvotes: 1,
      references: { full: `${target.path_with_namespace}#${moved.iid}` },
    });
    expect(moved.milestone.project_id).toBe(target.id);
    // References that pointed at the old project still do (`#N` made cross-project; code left as written).
    expect(moved.description).toBe(`See ${source.path}#${issue.iid - 1} and \`#99\`, and ${source.path_with_namespace}#${issue.iid - 1}`);

    const original = await apiOk(t, owner.token, 'GET', issuePath(source, issue.iid));
    expect(original).toMatchObject({ state: 'closed', moved_to_id: moved.id, closed_by: { id: reporter.id } });

    // Notes: threads kept as threads under new ids, the system notes too, then `moved from`.
    const after = await apiOk(t, owner.token, 'GET', issuePath(target, moved.iid, '/discussions'));
    const bodies = (ds: any[]) => ds.map((d) => d.notes.map((n: any) => n.body));
    const copied = bodies(after);
    expect(copied.slice(0, -1)).toEqual(bodies(before).map((ns) => ns.map((b: string) => b.replace(/(^|[^\w/])#(\d+)/g, `$1${source.path}#$2`))));
    expect(copied[copied.length - 1]).toEqual([`moved from ${source.path}#${issue.iid}`]);
    expect(after.map((d: any) => d.id)).not.toContain(before[0].id);
    const thread = after.find((d: any) => d.notes.length === 2);
    expect(thread.notes.map((n: any) => n.body)).toEqual([`Thread about ${source.path}#${issue.iid - 1}`, 'A reply']);
    const standalone = after.find((d: any) => d.notes[0].body === 'Standalone').notes[0];
    expect(await apiOk(t, owner.token, 'GET', issuePath(target, moved.iid, `/notes/${standalone.id}/award_emoji`))).toMatchObject([{ name: 'tada', user: { id: guest.id } }]);
    const originalNotes = await apiOk(t, owner.token, 'GET', issuePath(source, issue.iid, '/notes?sort=desc&order_by=created_at'));
    expect(originalNotes.map((n: any) => n.body)).toContain(`moved to ${target.path}#${moved.iid}`);

    // Award emoji, resource events and links.
    expect(await apiOk(t, owner.token, 'GET', issuePath(target, moved.iid, '/award_emoji'))).toMatchObject([{ name: 'thumbsup', user: { id: guest.id } }]);
    const weights = await apiOk(t, owner.token, 'GET', issuePath(target, moved.iid, '/resource_weight_events'));
    expect(weights.map((e: any) => e.weight)).toEqual([5, 7]);
    const labels = await apiOk(t, owner.token, 'GET', issuePath(target, moved.iid, '/resource_label_events'));
    expect(labels.map((e: any) => [e.action, e.label?.name])).toEqual(expect.arrayContaining([['add', 'bug'], ['add', 'only-here']]));
    const milestones = await apiOk(t, owner.token, 'GET', issuePath(target, moved.iid, '/resource_milestone_events'));
    expect(milestones).toMatchObject([{ action: 'add', milestone: { id: moved.milestone.id } }]);
    const closedEvents = await apiOk(t, owner.token, 'GET', issuePath(source, issue.iid, '/resource_state_events'));
    expect(closedEvents).toMatchObject([{ state: 'closed', user: { id: reporter.id } }]);
    const links = await apiOk(t, owner.token, 'GET', issuePath(target, moved.iid, '/links'));
    expect(links).toMatchObject([{ iid: issue.iid - 1, project_id: source.id }]);
    expect(await apiOk(t, owner.token, 'GET', issuePath(source, issue.iid, '/links'))).toEqual([]);
  });

  it('answers GitLab’s refusals', async () => {
    const issue = await apiOk(t, reporter.token, 'POST', `/projects/${source.id}/issues`, { title: 'Stays' });
    const move = (token: string, to: unknown, iid = issue.iid) => t.api('POST', issuePath(source, iid, '/move'), { token, body: { to_project_id: to } });
    let res = await move(reporter.token, source.id);
    expect([res.status, res.body]).toEqual([400, { message: 'Cannot move issue to project it originates from!' }]);
    res = await move(guest.token, target.id);
    expect([res.status, res.body]).toEqual([400, { message: 'Cannot move issue due to insufficient permissions!' }]);
    // A project the caller cannot add issues to, seen or not (GitLab finds it by ID alone).
    res = await move(reporter.token, elsewhere.id);
    expect([res.status, res.body]).toEqual([400, { message: 'Cannot move issue due to insufficient permissions!' }]);
    res = await move(reporter.token, 2147483000);
    expect([res.status, res.body]).toEqual([404, { message: '404 Project Not Found' }]);
    res = await move(reporter.token, target.id, 9999);
    expect([res.status, res.body]).toEqual([404, { message: '404 Issue Not Found' }]);
    res = await t.api('POST', issuePath(source, issue.iid, '/move'), { token: reporter.token, body: {} });
    expect([res.status, res.body]).toEqual([400, { error: 'to_project_id is missing' }]);
    res = await t.api('POST', issuePath(source, issue.iid, '/move'), { token: null, body: { to_project_id: target.id } });
    expect(res.status).toBe(401);
    res = await move(stranger.token, target.id);
    expect(res.status).toBe(404);
    // Moved once, an issue moves no more (Issue#can_move?), and clones no more either.
    const moved = await move(reporter.token, target.id);
    expect(moved.status, moved.text).toBe(201);
    res = await move(owner.token, target.id);
    expect([res.status, res.body]).toEqual([400, { message: 'Cannot move issue due to insufficient permissions!' }]);
    res = await t.api('POST', issuePath(source, issue.iid, '/clone'), { token: owner.token, body: { to_project_id: target.id } });
    expect([res.status, res.body]).toEqual([400, { message: 'Cannot clone issue due to insufficient permissions!' }]);
  });
});

describe('cloning an issue over REST', () => {
  it('copies the issue as the caller’s, notes and events only when asked, and leaves the original as it was', async () => {
    const issue = await richIssue();
    const bare = await t.api('POST', issuePath(source, issue.iid, '/clone'), { token: reporter.token, body: { to_project_id: target.id } });
    expect(bare.status, bare.text).toBe(201);
    expect(bare.body).toMatchObject({ project_id: target.id, title: 'Movable', state: 'opened', author: { id: reporter.id }, labels: ['bug'], weight: 7, upvotes: 0 });
    const bareNotes = await apiOk(t, owner.token, 'GET', issuePath(target, bare.body.iid, '/notes'));
    expect(bareNotes.map((n: any) => n.body)).toEqual([`cloned from ${source.path}#${issue.iid}`]);
    expect(await apiOk(t, owner.token, 'GET', issuePath(target, bare.body.iid, '/resource_weight_events'))).toEqual([]);

    const api = new Gitlab({ host: t.url, token: owner.token });
    const full = (await api.Issues.clone(source.id, issue.iid, target.id, { withNotes: true })) as any;
    expect(full).toMatchObject({ project_id: target.id, author: { id: owner.id }, state: 'opened' });
    const notes = await apiOk(t, owner.token, 'GET', issuePath(target, full.iid, '/notes?sort=asc&order_by=created_at'));
    expect(notes.map((n: any) => n.body)).toEqual(expect.arrayContaining(['Standalone', 'A reply', `cloned from ${source.path}#${issue.iid}`]));
    expect((await apiOk(t, owner.token, 'GET', issuePath(target, full.iid, '/resource_weight_events'))).map((e: any) => e.weight)).toEqual([5, 7]);

    // Into its own project too; the original stays open, unmoved, with its `cloned to` notes.
    const same = await api.Issues.clone(source.id, issue.iid, source.id);
    expect(same).toMatchObject({ project_id: source.id, description: `See #${issue.iid - 1} and \`#99\`, and ${source.path_with_namespace}#${issue.iid - 1}` });
    const original = await apiOk(t, owner.token, 'GET', issuePath(source, issue.iid));
    expect(original).toMatchObject({ state: 'opened', moved_to_id: null });
    const originalNotes = await apiOk(t, owner.token, 'GET', issuePath(source, issue.iid, '/notes?sort=asc&order_by=created_at'));
    expect(originalNotes.map((n: any) => n.body).filter((b: string) => b.startsWith('cloned to'))).toEqual([
      `cloned to ${target.path}#${bare.body.iid}`,
      `cloned to ${target.path}#${full.iid}`,
      `cloned to #${(same as any).iid}`,
    ]);
    const denied = await t.api('POST', issuePath(source, issue.iid, '/clone'), { token: guest.token, body: { to_project_id: target.id } });
    expect([denied.status, denied.body]).toEqual([400, { message: 'Cannot clone issue due to insufficient permissions!' }]);
  });

  it('moves with gitbeaker', async () => {
    const issue = await apiOk(t, reporter.token, 'POST', `/projects/${source.id}/issues`, { title: 'Gitbeaker' });
    const api = new Gitlab({ host: t.url, token: reporter.token });
    const moved = (await api.Issues.move(source.id, issue.iid, target.id)) as any;
    expect(moved).toMatchObject({ project_id: target.id, title: 'Gitbeaker' });
    expect(await api.Issues.show(issue.iid, { projectId: source.id })).toMatchObject({ state: 'closed', moved_to_id: moved.id });
  });
});

describe('what goes with a moved issue', () => {
  it('takes its epic along, and shows the new issue only to those who may read it', async () => {
    const issue = await apiOk(t, reporter.token, 'POST', `/projects/${source.id}/issues`, { title: 'In an epic' });
    const epic = await apiOk(t, owner.token, 'POST', `/groups/${group.id}/epics`, { title: 'Epic' });
    await apiOk(t, owner.token, 'POST', `/groups/${group.id}/epics/${epic.iid}/issues/${issue.id}`);
    const moved = await apiOk(t, owner.token, 'POST', issuePath(source, issue.iid, '/move'), { to_project_id: target.id });
    expect(moved.epic_iid).toBe(epic.iid);
    expect((await apiOk(t, owner.token, 'GET', issuePath(source, issue.iid))).epic_iid).toBeNull();
    const children = await apiOk(t, owner.token, 'GET', `/groups/${group.id}/epics/${epic.iid}/issues`);
    expect(children.map((c: any) => c.id)).toEqual([moved.id]);

    // A Reporter of the old project alone reads that it moved, not where to.
    const outsider = await createUser(t);
    await addMember(t, owner.token, 'projects', source.id, outsider.id, 20);
    const q = `query($p: ID!, $iid: String!) { project(fullPath: $p) { issue(iid: $iid) { moved movedTo { iid } } } }`;
    const read = await t.graphql(q, { p: source.path_with_namespace, iid: String(issue.iid) }, outsider.token);
    expect(read.body.data.project.issue).toEqual({ moved: true, movedTo: null });
    // And moves nothing into a project where they are nobody.
    const other = await apiOk(t, outsider.token, 'POST', `/projects/${source.id}/issues`, { title: 'Outsider' });
    const res = await t.api('POST', issuePath(source, other.iid, '/move'), { token: outsider.token, body: { to_project_id: target.id } });
    expect([res.status, res.body]).toEqual([400, { message: 'Cannot move issue due to insufficient permissions!' }]);
  });
});

describe('GraphQL issueMove', () => {
  const MOVE = `mutation($p: ID!, $iid: String!, $to: ID!) {
    issueMove(input: { projectPath: $p, iid: $iid, targetProjectPath: $to, clientMutationId: "m" }) {
      clientMutationId errors issue { iid moved movedTo { iid } webUrl reference(full: true) }
    }
  }`;

  it('moves the issue and links the two; refusals in errors, a missing issue top-level', async () => {
    const issue = await apiOk(t, reporter.token, 'POST', `/projects/${source.id}/issues`, { title: 'Over GraphQL' });
    const res = await t.graphql(MOVE, { p: source.path_with_namespace, iid: String(issue.iid), to: target.path_with_namespace }, reporter.token);
    expect(res.body.errors).toBeUndefined();
    const payload = res.body.data.issueMove;
    expect(payload).toMatchObject({ clientMutationId: 'm', errors: [], issue: { moved: false, movedTo: null } });
    expect(payload.issue.reference).toBe(`${target.path_with_namespace}#${payload.issue.iid}`);
    const read = await t.graphql(`query($p: ID!, $iid: String!) { project(fullPath: $p) { issue(iid: $iid) { state moved movedTo { iid } } } }`, { p: source.path_with_namespace, iid: String(issue.iid) }, reporter.token);
    expect(read.body.data.project.issue).toEqual({ state: 'closed', moved: true, movedTo: { iid: payload.issue.iid } });

    const again = await t.graphql(MOVE, { p: source.path_with_namespace, iid: String(issue.iid), to: target.path_with_namespace }, reporter.token);
    expect(again.body.data.issueMove).toEqual({ clientMutationId: 'm', errors: ['Cannot move issue due to insufficient permissions!'], issue: null });
    const fresh = await apiOk(t, reporter.token, 'POST', `/projects/${source.id}/issues`, { title: 'Same place' });
    const same = await t.graphql(MOVE, { p: source.path_with_namespace, iid: String(fresh.iid), to: source.path_with_namespace }, reporter.token);
    expect(same.body.data.issueMove.errors).toEqual(['Cannot move issue to project it originates from!']);
    const missing = await t.graphql(MOVE, { p: source.path_with_namespace, iid: '9999', to: target.path_with_namespace }, reporter.token);
    expect(missing.body.errors?.[0].message).toBe("The resource that you are attempting to access does not exist or you don't have permission to perform this action");
  });
});
