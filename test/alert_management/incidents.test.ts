/**
 * Alerts and their incidents: createAlertIssue (GitLab's title, description and severity; `An issue already exists`
 * in the payload), issueLinkAlerts and issueUnlinkAlert, AlertManagementAlert.issue/issueIid and
 * Issue.alertManagementAlerts, closing an incident resolving its alerts, the incident settings making incidents of
 * ingested alerts and closing them when the integration resolves them (generic and Alertmanager payloads over HTTP),
 * the payloads' `issue` and `todo`, and the Prometheus integration's own type and global ID.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { Gitlab } from '@gitbeaker/rest';
import { suiteServer, EXTERNAL_URL } from '../support/server.js';
import { addMember, createProject, createUser, type TestUser } from '../support/factories.js';
import { alertmanagerWebhook, createHttpIntegration, createPrometheusIntegration, notify, type Integration } from './support.js';

const t = suiteServer();
const NOT_AVAILABLE = "The resource that you are attempting to access does not exist or you don't have permission to perform this action";
let maintainer: TestUser;
let developer: TestUser;
let reporter: TestUser;
let guest: TestUser;
let stranger: TestUser;
let project: { id: number; path_with_namespace: string };
let path: string;
let http: Integration;
let prometheus: Integration;

let seq = 0;
const uniq = (s: string) => `${s} ${++seq}-${Date.now()}`;

beforeAll(async () => {
  [maintainer, developer, reporter, guest, stranger] = await Promise.all([createUser(t), createUser(t), createUser(t), createUser(t), createUser(t)]);
  project = await createProject(t, maintainer.token);
  path = project.path_with_namespace;
  await addMember(t, maintainer.token, 'projects', project.id, developer.id, 30);
  await addMember(t, maintainer.token, 'projects', project.id, reporter.id, 20);
  await addMember(t, maintainer.token, 'projects', project.id, guest.id, 10);
  http = await createHttpIntegration(t, maintainer.token, path, { name: 'Incidents' });
  prometheus = await createPrometheusIntegration(t, maintainer.token, path);
});

/** A new alert through the HTTP integration: its iid. */
async function newAlert(payload: Record<string, unknown>): Promise<string> {
  const res = await notify(t, http.url, payload, { bearer: http.token });
  expect(res.status).toBe(200);
  return String(res.body[0].iid);
}

const ALERT = 'iid status endedAt issueIid issue { iid title type severity author { username } state }';

async function alert(iid: string, token = developer.token) {
  const res = await t.graphql(`query($p: ID!, $iid: String!) { project(fullPath: $p) { alertManagementAlert(iid: $iid) { ${ALERT} } } }`, { p: path, iid }, token);
  expect(res.body.errors).toBeUndefined();
  return res.body.data.project.alertManagementAlert;
}

async function settings(input: Record<string, unknown>, token = maintainer.token) {
  return t.graphql(
    `mutation($i: ProjectIncidentManagementSettingUpdateInput!) { projectIncidentManagementSettingUpdate(input: $i) { errors incidentManagementSetting { createIssue autoCloseIncident slaTimer } } }`,
    { i: { fullPath: path, ...input } },
    token,
  );
}

const CREATE = `mutation($i: CreateAlertIssueInput!) { createAlertIssue(input: $i) { clientMutationId errors alert { iid issueIid } issue { iid title type severity description author { username } } todo { id } } }`;

describe('createAlertIssue', () => {
  it('makes an incident of the alert as GitLab writes it, by the caller, linked both ways; a second answers "An issue already exists"', async () => {
    const title = uniq('Disk full');
    const iid = await newAlert({ title, description: 'Root volume at 99%', severity: 'high', service: 'storage', monitoring_tool: 'node-exporter', hosts: ['db-1', 'db-2'], start_time: '2026-03-05T21:04:00Z' });
    const res = await t.graphql(CREATE, { i: { projectPath: path, iid, clientMutationId: 'm1' } }, developer.token);
    expect(res.body.errors).toBeUndefined();
    const payload = res.body.data.createAlertIssue;
    expect(payload).toMatchObject({ clientMutationId: 'm1', errors: [], alert: { iid }, todo: null });
    expect(payload.issue).toMatchObject({ title, type: 'INCIDENT', severity: 'HIGH', author: { username: developer.username } });
    expect(payload.issue.description).toBe(
      [
        '**Start time:** 05 March 2026, 9:04PM (UTC)',
        '**Severity:** high',
        '**Service:** storage',
        '**Monitoring tool:** node-exporter',
        '**Hosts:** db-1 db-2',
        '**Description:** Root volume at 99%',
        `**GitLab alert:** ${EXTERNAL_URL}/${path}/-/alert_management/${iid}/details`,
      ].join('  \n') + '\n',
    );
    expect(payload.alert.issueIid).toBe(payload.issue.iid);
    expect(await alert(iid)).toMatchObject({ issueIid: payload.issue.iid, issue: { iid: payload.issue.iid, state: 'opened' } });

    // The issue's side, over GraphQL and REST (gitbeaker, and the raw JSON).
    const linked = await t.graphql(
      `query($p: ID!, $iid: String!) { project(fullPath: $p) { issue(iid: $iid) { alertManagementAlert { iid } alertManagementAlerts { count nodes { iid title } } } } }`,
      { p: path, iid: payload.issue.iid },
      reporter.token,
    );
    expect(linked.body.data.project.issue).toEqual({ alertManagementAlert: { iid }, alertManagementAlerts: { count: 1, nodes: [{ iid, title }] } });
    const api = new Gitlab({ host: t.url, token: developer.token });
    const shown = await api.Issues.show(Number(payload.issue.iid), { projectId: project.id });
    expect(shown).toMatchObject({ title, issue_type: 'incident', type: 'INCIDENT', state: 'opened', author: { username: developer.username } });
    const raw = await t.api('GET', `/projects/${project.id}/issues/${payload.issue.iid}`, { token: developer.token });
    expect(raw.body).toMatchObject({ iid: Number(payload.issue.iid), issue_type: 'incident', severity: 'HIGH', description: payload.issue.description });

    const again = await t.graphql(CREATE, { i: { projectPath: path, iid } }, developer.token);
    expect(again.body.errors).toBeUndefined();
    expect(again.body.data.createAlertIssue).toEqual({ clientMutationId: null, errors: ['An issue already exists'], alert: { iid, issueIid: payload.issue.iid }, issue: null, todo: null });
  });

  it('names an untitled alert’s incident `New: Incident <iid>`, and an info alert’s severity is unknown', async () => {
    const iid = await newAlert({ severity: 'info', fingerprint: uniq('untitled') });
    const res = await t.graphql(CREATE, { i: { projectPath: path, iid } }, developer.token);
    const issue = res.body.data.createAlertIssue.issue;
    expect(issue.title).toBe(`New: Incident ${issue.iid}`);
    expect(issue.severity).toBe('UNKNOWN');
  });

  it('is refused to Reporters, Guests and strangers with GitLab’s top-level error, and makes nothing', async () => {
    const iid = await newAlert({ title: uniq('Refused') });
    for (const user of [reporter, guest, stranger]) {
      const res = await t.graphql(CREATE, { i: { projectPath: path, iid } }, user.token);
      expect(res.body.data.createAlertIssue).toBeNull();
      expect(res.body.errors![0].message).toBe(NOT_AVAILABLE);
    }
    const unknown = await t.graphql(CREATE, { i: { projectPath: path, iid: '99999' } }, developer.token);
    expect(unknown.body.errors![0].message).toBe(NOT_AVAILABLE);
    expect((await alert(iid)).issue).toBeNull();
  });
});

const LINK = `mutation($i: IssueLinkAlertsInput!) { issueLinkAlerts(input: $i) { errors issue { iid alertManagementAlerts { nodes { iid } } } } }`;
const UNLINK = `mutation($i: IssueUnlinkAlertInput!) { issueUnlinkAlert(input: $i) { errors issue { iid alertManagementAlerts { nodes { iid } } } } }`;

async function alertGid(iid: string): Promise<string> {
  const res = await t.graphql(`query($p: ID!, $iid: String!) { project(fullPath: $p) { alertManagementAlert(iid: $iid) { id } } }`, { p: path, iid }, developer.token);
  return res.body.data.project.alertManagementAlert.id;
}

describe('issueLinkAlerts and issueUnlinkAlert', () => {
  it('link alerts by reference and URL to an incident, and unlink one; closing the incident resolves what is left', async () => {
    const incident = await t.api('POST', `/projects/${project.id}/issues`, { token: developer.token, body: { title: uniq('Outage'), issue_type: 'incident' } });
    expect(incident.status).toBe(201);
    const issueIid = String(incident.body.iid);
    const a = await newAlert({ title: uniq('First') });
    const b = await newAlert({ title: uniq('Second') });
    const c = await newAlert({ title: uniq('Third') });
    // An alert of a project the caller may not read is passed over, as a reference to nothing is.
    const elsewhere = await createProject(t, stranger.token);
    const theirs = await createHttpIntegration(t, stranger.token, elsewhere.path_with_namespace);
    const hidden = (await notify(t, theirs.url, { title: uniq('Hidden') }, { bearer: theirs.token })).body[0].iid;
    const refs = [`^alert#${a}`, `${path}^alert#${b}`, `${EXTERNAL_URL}/${path}/-/alert_management/${c}/details`, '^alert#99999', 'nonsense', `${elsewhere.path_with_namespace}^alert#${hidden}`];
    const res = await t.graphql(LINK, { i: { projectPath: path, iid: issueIid, alertReferences: refs } }, reporter.token);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.issueLinkAlerts).toEqual({ errors: [], issue: { iid: issueIid, alertManagementAlerts: { nodes: [c, b, a].map((iid) => ({ iid })) } } });
    expect((await alert(b)).issueIid).toBe(issueIid);
    const untouched = await t.graphql(`query($p: ID!, $iid: String!) { project(fullPath: $p) { alertManagementAlert(iid: $iid) { issueIid } } }`, { p: elsewhere.path_with_namespace, iid: String(hidden) }, stranger.token);
    expect(untouched.body.data.project.alertManagementAlert).toEqual({ issueIid: null });

    const unlinked = await t.graphql(UNLINK, { i: { projectPath: path, iid: issueIid, alertId: await alertGid(b) } }, reporter.token);
    expect(unlinked.body.data.issueUnlinkAlert).toEqual({ errors: [], issue: { iid: issueIid, alertManagementAlerts: { nodes: [c, a].map((iid) => ({ iid })) } } });
    expect(await alert(b)).toMatchObject({ issueIid: null, issue: null });

    // Closing the incident resolves its alerts (Issues::CloseService#resolve_alerts); the unlinked one stays open.
    const closed = await t.api('PUT', `/projects/${project.id}/issues/${issueIid}`, { token: developer.token, body: { state_event: 'close' } });
    expect(closed.status).toBe(200);
    for (const iid of [a, c]) {
      const row = await alert(iid);
      expect(row.status).toBe('RESOLVED');
      expect(row.endedAt).not.toBeNull();
    }
    expect((await alert(b)).status).toBe('TRIGGERED');
  });

  it('are refused to Guests and strangers with GitLab’s top-level error', async () => {
    const incident = await t.api('POST', `/projects/${project.id}/issues`, { token: developer.token, body: { title: uniq('Guarded'), issue_type: 'incident' } });
    const a = await newAlert({ title: uniq('Guarded alert') });
    for (const user of [guest, stranger]) {
      const link = await t.graphql(LINK, { i: { projectPath: path, iid: String(incident.body.iid), alertReferences: [`^alert#${a}`] } }, user.token);
      expect(link.body.data.issueLinkAlerts).toBeNull();
      expect(link.body.errors![0].message).toBe(NOT_AVAILABLE);
      const unlink = await t.graphql(UNLINK, { i: { projectPath: path, iid: String(incident.body.iid), alertId: await alertGid(a) } }, user.token);
      expect(unlink.body.errors![0].message).toBe(NOT_AVAILABLE);
    }
    expect((await alert(a)).issueIid).toBeNull();
  });
});

describe('working mutations’ payloads', () => {
  it('alertSetAssignees takes MutationOperationMode, makes `assigned` to-do items and answers the caller’s; updateAlertStatus resolves the caller’s', async () => {
    const iid = await newAlert({ title: uniq('Assign me') });
    const made = await t.graphql(CREATE, { i: { projectPath: path, iid } }, developer.token);
    const issueIid = made.body.data.createAlertIssue.issue.iid;
    const marked = await t.graphql(`mutation($i: AlertTodoCreateInput!) { alertTodoCreate(input: $i) { errors issue { iid } todo { action } } }`, { i: { projectPath: path, iid } }, maintainer.token);
    expect(marked.body.data.alertTodoCreate).toEqual({ errors: [], issue: { iid: issueIid }, todo: { action: 'marked' } });
    const SET = `mutation($i: AlertSetAssigneesInput!) { alertSetAssignees(input: $i) { errors alert { assignees { nodes { username } } } issue { iid } todo { action state author { username } } } }`;
    const first = await t.graphql(SET, { i: { projectPath: path, iid, assigneeUsernames: [reporter.username], operationMode: 'APPEND' } }, developer.token);
    expect(first.body.data.alertSetAssignees).toEqual({ errors: [], alert: { assignees: { nodes: [{ username: reporter.username }] } }, issue: { iid: issueIid }, todo: null });
    const theirs = await t.api('GET', '/todos?type=AlertManagement::Alert', { token: reporter.token });
    expect(theirs.body).toEqual([expect.objectContaining({ action_name: 'assigned', target_type: 'AlertManagement::Alert', state: 'pending', author: expect.objectContaining({ username: developer.username }) })]);

    const self = await t.graphql(SET, { i: { projectPath: path, iid, assigneeUsernames: [developer.username], operationMode: 'APPEND' } }, developer.token);
    expect(self.body.data.alertSetAssignees.todo).toEqual({ action: 'assigned', state: 'pending', author: { username: developer.username } });

    const STATUS = `mutation($i: UpdateAlertStatusInput!) { updateAlertStatus(input: $i) { errors alert { status } issue { iid } todo { action state } } }`;
    const resolved = await t.graphql(STATUS, { i: { projectPath: path, iid, status: 'RESOLVED' } }, developer.token);
    expect(resolved.body.data.updateAlertStatus).toEqual({ errors: [], alert: { status: 'RESOLVED' }, issue: { iid: issueIid }, todo: { action: 'assigned', state: 'done' } });
    // Guests may not work alerts at all; an operation mode GitLab lacks is refused.
    const refused = await t.graphql(STATUS, { i: { projectPath: path, iid, status: 'TRIGGERED' } }, guest.token);
    expect(refused.body.errors![0].message).toBe(NOT_AVAILABLE);
    const bad = await t.graphql(SET, { i: { projectPath: path, iid, assigneeUsernames: [], operationMode: 'SOMETIMES' } }, developer.token);
    expect(bad.body.errors![0].message).toMatch(/MutationOperationMode/);
  });
});

describe('incident settings on ingestion', () => {
  it('only Maintainers change them; GitLab’s defaults until then', async () => {
    const read = await t.graphql(`query($p: ID!) { project(fullPath: $p) { incidentManagementSetting { createIssue autoCloseIncident } } }`, { p: path }, maintainer.token);
    expect(read.body.data.project.incidentManagementSetting).toEqual({ createIssue: false, autoCloseIncident: true });
    const refused = await settings({ createIssue: true }, developer.token);
    expect(refused.body.errors![0].message).toBe(NOT_AVAILABLE);
  });

  it('create_issue makes an incident of each new generic alert, as the alert bot; its end closes the incident with GitLab’s note', async () => {
    const on = await settings({ createIssue: true });
    expect(on.body.errors).toBeUndefined();
    expect(on.body.data.projectIncidentManagementSettingUpdate).toEqual({ errors: [], incidentManagementSetting: { createIssue: true, autoCloseIncident: true, slaTimer: false } });
    const fingerprint = uniq('auto');
    const title = uniq('Queue backlog');
    const iid = await newAlert({ title, fingerprint });
    const row = await alert(iid);
    expect(row.issue).toMatchObject({ title, type: 'INCIDENT', severity: 'CRITICAL', state: 'opened', author: { username: 'alert-bot' } });
    // A repeat counts the alert and makes no second incident.
    expect(String((await notify(t, http.url, { title, fingerprint }, { bearer: http.token })).body[0].iid)).toBe(iid);
    const incidents = await t.api('GET', `/projects/${project.id}/issues?search=${encodeURIComponent(title)}`, { token: developer.token });
    expect(incidents.body.map((i: { iid: number }) => String(i.iid))).toEqual([row.issue.iid]);

    const res = await notify(t, http.url, { title, fingerprint, end_time: '2026-04-01T12:00:00Z' }, { bearer: http.token });
    expect(res.status).toBe(200);
    expect(await alert(iid)).toMatchObject({ status: 'RESOLVED', issue: { state: 'closed' } });
    const issue = await t.api('GET', `/projects/${project.id}/issues/${row.issue.iid}`, { token: developer.token });
    expect(issue.body).toMatchObject({ state: 'closed', closed_by: { username: 'alert-bot' } });
    const notes = await t.api('GET', `/projects/${project.id}/issues/${row.issue.iid}/notes?sort=asc`, { token: developer.token });
    expect(notes.body).toContainEqual(expect.objectContaining({ body: 'automatically closed this incident because the alert resolved', system: true, author: expect.objectContaining({ username: 'alert-bot' }) }));
    const states = await t.api('GET', `/projects/${project.id}/issues/${row.issue.iid}/resource_state_events`, { token: developer.token });
    expect(states.body).toEqual([expect.objectContaining({ state: 'closed', user: expect.objectContaining({ username: 'alert-bot' }) })]);
  });

  it('makes one incident however many notifications of a new alert arrive at once', async () => {
    await settings({ createIssue: true });
    const title = uniq('Burst');
    const fingerprint = uniq('burst');
    const answers = await Promise.all(Array.from({ length: 5 }, () => notify(t, http.url, { title, fingerprint }, { bearer: http.token })));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
    const iids = new Set(answers.map((a) => String(a.body[0].iid)));
    expect(iids.size).toBe(1);
    const incidents = await t.api('GET', `/projects/${project.id}/issues?search=${encodeURIComponent(title)}`, { token: developer.token });
    expect(incidents.body).toHaveLength(1);
    expect((await alert([...iids][0]!)).issueIid).toBe(String(incidents.body[0].iid));
  });

  it('with auto_close_incident off, a resolved alert leaves its incident open', async () => {
    await settings({ createIssue: true, autoCloseIncident: false });
    const fingerprint = uniq('kept');
    const iid = await newAlert({ title: uniq('Kept open'), fingerprint });
    expect((await alert(iid)).issue.state).toBe('opened');
    await notify(t, http.url, { fingerprint, end_time: '2026-04-01T12:00:00Z' }, { bearer: http.token });
    expect(await alert(iid)).toMatchObject({ status: 'RESOLVED', issue: { state: 'opened' } });
    await settings({ createIssue: false, autoCloseIncident: true });
    const plain = await newAlert({ title: uniq('No incident') });
    expect((await alert(plain)).issue).toBeNull();
  });

  it('Alertmanager webhooks: a firing alert gets its incident (with its query), its resolution closes it', async () => {
    await settings({ createIssue: true, autoCloseIncident: true });
    const title = uniq('Latency high');
    const item = (status: string, endsAt: string) => ({
      status,
      labels: { alertname: 'HighLatency', severity: 'warning' },
      annotations: { title, gitlab_incident_markdown: '## Runbook\nRestart the pods.' },
      startsAt: '2026-04-01T10:00:00.000Z',
      endsAt,
      generatorURL: 'http://prometheus.example.com/graph?g0.expr=rate(errors%5B5m%5D)+%3E+1&g0.tab=1',
    });
    const webhook = (status: string, endsAt: string) => alertmanagerWebhook([item(status, endsAt)], status);
    const fired = await notify(t, prometheus.url, webhook('firing', '0001-01-01T00:00:00Z'), { bearer: prometheus.token });
    expect(fired.status).toBe(200);
    const iid = String(fired.body[0].iid);
    const res = await t.graphql(`query($p: ID!, $iid: String!) { project(fullPath: $p) { alertManagementAlert(iid: $iid) { issue { title severity description author { username } } } } }`, { p: path, iid }, developer.token);
    const issue = res.body.data.project.alertManagementAlert.issue;
    expect(issue).toMatchObject({ title, severity: 'LOW', author: { username: 'alert-bot' } });
    expect(issue.description).toBe(
      [
        '**Start time:** 01 April 2026, 10:00AM (UTC)',
        '**Severity:** low',
        '**full_query:** `rate(errors[5m]) > 1`',
        '**Monitoring tool:** Prometheus',
        `**GitLab alert:** ${EXTERNAL_URL}/${path}/-/alert_management/${iid}/details`,
      ].join('  \n') + '\n\n\n---\n\n## Runbook\nRestart the pods.',
    );
    const resolved = await notify(t, prometheus.url, webhook('resolved', '2026-04-01T11:00:00.000Z'), { bearer: prometheus.token });
    expect(resolved.status).toBe(200);
    expect(await alert(iid)).toMatchObject({ status: 'RESOLVED', issue: { state: 'closed', author: { username: 'alert-bot' } } });
  });
});

describe('the Prometheus integration', () => {
  it('is GitLab’s AlertManagementPrometheusIntegration, named by an IntegrationsPrometheusID (the old class name too)', async () => {
    expect(prometheus.id).toMatch(/^gid:\/\/gitlab\/Integrations::Prometheus\/\d+$/);
    const list = await t.graphql(`query($p: ID!) { project(fullPath: $p) { alertManagementIntegrations { nodes { __typename id } } } }`, { p: path }, maintainer.token);
    expect(list.body.data.project.alertManagementIntegrations.nodes).toContainEqual({ __typename: 'AlertManagementPrometheusIntegration', id: prometheus.id });
    const UPDATE = `mutation($i: PrometheusIntegrationUpdateInput!) { prometheusIntegrationUpdate(input: $i) { errors integration { __typename id apiUrl } } }`;
    const legacy = prometheus.id.replace('Integrations::Prometheus', 'PrometheusService');
    const up = await t.graphql(UPDATE, { i: { id: legacy, apiUrl: 'https://prometheus.example.com' } }, maintainer.token);
    expect(up.body.data.prometheusIntegrationUpdate).toEqual({ errors: [], integration: { __typename: 'AlertManagementPrometheusIntegration', id: prometheus.id, apiUrl: 'https://prometheus.example.com' } });
    const wrong = await t.graphql(UPDATE, { i: { id: http.id } }, maintainer.token);
    expect(wrong.body.errors![0].message).toMatch(/does not represent an instance of Integrations::Prometheus/);
    const guestTry = await t.graphql(UPDATE, { i: { id: prometheus.id, active: false } }, developer.token);
    expect(guestTry.body.errors![0].message).toBe(NOT_AVAILABLE);
  });
});
