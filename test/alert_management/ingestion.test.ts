import { beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { suiteServer } from '../support/server.js';
import { createProject, createUser, type TestUser } from '../support/factories.js';
import { fingerprint } from '../../src/modules/alert_management/payload.js';
import { alertmanagerWebhook, alerts, createHttpIntegration, createPrometheusIntegration, notify, type Integration } from './support.js';

const t = suiteServer();
let owner: TestUser;
let project: any;
let path: string;
let http: Integration;
let prometheus: Integration;

beforeAll(async () => {
  owner = await createUser(t);
  project = await createProject(t, owner.token);
  path = project.path_with_namespace;
  http = await createHttpIntegration(t, owner.token, path);
  prometheus = await createPrometheusIntegration(t, owner.token, path);
});

const sha1 = (s: string) => createHash('sha1').update(s).digest('hex');
let seq = 0;
const uniq = (s: string) => `${s} ${++seq}-${Math.random().toString(36).slice(2, 8)}`;

async function one(iid: number) {
  const [alert] = await alerts(t, owner.token, path, `iid: "${iid}"`);
  return alert;
}

describe('generic payloads (spec 4.9)', () => {
  it('creates an alert with the defaults and answers its iid and title', async () => {
    const before = Date.now();
    const res = await notify(t, http.url, {}, { bearer: http.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual([{ iid: expect.any(Number), title: 'New: Alert' }]);
    expect(Object.keys(res.body[0]).sort()).toEqual(['iid', 'title']);
    const alert = await one(res.body[0].iid);
    expect(alert).toMatchObject({ title: 'New: Alert', severity: 'CRITICAL', status: 'TRIGGERED', eventCount: 1, endedAt: null });
    expect(new Date(alert.startedAt).getTime()).toBeGreaterThanOrEqual(before - 1000);
  });

  it('reads every documented field, hosts as a string or an array, and keeps extra properties of any type', async () => {
    const title = uniq('Disk full');
    const body = {
      title,
      description: 'The disk is full',
      start_time: '2026-01-02T03:04:05Z',
      service: 'db',
      monitoring_tool: 'Zabbix',
      hosts: ['db-1', ['db-2']],
      severity: 'High',
      runbook: 'https://runbooks.example.com/disk',
      extra: { nested: [1, { deep: true }], n: 1.5, none: null },
    };
    const res = await notify(t, http.url, body, { bearer: http.token });
    expect(res.status).toBe(200);
    const alert = await one(res.body[0].iid);
    expect(alert).toMatchObject({ title, description: 'The disk is full', service: 'db', monitoringTool: 'Zabbix', hosts: ['db-1', 'db-2'], severity: 'HIGH', startedAt: '2026-01-02T03:04:05.000Z', runbook: 'https://runbooks.example.com/disk' });
    expect(alert.details.extra).toEqual(body.extra);
    const single = await notify(t, http.url, { title: uniq('one host'), hosts: 'web-1' }, { bearer: http.token });
    expect((await one(single.body[0].iid)).hosts).toEqual(['web-1']);
  });

  const table: Record<string, string[]> = {
    CRITICAL: ['critical', 's1', 'p1', 'emergency', 'fatal', 'CRITICAL', 'Fatal'],
    HIGH: ['high', 's2', 'p2', 'major', 'page', 'HIGH', 'Page'],
    MEDIUM: ['medium', 's3', 'p3', 'error', 'alert', 'ERROR'],
    LOW: ['low', 's4', 'p4', 'warn', 'warning', 'WARNING', 'minor'],
    INFO: ['info', 's5', 'p5', 'debug', 'information', 'notice', 'Notice'],
    UNKNOWN: ['unknown', 'UNKNOWN'],
  };
  for (const [expected, names] of Object.entries(table)) {
    it(`maps ${names.join(', ')} to ${expected}, case-insensitively`, async () => {
      for (const severity of names) {
        const res = await notify(t, http.url, { title: uniq(`sev ${severity}`), severity }, { bearer: http.token });
        expect(res.status).toBe(200);
        expect((await one(res.body[0].iid)).severity, severity).toBe(expected);
      }
    });
  }

  it('takes anything else, or no severity, as critical', async () => {
    for (const severity of ['bogus', '', 42, null, { a: 1 }, 'critical!']) {
      const res = await notify(t, http.url, { title: uniq('sev other'), severity }, { bearer: http.token });
      expect((await one(res.body[0].iid)).severity, JSON.stringify(severity)).toBe('CRITICAL');
    }
  });
});

describe('fingerprints and grouping', () => {
  it("computes GitLab's automatic fingerprint: SHA-1 of the sorted, dot-flattened pairs as Ruby prints them", () => {
    expect(fingerprint({ title: 'x', foo: { bar: 1 } })).toBe(sha1('[["foo.bar", 1], ["title", "x"]]'));
    expect(fingerprint({ b: [1, 'two', null], a: true })).toBe(sha1('[["a", true], ["b", [1, "two", nil]]]'));
    expect(fingerprint({ q: 'say "hi"\n', f: 2.5, h: [{ k: 'v' }] })).toBe(sha1('[["f", 2.5], ["h", [{"k"=>"v"}]], ["q", "say \\"hi\\"\\n"]]'));
    expect(fingerprint(['a', ['b', 1]])).toBe(sha1('ab1'));
    expect(fingerprint('abc')).toBe(sha1('abc'));
    expect(fingerprint('')).toBeNull();
    expect(fingerprint({})).toBeNull();
  });

  it('groups identical payloads that differ only in start_time and hosts into one alert with a counter', async () => {
    const title = uniq('grouped');
    const first = await notify(t, http.url, { title, service: 's', start_time: '2026-01-01T00:00:00Z', hosts: ['a'] }, { bearer: http.token });
    const second = await notify(t, http.url, { title, service: 's', start_time: '2026-02-01T00:00:00Z', hosts: 'b' }, { bearer: http.token });
    expect(second.body).toEqual(first.body);
    const other = await notify(t, http.url, { title, service: 'other' }, { bearer: http.token });
    expect(other.body[0].iid).not.toBe(first.body[0].iid);
    expect((await one(first.body[0].iid)).eventCount).toBe(2);
    expect((await one(other.body[0].iid)).eventCount).toBe(1);
  });

  it('groups by an explicit fingerprint, string or array, whatever else differs', async () => {
    const fp = uniq('fp');
    const a = await notify(t, http.url, { title: 'one', fingerprint: fp }, { bearer: http.token });
    const b = await notify(t, http.url, { title: 'two', fingerprint: fp, severity: 'low' }, { bearer: http.token });
    expect(b.body[0].iid).toBe(a.body[0].iid);
    expect(b.body[0].title).toBe('one');
    const arr = [uniq('x'), 'y'];
    const c = await notify(t, http.url, { title: 'arr', fingerprint: arr }, { bearer: http.token });
    const d = await notify(t, http.url, { title: 'arr 2', fingerprint: arr }, { bearer: http.token });
    expect(d.body[0].iid).toBe(c.body[0].iid);
    expect((await one(c.body[0].iid)).eventCount).toBe(2);
  });

  it('resolves the open alert on end_time; a duplicate of a resolved alert opens a new one', async () => {
    const fp = uniq('res');
    const opened = await notify(t, http.url, { title: 'r', fingerprint: fp }, { bearer: http.token });
    const resolved = await notify(t, http.url, { title: 'r', fingerprint: fp, end_time: '2026-03-01T00:00:00Z' }, { bearer: http.token });
    expect(resolved.status).toBe(200);
    expect(resolved.body[0].iid).toBe(opened.body[0].iid);
    const alert = await one(opened.body[0].iid);
    expect(alert).toMatchObject({ status: 'RESOLVED', endedAt: '2026-03-01T00:00:00.000Z', eventCount: 1 });
    const again = await notify(t, http.url, { title: 'r', fingerprint: fp }, { bearer: http.token });
    expect(again.body[0].iid).toBeGreaterThan(opened.body[0].iid);
    expect((await one(again.body[0].iid))).toMatchObject({ status: 'TRIGGERED', eventCount: 1 });
    expect((await one(opened.body[0].iid)).status).toBe('RESOLVED');
  });

  it('answers 400 to a resolving payload with no open alert, creating nothing', async () => {
    const before = (await alerts(t, owner.token, path, 'first: 100')).length;
    const res = await notify(t, http.url, { title: 'never opened', fingerprint: uniq('none'), end_time: '2026-03-01T00:00:00Z' }, { bearer: http.token });
    expect(res.status).toBe(400);
    expect((await alerts(t, owner.token, path, 'first: 100')).length).toBe(before);
  });

  it('an acknowledged alert stays acknowledged while its events count up', async () => {
    const fp = uniq('ack');
    const opened = await notify(t, http.url, { fingerprint: fp }, { bearer: http.token });
    const set = await t.graphql(`mutation($i: UpdateAlertStatusInput!) { updateAlertStatus(input: $i) { errors alert { status } } }`, { i: { projectPath: path, iid: String(opened.body[0].iid), status: 'ACKNOWLEDGED' } }, owner.token);
    expect(set.body.data.updateAlertStatus).toEqual({ errors: [], alert: { status: 'ACKNOWLEDGED' } });
    await notify(t, http.url, { fingerprint: fp }, { bearer: http.token });
    expect(await one(opened.body[0].iid)).toMatchObject({ status: 'ACKNOWLEDGED', eventCount: 2 });
  });
});

describe('the Alertmanager webhook format', () => {
  const webhook = alertmanagerWebhook;
  const item = (over: Record<string, unknown> = {}) => ({
    status: 'firing',
    labels: { alertname: 'HighLatency', severity: 'warning', gitlab_environment_name: 'production' },
    annotations: { title: uniq('Latency high'), description: 'p99 above 1s', runbook: 'https://runbooks.example.com/latency', svc_y_label: 'seconds', extra_note: 'kept' },
    startsAt: '2026-04-01T10:00:00.000Z',
    endsAt: '0001-01-01T00:00:00Z',
    generatorURL: 'http://prometheus.example.com/graph?g0.expr=histogram_quantile(0.99%2C+rate(x%5B5m%5D))+%3E+1&g0.tab=1',
    fingerprint: 'abc',
    ...over,
  });

  it('creates one alert per item, from labels and annotations, on the Prometheus URL', async () => {
    const a = item();
    const b = item({ annotations: { summary: uniq('Summary only') }, labels: { alertname: 'Other', severity: 'P2' } });
    const res = await notify(t, prometheus.url, webhook([a, b]), { bearer: prometheus.token });
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(2);
    expect(res.body.map((x: any) => x.title)).toEqual([(a.annotations as any).title, (b.annotations as any).summary]);
    const first = await one(res.body[0].iid);
    expect(first).toMatchObject({ title: (a.annotations as any).title, description: 'p99 above 1s', severity: 'LOW', monitoringTool: 'Prometheus', status: 'TRIGGERED', startedAt: '2026-04-01T10:00:00.000Z', runbook: 'https://runbooks.example.com/latency', eventCount: 1, endedAt: null });
    expect(first.details.annotations.extra_note).toBe('kept');
    expect((await one(res.body[1].iid)).severity).toBe('HIGH');
  });

  it('takes the title from labels.alertname last, groups repeats and resolves on status resolved', async () => {
    const name = uniq('OnlyName').replace(/\W/g, '');
    const a = item({ annotations: {}, labels: { alertname: name } });
    const first = await notify(t, prometheus.url, webhook([a]), { bearer: prometheus.token });
    expect(first.body[0].title).toBe(name);
    const repeat = await notify(t, prometheus.url, webhook([a]), { bearer: prometheus.token });
    expect(repeat.body[0].iid).toBe(first.body[0].iid);
    expect((await one(first.body[0].iid)).eventCount).toBe(2);
    const resolved = await notify(t, prometheus.url, webhook([{ ...a, status: 'resolved', endsAt: '2026-04-01T11:00:00Z' }], 'resolved'), { bearer: prometheus.token });
    expect(resolved.body[0].iid).toBe(first.body[0].iid);
    expect(await one(first.body[0].iid)).toMatchObject({ status: 'RESOLVED', endedAt: '2026-04-01T11:00:00.000Z' });
  });

  it('resolves on an endsAt in the past even without status resolved; the zero endsAt of a firing alert does not', async () => {
    const a = item();
    const first = await notify(t, prometheus.url, webhook([a]), { bearer: prometheus.token });
    expect((await one(first.body[0].iid)).status).toBe('TRIGGERED');
    await notify(t, prometheus.url, webhook([{ ...a, endsAt: '2026-04-01T12:00:00Z' }]), { bearer: prometheus.token });
    expect(await one(first.body[0].iid)).toMatchObject({ status: 'RESOLVED', endedAt: '2026-04-01T12:00:00.000Z' });
  });

  it('refuses an Alertmanager payload missing required top-level attributes, naming them', async () => {
    const body: Record<string, unknown> = webhook([item()]);
    delete body.groupKey;
    delete body.receiver;
    const res = await notify(t, prometheus.url, body, { bearer: prometheus.token });
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/groupKey is missing.*receiver is missing/);
  });

  it('skips items without a title or startsAt, as GitLab does', async () => {
    const res = await notify(t, prometheus.url, webhook([{ labels: {}, annotations: {}, startsAt: '2026-04-01T10:00:00Z' }, item({ startsAt: undefined }), item()]), { bearer: prometheus.token });
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(1);
  });

  it('processes an Alertmanager webhook sent to an HTTP integration as Alertmanager (payload sniffing)', async () => {
    const a = item();
    const res = await notify(t, http.url, webhook([a]), { bearer: http.token });
    expect(res.status).toBe(200);
    expect((await one(res.body[0].iid)).monitoringTool).toBe('Prometheus');
  });
});

describe('URLs, keys and refusals', () => {
  it('serves the three URL forms; the name segment is cosmetic', async () => {
    expect(http.url).toMatch(new RegExp(`/${path}/alerts/notify/generic/[0-9a-f]{16}\\.json$`));
    expect(prometheus.url).toMatch(new RegExp(`/${path}/prometheus/alerts/notify\\.json$`));
    const renamed = http.url.replace('/generic/', '/anything-else/');
    expect((await notify(t, renamed, { title: uniq('renamed') }, { bearer: http.token })).status).toBe(200);
    expect((await notify(t, renamed.replace(/\.json$/, ''), { title: uniq('no ext') }, { bearer: http.token })).status).toBe(200);
    const legacy = http.url.replace(/\/alerts\/notify\/.*$/, '/alerts/notify.json');
    const res = await notify(t, legacy, { title: uniq('legacy') }, { bearer: http.token });
    expect(res.status).toBe(200);
    expect(res.body[0].title).toMatch(/^legacy/);
  });

  it('takes the key as a Bearer token or as the Basic password with an empty user', async () => {
    expect((await notify(t, http.url, { title: uniq('bearer') }, { bearer: http.token })).status).toBe(200);
    expect((await notify(t, http.url, { title: uniq('basic') }, { basic: http.token })).status).toBe(200);
    const userinfo = new URL(http.url);
    expect((await notify(t, http.url, { title: uniq('basic user') }, {}, { Authorization: `Basic ${Buffer.from(`whoever:${http.token}`).toString('base64')}` })).status).toBe(200);
    expect(userinfo.pathname).toContain('/alerts/notify/');
  });

  it('answers 401 to a missing or wrong key, and to another integration’s key', async () => {
    expect((await notify(t, http.url, {}, {})).status).toBe(401);
    expect((await notify(t, http.url, {}, { bearer: 'f'.repeat(32) })).status).toBe(401);
    expect((await notify(t, http.url, {}, { basic: 'nope' })).status).toBe(401);
    expect((await notify(t, http.url, {}, { bearer: prometheus.token })).status).toBe(401);
    expect((await notify(t, prometheus.url, {}, { bearer: http.token })).status).toBe(401);
  });

  it('answers 403 for an inactive or unknown integration and 404 for an unknown project', async () => {
    const inactive = await createHttpIntegration(t, owner.token, path, { name: 'Off', active: false });
    expect((await notify(t, inactive.url, {}, { bearer: inactive.token })).status).toBe(403);
    expect((await notify(t, http.url.replace(/[0-9a-f]{16}\.json$/, 'ffffffffffffffff.json'), {}, { bearer: http.token })).status).toBe(403);
    expect((await notify(t, http.url.replace(path, `${path}-missing`), {}, { bearer: http.token })).status).toBe(404);
  });

  it('answers 413 beyond 1 MB and 400 to malformed JSON, broken UTF-8 and NUL characters, storing nothing', async () => {
    const before = (await alerts(t, owner.token, path, 'first: 100')).length;
    const big = await notify(t, http.url, { title: 'big', blob: 'x'.repeat(1024 * 1024) }, { bearer: http.token });
    expect(big.status).toBe(413);
    const malformed = await notify(t, http.url, '{"title": "half', { bearer: http.token });
    expect(malformed.status).toBe(400);
    expect(malformed.body.message).toMatch(/not valid JSON/);
    const res = await fetch(http.url.replace('http://gitlab.example.com', t.url), { method: 'POST', headers: { Authorization: `Bearer ${http.token}`, 'Content-Type': 'application/json' }, body: Buffer.from([0x7b, 0x22, 0x74, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]) });
    expect(res.status).toBe(400);
    expect((await notify(t, http.url, { title: 'nul \u0000 here' }, { bearer: http.token })).status).toBe(400);
    expect((await notify(t, http.url, [1, 2], { bearer: http.token })).status).toBe(400);
    let deep: unknown = 1;
    for (let i = 0; i < 150; i++) deep = [deep];
    expect((await notify(t, http.url, { deep }, { bearer: http.token })).status).toBe(400);
    expect((await alerts(t, owner.token, path, 'first: 100')).length).toBe(before);
  });
});

describe('concurrent duplicates', () => {
  it('make exactly one alert with the exact count', async () => {
    const fp = uniq('race');
    const results = await Promise.all(Array.from({ length: 40 }, () => notify(t, http.url, { title: 'race', fingerprint: fp }, { bearer: http.token })));
    expect(results.map((r) => r.status)).toEqual(Array(40).fill(200));
    expect(new Set(results.map((r) => r.body[0].iid)).size).toBe(1);
    expect((await one(results[0]!.body[0].iid)).eventCount).toBe(40);
  });

  it('hold across replicas on PostgreSQL', async (ctx) => {
    // PGlite lives inside one process: there is no second replica to race.
    if (!t.databaseUrl) ctx.skip();
    const { startTestServer } = await import('../support/server.js');
    const replica = await startTestServer({}, { replicaOf: t });
    try {
      const fp = uniq('replicas');
      const send = (server: { url: string }) =>
        fetch(http.url.replace('http://gitlab.example.com', server.url), { method: 'POST', headers: { Authorization: `Bearer ${http.token}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ fingerprint: fp }) }).then(async (r) => ({ status: r.status, body: (await r.json()) as { iid: number }[] }));
      const results = await Promise.all(Array.from({ length: 40 }, (_, i) => send(i % 2 ? replica : t)));
      expect(results.every((r) => r.status === 200)).toBe(true);
      expect(new Set(results.map((r) => r.body[0].iid)).size).toBe(1);
      expect((await one(results[0]!.body[0].iid)).eventCount).toBe(40);
    } finally {
      await replica.close();
    }
  });
});
