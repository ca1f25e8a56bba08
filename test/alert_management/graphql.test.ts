/**
 * Alert integrations and alerts over GraphQL: setup by Maintainers (GitLab's admin_operations), keys and URLs,
 * custom payload mapping, reading alerts (filters, search, sort, status counts, details) as Reporters, working
 * them as Developers, and the live subscription over graphql-ws.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { suiteServer } from '../support/server.js';
import { addMember, createProject, createUser, type TestUser } from '../support/factories.js';
import { alerts, createHttpIntegration, createPrometheusIntegration, notify, type Integration } from './support.js';

const t = suiteServer();
let maintainer: TestUser;
let developer: TestUser;
let reporter: TestUser;
let guest: TestUser;
let stranger: TestUser;
let path: string;
let http: Integration;

beforeAll(async () => {
  [maintainer, developer, reporter, guest, stranger] = await Promise.all([createUser(t), createUser(t), createUser(t), createUser(t), createUser(t)]);
  const project = await createProject(t, maintainer.token);
  path = project.path_with_namespace;
  await addMember(t, maintainer.token, 'projects', project.id, developer.id, 30);
  await addMember(t, maintainer.token, 'projects', project.id, reporter.id, 20);
  await addMember(t, maintainer.token, 'projects', project.id, guest.id, 10);
  http = await createHttpIntegration(t, maintainer.token, path, { name: 'Main endpoint' });
});

const INTEGRATION = 'id type name active token url apiUrl';

describe('integrations', () => {
  it('are created, listed, changed, given new keys and removed by Maintainers, with GitLab shapes', async () => {
    expect(http).toMatchObject({ type: 'HTTP', name: 'Main endpoint', active: true, apiUrl: null });
    expect(http.id).toMatch(/^gid:\/\/gitlab\/AlertManagement::HttpIntegration\/\d+$/);
    expect(http.token).toMatch(/^[0-9a-f]{32}$/);
    expect(http.url).toMatch(new RegExp(`^http://gitlab\\.example\\.com/${path}/alerts/notify/main-endpoint/[0-9a-f]{16}\\.json$`));

    const list = await t.graphql(
      `query($p: ID!) { project(fullPath: $p) { alertManagementIntegrations { count nodes { ${INTEGRATION} } } http: alertManagementHttpIntegrations { nodes { id } } prom: alertManagementHttpIntegrations(types: [PROMETHEUS]) { nodes { id } } } }`,
      { p: path },
      maintainer.token,
    );
    expect(list.body.errors).toBeUndefined();
    expect(list.body.data.project.alertManagementIntegrations.nodes).toContainEqual(http);

    const updated = await t.graphql(`mutation($i: HttpIntegrationUpdateInput!) { httpIntegrationUpdate(input: $i) { clientMutationId errors integration { ${INTEGRATION} } } }`, { i: { id: http.id, name: 'Renamed', active: false, clientMutationId: 'c1' } }, maintainer.token);
    const changed = updated.body.data.httpIntegrationUpdate;
    expect(changed).toMatchObject({ clientMutationId: 'c1', errors: [], integration: { name: 'Renamed', active: false, token: http.token } });
    expect(changed.integration.url).toBe(http.url.replace('/main-endpoint/', '/renamed/'));
    expect((await notify(t, http.url, {}, { bearer: http.token })).status).toBe(403);
    await t.graphql(`mutation($i: HttpIntegrationUpdateInput!) { httpIntegrationUpdate(input: $i) { errors } }`, { i: { id: http.id, active: true } }, maintainer.token);

    const reset = await t.graphql(`mutation($i: HttpIntegrationResetTokenInput!) { httpIntegrationResetToken(input: $i) { errors integration { token } } }`, { i: { id: http.id } }, maintainer.token);
    const token = reset.body.data.httpIntegrationResetToken.integration.token;
    expect(token).toMatch(/^[0-9a-f]{32}$/);
    expect(token).not.toBe(http.token);
    expect((await notify(t, http.url, {}, { bearer: http.token })).status).toBe(401);
    expect((await notify(t, http.url, { title: 'after reset' }, { bearer: token })).status).toBe(200);
    http = { ...http, token };

    const extra = await createHttpIntegration(t, maintainer.token, path, { name: 'Temporary' });
    const destroyed = await t.graphql(`mutation($i: HttpIntegrationDestroyInput!) { httpIntegrationDestroy(input: $i) { errors integration { id } } }`, { i: { id: extra.id } }, maintainer.token);
    expect(destroyed.body.data.httpIntegrationDestroy).toEqual({ errors: [], integration: { id: extra.id } });
    expect((await notify(t, extra.url, {}, { bearer: extra.token })).status).toBe(403);
  });

  it('has one Prometheus integration per project, with its own URL, API URL and key', async () => {
    const prom = await createPrometheusIntegration(t, maintainer.token, path, { apiUrl: 'https://prometheus.example.com' });
    expect(prom).toMatchObject({ type: 'PROMETHEUS', name: 'Prometheus', active: true, apiUrl: 'https://prometheus.example.com', url: `http://gitlab.example.com/${path}/prometheus/alerts/notify.json` });
    const again = await t.graphql(`mutation($i: PrometheusIntegrationCreateInput!) { prometheusIntegrationCreate(input: $i) { errors integration { id } } }`, { i: { projectPath: path, active: true } }, maintainer.token);
    expect(again.body.data.prometheusIntegrationCreate).toEqual({ errors: ['Multiple Prometheus integrations are not supported'], integration: null });
    const up = await t.graphql(`mutation($i: PrometheusIntegrationUpdateInput!) { prometheusIntegrationUpdate(input: $i) { errors integration { active apiUrl } } }`, { i: { id: prom.id, active: false, apiUrl: 'https://other.example.com' } }, maintainer.token);
    expect(up.body.data.prometheusIntegrationUpdate).toEqual({ errors: [], integration: { active: false, apiUrl: 'https://other.example.com' } });
    const reset = await t.graphql(`mutation($i: PrometheusIntegrationResetTokenInput!) { prometheusIntegrationResetToken(input: $i) { errors integration { token } } }`, { i: { id: prom.id } }, maintainer.token);
    expect(reset.body.data.prometheusIntegrationResetToken.integration.token).not.toBe(prom.token);
    // An HTTP mutation does not reach the Prometheus integration.
    const wrong = await t.graphql(`mutation($i: HttpIntegrationDestroyInput!) { httpIntegrationDestroy(input: $i) { errors } }`, { i: { id: prom.id } }, maintainer.token);
    expect(wrong.body.errors?.[0]?.message).toBeDefined();
  });

  it('refuses a blank or too long name in errors', async () => {
    const blank = await t.graphql(`mutation($i: HttpIntegrationCreateInput!) { httpIntegrationCreate(input: $i) { errors integration { id } } }`, { i: { projectPath: path, name: ' ', active: true } }, maintainer.token);
    expect(blank.body.data.httpIntegrationCreate).toEqual({ errors: ["Name can't be blank"], integration: null });
    const long = await t.graphql(`mutation($i: HttpIntegrationCreateInput!) { httpIntegrationCreate(input: $i) { errors integration { id } } }`, { i: { projectPath: path, name: 'x'.repeat(256), active: true } }, maintainer.token);
    expect(long.body.data.httpIntegrationCreate.errors).toEqual(['Name is too long (maximum is 255 characters)']);
  });

  it('are hidden from Developers and below, who cannot set them up', async () => {
    for (const user of [developer, reporter, stranger]) {
      const res = await t.graphql(`mutation($i: HttpIntegrationCreateInput!) { httpIntegrationCreate(input: $i) { errors integration { id } } }`, { i: { projectPath: path, name: 'Nope', active: true } }, user.token);
      expect(res.body.data?.httpIntegrationCreate ?? null, user.username).toBeNull();
      expect(res.body.errors?.length, user.username).toBe(1);
      const update = await t.graphql(`mutation($i: HttpIntegrationResetTokenInput!) { httpIntegrationResetToken(input: $i) { errors integration { token } } }`, { i: { id: http.id } }, user.token);
      expect(update.body.data?.httpIntegrationResetToken ?? null).toBeNull();
      const list = await t.graphql(`query($p: ID!) { project(fullPath: $p) { alertManagementIntegrations { nodes { token } } } }`, { p: path }, user.token);
      expect(list.body.data?.project?.alertManagementIntegrations ?? null).toBeNull();
    }
  });

  it('maps custom payload attributes, and lists the example payload’s fields', async () => {
    const example = { alert: { name: 'Queue stuck', level: 'P2', id: 'q-1', at: '2026-05-01T00:00:00Z', hosts: ['mq-1'] } };
    const mapped = await createHttpIntegration(t, maintainer.token, path, {
      name: 'Mapped',
      payloadExample: JSON.stringify(example),
      payloadAttributeMappings: [
        { fieldName: 'TITLE', path: ['alert', 'name'], type: 'STRING', label: 'Name' },
        { fieldName: 'SEVERITY', path: ['alert', 'level'], type: 'STRING' },
        { fieldName: 'FINGERPRINT', path: ['alert', 'id'], type: 'STRING' },
        { fieldName: 'START_TIME', path: ['alert', 'at'], type: 'DATETIME' },
        { fieldName: 'HOSTS', path: ['alert', 'hosts'], type: 'ARRAY' },
      ],
    });
    const read = await t.graphql(`query($p: ID!, $id: AlertManagementHttpIntegrationID) { project(fullPath: $p) { alertManagementHttpIntegrations(id: $id) { nodes { payloadExample payloadAttributeMappings { fieldName path type label } payloadAlertFields { path type label } } } } }`, { p: path, id: mapped.id }, maintainer.token);
    const node = read.body.data.project.alertManagementHttpIntegrations.nodes[0];
    expect(JSON.parse(node.payloadExample)).toEqual(example);
    expect(node.payloadAttributeMappings).toContainEqual({ fieldName: 'TITLE', path: ['alert', 'name'], type: 'STRING', label: 'Name' });
    expect(node.payloadAlertFields).toContainEqual({ path: ['alert', 'at'], type: 'DATETIME', label: 'alert/at' });
    expect(node.payloadAlertFields).toContainEqual({ path: ['alert', 'hosts'], type: 'ARRAY', label: 'alert/hosts' });

    const first = await notify(t, mapped.url, example, { bearer: mapped.token });
    expect(first.body).toEqual([{ iid: expect.any(Number), title: 'Queue stuck' }]);
    const second = await notify(t, mapped.url, { alert: { ...example.alert, name: 'Other words' } }, { bearer: mapped.token });
    expect(second.body[0].iid).toBe(first.body[0].iid);
    const [alert] = await alerts(t, maintainer.token, path, `iid: "${first.body[0].iid}"`);
    expect(alert).toMatchObject({ title: 'Queue stuck', severity: 'HIGH', eventCount: 2, startedAt: '2026-05-01T00:00:00.000Z', hosts: ['mq-1'] });
    // Unmapped keys still work; a bad mapping is refused.
    const bad = await t.graphql(`mutation($i: HttpIntegrationCreateInput!) { httpIntegrationCreate(input: $i) { errors integration { id } } }`, { i: { projectPath: path, name: 'Bad', active: true, payloadAttributeMappings: [{ fieldName: 'TITLE', path: ['a'], type: 'ARRAY' }] } }, maintainer.token);
    expect(bad.body.data.httpIntegrationCreate.integration).toBeNull();
    expect(bad.body.data.httpIntegrationCreate.errors).toHaveLength(1);
  });
});

describe('alerts', () => {
  let iids: Record<string, number>;
  beforeAll(async () => {
    iids = {};
    for (const [key, body] of Object.entries({
      db: { title: 'Database down', severity: 'critical', service: 'postgres', monitoring_tool: 'Zabbix', hosts: ['db-1'] },
      cache: { title: 'Cache slow', severity: 'low', description: 'redis latency', hosts: 'cache-1' },
      web: { title: 'Web errors', severity: 'medium', monitoring_tool: 'Sentry' },
      info: { title: 'Deploy finished', severity: 'info' },
    })) {
      const res = await notify(t, http.url, body, { bearer: http.token });
      iids[key] = res.body[0].iid;
    }
  });

  const q = (args: string) => `query($p: ID!) { project(fullPath: $p) { alertManagementAlerts(${args}) { count nodes { iid title status severity } } } }`;
  const list = async (args: string, token = reporter.token) => {
    const res = await t.graphql(q(args), { p: path }, token);
    if (res.body.errors) throw new Error(res.text);
    return res.body.data.project.alertManagementAlerts;
  };

  it('are read by Reporters, with details, eventCount, startedAt, endedAt, monitoringTool, hosts', async () => {
    const res = await t.graphql(
      `query($p: ID!, $iid: String) { project(fullPath: $p) { alertManagementAlert(iid: $iid) { id iid title severity status service monitoringTool hosts startedAt endedAt eventCount details reference webUrl createdAt updatedAt assignees { nodes { username } } } } }`,
      { p: path, iid: String(iids.db) },
      reporter.token,
    );
    const alert = res.body.data.project.alertManagementAlert;
    expect(alert).toMatchObject({ iid: String(iids.db), title: 'Database down', severity: 'CRITICAL', status: 'TRIGGERED', service: 'postgres', monitoringTool: 'Zabbix', hosts: ['db-1'], endedAt: null, eventCount: 1, reference: `^alert#${iids.db}`, assignees: { nodes: [] } });
    expect(alert.id).toMatch(/^gid:\/\/gitlab\/AlertManagement::Alert\/\d+$/);
    expect(alert.webUrl).toBe(`http://gitlab.example.com/${path}/-/alert_management/${iids.db}/details`);
    expect(alert.details).toEqual({});
    const none = await t.graphql(`query($p: ID!) { project(fullPath: $p) { alertManagementAlert(iid: "999999") { iid } } }`, { p: path }, reporter.token);
    expect(none.body.data.project.alertManagementAlert).toBeNull();
  });

  it('are hidden from Guests and strangers', async () => {
    const guestRead = await t.graphql(q('first: 5'), { p: path }, guest.token);
    expect(guestRead.body.data?.project?.alertManagementAlerts ?? null).toBeNull();
    const strangerRead = await t.graphql(q('first: 5'), { p: path }, stranger.token);
    expect(strangerRead.body.data?.project ?? null).toBeNull();
  });

  it('filter by status and iid, search title, description, service, monitoring tool and hosts, and sort', async () => {
    expect((await list('search: "redis"')).nodes.map((n: any) => n.title)).toEqual(['Cache slow']);
    expect((await list('search: "POSTGRES"')).nodes.map((n: any) => n.title)).toEqual(['Database down']);
    expect((await list('search: "sentry"')).nodes.map((n: any) => n.title)).toEqual(['Web errors']);
    expect((await list('search: "db-1"')).nodes.map((n: any) => n.title)).toEqual(['Database down']);
    expect((await list('search: "100%_"')).nodes).toEqual([]);
    expect((await list(`iid: "${iids.web}"`)).nodes.map((n: any) => n.title)).toEqual(['Web errors']);
    const mine = `search: "e"`; // Database down, Cache slow, Web errors, Deploy finished all contain an e
    const sev = (await list(`${mine}, sort: SEVERITY_DESC, first: 100`)).nodes.filter((n: any) => Object.values(iids).includes(Number(n.iid)));
    expect(sev.map((n: any) => n.severity)).toEqual(['CRITICAL', 'MEDIUM', 'LOW', 'INFO']);
    const asc = (await list(`${mine}, sort: SEVERITY_ASC, first: 100`)).nodes.filter((n: any) => Object.values(iids).includes(Number(n.iid)));
    expect(asc.map((n: any) => n.severity)).toEqual(['INFO', 'LOW', 'MEDIUM', 'CRITICAL']);
    const created = (await list('sort: CREATED_TIME_ASC, first: 100')).nodes.map((n: any) => Number(n.iid));
    expect(created).toEqual([...created].sort((a, b) => a - b));
  });

  it('change status as Developers (resolving sets endedAt, reopening clears it); Reporters cannot', async () => {
    const m = `mutation($i: UpdateAlertStatusInput!) { updateAlertStatus(input: $i) { errors alert { status endedAt } } }`;
    const refused = await t.graphql(m, { i: { projectPath: path, iid: String(iids.web), status: 'RESOLVED' } }, reporter.token);
    expect(refused.body.data?.updateAlertStatus ?? null).toBeNull();
    expect(refused.body.errors).toHaveLength(1);
    const resolved = await t.graphql(m, { i: { projectPath: path, iid: String(iids.web), status: 'RESOLVED' } }, developer.token);
    expect(resolved.body.data.updateAlertStatus.alert.status).toBe('RESOLVED');
    expect(resolved.body.data.updateAlertStatus.alert.endedAt).not.toBeNull();
    const ignored = await t.graphql(m, { i: { projectPath: path, iid: String(iids.info), status: 'IGNORED' } }, developer.token);
    expect(ignored.body.data.updateAlertStatus.alert).toEqual({ status: 'IGNORED', endedAt: null });
    const acked = await t.graphql(m, { i: { projectPath: path, iid: String(iids.cache), status: 'ACKNOWLEDGED' } }, developer.token);
    expect(acked.body.data.updateAlertStatus.alert.status).toBe('ACKNOWLEDGED');
    expect((await list('statuses: [RESOLVED, IGNORED], first: 100')).nodes.map((n: any) => Number(n.iid))).toEqual(expect.arrayContaining([iids.web, iids.info]));
    expect((await list('statuses: [ACKNOWLEDGED], first: 100')).nodes.map((n: any) => Number(n.iid))).toEqual([iids.cache]);
    const counts = await t.graphql(`query($p: ID!) { project(fullPath: $p) { alertManagementAlertStatusCounts { all open triggered acknowledged resolved ignored } s: alertManagementAlertStatusCounts(search: "cache") { all open acknowledged } } }`, { p: path }, reporter.token);
    const c = counts.body.data.project.alertManagementAlertStatusCounts;
    expect(c.all).toBe(c.triggered + c.acknowledged + c.resolved + c.ignored);
    expect(c.open).toBe(c.triggered + c.acknowledged);
    expect(c.acknowledged).toBe(1);
    expect(c.ignored).toBe(1);
    expect(counts.body.data.project.s).toEqual({ all: 1, open: 1, acknowledged: 1 });
    // Reopening an alert whose fingerprint has another open alert is refused in errors.
    const fp = 'reopen-clash';
    const first = await notify(t, http.url, { fingerprint: fp }, { bearer: http.token });
    await t.graphql(m, { i: { projectPath: path, iid: String(first.body[0].iid), status: 'RESOLVED' } }, developer.token);
    await notify(t, http.url, { fingerprint: fp }, { bearer: http.token });
    const clash = await t.graphql(m, { i: { projectPath: path, iid: String(first.body[0].iid), status: 'TRIGGERED' } }, developer.token);
    expect(clash.body.data.updateAlertStatus).toEqual({ errors: ['Fingerprint Cannot have multiple unresolved alerts'], alert: null });
  });

  it('take assignees (replace, append, remove) and filter by assignee', async () => {
    const m = `mutation($i: AlertSetAssigneesInput!) { alertSetAssignees(input: $i) { errors alert { assignees { nodes { username } } } } }`;
    const names = (res: any) => res.body.data.alertSetAssignees.alert.assignees.nodes.map((n: any) => n.username).sort();
    const set = await t.graphql(m, { i: { projectPath: path, iid: String(iids.db), assigneeUsernames: [developer.username] } }, developer.token);
    expect(names(set)).toEqual([developer.username]);
    const append = await t.graphql(m, { i: { projectPath: path, iid: String(iids.db), assigneeUsernames: [maintainer.username], operationMode: 'APPEND' } }, developer.token);
    expect(names(append)).toEqual([developer.username, maintainer.username].sort());
    const filtered = await list(`assigneeUsername: "${maintainer.username}"`);
    expect(filtered.nodes.map((n: any) => Number(n.iid))).toEqual([iids.db]);
    const removed = await t.graphql(m, { i: { projectPath: path, iid: String(iids.db), assigneeUsernames: [developer.username], operationMode: 'REMOVE' } }, developer.token);
    expect(names(removed)).toEqual([maintainer.username]);
    const refused = await t.graphql(m, { i: { projectPath: path, iid: String(iids.db), assigneeUsernames: [] } }, reporter.token);
    expect(refused.body.data?.alertSetAssignees ?? null).toBeNull();
  });
});

describe('the alertManagementAlertUpdated subscription', () => {
  const clients: Client[] = [];
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.dispose()));
  });

  function subscribe(token: string) {
    const client = createClient({ url: `${t.url.replace('http', 'ws')}/api/graphql`, webSocketImpl: WebSocket, connectionParams: { 'PRIVATE-TOKEN': token }, retryAttempts: 0, lazy: true });
    clients.push(client);
    const values: any[] = [];
    const errors: unknown[] = [];
    let wake: () => void = () => {};
    const dispose = client.subscribe(
      { query: 'subscription($p: ID!) { alertManagementAlertUpdated(projectPath: $p) { iid title status eventCount } }', variables: { p: path } },
      { next: (v) => { values.push(v); wake(); }, error: (e) => { errors.push(e); wake(); }, complete: () => wake() },
    );
    const until = (ok: () => boolean, ms = 10_000) =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`timed out; heard ${JSON.stringify(values)}`)), ms);
        const check = () => {
          if (ok()) {
            clearTimeout(timer);
            resolve();
          }
        };
        wake = check;
        check();
      });
    return { values, errors, until, dispose };
  }

  it('tells Reporters of new, grouped and changed alerts as they commit; Guests may not subscribe', async () => {
    const sub = subscribe(reporter.token);
    // graphql-ws does not acknowledge a subscription: send warm-up alerts until one is heard.
    for (let i = 0; !sub.values.length; i++) {
      if (i > 50) throw new Error('never heard');
      await notify(t, http.url, { title: `warm-up ${i}` }, { bearer: http.token });
      await sub.until(() => sub.values.length > 0, 200).catch(() => undefined);
    }
    const fp = `sub-${Date.now()}`;
    const created = await notify(t, http.url, { title: 'live', fingerprint: fp }, { bearer: http.token });
    const iid = String(created.body[0].iid);
    await sub.until(() => sub.values.some((v) => v.data?.alertManagementAlertUpdated?.iid === iid));
    await notify(t, http.url, { title: 'live', fingerprint: fp }, { bearer: http.token });
    await sub.until(() => sub.values.some((v) => v.data?.alertManagementAlertUpdated?.iid === iid && v.data.alertManagementAlertUpdated.eventCount === 2));
    await t.graphql(`mutation($i: UpdateAlertStatusInput!) { updateAlertStatus(input: $i) { errors } }`, { i: { projectPath: path, iid, status: 'RESOLVED' } }, developer.token);
    await sub.until(() => sub.values.some((v) => v.data?.alertManagementAlertUpdated?.iid === iid && v.data.alertManagementAlertUpdated.status === 'RESOLVED'));
    sub.dispose();

    const denied = subscribe(guest.token);
    await denied.until(() => denied.errors.length > 0 || denied.values.some((v) => v.errors));
  });
});
