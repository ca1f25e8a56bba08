/**
 * A merge request's users as GitLab's types (MergeRequestAuthor, MergeRequestAssignee, MergeRequestReviewer,
 * MergeRequestParticipant): UserCore's fields, and `mergeRequestInteraction` asked as each of them: canMerge (push or
 * merge to the target: main is protected, Maintainers merge), canUpdate (update_merge_request: Developers, the author,
 * assignees), the reviewer's state (reviewed once they start a thread, as Notes::CreateService#set_reviewed, or approve
 * it; a reviewer who may not update it stays unreviewed; a reply reviews nothing), and approved. Then the users of a
 * page of four merge requests cost the queries of a page of one.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { suiteServer } from '../support/server.js';
import { addMember, apiOk, createGroup, createProject, createUser, type TestUser } from '../support/factories.js';

let counting = false;
let queries = 0;
const t = suiteServer({}, { onQuery: () => counting && queries++ });

let owner: TestUser;
let developer: TestUser;
let maintainer: TestUser;
let reporter: TestUser;
let project: { id: number; path_with_namespace: string };

const INTERACTION = 'mergeRequestInteraction { canMerge canUpdate reviewState reviewed approved }';

async function openMergeRequest(branch: string, token: string, body: Record<string, unknown> = {}): Promise<number> {
  await apiOk(t, owner.token, 'POST', `/projects/${project.id}/repository/commits`, {
    branch, start_branch: 'main', commit_message: branch, actions: [{ action: 'create', file_path: `${branch}.txt`, content: 'x\n' }],
  });
  return (await apiOk(t, token, 'POST', `/projects/${project.id}/merge_requests`, { source_branch: branch, target_branch: 'main', title: branch, ...body })).iid;
}

async function users(iid: number, token = owner.token) {
  const res = await t.graphql(
    `query($path: ID!, $iid: String!) { project(fullPath: $path) { mergeRequest(iid: $iid) {
      author { __typename username webPath ${INTERACTION} }
      assignees { count nodes { __typename username ${INTERACTION} } }
      reviewers { count nodes { __typename username ... on User { name } ${INTERACTION} } }
      participants { nodes { __typename username ${INTERACTION} } } } } }`,
    { path: project.path_with_namespace, iid: String(iid) },
    token,
  );
  expect(res.body.errors).toBeUndefined();
  return res.body.data.project.mergeRequest;
}

const byName = (nodes: { username: string }[]): Record<string, any> => Object.fromEntries(nodes.map((n) => [n.username, n]));

beforeAll(async () => {
  [owner, developer, maintainer, reporter] = await Promise.all([createUser(t), createUser(t), createUser(t), createUser(t)]);
  const group = await createGroup(t, owner.token);
  project = await createProject(t, owner.token, { namespaceId: group.id });
  // The maintainer through the group, the others on the project.
  await addMember(t, owner.token, 'groups', group.id, maintainer.id, 40);
  await addMember(t, owner.token, 'projects', project.id, developer.id, 30);
  await addMember(t, owner.token, 'projects', project.id, reporter.id, 20);
  await apiOk(t, owner.token, 'POST', `/projects/${project.id}/repository/commits`, {
    branch: 'main', commit_message: 'Initial', actions: [{ action: 'create', file_path: 'README.md', content: '# x\n' }],
  });
});

describe('mergeRequestInteraction', () => {
  let iid: number;

  beforeAll(async () => {
    iid = await openMergeRequest('interactions', developer.token, { assignee_ids: [developer.id], reviewer_ids: [maintainer.id, reporter.id, owner.id] });
  });

  it('answers each user type with UserCore’s fields and what the user may do', async () => {
    const mr = await users(iid);
    expect(mr.author).toEqual({
      __typename: 'MergeRequestAuthor',
      username: developer.username,
      webPath: `/${developer.username}`,
      // main is protected on its first push: Developers neither push nor merge to it.
      mergeRequestInteraction: { canMerge: false, canUpdate: true, reviewState: null, reviewed: false, approved: false },
    });
    expect(mr.assignees).toEqual({
      count: 1,
      nodes: [{ __typename: 'MergeRequestAssignee', username: developer.username, mergeRequestInteraction: { canMerge: false, canUpdate: true, reviewState: null, reviewed: false, approved: false } }],
    });
    expect(mr.reviewers.count).toBe(3);
    const reviewers = byName(mr.reviewers.nodes);
    expect(reviewers[maintainer.username]).toEqual({
      __typename: 'MergeRequestReviewer',
      username: maintainer.username,
      name: `User ${maintainer.username}`,
      mergeRequestInteraction: { canMerge: true, canUpdate: true, reviewState: 'UNREVIEWED', reviewed: false, approved: false },
    });
    // A Reporter reads it but may neither merge nor update it.
    expect(reviewers[reporter.username].mergeRequestInteraction).toEqual({ canMerge: false, canUpdate: false, reviewState: 'UNREVIEWED', reviewed: false, approved: false });
    expect(mr.participants.nodes.map((p: { __typename: string }) => p.__typename)).toEqual(Array(4).fill('MergeRequestParticipant'));
  });

  it('marks a reviewer reviewed when they start a thread or approve, not when they reply or may not update it', async () => {
    const thread = await apiOk(t, maintainer.token, 'POST', `/projects/${project.id}/merge_requests/${iid}/discussions`, { body: 'Looks fine' });
    await apiOk(t, reporter.token, 'POST', `/projects/${project.id}/merge_requests/${iid}/notes`, { body: 'Me too' });
    await apiOk(t, owner.token, 'POST', `/projects/${project.id}/merge_requests/${iid}/discussions/${thread.id}/notes`, { body: 'A reply' });
    let reviewers = byName((await users(iid)).reviewers.nodes);
    expect(reviewers[maintainer.username].mergeRequestInteraction).toMatchObject({ reviewState: 'REVIEWED', reviewed: true });
    expect(reviewers[reporter.username].mergeRequestInteraction).toMatchObject({ reviewState: 'UNREVIEWED', reviewed: false });
    expect(reviewers[owner.username].mergeRequestInteraction).toMatchObject({ reviewState: 'UNREVIEWED', reviewed: false, approved: false });

    await apiOk(t, owner.token, 'POST', `/projects/${project.id}/merge_requests/${iid}/approve`);
    const mr = await users(iid);
    reviewers = byName(mr.reviewers.nodes);
    expect(reviewers[owner.username].mergeRequestInteraction).toEqual({ canMerge: true, canUpdate: true, reviewState: 'REVIEWED', reviewed: true, approved: true });
    // The participants: author, assignee, reviewers and commenters, each once, each with the same interaction.
    const participants = byName(mr.participants.nodes);
    expect(Object.keys(participants).sort()).toEqual([developer.username, maintainer.username, reporter.username, owner.username].sort());
    expect(participants[owner.username].mergeRequestInteraction).toEqual(reviewers[owner.username].mergeRequestInteraction);
  });

  it('keeps the REST shapes of the users', async () => {
    const rest = await apiOk(t, owner.token, 'GET', `/projects/${project.id}/merge_requests/${iid}`);
    expect(rest.author).toEqual({ id: developer.id, username: developer.username, name: `User ${developer.username}`, state: 'active', locked: false, avatar_url: null, web_url: expect.stringContaining(`/${developer.username}`) });
    expect(rest.reviewers.map((r: { username: string }) => r.username).sort()).toEqual([maintainer.username, reporter.username, owner.username].sort());
    const participants = await apiOk(t, owner.token, 'GET', `/projects/${project.id}/merge_requests/${iid}/participants`);
    expect(participants).toHaveLength(4);
  });

  it('lists the reviewers with their state and when they were asked (GET …/reviewers), first asked first', async () => {
    const res = await t.api('GET', `/projects/${project.id}/merge_requests/${iid}/reviewers`, { token: reporter.token });
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('x-total')).toBe('3');
    const basic = (u: TestUser) => ({ id: u.id, username: u.username, name: `User ${u.username}`, state: 'active', locked: false, avatar_url: null, web_url: expect.stringContaining(`/${u.username}`) });
    const iso = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(res.body).toEqual([
      { user: basic(maintainer), state: 'reviewed', created_at: iso },
      { user: basic(reporter), state: 'unreviewed', created_at: iso },
      { user: basic(owner), state: 'reviewed', created_at: iso },
    ]);
    expect(Object.keys(res.body[0])).toEqual(['user', 'state', 'created_at']);
    const page = await t.api('GET', `/projects/${project.id}/merge_requests/${iid}/reviewers?per_page=1&page=2`, { token: reporter.token });
    expect(page.body.map((r: { user: { id: number } }) => r.user.id)).toEqual([reporter.id]);
    expect((await t.api('GET', `/projects/${project.id}/merge_requests/999/reviewers`, { token: reporter.token })).status).toBe(404);
    // A private project's merge request is hidden from those who may not read it.
    expect((await t.api('GET', `/projects/${project.id}/merge_requests/${iid}/reviewers`, { token: null })).status).toBe(404);
  });
});

describe('query budget', () => {
  it('asks the interactions of a page of four merge requests, each with users of its own, in the queries of a page of one', async () => {
    const people = await Promise.all(Array.from({ length: 5 }, async () => {
      const [assignee, reviewer] = await Promise.all([createUser(t), createUser(t)]);
      await Promise.all([addMember(t, owner.token, 'projects', project.id, assignee.id, 30), addMember(t, owner.token, 'projects', project.id, reviewer.id, 40)]);
      return { assignee, reviewer };
    }));
    const iids: number[] = [];
    for (const [i, { assignee, reviewer }] of people.entries()) {
      iids.push(await openMergeRequest(`budget-${i}`, owner.token, { assignee_ids: [assignee.id], reviewer_ids: [reviewer.id] }));
    }
    await Promise.all(people.map(({ reviewer }, i) => apiOk(t, reviewer.token, 'POST', `/projects/${project.id}/merge_requests/${iids[i]}/notes`, { body: 'seen' })));
    const measure = async (page: number[]) => {
      queries = 0;
      counting = true;
      const res = await t.graphql(
        `query($path: ID!, $iids: [String!]) { project(fullPath: $path) { mergeRequests(iids: $iids) { nodes {
          author { ${INTERACTION} } assignees { nodes { username ${INTERACTION} } } reviewers { nodes { username ${INTERACTION} } }
          participants { nodes { username ${INTERACTION} } } } } } }`,
        { path: project.path_with_namespace, iids: page.map(String) },
        owner.token,
      );
      counting = false;
      expect(res.body.errors).toBeUndefined();
      const nodes = res.body.data.project.mergeRequests.nodes;
      expect(nodes).toHaveLength(page.length);
      for (const node of nodes) expect(node.reviewers.nodes[0].mergeRequestInteraction).toEqual({ canMerge: true, canUpdate: true, reviewState: 'REVIEWED', reviewed: true, approved: false });
      return queries;
    };
    // Each page's users are new to the server's remembered memberships.
    const one = await measure(iids.slice(0, 1));
    const four = await measure(iids.slice(1));
    expect(four).toBe(one);
  }, 90_000);
});
