/**
 * GitLab 16.3's issue inputs: createIssue's `iid` (administrators and Owners; the next iid for others), `locked`,
 * `moveBeforeId`/`moveAfterId` (relative positions), and a follow-up issue from a merge request's threads
 * (`mergeRequestToResolveDiscussionsOf`, `discussionToResolve`, REST's `merge_request_to_resolve_discussions_of`):
 * the description built from the threads, the threads resolved with a system note. updateIssue's `labelIds`,
 * `addLabelIds`, `removeLabelIds` and `milestoneId` as plain `ID`s (global or numeric), its `timeEstimate` and
 * mergeRequestUpdate's; `Issue.discussionLocked` non-null while REST keeps `discussion_locked: null` until set;
 * `Issue.author` the ghost user once its author is deleted.
 */
import { Gitlab } from '@gitbeaker/rest';
import { beforeAll, describe, expect, it } from 'vitest';
import { EXTERNAL_URL, suiteServer } from '../support/server.js';
import { addMember, apiOk, createProject, createUser, type TestUser } from '../support/factories.js';

const t = suiteServer();

let owner: TestUser;
let maintainer: TestUser;
let developer: TestUser;
let project: { id: number; path_with_namespace: string };

const CREATE = `mutation($input: CreateIssueInput!) { createIssue(input: $input) { errors issue { id iid title description discussionLocked relativePosition author { username } } } }`;
const UPDATE = `mutation($input: UpdateIssueInput!) { updateIssue(input: $input) { errors issue { labels { nodes { title } } milestone { title } timeEstimate } } }`;

async function create(token: string, input: Record<string, unknown>) {
  return t.graphql(CREATE, { input: { projectPath: project.path_with_namespace, ...input } }, token);
}

async function update(token: string, iid: string, input: Record<string, unknown>) {
  return t.graphql(UPDATE, { input: { projectPath: project.path_with_namespace, iid, ...input } }, token);
}

beforeAll(async () => {
  [owner, maintainer, developer] = await Promise.all([createUser(t), createUser(t), createUser(t)]);
  project = await createProject(t, owner.token);
  await addMember(t, owner.token, 'projects', project.id, maintainer.id, 40);
  await addMember(t, owner.token, 'projects', project.id, developer.id, 30);
});

describe('createIssue inputs', () => {
  it('takes an iid from an Owner, the next iid from others, and refuses a taken one', async () => {
    const own = await create(owner.token, { title: 'Numbered', iid: 50 });
    expect(own.body.errors).toBeUndefined();
    expect(own.body.data.createIssue).toMatchObject({ errors: [], issue: { iid: '50' } });
    // A Maintainer's iid is dropped, as Issues::BaseService#filter_params drops it without set_issue_iid.
    const other = await create(maintainer.token, { title: 'Not numbered', iid: 7 });
    expect(other.body.data.createIssue).toMatchObject({ errors: [], issue: { iid: '51' } });
    const taken = await create(owner.token, { title: 'Again', iid: 50 });
    expect(taken.body.data.createIssue).toEqual({ errors: ['Duplicated issue'], issue: null });

    // REST's `iid`, as POST /projects/:id/issues takes it.
    const rest = await t.api('POST', `/projects/${project.id}/issues`, { token: owner.token, body: { title: 'REST numbered', iid: 60 } });
    expect([rest.status, rest.body.iid]).toEqual([201, 60]);
    const restOther = await t.api('POST', `/projects/${project.id}/issues`, { token: developer.token, body: { title: 'REST plain', iid: 70 } });
    expect([restOther.status, restOther.body.iid]).toEqual([201, 61]);
    const duplicate = await t.api('POST', `/projects/${project.id}/issues`, { token: owner.token, body: { title: 'REST again', iid: 60 } });
    expect([duplicate.status, duplicate.body]).toEqual([409, { message: 'Duplicated issue' }]);
  });

  it('locks the discussion, and REST shows discussion_locked null until it is set', async () => {
    const locked = await create(developer.token, { title: 'Locked', locked: true });
    expect(locked.body.data.createIssue).toMatchObject({ errors: [], issue: { discussionLocked: true } });
    const plain = await create(developer.token, { title: 'Unlocked' });
    expect(plain.body.data.createIssue.issue.discussionLocked).toBe(false);
    const [restLocked, restPlain] = await Promise.all(
      [locked, plain].map((r) => t.api('GET', `/projects/${project.id}/issues/${r.body.data.createIssue.issue.iid}`, { token: developer.token })),
    );
    expect([restLocked.body.discussion_locked, restPlain.body.discussion_locked]).toEqual([true, null]);
    const viaRest = await t.api('POST', `/projects/${project.id}/issues`, { token: developer.token, body: { title: 'REST locked', discussion_locked: true } });
    expect(viaRest.body.discussion_locked).toBe(true);
  });

  it('places a new issue between others (moveBeforeId, moveAfterId), as RELATIVE_POSITION_ASC lists them', async () => {
    const positioned = await createProject(t, owner.token);
    const path = positioned.path_with_namespace;
    const make = async (title: string, extra: Record<string, unknown> = {}) => {
      const r = await t.graphql(CREATE, { input: { projectPath: path, title, ...extra } }, owner.token);
      expect(r.body.errors).toBeUndefined();
      return r.body.data.createIssue.issue as { id: string; iid: string; relativePosition: number | null };
    };
    const a = await make('A');
    const b = await make('B');
    expect([a.relativePosition, b.relativePosition]).toEqual([null, null]);
    const c = await make('C', { moveBeforeId: a.id, moveAfterId: b.id });
    const d = await make('D', { moveAfterId: a.id });
    const e = await make('E', { moveBeforeId: b.id });
    // A neighbour named by an issue of another project counts as none: with no neighbour at all, no position.
    const elsewhere = (await create(developer.token, { title: 'Elsewhere' })).body.data.createIssue.issue;
    const f = await make('F', { moveBeforeId: elsewhere.id });
    expect(f.relativePosition).toBeNull();
    const listed = await t.graphql(`query($p: ID!) { project(fullPath: $p) { issues(sort: RELATIVE_POSITION_ASC) { nodes { title relativePosition } } } }`, { p: path }, owner.token);
    expect(listed.body.errors).toBeUndefined();
    const nodes = listed.body.data.project.issues.nodes as { title: string; relativePosition: number | null }[];
    expect(nodes.map((n) => n.title)).toEqual(['D', 'A', 'C', 'B', 'E', 'F']);
    const positions = nodes.slice(0, 5).map((n) => n.relativePosition!);
    expect(positions).toEqual([...positions].sort((x, y) => x - y));
    expect(new Set(positions).size).toBe(5);
    expect([c.relativePosition, d.relativePosition, e.relativePosition].every((p) => Number.isInteger(p))).toBe(true);
    // A global ID of another type is refused by the IssueID scalar.
    const wrong = await t.graphql(CREATE, { input: { projectPath: path, title: 'X', moveAfterId: 'gid://gitlab/MergeRequest/1' } }, owner.token);
    expect(wrong.body.errors?.[0].message).toContain('does not represent an instance of Issue');
  });
});

describe('a follow-up issue from a merge request’s threads', () => {
  let mrIid: number;
  let mrId: number;
  let threads: { id: string; notes: { id: number }[] }[];

  beforeAll(async () => {
    await apiOk(t, owner.token, 'POST', `/projects/${project.id}/repository/commits`, { branch: 'main', commit_message: 'init', actions: [{ action: 'create', file_path: 'a.txt', content: 'a\n' }] });
    await apiOk(t, owner.token, 'POST', `/projects/${project.id}/repository/commits`, { branch: 'topic', start_branch: 'main', commit_message: 'b', actions: [{ action: 'create', file_path: 'b.txt', content: 'b\n' }] });
    const mr = await apiOk(t, developer.token, 'POST', `/projects/${project.id}/merge_requests`, { source_branch: 'topic', target_branch: 'main', title: 'Topic work' });
    [mrIid, mrId] = [mr.iid, mr.id];
    const discussions = `/projects/${project.id}/merge_requests/${mrIid}/discussions`;
    threads = [];
    threads.push(await apiOk(t, maintainer.token, 'POST', discussions, { body: 'Why this?\nAnd that?' }));
    threads.push(await apiOk(t, owner.token, 'POST', discussions, { body: 'Rename it' }));
    await apiOk(t, developer.token, 'POST', `${discussions}/${threads[1].id}/notes`, { body: 'Will do' });
    threads.push(await apiOk(t, maintainer.token, 'POST', discussions, { body: 'Already settled' }));
    await apiOk(t, owner.token, 'PUT', `${discussions}/${threads[2].id}`, { resolved: true });
  });

  it('refuses a thread without its merge request', async () => {
    const r = await create(developer.token, { title: 'Lost', discussionToResolve: threads[0].id });
    expect(r.body.errors?.[0].message).toBe('to resolve a discussion please also provide `merge_request_to_resolve_discussions_of` parameter');
    expect(r.body.data?.createIssue ?? null).toBeNull();
  });

  it('describes every unresolved thread and resolves them with a system note (GraphQL, by global ID)', async () => {
    const r = await create(developer.token, { title: 'Follow-up', mergeRequestToResolveDiscussionsOf: `gid://gitlab/MergeRequest/${mrId}` });
    expect(r.body.errors).toBeUndefined();
    const issue = r.body.data.createIssue.issue;
    const url = (noteId: number) => `${EXTERNAL_URL}/${project.path_with_namespace}/-/merge_requests/${mrIid}#note_${noteId}`;
    expect(issue.description).toBe(
      [
        `The following discussions from !${mrIid} should be addressed:`,
        `- [ ] @${maintainer.username} started a [discussion](${url(threads[0].notes[0].id)}): \n\n    > Why this?\n    > And that?`,
        `- [ ] @${owner.username} started a [discussion](${url(threads[1].notes[0].id)}):  (+1 comment)\n\n    > Rename it`,
      ].join('\n\n'),
    );
    const listed = (await t.api('GET', `/projects/${project.id}/merge_requests/${mrIid}/discussions`, { token: developer.token })).body as any[];
    for (const thread of threads.slice(0, 2)) {
      const now = listed.find((d) => d.id === thread.id);
      expect(now.notes.filter((n: any) => n.resolvable).every((n: any) => n.resolved && n.resolved_by?.username === developer.username)).toBe(true);
      const last = now.notes[now.notes.length - 1];
      expect(last).toMatchObject({ system: true, type: 'DiscussionNote', body: `created #${issue.iid} to continue this discussion`, author: expect.objectContaining({ username: developer.username }) });
    }
    // The thread resolved before is neither listed nor noted.
    expect(listed.find((d) => d.id === threads[2].id).notes).toHaveLength(1);
    const mr = (await t.api('GET', `/projects/${project.id}/merge_requests/${mrIid}`, { token: developer.token })).body;
    expect(mr.blocking_discussions_resolved).toBe(true);
    // With nothing left to resolve, the description says so.
    const again = await create(developer.token, { title: 'Nothing left', mergeRequestToResolveDiscussionsOf: `gid://gitlab/MergeRequest/${mrId}` });
    expect(again.body.data.createIssue.issue.description).toBe(`There are no unresolved discussions. Review the conversation in !${mrIid}`);
  });

  it('resolves one thread through REST (merge_request_to_resolve_discussions_of by iid, discussion_to_resolve), keeping a given description', async () => {
    const discussions = `/projects/${project.id}/merge_requests/${mrIid}/discussions`;
    const thread = await apiOk(t, maintainer.token, 'POST', discussions, { body: '>>>\nquoted\n>>>\nplain' });
    const other = await apiOk(t, maintainer.token, 'POST', discussions, { body: 'Stays open' });
    const made = await t.api('POST', `/projects/${project.id}/issues`, {
      token: developer.token,
      body: { title: 'One thread', merge_request_to_resolve_discussions_of: mrIid, discussion_to_resolve: thread.id },
    });
    expect(made.status, made.text).toBe(201);
    expect(made.body.description).toBe(
      `The following discussion from !${mrIid} should be addressed:\n\n- [ ] @${maintainer.username} started a [discussion](${EXTERNAL_URL}/${project.path_with_namespace}/-/merge_requests/${mrIid}#note_${thread.notes[0].id}): \n\n    > > quoted\n    > plain`,
    );
    const listed = (await t.api('GET', discussions, { token: developer.token })).body as any[];
    expect(listed.find((d) => d.id === thread.id).notes.map((n: any) => [n.system, n.resolved ?? null])).toEqual([[false, true], [true, null]]);
    expect(listed.find((d) => d.id === other.id).notes.map((n: any) => n.resolved)).toEqual([false]);
    // A description given wins over the built one; the thread is still resolved.
    const third = await apiOk(t, maintainer.token, 'POST', discussions, { body: 'Third' });
    const described = await apiOk(t, developer.token, 'POST', `/projects/${project.id}/issues`, {
      title: 'Mine',
      description: 'My words',
      merge_request_to_resolve_discussions_of: mrIid,
      discussion_to_resolve: third.id,
    });
    expect(described.description).toBe('My words');
    const after = (await t.api('GET', `${discussions}/${third.id}`, { token: developer.token })).body;
    expect(after.notes.map((n: any) => n.body)).toEqual(['Third', `created #${described.iid} to continue this discussion`]);
    // A merge request the caller cannot find leaves the issue plain (MergeRequestsFinder finds nothing).
    const none = await apiOk(t, developer.token, 'POST', `/projects/${project.id}/issues`, { title: 'No MR', merge_request_to_resolve_discussions_of: 9999 });
    expect(none.description).toBeNull();
  });
});

describe('updateIssue inputs', () => {
  let iid: string;
  let labels: { id: number; name: string }[];
  let milestones: { id: number; title: string }[];

  beforeAll(async () => {
    iid = (await create(developer.token, { title: 'To update' })).body.data.createIssue.issue.iid;
    labels = [];
    for (const name of ['one', 'two', 'three']) labels.push(await apiOk(t, owner.token, 'POST', `/projects/${project.id}/labels`, { name, color: '#123456' }));
    milestones = [];
    for (const title of ['M1', 'M2']) milestones.push(await apiOk(t, owner.token, 'POST', `/projects/${project.id}/milestones`, { title }));
  });

  const titles = (r: any) => r.body.data.updateIssue.issue.labels.nodes.map((n: any) => n.title);

  it('takes label ids as global IDs or numbers, ignores the rest, and keeps labelIds apart from add/remove', async () => {
    const set = await update(developer.token, iid, { labelIds: [`gid://gitlab/ProjectLabel/${labels[0].id}`, String(labels[1].id)] });
    expect(set.body.errors).toBeUndefined();
    expect(titles(set)).toEqual(['one', 'two']);
    // Numbers as JSON numbers (GraphQL's ID takes them), a global ID of another class and junk name nothing.
    const changed = await update(developer.token, iid, { addLabelIds: [labels[2].id, 'gid://gitlab/Milestone/1', 'nonsense'], removeLabelIds: [`gid://gitlab/Label/${labels[0].id}`] });
    expect(changed.body.errors).toBeUndefined();
    expect(titles(changed)).toEqual(['three', 'two'].sort());
    const both = await update(developer.token, iid, { labelIds: [String(labels[0].id)], addLabelIds: [String(labels[1].id)] });
    expect(both.body.errors?.[0].message).toBe('labelIds is mutually exclusive with any of addLabelIds or removeLabelIds');
    expect(both.body.data?.updateIssue ?? null).toBeNull();
  });

  it('takes a milestone as a global ID or a number; one it cannot use removes it', async () => {
    const byGid = await update(developer.token, iid, { milestoneId: `gid://gitlab/Milestone/${milestones[0].id}` });
    expect(byGid.body.data.updateIssue.issue.milestone).toEqual({ title: 'M1' });
    const byNumber = await update(developer.token, iid, { milestoneId: String(milestones[1].id) });
    expect(byNumber.body.data.updateIssue.issue.milestone).toEqual({ title: 'M2' });
    const junk = await update(developer.token, iid, { milestoneId: 'gid://gitlab/Label/1' });
    expect(junk.body.data.updateIssue).toMatchObject({ errors: [], issue: { milestone: null } });
    // REST's milestone_id stays a number.
    const rest = await t.api('PUT', `/projects/${project.id}/issues/${iid}`, { token: developer.token, body: { milestone_id: milestones[0].id } });
    expect([rest.status, rest.body.milestone?.title]).toEqual([200, 'M1']);
  });

  it('sets, resets and refuses time estimates with a system note, as GitLab words them', async () => {
    const set = await update(developer.token, iid, { timeEstimate: '1h 30m' });
    expect(set.body.data.updateIssue).toMatchObject({ errors: [], issue: { timeEstimate: 5400 } });
    const zero = await update(developer.token, iid, { timeEstimate: '0' });
    expect(zero.body.data.updateIssue.issue.timeEstimate).toBe(0);
    await update(developer.token, iid, { timeEstimate: '2d' });
    const nulled = await update(developer.token, iid, { timeEstimate: null });
    expect(nulled.body.data.updateIssue.issue.timeEstimate).toBe(0);
    const bad = await update(developer.token, iid, { timeEstimate: '1egh' });
    expect(bad.body.errors?.[0].message).toBe('timeEstimate must be formatted correctly, for example `1h 30m`');
    const negative = await update(developer.token, iid, { timeEstimate: '-1h' });
    expect(negative.body.errors?.[0].message).toBe('timeEstimate must be greater than or equal to zero. Remember that every new timeEstimate overwrites the previous value.');
    const notes = (await t.api('GET', `/projects/${project.id}/issues/${iid}/notes?sort=asc&order_by=created_at`, { token: developer.token })).body as any[];
    expect(notes.filter((n) => n.system && /time estimate/.test(n.body)).map((n) => n.body)).toEqual([
      'added time estimate of 1h 30m',
      'removed time estimate of 1h 30m',
      'added time estimate of 2d',
      'removed time estimate of 2d',
    ]);
  });

  it('sets a merge request’s time estimate through mergeRequestUpdate', async () => {
    const mr = (await t.api('GET', `/projects/${project.id}/merge_requests?state=opened`, { token: developer.token })).body[0];
    const run = (timeEstimate: string | null) =>
      t.graphql(
        `mutation($input: MergeRequestUpdateInput!) { mergeRequestUpdate(input: $input) { errors mergeRequest { timeEstimate discussionLocked } } }`,
        { input: { projectPath: project.path_with_namespace, iid: String(mr.iid), timeEstimate } },
        developer.token,
      );
    const set = await run('1w');
    expect(set.body.data.mergeRequestUpdate).toEqual({ errors: [], mergeRequest: { timeEstimate: 144000, discussionLocked: false } });
    expect((await t.api('GET', `/projects/${project.id}/merge_requests/${mr.iid}/time_stats`, { token: developer.token })).body.human_time_estimate).toBe('1w');
    expect((await run('abc')).body.errors?.[0].message).toBe('timeEstimate must be formatted correctly, for example `1h 30m`');
    expect((await run(null)).body.data.mergeRequestUpdate.mergeRequest.timeEstimate).toBe(0);
    const rest = (await t.api('GET', `/projects/${project.id}/merge_requests/${mr.iid}`, { token: developer.token })).body;
    expect(rest.discussion_locked).toBeNull();
  });

  it('works through gitbeaker', async () => {
    const api = new Gitlab({ host: t.url, token: owner.token });
    const made = await api.Issues.create(project.id, 'Via gitbeaker', { iid: 80 });
    expect(made).toMatchObject({ iid: 80, discussion_locked: null });
  });
});

describe('Issue.author', () => {
  it('is the ghost user once the author is deleted, hard deletes included', async () => {
    const [soft, hard] = await Promise.all([createUser(t), createUser(t)]);
    for (const u of [soft, hard]) await addMember(t, owner.token, 'projects', project.id, u.id, 30);
    const iids = [];
    for (const u of [soft, hard]) iids.push((await create(u.token, { title: `By ${u.username}` })).body.data.createIssue.issue.iid);
    expect((await t.api('DELETE', `/users/${soft.id}`)).status).toBe(204);
    expect((await t.api('DELETE', `/users/${hard.id}?hard_delete=true`)).status).toBe(204);
    for (const iid of iids) {
      const { body } = await t.graphql(`query($p: ID!, $i: String!) { project(fullPath: $p) { issue(iid: $i) { author { username } } } }`, { p: project.path_with_namespace, i: iid }, owner.token);
      expect(body.errors).toBeUndefined();
      expect(body.data.project.issue.author.username).toBe('ghost');
    }
  });
});
