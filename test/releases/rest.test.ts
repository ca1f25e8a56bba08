/**
 * The Releases API over REST: GitLab's entity, tags made from `ref`, milestones, updates, deletion that keeps the tag,
 * evidence, ordering and pages, `permalink/latest`, and the refusals in GitLab's words.
 */
import { Gitlab } from '@gitbeaker/rest';
import { beforeAll, describe, expect, it } from 'vitest';
import { suiteServer, EXTERNAL_URL } from '../support/server.js';
import { createGroup, createProject, createUser, type TestUser } from '../support/factories.js';

const t = suiteServer();

let owner: TestUser;
let project: { id: number; path: string; path_with_namespace: string; default_branch: string };
let head: string;

const RELEASE_KEYS = [
  '_links',
  'assets',
  'author',
  'commit',
  'commit_path',
  'created_at',
  'description',
  'evidences',
  'historical_release',
  'name',
  'released_at',
  'tag_name',
  'tag_path',
  'upcoming_release',
];

const releases = (suffix = '') => `/projects/${project.id}/releases${suffix}`;

beforeAll(async () => {
  owner = await createUser(t);
  const made = await createProject(t, owner.token);
  const file = await t.api('POST', `/projects/${made.id}/repository/files/README.md`, { token: owner.token, body: { branch: 'main', content: 'hi', commit_message: 'Initial commit' } });
  expect(file.status, file.text).toBe(201);
  project = (await t.api('GET', `/projects/${made.id}`, { token: owner.token })).body;
  head = (await t.api('GET', `/projects/${project.id}/repository/branches/main`, { token: owner.token })).body.commit.id;
});

describe('creating a release', () => {
  it('creates the tag from ref and answers GitLab’s entity', async () => {
    const milestone = (await t.api('POST', `/projects/${project.id}/milestones`, { token: owner.token, body: { title: 'M1', due_date: '2030-01-01' } })).body;
    const res = await t.api('POST', releases(), {
      token: owner.token,
      body: {
        tag_name: 'v1.0',
        ref: 'main',
        tag_message: 'Version one',
        name: 'One',
        description: 'Notes',
        milestones: ['M1'],
        assets: { links: [{ name: 'bin', url: 'https://example.com/bin', direct_asset_path: '/bin/app', link_type: 'package' }] },
      },
    });
    expect(res.status, res.text).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual([...RELEASE_KEYS, 'milestones'].sort());
    const web = `${EXTERNAL_URL}/${project.path_with_namespace}`;
    const archive = (format: string) => ({ format, url: `${web}/-/archive/v1.0/${project.path}-v1.0.${format}` });
    const list = (page: string, state: string) => `${web}/-/${page}?release_tag=v1.0&scope=all&state=${state}`;
    expect(res.body).toMatchObject({
      name: 'One',
      tag_name: 'v1.0',
      description: 'Notes',
      upcoming_release: false,
      historical_release: false,
      author: { id: owner.id, username: owner.username },
      commit: { id: head, title: 'Initial commit' },
      commit_path: `/${project.path_with_namespace}/-/commit/${head}`,
      tag_path: `/${project.path_with_namespace}/-/tags/v1.0`,
      milestones: [{ id: milestone.id, iid: 1, project_id: project.id, title: 'M1', due_date: '2030-01-01', issue_stats: { total: 0, closed: 0 } }],
      assets: {
        count: 5,
        sources: [archive('zip'), archive('tar.gz'), archive('tar.bz2'), archive('tar')],
        links: [{ id: expect.any(Number), name: 'bin', url: 'https://example.com/bin', direct_asset_url: `${web}/-/releases/v1.0/downloads/bin/app`, link_type: 'package' }],
      },
      _links: {
        closed_issues_url: list('issues', 'closed'),
        closed_merge_requests_url: list('merge_requests', 'closed'),
        edit_url: `${web}/-/releases/v1.0/edit`,
        merged_merge_requests_url: list('merge_requests', 'merged'),
        opened_issues_url: list('issues', 'opened'),
        opened_merge_requests_url: list('merge_requests', 'opened'),
        self: `${web}/-/releases/v1.0`,
      },
    });
    expect(res.body.created_at).toBe(res.body.released_at);
    expect(res.body.evidences).toEqual([{ sha: expect.stringMatching(/^[0-9a-f]{64}$/), filepath: expect.stringMatching(new RegExp(`^${web}/-/releases/v1.0/evidences/\\d+\\.json$`)), collected_at: expect.any(String) }]);
    // The tag exists in the repository, annotated with the message, at the ref's commit.
    const tag = await t.api('GET', `/projects/${project.id}/repository/tags/v1.0`, { token: owner.token });
    expect(tag.status).toBe(200);
    expect(tag.body).toMatchObject({ name: 'v1.0', message: 'Version one', commit: { id: head }, release: { tag_name: 'v1.0', description: 'Notes' } });
  });

  it('uses an existing tag, names the release after it, and renders description_html on request', async () => {
    expect((await t.api('POST', `/projects/${project.id}/repository/tags`, { token: owner.token, body: { tag_name: 'v0.9', ref: 'main' } })).status).toBe(201);
    const res = await t.api('POST', releases(), { token: owner.token, body: { tag_name: 'v0.9', description: '**bold**', released_at: '2020-01-01T00:00:00Z' } });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ name: 'v0.9', tag_name: 'v0.9', released_at: '2020-01-01T00:00:00.000Z', historical_release: true, upcoming_release: false, evidences: [] });
    expect(res.body).not.toHaveProperty('milestones');
    expect(res.body).not.toHaveProperty('description_html');
    const html = await t.api('GET', releases('/v0.9?include_html_description=true'), { token: owner.token });
    expect(html.body.description_html).toBe('<p><strong>bold</strong></p>\n');
  });

  it('refuses in GitLab’s words', async () => {
    const exists = await t.api('POST', releases(), { token: owner.token, body: { tag_name: 'v1.0', ref: 'main' } });
    expect([exists.status, exists.body]).toEqual([409, { message: 'Release already exists' }]);
    const noRef = await t.api('POST', releases(), { token: owner.token, body: { tag_name: 'v9.9' } });
    expect([noRef.status, noRef.body]).toEqual([422, { message: 'Ref is not specified' }]);
    const badRef = await t.api('POST', releases(), { token: owner.token, body: { tag_name: 'v9.9', ref: 'nope' } });
    expect([badRef.status, badRef.body]).toEqual([400, { message: 'Target nope is invalid' }]);
    const milestone = await t.api('POST', releases(), { token: owner.token, body: { tag_name: 'v9.9', ref: 'main', milestones: ['nope', 'M1'] } });
    expect([milestone.status, milestone.body]).toEqual([400, { message: 'Milestone(s) not found: nope' }]);
    const missing = await t.api('POST', releases(), { token: owner.token, body: { name: 'x' } });
    expect([missing.status, missing.body]).toEqual([400, { error: 'tag_name is missing' }]);
    const links = await t.api('POST', releases(), {
      token: owner.token,
      body: { tag_name: 'v9.9', ref: 'main', assets: { links: [{ name: 'a', url: 'ssh://x' }, { name: 'a', url: 'https://x.example.com' }] } },
    });
    expect([links.status, links.body]).toEqual([400, { message: 'Validation failed: Links url is blocked: Only allowed schemes are http, https, ftp, Links name has already been taken' }]);
    // Nothing was made by the refused requests.
    expect((await t.api('GET', `/projects/${project.id}/repository/tags/v9.9`, { token: owner.token })).status).toBe(404);
  });

  it('lists sources that download the tag’s archive', async () => {
    const release = (await t.api('GET', releases('/v1.0'), { token: owner.token })).body;
    const [zip, tgz] = release.assets.sources.map((s: { url: string }) => s.url.replace(EXTERNAL_URL, t.url));
    const zipped = await fetch(zip, { headers: { 'PRIVATE-TOKEN': owner.token } });
    expect([zipped.status, zipped.headers.get('content-type')]).toEqual([200, 'application/zip']);
    expect(Buffer.from(await zipped.arrayBuffer()).subarray(0, 2).toString()).toBe('PK');
    const gzipped = await fetch(tgz, { headers: { 'PRIVATE-TOKEN': owner.token } });
    expect(gzipped.status).toBe(200);
    expect([...Buffer.from(await gzipped.arrayBuffer()).subarray(0, 2)]).toEqual([0x1f, 0x8b]);
    const anonymous = await fetch(zip);
    expect(anonymous.status).toBe(404);
  });

  it('reads a release whose tag has a slash, URL-encoded', async () => {
    const res = await t.api('POST', releases(), { token: owner.token, body: { tag_name: 'release/2.0', ref: 'main' } });
    expect(res.status, res.text).toBe(201);
    expect(res.body.tag_path).toBe(`/${project.path_with_namespace}/-/tags/release%2F2.0`);
    const got = await t.api('GET', releases('/release%2F2.0'), { token: owner.token });
    expect([got.status, got.body.tag_name]).toEqual([200, 'release/2.0']);
    expect(got.body.assets.sources[0].url).toBe(`${EXTERNAL_URL}/${project.path_with_namespace}/-/archive/release/2.0/${project.path}-release-2.0.zip`);
    expect((await t.api('DELETE', releases('/release%2F2.0'), { token: owner.token })).status).toBe(200);
  });
});

describe('reading, changing and deleting', () => {
  it('answers 404 Not Found for a tag without a release, and 404 Project Not Found for an unknown project', async () => {
    const res = await t.api('GET', releases('/nope'), { token: owner.token });
    expect([res.status, res.body]).toEqual([404, { message: '404 Not Found' }]);
    const project404 = await t.api('GET', '/projects/999999/releases', { token: owner.token });
    expect([project404.status, project404.body]).toEqual([404, { message: '404 Project Not Found' }]);
  });

  it('updates fields and milestones, and refuses empty or impossible updates', async () => {
    const changed = await t.api('PUT', releases('/v1.0'), { token: owner.token, body: { description: 'New notes', milestones: [] } });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body.description).toBe('New notes');
    expect(changed.body).not.toHaveProperty('milestones');
    const future = await t.api('PUT', releases('/v1.0'), { token: owner.token, body: { released_at: '2999-01-01T00:00:00Z' } });
    expect(future.body).toMatchObject({ upcoming_release: true, released_at: '2999-01-01T00:00:00.000Z' });
    const empty = await t.api('PUT', releases('/v1.0'), { token: owner.token, body: {} });
    expect([empty.status, empty.body]).toEqual([400, { message: 'params is empty' }]);
    // GitLab authorizes `update_release` on the release it did not find: 403.
    const none = await t.api('PUT', releases('/nope'), { token: owner.token, body: { name: 'x' } });
    expect([none.status, none.body]).toEqual([403, { message: '403 Forbidden' }]);
    const gone = await t.api('DELETE', releases('/nope'), { token: owner.token });
    expect(gone.status).toBe(403);
  });

  it('says the tag does not exist once it was deleted', async () => {
    await t.api('POST', releases(), { token: owner.token, body: { tag_name: 'v-doomed', ref: 'main' } });
    expect((await t.api('DELETE', `/projects/${project.id}/repository/tags/v-doomed`, { token: owner.token })).status).toBe(204);
    const res = await t.api('PUT', releases('/v-doomed'), { token: owner.token, body: { name: 'x' } });
    expect([res.status, res.body]).toEqual([404, { message: 'Tag does not exist' }]);
  });

  it('deletes a release with GitLab’s 200 and the release, keeping its tag', async () => {
    await t.api('POST', releases(), { token: owner.token, body: { tag_name: 'v-del', ref: 'main', name: 'Del' } });
    const res = await t.api('DELETE', releases('/v-del'), { token: owner.token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name: 'Del', tag_name: 'v-del' });
    expect((await t.api('GET', releases('/v-del'), { token: owner.token })).status).toBe(404);
    expect((await t.api('GET', `/projects/${project.id}/repository/tags/v-del`, { token: owner.token })).status).toBe(200);
  });

  it('collects evidence again on request: 202, and one more evidence', async () => {
    const before = (await t.api('GET', releases('/v0.9'), { token: owner.token })).body.evidences.length;
    const res = await t.api('POST', releases('/v0.9/evidence'), { token: owner.token });
    expect([res.status, res.text]).toEqual([202, '202']);
    expect((await t.api('GET', releases('/v0.9'), { token: owner.token })).body.evidences).toHaveLength(before + 1);
    expect((await t.api('POST', releases('/nope/evidence'), { token: owner.token })).status).toBe(404);
  });
});

describe('lists', () => {
  let other: { id: number };
  const tags = async (query = '', token = owner.token) => {
    const res = await t.api('GET', `/projects/${other.id}/releases${query}`, { token });
    expect(res.status, res.text).toBe(200);
    return res;
  };

  beforeAll(async () => {
    other = await createProject(t, owner.token);
    await t.api('POST', `/projects/${other.id}/repository/files/a.txt`, { token: owner.token, body: { branch: 'main', content: 'a', commit_message: 'a' } });
    // Made in this order, released in another.
    for (const [tag, at] of [['a', '2021-01-01T00:00:00Z'], ['b', '2023-01-01T00:00:00Z'], ['c', '2022-01-01T00:00:00Z']]) {
      const res = await t.api('POST', `/projects/${other.id}/releases`, { token: owner.token, body: { tag_name: tag, ref: 'main', released_at: at } });
      expect(res.status, res.text).toBe(201);
    }
  });

  it('orders by released_at descending by default, and by created_at or ascending on request', async () => {
    expect((await tags()).body.map((r: { tag_name: string }) => r.tag_name)).toEqual(['b', 'c', 'a']);
    expect((await tags('?sort=asc')).body.map((r: { tag_name: string }) => r.tag_name)).toEqual(['a', 'c', 'b']);
    expect((await tags('?order_by=created_at')).body.map((r: { tag_name: string }) => r.tag_name)).toEqual(['c', 'b', 'a']);
    expect((await tags('?order_by=created_at&sort=asc')).body.map((r: { tag_name: string }) => r.tag_name)).toEqual(['a', 'b', 'c']);
    const bad = await t.api('GET', `/projects/${other.id}/releases?order_by=name`, { token: owner.token });
    expect([bad.status, bad.body]).toEqual([400, { error: 'order_by does not have a valid value' }]);
  });

  it('pages with GitLab’s headers', async () => {
    const res = await tags('?per_page=2&page=2');
    expect(res.body.map((r: { tag_name: string }) => r.tag_name)).toEqual(['a']);
    expect([res.headers.get('x-total'), res.headers.get('x-total-pages'), res.headers.get('x-page'), res.headers.get('x-prev-page'), res.headers.get('x-next-page')]).toEqual(['3', '2', '2', '1', '']);
  });

  it('redirects permalink/latest to the latest release, with its suffix and query', async () => {
    const res = await fetch(`${t.url}/api/v4/projects/${other.id}/releases/permalink/latest/assets/links?per_page=5&order_by=x`, { headers: { 'PRIVATE-TOKEN': owner.token }, redirect: 'manual' });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe(`/api/v4/projects/${other.id}/releases/b/assets/links?per_page=5`);
    const followed = await fetch(`${t.url}/api/v4/projects/${other.id}/releases/permalink/latest`, { headers: { 'PRIVATE-TOKEN': owner.token } });
    expect(followed.status).toBe(200);
    expect(((await followed.json()) as { tag_name: string }).tag_name).toBe('b');
    const empty = await createProject(t, owner.token);
    const none = await fetch(`${t.url}/api/v4/projects/${empty.id}/releases/permalink/latest`, { headers: { 'PRIVATE-TOKEN': owner.token }, redirect: 'manual' });
    expect([none.status, await none.json()]).toEqual([404, { message: '404 Not Found' }]);
  });
});

describe('group releases', () => {
  let group: { id: number; full_path: string };
  let inner: { id: number };

  beforeAll(async () => {
    group = await createGroup(t, owner.token);
    inner = await createProject(t, owner.token, { namespaceId: group.id });
    await t.api('POST', `/projects/${inner.id}/repository/files/a.txt`, { token: owner.token, body: { branch: 'main', content: 'a', commit_message: 'a' } });
    for (const [tag, at] of [['g1', '2021-01-01T00:00:00Z'], ['g2', '2023-01-01T00:00:00Z']]) {
      const res = await t.api('POST', `/projects/${inner.id}/releases`, { token: owner.token, body: { tag_name: tag, ref: 'main', released_at: at, description: `about ${tag}` } });
      expect(res.status, res.text).toBe(201);
    }
  });

  it('lists the releases of the group’s projects, newest released first, or ascending on request', async () => {
    const res = await t.api('GET', `/groups/${group.id}/releases`, { token: owner.token });
    expect(res.status, res.text).toBe(200);
    expect(res.body.map((r: { tag_name: string }) => r.tag_name)).toEqual(['g2', 'g1']);
    expect(Object.keys(res.body[0]).sort()).toEqual(RELEASE_KEYS);
    expect(res.headers.get('x-total')).toBe('2');
    const asc = await t.api('GET', `/groups/${encodeURIComponent(group.full_path)}/releases?sort=asc`, { token: owner.token });
    expect(asc.body.map((r: { tag_name: string }) => r.tag_name)).toEqual(['g1', 'g2']);
  });

  it('answers BasicReleaseDetails with simple=true', async () => {
    const res = await t.api('GET', `/groups/${group.id}/releases?simple=true&per_page=1`, { token: owner.token });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual([
      { name: 'g2', tag_name: 'g2', description: 'about g2', created_at: expect.any(String), released_at: '2023-01-01T00:00:00.000Z', upcoming_release: false },
    ]);
    expect(res.headers.get('x-next-page')).toBe('2');
  });

  it('refuses a bad sort and hides a group the caller cannot read', async () => {
    const bad = await t.api('GET', `/groups/${group.id}/releases?sort=up`, { token: owner.token });
    expect([bad.status, bad.body]).toEqual([400, { error: 'sort does not have a valid value' }]);
    const stranger = await createUser(t);
    const hidden = await t.api('GET', `/groups/${group.id}/releases`, { token: stranger.token });
    expect([hidden.status, hidden.body]).toEqual([404, { message: '404 Group Not Found' }]);
  });

  it('drives gitbeaker’s GroupReleases', async () => {
    const api = new Gitlab({ host: t.url, token: owner.token });
    expect((await api.GroupReleases.all(group.id)).map((r) => r.tag_name)).toEqual(['g2', 'g1']);
  });
});
