/**
 * MergeRequest fields of GitLab's GraphQL read from real data: default commit messages, divergence, commits without
 * merges and their committers, commenters and threads, diff versions, auto-merge (its strategies, the kept
 * `should_remove_source_branch`, aborted when the `/close` quick action closes it), CI, the source branch's
 * protection, rendered title and description, the approval state, the viewer's to-do items, cherry-pick and revert
 * permissions, the connection's total time to merge, the reviewer re-review mutation, and `/merge` honouring the
 * Notes API's `merge_request_diff_head_sha`.
 */
import { Gitlab } from '@gitbeaker/rest';
import { beforeAll, describe, expect, it } from 'vitest';
import { suiteServer } from '../support/server.js';
import { addMember, apiOk, createProject, createUser, type TestUser } from '../support/factories.js';
import { eventually } from '../support/wait.js';

let counting = false;
let statements = 0;
const t = suiteServer({ logLevel: 'error' }, { onQuery: () => counting && statements++ });

let owner: TestUser;
let developer: TestUser;
let reporter: TestUser;
let stranger: TestUser;
let project: { id: number; path_with_namespace: string };
let feature: { iid: number; id: number };
let other: { iid: number; id: number };
let featureHead: string;

const base = () => `/projects/${project.id}`;
const ok = (token: string, method: string, path: string, body?: object) => apiOk(t, token, method, path, body);
const gid = (model: string, id: number) => `gid://gitlab/${model}/${id}`;

async function commitTo(token: string, branch: string, files: Record<string, string>, start?: string): Promise<string> {
  const actions = Object.entries(files).map(([file_path, content]) => ({ action: 'create', file_path, content }));
  const made = await ok(token, 'POST', `${base()}/repository/commits`, { branch, ...(start ? { start_branch: start } : {}), commit_message: `Add ${Object.keys(files).join(', ')}`, actions });
  return made.id as string;
}

const mrQuery = (fields: string) => `query($path: ID!, $iid: String!) { project(fullPath: $path) { mergeRequest(iid: $iid) { ${fields} } } }`;
async function mrFields(token: string | null, iid: number, fields: string) {
  const res = await t.graphql(mrQuery(fields), { path: project.path_with_namespace, iid: String(iid) }, token ?? undefined);
  expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
  return res.body.data.project?.mergeRequest ?? null;
}

beforeAll(async () => {
  [owner, developer, reporter, stranger] = await Promise.all([createUser(t), createUser(t), createUser(t), createUser(t)]);
  project = await createProject(t, owner.token, { visibility: 'private' });
  await addMember(t, owner.token, 'projects', project.id, developer.id, 30);
  await addMember(t, owner.token, 'projects', project.id, reporter.id, 20);
  await commitTo(owner.token, 'main', { 'README.md': '# Project\n' });
  await ok(owner.token, 'POST', `${base()}/issues`, { title: 'Bug' });
  // `feature`: a CI configuration whose job waits for a runner (none), so its head pipeline keeps running.
  await commitTo(developer.token, 'feature', { '.gitlab-ci.yml': 'test:\n  script: echo test\n' }, 'main');
  await commitTo(developer.token, 'feature', { 'feature.txt': 'feature\n' });
  await commitTo(owner.token, 'main', { 'main2.txt': 'main\n' });
  // main merged into feature through a merge request of its own: a merge commit in feature, by the owner.
  const back = await ok(owner.token, 'POST', `${base()}/merge_requests`, { source_branch: 'main', target_branch: 'feature', title: 'Back-merge' });
  await ok(owner.token, 'PUT', `${base()}/merge_requests/${back.iid}/merge`);
  feature = await ok(developer.token, 'POST', `${base()}/merge_requests`, { source_branch: 'feature', target_branch: 'main', title: 'Feature *one*', description: `Closes #1, cc @${developer.username}` });
  featureHead = (await ok(owner.token, 'GET', `${base()}/merge_requests/${feature.iid}`)).sha;
  await commitTo(owner.token, 'other', { 'other.txt': 'other\n' }, 'main');
  other = await ok(owner.token, 'POST', `${base()}/merge_requests`, { source_branch: 'other', target_branch: 'main', title: 'Other' });
});

describe('MergeRequest fields of GitLab', () => {
  it('gives the default merge and squash commit messages, commits without merges, committers and divergence', async () => {
    const mr = await mrFields(reporter.token, feature.iid, `
      defaultMergeCommitMessage defaultSquashCommitMessage divergedFromTargetBranch
      commits { nodes { sha } }
      commitsWithoutMergeCommits { nodes { sha message } }
      committers { nodes { username } }`);
    expect(mr.defaultMergeCommitMessage).toBe(`Merge branch 'feature' into 'main'\n\nFeature *one*\n\nCloses #1\n\nSee merge request ${project.path_with_namespace}!${feature.iid}`);
    expect(mr.defaultSquashCommitMessage).toBe('Feature *one*');
    // The back-merge commit is one of its commits, not of those without merge commits; its committer (the owner) is no committer.
    expect(mr.commits.nodes).toHaveLength(3);
    expect(mr.commitsWithoutMergeCommits.nodes.map((c: { message: string }) => c.message.trim())).toEqual(['Add feature.txt', 'Add .gitlab-ci.yml']);
    expect(mr.committers.nodes).toEqual([{ username: developer.username }]);
    expect(mr.divergedFromTargetBranch).toBe(false);
    await commitTo(owner.token, 'main', { 'main3.txt': 'later\n' });
    expect((await mrFields(reporter.token, feature.iid, 'divergedFromTargetBranch')).divergedFromTargetBranch).toBe(true);
    // A stranger to the private project sees no merge request.
    expect(await mrFields(stranger.token, feature.iid, 'defaultMergeCommitMessage')).toBeNull();
  });

  it('counts commenters and threads of users, and renders the title and description', async () => {
    const api = new Gitlab({ host: t.url, token: reporter.token });
    const thread = await api.MergeRequestDiscussions.create(project.id, other.iid, 'A question');
    await ok(owner.token, 'POST', `${base()}/merge_requests/${other.iid}/discussions/${thread.id}/notes`, { body: 'An answer' });
    await ok(developer.token, 'POST', `${base()}/merge_requests/${other.iid}/notes`, { body: 'LGTM' });
    await ok(owner.token, 'PUT', `${base()}/merge_requests/${other.iid}`, { labels: 'bug' });
    const mr = await mrFields(reporter.token, other.iid, 'userDiscussionsCount commenters { nodes { username } } titleHtml descriptionHtml');
    expect(mr.userDiscussionsCount).toBe(2);
    expect(mr.commenters.nodes.map((u: { username: string }) => u.username)).toEqual([reporter.username, owner.username, developer.username]);
    expect(mr.titleHtml).toBe('Other');
    expect(mr.descriptionHtml).toBe('');
    const described = await mrFields(reporter.token, feature.iid, 'titleHtml descriptionHtml userDiscussionsCount commenters { nodes { username } }');
    expect(described.titleHtml).toBe('Feature <em>one</em>');
    expect(described.descriptionHtml).toMatch(/^<p>Closes <a href="[^"]+\/-\/issues\/1" data-reference-type="issue" title="Bug" class="gfm gfm-issue">#1<\/a>, cc <a href="[^"]+" data-reference-type="user" data-user="\d+"/);
    expect(described.descriptionHtml).toContain(`data-user="${developer.id}"`);
    expect(described).toMatchObject({ userDiscussionsCount: 0, commenters: { nodes: [] } });
  });

  it('lists diff versions oldest first with their times, and knows when it was prepared', async () => {
    const versions = await ok(owner.token, 'GET', `${base()}/merge_requests/${feature.iid}/versions`);
    const mr = await mrFields(reporter.token, feature.iid, 'preparedAt mergeRequestDiffs { count nodes { databaseId createdAt updatedAt headCommitSha } }');
    expect(mr.mergeRequestDiffs.count).toBe(versions.length);
    expect(mr.mergeRequestDiffs.nodes.map((v: { databaseId: number }) => v.databaseId)).toEqual(versions.map((v: { id: number }) => v.id).reverse());
    const first = mr.mergeRequestDiffs.nodes[0];
    expect(first.updatedAt).toBe(first.createdAt);
    expect(mr.preparedAt).toBe(first.createdAt);
    expect(new Date(first.createdAt).toISOString()).toBe(new Date(versions[versions.length - 1].created_at).toISOString());
  });

  it('has CI where a pipeline runs for it, and knows whether its source branch is protected', async () => {
    await eventually(async () => (await mrFields(reporter.token, feature.iid, 'headPipeline { id }')).headPipeline);
    expect(await mrFields(reporter.token, feature.iid, 'hasCi sourceBranchProtected')).toEqual({ hasCi: true, sourceBranchProtected: false });
    expect(await mrFields(reporter.token, other.iid, 'hasCi sourceBranchProtected')).toEqual({ hasCi: false, sourceBranchProtected: false });
    await ok(owner.token, 'POST', `${base()}/protected_branches`, { name: 'feat*' });
    expect((await mrFields(reporter.token, feature.iid, 'sourceBranchProtected')).sourceBranchProtected).toBe(true);
    await ok(owner.token, 'DELETE', `${base()}/protected_branches/${encodeURIComponent('feat*')}`);
  });

  it('offers auto-merge while its pipeline runs, keeps should_remove_source_branch, and aborts it when /close closes it', async () => {
    const fields = 'availableAutoMergeStrategies mergeWhenPipelineSucceeds shouldRemoveSourceBranch autoMergeEnabled';
    expect(await mrFields(owner.token, feature.iid, fields)).toEqual({ availableAutoMergeStrategies: ['merge_when_pipeline_succeeds'], mergeWhenPipelineSucceeds: false, shouldRemoveSourceBranch: null, autoMergeEnabled: false });
    // A Reporter may not merge: no strategy is available to them; nor to anyone while no pipeline runs.
    expect((await mrFields(reporter.token, feature.iid, fields)).availableAutoMergeStrategies).toEqual([]);
    expect((await mrFields(owner.token, other.iid, fields)).availableAutoMergeStrategies).toEqual([]);

    const set = await t.api('PUT', `${base()}/merge_requests/${feature.iid}/merge`, { token: owner.token, body: { merge_when_pipeline_succeeds: true, should_remove_source_branch: true } });
    expect(set.status, set.text).toBe(200);
    expect(set.body).toMatchObject({ state: 'opened', merge_when_pipeline_succeeds: true, should_remove_source_branch: true });
    expect(await mrFields(owner.token, feature.iid, fields)).toMatchObject({ mergeWhenPipelineSucceeds: true, shouldRemoveSourceBranch: true, autoMergeEnabled: true });

    const closed = await t.api('POST', `${base()}/merge_requests/${feature.iid}/notes`, { token: developer.token, body: { body: '/close' } });
    expect(closed.status, closed.text).toBe(202);
    expect(await mrFields(owner.token, feature.iid, `state ${fields}`)).toEqual({ state: 'closed', availableAutoMergeStrategies: [], mergeWhenPipelineSucceeds: false, shouldRemoveSourceBranch: null, autoMergeEnabled: false });
    const notes = await ok(owner.token, 'GET', `${base()}/merge_requests/${feature.iid}/notes?sort=asc`);
    expect(notes.map((n: { body: string }) => n.body)).toContain('aborted the automatic merge because merge request was closed');
    await ok(owner.token, 'PUT', `${base()}/merge_requests/${feature.iid}`, { state_event: 'reopen' });
  });

  it('shows the approval state of a merge request without approval rules', async () => {
    await ok(developer.token, 'POST', `${base()}/merge_requests/${other.iid}/approve`);
    const mr = await mrFields(reporter.token, other.iid, 'approved approvedBy { nodes { username } } approvalState { approvalRulesOverwritten rules { id name } invalidApproversRules { id } suggestedApprovers { nodes { id } } }');
    expect(mr).toEqual({
      approved: true,
      approvedBy: { nodes: [{ username: developer.username }] },
      approvalState: { approvalRulesOverwritten: false, rules: [], invalidApproversRules: [], suggestedApprovers: { nodes: [] } },
    });
  });

  it('requests a new review: back to unreviewed, a to-do item for the reviewer and a system note', async () => {
    const path = project.path_with_namespace;
    const set = await t.graphql(`mutation($path: ID!, $iid: String!, $names: [String!]!) { mergeRequestSetReviewers(input: { projectPath: $path, iid: $iid, reviewerUsernames: $names }) { errors } }`, { path, iid: String(other.iid), names: [developer.username] }, owner.token);
    expect(set.body.errors).toBeUndefined();
    const interaction = 'reviewers { nodes { username mergeRequestInteraction { reviewState reviewed } } }';
    // The developer approved it before (a reviewer who approves has reviewed it): reviewed.
    await ok(developer.token, 'POST', `${base()}/merge_requests/${other.iid}/unapprove`);
    await ok(developer.token, 'POST', `${base()}/merge_requests/${other.iid}/approve`);
    expect((await mrFields(owner.token, other.iid, interaction)).reviewers.nodes[0].mergeRequestInteraction).toEqual({ reviewState: 'REVIEWED', reviewed: true });

    const REREVIEW = `mutation($path: ID!, $iid: String!, $user: UserID!) {
      mergeRequestReviewerRereview(input: { projectPath: $path, iid: $iid, userId: $user, clientMutationId: "r" }) { clientMutationId errors mergeRequest { iid } }
    }`;
    const res = await t.graphql(REREVIEW, { path, iid: String(other.iid), user: gid('User', developer.id) }, owner.token);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.mergeRequestReviewerRereview).toEqual({ clientMutationId: 'r', errors: [], mergeRequest: { iid: String(other.iid) } });
    expect((await mrFields(owner.token, other.iid, interaction)).reviewers.nodes[0].mergeRequestInteraction).toEqual({ reviewState: 'UNREVIEWED', reviewed: false });
    const notes = await ok(owner.token, 'GET', `${base()}/merge_requests/${other.iid}/notes?sort=desc`);
    expect(notes[0]).toMatchObject({ body: `requested review from @${developer.username}`, system: true, author: { id: owner.id } });

    // The reviewer's to-do item, on the merge request and in their list (REST shows the merge request as its target).
    const todos = await mrFields(developer.token, other.iid, 'currentUserTodos { nodes { action state body author { username } target { __typename ... on MergeRequest { iid } } } }');
    expect(todos.currentUserTodos.nodes).toEqual([{ action: 'review_requested', state: 'pending', body: 'Other', author: { username: owner.username }, target: { __typename: 'MergeRequest', iid: String(other.iid) } }]);
    expect((await mrFields(developer.token, other.iid, 'currentUserTodos(state: done) { nodes { action } }')).currentUserTodos.nodes).toEqual([]);
    expect((await mrFields(owner.token, other.iid, 'currentUserTodos { nodes { action } }')).currentUserTodos.nodes).toEqual([]);
    const list = await t.graphql('{ currentUser { todos { nodes { action targetType targetUrl target { webUrl } } } } }', {}, developer.token);
    expect(list.body.data.currentUser.todos.nodes).toEqual([
      { action: 'review_requested', targetType: 'MERGEREQUEST', targetUrl: expect.stringMatching(new RegExp(`/${path}/-/merge_requests/${other.iid}$`)), target: { webUrl: expect.stringMatching(new RegExp(`/${path}/-/merge_requests/${other.iid}$`)) } },
    ]);

    // No reviewer: GitLab's error in the payload; who may not update it: the resource error.
    const none = await t.graphql(REREVIEW, { path, iid: String(other.iid), user: gid('User', reporter.id) }, owner.token);
    expect(none.body.data.mergeRequestReviewerRereview).toMatchObject({ errors: ['Reviewer not found'] });
    const nobody = await t.graphql(REREVIEW, { path, iid: String(other.iid), user: gid('User', 999999) }, owner.token);
    expect(nobody.body.errors?.[0]?.message).toBe('No object found for `userId: gid://gitlab/User/999999`');
    const refused = await t.graphql(REREVIEW, { path, iid: String(other.iid), user: gid('User', developer.id) }, reporter.token);
    expect(refused.body.data.mergeRequestReviewerRereview).toBeNull();
    expect(refused.body.errors?.[0]?.message).toBe("The resource that you are attempting to access does not exist or you don't have permission to perform this action");
  });

  it('merges with /merge only at the head the note was written against', async () => {
    const note = (body: object) => t.api('POST', `${base()}/merge_requests/${other.iid}/notes`, { token: owner.token, body: { body: '/merge', ...body } });
    const missing = await note({});
    expect(missing.body).toEqual({ commands_changes: {}, summary: ['The `/merge` quick action requires the SHA of the head of the branch.'] });
    const moved = await note({ merge_request_diff_head_sha: featureHead });
    expect(moved.body).toEqual({ commands_changes: {}, summary: ['Branch has been updated since the merge was requested.'] });
    expect((await ok(owner.token, 'GET', `${base()}/merge_requests/${other.iid}`)).state).toBe('opened');
    await ok(owner.token, 'PUT', `${base()}/merge_requests/${other.iid}`, { description: 'Fixes #1' });
    const head = (await ok(owner.token, 'GET', `${base()}/merge_requests/${other.iid}`)).sha;
    const merged = await note({ merge_request_diff_head_sha: head });
    expect(merged.body).toEqual({ commands_changes: { merge: head }, summary: ['Merged this merge request.'] });
    const after = await ok(owner.token, 'GET', `${base()}/merge_requests/${other.iid}`);
    expect(after.state).toBe('merged');
    // The merge commit's message is the default one, naming the issue it closes.
    const commit = await ok(owner.token, 'GET', `${base()}/repository/commits/${after.merge_commit_sha}`);
    expect(commit.message.trim()).toBe(`Merge branch 'other' into 'main'\n\nOther\n\nCloses #1\n\nSee merge request ${project.path_with_namespace}!${other.iid}`);
  });

  it('lets who may push cherry-pick and revert a merged merge request, revert only until it is reverted', async () => {
    const permissions = 'state userPermissions { cherryPickOnCurrentMergeRequest revertOnCurrentMergeRequest }';
    expect((await mrFields(owner.token, feature.iid, permissions)).userPermissions).toEqual({ cherryPickOnCurrentMergeRequest: false, revertOnCurrentMergeRequest: false });
    const merged = await mrFields(owner.token, other.iid, `${permissions} mergeCommitSha`);
    expect(merged).toMatchObject({ state: 'merged', userPermissions: { cherryPickOnCurrentMergeRequest: true, revertOnCurrentMergeRequest: true } });
    expect((await mrFields(reporter.token, other.iid, permissions)).userPermissions).toEqual({ cherryPickOnCurrentMergeRequest: false, revertOnCurrentMergeRequest: false });
    await ok(owner.token, 'POST', `${base()}/repository/commits`, {
      branch: 'main',
      commit_message: `Revert "Other"\n\nThis reverts merge request !${other.iid}`,
      actions: [{ action: 'delete', file_path: 'other.txt' }],
    });
    expect((await mrFields(owner.token, other.iid, permissions)).userPermissions).toEqual({ cherryPickOnCurrentMergeRequest: true, revertOnCurrentMergeRequest: false });
  });

  it('sums the time to merge of the whole list, in one batch of statements whatever its length', async () => {
    const rest = await ok(owner.token, 'GET', `${base()}/merge_requests?state=merged&per_page=100`);
    const expected = rest.reduce((n: number, m: { created_at: string; merged_at: string }) => n + (Date.parse(m.merged_at) - Date.parse(m.created_at)) / 1000, 0);
    const LIST = `query($path: ID!, $first: Int, $state: MergeRequestState) { project(fullPath: $path) { mergeRequests(first: $first, state: $state) {
      totalTimeToMerge count nodes { iid userDiscussionsCount preparedAt hasCi sourceBranchProtected mergeWhenPipelineSucceeds commenters { nodes { username } } currentUserTodos { count nodes { action } } }
    } } }`;
    const merged = await t.graphql(LIST, { path: project.path_with_namespace, first: 1, state: 'merged' }, reporter.token);
    expect(merged.body.errors).toBeUndefined();
    expect(merged.body.data.project.mergeRequests.count).toBe(2);
    expect(merged.body.data.project.mergeRequests.totalTimeToMerge).toBeCloseTo(expected, 3);
    const open = await t.graphql(LIST, { path: project.path_with_namespace, state: 'opened' }, reporter.token);
    expect(open.body.data.project.mergeRequests.totalTimeToMerge).toBeNull();

    const count = async (first: number) => {
      statements = 0;
      counting = true;
      const res = await t.graphql(LIST, { path: project.path_with_namespace, first, state: 'all' }, reporter.token);
      counting = false;
      expect(res.body.errors).toBeUndefined();
      expect(res.body.data.project.mergeRequests.nodes).toHaveLength(first);
      return statements;
    };
    // Two merge requests (one with a head pipeline, which reads its project's access once) against three.
    const two = await count(2);
    const three = await count(3);
    expect(three).toBe(two);
  });
});
