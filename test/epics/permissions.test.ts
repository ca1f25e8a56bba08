/**
 * Who may do what with epics (GroupPolicy's epic abilities and EpicPolicy): reading follows the group, confidential
 * epics need Reporter; Reporters create and change, Owners delete; Guests relate issues they may relate. Public and
 * private groups, every role, administrators, non-members and anonymous callers.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { suiteServer } from '../support/server.js';
import { addMember, createGroup, createProject, createUser, type TestUser } from '../support/factories.js';

const t = suiteServer();

type Role = 'anonymous' | 'nonMember' | 'guest' | 'reporter' | 'developer' | 'maintainer' | 'owner' | 'admin';
const ROLES: Role[] = ['anonymous', 'nonMember', 'guest', 'reporter', 'developer', 'maintainer', 'owner', 'admin'];
const LEVELS: Partial<Record<Role, number>> = { guest: 10, reporter: 20, developer: 30, maintainer: 40 };

const users = {} as Record<Role, TestUser | null>;
const groups = {} as Record<'public' | 'private', { id: number; epic: number; secret: number; project: number }>;

beforeAll(async () => {
  users.anonymous = null;
  for (const role of ROLES.slice(1)) users[role] = await createUser(t, { admin: role === 'admin' });
  for (const visibility of ['public', 'private'] as const) {
    const group = await createGroup(t, users.owner!.token, { visibility });
    for (const [role, level] of Object.entries(LEVELS)) await addMember(t, users.owner!.token, 'groups', group.id, users[role as Role]!.id, level);
    const project = await createProject(t, users.owner!.token, { namespaceId: group.id, visibility });
    const epic = (await t.api('POST', `/groups/${group.id}/epics`, { token: users.owner!.token, body: { title: 'Open' } })).body;
    const secret = (await t.api('POST', `/groups/${group.id}/epics`, { token: users.owner!.token, body: { title: 'Secret', confidential: true } })).body;
    groups[visibility] = { id: group.id, epic: epic.iid, secret: secret.iid, project: project.id };
  }
});

const as = (role: Role) => users[role]?.token ?? null;

/** Expected status by role, in ROLES' order. */
async function matrix(call: (role: Role) => Promise<number>): Promise<Record<Role, number>> {
  const out = {} as Record<Role, number>;
  for (const role of ROLES) out[role] = await call(role);
  return out;
}

const row = (...codes: number[]) => Object.fromEntries(ROLES.map((r, i) => [r, codes[i]]));

describe('reading', () => {
  it('lists and reads a public group’s epics for everyone, a private group’s for its members (404 to others)', async () => {
    const g = groups.public;
    expect(await matrix(async (r) => (await t.api('GET', `/groups/${g.id}/epics/${g.epic}`, { token: as(r) })).status)).toEqual(row(200, 200, 200, 200, 200, 200, 200, 200));
    const p = groups.private;
    expect(await matrix(async (r) => (await t.api('GET', `/groups/${p.id}/epics/${p.epic}`, { token: as(r) })).status)).toEqual(row(404, 404, 200, 200, 200, 200, 200, 200));
    expect(await matrix(async (r) => (await t.api('GET', `/groups/${p.id}/epics`, { token: as(r) })).status)).toEqual(row(404, 404, 200, 200, 200, 200, 200, 200));
  });

  it('shows confidential epics to Reporters and above only: 403 on the epic, absent from lists', async () => {
    const g = groups.public;
    expect(await matrix(async (r) => (await t.api('GET', `/groups/${g.id}/epics/${g.secret}`, { token: as(r) })).status)).toEqual(row(403, 403, 403, 200, 200, 200, 200, 200));
    const counts = await matrix(async (r) => (await t.api('GET', `/groups/${g.id}/epics`, { token: as(r) })).body.length);
    expect(counts).toEqual(row(1, 1, 1, 2, 2, 2, 2, 2));
  });
});

describe('writing', () => {
  it('lets Reporters and above create epics (401 anonymous, 403 to readers who may not)', async () => {
    const g = groups.public;
    expect(await matrix(async (r) => (await t.api('POST', `/groups/${g.id}/epics`, { token: as(r), body: { title: `by ${r}` } })).status)).toEqual(
      row(401, 403, 403, 201, 201, 201, 201, 201),
    );
    const p = groups.private;
    expect(await matrix(async (r) => (await t.api('POST', `/groups/${p.id}/epics`, { token: as(r), body: { title: `by ${r}` } })).status)).toEqual(
      row(401, 404, 403, 201, 201, 201, 201, 201),
    );
  });

  it('lets Reporters and above update epics', async () => {
    const g = groups.public;
    expect(await matrix(async (r) => (await t.api('PUT', `/groups/${g.id}/epics/${g.epic}`, { token: as(r), body: { description: r } })).status)).toEqual(
      row(401, 403, 403, 200, 200, 200, 200, 200),
    );
  });

  it('lets only Owners and administrators delete epics', async () => {
    const g = groups.public;
    const statuses = await matrix(async (r) => {
      const epic = (await t.api('POST', `/groups/${g.id}/epics`, { token: as('owner'), body: { title: 'to delete' } })).body;
      return (await t.api('DELETE', `/groups/${g.id}/epics/${epic.iid}`, { token: as(r) })).status;
    });
    expect(statuses).toEqual(row(401, 403, 403, 403, 403, 403, 204, 204));
  });

  it('lets members who may relate the issue put it in an epic; the Epic Issues API wants a token', async () => {
    const p = groups.private;
    const statuses = await matrix(async (r) => {
      const issue = (await t.api('POST', `/projects/${p.project}/issues`, { token: as('owner'), body: { title: 'relate me' } })).body;
      return (await t.api('POST', `/groups/${p.id}/epics/${p.epic}/issues/${issue.id}`, { token: as(r) })).status;
    });
    expect(statuses).toEqual(row(401, 404, 201, 201, 201, 201, 201, 201));
    const listed = await matrix(async (r) => (await t.api('GET', `/groups/${groups.public.id}/epics/${groups.public.epic}/issues`, { token: as(r) })).status);
    expect(listed).toEqual(row(401, 200, 200, 200, 200, 200, 200, 200));
  });
});
