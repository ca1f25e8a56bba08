/**
 * Issues named by merge requests (GitLab's ClosingIssueExtractor and merge_requests_closing_issues): `Closes #1` in a
 * merge request into the default branch lists it in the issue's closed_by and the merge request's closes_issues, and
 * merging closes the issue; every reference lists the merge request in related_merge_requests; each as the viewer
 * may read them.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { suiteServer, EXTERNAL_URL } from '../support/server.js';
import { apiOk, createGroup, createProject, createUser, type TestUser } from '../support/factories.js';

const t = suiteServer();
let owner: TestUser;
let stranger: TestUser;
let project: { id: number; path_with_namespace: string };

const ok = (method: string, path: string, body?: object, token = owner.token) => apiOk(t, token, method, path, body);

const iids = (list: { iid: number }[]) => list.map((x) => x.iid).sort();

beforeAll(async () => {
  [owner, stranger] = await Promise.all([createUser(t), createUser(t)]);
  const group = await createGroup(t, owner.token, { visibility: 'public' });
  project = await createProject(t, owner.token, { namespaceId: group.id, visibility: 'public' });
  await ok('POST', `/projects/${project.id}/repository/commits`, { branch: 'main', commit_message: 'init', actions: [{ action: 'create', file_path: 'a.txt', content: 'a\n' }] });
  for (const branch of ['feature', 'other', 'stable']) {
    await ok('POST', `/projects/${project.id}/repository/commits`, { branch, start_branch: 'main', commit_message: branch, actions: [{ action: 'create', file_path: `${branch}.txt`, content: 'x\n' }] });
  }
  for (const title of ['one', 'two', 'three']) await ok('POST', `/projects/${project.id}/issues`, { title });
  await ok('POST', `/projects/${project.id}/issues`, { title: 'secret', confidential: true });
});

describe('issues named by merge requests', () => {
  it('lists closing and mentioning merge requests, and the issues a merge request closes', async () => {
    const base = `/projects/${project.id}`;
    const mr = await ok('POST', `${base}/merge_requests`, {
      source_branch: 'feature',
      target_branch: 'main',
      title: 'Feature',
      description: `Closes #1 and ${EXTERNAL_URL}/${project.path_with_namespace}/-/issues/4, see #2`,
    });
    // Into another branch: a mention only, whatever it says.
    const other = await ok('POST', `${base}/merge_requests`, { source_branch: 'other', target_branch: 'stable', title: 'Fixes #2' });
    expect(iids(await ok('GET', `${base}/issues/1/closed_by`))).toEqual([mr.iid]);
    expect(iids(await ok('GET', `${base}/issues/2/closed_by`))).toEqual([]);
    expect(iids(await ok('GET', `${base}/issues/2/related_merge_requests`))).toEqual([mr.iid, other.iid].sort());
    expect(iids(await ok('GET', `${base}/merge_requests/${mr.iid}/closes_issues`))).toEqual([1, 4]);
    // Another user reads no confidential issue: not among those the merge request closes for them.
    expect(iids(await ok('GET', `${base}/merge_requests/${mr.iid}/closes_issues`, undefined, stranger.token))).toEqual([1]);
    // related_issues: those it closes and those it only mentions, as IssueBasic, as the viewer may read them.
    expect(iids(await ok('GET', `${base}/merge_requests/${mr.iid}/related_issues`))).toEqual([1, 2, 4]);
    expect(iids(await ok('GET', `${base}/merge_requests/${mr.iid}/related_issues`, undefined, stranger.token))).toEqual([1, 2]);
    expect(iids(await ok('GET', `${base}/merge_requests/${other.iid}/related_issues`))).toEqual([2]);
    const related = await t.api('GET', `${base}/merge_requests/${mr.iid}/related_issues?per_page=1`, { token: null });
    expect(related.status, related.text).toBe(200);
    expect(related.headers.get('x-total')).toBe('2');
    expect(related.body).toHaveLength(1);
    expect(related.body[0]).toMatchObject({ iid: 1, project_id: project.id, title: 'one', state: 'opened' });
    expect(related.body[0]).not.toHaveProperty('subscribed');
    expect(await t.api('GET', `${base}/merge_requests/99/related_issues`)).toMatchObject({ status: 404 });
    expect((await ok('GET', `${base}/issues/1`)).merge_requests_count).toBe(1);
    expect((await ok('GET', `${base}/issues/3`)).merge_requests_count).toBe(0);
    const closedBy = await t.api('GET', `${base}/issues/1/closed_by`);
    expect(closedBy.headers.get('x-total')).toBe('1');
    expect(closedBy.body[0]).toMatchObject({ iid: mr.iid, project_id: project.id, title: 'Feature', state: 'opened' });
    expect(await t.api('GET', `${base}/issues/99/closed_by`)).toMatchObject({ status: 404 });
    expect(await t.api('GET', `${base}/issues/1/closed_by`, { token: null })).toMatchObject({ status: 401 });
  });

  it('follows the description as it changes, and closes what it names when merged into the default branch', async () => {
    const base = `/projects/${project.id}`;
    const mr = (await ok('GET', `${base}/merge_requests?source_branch=feature`))[0];
    await ok('PUT', `${base}/merge_requests/${mr.iid}`, { description: 'Resolves #3' });
    expect(iids(await ok('GET', `${base}/issues/1/closed_by`))).toEqual([]);
    expect(iids(await ok('GET', `${base}/issues/3/closed_by`))).toEqual([mr.iid]);
    const merged = await t.api('PUT', `${base}/merge_requests/${mr.iid}/merge`, { token: owner.token });
    expect(merged.status, merged.text).toBe(200);
    const issue = await ok('GET', `${base}/issues/3`);
    expect(issue).toMatchObject({ state: 'closed', closed_by: { id: owner.id } });
    expect((await ok('GET', `${base}/issues/1`)).state).toBe('opened');
    // A merged merge request keeps listing what it closed.
    expect(iids(await ok('GET', `${base}/merge_requests/${mr.iid}/closes_issues`))).toEqual([3]);
  });
});
