import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allowedWhere, can, type Ability, type Actor } from '../../src/auth/policy.js';
import type { Viewer } from '../../src/auth/viewer.js';
import { serviceHarness, type ServiceHarness } from '../support/context.js';
import { unique } from '../support/factories.js';

// Each rule of the policy is written once and gives both the check for one object and the filter for a list.
// Over a tree of groups and projects of every visibility and viewers of every kind, the two must agree row by row.
let h: ServiceHarness;
const viewers: { label: string; viewer: Viewer | null }[] = [];
const projectIds: number[] = [];
const namespaceIds: number[] = [];

beforeAll(async () => {
  h = await serviceHarness();
  const owner = await h.user();
  const groupMember = await h.user();
  const projectMember = await h.user();
  const external = await h.user({ external: true });
  const admin = await h.user({ admin: true });
  const stranger = await h.user();
  // A context is one request: its memberships are read once, so each step gets a fresh one.
  const svc = (u: { viewer: Viewer }) => h.contextFor(u.viewer).services;
  for (const visibility of ['private', 'internal', 'public'] as const) {
    const top = await svc(owner).groups.create({ name: 'top', path: unique('top'), visibility });
    const sub = await svc(owner).groups.create({ name: 'sub', path: unique('sub'), parent: { id: top.id }, visibility: 'private' });
    namespaceIds.push(top.id, sub.id);
    for (const ns of [top, sub]) {
      const p = await svc(owner).projects.create({ name: unique('p'), namespace: { id: ns.id }, visibility: ns.visibility as 'private' });
      projectIds.push(p.id);
      if (visibility === 'internal') await svc(owner).members.addToProject(p, { userId: projectMember.viewer.id, accessLevel: 20 });
    }
    if (visibility === 'private') await svc(owner).members.addToGroup(top, { userId: groupMember.viewer.id, accessLevel: 10 });
    const personal = await svc(owner).projects.create({ name: unique('mine'), visibility });
    projectIds.push(personal.id);
  }
  namespaceIds.push(owner.row.id, stranger.row.id);
  const personalNamespaces = await h.app.db.namespace.findMany({ where: { kind: 'user', ownerId: { in: [owner.row.id, stranger.row.id] } } });
  namespaceIds.push(...personalNamespaces.map((n) => n.id));
  viewers.push(
    { label: 'anonymous', viewer: null },
    ...[owner, groupMember, projectMember, external, admin, stranger].map((u, i) => ({ label: ['owner', 'group member', 'project member', 'external', 'admin', 'stranger'][i], viewer: u.viewer })),
  );
});
afterAll(() => h?.close());

async function actorOf(viewer: Viewer | null, ability?: Ability): Promise<Actor> {
  return (viewer ? h.contextFor(viewer) : h.anonymous()).access.actor(ability);
}

describe('the policy', () => {
  const projectAbilities: Ability[] = ['read_project', 'admin_project_member', 'manage_owners'];
  const namespaceAbilities: Ability[] = [
    'read_group',
    'read_namespace',
    'create_projects',
    'create_subgroup',
    'admin_namespace',
    'admin_group_member',
    'admin_group',
    'read_namespace_via_membership',
  ];

  it('filters a list of projects exactly as it checks each one', async () => {
    const rows = await h.app.db.project.findMany({ where: { id: { in: projectIds } }, include: { namespace: true } });
    for (const { label, viewer } of viewers) {
      for (const ability of projectAbilities) {
        const actor = await actorOf(viewer, ability);
        const listed = await h.app.db.project.findMany({ where: { AND: [{ id: { in: projectIds } }, allowedWhere(actor, ability as 'read_project')] }, select: { id: true } });
        const checked = rows.filter((p) => can(actor, ability as 'read_project', p)).map((p) => p.id);
        expect([label, ability, listed.map((p) => p.id).sort()]).toEqual([label, ability, checked.sort()]);
      }
    }
  });

  it('filters a list of namespaces exactly as it checks each one', async () => {
    const rows = await h.app.db.namespace.findMany({ where: { id: { in: namespaceIds } } });
    for (const { label, viewer } of viewers) {
      for (const ability of namespaceAbilities) {
        const actor = await actorOf(viewer, ability);
        const listed = await h.app.db.namespace.findMany({ where: { AND: [{ id: { in: namespaceIds } }, allowedWhere(actor, ability as 'read_group')] }, select: { id: true } });
        const checked = rows.filter((n) => can(actor, ability as 'read_group', n)).map((n) => n.id);
        expect([label, ability, listed.map((n) => n.id).sort()]).toEqual([label, ability, checked.sort()]);
      }
    }
  });

  it('gives GitLab’s answers: members read private projects, externals do not read internal ones, admins read all', async () => {
    const rows = await h.app.db.project.findMany({ where: { id: { in: projectIds } }, include: { namespace: true } });
    const readable = async (label: string) => {
      const actor = await actorOf(viewers.find((v) => v.label === label)?.viewer ?? null);
      return rows.filter((p) => can(actor, 'read_project', p)).map((p) => p.visibility);
    };
    expect((await readable('anonymous')).every((v) => v === 'public')).toBe(true);
    expect((await readable('external')).every((v) => v === 'public')).toBe(true);
    expect(await readable('admin')).toHaveLength(rows.length);
    expect(await readable('owner')).toHaveLength(rows.length);
    expect((await readable('group member')).filter((v) => v === 'private')).toHaveLength(2); // the private group's two projects
    expect((await readable('stranger')).includes('private')).toBe(false);
  });
});
