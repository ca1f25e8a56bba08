/** Issues over REST: GitLab's entity, iids, labels (created on the fly), assignees, milestones, state events, lists and filters, time tracking, discussions, and gitbeaker. */
import { beforeAll, describe, expect, it } from 'vitest';
import { Gitlab } from '@gitbeaker/rest';
import { suiteServer, EXTERNAL_URL } from '../support/server.js';
import { addMember, createGroup, createProject, createUser, type TestUser } from '../support/factories.js';

const t = suiteServer();

const KEYS = [
  'id', 'iid', 'project_id', 'title', 'description', 'state', 'created_at', 'updated_at', 'closed_at', 'closed_by', 'labels', 'milestone',
  'assignees', 'author', 'type', 'assignee', 'user_notes_count', 'merge_requests_count', 'upvotes', 'downvotes', 'due_date', 'confidential',
  'discussion_locked', 'issue_type', 'web_url', 'time_stats', 'task_completion_status', 'weight', 'blocking_issues_count', 'has_tasks', '_links',
  'references', 'severity', 'moved_to_id', 'imported', 'imported_from', 'service_desk_reply_to', 'epic_iid', 'epic', 'iteration', 'health_status',
];

let owner: TestUser;
let reporter: TestUser;
let guest: TestUser;
let stranger: TestUser;
let group: { id: number; full_path: string };
let project: { id: number; path_with_namespace: string };

beforeAll(async () => {
  [owner, reporter, guest, stranger] = await Promise.all([1, 2, 3, 4].map(() => createUser(t)));
  group = await createGroup(t, owner.token);
  project = await createProject(t, owner.token, { namespaceId: group.id });
  await addMember(t, owner.token, 'projects', project.id, reporter.id, 20);
  await addMember(t, owner.token, 'projects', project.id, guest.id, 10);
});

const issues = (suffix = '') => `/projects/${project.id}/issues${suffix}`;
const user = (u: TestUser) => ({ id: u.id, username: u.username });

describe('creating and reading issues', () => {
  it('creates issues numbered per project with GitLab’s entity, labels made as needed', async () => {
    const milestone = await t.api('POST', `/projects/${project.id}/milestones`, { token: owner.token, body: { title: 'v1' } });
    const created = await t.api('POST', issues(), {
      token: reporter.token,
      body: { title: 'First', description: '- [x] one\n- [ ] two', labels: 'bug,backend', assignee_ids: [guest.id], milestone_id: milestone.body.id, weight: 3, due_date: '2030-01-02' },
    });
    expect(created.status, created.text).toBe(201);
    expect(Object.keys(created.body).sort()).toEqual([...KEYS, 'subscribed'].sort());
    expect(created.body).toMatchObject({
      iid: 1,
      project_id: project.id,
      title: 'First',
      state: 'opened',
      closed_at: null,
      closed_by: null,
      labels: ['backend', 'bug'],
      milestone: { id: milestone.body.id, title: 'v1', iid: 1 },
      assignees: [user(guest)],
      assignee: user(guest),
      author: user(reporter),
      type: 'ISSUE',
      issue_type: 'issue',
      user_notes_count: 0,
      upvotes: 0,
      downvotes: 0,
      due_date: '2030-01-02',
      confidential: false,
      discussion_locked: null,
      weight: 3,
      has_tasks: true,
      subscribed: true,
      task_completion_status: { count: 2, completed_count: 1 },
      time_stats: { time_estimate: 0, total_time_spent: 0, human_time_estimate: null, human_total_time_spent: null },
      web_url: `${EXTERNAL_URL}/${project.path_with_namespace}/-/issues/1`,
      references: { short: '#1', relative: '#1', full: `${project.path_with_namespace}#1` },
      _links: {
        self: `${EXTERNAL_URL}/api/v4/projects/${project.id}/issues/1`,
        notes: `${EXTERNAL_URL}/api/v4/projects/${project.id}/issues/1/notes`,
        award_emoji: `${EXTERNAL_URL}/api/v4/projects/${project.id}/issues/1/award_emoji`,
        project: `${EXTERNAL_URL}/api/v4/projects/${project.id}`,
        closed_as_duplicate_of: null,
      },
    });
    const labels = await t.api('GET', `/projects/${project.id}/labels?with_counts=true`, { token: reporter.token });
    expect(labels.body.map((l: { name: string; open_issues_count: number }) => [l.name, l.open_issues_count])).toEqual([
      ['backend', 1],
      ['bug', 1],
    ]);
    const second = await t.api('POST', issues(), { token: guest.token, body: { title: 'By a guest', labels: 'ignored', weight: 5 } });
    expect(second.status).toBe(201);
    expect(second.body).toMatchObject({ iid: 2, labels: [], weight: null, author: user(guest) });
  });

  it('refuses bad input and hides what must be hidden', async () => {
    expect((await t.api('POST', issues(), { token: reporter.token, body: {} })).body).toEqual({ error: 'title is missing' });
    const blank = await t.api('POST', issues(), { token: reporter.token, body: { title: ' ' } });
    expect(blank.status).toBe(400);
    expect(blank.body).toEqual({ message: { title: ["can't be blank"] } });
    expect((await t.api('POST', issues(), { token: stranger.token, body: { title: 'x' } })).status).toBe(404);
    expect((await t.api('POST', issues(), { token: null, body: { title: 'x' } })).status).toBe(401);
    const missing = await t.api('GET', issues('/999'), { token: reporter.token });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ message: '404 Issue Not Found' });
    expect((await t.api('GET', issues('/1'), { token: stranger.token })).body).toEqual({ message: '404 Project Not Found' });
  });

  it('updates, relabels, closes and reopens', async () => {
    const updated = await t.api('PUT', issues('/1'), { token: reporter.token, body: { title: 'Renamed', add_labels: 'ui', remove_labels: 'bug', weight: 1 } });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body).toMatchObject({ title: 'Renamed', labels: ['backend', 'ui'], weight: 1 });
    const closed = await t.api('PUT', issues('/1'), { token: reporter.token, body: { state_event: 'close' } });
    expect(closed.body).toMatchObject({ state: 'closed', closed_by: user(reporter) });
    expect(closed.body.closed_at).toEqual(expect.any(String));
    const reopened = await t.api('PUT', issues('/1'), { token: reporter.token, body: { state_event: 'reopen', labels: '', milestone_id: 0, assignee_ids: [0] } });
    expect(reopened.body).toMatchObject({ state: 'opened', closed_at: null, closed_by: null, labels: [], milestone: null, assignees: [], assignee: null });
    expect((await t.api('PUT', issues('/1'), { token: reporter.token, body: {} })).status).toBe(400);
    // A parameter given empty or null clears its field, alone too (Grape's at_least_one_of counts it as given).
    await t.api('PUT', issues('/1'), { token: reporter.token, body: { due_date: '2031-02-03', weight: 4 } });
    const cleared = await t.api('PUT', issues('/1'), { token: reporter.token, body: { due_date: '' } });
    expect(cleared.status, cleared.text).toBe(200);
    expect(cleared.body).toMatchObject({ due_date: null, weight: 4 });
    expect((await t.api('PUT', issues('/1'), { token: reporter.token, body: { weight: null } })).body).toMatchObject({ weight: null });
    const form = await t.api('PUT', `${issues('/1')}?due_date=2031-02-03`, { token: reporter.token });
    expect(form.body.due_date).toBe('2031-02-03');
    expect((await t.api('PUT', issues('/1'), { token: reporter.token, body: { due_date: null } })).body.due_date).toBeNull();
    // A guest who is not the author may not update; the author may.
    expect((await t.api('PUT', issues('/1'), { token: guest.token, body: { title: 'no' } })).status).toBe(403);
    expect((await t.api('PUT', issues('/2'), { token: guest.token, body: { title: 'Mine' } })).body.title).toBe('Mine');
  });

  it('lists with GitLab’s filters, orders and pagination', async () => {
    await t.api('PUT', issues('/1'), { token: reporter.token, body: { labels: 'bug', assignee_ids: [reporter.id] } });
    await t.api('POST', issues(), { token: reporter.token, body: { title: 'Third search-me', confidential: true } });
    const all = await t.api('GET', `${issues()}?per_page=2`, { token: reporter.token });
    expect(all.status).toBe(200);
    expect(all.headers.get('x-total')).toBe('3');
    expect(all.body.map((i: { iid: number }) => i.iid)).toEqual([3, 2]);
    const iids = async (query: string, token = reporter.token) => (await t.api('GET', `${issues()}?${query}`, { token })).body.map((i: { iid: number }) => i.iid);
    expect(await iids('labels=bug')).toEqual([1]);
    expect(await iids('labels=None')).toEqual([3, 2]);
    expect(await iids(`assignee_id=${reporter.id}`)).toEqual([1]);
    expect(await iids('assignee_id=None')).toEqual([3, 2]);
    expect(await iids(`author_id=${guest.id}`)).toEqual([2]);
    // Usernames are found ignoring case, as GitLab's User.find_by_username; an unknown one matches nothing.
    expect(await iids(`author_username=${guest.username.toUpperCase()}`)).toEqual([2]);
    expect(await iids('author_username=nobody-at-all')).toEqual([]);
    expect(await iids(`assignee_username[]=${reporter.username.toUpperCase()}`)).toEqual([1]);
    expect(await iids(`assignee_username[]=${reporter.username}&assignee_username[]=${guest.username}`)).toEqual([]);
    expect((await t.api('GET', `${issues()}?assignee_id=me`, { token: reporter.token })).status).toBe(400);
    expect(await iids('search=search-me')).toEqual([3]);
    expect(await iids('order_by=title&sort=asc')).toEqual([2, 1, 3]);
    expect(await iids('order_by=created_at&sort=asc')).toEqual([1, 2, 3]);
    expect(await iids('iids[]=1&iids[]=3')).toEqual([3, 1]);
    expect(await iids('scope=created_by_me')).toEqual([3, 1]);
    expect(await iids('state=closed')).toEqual([]);
    // The confidential issue is hidden from the guest.
    expect(await iids('', guest.token)).toEqual([2, 1]);
    expect((await t.api('GET', issues('/3'), { token: guest.token })).status).toBe(404);
    const groupList = await t.api('GET', `/groups/${group.id}/issues`, { token: reporter.token });
    expect(groupList.body.map((i: { iid: number }) => i.iid)).toEqual([3, 2, 1]);
    const mine = await t.api('GET', '/issues', { token: guest.token });
    expect(mine.body.map((i: { iid: number }) => i.iid)).toEqual([2]);
    expect((await t.api('GET', '/issues', { token: null })).status).toBe(401);
  });

  it('records opened, closed and reopened events; a confidential issue\'s only for those who may read it', async () => {
    const seen = async (token: string) => {
      const events = await t.api('GET', `/projects/${project.id}/events?target_type=issue&sort=asc`, { token });
      expect(events.status).toBe(200);
      return events.body.map((e: { action_name: string; target_iid: number; target_type: string }) => [e.action_name, e.target_iid, e.target_type]);
    };
    const everyone = [
      ['opened', 1, 'Issue'],
      ['opened', 2, 'Issue'],
      ['closed', 1, 'Issue'],
      ['opened', 1, 'Issue'],
    ];
    expect(await seen(guest.token)).toEqual(everyone);
    // Issue 3 is confidential: its event is the reporter's to see (GitLab's Event#visible_to_user? asks read_issue).
    expect(await seen(reporter.token)).toEqual([...everyone, ['opened', 3, 'Issue']]);
    expect((await t.api('GET', `/projects/${project.id}/events?target_type=issue&action=reopened`, { token: reporter.token })).body).toHaveLength(1);
  });

  it('tracks time', async () => {
    const estimate = await t.api('POST', issues('/1/time_estimate'), { token: reporter.token, body: { duration: '3h30m' } });
    expect(estimate.status, estimate.text).toBe(200);
    expect(estimate.body).toEqual({ time_estimate: 12600, total_time_spent: 0, human_time_estimate: '3h 30m', human_total_time_spent: null });
    const spent = await t.api('POST', issues('/1/add_spent_time'), { token: reporter.token, body: { duration: '1d' } });
    expect(spent.status).toBe(201);
    expect(spent.body).toMatchObject({ total_time_spent: 28800, human_total_time_spent: '1d' });
    expect((await t.api('GET', issues('/1/time_stats'), { token: guest.token })).body).toMatchObject({ time_estimate: 12600 });
    expect((await t.api('POST', issues('/1/reset_spent_time'), { token: reporter.token })).body).toMatchObject({ total_time_spent: 0 });
    expect((await t.api('POST', issues('/1/time_estimate'), { token: reporter.token, body: { duration: 'soon' } })).status).toBe(400);
  });

  it('holds discussions; a single comment becomes a thread; confidential issues hide theirs', async () => {
    const thread = await t.api('POST', issues('/1/discussions'), { token: guest.token, body: { body: 'A question' } });
    expect(thread.status, thread.text).toBe(201);
    expect(thread.body.notes[0]).toMatchObject({ noteable_type: 'Issue', noteable_iid: 1, body: 'A question' });
    const reply = await t.api('POST', issues(`/1/discussions/${thread.body.id}/notes`), { token: reporter.token, body: { body: 'An answer' } });
    expect(reply.status).toBe(201);
    expect((await t.api('GET', issues('/1'), { token: guest.token })).body.user_notes_count).toBe(2);
    const participants = await t.api('GET', issues('/1/participants'), { token: guest.token });
    expect(participants.body.map((u: { id: number }) => u.id)).toEqual([reporter.id, guest.id]);
    const hidden = await t.api('POST', issues('/3/discussions'), { token: reporter.token, body: { body: 'secret' } });
    expect(hidden.status).toBe(201);
    // The comment on the confidential issue is an event only its readers see (Event#visible_to_user? asks read_note).
    expect((await t.api('GET', `/projects/${project.id}/events?action=commented`, { token: guest.token })).body).toHaveLength(2);
    const all = await t.api('GET', `/projects/${project.id}/events?action=commented`, { token: reporter.token });
    expect(all.body.map((e: { note: { body: string } }) => e.note.body)).toEqual(['secret', 'An answer', 'A question']);
    const peek = await t.api('GET', issues('/3/discussions'), { token: guest.token });
    expect(peek.status).toBe(404);
    expect(peek.body).toEqual({ message: '404 Issue Not Found' });
  });

  it('holds plain notes (the Notes API): newest first, changed by their authors only', async () => {
    const made = await t.api('POST', issues('/1/notes'), { token: guest.token, body: { body: 'A note' } });
    expect(made.status, made.text).toBe(201);
    expect(made.body).toMatchObject({ type: null, body: 'A note', noteable_type: 'Issue', noteable_iid: 1, author: user(guest), system: false });
    const list = await t.api('GET', issues('/1/notes'), { token: reporter.token });
    expect(list.status).toBe(200);
    expect(list.body[0].id).toBe(made.body.id);
    expect((await t.api('GET', issues('/1/notes?sort=asc'), { token: reporter.token })).body.at(-1).id).toBe(made.body.id);
    expect((await t.api('GET', issues(`/1/notes/${made.body.id}`), { token: reporter.token })).body.body).toBe('A note');
    expect((await t.api('PUT', issues(`/1/notes/${made.body.id}`), { token: reporter.token, body: { body: 'no' } })).status).toBe(403);
    expect((await t.api('PUT', issues(`/1/notes/${made.body.id}`), { token: guest.token, body: { body: 'Edited' } })).body.body).toBe('Edited');
    expect((await t.api('DELETE', issues(`/1/notes/${made.body.id}`), { token: guest.token })).status).toBe(204);
    expect((await t.api('GET', issues('/3/notes'), { token: guest.token })).status).toBe(404);
    expect((await t.api('POST', issues('/3/notes'), { token: guest.token, body: { body: 'x' } })).status).toBe(404);
  });

  it('counts a project’s open issues everyone may see as open_issues_count, absent when issues are disabled', async () => {
    const other = await createProject(t, owner.token, { namespaceId: group.id });
    const make = (body: Record<string, unknown>) => t.api('POST', `/projects/${other.id}/issues`, { token: owner.token, body });
    await make({ title: 'open' });
    await make({ title: 'secret', confidential: true });
    const closing = await make({ title: 'closed' });
    await t.api('PUT', `/projects/${other.id}/issues/${closing.body.iid}`, { token: owner.token, body: { state_event: 'close' } });
    const shown = await t.api('GET', `/projects/${other.id}`, { token: owner.token });
    expect(shown.body.open_issues_count).toBe(1);
    const listed = await t.api('GET', `/groups/${group.id}/projects`, { token: owner.token });
    expect(listed.body.find((p: { id: number }) => p.id === other.id).open_issues_count).toBe(1);
    expect((await t.api('PUT', `/projects/${other.id}`, { token: owner.token, body: { issues_access_level: 'disabled' } })).status).toBe(200);
    const off = await t.api('GET', `/projects/${other.id}`, { token: owner.token });
    expect(off.status).toBe(200);
    expect(off.body).not.toHaveProperty('open_issues_count');
  });

  it('takes the legacy assignee_id, which replaces assignee_ids, 0 unassigning', async () => {
    const made = await t.api('POST', issues(), { token: reporter.token, body: { title: 'Legacy assignee', assignee_id: guest.id, assignee_ids: [reporter.id] } });
    expect(made.status, made.text).toBe(201);
    expect(made.body).toMatchObject({ assignees: [user(guest)], assignee: user(guest) });
    const iid = made.body.iid as number;
    const alone = await t.api('PUT', issues(`/${iid}`), { token: reporter.token, body: { assignee_id: reporter.id } });
    expect(alone.status, alone.text).toBe(200);
    expect(alone.body).toMatchObject({ assignees: [user(reporter)], assignee: user(reporter) });
    const kept = await t.api('PUT', issues(`/${iid}`), { token: reporter.token, body: { assignee_ids: [guest.id] } });
    expect(kept.body.assignees).toEqual([expect.objectContaining(user(guest))]);
    const none = await t.api('PUT', issues(`/${iid}`), { token: reporter.token, body: { assignee_id: 0, assignee_ids: [reporter.id] } });
    expect(none.body).toMatchObject({ assignees: [], assignee: null });
  });

  it('deletes for owners only', async () => {
    expect((await t.api('DELETE', issues('/2'), { token: reporter.token })).status).toBe(403);
    expect((await t.api('DELETE', issues('/2'), { token: owner.token })).status).toBe(204);
    expect((await t.api('GET', issues('/2'), { token: owner.token })).status).toBe(404);
  });

  it('works through gitbeaker', async () => {
    const api = new Gitlab({ host: t.url, token: reporter.token });
    const made = await api.Issues.create(project.id, 'Via gitbeaker', { labels: 'client', description: 'd' });
    expect(made).toMatchObject({ title: 'Via gitbeaker', labels: ['client'] });
    const shown = await api.Issues.show(made.iid as number, { projectId: project.id });
    expect(shown.id).toBe(made.id);
    const edited = await api.Issues.edit(project.id, made.iid as number, { stateEvent: 'close' });
    expect(edited.state).toBe('closed');
    const listed = await api.Issues.all({ projectId: project.id, state: 'closed' });
    expect(listed.map((i) => i.iid)).toEqual([made.iid]);
    const thread = await api.IssueDiscussions.create(project.id, made.iid as number, 'hello');
    expect(thread.notes?.[0]?.body).toBe('hello');
    const note = await api.IssueNotes.create(project.id, made.iid as number, 'a plain note');
    expect(note.body).toBe('a plain note');
    const notes = await api.IssueNotes.all(project.id, made.iid as number);
    expect(notes.map((n) => n.body)).toEqual(['a plain note', 'hello']);
    await api.IssueNotes.edit(project.id, made.iid as number, note.id, { body: 'changed' });
    expect((await api.IssueNotes.show(project.id, made.iid as number, note.id)).body).toBe('changed');
    await api.IssueNotes.remove(project.id, made.iid as number, note.id);
    await api.Issues.remove(project.id, made.iid as number).catch((e: Error) => expect(e.message).toMatch(/Forbidden/));
  });
});
