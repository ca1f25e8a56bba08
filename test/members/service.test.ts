import { MEMBERSHIPS_CHANGED } from '../../src/auth/memberships.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serviceHarness, type ServiceHarness } from '../support/context.js';
import { unique } from '../support/factories.js';

let h: ServiceHarness;
beforeAll(async () => {
  h = await serviceHarness();
});
afterAll(() => h?.close());

async function codeOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
    return 'resolved';
  } catch (err) {
    return (err as { extensions?: { code?: string } }).extensions?.code;
  }
}

describe('MembersService and access levels', () => {
  it('inherits group membership down the tree, and direct project membership adds to it', async () => {
    const owner = await h.user();
    const dev = await h.user();
    const root = await owner.ctx.services.groups.create({ name: 'root', path: unique('root') });
    const child = await owner.ctx.services.groups.create({ name: 'child', path: unique('child'), parent: { id: root.id } });
    const project = await owner.ctx.services.projects.create({ name: unique('p'), namespace: { id: child.id } });
    expect(await dev.ctx.services.projects.find({ id: project.id })).toBeNull();

    await owner.ctx.services.members.addToGroup(root, { userId: dev.viewer.id, accessLevel: 20 });
    await owner.ctx.settle(); // as a request does before it answers: the bus has told every cache
    // Memberships are loaded once per request: the next request of the same viewer sees the new one.
    const fresh = h.contextFor(dev.viewer);
    expect(await fresh.access.namespaceLevel(child)).toBe(20);
    expect((await fresh.services.projects.find({ id: project.id }))?.id).toBe(project.id);
    await owner.ctx.services.members.addToProject(project, { userId: dev.viewer.id, accessLevel: 30 });
    await owner.ctx.settle();
    expect(await h.contextFor(dev.viewer).access.projectLevel(project)).toBe(30);
  });

  it('ignores expired memberships', async () => {
    const owner = await h.user();
    const guest = await h.user();
    const group = await owner.ctx.services.groups.create({ name: 'g', path: unique('g') });
    await owner.ctx.services.members.addToGroup(group, { userId: guest.viewer.id, accessLevel: 10, expiresAt: new Date('2099-01-01') });
    await owner.ctx.settle();
    expect(await h.contextFor(guest.viewer).services.groups.find({ id: group.id })).not.toBeNull();
    // Memberships are remembered across requests: a change made behind the services' back is announced, as theirs are.
    await h.app.db.member.updateMany({ where: { namespaceId: group.id, userId: guest.viewer.id }, data: { expiresAt: new Date('2020-01-01') } });
    await h.app.bus.delivered([await h.app.bus.publish(MEMBERSHIPS_CHANGED, { userIds: [guest.viewer.id] })]);
    expect(await h.contextFor(guest.viewer).services.groups.find({ id: group.id })).toBeNull();
  });

  it('refuses a membership that would expire in the past, as GitLab does', async () => {
    const owner = await h.user();
    const guest = await h.user();
    const group = await owner.ctx.services.groups.create({ name: 'g', path: unique('g') });
    const refused = owner.ctx.services.members.addToGroup(group, { userId: guest.viewer.id, accessLevel: 10, expiresAt: new Date('2020-01-01') });
    await expect(refused).rejects.toMatchObject({ extensions: { code: 'BAD_USER_INPUT', fields: { expiresAt: ['cannot be a date in the past'] } } });
  });

  it('makes personal namespaces owned by their user only', async () => {
    const a = await h.user();
    const b = await h.user();
    const ns = await a.ctx.services.namespaces.find({ path: a.row.username });
    if (!ns) throw new Error('own namespace not found');
    expect(await a.ctx.access.namespaceLevel(ns)).toBe(50);
    expect(await b.ctx.access.namespaceLevel(ns)).toBe(0);
    expect(await b.ctx.services.namespaces.find({ path: a.row.username })).toBeNull();
  });

  it('refuses membership changes to those below Owner of the group', async () => {
    const owner = await h.user();
    const reader = await h.user();
    const group = await owner.ctx.services.groups.create({ name: 'g', path: unique('g'), visibility: 'internal' });
    const maint = await h.user();
    await owner.ctx.services.members.addToGroup(group, { userId: maint.viewer.id, accessLevel: 40 });
    await owner.ctx.settle();
    expect(await codeOf(h.contextFor(maint.viewer).services.members.addToGroup(group, { userId: reader.viewer.id, accessLevel: 10 }))).toBe('FORBIDDEN');
  });

  it('lets internal resources be read by signed-in users but not by external users or anonymous callers', async () => {
    const owner = await h.user();
    const regular = await h.user();
    const external = await h.user({ external: true });
    const project = await owner.ctx.services.projects.create({ name: unique('int'), visibility: 'internal' });
    expect(await regular.ctx.services.projects.find({ id: project.id })).not.toBeNull();
    expect(await external.ctx.services.projects.find({ id: project.id })).toBeNull();
    expect(await h.anonymous().services.projects.find({ id: project.id })).toBeNull();
    expect(await codeOf(h.anonymous().services.projects.get({ id: project.id }))).toBe('NOT_FOUND');
  });
});

describe('NamespacesService.exists', () => {
  it('suggests the first free candidate, case preserved, and checks names as well as paths', async () => {
    const owner = await h.user();
    const base = unique('taken');
    await owner.ctx.services.groups.create({ name: base, path: base });
    await owner.ctx.services.groups.create({ name: `${base}1`, path: unique('other') });
    expect(await owner.ctx.services.namespaces.exists(base.toUpperCase(), null)).toEqual({ exists: true, suggests: [`${base.toUpperCase()}2`] });
  });
});

describe('activity recorded by memberships and projects', () => {
  it('records "created" for a new project and "joined" for a new member, authored by the member', async () => {
    const owner = await h.user();
    const dev = await h.user();
    const project = await owner.ctx.services.projects.create({ name: unique('act') });
    await owner.ctx.services.members.addToProject(project, { userId: dev.viewer.id, accessLevel: 30 });
    await owner.ctx.settle();
    const events = await h.app.db.event.findMany({ where: { projectId: project.id }, orderBy: { id: 'asc' } });
    expect(events.map((e) => [e.action, e.authorId])).toEqual([
      ['created', owner.viewer.id],
      ['joined', dev.viewer.id],
    ]);
  });

  it('records nothing when the membership is refused', async () => {
    const owner = await h.user();
    const stranger = await h.user();
    const project = await owner.ctx.services.projects.create({ name: unique('act') });
    await expect(stranger.ctx.services.members.addToProject(project, { userId: stranger.viewer.id, accessLevel: 30 })).rejects.toThrow();
    expect(await h.app.db.event.count({ where: { projectId: project.id, action: 'joined' } })).toBe(0);
  });
});
