/**
 * Merge requests over REST on real branches: GitLab's entity, creation checks, lists and filters, commits, diffs and
 * changes, merging (a merge commit in the repository, read back with git), squash, sha guard, conflicts, notes and
 * discussions, activity events, and gitbeaker.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { Gitlab } from '@gitbeaker/rest';
import { suiteServer, EXTERNAL_URL } from '../support/server.js';
import { addMember, createGroup, createProject, createUser, type TestUser } from '../support/factories.js';
import { cloneUrl, gitSandbox } from '../support/git.js';

const t = suiteServer({ logLevel: 'error' });
const sandbox = gitSandbox();

const BASIC_KEYS = [
  'id', 'iid', 'project_id', 'title', 'description', 'state', 'created_at', 'updated_at', 'merged_by', 'merge_user', 'merged_at', 'closed_by', 'closed_at',
  'target_branch', 'source_branch', 'user_notes_count', 'upvotes', 'downvotes', 'author', 'assignees', 'assignee', 'reviewers', 'source_project_id',
  'target_project_id', 'labels', 'draft', 'imported', 'imported_from', 'work_in_progress', 'milestone', 'merge_when_pipeline_succeeds', 'merge_status',
  'detailed_merge_status', 'sha', 'merge_commit_sha', 'squash_commit_sha', 'discussion_locked', 'should_remove_source_branch', 'force_remove_source_branch',
  'prepared_at', 'reference', 'references', 'web_url', 'time_stats', 'squash', 'squash_on_merge', 'task_completion_status', 'has_conflicts',
  'blocking_discussions_resolved',
];
const SINGLE_KEYS = [
  ...BASIC_KEYS, 'subscribed', 'changes_count', 'latest_build_started_at', 'latest_build_finished_at', 'first_deployed_to_production_at', 'pipeline',
  'head_pipeline', 'diff_refs', 'merge_error', 'first_contribution', 'user',
];

let owner: TestUser;
let developer: TestUser;
let reporter: TestUser;
let guest: TestUser;
let stranger: TestUser;
let project: { id: number; path_with_namespace: string };

/** One commit on `branch` (from `start` when the branch is new) writing `files`, through the commits API. */
async function commit(branch: string, files: Record<string, string>, options: { start?: string; message?: string; token?: string } = {}) {
  const current = await t.api('GET', `/projects/${project.id}/repository/files/${encodeURIComponent(Object.keys(files)[0])}?ref=${encodeURIComponent(options.start ?? branch)}`, {
    token: owner.token,
  });
  const res = await t.api('POST', `/projects/${project.id}/repository/commits`, {
    token: options.token ?? owner.token,
    body: {
      branch,
      ...(options.start ? { start_branch: options.start } : {}),
      commit_message: options.message ?? `Change ${Object.keys(files).join(', ')}`,
      actions: Object.entries(files).map(([file_path, content]) => ({ action: current.status === 200 ? 'update' : 'create', file_path, content })),
    },
  });
  if (res.status !== 201) throw new Error(`commit: ${res.status} ${res.text}`);
  return res.body as { id: string };
}

const mrs = (suffix = '') => `/projects/${project.id}/merge_requests${suffix}`;
const userOf = (u: TestUser) => ({ id: u.id, username: u.username });

beforeAll(async () => {
  [owner, developer, reporter, guest, stranger] = await Promise.all([1, 2, 3, 4, 5].map(() => createUser(t)));
  const group = await createGroup(t, owner.token);
  project = await createProject(t, owner.token, { namespaceId: group.id });
  await addMember(t, owner.token, 'projects', project.id, developer.id, 30);
  await addMember(t, owner.token, 'projects', project.id, reporter.id, 20);
  await addMember(t, owner.token, 'projects', project.id, guest.id, 10);
  await commit('main', { 'README.md': '# Project\n', 'app.txt': 'one\ntwo\nthree\n' });
  // Developers may merge into main (pushing stays with Maintainers), a common setting; the protection test narrows it.
  await t.api('DELETE', `/projects/${project.id}/protected_branches/main`, { token: owner.token });
  await t.api('POST', `/projects/${project.id}/protected_branches`, { token: owner.token, body: { name: 'main', push_access_level: 40, merge_access_level: 30 } });
});

describe('creating merge requests', () => {
  it('creates one from a branch with commits, with GitLab’s entity and live git state', async () => {
    await commit('feature', { 'app.txt': 'one\ntwo\nthree\nfour\n' }, { start: 'main', message: 'Add four' });
    const head = await commit('feature', { 'new.txt': 'new file\n' }, { message: 'Add new file' });
    const main = await t.api('GET', `/projects/${project.id}/repository/branches/main`, { token: owner.token });
    const created = await t.api('POST', mrs(), {
      token: developer.token,
      body: { source_branch: 'feature', target_branch: 'main', title: 'Add four', description: '- [x] done\n- [ ] todo', labels: 'review,backend', assignee_ids: [developer.id], reviewer_ids: [reporter.id], remove_source_branch: true },
    });
    expect(created.status, created.text).toBe(201);
    expect(Object.keys(created.body).sort()).toEqual([...SINGLE_KEYS].sort());
    expect(created.body).toMatchObject({
      iid: 1,
      project_id: project.id,
      title: 'Add four',
      state: 'opened',
      merged_by: null,
      merge_user: null,
      merged_at: null,
      closed_by: null,
      closed_at: null,
      target_branch: 'main',
      source_branch: 'feature',
      author: userOf(developer),
      assignees: [userOf(developer)],
      assignee: userOf(developer),
      reviewers: [userOf(reporter)],
      source_project_id: project.id,
      target_project_id: project.id,
      labels: ['backend', 'review'],
      draft: false,
      work_in_progress: false,
      merge_status: 'can_be_merged',
      detailed_merge_status: 'mergeable',
      has_conflicts: false,
      sha: head.id,
      merge_commit_sha: null,
      squash_commit_sha: null,
      force_remove_source_branch: true,
      squash: false,
      reference: '!1',
      references: { short: '!1', relative: '!1', full: `${project.path_with_namespace}!1` },
      web_url: `${EXTERNAL_URL}/${project.path_with_namespace}/-/merge_requests/1`,
      task_completion_status: { count: 2, completed_count: 1 },
      changes_count: '2',
      diff_refs: { base_sha: main.body.commit.id, head_sha: head.id, start_sha: main.body.commit.id },
      user: { can_merge: true },
      pipeline: null,
      head_pipeline: null,
    });
  });

  it('refuses a second open merge request for the same branches with GitLab’s 409', async () => {
    const res = await t.api('POST', mrs(), { token: developer.token, body: { source_branch: 'feature', target_branch: 'main', title: 'Again' } });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ message: ['Another open merge request already exists for this source branch: !1'] });
  });

  it('refuses the same branch as source and target, and missing branches', async () => {
    const same = await t.api('POST', mrs(), { token: developer.token, body: { source_branch: 'main', target_branch: 'main', title: 'x' } });
    expect([same.status, same.body]).toEqual([422, { message: ["You can't use same project/branch for source and target"] }]);
    const missing = await t.api('POST', mrs(), { token: developer.token, body: { source_branch: 'nope', target_branch: 'main', title: 'x' } });
    expect([missing.status, missing.body]).toEqual([422, { message: ['Source branch "nope" does not exist'] }]);
    const noTarget = await t.api('POST', mrs(), { token: developer.token, body: { source_branch: 'feature', target_branch: 'nope', title: 'x' } });
    expect([noTarget.status, noTarget.body]).toEqual([422, { message: ['Target branch "nope" does not exist'] }]);
    const noTitle = await t.api('POST', mrs(), { token: developer.token, body: { source_branch: 'feature', target_branch: 'main' } });
    expect([noTitle.status, noTitle.body]).toEqual([400, { error: 'title is missing' }]);
  });

  it('lets Developers create, not Reporters; hides the project from non-members', async () => {
    await commit('reporter-branch', { 'r.txt': 'r\n' }, { start: 'main' });
    const reporterTry = await t.api('POST', mrs(), { token: reporter.token, body: { source_branch: 'reporter-branch', target_branch: 'main', title: 'x' } });
    expect([reporterTry.status, reporterTry.body]).toEqual([403, { message: '403 Forbidden' }]);
    const strangerTry = await t.api('POST', mrs(), { token: stranger.token, body: { source_branch: 'reporter-branch', target_branch: 'main', title: 'x' } });
    expect([strangerTry.status, strangerTry.body]).toEqual([404, { message: '404 Project Not Found' }]);
    const anonymous = await t.api('POST', mrs(), { token: null, body: { source_branch: 'reporter-branch', target_branch: 'main', title: 'x' } });
    expect(anonymous.status).toBe(401);
  });

  it('takes a draft from the title prefix', async () => {
    await commit('draft-branch', { 'd.txt': 'd\n' }, { start: 'main' });
    const res = await t.api('POST', mrs(), { token: developer.token, body: { source_branch: 'draft-branch', target_branch: 'main', title: '[Draft] not yet' } });
    expect(res.body).toMatchObject({ draft: true, work_in_progress: true, detailed_merge_status: 'draft_status' });
    const undrafted = await t.api('PUT', mrs(`/${res.body.iid}`), { token: developer.token, body: { title: 'ready now' } });
    expect(undrafted.body).toMatchObject({ draft: false, detailed_merge_status: 'mergeable' });
    const drafts = await t.api('GET', mrs('?wip=yes'), { token: developer.token });
    expect(drafts.body).toEqual([]);
  });
});

describe('listing and reading', () => {
  it('filters by state, labels, branches, author, reviewer, iids and search; pages with GitLab’s headers', async () => {
    const all = await t.api('GET', mrs(), { token: reporter.token });
    expect(all.status).toBe(200);
    expect(all.headers.get('x-total')).toBe('2');
    expect(all.body.map((m: { iid: number }) => m.iid)).toEqual([2, 1]);
    expect(Object.keys(all.body[0]).sort()).toEqual([...BASIC_KEYS].sort());
    const q = async (query: string) => (await t.api('GET', mrs(`?${query}`), { token: reporter.token })).body.map((m: { iid: number }) => m.iid);
    expect(await q('labels=review')).toEqual([1]);
    expect(await q('source_branch=draft-branch')).toEqual([2]);
    expect(await q(`reviewer_id=${reporter.id}`)).toEqual([1]);
    expect(await q(`author_id=${developer.id}&iids[]=1`)).toEqual([1]);
    expect(await q('search=READY')).toEqual([2]);
    expect(await q('state=merged')).toEqual([]);
    expect(await q('order_by=created_at&sort=asc')).toEqual([1, 2]);
    const page = await t.api('GET', mrs('?per_page=1&page=2'), { token: reporter.token });
    expect(page.body.map((m: { iid: number }) => m.iid)).toEqual([1]);
    expect([page.headers.get('x-page'), page.headers.get('x-total-pages'), page.headers.get('x-prev-page')]).toEqual(['2', '2', '1']);
  });

  it('lists the viewer’s own by default on /merge_requests, and refuses anonymous callers there', async () => {
    const mine = await t.api('GET', '/merge_requests', { token: developer.token });
    expect(mine.body.map((m: { iid: number }) => m.iid)).toEqual([2, 1]);
    const theirs = await t.api('GET', '/merge_requests', { token: reporter.token });
    expect(theirs.body).toEqual([]);
    const reviews = await t.api('GET', '/merge_requests?scope=reviews_for_me', { token: reporter.token });
    expect(reviews.body.map((m: { iid: number }) => m.iid)).toEqual([1]);
    expect((await t.api('GET', '/merge_requests', { token: null })).status).toBe(401);
  });

  it('hides merge requests of a private project from guests and strangers', async () => {
    const byGuest = await t.api('GET', mrs('/1'), { token: guest.token });
    expect([byGuest.status, byGuest.body]).toEqual([403, { message: '403 Forbidden' }]);
    expect((await t.api('GET', mrs(), { token: guest.token })).status).toBe(403);
    const stranger404 = await t.api('GET', mrs('/1'), { token: stranger.token });
    expect([stranger404.status, stranger404.body]).toEqual([404, { message: '404 Project Not Found' }]);
    const missing = await t.api('GET', mrs('/99'), { token: reporter.token });
    expect([missing.status, missing.body]).toEqual([404, { message: '404 Merge Request Not Found' }]);
  });

  it('lists commits newest first, diffs paged, and the deprecated changes', async () => {
    const commits = await t.api('GET', mrs('/1/commits'), { token: reporter.token });
    expect(commits.body.map((c: { title: string }) => c.title)).toEqual(['Add new file', 'Add four']);
    const diffs = await t.api('GET', mrs('/1/diffs?per_page=1'), { token: reporter.token });
    expect(diffs.headers.get('x-total')).toBe('2');
    expect(diffs.body).toEqual([
      { diff: '@@ -1,3 +1,4 @@\n one\n two\n three\n+four\n', collapsed: false, too_large: false, new_path: 'app.txt', old_path: 'app.txt', a_mode: '100644', b_mode: '100644', new_file: false, renamed_file: false, deleted_file: false, generated_file: false },
    ]);
    const changes = await t.api('GET', mrs('/1/changes'), { token: reporter.token });
    expect(changes.body.changes.map((c: { new_path: string; new_file: boolean }) => [c.new_path, c.new_file])).toEqual([['app.txt', false], ['new.txt', true]]);
    expect(changes.body.overflow).toBe(false);
  });
});

describe('updating', () => {
  it('changes labels, assignees, milestone, and closes and reopens with events', async () => {
    const milestone = await t.api('POST', `/projects/${project.id}/milestones`, { token: owner.token, body: { title: 'v1' } });
    const res = await t.api('PUT', mrs('/1'), { token: developer.token, body: { add_labels: 'extra', remove_labels: 'backend', milestone_id: milestone.body.id, assignee_ids: [], discussion_locked: true } });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ labels: ['extra', 'review'], milestone: { title: 'v1' }, assignees: [], assignee: null, discussion_locked: true });
    const closed = await t.api('PUT', mrs('/1'), { token: developer.token, body: { state_event: 'close' } });
    expect(closed.body).toMatchObject({ state: 'closed', closed_by: userOf(developer), detailed_merge_status: 'not_open' });
    const reopened = await t.api('PUT', mrs('/1'), { token: developer.token, body: { state_event: 'reopen' } });
    expect(reopened.body).toMatchObject({ state: 'opened', closed_by: null, closed_at: null });
    const events = await t.api('GET', `/projects/${project.id}/events?target_type=merge_request`, { token: owner.token });
    expect(events.body.filter((e: { target_iid: number }) => e.target_iid === 1).map((e: { action_name: string }) => e.action_name)).toEqual(['opened', 'closed', 'opened']);
  });

  it('needs at least one parameter, and lets the author but not a Reporter update', async () => {
    const none = await t.api('PUT', mrs('/1'), { token: developer.token, body: {} });
    expect(none.status).toBe(400);
    const byReporter = await t.api('PUT', mrs('/1'), { token: reporter.token, body: { title: 'x' } });
    expect(byReporter.status).toBe(403);
  });
});

describe('notes and discussions', () => {
  it('comments and threads on merge requests through the notes engine', async () => {
    const note = await t.api('POST', mrs('/1/notes'), { token: developer.token, body: { body: 'Looks good' } });
    expect(note.status, note.text).toBe(201);
    expect(note.body).toMatchObject({ body: 'Looks good', noteable_type: 'MergeRequest', noteable_iid: 1, author: userOf(developer) });
    const thread = await t.api('POST', mrs('/1/discussions'), { token: developer.token, body: { body: 'A question' } });
    expect(thread.status).toBe(201);
    const reply = await t.api('POST', mrs(`/1/discussions/${thread.body.id}/notes`), { token: owner.token, body: { body: 'An answer' } });
    expect(reply.status).toBe(201);
    const discussions = await t.api('GET', mrs('/1/discussions'), { token: reporter.token });
    // The earlier updates' system notes are discussions of one note each, before these.
    const comments = discussions.body.filter((d: { notes: { system: boolean }[] }) => !d.notes[0].system);
    expect(comments.map((d: { notes: unknown[] }) => d.notes.length)).toEqual([1, 2]);
    const single = await t.api('GET', mrs('/1'), { token: reporter.token });
    expect(single.body.user_notes_count).toBe(3);
  });
});

describe('merging', () => {
  it('refuses a sha that is not the source head with GitLab’s 409', async () => {
    const res = await t.api('PUT', mrs('/1/merge'), { token: developer.token, body: { sha: '0'.repeat(40) } });
    const head = (await t.api('GET', mrs('/1'), { token: developer.token })).body.sha;
    expect([res.status, res.body]).toEqual([409, { message: `SHA does not match HEAD of source branch: ${head}` }]);
  });

  it('answers 401 to a reader who may not merge, as GitLab does', async () => {
    const res = await t.api('PUT', mrs('/1/merge'), { token: reporter.token });
    expect([res.status, res.body]).toEqual([401, { message: '401 Unauthorized' }]);
  });

  it('writes a merge commit into the repository, moves the target, removes the source, records the push', async () => {
    const before = (await t.api('GET', mrs('/1'), { token: developer.token })).body;
    const res = await t.api('PUT', mrs('/1/merge'), { token: developer.token, body: { sha: before.sha } });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ state: 'merged', merged_by: userOf(developer), merge_user: userOf(developer), detailed_merge_status: 'not_open', sha: before.sha });
    expect(res.body.merged_at).not.toBeNull();
    expect(res.body.merge_commit_sha).toMatch(/^[0-9a-f]{40}$/);
    const dir = sandbox.folder();
    await sandbox.ok(dir, ['clone', '--quiet', cloneUrl(t.url, project.path_with_namespace, owner.token), 'repo']);
    const repo = `${dir}/repo`;
    const log = await sandbox.ok(repo, ['log', '--format=%H %P%n%B%x00', '-1', 'origin/main']);
    const [line, ...message] = log.split('\n');
    expect(line).toBe(`${res.body.merge_commit_sha} ${before.diff_refs.start_sha} ${before.sha}`);
    expect(message.join('\n').replace(/\0\n?$/, '').trim()).toBe(`Merge branch 'feature' into 'main'\n\n${before.title}\n\nSee merge request ${project.path_with_namespace}!1`);
    expect(await sandbox.ok(repo, ['show', 'origin/main:app.txt'])).toBe('one\ntwo\nthree\nfour\n');
    const branches = await sandbox.ok(repo, ['branch', '-r']);
    expect(branches).not.toContain('origin/feature');
    const after = await t.api('GET', mrs('/1/commits'), { token: developer.token });
    expect(after.body.map((c: { title: string }) => c.title)).toEqual(['Add new file', 'Add four']);
    const events = await t.api('GET', `/projects/${project.id}/events`, { token: owner.token });
    expect(events.body.slice(0, 3).map((e: { action_name: string }) => e.action_name).sort()).toEqual(['accepted', 'deleted', 'pushed to']);
    const again = await t.api('PUT', mrs('/1/merge'), { token: developer.token });
    expect([again.status, again.body]).toEqual([405, { message: '405 Method Not Allowed' }]);
  });

  it('squashes into one commit under the merge commit', async () => {
    await commit('squashme', { 's1.txt': 'a\n' }, { start: 'main', message: 'First' });
    await commit('squashme', { 's2.txt': 'b\n' }, { message: 'Second' });
    const mr = await t.api('POST', mrs(), { token: developer.token, body: { source_branch: 'squashme', target_branch: 'main', title: 'Squash me', squash: true } });
    const merged = await t.api('PUT', mrs(`/${mr.body.iid}/merge`), { token: developer.token, body: { squash_commit_message: 'Squashed both' } });
    expect(merged.status, merged.text).toBe(200);
    expect(merged.body.squash_commit_sha).toMatch(/^[0-9a-f]{40}$/);
    const squash = await t.api('GET', `/projects/${project.id}/repository/commits/${merged.body.squash_commit_sha}`, { token: owner.token });
    expect(squash.body).toMatchObject({ title: 'Squashed both', parent_ids: [mr.body.diff_refs.start_sha], author_name: `User ${developer.username}` });
    const merge = await t.api('GET', `/projects/${project.id}/repository/commits/${merged.body.merge_commit_sha}`, { token: owner.token });
    expect(merge.body.parent_ids).toEqual([mr.body.diff_refs.start_sha, merged.body.squash_commit_sha]);
  });

  it('reports conflicts and refuses to merge them', async () => {
    await commit('conflicting', { 'app.txt': 'ONE\n' }, { start: 'main', message: 'Conflict' });
    await commit('main', { 'app.txt': 'uno\n' }, { message: 'Meanwhile on main' });
    const mr = await t.api('POST', mrs(), { token: developer.token, body: { source_branch: 'conflicting', target_branch: 'main', title: 'Conflicts' } });
    expect(mr.body).toMatchObject({ has_conflicts: true, merge_status: 'cannot_be_merged', detailed_merge_status: 'conflict' });
    const res = await t.api('PUT', mrs(`/${mr.body.iid}/merge`), { token: developer.token });
    expect([res.status, res.body]).toEqual([405, { message: '405 Method Not Allowed' }]);
  });

  it('respects the protected target branch: Developers may not merge into main once only Maintainers may', async () => {
    await t.api('DELETE', `/projects/${project.id}/protected_branches/main`, { token: owner.token });
    const protect = await t.api('POST', `/projects/${project.id}/protected_branches`, { token: owner.token, body: { name: 'main', push_access_level: 40, merge_access_level: 40 } });
    expect(protect.status, protect.text).toBe(201);
    await commit('protected-try', { 'p.txt': 'p\n' }, { start: 'main' });
    const mr = await t.api('POST', mrs(), { token: developer.token, body: { source_branch: 'protected-try', target_branch: 'main', title: 'Protected' } });
    expect(mr.body.user).toEqual({ can_merge: false });
    const byDeveloper = await t.api('PUT', mrs(`/${mr.body.iid}/merge`), { token: developer.token });
    expect(byDeveloper.status).toBe(401);
    const byOwner = await t.api('PUT', mrs(`/${mr.body.iid}/merge`), { token: owner.token });
    expect(byOwner.status, byOwner.text).toBe(200);
  });
});

describe('deleting', () => {
  it('lets only the Owner delete', async () => {
    const byDeveloper = await t.api('DELETE', mrs('/2'), { token: developer.token });
    expect(byDeveloper.status).toBe(403);
    const byOwner = await t.api('DELETE', mrs('/2'), { token: owner.token });
    expect(byOwner.status).toBe(204);
    expect((await t.api('GET', mrs('/2'), { token: owner.token })).status).toBe(404);
  });
});

describe('gitbeaker', () => {
  it('creates, edits, lists, comments on and merges merge requests', async () => {
    const api = new Gitlab({ host: t.url, token: developer.token });
    await commit('beaker', { 'beaker.txt': 'b\n' }, { start: 'main' });
    const created = await api.MergeRequests.create(project.id, 'beaker', 'main', 'From gitbeaker', { labels: 'client' });
    expect(created).toMatchObject({ source_branch: 'beaker', target_branch: 'main', labels: ['client'] });
    const edited = await api.MergeRequests.edit(project.id, created.iid, { description: 'edited' });
    expect(edited.description).toBe('edited');
    const listed = await api.MergeRequests.all({ projectId: project.id, state: 'opened' });
    expect(listed.map((m) => m.iid)).toContain(created.iid);
    const note = await api.MergeRequestNotes.create(project.id, created.iid, 'from gitbeaker');
    expect(note.body).toBe('from gitbeaker');
    const discussion = await api.MergeRequestDiscussions.create(project.id, created.iid, 'a thread');
    expect(discussion.notes?.[0].body).toBe('a thread');
    const owned = new Gitlab({ host: t.url, token: owner.token });
    const merged = await owned.MergeRequests.merge(project.id, created.iid, { shouldRemoveSourceBranch: true });
    expect(merged.state).toBe('merged');
  });
});
