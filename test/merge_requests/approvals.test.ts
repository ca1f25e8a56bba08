/**
 * Merge request approvals as GitLab Free has them (lib/api/merge_request_approvals.rb): approve (with `sha`),
 * unapprove, the approvals entity, reset by bots only, their system notes and `approved` events, and GraphQL's
 * approved / approvedBy / approvalsRequired / approvalsLeft / userPermissions.canApprove. Through gitbeaker's
 * MergeRequestApprovals and raw HTTP.
 */
import { Gitlab } from '@gitbeaker/rest';
import { beforeAll, describe, expect, it } from 'vitest';
import { suiteServer } from '../support/server.js';
import { addMember, apiOk, createProject, createUser, type TestUser } from '../support/factories.js';

const t = suiteServer();
let owner: TestUser;
let developer: TestUser;
let reporter: TestUser;
let stranger: TestUser;
let project: { id: number; path_with_namespace: string };

const ok = (method: string, path: string, body?: object, token = owner.token) => apiOk(t, token, method, path, body);
const basic = (u: TestUser) => expect.objectContaining({ id: u.id, username: u.username, state: 'active' });

async function newMergeRequest(branch: string) {
  await ok('POST', `/projects/${project.id}/repository/commits`, { branch, start_branch: 'main', commit_message: branch, actions: [{ action: 'create', file_path: `${branch}.txt`, content: 'x\n' }] });
  return ok('POST', `/projects/${project.id}/merge_requests`, { source_branch: branch, target_branch: 'main', title: `MR ${branch}` });
}

beforeAll(async () => {
  [owner, developer, reporter, stranger] = await Promise.all([createUser(t), createUser(t), createUser(t), createUser(t)]);
  project = await createProject(t, owner.token, { visibility: 'private' });
  await addMember(t, owner.token, 'projects', project.id, developer.id, 30);
  await addMember(t, owner.token, 'projects', project.id, reporter.id, 20);
  await ok('POST', `/projects/${project.id}/repository/commits`, { branch: 'main', commit_message: 'init', actions: [{ action: 'create', file_path: 'a.txt', content: 'a\n' }] });
});

describe('merge request approvals', () => {
  it('approves, answers the approvals entity, refuses a second approval and unapproves', async () => {
    const mr = await newMergeRequest('approve-me');
    const path = `/projects/${project.id}/merge_requests/${mr.iid}`;

    const before = await t.api('GET', `${path}/approvals`, { token: developer.token });
    expect(before.status).toBe(200);
    expect(before.body).toEqual({
      id: mr.id,
      iid: mr.iid,
      project_id: project.id,
      title: 'MR approve-me',
      description: null,
      state: 'opened',
      created_at: mr.created_at,
      updated_at: mr.updated_at,
      merge_status: 'can_be_merged',
      approved: false,
      approvals_required: 0,
      approvals_left: 0,
      approved_by: [],
      user_has_approved: false,
      user_can_approve: true,
    });

    const approved = await t.api('POST', `${path}/approve`, { token: developer.token, body: { sha: mr.sha } });
    expect(approved.status).toBe(201);
    expect(approved.body).toMatchObject({ approved: true, user_has_approved: true, user_can_approve: false, approvals_left: 0 });
    expect(approved.body.approved_by).toEqual([{ user: basic(developer) }]);

    // Approving twice: ApprovalService answers nothing, the API `unauthorized!`.
    const twice = await t.api('POST', `${path}/approve`, { token: developer.token });
    expect(twice.status).toBe(401);
    expect(twice.body).toEqual({ message: '401 Unauthorized' });

    // The owner (author) approves too, through gitbeaker; approvers listed in order.
    const api = new Gitlab({ host: t.url, token: owner.token });
    const second = await api.MergeRequestApprovals.approve(project.id, mr.iid);
    expect((second as any).approved_by.map((a: any) => a.user.id)).toEqual([developer.id, owner.id]);
    const config = await api.MergeRequestApprovals.showConfiguration(project.id, { mergerequestIId: mr.iid });
    expect(config).toMatchObject({ approved: true, user_has_approved: true, user_can_approve: false });

    // Another user's view: not approved by them; a reporter may not approve.
    const asReporter = await ok('GET', `${path}/approvals`, undefined, reporter.token);
    expect(asReporter).toMatchObject({ approved: true, user_has_approved: false, user_can_approve: false });

    // Side effects: system notes (not counted as user notes) and `approved` events.
    const notes = await ok('GET', `${path}/notes?sort=asc`);
    expect(notes.filter((n: any) => n.system).map((n: any) => [n.body, n.author.id])).toEqual([
      ['approved this merge request', developer.id],
      ['approved this merge request', owner.id],
    ]);
    expect((await ok('GET', path)).user_notes_count).toBe(0);
    const events = await ok('GET', `/projects/${project.id}/events?action=approved`);
    expect(events.map((e: any) => [e.action_name, e.target_iid, e.target_type, e.author_id])).toEqual([
      ['approved', mr.iid, 'MergeRequest', owner.id],
      ['approved', mr.iid, 'MergeRequest', developer.id],
    ]);

    await api.MergeRequestApprovals.unapprove(project.id, mr.iid);
    const unapproved = await t.api('POST', `${path}/unapprove`, { token: developer.token });
    expect(unapproved.status).toBe(201);
    expect(unapproved.body).toMatchObject({ approved: false, approved_by: [], user_has_approved: false, user_can_approve: true });
    const again = await t.api('POST', `${path}/unapprove`, { token: developer.token });
    expect(again.status).toBe(404);
    expect(again.body).toEqual({ message: '404 Not found' });
    const notesAfter = await ok('GET', `${path}/notes?sort=asc`);
    expect(notesAfter.filter((n: any) => n.system).map((n: any) => n.body)).toEqual([
      'approved this merge request',
      'approved this merge request',
      'unapproved this merge request',
      'unapproved this merge request',
    ]);
  });

  it('refuses a sha that is not the source head, other users and anonymous callers', async () => {
    const mr = await newMergeRequest('sha-check');
    const path = `/projects/${project.id}/merge_requests/${mr.iid}`;
    const wrong = await t.api('POST', `${path}/approve`, { token: developer.token, body: { sha: '0'.repeat(40) } });
    expect(wrong.status).toBe(409);
    expect(wrong.body).toEqual({ message: `SHA does not match HEAD of source branch: ${mr.sha}` });

    const reporterTry = await t.api('POST', `${path}/approve`, { token: reporter.token });
    expect(reporterTry.status).toBe(403);
    expect(reporterTry.body).toEqual({ message: '403 Forbidden' });
    const reporterUn = await t.api('POST', `${path}/unapprove`, { token: reporter.token });
    expect(reporterUn.status).toBe(403);

    for (const action of ['approve', 'unapprove']) {
      const hidden = await t.api('POST', `${path}/${action}`, { token: stranger.token });
      expect(hidden.status).toBe(404);
      expect(hidden.body).toEqual({ message: '404 Project Not Found' });
    }
    expect((await t.api('GET', `${path}/approvals`, { token: stranger.token })).status).toBe(404);
    expect((await t.api('POST', `${path}/approve`, { token: null })).status).toBe(401);
    expect((await t.api('GET', `/projects/${project.id}/merge_requests/999/approvals`, { token: owner.token })).body).toEqual({ message: '404 Merge Request Not Found' });

    const still = await ok('GET', `${path}/approvals`);
    expect(still.approved_by).toEqual([]);
  });

  it('lets only bots reset approvals (202), not once merged', async () => {
    const mr = await newMergeRequest('reset-me');
    const path = `/projects/${project.id}/merge_requests/${mr.iid}`;
    await ok('POST', `${path}/approve`, undefined, developer.token);

    for (const token of [owner.token, developer.token]) {
      const refused = await t.api('PUT', `${path}/reset_approvals`, { token });
      expect(refused.status).toBe(401);
      expect(refused.body).toEqual({ message: '401 Unauthorized' });
    }
    expect((await t.api('PUT', `${path}/reset_approvals`, { token: stranger.token })).status).toBe(404);

    const expiresAt = new Date(Date.now() + 3 * 86_400_000).toISOString().slice(0, 10);
    const bot = await ok('POST', `/projects/${project.id}/access_tokens`, { name: 'bot', scopes: ['api'], access_level: 30, expires_at: expiresAt });
    const reset = await t.api('PUT', `${path}/reset_approvals`, { token: bot.token });
    expect(reset.status).toBe(202);
    expect(reset.body).toBe(202);
    expect((await ok('GET', `${path}/approvals`)).approved_by).toEqual([]);

    await ok('PUT', `${path}/merge`);
    const merged = await t.api('PUT', `${path}/reset_approvals`, { token: bot.token });
    expect(merged.status).toBe(401);
  });

  it('keeps approvals when the source branch is pushed to (GitLab Free does not reset them)', async () => {
    const mr = await newMergeRequest('push-after');
    const path = `/projects/${project.id}/merge_requests/${mr.iid}`;
    await ok('POST', `${path}/approve`, undefined, developer.token);
    await ok('POST', `/projects/${project.id}/repository/commits`, { branch: 'push-after', commit_message: 'more', actions: [{ action: 'create', file_path: 'more.txt', content: 'm\n' }] });
    // The push's refresh (a new diff version, GitLab's RefreshService in PostReceive) runs on the job queue.
    await t.server.app.jobs.drain(60_000);
    const after = await ok('GET', `${path}/approvals`);
    expect(after.approved_by).toEqual([{ user: basic(developer) }]);
    // A stale sha is refused; the new head is accepted (by another approver).
    const fresh = await ok('GET', path);
    expect(fresh.sha).not.toBe(mr.sha);
    expect((await t.api('POST', `${path}/approve`, { token: owner.token, body: { sha: mr.sha } })).status).toBe(409);
    expect((await t.api('POST', `${path}/approve`, { token: owner.token, body: { sha: fresh.sha } })).status).toBe(201);
  });

  it('answers GraphQL approved, approvedBy, approvalsRequired, approvalsLeft and canApprove', async () => {
    const mr = await newMergeRequest('graphql-approvals');
    const query = `query($path: ID!, $iid: String!) { project(fullPath: $path) { mergeRequest(iid: $iid) {
      approved approvalsRequired approvalsLeft approvedBy { nodes { username } } userPermissions { canApprove } } } }`;
    const read = async (token: string) => (await t.graphql(query, { path: project.path_with_namespace, iid: String(mr.iid) }, token)).body.data!.project.mergeRequest;
    expect(await read(developer.token)).toEqual({ approved: false, approvalsRequired: 0, approvalsLeft: 0, approvedBy: { nodes: [] }, userPermissions: { canApprove: true } });

    const approve = await t.graphql(
      `mutation($path: ID!, $iid: String!) { mergeRequestApprove(input: { projectPath: $path, iid: $iid }) { errors mergeRequest { approved } } }`,
      { path: project.path_with_namespace, iid: String(mr.iid) },
      developer.token,
    );
    expect(approve.body.data!.mergeRequestApprove).toEqual({ errors: [], mergeRequest: { approved: true } });
    expect(await read(developer.token)).toMatchObject({ approved: true, approvedBy: { nodes: [{ username: developer.username }] }, userPermissions: { canApprove: false } });
    expect(await read(reporter.token)).toMatchObject({ approved: true, userPermissions: { canApprove: false } });
  });
});
