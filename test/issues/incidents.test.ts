/**
 * Incidents (issues of type `incident`): their severity (IssuableSeverity, issueSetSeverity), escalation status
 * (IssuableEscalationStatus, issueSetEscalationStatus) and its coupling with closing, GitLab's system notes and
 * errors; EE's health status over REST and GraphQL, and its filter.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { Gitlab } from '@gitbeaker/rest';
import { suiteServer } from '../support/server.js';
import { addMember, createProject, createUser, type TestUser } from '../support/factories.js';

const t = suiteServer();

let owner: TestUser;
let developer: TestUser;
let reporter: TestUser;
let guest: TestUser;
let project: { id: number; path_with_namespace: string };

beforeAll(async () => {
  [owner, developer, reporter, guest] = await Promise.all([1, 2, 3, 4].map(() => createUser(t)));
  project = await createProject(t, owner.token);
  await addMember(t, owner.token, 'projects', project.id, developer.id, 30);
  await addMember(t, owner.token, 'projects', project.id, reporter.id, 20);
  await addMember(t, owner.token, 'projects', project.id, guest.id, 10);
});

const FIELDS = 'iid type severity escalationStatus healthStatus state';

async function createIncident(token = owner.token, title = 'Database down') {
  const res = await t.graphql(
    `mutation($input: CreateIssueInput!) { createIssue(input: $input) { errors issue { ${FIELDS} } } }`,
    { input: { projectPath: project.path_with_namespace, title, type: 'INCIDENT' } },
    token,
  );
  expect(res.body.errors).toBeUndefined();
  return res.body.data.createIssue.issue;
}

const setSeverity = (iid: string, severity: string, token: string) =>
  t.graphql(
    `mutation($input: IssueSetSeverityInput!) { issueSetSeverity(input: $input) { errors clientMutationId issue { ${FIELDS} } } }`,
    { input: { projectPath: project.path_with_namespace, iid, severity, clientMutationId: 'sev' } },
    token,
  );

const setStatus = (iid: string, status: string, token: string) =>
  t.graphql(
    `mutation($input: IssueSetEscalationStatusInput!) { issueSetEscalationStatus(input: $input) { errors issue { ${FIELDS} } } }`,
    { input: { projectPath: project.path_with_namespace, iid, status } },
    token,
  );

async function systemNotes(iid: string): Promise<string[]> {
  const res = await t.api('GET', `/projects/${project.id}/issues/${iid}/notes?sort=asc&order_by=created_at&per_page=100`, { token: owner.token });
  return (res.body as { body: string; system: boolean }[]).filter((n) => n.system).map((n) => n.body);
}

describe('incidents', () => {
  it('creates an incident triggered, with severity UNKNOWN, over GraphQL and REST', async () => {
    const incident = await createIncident();
    expect(incident).toMatchObject({ type: 'INCIDENT', severity: 'UNKNOWN', escalationStatus: 'TRIGGERED', healthStatus: null, state: 'opened' });
    const rest = await t.api('POST', `/projects/${project.id}/issues`, { token: owner.token, body: { title: 'Over REST', issue_type: 'incident' } });
    expect(rest.status).toBe(201);
    expect(rest.body).toMatchObject({ type: 'INCIDENT', issue_type: 'incident', severity: 'UNKNOWN' });
    const plain = await t.api('POST', `/projects/${project.id}/issues`, { token: owner.token, body: { title: 'Plain issue' } });
    expect(plain.body).toMatchObject({ type: 'ISSUE', issue_type: 'issue', severity: 'UNKNOWN' });
    const bad = await t.api('POST', `/projects/${project.id}/issues`, { token: owner.token, body: { title: 'x', issue_type: 'epic' } });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: 'issue_type does not have a valid value' });
    // A Guest may create issues, not incidents (create_incident): the type falls back to an issue.
    const byGuest = await t.api('POST', `/projects/${project.id}/issues`, { token: guest.token, body: { title: 'Guest incident', issue_type: 'incident' } });
    expect(byGuest.status).toBe(201);
    expect(byGuest.body).toMatchObject({ issue_type: 'issue', type: 'ISSUE' });
    const read = await t.graphql(`query($p: ID!, $iid: String!) { project(fullPath: $p) { issue(iid: $iid) { escalationStatus severity type } } }`, { p: project.path_with_namespace, iid: String(plain.body.iid) }, owner.token);
    expect(read.body.data.project.issue).toEqual({ escalationStatus: null, severity: 'UNKNOWN', type: 'ISSUE' });
  });

  it('sets the severity of an incident with its system note, and REST shows it', async () => {
    const incident = await createIncident();
    const res = await setSeverity(incident.iid, 'HIGH', reporter.token);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.issueSetSeverity).toMatchObject({ errors: [], clientMutationId: 'sev', issue: { severity: 'HIGH' } });
    // The same severity again changes nothing and notes nothing.
    await setSeverity(incident.iid, 'HIGH', reporter.token);
    await setSeverity(incident.iid, 'CRITICAL', owner.token);
    expect(await systemNotes(incident.iid)).toEqual(['changed the severity to **High - S2**', 'changed the severity to **Critical - S1**']);
    const rest = await t.api('GET', `/projects/${project.id}/issues/${incident.iid}`, { token: owner.token });
    expect(rest.body.severity).toBe('CRITICAL');
    const api = new Gitlab({ host: t.url, token: owner.token });
    const viaGitbeaker = (await api.Issues.show(Number(incident.iid), { projectId: project.id })) as unknown as { severity: string; issue_type: string };
    expect(viaGitbeaker).toMatchObject({ severity: 'CRITICAL', issue_type: 'incident' });
  });

  it('keeps an issue’s severity UNKNOWN, and refuses those who may not update the incident', async () => {
    const issue = (await t.api('POST', `/projects/${project.id}/issues`, { token: owner.token, body: { title: 'Not an incident' } })).body;
    const res = await setSeverity(String(issue.iid), 'LOW', owner.token);
    expect(res.body.data.issueSetSeverity).toMatchObject({ errors: [], issue: { severity: 'UNKNOWN', type: 'ISSUE' } });
    expect(await systemNotes(String(issue.iid))).toEqual([]);

    const incident = await createIncident();
    const denied = await setSeverity(incident.iid, 'LOW', guest.token);
    expect(denied.body.data.issueSetSeverity).toBeNull();
    expect(denied.body.errors![0].message).toBe("The resource that you are attempting to access does not exist or you don't have permission to perform this action");
    const missing = await setSeverity('999', 'LOW', owner.token);
    expect(missing.body.errors![0].message).toBe("The resource that you are attempting to access does not exist or you don't have permission to perform this action");
    const bad = await setSeverity(incident.iid, 'SEVERE', owner.token);
    expect(bad.body.errors![0].message).toMatch(/IssuableSeverity/);
    const after = await t.graphql(`query($p: ID!, $iid: String!) { project(fullPath: $p) { issue(iid: $iid) { severity } } }`, { p: project.path_with_namespace, iid: incident.iid }, owner.token);
    expect(after.body.data.project.issue.severity).toBe('UNKNOWN');
  });

  it('sets the escalation status with GitLab’s notes; Developers may, Reporters and Guests may not', async () => {
    const incident = await createIncident();
    const acknowledged = await setStatus(incident.iid, 'ACKNOWLEDGED', developer.token);
    expect(acknowledged.body.data.issueSetEscalationStatus).toMatchObject({ errors: [], issue: { escalationStatus: 'ACKNOWLEDGED', state: 'opened' } });
    for (const user of [reporter, guest]) {
      const denied = await setStatus(incident.iid, 'IGNORED', user.token);
      expect(denied.body.data.issueSetEscalationStatus).toBeNull();
      expect(denied.body.errors![0].message).toBe("The resource that you are attempting to access does not exist or you don't have permission to perform this action");
    }
    // The same status again is no change.
    await setStatus(incident.iid, 'ACKNOWLEDGED', developer.token);
    expect(await systemNotes(incident.iid)).toEqual(['changed the incident status to **Acknowledged**']);

    const issue = (await t.api('POST', `/projects/${project.id}/issues`, { token: owner.token, body: { title: 'Plain' } })).body;
    const unavailable = await setStatus(String(issue.iid), 'RESOLVED', owner.token);
    expect(unavailable.body.data.issueSetEscalationStatus).toBeNull();
    expect(unavailable.body.errors![0].message).toBe('Feature unavailable for provided issue');
  });

  it('resolves an incident that is closed; resolving leaves it open; reopening keeps the status', async () => {
    const incident = await createIncident();
    const closed = await t.api('PUT', `/projects/${project.id}/issues/${incident.iid}`, { token: developer.token, body: { state_event: 'close' } });
    expect(closed.body.state).toBe('closed');
    const read = async () =>
      (await t.graphql(`query($p: ID!, $iid: String!) { project(fullPath: $p) { issue(iid: $iid) { ${FIELDS} } } }`, { p: project.path_with_namespace, iid: incident.iid }, owner.token)).body.data.project
        .issue;
    expect(await read()).toMatchObject({ state: 'closed', escalationStatus: 'RESOLVED' });
    expect(await systemNotes(incident.iid)).toEqual(['changed the incident status to **Resolved** by closing the incident']);

    // Issues::ReopenService leaves the escalation status as it is.
    await t.api('PUT', `/projects/${project.id}/issues/${incident.iid}`, { token: developer.token, body: { state_event: 'reopen' } });
    expect(await read()).toMatchObject({ state: 'opened', escalationStatus: 'RESOLVED' });
    await setStatus(incident.iid, 'TRIGGERED', developer.token);
    // Setting RESOLVED does not close the incident (IssuableEscalationStatuses::AfterUpdateService only notes it).
    await setStatus(incident.iid, 'RESOLVED', developer.token);
    expect(await read()).toMatchObject({ state: 'opened', escalationStatus: 'RESOLVED' });
    // Closing an incident already resolved notes nothing more about its status.
    await t.api('PUT', `/projects/${project.id}/issues/${incident.iid}`, { token: developer.token, body: { state_event: 'close' } });
    expect(await systemNotes(incident.iid)).toEqual([
      'changed the incident status to **Resolved** by closing the incident',
      'changed the incident status to **Triggered**',
      'changed the incident status to **Resolved**',
    ]);
  });

  it('turns an issue into an incident, which starts triggered', async () => {
    const issue = (await t.api('POST', `/projects/${project.id}/issues`, { token: owner.token, body: { title: 'Becomes an incident' } })).body;
    const res = await t.api('PUT', `/projects/${project.id}/issues/${issue.iid}`, { token: owner.token, body: { issue_type: 'incident' } });
    expect(res.body).toMatchObject({ issue_type: 'incident', type: 'INCIDENT' });
    const read = await t.graphql(`query($p: ID!, $iid: String!) { project(fullPath: $p) { issue(iid: $iid) { escalationStatus } } }`, { p: project.path_with_namespace, iid: String(issue.iid) }, owner.token);
    expect(read.body.data.project.issue.escalationStatus).toBe('TRIGGERED');
    expect(await systemNotes(String(issue.iid))).toEqual(['changed type from issue to incident']);
  });
});

describe('health status', () => {
  it('is set on create and update over REST and GraphQL, with notes, and filters lists', async () => {
    const created = await t.api('POST', `/projects/${project.id}/issues`, { token: reporter.token, body: { title: 'Healthy', health_status: 'on_track' } });
    expect(created.body.health_status).toBe('on_track');
    const bad = await t.api('POST', `/projects/${project.id}/issues`, { token: reporter.token, body: { title: 'x', health_status: 'fine' } });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: 'health_status does not have a valid value' });
    const iid = String(created.body.iid);
    const updated = await t.graphql(
      `mutation($input: UpdateIssueInput!) { updateIssue(input: $input) { errors issue { healthStatus } } }`,
      { input: { projectPath: project.path_with_namespace, iid, healthStatus: 'atRisk' } },
      reporter.token,
    );
    expect(updated.body.data.updateIssue).toEqual({ errors: [], issue: { healthStatus: 'atRisk' } });
    // A Guest who wrote the issue may edit it, but not its metadata: the health status stays.
    const own = (await t.api('POST', `/projects/${project.id}/issues`, { token: guest.token, body: { title: 'Guest’s', health_status: 'at_risk' } })).body;
    expect(own.health_status).toBeNull();
    const guestPut = await t.api('PUT', `/projects/${project.id}/issues/${own.iid}`, { token: guest.token, body: { health_status: 'at_risk' } });
    expect(guestPut.body.health_status).toBeNull();

    const list = async (filter: string) =>
      (await t.graphql(`query($p: ID!) { project(fullPath: $p) { issues(healthStatusFilter: ${filter}, state: all) { nodes { iid } } } }`, { p: project.path_with_namespace }, owner.token)).body.data.project.issues.nodes.map(
        (n: { iid: string }) => n.iid,
      );
    expect(await list('atRisk')).toEqual([iid]);
    expect(await list('ANY')).toEqual([iid]);
    expect(await list('NONE')).not.toContain(iid);
    const rest = await t.api('GET', `/projects/${project.id}/issues?health_status=at_risk`, { token: owner.token });
    expect(rest.body.map((i: { iid: number }) => String(i.iid))).toEqual([iid]);
    const restAny = await t.api('GET', `/projects/${project.id}/issues?health_status=Any`, { token: owner.token });
    expect(restAny.body.map((i: { iid: number }) => String(i.iid))).toEqual([iid]);

    const cleared = await t.api('PUT', `/projects/${project.id}/issues/${iid}`, { token: reporter.token, body: { health_status: null } });
    expect(cleared.body.health_status).toBeNull();
    expect(await systemNotes(iid)).toEqual(['changed health status to **at risk**', 'removed the health status']);
  });
});
