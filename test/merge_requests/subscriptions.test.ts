/**
 * GitLab's merge request subscriptions over graphql-ws (mergeRequestMergeStatusUpdated, mergeRequestReviewersUpdated,
 * mergeRequestDiffGenerated): each hears its part of the merge request change, whichever path changed it; only
 * readers of the merge request may subscribe, and an outsider gets GitLab's `Unauthorized subscription` and nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { suiteServer } from '../support/server.js';
import { addMember, createProject, createUser, type TestUser } from '../support/factories.js';

const t = suiteServer();
let owner: TestUser;
let reporter: TestUser;
let stranger: TestUser;
let project: any;
let mr: any;
let gid: string;

const SELECTION = '... on MergeRequest { id iid title draft state detailedMergeStatus diffHeadSha reviewers { nodes { username } } }';
const query = (field: string) => `subscription($id: IssuableID!) { ${field}(issuableId: $id) { __typename ${SELECTION} } }`;

interface Heard {
  values: any[];
  errors: any[];
  ended: Promise<void>;
  next(test: (value: any) => boolean, ms?: number): Promise<any>;
}

const clients: Client[] = [];
function listen(token: string, field: string, id: string): Heard {
  const client = createClient({ url: `${t.url.replace('http', 'ws')}/api/graphql`, webSocketImpl: WebSocket, connectionParams: { 'PRIVATE-TOKEN': token }, retryAttempts: 0 });
  clients.push(client);
  const values: any[] = [];
  const errors: any[] = [];
  const waiters: Array<() => void> = [];
  const wake = () => waiters.splice(0).forEach((w) => w());
  const ended = new Promise<void>((resolve) => {
    client.subscribe(
      { query: query(field), variables: { id } },
      {
        next: (msg: any) => {
          if (msg.errors) errors.push(...msg.errors);
          if (msg.data?.[field]) values.push(msg.data[field]);
          wake();
        },
        error: (err) => {
          errors.push(...(Array.isArray(err) ? err : [err]));
          wake();
          resolve();
        },
        complete: () => {
          wake();
          resolve();
        },
      },
    );
  });
  const next = (test: (value: any) => boolean, ms = 10_000) =>
    new Promise<any>((resolve) => {
      const timer = setTimeout(() => resolve(null), ms);
      const check = () => {
        const found = values.find(test);
        if (found) {
          clearTimeout(timer);
          resolve(found);
        } else waiters.push(check);
      };
      check();
    });
  return { values, errors, ended, next };
}

afterAll(async () => {
  await Promise.all(clients.map((c) => c.dispose()));
});

async function commit(branch: string, content: string, start?: string) {
  const exists = await t.api('GET', `/projects/${project.id}/repository/files/f.txt?ref=${start ?? branch}`, { token: owner.token });
  const res = await t.api('POST', `/projects/${project.id}/repository/commits`, {
    token: owner.token,
    body: { branch, ...(start ? { start_branch: start } : {}), commit_message: 'Write', actions: [{ action: exists.status === 200 ? 'update' : 'create', file_path: 'f.txt', content }] },
  });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

beforeAll(async () => {
  [owner, reporter, stranger] = await Promise.all([createUser(t), createUser(t), createUser(t)]);
  project = await createProject(t, owner.token, { visibility: 'private' });
  await addMember(t, owner.token, 'projects', project.id, reporter.id, 20);
  await commit('main', 'one\n');
  await commit('feature', 'two\n', 'main');
  const res = await t.api('POST', `/projects/${project.id}/merge_requests`, { token: owner.token, body: { source_branch: 'feature', target_branch: 'main', title: 'Watched' } });
  expect(res.status).toBe(201);
  mr = res.body;
  gid = `gid://gitlab/MergeRequest/${mr.id}`;
});

const update = (body: Record<string, unknown>) => t.api('PUT', `/projects/${project.id}/merge_requests/${mr.iid}`, { token: owner.token, body });

/**
 * graphql-ws does not acknowledge a subscription: makes the change (a different one each attempt) until the
 * subscription hears it, so that what the test checks next is heard for certain.
 */
async function untilHeard(sub: Heard, change: (n: number) => Promise<unknown>, heard: (value: any, n: number) => boolean, wait = 250): Promise<any> {
  for (let n = 0; n < 40; n++) {
    await change(n);
    const got = await sub.next((v) => heard(v, n), wait);
    if (got) return got;
  }
  throw new Error(`not heard: ${JSON.stringify(sub.values).slice(0, 300)}`);
}

describe('merge request subscriptions', () => {
  it('mergeRequestReviewersUpdated hears reviewers change, as the Issuable union’s MergeRequest', async () => {
    const sub = listen(reporter.token, 'mergeRequestReviewersUpdated', gid);
    const got = await untilHeard(
      sub,
      (n) => update({ reviewer_ids: [n % 2 ? owner.id : reporter.id] }),
      (v, n) => v.reviewers.nodes[0]?.username === (n % 2 ? owner : reporter).username,
    );
    expect(got).toMatchObject({ __typename: 'MergeRequest', id: gid, iid: String(mr.iid) });
    // A title change is not a reviewers change: what it hears next is the next reviewers change only.
    const count = sub.values.length;
    await update({ title: 'Watched again' });
    await update({ reviewer_ids: [] });
    const cleared = await sub.next((v) => v.reviewers.nodes.length === 0);
    expect(cleared.title).toBe('Watched again');
    expect(sub.values.length).toBe(count + 1);
  });

  it('mergeRequestMergeStatusUpdated hears draft, state and merge changes with the new status', async () => {
    const sub = listen(reporter.token, 'mergeRequestMergeStatusUpdated', gid);
    await untilHeard(
      sub,
      (n) => update({ title: n % 2 ? 'Watched' : 'Draft: Watched' }),
      (v, n) => v.detailedMergeStatus === (n % 2 ? 'MERGEABLE' : 'DRAFT_STATUS'),
    );
    await update({ title: 'Watched' });
    await update({ state_event: 'close' });
    expect(await sub.next((v) => v.state === 'closed')).toMatchObject({ detailedMergeStatus: 'NOT_OPEN' });
    await update({ state_event: 'reopen' });
    await sub.next((v) => v.state === 'opened' && v.detailedMergeStatus === 'MERGEABLE');
  });

  it('mergeRequestMergeStatusUpdated hears a thread resolved and unresolved where threads must be resolved', async () => {
    const settings = (value: boolean) => t.api('PUT', `/projects/${project.id}`, { token: owner.token, body: { only_allow_merge_if_all_discussions_are_resolved: value } });
    expect((await settings(true)).status).toBe(200);
    const thread = (await t.api('POST', `/projects/${project.id}/merge_requests/${mr.iid}/discussions`, { token: owner.token, body: { body: 'Blocking?' } })).body;
    const resolve = (resolved: boolean) => t.api('PUT', `/projects/${project.id}/merge_requests/${mr.iid}/discussions/${thread.id}`, { token: owner.token, body: { resolved } });
    const sub = listen(reporter.token, 'mergeRequestMergeStatusUpdated', gid);
    await untilHeard(
      sub,
      (n) => resolve(n % 2 === 0),
      (v, n) => v.detailedMergeStatus === (n % 2 === 0 ? 'MERGEABLE' : 'DISCUSSIONS_NOT_RESOLVED'),
    );
    expect((await resolve(true)).status).toBe(200);
    expect((await settings(false)).status).toBe(200);
  });

  it('mergeRequestDiffGenerated and the merge status hear a push to the source branch', async () => {
    const diff = listen(reporter.token, 'mergeRequestDiffGenerated', gid);
    const status = listen(reporter.token, 'mergeRequestMergeStatusUpdated', gid);
    let head = '';
    await untilHeard(
      diff,
      async (n) => {
        head = await commit('feature', `push ${n}\n`);
      },
      (v) => v.diffHeadSha === head,
      // A push's refresh runs on the job queue after the push.
      3000,
    );
    await status.next((v) => v.diffHeadSha === head);
    const merged = await t.api('PUT', `/projects/${project.id}/merge_requests/${mr.iid}/merge`, { token: owner.token });
    expect(merged.status).toBe(200);
    expect(await status.next((v) => v.state === 'merged')).toMatchObject({ detailedMergeStatus: 'NOT_OPEN' });
  }, 90_000);

  it('only readers of the merge request subscribe: others get `Unauthorized subscription` and hear nothing', async () => {
    const outsider = listen(stranger.token, 'mergeRequestReviewersUpdated', gid);
    await outsider.ended;
    expect(outsider.errors.map((e) => e.message)).toEqual(['Unauthorized subscription']);
    expect(outsider.values).toEqual([]);
    const missing = listen(owner.token, 'mergeRequestMergeStatusUpdated', 'gid://gitlab/MergeRequest/999999');
    await missing.ended;
    expect(missing.errors.map((e) => e.message)).toEqual(['Unauthorized subscription']);
    // An issue is no merge request, and a merge request no issue for the issue fields.
    const issue = await t.api('POST', `/projects/${project.id}/issues`, { token: owner.token, body: { title: 'An issue' } });
    const wrongKind = listen(owner.token, 'mergeRequestReviewersUpdated', `gid://gitlab/Issue/${issue.body.id}`);
    await wrongKind.ended;
    expect(wrongKind.errors.map((e) => e.message)).toEqual(['Unauthorized subscription']);
    const approvals = listen(stranger.token, 'mergeRequestApprovalStateUpdated', gid);
    await approvals.ended;
    expect(approvals.errors.map((e) => e.message)).toEqual(['Unauthorized subscription']);
  });
});
