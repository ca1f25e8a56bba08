/**
 * Project reads fetch their rows with SQL written out (fetchProjectRows), not with Prisma's include: the hot path of
 * every project answer. The rows must be the very objects Prisma's WITH_NAMESPACE gives, field for field and type for
 * type (a Date stays a Date, a missing owner or feature row stays null), or some answer drifts unnoticed. This
 * compares both on projects that fill every part: a personal project whose owner has every profile field set, a
 * group project with shares (one expiring), forks (one being deleted), stars, and a project without feature row.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Prisma } from '../../src/db/database.js';
import { JSON_DATE_FIELDS, fetchProjectRows } from '../../src/modules/projects/loaders.js';
import { createGroup, createProject, createUser, unique } from '../support/factories.js';
import { suiteServer } from '../support/server.js';

const t = suiteServer();

/** What fetchProjectRows returns, as a Prisma include: the reference. */
const WITH_NAMESPACE = {
  relationLoadStrategy: 'join',
  include: {
    namespace: { include: { owner: true } },
    features: true,
    groupLinks: { include: { group: true }, orderBy: { id: 'asc' } },
    _count: { select: { forks: { where: { pendingDelete: false } }, stars: true } },
  },
} as const;

describe('project rows in plain SQL', () => {
  it('equal what Prisma fetches with WITH_NAMESPACE, for every kind of project', async () => {
    const db = t.server.database.prisma;
    const owner = await createUser(t);
    const profile = await t.api('PUT', `/users/${owner.id}`, {
      body: { bio: 'b', location: 'l', organization: 'o', job_title: 'j', pronouns: 'p', linkedin: 'li', twitter: 'tw', discord: '123456789012345678', website_url: 'https://example.com', note: 'n', private_profile: false },
    });
    expect(profile.status).toBe(200);
    await db.user.update({ where: { id: owner.id }, data: { lastActivityOn: new Date('2026-11-20T00:00:00Z'), confirmedAt: new Date('2026-01-02T03:04:05.678Z') } });
    const personal = await createProject(t, owner.token, { visibility: 'public' });

    const group = await createGroup(t, t.rootToken, { visibility: 'public' });
    const other = await createGroup(t, t.rootToken, { visibility: 'public' });
    const third = await createGroup(t, t.rootToken, { visibility: 'private' });
    const shared = await createProject(t, t.rootToken, { namespaceId: group.id, visibility: 'public' });
    for (const [g, expires] of [[other, '2031-02-03'], [third, undefined]] as const) {
      const res = await t.api('POST', `/projects/${shared.id}/share`, { body: { group_id: g.id, group_access: 30, expires_at: expires } });
      expect(res.status).toBe(201);
    }
    const forks = await Promise.all([1, 2].map(() => t.api('POST', `/projects/${shared.id}/fork`, { body: { path: unique('fork'), name: unique('fork') } })));
    for (const f of forks) expect(f.status).toBe(201);
    await db.project.update({ where: { id: forks[1].body.id }, data: { pendingDelete: true } });
    for (const who of [owner.token, t.rootToken]) expect((await t.api('POST', `/projects/${shared.id}/star`, { token: who })).status).toBe(201);

    const bare = await createProject(t, t.rootToken, { namespaceId: other.id });
    await db.projectFeature.delete({ where: { projectId: bare.id } });

    const ids = [personal.id, shared.id, forks[0].body.id, bare.id];
    const viaPrisma = await db.project.findMany({ where: { id: { in: ids } }, orderBy: { id: 'asc' }, ...WITH_NAMESPACE });
    const viaSql = (await fetchProjectRows(db, Prisma.sql`p."id" = ANY(${ids}::int[])`)).sort((a, b) => a.id - b.id);
    expect(viaSql).toEqual(viaPrisma);
    // The parts most likely to drift, spelled out: dates of a date column, counts, missing joined rows.
    const sharedRow = viaSql.find((r) => r.id === shared.id);
    expect(sharedRow?.groupLinks?.map((l) => [l.groupId, l.expiresAt])).toEqual([
      [other.id, new Date('2031-02-03T00:00:00Z')],
      [third.id, null],
    ]);
    expect(sharedRow?._count).toEqual({ forks: 1, stars: 2 });
    expect(viaSql.find((r) => r.id === personal.id)?.namespace.owner?.lastActivityOn).toBeInstanceOf(Date);
    expect(viaSql.find((r) => r.id === bare.id)?.features).toBeNull();
    expect(viaSql.find((r) => r.id === shared.id)?.namespace.owner).toBeNull();
  });

  it('turns back into Dates every DateTime field of the models it reads as JSON', () => {
    const schema = readFileSync(new URL('../../prisma/schema.prisma', import.meta.url), 'utf8');
    for (const [model, listed] of Object.entries(JSON_DATE_FIELDS)) {
      const body = new RegExp(`^model ${model} \\{([^}]*)\\}`, 'm').exec(schema)?.[1];
      expect(body, model).toBeDefined();
      const dates = [...(body ?? '').matchAll(/^\s+(\w+)\s+DateTime\??\s/gm)].map((m) => m[1]);
      expect([...listed].sort(), model).toEqual(dates.sort());
    }
  });

  it('answers nothing for ids no project has', async () => {
    expect(await fetchProjectRows(t.server.database.prisma, Prisma.sql`p."id" = ANY(${[2147483647]}::int[])`)).toEqual([]);
  });
});
