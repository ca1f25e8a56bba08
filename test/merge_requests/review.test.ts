/**
 * Resource events of merge requests (GitLab's resource_label_events, resource_milestone_events and
 * resource_state_events on `/projects/:id/merge_requests/:merge_request_iid`): recorded on create, update, close,
 * reopen and merge, read through gitbeaker and raw HTTP.
 */
import { Gitlab } from '@gitbeaker/rest';
import { beforeAll, describe, expect, it } from 'vitest';
import { suiteServer } from '../support/server.js';
import { apiOk, createProject, createUser, type TestUser } from '../support/factories.js';

const t = suiteServer();
let owner: TestUser;
let stranger: TestUser;
let project: { id: number; path_with_namespace: string };

const ok = (method: string, path: string, body?: object, token = owner.token) => apiOk(t, token, method, path, body);

beforeAll(async () => {
  [owner, stranger] = await Promise.all([createUser(t), createUser(t)]);
  project = await createProject(t, owner.token, { visibility: 'private' });
  await ok('POST', `/projects/${project.id}/repository/commits`, { branch: 'main', commit_message: 'init', actions: [{ action: 'create', file_path: 'a.txt', content: 'a\n' }] });
  for (const branch of ['feature', 'other']) {
    await ok('POST', `/projects/${project.id}/repository/commits`, { branch, start_branch: 'main', commit_message: branch, actions: [{ action: 'create', file_path: `${branch}.txt`, content: 'x\n' }] });
  }
});

describe('merge request resource events', () => {
  it('records label, milestone and state changes', async () => {
    const base = `/projects/${project.id}`;
    const milestone = await ok('POST', `${base}/milestones`, { title: 'v1' });
    const mr = await ok('POST', `${base}/merge_requests`, { source_branch: 'feature', target_branch: 'main', title: 'Feature', labels: 'bug', milestone_id: milestone.id });
    const events = `${base}/merge_requests/${mr.iid}`;
    await ok('PUT', events, { labels: 'bug,docs' });
    await ok('PUT', events, { remove_labels: 'bug', milestone_id: 0 });
    await ok('PUT', events, { state_event: 'close' });
    await ok('PUT', events, { state_event: 'reopen' });

    const labels = await t.api('GET', `${events}/resource_label_events`, { token: owner.token });
    expect(labels.headers.get('x-total')).toBe('3');
    expect(labels.body.map((e: { action: string; label: { name: string } }) => [e.action, e.label.name])).toEqual([
      ['add', 'bug'],
      ['add', 'docs'],
      ['remove', 'bug'],
    ]);
    expect(labels.body[0]).toMatchObject({ resource_type: 'MergeRequest', resource_id: mr.id, user: { id: owner.id } });
    const one = await ok('GET', `${events}/resource_label_events/${labels.body[1].id}`);
    expect(one).toMatchObject({ id: labels.body[1].id, action: 'add', label: { name: 'docs' } });

    const milestones = await ok('GET', `${events}/resource_milestone_events`);
    expect(milestones.map((e: { action: string; milestone: { id: number }; state: string }) => [e.action, e.milestone.id, e.state])).toEqual([
      ['add', milestone.id, 'opened'],
      ['remove', milestone.id, 'opened'],
    ]);

    const api = new Gitlab({ host: t.url, token: owner.token });
    const states = await api.MergeRequestStateEvents.all(project.id, mr.iid);
    expect(states.map((e) => e.state)).toEqual(['closed', 'reopened']);
    expect(states[0]).toMatchObject({ resource_type: 'MergeRequest', resource_id: mr.id });

    await ok('PUT', `${events}/merge`);
    expect((await ok('GET', `${events}/resource_state_events`)).map((e: { state: string }) => e.state)).toEqual(['closed', 'reopened', 'merged']);
  });

  it('leaves system notes for title, draft status, description, discussion lock and assignees', async () => {
    const base = `/projects/${project.id}`;
    await ok('POST', `/projects/${project.id}/repository/commits`, { branch: 'notes', start_branch: 'main', commit_message: 'n', actions: [{ action: 'create', file_path: 'n.txt', content: 'n\n' }] });
    const mr = await ok('POST', `${base}/merge_requests`, { source_branch: 'notes', target_branch: 'main', title: 'Notes' });
    const path = `${base}/merge_requests/${mr.iid}`;
    await ok('PUT', path, { title: 'Draft: Notes' });
    await ok('PUT', path, { title: 'Draft: Notes two', description: 'text' });
    await ok('PUT', path, { discussion_locked: true, assignee_ids: [owner.id] });
    const notes = await ok('GET', `${path}/notes?sort=asc&order_by=created_at`);
    expect(notes.map((n: { body: string; system: boolean }) => [n.system, n.body])).toEqual([
      [true, 'marked this merge request as **draft**'],
      [true, 'changed title from **Draft: Notes** to **Draft: Notes{+ two+}**'],
      [true, 'changed the description'],
      [true, 'locked the discussion in this merge request'],
      [true, `assigned to @${owner.username}`],
    ]);
    expect(notes[0]).toMatchObject({ noteable_type: 'MergeRequest', noteable_iid: mr.iid });
  });

  it('hides them from those who cannot read the merge request, and finds no unknown event', async () => {
    const base = `/projects/${project.id}`;
    const mr = await ok('POST', `${base}/merge_requests`, { source_branch: 'other', target_branch: 'main', title: 'Other' });
    expect(await ok('GET', `${base}/merge_requests/${mr.iid}/resource_label_events`)).toEqual([]);
    expect(await t.api('GET', `${base}/merge_requests/${mr.iid}/resource_label_events`, { token: stranger.token })).toMatchObject({ status: 404 });
    expect(await t.api('GET', `${base}/merge_requests/${mr.iid}/resource_state_events/999999`, { token: owner.token })).toMatchObject({ status: 404 });
    expect(await t.api('GET', `${base}/merge_requests/${mr.iid}/resource_milestone_events`, { token: null })).toMatchObject({ status: 401 });
  });
});
