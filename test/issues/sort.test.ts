/**
 * IssueSort's orders by what incidents, health status and blocking links add (GitLab's Issue.order_severity_*,
 * order_escalation_status_*, EE's order_health_status_* and order_blocking_issues_*): nulls where GitLab puts them,
 * ties newest first, the same across pages; REST's order_by has none of them, as GitLab's Issues API.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { suiteServer } from '../support/server.js';
import { createProject, createUser, type TestUser } from '../support/factories.js';

const t = suiteServer();

let owner: TestUser;
let project: { id: number; path_with_namespace: string };
/** iids of the five issues, by their names in the comments below. */
const iid: Record<string, number> = {};

async function issue(name: string, body: Record<string, unknown>) {
  const res = await t.api('POST', `/projects/${project.id}/issues`, { token: owner.token, body: { title: name, ...body } });
  expect(res.status).toBe(201);
  iid[name] = res.body.iid;
}

const gql = (query: string, variables: Record<string, unknown> = {}) => t.graphql(query, variables, owner.token);

async function mutate(name: string, input: Record<string, unknown>) {
  const res = await gql(`mutation($input: ${name[0].toUpperCase()}${name.slice(1)}Input!) { ${name}(input: $input) { errors } }`, {
    input: { projectPath: project.path_with_namespace, ...input },
  });
  expect(res.body.errors).toBeUndefined();
  expect(res.body.data[name].errors).toEqual([]);
}

async function block(blocker: string, blocked: string) {
  const res = await t.api('POST', `/projects/${project.id}/issues/${iid[blocker]}/links`, {
    token: owner.token,
    body: { target_project_id: project.id, target_issue_iid: iid[blocked], link_type: 'blocks' },
  });
  expect(res.status).toBe(201);
}

beforeAll(async () => {
  owner = await createUser(t);
  project = await createProject(t, owner.token);
  // one: incident, HIGH, ACKNOWLEDGED, on track. two: incident, severity never set, TRIGGERED. three: an issue, at
  // risk. four: incident, HIGH, ACKNOWLEDGED, on track (ties with one). five: incident, LOW, RESOLVED.
  await issue('one', { issue_type: 'incident', health_status: 'on_track' });
  await issue('two', { issue_type: 'incident' });
  await issue('three', { health_status: 'at_risk' });
  await issue('four', { issue_type: 'incident', health_status: 'on_track' });
  await issue('five', { issue_type: 'incident' });
  for (const [name, severity] of [['one', 'HIGH'], ['four', 'HIGH'], ['five', 'LOW']]) await mutate('issueSetSeverity', { iid: String(iid[name]), severity });
  for (const [name, status] of [['one', 'ACKNOWLEDGED'], ['four', 'ACKNOWLEDGED'], ['five', 'RESOLVED']]) await mutate('issueSetEscalationStatus', { iid: String(iid[name]), status });
  // three blocks one and two; four blocks five; five blocks three, until three is closed (then it blocks no open issue).
  await block('three', 'one');
  await block('three', 'two');
  await block('four', 'five');
  await block('five', 'three');
});

const names = (iids: number[]) => iids.map((n) => Object.keys(iid).find((k) => iid[k] === n));

async function sorted(sort: string, first = 100, after?: string) {
  const res = await gql(
    `query($p: ID!, $first: Int, $after: String) { project(fullPath: $p) { issues(sort: ${sort}, state: all, first: $first, after: $after) { nodes { iid } pageInfo { endCursor hasNextPage } } } }`,
    { p: project.path_with_namespace, first, after },
  );
  expect(res.body.errors).toBeUndefined();
  const { nodes, pageInfo } = res.body.data.project.issues;
  return { order: names(nodes.map((n: { iid: string }) => Number(n.iid))), pageInfo };
}

/** The whole list two at a time, following endCursor. */
async function paged(sort: string) {
  const order: (string | undefined)[] = [];
  let after: string | undefined;
  for (;;) {
    const page = await sorted(sort, 2, after);
    order.push(...page.order);
    if (!page.pageInfo.hasNextPage) return order;
    after = page.pageInfo.endCursor;
  }
}

describe('issue orders of incidents, health status and blocking', () => {
  it('orders by severity: those without one first ascending and last descending, ties newest first', async () => {
    expect((await sorted('SEVERITY_ASC')).order).toEqual(['three', 'two', 'five', 'four', 'one']);
    expect((await sorted('SEVERITY_DESC')).order).toEqual(['four', 'one', 'five', 'three', 'two']);
    expect(await paged('SEVERITY_ASC')).toEqual(['three', 'two', 'five', 'four', 'one']);
  });

  it('orders by escalation status, triggered to resolved, issues without one last', async () => {
    expect((await sorted('ESCALATION_STATUS_ASC')).order).toEqual(['two', 'four', 'one', 'five', 'three']);
    expect((await sorted('ESCALATION_STATUS_DESC')).order).toEqual(['five', 'four', 'one', 'two', 'three']);
    expect(await paged('ESCALATION_STATUS_DESC')).toEqual(['five', 'four', 'one', 'two', 'three']);
  });

  it('orders by health status, those without one last', async () => {
    expect((await sorted('HEALTH_STATUS_ASC')).order).toEqual(['four', 'one', 'three', 'five', 'two']);
    expect((await sorted('HEALTH_STATUS_DESC')).order).toEqual(['three', 'four', 'one', 'five', 'two']);
    expect(await paged('HEALTH_STATUS_ASC')).toEqual(['four', 'one', 'three', 'five', 'two']);
  });

  it('orders by the open issues each blocks, as links and states change', async () => {
    expect((await sorted('BLOCKING_ISSUES_DESC')).order).toEqual(['three', 'five', 'four', 'two', 'one']);
    // Closing three: five blocks no open issue any more.
    const closed = await t.api('PUT', `/projects/${project.id}/issues/${iid.three}`, { token: owner.token, body: { state_event: 'close' } });
    expect(closed.body.state).toBe('closed');
    expect((await sorted('BLOCKING_ISSUES_DESC')).order).toEqual(['three', 'four', 'five', 'two', 'one']);
    expect((await sorted('BLOCKING_ISSUES_ASC')).order).toEqual(['five', 'two', 'one', 'four', 'three']);
    expect(await paged('BLOCKING_ISSUES_ASC')).toEqual(['five', 'two', 'one', 'four', 'three']);
    const counts = await t.api('GET', `/projects/${project.id}/issues?state=all&order_by=created_at&sort=asc`, { token: owner.token });
    expect(counts.body.map((i: { blocking_issues_count: number }) => i.blocking_issues_count)).toEqual([0, 0, 2, 1, 0]);
    // Removing a link counts again too; reopening three makes five block it again.
    const links = await t.api('GET', `/projects/${project.id}/issues/${iid.three}/links`, { token: owner.token });
    const toOne = links.body.find((l: { iid: number }) => l.iid === iid.one);
    expect((await t.api('DELETE', `/projects/${project.id}/issues/${iid.three}/links/${toOne.issue_link_id}`, { token: owner.token })).status).toBe(200);
    await t.api('PUT', `/projects/${project.id}/issues/${iid.three}`, { token: owner.token, body: { state_event: 'reopen' } });
    expect((await sorted('BLOCKING_ISSUES_DESC')).order).toEqual(['five', 'four', 'three', 'two', 'one']);
  });

  it('orders by status page publication: none is published here, so newest first either way', async () => {
    for (const sort of ['PUBLISHED_ASC', 'PUBLISHED_DESC']) {
      expect((await sorted(sort)).order).toEqual(['five', 'four', 'three', 'two', 'one']);
      expect(await paged(sort)).toEqual(['five', 'four', 'three', 'two', 'one']);
    }
    const all = await gql(`{ issues(sort: PUBLISHED_DESC, state: all) { nodes { iid } } }`);
    expect(all.body.errors).toBeUndefined();
    expect(all.body.data.issues.nodes.map((n: { iid: string }) => Number(n.iid))).toEqual([iid.five, iid.four, iid.three, iid.two, iid.one]);
  });

  it('is not an order_by of the Issues API, as in GitLab', async () => {
    for (const orderBy of ['severity', 'escalation_status', 'health_status', 'blocking_issues', 'published']) {
      const res = await t.api('GET', `/projects/${project.id}/issues?order_by=${orderBy}`, { token: owner.token });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: 'order_by does not have a valid value' });
    }
    // The instance and group lists take the same sorts over GraphQL.
    const all = await gql(`{ issues(sort: SEVERITY_DESC, state: all) { nodes { iid } } }`);
    expect(all.body.errors).toBeUndefined();
  });
});
