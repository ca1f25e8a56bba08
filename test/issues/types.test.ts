/**
 * Issue types as GitLab without its licence has them: REQUIREMENT and TEST_CASE are GraphQL's IssueType values and
 * REST's `issue_type` values, but no issue is made one (Issues::BuildService falls back to an issue; an update drops a
 * type the user may not create, Issues::BaseService#filter_params); filtering by them finds only issues of those
 * types, so none here. `types`/`issue_type` filter the project, group and instance lists.
 */
import { Gitlab } from '@gitbeaker/rest';
import { beforeAll, describe, expect, it } from 'vitest';
import { createGroup, createProject, createUser, type TestUser } from '../support/factories.js';
import { suiteServer } from '../support/server.js';

const t = suiteServer();

let owner: TestUser;
let group: { id: number; full_path: string };
let project: { id: number; path_with_namespace: string };
const created: Record<string, { iid: number; issue_type: string }> = {};

async function create(title: string, issueType?: string) {
  const res = await t.api('POST', `/projects/${project.id}/issues`, { token: owner.token, body: { title, ...(issueType ? { issue_type: issueType } : {}) } });
  expect(res.status, res.text).toBe(201);
  created[title] = res.body;
}

beforeAll(async () => {
  owner = await createUser(t);
  group = await createGroup(t, owner.token);
  project = await createProject(t, owner.token, { namespaceId: group.id });
  await create('plain');
  await create('incident', 'incident');
  await create('requirement', 'requirement');
  await create('test case', 'test_case');
});

describe('licensed issue types', () => {
  it('makes an issue of a requirement or a test case, over REST and GraphQL', async () => {
    expect(created.requirement.issue_type).toBe('issue');
    expect(created['test case'].issue_type).toBe('issue');
    expect(created.incident.issue_type).toBe('incident');
    const res = await t.graphql(
      `mutation($p: ID!) {
        a: createIssue(input: { projectPath: $p, title: "gql requirement", type: REQUIREMENT }) { errors issue { type issueType } }
        b: createIssue(input: { projectPath: $p, title: "gql test case", type: TEST_CASE }) { errors issue { type issueType } }
      }`,
      { p: project.path_with_namespace },
      owner.token,
    );
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data).toEqual({ a: { errors: [], issue: { type: 'ISSUE', issueType: 'issue' } }, b: { errors: [], issue: { type: 'ISSUE', issueType: 'issue' } } });
  });

  it('keeps the type of an issue changed to one', async () => {
    const put = await t.api('PUT', `/projects/${project.id}/issues/${created.incident.iid}`, { token: owner.token, body: { issue_type: 'requirement', title: 'still an incident' } });
    expect(put.status, put.text).toBe(200);
    expect(put.body).toMatchObject({ issue_type: 'incident', title: 'still an incident' });
    const res = await t.graphql(
      `mutation($p: ID!, $iid: String!) { updateIssue(input: { projectPath: $p, iid: $iid, type: TEST_CASE }) { errors issue { type } } }`,
      { p: project.path_with_namespace, iid: String(created.plain.iid) },
      owner.token,
    );
    expect(res.body.data.updateIssue).toEqual({ errors: [], issue: { type: 'ISSUE' } });
    // The types one may create still change: an issue becomes an incident.
    const toIncident = await t.api('PUT', `/projects/${project.id}/issues/${created.requirement.iid}`, { token: owner.token, body: { issue_type: 'incident' } });
    expect(toIncident.body.issue_type).toBe('incident');
    const back = await t.api('PUT', `/projects/${project.id}/issues/${created.requirement.iid}`, { token: owner.token, body: { issue_type: 'issue' } });
    expect(back.body.issue_type).toBe('issue');
  });

  it('filters lists by type over REST, none being a requirement or a test case', async () => {
    for (const path of [`/projects/${project.id}/issues`, `/groups/${group.id}/issues`, '/issues']) {
      for (const type of ['requirement', 'test_case']) {
        const res = await t.api('GET', `${path}?issue_type=${type}`, { token: owner.token });
        expect([res.status, res.body, res.headers.get('x-total')]).toEqual([200, [], '0']);
      }
      const incidents = await t.api('GET', `${path}?issue_type=incident`, { token: owner.token });
      expect(incidents.body.map((i: { iid: number }) => i.iid)).toEqual([created.incident.iid]);
      const issues = await t.api('GET', `${path}?issue_type=issue`, { token: owner.token });
      expect(issues.body).toHaveLength(5);
      expect(issues.body.every((i: { issue_type: string }) => i.issue_type === 'issue')).toBe(true);
    }
    const bad = await t.api('GET', `/projects/${project.id}/issues?issue_type=task`, { token: owner.token });
    expect([bad.status, bad.body]).toEqual([400, { error: 'issue_type does not have a valid value' }]);
    const api = new Gitlab({ host: t.url, token: owner.token });
    expect(await api.Issues.all({ projectId: project.id, issueType: 'test_case' } as never)).toEqual([]);
  });

  it('filters lists by types over GraphQL', async () => {
    const res = await t.graphql(
      `query($p: ID!, $g: ID!) {
        project(fullPath: $p) {
          licensed: issues(types: [REQUIREMENT, TEST_CASE]) { count }
          incidents: issues(types: [INCIDENT, REQUIREMENT]) { nodes { iid } }
          both: issues(types: [ISSUE, INCIDENT]) { count }
          none: issues(types: []) { count }
        }
        group(fullPath: $g) { issues(types: [TEST_CASE]) { count } }
        issues(types: [REQUIREMENT]) { count }
      }`,
      { p: project.path_with_namespace, g: group.full_path },
      owner.token,
    );
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data).toEqual({
      project: { licensed: { count: 0 }, incidents: { nodes: [{ iid: String(created.incident.iid) }] }, both: { count: 6 }, none: { count: 6 } },
      group: { issues: { count: 0 } },
      issues: { count: 0 },
    });
  });
});
