/**
 * Issue and note events to project hooks (GitLab's Issue Hook and Note Hook): GitLab's payloads with their changes,
 * confidential issues and comments on them to the hooks that hear confidential events only, comments on issues,
 * commits and snippets with what they are on, edits of a comment, and the test endpoint's samples.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXTERNAL_URL, suiteServer } from '../support/server.js';
import { addMember, createProject, createUser, type TestUser } from '../support/factories.js';
import { startReceiver, type Received, type Receiver } from './receiver.js';

// Project hooks refuse local addresses by default; the receivers are on 127.0.0.1.
const t = suiteServer({ allowLocalRequestsFromWebHooks: true, webhookRetryBaseMs: 0, webhookMaxAttempts: 1 });
let issues: Receiver;
let confidentialIssues: Receiver;
let notes: Receiver;
let confidentialNotes: Receiver;
let owner: TestUser;
let dev: TestUser;
let project: any;
let sha: string;

const UTC_TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC$/;
const hookUser = (u: TestUser) => ({ id: u.id, name: `User ${u.username}`, username: u.username, avatar_url: null, email: `${u.username}@example.com` });

beforeAll(async () => {
  [issues, confidentialIssues, notes, confidentialNotes] = await Promise.all([startReceiver(), startReceiver(), startReceiver(), startReceiver()]);
  [owner, dev] = await Promise.all([createUser(t), createUser(t)]);
  project = await createProject(t, owner.token);
  await addMember(t, owner.token, 'projects', project.id, dev.id, 30);
  const hook = (url: string, events: Record<string, boolean>) => t.api('POST', `/projects/${project.id}/hooks`, { token: owner.token, body: { url, push_events: false, ...events } });
  await hook(`${issues.url}/issues`, { issues_events: true });
  await hook(`${confidentialIssues.url}/confidential-issues`, { confidential_issues_events: true });
  await hook(`${notes.url}/notes`, { note_events: true });
  await hook(`${confidentialNotes.url}/confidential-notes`, { confidential_note_events: true });
  const res = await t.api('POST', `/projects/${project.id}/repository/commits`, {
    token: owner.token,
    body: { branch: 'main', commit_message: 'Start\n\nBody', actions: [{ action: 'create', file_path: 'a.txt', content: 'one\n' }] },
  });
  sha = res.body.id;
});
afterAll(() => Promise.all([issues, confidentialIssues, notes, confidentialNotes].map((r) => r?.close())));

const issuesPath = () => `/projects/${project.id}/issues`;

/** The next delivery a receiver gets, with its headers checked to be an event of that kind. */
async function nextOf(receiver: Receiver, event: string): Promise<Received> {
  const got = await receiver.next();
  expect(got.headers['x-gitlab-event']).toBe(event);
  expect(got.headers['content-type']).toBe('application/json');
  return got;
}

describe('issue hooks', () => {
  let iid: number;
  let issueId: number;

  it('opening an issue sends GitLab’s Issue Hook with action open, its labels and assignees', async () => {
    const created = await t.api('POST', issuesPath(), { token: owner.token, body: { title: 'Broken', description: 'It breaks', labels: 'bug', assignee_ids: [dev.id] } });
    expect(created.status).toBe(201);
    ({ iid, id: issueId } = created.body);
    const got = await nextOf(issues, 'Issue Hook');
    const web = `${EXTERNAL_URL}/${project.path_with_namespace}`;
    const label = {
      id: expect.any(Number),
      title: 'bug',
      color: expect.stringMatching(/^#/),
      project_id: project.id,
      created_at: expect.stringMatching(UTC_TIME),
      updated_at: expect.stringMatching(UTC_TIME),
      template: false,
      description: null,
      type: 'ProjectLabel',
      group_id: null,
    };
    expect(Object.keys(got.json).sort()).toEqual(['assignees', 'changes', 'event_type', 'labels', 'object_attributes', 'object_kind', 'project', 'repository', 'user']);
    expect(got.json).toMatchObject({
      object_kind: 'issue',
      event_type: 'issue',
      user: hookUser(owner),
      project: { id: project.id, name: project.name, web_url: web, path_with_namespace: project.path_with_namespace, git_http_url: `${web}.git` },
      repository: { name: project.name, homepage: web },
      labels: [label],
      assignees: [hookUser(dev)],
    });
    expect(got.json.object_attributes).toEqual({
      author_id: owner.id,
      closed_at: null,
      confidential: false,
      created_at: expect.stringMatching(UTC_TIME),
      description: 'It breaks',
      discussion_locked: null,
      due_date: null,
      id: issueId,
      iid,
      last_edited_at: null,
      last_edited_by_id: null,
      milestone_id: null,
      moved_to_id: null,
      duplicated_to_id: null,
      project_id: project.id,
      relative_position: null,
      state_id: 1,
      time_estimate: 0,
      title: 'Broken',
      updated_at: expect.stringMatching(UTC_TIME),
      updated_by_id: null,
      weight: null,
      type: 'Issue',
      url: `${web}/-/issues/${iid}`,
      total_time_spent: 0,
      time_change: 0,
      human_total_time_spent: null,
      human_time_change: null,
      human_time_estimate: null,
      assignee_ids: [dev.id],
      assignee_id: dev.id,
      labels: [label],
      state: 'opened',
      severity: 'unknown',
      customer_relations_contacts: [],
      action: 'open',
    });
    expect(got.json.changes).toMatchObject({ title: { previous: null, current: 'Broken' }, iid: { previous: null, current: iid }, author_id: { previous: null, current: owner.id } });
  });

  it('an update sends action update with the previous and current values of what changed', async () => {
    const res = await t.api('PUT', `${issuesPath()}/${iid}`, { token: owner.token, body: { title: 'Broken badly', labels: 'bug,urgent', assignee_ids: [owner.id], due_date: '2030-01-02' } });
    expect(res.status).toBe(200);
    const got = await nextOf(issues, 'Issue Hook');
    expect(got.json.object_attributes).toMatchObject({ action: 'update', title: 'Broken badly', due_date: '2030-01-02', assignee_ids: [owner.id], state: 'opened' });
    expect(got.json.assignees).toEqual([hookUser(owner)]);
    const { changes } = got.json;
    expect(Object.keys(changes).sort()).toEqual(['assignees', 'due_date', 'labels', 'title', 'updated_at']);
    expect(changes.title).toEqual({ previous: 'Broken', current: 'Broken badly' });
    expect(changes.due_date).toEqual({ previous: null, current: '2030-01-02' });
    expect(changes.assignees).toEqual({ previous: [hookUser(dev)], current: [hookUser(owner)] });
    expect(changes.labels.previous.map((l: any) => l.title)).toEqual(['bug']);
    expect(changes.labels.current.map((l: any) => l.title)).toEqual(['bug', 'urgent']);
    expect(changes.updated_at).toEqual({ previous: expect.stringMatching(UTC_TIME), current: expect.stringMatching(UTC_TIME) });
  });

  it('closing and reopening send actions close and reopen; an update changing nothing sends nothing', async () => {
    // Nothing changes: no event (the close that follows is the next one heard).
    expect((await t.api('PUT', `${issuesPath()}/${iid}`, { token: owner.token, body: { title: 'Broken badly' } })).status).toBe(200);
    await t.api('PUT', `${issuesPath()}/${iid}`, { token: owner.token, body: { state_event: 'close' } });
    const closed = await nextOf(issues, 'Issue Hook');
    expect(closed.json.object_attributes).toMatchObject({ action: 'close', state: 'closed', state_id: 2, closed_at: expect.stringMatching(UTC_TIME) });
    expect(closed.json.changes).toMatchObject({ state_id: { previous: 1, current: 2 }, closed_at: { previous: null, current: expect.stringMatching(UTC_TIME) } });
    await t.api('PUT', `${issuesPath()}/${iid}`, { token: owner.token, body: { state_event: 'reopen' } });
    const reopened = await nextOf(issues, 'Issue Hook');
    expect(reopened.json.object_attributes).toMatchObject({ action: 'reopen', state: 'opened', state_id: 1, closed_at: null });
    expect(reopened.json.changes.state_id).toEqual({ previous: 2, current: 1 });
  });

  it('a GraphQL change and time tracking reach the hooks too', async () => {
    const res = await t.graphql(
      `mutation($path: ID!, $iid: String!) { issueSetWeight(input: { projectPath: $path, iid: $iid, weight: 5 }) { errors issue { weight } } }`,
      { path: project.path_with_namespace, iid: String(iid) },
      owner.token,
    );
    expect(res.body.errors).toBeUndefined();
    const weighted = await nextOf(issues, 'Issue Hook');
    expect(weighted.json.object_attributes).toMatchObject({ action: 'update', weight: 5 });
    expect(weighted.json.changes.weight).toEqual({ previous: null, current: 5 });
    expect((await t.api('POST', `${issuesPath()}/${iid}/time_estimate`, { token: owner.token, body: { duration: '1h30m' } })).status).toBe(200);
    const estimated = await nextOf(issues, 'Issue Hook');
    expect(estimated.json.object_attributes).toMatchObject({ action: 'update', time_estimate: 5400, human_time_estimate: '1h 30m' });
    expect(estimated.json.changes).toEqual({ time_estimate: { previous: 0, current: 5400 } });
  });

  it('a confidential issue goes to the hooks hearing confidential issue events only, as `Confidential Issue Hook`', async () => {
    const created = await t.api('POST', issuesPath(), { token: owner.token, body: { title: 'Secret', confidential: true } });
    const got = await nextOf(confidentialIssues, 'Confidential Issue Hook');
    expect(got.json).toMatchObject({ object_kind: 'issue', event_type: 'confidential_issue', object_attributes: { id: created.body.id, confidential: true, action: 'open' } });
    // Made public: heard by the issue hooks, and the next the confidential hook hears is a confidential one again.
    await t.api('PUT', `${issuesPath()}/${created.body.iid}`, { token: owner.token, body: { confidential: false } });
    const opened = await nextOf(issues, 'Issue Hook');
    expect(opened.json).toMatchObject({ event_type: 'issue', object_attributes: { id: created.body.id, confidential: false }, changes: { confidential: { previous: true, current: false } } });
    const other = await t.api('POST', issuesPath(), { token: owner.token, body: { title: 'Secret too', confidential: true } });
    expect((await nextOf(confidentialIssues, 'Confidential Issue Hook')).json.object_attributes.id).toBe(other.body.id);
  });
});

describe('note hooks', () => {
  it('a comment on an issue embeds the issue; editing it sends action update', async () => {
    const issue = (await t.api('POST', issuesPath(), { token: owner.token, body: { title: 'Discuss me', labels: 'talk' } })).body;
    await nextOf(issues, 'Issue Hook');
    const note = (await t.api('POST', `${issuesPath()}/${issue.iid}/notes`, { token: dev.token, body: { body: 'I agree' } })).body;
    const got = await nextOf(notes, 'Note Hook');
    const web = `${EXTERNAL_URL}/${project.path_with_namespace}`;
    expect(Object.keys(got.json).sort()).toEqual(['event_type', 'issue', 'object_attributes', 'object_kind', 'project', 'project_id', 'repository', 'user']);
    expect(got.json).toMatchObject({
      object_kind: 'note',
      event_type: 'note',
      user: hookUser(dev),
      project_id: project.id,
      object_attributes: {
        id: note.id,
        note: 'I agree',
        description: 'I agree',
        noteable_type: 'Issue',
        noteable_id: issue.id,
        commit_id: null,
        author_id: dev.id,
        system: false,
        internal: false,
        action: 'create',
        url: `${web}/-/issues/${issue.iid}#note_${note.id}`,
      },
      issue: { id: issue.id, iid: issue.iid, title: 'Discuss me', state: 'opened', url: `${web}/-/issues/${issue.iid}`, labels: [{ title: 'talk' }], type: 'Issue' },
    });
    expect(got.json.issue).not.toHaveProperty('action');
    expect((await t.api('PUT', `${issuesPath()}/${issue.iid}/notes/${note.id}`, { token: dev.token, body: { body: 'I agree fully' } })).status).toBe(200);
    const edited = await nextOf(notes, 'Note Hook');
    expect(edited.json.object_attributes).toMatchObject({ id: note.id, note: 'I agree fully', action: 'update', updated_by_id: dev.id });
  });

  it('a comment on a confidential issue goes to the hooks hearing confidential comments only', async () => {
    const issue = (await t.api('POST', issuesPath(), { token: owner.token, body: { title: 'Hush', confidential: true } })).body;
    await nextOf(confidentialIssues, 'Confidential Issue Hook');
    const note = (await t.api('POST', `${issuesPath()}/${issue.iid}/notes`, { token: owner.token, body: { body: 'quietly' } })).body;
    const got = await nextOf(confidentialNotes, 'Confidential Note Hook');
    expect(got.json).toMatchObject({ event_type: 'confidential_note', object_attributes: { id: note.id, noteable_type: 'Issue' }, issue: { id: issue.id, confidential: true } });
    // The plain note hook hears the next plain comment, not this one.
    const open = (await t.api('POST', issuesPath(), { token: owner.token, body: { title: 'Loud' } })).body;
    await nextOf(issues, 'Issue Hook');
    const loud = (await t.api('POST', `${issuesPath()}/${open.iid}/notes`, { token: owner.token, body: { body: 'loudly' } })).body;
    expect((await nextOf(notes, 'Note Hook')).json.object_attributes.id).toBe(loud.id);
  });

  it('a comment on a commit embeds the commit', async () => {
    const comment = (await t.api('POST', `/projects/${project.id}/repository/commits/${sha}/discussions`, { token: owner.token, body: { body: 'Nice commit' } })).body;
    const got = await nextOf(notes, 'Note Hook');
    expect(got.json).toMatchObject({
      event_type: 'note',
      object_attributes: { id: comment.notes[0].id, noteable_type: 'Commit', commit_id: sha, noteable_id: null },
      commit: { id: sha, title: 'Start', message: 'Start\n\nBody' },
    });
    expect(got.json).not.toHaveProperty('issue');
  });

  it('a comment on a project snippet embeds the snippet', async () => {
    const snippet = (await t.api('POST', `/projects/${project.id}/snippets`, { token: owner.token, body: { title: 'Snip', description: 'About it', visibility: 'private', files: [{ file_path: 'hello.rb', content: "puts 'hi'" }] } })).body;
    const note = (await t.api('POST', `/projects/${project.id}/snippets/${snippet.id}/notes`, { token: owner.token, body: { body: 'Does it run?' } })).body;
    const got = await nextOf(notes, 'Note Hook');
    expect(got.json).toMatchObject({
      object_attributes: { id: note.id, noteable_type: 'Snippet', noteable_id: snippet.id, url: `${EXTERNAL_URL}/${project.path_with_namespace}/-/snippets/${snippet.id}#note_${note.id}` },
    });
    expect(got.json.snippet).toEqual({
      id: snippet.id,
      title: 'Snip',
      description: 'About it',
      content: "puts 'hi'",
      author_id: owner.id,
      project_id: project.id,
      created_at: expect.stringMatching(UTC_TIME),
      updated_at: expect.stringMatching(UTC_TIME),
      file_name: 'hello.rb',
      type: 'ProjectSnippet',
      visibility_level: 0,
      url: `${EXTERNAL_URL}/${project.path_with_namespace}/-/snippets/${snippet.id}`,
    });
  });
});

describe('the test endpoint', () => {
  it('sends the newest issue as an opened issue, and the newest comment, to the hook tested', async () => {
    const hooks = (await t.api('GET', `/projects/${project.id}/hooks`, { token: owner.token })).body;
    const issueHook = hooks.find((h: any) => h.url.endsWith('/issues'));
    const confidentialHook = hooks.find((h: any) => h.url.endsWith('/confidential-issues'));
    const newest = (await t.api('GET', `${issuesPath()}?per_page=1`, { token: owner.token })).body[0];
    expect(await t.api('POST', `/projects/${project.id}/hooks/${issueHook.id}/test/issues_events`, { token: owner.token })).toMatchObject({ status: 201, body: { message: '201 Created' } });
    const sample = await nextOf(issues, 'Issue Hook');
    expect(sample.json).toMatchObject({ object_kind: 'issue', user: hookUser(owner), object_attributes: { id: newest.id, action: 'open' }, changes: {} });
    expect((await t.api('POST', `/projects/${project.id}/hooks/${confidentialHook.id}/test/confidential_issues_events`, { token: owner.token })).status).toBe(201);
    expect((await nextOf(confidentialIssues, 'Confidential Issue Hook')).json.object_attributes.id).toBe(newest.id);
    const noteHook = hooks.find((h: any) => h.url.endsWith('/notes'));
    expect((await t.api('POST', `/projects/${project.id}/hooks/${noteHook.id}/test/note_events`, { token: owner.token })).status).toBe(201);
    const noteSample = await nextOf(notes, 'Note Hook');
    expect(noteSample.json).toMatchObject({ object_kind: 'note', user: hookUser(owner), object_attributes: { noteable_type: 'Snippet', note: 'Does it run?', action: 'create' } });
  });

  it('refuses with GitLab’s message when the project has no issues or notes', async () => {
    const empty = await createProject(t, owner.token);
    const hook = (await t.api('POST', `/projects/${empty.id}/hooks`, { token: owner.token, body: { url: `${issues.url}/never` } })).body;
    expect(await t.api('POST', `/projects/${empty.id}/hooks/${hook.id}/test/issues_events`, { token: owner.token })).toMatchObject({ status: 422, body: { message: 'Ensure the project has issues.' } });
    expect(await t.api('POST', `/projects/${empty.id}/hooks/${hook.id}/test/confidential_note_events`, { token: owner.token })).toMatchObject({ status: 422, body: { message: 'Ensure the project has notes.' } });
    expect((await t.api('POST', `/projects/${empty.id}/hooks/${hook.id}/test/issues_events`, { token: dev.token })).status).toBe(404);
  });
});
