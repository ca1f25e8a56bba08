import { beforeAll, describe, expect, it } from 'vitest';
import { Gitlab } from '@gitbeaker/rest';
import { EXTERNAL_URL, suiteServer } from '../support/server.js';
import { createGroup, createProject, createUser, unique, type TestUser } from '../support/factories.js';

const t = suiteServer();
let owner: TestUser;
let projectIds: number[];

beforeAll(async () => {
  owner = await createUser(t);
  projectIds = [];
  for (let i = 0; i < 5; i++) projectIds.push((await createProject(t, owner.token)).id);
});

/** GETs a path, then follows `Link: rel="next"` to the end; the links are under EXTERNAL_URL, so they are mapped back. */
async function walk(path: string, token: string | null) {
  const pages: { body: any[]; headers: Headers }[] = [];
  let next: string | null = path;
  while (next) {
    const res: { status: number; body: unknown; headers: Headers } = await t.api('GET', next, { token });
    expect(res.status, next).toBe(200);
    pages.push({ body: res.body as any[], headers: res.headers });
    const link = res.headers.get('link');
    const match = link ? /^<([^>]+)>; rel="next"$/.exec(link) : null;
    if (link) expect(match, link).not.toBeNull();
    next = match ? match[1].replace(`${EXTERNAL_URL}/api/v4`, '') : null;
    expect(pages.length).toBeLessThan(20);
  }
  return pages;
}

describe('keyset pagination', () => {
  it('walks projects by ID to the end with id_after links, then an empty page without a Link', async () => {
    const pages = await walk('/projects?owned=true&pagination=keyset&order_by=id&sort=asc&per_page=2', owner.token);
    expect(pages.map((p) => p.body.map((project) => project.id))).toEqual([projectIds.slice(0, 2), projectIds.slice(2, 4), projectIds.slice(4), []]);
    for (const page of pages) for (const header of ['x-total', 'x-total-pages', 'x-page', 'x-next-page', 'x-prev-page']) expect(page.headers.get(header)).toBeNull();
    expect(pages[0].headers.get('link')).toBe(`<${EXTERNAL_URL}/api/v4/projects?id_after=${projectIds[1]}&order_by=id&owned=true&pagination=keyset&per_page=2&sort=asc>; rel="next"`);
    const desc = await walk('/projects?owned=true&pagination=keyset&order_by=id&sort=desc&per_page=3', owner.token);
    expect(desc.flatMap((p) => p.body.map((project) => project.id))).toEqual([...projectIds].reverse());
    expect(desc[0].headers.get('link')).toContain(`id_before=${projectIds[2]}`);
  });

  it('walks projects with gitbeaker', async () => {
    const api = new Gitlab({ host: t.url, token: owner.token });
    const all = await api.Projects.all({ owned: true, pagination: 'keyset', orderBy: 'id', sort: 'asc', perPage: 2 });
    expect(all.map((p) => p.id)).toEqual(projectIds);
  });

  it('answers 405 for an order keyset pagination does not take', async () => {
    for (const query of ['pagination=keyset', 'pagination=keyset&order_by=name', 'pagination=keyset&order_by=id&sort=sideways']) {
      const res = await t.api('GET', `/projects?${query}`, { token: owner.token });
      if (query.includes('sideways')) {
        expect(res.status).toBe(400);
        continue;
      }
      expect(res.status, query).toBe(405);
      expect(res.body).toEqual({ error: 'Keyset pagination is not yet available for this type of request' });
    }
  });

  it('walks users by each order GitLab takes, with cursor links', async () => {
    const prefix = unique('ks');
    const created = [];
    for (const name of ['delta', 'alpha', 'charlie', 'echo', 'bravo']) {
      const res = await t.api('POST', '/users', { body: { username: `${prefix}-${name}`, name: `${prefix} ${name}`, email: `${prefix}-${name}@example.com` } });
      created.push(res.body);
    }
    const byUsername = await walk(`/users?search=${prefix}&pagination=keyset&order_by=username&sort=asc&per_page=2`, t.rootToken);
    expect(byUsername.flatMap((p) => p.body.map((u) => u.username))).toEqual(['alpha', 'bravo', 'charlie', 'delta', 'echo'].map((n) => `${prefix}-${n}`));
    expect(byUsername.map((p) => p.body.length)).toEqual([2, 2, 1]);
    expect(byUsername[0].headers.get('link')).toMatch(new RegExp(`^<${EXTERNAL_URL}/api/v4/users\\?cursor=[\\w-]+&order_by=username&pagination=keyset&per_page=2&search=${prefix}&sort=asc>; rel="next"$`));
    const byIdDesc = await walk(`/users?search=${prefix}&pagination=keyset&per_page=2`, t.rootToken);
    expect(byIdDesc.flatMap((p) => p.body.map((u) => u.id))).toEqual(created.map((u) => u.id).reverse());
    const byCreated = await walk(`/users?search=${prefix}&pagination=keyset&order_by=created_at&sort=asc&per_page=4`, t.rootToken);
    expect(byCreated.flatMap((p) => p.body.map((u) => u.id))).toEqual(created.map((u) => u.id));
    const api = new Gitlab({ host: t.url, token: t.rootToken });
    const all = await api.Users.all({ search: prefix, pagination: 'keyset', orderBy: 'name', sort: 'desc', perPage: 2 });
    expect(all.map((u) => u.username)).toEqual(['echo', 'delta', 'charlie', 'bravo', 'alpha'].map((n) => `${prefix}-${n}`));
  });

  it('refuses a cursor it did not make', async () => {
    const res = await t.api('GET', '/users?pagination=keyset&cursor=bm90LWEtY3Vyc29y');
    expect(res.status).toBe(400);
  });

  it('pages groups by keyset for anonymous callers only, by name ascending', async () => {
    const prefix = unique('ksg');
    for (const name of ['c', 'a', 'b']) await createGroup(t, owner.token, { path: `${prefix}-${name}`, visibility: 'public' });
    const pages = await walk(`/groups?search=${prefix}&pagination=keyset&per_page=2`, null);
    expect(pages.flatMap((p) => p.body.map((g) => g.path))).toEqual(['a', 'b', 'c'].map((n) => `${prefix}-${n}`));
    expect(pages[0].headers.get('x-total')).toBeNull();
    const refused = await t.api('GET', `/groups?pagination=keyset&order_by=id`, { token: null });
    expect(refused).toMatchObject({ status: 405, body: { error: 'Keyset pagination is not yet available for this type of request' } });
    // Signed in, GitLab pages groups by offset whatever is asked.
    const signedIn = await t.api('GET', `/groups?search=${prefix}&pagination=keyset&order_by=id&per_page=2&all_available=true`, { token: owner.token });
    expect(signedIn.status).toBe(200);
    expect(signedIn.headers.get('x-total')).toBe('3');
  });

  it('refuses offset pages beyond 50,000 rows of keyset-capable lists', async () => {
    const projects = await t.api('GET', '/projects?page=2501&per_page=20', { token: owner.token });
    expect(projects).toMatchObject({
      status: 405,
      body: { error: 'Offset pagination has a maximum allowed offset of 50000 for requests that return objects of type Project. Remaining records can be retrieved using keyset pagination.' },
    });
    expect((await t.api('GET', '/projects?page=2500&per_page=20', { token: owner.token })).status).toBe(200);
    expect((await t.api('GET', '/users?page=501&per_page=100')).body.error).toMatch(/type User\./);
    expect((await t.api('GET', '/groups?page=501&per_page=100', { token: owner.token })).status).toBe(200);
  });
});

describe('X-Total above 10,000 rows', () => {
  it('sends X-Total, X-Total-Pages and the last link up to 10,000 rows, and leaves them out beyond', async () => {
    const prefix = unique('bulk');
    const db = t.server.database.prisma;
    await db.$executeRaw`INSERT INTO "users" ("username", "name", "email", "updatedAt")
      SELECT ${prefix} || '-' || g, ${prefix} || ' ' || g, ${prefix} || '-' || g || '@example.com', now() FROM generate_series(1, 10000) g`;
    const counted = await t.api('GET', `/users?search=${prefix}&per_page=100&page=100`);
    expect(counted.status).toBe(200);
    expect(counted.headers.get('x-total')).toBe('10000');
    expect(counted.headers.get('x-total-pages')).toBe('100');
    expect(counted.headers.get('x-next-page')).toBe('');
    expect(counted.headers.get('link')).toContain('rel="last"');

    await db.$executeRaw`INSERT INTO "users" ("username", "name", "email", "updatedAt") VALUES (${`${prefix}-extra`}, ${`${prefix} extra`}, ${`${prefix}-extra@example.com`}, now())`;
    const page100 = await t.api('GET', `/users?search=${prefix}&per_page=100&page=100`);
    expect(page100.headers.get('x-total')).toBeNull();
    expect(page100.headers.get('x-total-pages')).toBeNull();
    expect(page100.headers.get('x-next-page')).toBe('101');
    expect(page100.headers.get('link')).not.toContain('rel="last"');
    const page101 = await t.api('GET', `/users?search=${prefix}&per_page=100&page=101`);
    expect(page101.body).toHaveLength(1);
    expect(page101.headers.get('x-next-page')).toBe('');
    expect(page101.headers.get('x-total')).toBeNull();
  });
});

describe('Link headers', () => {
  it('sends GitLab\'s four links in its order, and only what fits in 8 KB when the query is long', async () => {
    const short = await t.api('GET', '/projects?owned=true&per_page=1&page=2', { token: owner.token });
    const rels = [...(short.headers.get('link') ?? '').matchAll(/rel="(\w+)"/g)].map((m) => m[1]);
    expect(rels).toEqual(['prev', 'next', 'first', 'last']);
    // Each link repeats the 5,000-character parameter: next alone fits in 8 KB, the others are left out, and the answer
    // stays readable by a client that reads 16 KB of headers (this test's fetch is one).
    const long = await t.api('GET', `/projects?owned=true&per_page=1&page=2&unused=${'a'.repeat(5000)}`, { token: owner.token });
    expect(long.status).toBe(200);
    const link = long.headers.get('link') ?? '';
    expect(link.length).toBeLessThanOrEqual(8 * 1024);
    expect([...link.matchAll(/rel="(\w+)"/g)].map((m) => m[1])).toEqual(['next']);
    expect([long.headers.get('x-next-page'), long.headers.get('x-prev-page')]).toEqual(['3', '1']);
    // Longer still: no link fits, the X- headers remain.
    const longer = await t.api('GET', `/projects?owned=true&per_page=1&page=2&unused=${'a'.repeat(9000)}`, { token: owner.token });
    expect([longer.status, longer.headers.get('link'), longer.headers.get('x-next-page')]).toEqual([200, null, '3']);
  });
});
