/**
 * `GET /projects/:id/jobs?pagination=keyset` (GitLab 15.9+, Gitlab::Pagination::CursorBasedKeyset for Ci::Build):
 * newest first by ID, a `Link` header with rel="next" carrying a cursor while more follow, no `X-` headers; only
 * `order_by=id&sort=desc` pages by keyset (405 otherwise); offset pages still work, uncapped (Ci::Build is not an
 * enforced type). gitbeaker's Jobs.all walks the same pages.
 */
import { Gitlab } from '@gitbeaker/rest';
import { describe, expect, it } from 'vitest';
import { projectWithConfig } from '../runners/support.js';
import { suiteServer } from '../support/server.js';

const t = suiteServer();

describe('jobs keyset pagination', () => {
  it('pages a project\'s jobs by cursor, newest first, with only a next link', async () => {
    const { project } = await projectWithConfig(t, 'a:\n  script: echo\nb:\n  script: echo\nc:\n  script: echo\n');
    const all = (await t.api('GET', `/projects/${project.id}/jobs`)).body as { id: number; name: string }[];
    expect(all.map((j) => j.name).sort()).toEqual(['a', 'b', 'c']);
    const ids = all.map((j) => j.id).sort((x, y) => y - x);

    const first = await t.api('GET', `/projects/${project.id}/jobs?pagination=keyset&per_page=2`);
    expect(first.status).toBe(200);
    expect(first.body.map((j: { id: number }) => j.id)).toEqual(ids.slice(0, 2));
    expect(first.headers.get('x-total')).toBeNull();
    expect(first.headers.get('x-page')).toBeNull();
    const link = first.headers.get('link') ?? '';
    const next = /<([^>]+)>; rel="next"/.exec(link)?.[1];
    expect(next).toMatch(/[?&]cursor=/);
    expect(next).toMatch(/[?&]pagination=keyset/);
    expect(next).toMatch(/[?&]per_page=2/);

    const path = new URL(next!).pathname.replace(/^\/api\/v4/, '') + new URL(next!).search;
    const second = await t.api('GET', path);
    expect(second.status).toBe(200);
    expect(second.body.map((j: { id: number }) => j.id)).toEqual(ids.slice(2));
    expect(second.headers.get('link')).toBeNull();

    // Only id, descending: anything else is refused as GitLab refuses it.
    const asc = await t.api('GET', `/projects/${project.id}/jobs?pagination=keyset&order_by=id&sort=asc`);
    expect(asc.status).toBe(405);
    expect(asc.body).toEqual({ error: 'Keyset pagination is not yet available for this type of request' });

    // Offset pages as before, with their totals, and far pages not refused.
    const offset = await t.api('GET', `/projects/${project.id}/jobs?per_page=2&page=2`);
    expect(offset.body.map((j: { id: number }) => j.id)).toEqual(ids.slice(2));
    expect(offset.headers.get('x-total')).toBe('3');
    expect((await t.api('GET', `/projects/${project.id}/jobs?per_page=100&page=600`)).status).toBe(200);

    const api = new Gitlab({ host: t.url, token: t.rootToken });
    const walked = (await api.Jobs.all(project.id, { pagination: 'keyset', perPage: 1 } as Parameters<typeof api.Jobs.all>[1])) as unknown as { id: number }[];
    expect(walked.map((j) => j.id)).toEqual(ids);
  });
});
