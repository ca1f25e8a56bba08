/** EPICS_ENABLED off (no licence for epics): every epic endpoint, REST and GraphQL, answers 403 once the group is found. */
import { beforeAll, describe, expect, it } from 'vitest';
import { suiteServer } from '../support/server.js';
import { createGroup, createProject, createUser, type TestUser } from '../support/factories.js';

const t = suiteServer({ epicsEnabled: false });

let owner: TestUser;
let group: { id: number; full_path: string };
let project: { id: number; path_with_namespace: string };

beforeAll(async () => {
  owner = await createUser(t);
  group = await createGroup(t, owner.token);
  project = await createProject(t, owner.token, { namespaceId: group.id });
});

const FORBIDDEN = { message: '403 Forbidden' };

describe('without epics', () => {
  it('answers 403 on every epic route', async () => {
    const issue = (await t.api('POST', `/projects/${project.id}/issues`, { token: owner.token, body: { title: 'x' } })).body;
    const calls: [string, string, unknown?][] = [
      ['GET', `/groups/${group.id}/epics`],
      ['POST', `/groups/${group.id}/epics`, { title: 'x' }],
      ['GET', `/groups/${group.id}/epics/1`],
      ['PUT', `/groups/${group.id}/epics/1`, { title: 'y' }],
      ['DELETE', `/groups/${group.id}/epics/1`],
      ['GET', `/groups/${group.id}/epics/1/issues`],
      ['POST', `/groups/${group.id}/epics/1/issues/${issue.id}`],
      ['PUT', `/groups/${group.id}/epics/1/issues/1`, { move_after_id: 2 }],
      ['DELETE', `/groups/${group.id}/epics/1/issues/1`],
      ['GET', `/groups/${group.id}/epics/1/discussions`],
      ['POST', `/groups/${group.id}/epics/1/discussions`, { body: 'x' }],
      ['GET', `/groups/${group.id}/epics/1/notes`],
      ['POST', `/groups/${group.id}/epics/1/notes`, { body: 'x' }],
    ];
    for (const [method, path, body] of calls) {
      const res = await t.api(method, path, { token: owner.token, body });
      expect([method, path, res.status, res.body]).toEqual([method, path, 403, FORBIDDEN]);
    }
  });

  it('still hides a private group from a non-member (404 before 403)', async () => {
    const stranger = await createUser(t);
    const res = await t.api('GET', `/groups/${group.id}/epics`, { token: stranger.token });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: '404 Group Not Found' });
  });

  it('refuses epic_id on issues and shows no epic on them', async () => {
    const res = await t.api('POST', `/projects/${project.id}/issues`, { token: owner.token, body: { title: 'with epic', epic_id: 1 } });
    expect(res.status).toBe(403);
    const plain = await t.api('POST', `/projects/${project.id}/issues`, { token: owner.token, body: { title: 'plain' } });
    expect(plain.body).toMatchObject({ epic: null, epic_iid: null });
  });

  it('answers GraphQL’s epic fields with FORBIDDEN', async () => {
    const res = await t.graphql('query($path: ID!) { group(fullPath: $path) { epics { nodes { title } } } }', { path: group.full_path }, owner.token);
    expect(res.body.errors?.[0]).toMatchObject({ message: '403 Forbidden', extensions: { code: 'FORBIDDEN' } });
    const created = await t.graphql('mutation($path: ID!) { createEpic(input: { groupPath: $path, title: "x" }) { epic { id } errors } }', { path: group.full_path }, owner.token);
    expect(created.body.errors?.[0]).toMatchObject({ extensions: { code: 'FORBIDDEN' } });
  });
});
