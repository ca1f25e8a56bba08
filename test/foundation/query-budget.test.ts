import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.js';
import { addMember, createGroup, createProject, createUser, type TestUser } from '../support/factories.js';

// Every list route issues the same number of queries for a page of one row as for a page of four:
// relations go through DataLoaders, never a query per row.
let t: TestServer;
let counting = false;
let queries = 0;
let owner: TestUser;
let group: { id: number };
let sub: { id: number };
let project: { id: number };

async function measure(path: string): Promise<number> {
  queries = 0;
  counting = true;
  const res = await t.api('GET', path, { token: owner.token });
  counting = false;
  expect(res.status).toBe(200);
  expect(Array.isArray(res.body)).toBe(true);
  return queries;
}

beforeAll(async () => {
  t = await startTestServer({}, { onQuery: () => counting && queries++ });
  owner = await createUser(t);
  group = await createGroup(t, owner.token, { visibility: 'internal' });
  sub = await createGroup(t, owner.token, { parentId: group.id, visibility: 'internal' });
  project = await createProject(t, owner.token, { namespaceId: group.id });
  for (let i = 0; i < 4; i++) {
    const member = await createUser(t);
    await createProject(t, member.token, { visibility: 'internal' });
    await addMember(t, owner.token, 'groups', group.id, member.id, 30);
    await addMember(t, owner.token, 'projects', project.id, member.id, 30);
    await createProject(t, owner.token, { namespaceId: group.id });
    await createGroup(t, owner.token, { parentId: sub.id });
    await createGroup(t, owner.token);
    await t.api('POST', `/users/${owner.id}/personal_access_tokens`, { body: { name: `t${i}`, scopes: ['api'] } });
  }
});
afterAll(() => t?.close());

describe('query budget', () => {
  const routes: [string, () => string][] = [
    ['GET /projects', () => '/projects?visibility=internal'],
    ['GET /groups', () => '/groups'],
    ['GET /groups/:id/members', () => `/groups/${group.id}/members`],
    ['GET /groups/:id/projects', () => `/groups/${group.id}/projects`],
    ['GET /groups/:id/subgroups', () => `/groups/${sub.id}/subgroups`],
    ['GET /projects/:id/members', () => `/projects/${project.id}/members`],
    ['GET /projects/:id/members/all', () => `/projects/${project.id}/members/all`],
    ['GET /groups/:id/members/all', () => `/groups/${group.id}/members/all`],
    ['GET /namespaces', () => '/namespaces?search=group'],
    ['GET /users', () => '/users'],
    ['GET /personal_access_tokens', () => '/personal_access_tokens'],
  ];
  for (const [name, path] of routes) {
    it(`${name} costs the same for 1 row as for 4`, async () => {
      const sep = path().includes('?') ? '&' : '?';
      const one = await measure(`${path()}${sep}per_page=1`);
      const four = await measure(`${path()}${sep}per_page=4`);
      expect(one).toBeGreaterThan(0);
      expect(four).toBe(one);
    });
  }
});
