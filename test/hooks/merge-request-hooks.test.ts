/**
 * Merge request events (GitLab's Merge Request Hook) to project hooks and system hooks hearing them: GitLab's
 * payload (Gitlab::HookData::MergeRequestBuilder) with its changes for open, update, close, reopen and merge, a push
 * to the source branch as `update` with `oldrev`, the hook test's sample, comments on merge requests embedding the
 * merge request in their Note Hook, and the reviewer and target-branch system notes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXTERNAL_URL, suiteServer } from '../support/server.js';
import { addMember, createProject, createUser, type TestUser } from '../support/factories.js';
import { startReceiver, type Received, type Receiver } from './receiver.js';

const t = suiteServer({ allowLocalRequestsFromWebHooks: true, webhookRetryBaseMs: 0, webhookMaxAttempts: 1 });
let mrs: Receiver;
let system: Receiver;
let notes: Receiver;
let other: Receiver;
let owner: TestUser;
let dev: TestUser;
let project: any;
let hookId: number;

const UTC_TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC$/;
const SHA = /^[0-9a-f]{40}$/;
const hookUser = (u: TestUser) => ({ id: u.id, name: `User ${u.username}`, username: u.username, avatar_url: null, email: `${u.username}@example.com` });

const ATTRIBUTE_KEYS = [
  'assignee_id', 'author_id', 'created_at', 'description', 'draft', 'head_pipeline_id', 'id', 'iid', 'last_edited_at', 'last_edited_by_id',
  'merge_commit_sha', 'merge_error', 'merge_params', 'merge_status', 'merge_user_id', 'merge_when_pipeline_succeeds', 'milestone_id', 'source_branch',
  'source_project_id', 'state_id', 'target_branch', 'target_project_id', 'time_estimate', 'title', 'updated_at', 'updated_by_id', 'prepared_at',
  'assignee_ids', 'blocking_discussions_resolved', 'detailed_merge_status', 'first_contribution', 'human_time_change', 'human_time_estimate',
  'human_total_time_spent', 'labels', 'last_commit', 'reviewer_ids', 'source', 'state', 'target', 'time_change', 'total_time_spent', 'url',
  'work_in_progress',
];

async function commit(branch: string, file: string, content: string, start?: string): Promise<string> {
  const exists = await t.api('GET', `/projects/${project.id}/repository/files/${file}?ref=${start ?? branch}`, { token: owner.token });
  const res = await t.api('POST', `/projects/${project.id}/repository/commits`, {
    token: owner.token,
    body: { branch, ...(start ? { start_branch: start } : {}), commit_message: `Write ${file}\n\nBody`, actions: [{ action: exists.status === 200 ? 'update' : 'create', file_path: file, content }] },
  });
  expect(res.status).toBe(201);
  return res.body.id;
}

/** The next merge request event a receiver gets (a system hook also hears other system events: they are passed over). */
async function nextMr(receiver: Receiver, header = 'Merge Request Hook'): Promise<Received> {
  for (;;) {
    const got = await receiver.next();
    if (got.json?.object_kind !== 'merge_request') continue;
    expect(got.headers['x-gitlab-event']).toBe(header);
    return got;
  }
}

let featureHead: string;

beforeAll(async () => {
  [mrs, system, notes, other] = await Promise.all([startReceiver(), startReceiver(), startReceiver(), startReceiver()]);
  [owner, dev] = await Promise.all([createUser(t), createUser(t)]);
  project = await createProject(t, owner.token);
  await addMember(t, owner.token, 'projects', project.id, dev.id, 30);
  await commit('main', 'a.txt', 'one\n');
  await commit('other', 'b.txt', 'two\n', 'main');
  featureHead = await commit('feature', 'c.txt', 'three\n', 'main');
  const hook = await t.api('POST', `/projects/${project.id}/hooks`, { token: owner.token, body: { url: `${mrs.url}/mr`, push_events: false, merge_requests_events: true } });
  expect(hook.status).toBe(201);
  hookId = hook.body.id;
  await t.api('POST', `/projects/${project.id}/hooks`, { token: owner.token, body: { url: `${notes.url}/notes`, push_events: false, note_events: true } });
  const sys = await t.api('POST', '/hooks', { body: { url: `${system.url}/system`, push_events: false, repository_update_events: false, merge_requests_events: true } });
  expect(sys.status).toBe(201);
  // Another project's hook hears merge request events of its own project only.
  const elsewhere = await createProject(t, owner.token);
  await t.api('POST', `/projects/${elsewhere.id}/hooks`, { token: owner.token, body: { url: `${other.url}/other`, push_events: false, merge_requests_events: true } });
});
afterAll(async () => {
  const hooks = await t.api('GET', '/hooks');
  for (const h of hooks.body ?? []) await t.api('DELETE', `/hooks/${h.id}`);
  await Promise.all([mrs, system, notes, other].map((r) => r?.close()));
});

const mrPath = (suffix = '') => `/projects/${project.id}/merge_requests${suffix}`;

describe('merge request hooks', () => {
  let iid: number;
  let id: number;

  it('opening a merge request sends GitLab’s Merge Request Hook with action open, to project and system hooks', async () => {
    const created = await t.api('POST', mrPath(), {
      token: owner.token,
      body: { source_branch: 'feature', target_branch: 'main', title: 'Add c', description: 'Adds c', labels: 'feat', assignee_ids: [dev.id], reviewer_ids: [dev.id] },
    });
    expect(created.status).toBe(201);
    ({ iid, id } = created.body);
    const got = await nextMr(mrs);
    const web = `${EXTERNAL_URL}/${project.path_with_namespace}`;
    expect(Object.keys(got.json).sort()).toEqual(['assignees', 'changes', 'event_type', 'labels', 'object_attributes', 'object_kind', 'project', 'repository', 'reviewers', 'user']);
    const attrs = got.json.object_attributes;
    expect(Object.keys(attrs).sort()).toEqual([...ATTRIBUTE_KEYS, 'action'].sort());
    expect(got.json).toMatchObject({
      object_kind: 'merge_request',
      event_type: 'merge_request',
      user: hookUser(owner),
      project: { id: project.id, web_url: web, path_with_namespace: project.path_with_namespace },
      repository: { name: project.name, url: `git@${new URL(EXTERNAL_URL).hostname}:${project.path_with_namespace}.git`, description: null, homepage: web },
      assignees: [hookUser(dev)],
      reviewers: [hookUser(dev)],
      labels: [expect.objectContaining({ title: 'feat', type: 'ProjectLabel', project_id: project.id })],
    });
    expect(attrs).toMatchObject({
      action: 'open',
      id,
      iid,
      title: 'Add c',
      description: 'Adds c',
      state: 'opened',
      state_id: 1,
      source_branch: 'feature',
      target_branch: 'main',
      source_project_id: project.id,
      target_project_id: project.id,
      author_id: owner.id,
      assignee_id: dev.id,
      assignee_ids: [dev.id],
      reviewer_ids: [dev.id],
      merge_status: 'can_be_merged',
      detailed_merge_status: 'mergeable',
      draft: false,
      work_in_progress: false,
      merge_commit_sha: null,
      merge_user_id: null,
      merge_when_pipeline_succeeds: false,
      blocking_discussions_resolved: true,
      first_contribution: false,
      head_pipeline_id: null,
      time_estimate: 0,
      total_time_spent: 0,
      human_time_estimate: null,
      human_total_time_spent: null,
      url: `${web}/-/merge_requests/${iid}`,
      created_at: expect.stringMatching(UTC_TIME),
      updated_at: expect.stringMatching(UTC_TIME),
      source: { id: project.id, web_url: web },
      target: { id: project.id, web_url: web },
      last_commit: { id: featureHead, message: 'Write c.txt\n\nBody', title: 'Write c.txt', url: `${web}/-/commit/${featureHead}`, author: { name: expect.any(String), email: expect.any(String) } },
      labels: [expect.objectContaining({ title: 'feat' })],
    });
    expect(attrs).not.toHaveProperty('oldrev');
    expect(got.json.changes).toMatchObject({ title: { previous: null, current: 'Add c' }, iid: { previous: null, current: iid }, source_branch: { previous: null, current: 'feature' } });
    // The system hook gets the same event, as a System Hook.
    const sys = await nextMr(system, 'System Hook');
    expect(sys.json).toEqual(got.json);
    expect(sys.headers['x-gitlab-event-uuid']).toBe(got.headers['x-gitlab-event-uuid']);
  });

  it('an update sends action update with what changed; one that changes nothing sends nothing', async () => {
    expect((await t.api('PUT', mrPath(`/${iid}`), { token: owner.token, body: { title: 'Add c' } })).status).toBe(200);
    const res = await t.api('PUT', mrPath(`/${iid}`), { token: owner.token, body: { title: 'Add file c', reviewer_ids: [], target_branch: 'other', labels: '' } });
    expect(res.status).toBe(200);
    const got = await nextMr(mrs);
    expect(got.json.object_attributes).toMatchObject({ action: 'update', title: 'Add file c', target_branch: 'other', reviewer_ids: [] });
    expect(got.json).not.toHaveProperty('reviewers');
    expect(got.json.labels).toEqual([]);
    const { changes } = got.json;
    expect(Object.keys(changes).sort()).toEqual(['labels', 'reviewers', 'target_branch', 'title', 'updated_at']);
    expect(changes.title).toEqual({ previous: 'Add c', current: 'Add file c' });
    expect(changes.target_branch).toEqual({ previous: 'main', current: 'other' });
    expect(changes.reviewers).toEqual({ previous: [hookUser(dev)], current: [] });
    expect(changes.labels).toEqual({ previous: [expect.objectContaining({ title: 'feat' })], current: [] });
    expect(changes.updated_at).toEqual({ previous: expect.stringMatching(UTC_TIME), current: expect.stringMatching(UTC_TIME) });
    await nextMr(system, 'System Hook');
  });

  it('writes GitLab’s system notes for reviewers and the target branch', async () => {
    await t.api('PUT', mrPath(`/${iid}`), { token: owner.token, body: { reviewer_ids: [dev.id, owner.id], target_branch: 'main' } });
    const got = await nextMr(mrs);
    expect(got.json.changes.reviewers).toEqual({ previous: [], current: [hookUser(dev), hookUser(owner)] });
    await nextMr(system, 'System Hook');
    const notesRes = await t.api('GET', mrPath(`/${iid}/notes?sort=asc`), { token: owner.token });
    const bodies = notesRes.body.filter((n: any) => n.system && !n.body.startsWith('changed title')).map((n: any) => n.body);
    expect(bodies).toEqual([
      'changed target branch from `main` to `other`',
      `removed review request for @${dev.username}`,
      'changed target branch from `other` to `main`',
      `requested review from @${dev.username} and @${owner.username}`,
    ]);
  });

  it('a push to the source branch sends update with oldrev and no changes', async () => {
    const before = featureHead;
    featureHead = await commit('feature', 'c.txt', 'three and more\n');
    const got = await nextMr(mrs);
    expect(got.json.object_attributes).toMatchObject({ action: 'update', oldrev: before, last_commit: { id: featureHead } });
    expect(got.json.changes).toEqual({});
    expect(got.json.user).toEqual(hookUser(owner));
    await nextMr(system, 'System Hook');
  });

  it('closing and reopening send close and reopen with the state change', async () => {
    await t.api('PUT', mrPath(`/${iid}`), { token: dev.token, body: { state_event: 'close' } });
    const closed = await nextMr(mrs);
    expect(closed.json.object_attributes).toMatchObject({ action: 'close', state: 'closed', state_id: 2, detailed_merge_status: 'not_open' });
    expect(closed.json.changes.state_id).toEqual({ previous: 1, current: 2 });
    expect(closed.json.user).toEqual(hookUser(dev));
    await nextMr(system, 'System Hook');
    await t.api('PUT', mrPath(`/${iid}`), { token: dev.token, body: { state_event: 'reopen' } });
    const reopened = await nextMr(mrs);
    expect(reopened.json.object_attributes).toMatchObject({ action: 'reopen', state: 'opened', state_id: 1 });
    expect(reopened.json.changes.state_id).toEqual({ previous: 2, current: 1 });
    await nextMr(system, 'System Hook');
  });

  it('merging sends merge with the merge commit and who merged', async () => {
    const res = await t.api('PUT', mrPath(`/${iid}/merge`), { token: owner.token });
    expect(res.status).toBe(200);
    const got = await nextMr(mrs);
    expect(got.json.object_attributes).toMatchObject({ action: 'merge', state: 'merged', state_id: 3, merge_commit_sha: res.body.merge_commit_sha, merge_user_id: owner.id, detailed_merge_status: 'not_open' });
    expect(res.body.merge_commit_sha).toMatch(SHA);
    expect(got.json.changes.state_id).toEqual({ previous: 1, current: 3 });
    expect(got.json.changes.merge_commit_sha).toEqual({ previous: null, current: res.body.merge_commit_sha });
    await nextMr(system, 'System Hook');
  });

  it('a comment on a merge request sends a Note Hook embedding the merge request', async () => {
    const note = await t.api('POST', mrPath(`/${iid}/notes`), { token: dev.token, body: { body: 'Looks good' } });
    expect(note.status).toBe(201);
    const got = await notes.next();
    expect(got.headers['x-gitlab-event']).toBe('Note Hook');
    const web = `${EXTERNAL_URL}/${project.path_with_namespace}`;
    expect(got.json.object_attributes).toMatchObject({ noteable_type: 'MergeRequest', noteable_id: id, note: 'Looks good', url: `${web}/-/merge_requests/${iid}#note_${note.body.id}` });
    expect(Object.keys(got.json.merge_request).sort()).toEqual([...ATTRIBUTE_KEYS].sort());
    expect(got.json.merge_request).toMatchObject({ id, iid, state: 'merged', url: `${web}/-/merge_requests/${iid}` });
  });

  it('the hook test sends the project’s first merge request as GitLab’s to_hook_data: no action, no changes', async () => {
    const res = await t.api('POST', `/projects/${project.id}/hooks/${hookId}/test/merge_requests_events`, { token: owner.token });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ message: '201 Created' });
    const got = await nextMr(mrs);
    expect(got.json.object_attributes).not.toHaveProperty('action');
    expect(got.json.object_attributes).toMatchObject({ iid, state: 'merged' });
    expect(got.json.changes).toEqual({});
    // Another project without merge requests: GitLab's 422 message.
    const empty = await createProject(t, owner.token);
    const emptyHook = await t.api('POST', `/projects/${empty.id}/hooks`, { token: owner.token, body: { url: `${other.url}/x` } });
    const refused = await t.api('POST', `/projects/${empty.id}/hooks/${emptyHook.body.id}/test/merge_requests_events`, { token: owner.token });
    expect(refused.status).toBe(422);
    expect(refused.body).toEqual({ message: 'Ensure the project has merge requests.' });
    // A developer may not test the hook.
    expect((await t.api('POST', `/projects/${project.id}/hooks/${hookId}/test/merge_requests_events`, { token: dev.token })).status).toBe(403);
  });
});
