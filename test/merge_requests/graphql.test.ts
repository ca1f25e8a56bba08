/**
 * Merge requests over GraphQL: Project.mergeRequest(s) with GitLab's fields, and the relay mutations (create, update,
 * set labels, assignees, reviewers and draft, accept), their validation errors in the payload.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { suiteServer } from '../support/server.js';
import { addMember, createProject, createUser, type TestUser } from '../support/factories.js';

const t = suiteServer();

let owner: TestUser;
let developer: TestUser;
let project: { id: number; path_with_namespace: string };

async function branch(name: string, file: string) {
  const res = await t.api('POST', `/projects/${project.id}/repository/commits`, {
    token: owner.token,
    body: { branch: name, start_branch: 'main', commit_message: `Add ${file}`, actions: [{ action: 'create', file_path: file, content: `${file}\n` }] },
  });
  if (res.status !== 201) throw new Error(`commit: ${res.status} ${res.text}`);
  return res.body.id as string;
}

const FIELDS = `id iid title state draft sourceBranch targetBranch diffHeadSha mergeStatusEnum detailedMergeStatus conflicts mergeable
  author { username } assignees { nodes { username } } reviewers { nodes { username } } labels { nodes { title } }
  commitCount diffRefs { baseSha headSha startSha } reference(full: true) webPath userPermissions { canMerge updateMergeRequest }`;

beforeAll(async () => {
  [owner, developer] = await Promise.all([createUser(t), createUser(t)]);
  project = await createProject(t, owner.token);
  await addMember(t, owner.token, 'projects', project.id, developer.id, 40);
  await t.api('POST', `/projects/${project.id}/repository/commits`, {
    token: owner.token,
    body: { branch: 'main', commit_message: 'Initial', actions: [{ action: 'create', file_path: 'README.md', content: '# x\n' }] },
  });
  await t.api('POST', `/projects/${project.id}/labels`, { token: owner.token, body: { name: 'ready', color: '#00ff00' } });
});

describe('mutations and queries', () => {
  it('creates with mergeRequestCreate and reads it back through Project.mergeRequest', async () => {
    const head = await branch('gql-feature', 'gql.txt');
    const created = await t.graphql(
      `mutation($path: ID!) { mergeRequestCreate(input: { projectPath: $path, title: "Draft: From GraphQL", sourceBranch: "gql-feature", targetBranch: "main", clientMutationId: "c1" }) {
        clientMutationId errors mergeRequest { ${FIELDS} } } }`,
      { path: project.path_with_namespace },
      developer.token,
    );
    expect(created.body.errors).toBeUndefined();
    const payload = created.body.data.mergeRequestCreate;
    expect(payload).toMatchObject({ clientMutationId: 'c1', errors: [] });
    expect(payload.mergeRequest).toMatchObject({
      iid: '1',
      title: 'Draft: From GraphQL',
      state: 'opened',
      draft: true,
      diffHeadSha: head,
      mergeStatusEnum: 'CAN_BE_MERGED',
      detailedMergeStatus: 'DRAFT_STATUS',
      conflicts: false,
      mergeable: false,
      author: { username: developer.username },
      commitCount: 1,
      reference: `${project.path_with_namespace}!1`,
      webPath: `/${project.path_with_namespace}/-/merge_requests/1`,
      userPermissions: { canMerge: true, updateMergeRequest: true },
    });
    expect(payload.mergeRequest.id).toMatch(/^gid:\/\/gitlab\/MergeRequest\/\d+$/);
    const read = await t.graphql(`query($path: ID!) { project(fullPath: $path) { mergeRequest(iid: "1") { iid diffRefs { headSha } } mergeRequests(state: opened, draft: true) { count nodes { iid } } } }`, { path: project.path_with_namespace }, developer.token);
    expect(read.body.data.project).toEqual({ mergeRequest: { iid: '1', diffRefs: { headSha: head } }, mergeRequests: { count: 1, nodes: [{ iid: '1' }] } });
  });

  it('reports a second open merge request for the same branches in the payload’s errors', async () => {
    const res = await t.graphql(
      `mutation($path: ID!) { mergeRequestCreate(input: { projectPath: $path, title: "x", sourceBranch: "gql-feature", targetBranch: "main" }) { errors mergeRequest { iid } } }`,
      { path: project.path_with_namespace },
      developer.token,
    );
    expect(res.body.data.mergeRequestCreate).toEqual({ errors: ['Another open merge request already exists for this source branch: !1'], mergeRequest: null });
  });

  it('sets draft, labels, assignees and reviewers', async () => {
    const path = project.path_with_namespace;
    const draft = await t.graphql(`mutation($path: ID!) { mergeRequestSetDraft(input: { projectPath: $path, iid: "1", draft: false }) { errors mergeRequest { title draft } } }`, { path }, developer.token);
    expect(draft.body.data.mergeRequestSetDraft).toEqual({ errors: [], mergeRequest: { title: 'From GraphQL', draft: false } });
    const labels = await t.api('GET', `/projects/${project.id}/labels`, { token: owner.token });
    const labelId = `gid://gitlab/ProjectLabel/${labels.body[0].id}`;
    const setLabels = await t.graphql(`mutation($path: ID!, $ids: [LabelID!]!) { mergeRequestSetLabels(input: { projectPath: $path, iid: "1", labelIds: $ids }) { mergeRequest { labels { nodes { title } } } } }`, { path, ids: [labelId] }, developer.token);
    expect(setLabels.body.data.mergeRequestSetLabels.mergeRequest.labels.nodes).toEqual([{ title: 'ready' }]);
    const assignees = await t.graphql(`mutation($path: ID!, $u: [String!]!) { mergeRequestSetAssignees(input: { projectPath: $path, iid: "1", assigneeUsernames: $u }) { mergeRequest { assignees { nodes { username } } } } }`, { path, u: [owner.username] }, developer.token);
    expect(assignees.body.data.mergeRequestSetAssignees.mergeRequest.assignees.nodes).toEqual([{ username: owner.username }]);
    const reviewers = await t.graphql(`mutation($path: ID!, $u: [String!]!) { mergeRequestSetReviewers(input: { projectPath: $path, iid: "1", reviewerUsernames: $u, operationMode: APPEND }) { mergeRequest { reviewers { nodes { username } } } } }`, { path, u: [owner.username] }, developer.token);
    expect(reviewers.body.data.mergeRequestSetReviewers.mergeRequest.reviewers.nodes).toEqual([{ username: owner.username }]);
  });

  it('refuses an accept whose sha is not the head, then merges with mergeRequestAccept', async () => {
    const path = project.path_with_namespace;
    const stale = await t.graphql(`mutation($path: ID!) { mergeRequestAccept(input: { projectPath: $path, iid: "1", sha: "${'0'.repeat(40)}" }) { errors mergeRequest { state } } }`, { path }, developer.token);
    expect(stale.body.data.mergeRequestAccept.errors[0]).toMatch(/^SHA does not match HEAD of source branch: [0-9a-f]{40}$/);
    const head = (await t.graphql(`query($path: ID!) { project(fullPath: $path) { mergeRequest(iid: "1") { diffHeadSha } } }`, { path }, developer.token)).body.data.project.mergeRequest.diffHeadSha;
    const merged = await t.graphql(`mutation($path: ID!, $sha: String) { mergeRequestAccept(input: { projectPath: $path, iid: "1", sha: $sha }) { errors mergeRequest { state mergeCommitSha mergeUser { username } detailedMergeStatus } } }`, { path, sha: head }, developer.token);
    expect(merged.body.data.mergeRequestAccept.errors).toEqual([]);
    expect(merged.body.data.mergeRequestAccept.mergeRequest).toMatchObject({ state: 'merged', mergeUser: { username: developer.username }, detailedMergeStatus: 'NOT_OPEN' });
    const main = await t.api('GET', `/projects/${project.id}/repository/branches/main`, { token: owner.token });
    expect(main.body.commit.id).toBe(merged.body.data.mergeRequestAccept.mergeRequest.mergeCommitSha);
  });

  it('hides merge requests of a private project from non-members', async () => {
    const stranger = await createUser(t);
    const res = await t.graphql(`query($path: ID!) { project(fullPath: $path) { mergeRequest(iid: "1") { iid } } }`, { path: project.path_with_namespace }, stranger.token);
    expect(res.body.data.project).toBeNull();
  });
});

describe('MergeRequestSort CLOSED_AT_ASC and CLOSED_AT_DESC', () => {
  it('orders by when each was last closed, open (and reopened) ones last either way', async () => {
    const iids: string[] = [];
    for (const name of ['closed-a', 'closed-b', 'closed-c', 'never-closed']) {
      await branch(name, `${name}.txt`);
      iids.push(String((await t.api('POST', `/projects/${project.id}/merge_requests`, { token: owner.token, body: { source_branch: name, target_branch: 'main', title: name } })).body.iid));
    }
    const state = async (iid: string, stateEvent: 'close' | 'reopen') =>
      expect((await t.api('PUT', `/projects/${project.id}/merge_requests/${iid}`, { token: owner.token, body: { state_event: stateEvent } })).status).toBe(200);
    // b is closed first, then c, then a; c is reopened and closed again, so it was last closed after a.
    await state(iids[1], 'close');
    await state(iids[2], 'close');
    await state(iids[0], 'close');
    await state(iids[2], 'reopen');
    await state(iids[2], 'close');
    const sorted = async (sort: string) => {
      const res = await t.graphql(`query($path: ID!, $iids: [String!], $sort: MergeRequestSort) { project(fullPath: $path) { mergeRequests(iids: $iids, sort: $sort) { nodes { iid closedAt } } } }`, { path: project.path_with_namespace, iids, sort }, owner.token);
      expect(res.body.errors).toBeUndefined();
      return res.body.data.project.mergeRequests.nodes.map((n: { iid: string }) => n.iid);
    };
    expect(await sorted('CLOSED_AT_ASC')).toEqual([iids[1], iids[0], iids[2], iids[3]]);
    expect(await sorted('CLOSED_AT_DESC')).toEqual([iids[2], iids[0], iids[1], iids[3]]);
  });
});

describe('DetailedMergeStatus', () => {
  it("has GitLab 16.3's values, and answers COMMITS_STATUS where 16.3 answered BROKEN_STATUS", async () => {
    const enumType = await t.graphql(`{ __type(name: "DetailedMergeStatus") { enumValues { name description } } }`, {}, owner.token);
    const values = new Map<string, string>(enumType.body.data.__type.enumValues.map((v: { name: string; description: string }) => [v.name, v.description]));
    expect(values.get('BROKEN_STATUS')).toMatch(/^Can not merge the source into the target branch, potential conflict\. .*never this value\.$/s);
    expect(values.get('EXTERNAL_STATUS_CHECKS')).toMatch(/^Status checks must pass\. .*never answered here\.$/s);
    expect(values.get('POLICIES_DENIED')).toMatch(/^There are denied policies for the merge request\. .*never answered here\.$/s);

    await branch('gone-branch', 'gone.txt');
    const mr = await t.api('POST', `/projects/${project.id}/merge_requests`, { token: owner.token, body: { source_branch: 'gone-branch', target_branch: 'main', title: 'Gone' } });
    expect(mr.status, mr.text).toBe(201);
    expect((await t.api('DELETE', `/projects/${project.id}/repository/branches/gone-branch`, { token: owner.token })).status).toBe(204);
    const read = await t.graphql(`query($p: ID!, $iid: String!) { project(fullPath: $p) { mergeRequest(iid: $iid) { detailedMergeStatus } } }`, { p: project.path_with_namespace, iid: String(mr.body.iid) }, owner.token);
    expect(read.body.data.project.mergeRequest).toEqual({ detailedMergeStatus: 'COMMITS_STATUS' });
    expect((await t.api('GET', `/projects/${project.id}/merge_requests/${mr.body.iid}`, { token: owner.token })).body.detailed_merge_status).toBe('commits_status');
  });
});
