/**
 * Quick actions in notes and descriptions, over REST, GraphQL and gitbeaker: a note of commands alone (202
 * NoteCommands, no note kept), a note with text and commands (201, commands stripped, `commands_changes`), labels
 * with spaces, a guest's refused `/close`, commands inside code blocks and quotes left alone, commands in issue
 * descriptions on create and update, and a merge request's `/draft`, `/ready` and `/merge`, each change with the
 * system notes the direct change makes.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { Gitlab } from '@gitbeaker/rest';
import { suiteServer } from '../support/server.js';
import { addMember, createGroup, createProject, createUser, type TestUser } from '../support/factories.js';

/** One commit on `branch` (from `start` when the branch is new) writing `files`, through the commits API. */
async function commit(branch: string, files: Record<string, string>, start?: string) {
  const res = await t.api('POST', `/projects/${project.id}/repository/commits`, {
    token: owner.token,
    body: { branch, ...(start ? { start_branch: start } : {}), commit_message: `Change ${branch}`, actions: Object.entries(files).map(([file_path, content]) => ({ action: 'create', file_path, content })) },
  });
  if (res.status !== 201) throw new Error(`commit: ${res.status} ${res.text}`);
}

const t = suiteServer({ logLevel: 'error' });

let owner: TestUser;
let developer: TestUser;
let guest: TestUser;
let project: { id: number; path_with_namespace: string };
let bug: { id: number };
let review: { id: number };

const issues = (suffix = '') => `/projects/${project.id}/issues${suffix}`;

async function newIssue(title = 'An issue'): Promise<{ iid: number; id: number }> {
  const res = await t.api('POST', issues(), { token: owner.token, body: { title } });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

async function notesOf(iid: number): Promise<{ body: string; system: boolean }[]> {
  const res = await t.api('GET', issues(`/${iid}/notes?sort=asc&per_page=100`), { token: owner.token });
  expect(res.status, res.text).toBe(200);
  return res.body;
}

beforeAll(async () => {
  [owner, developer, guest] = await Promise.all([1, 2, 3].map(() => createUser(t)));
  const group = await createGroup(t, owner.token);
  project = await createProject(t, owner.token, { namespaceId: group.id });
  await addMember(t, owner.token, 'projects', project.id, developer.id, 30);
  await addMember(t, owner.token, 'projects', project.id, guest.id, 10);
  bug = (await t.api('POST', `/projects/${project.id}/labels`, { token: owner.token, body: { name: 'bug', color: '#ff0000' } })).body;
  review = (await t.api('POST', `/projects/${project.id}/labels`, { token: owner.token, body: { name: 'needs review', color: '#00ff00' } })).body;
});

describe('notes of commands alone', () => {
  it('answers 202 with commands_changes and summary, keeps no note, and changes the issue as the Issues API would', async () => {
    const issue = await newIssue();
    const res = await t.api('POST', issues(`/${issue.iid}/notes`), { token: developer.token, body: { body: '/close\n/label ~bug' } });
    expect(res.status, res.text).toBe(202);
    expect(res.body).toEqual({ commands_changes: { state_event: 'close', add_label_ids: [bug.id] }, summary: ['Closed this issue. Added ~"bug" label.'] });
    const after = await t.api('GET', issues(`/${issue.iid}`), { token: owner.token });
    expect(after.body).toMatchObject({ state: 'closed', labels: ['bug'], closed_by: { id: developer.id } });
    // No comment was kept; the close and the label are resource events, as the Issues API's changes make them.
    expect(await notesOf(issue.iid)).toEqual([]);
    const labelEvents = await t.api('GET', issues(`/${issue.iid}/resource_label_events`), { token: owner.token });
    expect(labelEvents.body.map((e: { action: string; label: { name: string } }) => [e.action, e.label.name])).toEqual([['add', 'bug']]);
    const stateEvents = await t.api('GET', issues(`/${issue.iid}/resource_state_events`), { token: owner.token });
    expect(stateEvents.body.map((e: { state: string }) => e.state)).toEqual(['closed']);
  });

  it('answers through the Discussions API the same way', async () => {
    const issue = await newIssue();
    const res = await t.api('POST', issues(`/${issue.iid}/discussions`), { token: developer.token, body: { body: '/weight 3\n/due 2030-01-02' } });
    expect(res.status, res.text).toBe(202);
    expect(res.body).toEqual({ commands_changes: { weight: 3, due_date: '2030-01-02' }, summary: ['Set weight to 3. Set the due date to Jan 2, 2030.'] });
    const after = await t.api('GET', issues(`/${issue.iid}`), { token: owner.token });
    expect(after.body).toMatchObject({ weight: 3, due_date: '2030-01-02' });
    const threads = await t.api('GET', issues(`/${issue.iid}/discussions`), { token: owner.token });
    expect(threads.body.flatMap((d: { notes: { system: boolean }[] }) => d.notes).every((n: { system: boolean }) => n.system)).toBe(true);
  });

  it("refuses a guest's /close with GitLab's message and changes nothing", async () => {
    const issue = await newIssue();
    const res = await t.api('POST', issues(`/${issue.iid}/notes`), { token: guest.token, body: { body: '/close' } });
    expect(res.status, res.text).toBe(202);
    expect(res.body).toEqual({ commands_changes: {}, summary: ['Could not apply close command.'] });
    expect((await t.api('GET', issues(`/${issue.iid}`), { token: owner.token })).body.state).toBe('opened');
    expect(await notesOf(issue.iid)).toEqual([]);
    // Text with it is kept as a comment, the command still refused.
    const mixed = await t.api('POST', issues(`/${issue.iid}/notes`), { token: guest.token, body: { body: 'Please close\n/close' } });
    expect(mixed.status, mixed.text).toBe(201);
    expect(mixed.body).toMatchObject({ body: 'Please close', commands_changes: {} });
    expect((await t.api('GET', issues(`/${issue.iid}`), { token: owner.token })).body.state).toBe('opened');
  });
});

describe('notes with text and commands', () => {
  it('keeps the text without its commands and shows commands_changes (gitbeaker), labels with spaces', async () => {
    const issue = await newIssue();
    const api = new Gitlab({ host: t.url, token: developer.token });
    const note = (await api.IssueNotes.create(project.id, issue.iid, `Looks right to me.\n/assign @${developer.username}\n/label ~"needs review" ~bug\nThanks`)) as unknown as Record<string, unknown>;
    expect(note.body).toBe('Looks right to me.\nThanks');
    expect(note.commands_changes).toEqual({ assignee_ids: [developer.id], add_label_ids: [review.id, bug.id] });
    const raw = await t.api('GET', issues(`/${issue.iid}/notes/${note.id}`), { token: owner.token });
    expect(raw.body).toMatchObject({ body: 'Looks right to me.\nThanks', commands_changes: {} });
    const after = await t.api('GET', issues(`/${issue.iid}`), { token: owner.token });
    expect(after.body.labels.sort()).toEqual(['bug', 'needs review']);
    expect(after.body.assignees.map((a: { id: number }) => a.id)).toEqual([developer.id]);
    const notes = await notesOf(issue.iid);
    expect(notes.map((n) => [n.system, n.body])).toEqual([
      [false, 'Looks right to me.\nThanks'],
      [true, `assigned to @${developer.username}`],
    ]);
  });

  it('leaves commands in code blocks, inline code and quotes alone', async () => {
    const issue = await newIssue();
    const body = 'Try this:\n```\n/close\n```\n>>>\n/label ~bug\n>>>\n`\n/lock\n`';
    const res = await t.api('POST', issues(`/${issue.iid}/notes`), { token: developer.token, body: { body } });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ body, commands_changes: {} });
    const after = await t.api('GET', issues(`/${issue.iid}`), { token: owner.token });
    expect(after.body).toMatchObject({ state: 'opened', labels: [], discussion_locked: null });
  });

  it('does not take unknown commands or commands within a line', async () => {
    const issue = await newIssue();
    const res = await t.api('POST', issues(`/${issue.iid}/notes`), { token: developer.token, body: { body: '/closed soon\nplease /close\n/unknown thing' } });
    expect(res.status, res.text).toBe(201);
    expect(res.body.body).toBe('/closed soon\nplease /close\n/unknown thing');
    expect((await t.api('GET', issues(`/${issue.iid}`), { token: owner.token })).body.state).toBe('opened');
  });
});

describe('substitutions and aliases', () => {
  it('replaces /shrug and /tableflip lines by their text, keeps /cc as written, and takes /react as /award', async () => {
    const issue = await newIssue();
    const body = '```\n/shrug\n```\nWell\n/shrug whatever was here\n/cc @nobody\n/TableFlip\n/react :thumbsup:\n/shrugging';
    const res = await t.api('POST', issues(`/${issue.iid}/notes`), { token: developer.token, body: { body } });
    expect(res.status, res.text).toBe(201);
    expect(res.body.body).toBe('```\n/shrug\n```\nWell\n¯\\＿(ツ)＿/¯\n/cc @nobody\n(╯°□°)╯︵ ┻━┻\n/shrugging');
    const awards = await t.api('GET', issues(`/${issue.iid}/award_emoji`), { token: owner.token });
    expect(awards.body.map((a: { name: string; user: { id: number } }) => [a.name, a.user.id])).toEqual([['thumbsup', developer.id]]);
    // A description's substitutions, on a merge request's too.
    // The project's first commit makes `main`, its default branch, as the merge request test below expects it.
    await commit('main', { 'base.txt': 'b\n' });
    await commit('shrug', { 'shrug.txt': 's\n' }, 'main');
    const mr = await t.api('POST', `/projects/${project.id}/merge_requests`, { token: owner.token, body: { source_branch: 'shrug', target_branch: 'main', title: 'Shrug', description: 'Maybe\n/tableflip' } });
    expect(mr.status, mr.text).toBe(201);
    expect(mr.body.description).toBe('Maybe\n(╯°□°)╯︵ ┻━┻');
  });
});

describe('GraphQL createNote', () => {
  it('makes no note for commands alone and reports them in errors, as GitLab 16.3 does', async () => {
    const issue = await newIssue();
    const mutation = `mutation($id: NoteableID!, $body: String!) { createNote(input: { noteableId: $id, body: $body }) { note { body commandsChanges } errors } }`;
    const only = await t.graphql(mutation, { id: `gid://gitlab/Issue/${issue.id}`, body: '/close\n/lock' }, developer.token);
    expect(only.body.errors).toBeUndefined();
    expect(only.body.data.createNote).toEqual({ note: null, errors: ['Commands only Closed this issue. Locked the discussion.', 'Command names ["close", "lock"]'] });
    expect((await t.api('GET', issues(`/${issue.iid}`), { token: owner.token })).body).toMatchObject({ state: 'closed', discussion_locked: true });
    const mixed = await t.graphql(mutation, { id: `gid://gitlab/Issue/${issue.id}`, body: 'Reopening\n/reopen' }, developer.token);
    expect(mixed.body.data.createNote).toEqual({ note: { body: 'Reopening', commandsChanges: { state_event: 'reopen' } }, errors: [] });
    expect((await t.api('GET', issues(`/${issue.iid}`), { token: owner.token })).body.state).toBe('opened');
  });
});

describe('descriptions', () => {
  it('runs the commands of a new issue’s description and stores it without them', async () => {
    const res = await t.api('POST', issues(), {
      token: developer.token,
      body: { title: 'With commands', description: 'The body.\n/label ~"needs review"\n/assign me\n/due 2030-03-04\n/close' },
    });
    expect(res.status, res.text).toBe(201);
    // GitLab drops a state event on create: the issue stays open.
    expect(res.body).toMatchObject({ description: 'The body.', labels: ['needs review'], assignees: [{ id: developer.id }], due_date: '2030-03-04', state: 'opened' });
  });

  it('runs the commands of an updated description in the same update', async () => {
    const issue = await newIssue();
    const res = await t.api('PUT', issues(`/${issue.iid}`), { token: developer.token, body: { description: 'New text\n/label ~bug\n/close', title: 'Renamed' } });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ title: 'Renamed', description: 'New text', labels: ['bug'], state: 'closed' });
    const notes = await notesOf(issue.iid);
    expect(notes.map((n) => n.body)).toEqual(['changed title from **{-An issue-}** to **{+Renamed+}**', 'changed the description']);
    // A guest's description commands are refused as their notes' are: the guest may not update the issue at all.
    const refused = await t.api('PUT', issues(`/${issue.iid}`), { token: guest.token, body: { description: '/reopen' } });
    expect(refused.status).toBe(403);
  });
});

describe('merge requests', () => {
  it('marks a draft and ready with /draft and /ready, and merges with /merge', async () => {
    await commit('main', { 'README.md': '# Project\n' });
    await commit('feature', { 'feature.txt': 'new\n' }, 'main');
    const created = await t.api('POST', `/projects/${project.id}/merge_requests`, {
      token: developer.token,
      body: { source_branch: 'feature', target_branch: 'main', title: 'Add feature', description: 'Adds it.\n/draft\n/assign_reviewer @' + developer.username },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({ title: 'Draft: Add feature', draft: true, description: 'Adds it.', reviewers: [{ id: developer.id }] });
    const mr = (suffix = '') => `/projects/${project.id}/merge_requests/${created.body.iid}${suffix}`;
    const ready = await t.api('POST', mr('/notes'), { token: developer.token, body: { body: '/ready' } });
    expect(ready.status, ready.text).toBe(202);
    expect(ready.body).toEqual({ commands_changes: { wip_event: 'ready' }, summary: ['Marked this merge request as ready.'] });
    expect((await t.api('GET', mr(), { token: owner.token })).body).toMatchObject({ title: 'Add feature', draft: false });
    const draft = await t.api('POST', mr('/notes'), { token: developer.token, body: { body: 'Not yet\n/draft' } });
    expect(draft.status, draft.text).toBe(201);
    expect(draft.body).toMatchObject({ body: 'Not yet', commands_changes: { wip_event: 'draft' } });
    // A draft cannot be merged: /merge is not available, and says so.
    const early = await t.api('POST', mr('/notes'), { token: owner.token, body: { body: '/merge' } });
    expect(early.body).toEqual({ commands_changes: {}, summary: ['Could not apply merge command.'] });
    await t.api('POST', mr('/notes'), { token: developer.token, body: { body: '/ready' } });
    const head = (await t.api('GET', mr(), { token: owner.token })).body.sha as string;
    const merged = await t.api('POST', mr('/notes'), { token: owner.token, body: { body: '/merge', merge_request_diff_head_sha: head } });
    expect(merged.status, merged.text).toBe(202);
    expect(merged.body.summary).toEqual(['Merged this merge request.']);
    expect(merged.body.commands_changes.merge).toBe(head);
    const after = await t.api('GET', mr(), { token: owner.token });
    expect(after.body).toMatchObject({ state: 'merged', merged_by: { id: owner.id } });
    const notes = await t.api('GET', mr('/notes?sort=asc'), { token: owner.token });
    const system = notes.body.filter((n: { system: boolean }) => n.system).map((n: { body: string }) => n.body);
    expect(system).toEqual(expect.arrayContaining(['marked this merge request as **ready**', 'marked this merge request as **draft**']));
  });
});

describe('epics', () => {
  it('labels an epic, sets its parent and adds a child through notes and its description', async () => {
    const group = await createGroup(t, owner.token);
    await t.api('POST', `/groups/${group.id}/labels`, { token: owner.token, body: { name: 'planning', color: '#0000ff' } });
    const epic = (title: string, description?: string) => t.api('POST', `/groups/${group.id}/epics`, { token: owner.token, body: { title, ...(description ? { description } : {}) } });
    const parent = (await epic('Parent')).body;
    const child = (await epic('Child')).body;
    const made = await epic('Made', 'Plan.\n/label ~planning');
    expect(made.status, made.text).toBe(201);
    expect(made.body).toMatchObject({ description: 'Plan.', labels: ['planning'] });
    const res = await t.api('POST', `/groups/${group.id}/epics/${made.body.id}/notes`, { token: owner.token, body: { body: `/parent_epic &${parent.iid}\n/child_epic &${child.iid}` } });
    expect(res.status, res.text).toBe(202);
    expect(res.body.summary).toEqual([`Set &${parent.iid} as the parent epic. Added &${child.iid} as a child epic.`]);
    expect((await t.api('GET', `/groups/${group.id}/epics/${made.body.iid}`, { token: owner.token })).body).toMatchObject({ parent_id: parent.id });
    expect((await t.api('GET', `/groups/${group.id}/epics/${child.iid}`, { token: owner.token })).body).toMatchObject({ parent_id: made.body.id });
    const closed = await t.api('POST', `/groups/${group.id}/epics/${made.body.id}/notes`, { token: owner.token, body: { body: 'Done here\n/close' } });
    expect(closed.status, closed.text).toBe(201);
    expect(closed.body).toMatchObject({ body: 'Done here', commands_changes: { state_event: 'close' } });
    expect((await t.api('GET', `/groups/${group.id}/epics/${made.body.iid}`, { token: owner.token })).body.state).toBe('closed');
  });
});
