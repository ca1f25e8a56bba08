/** The redirect routes of old paths, as services use them: recorded in a rename's transaction, released by a new holder. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NamespacesService } from '../../src/modules/namespaces/service.js';
import { unique } from '../support/factories.js';
import { serviceHarness, type ServiceHarness } from '../support/context.js';

let h: ServiceHarness;
beforeAll(async () => {
  h = await serviceHarness();
});
afterAll(() => h?.close());

describe('redirect routes', () => {
  it('records old paths lower-cased, moves a path to its newest source, and releases a path with what lies below it', async () => {
    const { ctx, row, viewer } = await h.user();
    const a = await ctx.services.projects.create({ name: unique('a') });
    const b = await ctx.services.projects.create({ name: unique('b') });
    const ns = await h.app.db.namespace.findUniqueOrThrow({ where: { ownerId: row.id } });
    const old = `Old-${unique('group')}`;
    await h.app.db.$transaction(async (tx) => {
      await NamespacesService.recordRedirect(tx, { namespaceId: ns.id }, old);
      await NamespacesService.recordRedirect(tx, { projectId: a.id }, `${old}/Project`);
    });
    const namespaces = h.contextFor(viewer).services.namespaces;
    expect(await namespaces.redirectOf(old.toUpperCase())).toEqual({ projectId: null, namespaceId: ns.id });
    expect(await namespaces.redirectOf(`${old}/project`)).toEqual({ projectId: a.id, namespaceId: null });
    // The project lookup follows a project's redirect when asked (REST and git do; GraphQL does not), whatever the case.
    expect((await ctx.services.projects.find({ path: `${old.toLowerCase()}/PROJECT` }, { followRedirects: true }))?.id).toBe(a.id);
    expect(await ctx.services.projects.find({ path: `${old.toLowerCase()}/PROJECT` })).toBeNull();

    // The same old path recorded again for another source now leads there.
    await h.app.db.$transaction((tx) => NamespacesService.recordRedirect(tx, { projectId: b.id }, `${old}/project`));
    expect((await h.contextFor(viewer).services.projects.find({ path: `${old}/project` }, { followRedirects: true }))?.id).toBe(b.id);

    // Something new at the old group path: the group's redirect and those below it are gone.
    await h.app.db.$transaction((tx) => NamespacesService.releaseRedirects(tx, old.toLowerCase()));
    const after = h.contextFor(viewer).services;
    expect(await after.namespaces.redirectOf(old)).toBeNull();
    expect(await after.projects.find({ path: `${old}/project` }, { followRedirects: true })).toBeNull();
  });

  it('releases only the path taken and what lies below it: `_` in a path matches only itself', async () => {
    const { ctx, row } = await h.user();
    const ns = await h.app.db.namespace.findUniqueOrThrow({ where: { ownerId: row.id } });
    const kept = [`${ns.fullPath}/axb`, `${ns.fullPath}/axb/deeper`, `${ns.fullPath}/a%b-other/x`];
    await h.app.db.$transaction(async (tx) => {
      for (const path of [...kept, `${ns.fullPath}/a_b`, `${ns.fullPath}/a_b/deeper`]) await NamespacesService.recordRedirect(tx, { namespaceId: ns.id }, path);
    });
    // Creating the project takes its path from the redirects in the same statement.
    await ctx.services.projects.create({ name: 'a_b', path: 'a_b' });
    const left = await h.app.db.redirectRoute.findMany({ where: { path: { in: [...kept, `${ns.fullPath}/a_b`, `${ns.fullPath}/a_b/deeper`].map((p) => p.toLowerCase()) } } });
    expect(left.map((r) => r.path).sort()).toEqual(kept.map((p) => p.toLowerCase()).sort());
  });
});
