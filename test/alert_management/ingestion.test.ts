import { beforeAll, describe, expect, it } from 'vitest';
import { suiteServer } from '../support/server.js';
import { createProject, createUser, type TestUser } from '../support/factories.js';
import { alerts, createHttpIntegration, createPrometheusIntegration, notify, type Integration } from './support.js';

const t = suiteServer();
let owner: TestUser;
let project: any;
let http: Integration;

beforeAll(async () => {
  owner = await createUser(t);
  project = await createProject(t, owner.token);
  http = await createHttpIntegration(t, owner.token, project.path_with_namespace);
});

describe('generic payloads', () => {
  it('creates an alert with the defaults and answers its iid and title', async () => {
    const res = await notify(t, http.url, {}, { bearer: http.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual([{ iid: expect.any(Number), title: 'New: Alert' }]);
    const [alert] = await alerts(t, owner.token, project.path_with_namespace, `iid: "${res.body[0].iid}"`);
    expect(alert).toMatchObject({ title: 'New: Alert', severity: 'CRITICAL', status: 'TRIGGERED', eventCount: 1, endedAt: null });
  });
});
