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
    // The project lookup follows a project's redirect, whatever the case.
    expect((await ctx.services.projects.find({ path: `${old.toLowerCase()}/PROJECT` }))?.id).toBe(a.id);

    // The same old path recorded again for another source now leads there.
    await h.app.db.$transaction((tx) => NamespacesService.recordRedirect(tx, { projectId: b.id }, `${old}/project`));
    expect((await h.contextFor(viewer).services.projects.find({ path: `${old}/project` }))?.id).toBe(b.id);

    // Something new at the old group path: the group's redirect and those below it are gone.
    await h.app.db.$transaction((tx) => NamespacesService.releaseRedirects(tx, old.toLowerCase()));
    const after = h.contextFor(viewer).services;
    expect(await after.namespaces.redirectOf(old)).toBeNull();
    expect(await after.projects.find({ path: `${old}/project` })).toBeNull();
  });
});
