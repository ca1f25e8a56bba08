/**
 * Releases over GraphQL (GitLab's Project.releases, Project.release, Release and the relay mutations), Release Hooks
 * delivered to a project hook, and gitbeaker's ProjectReleases and ReleaseLinks.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Gitlab } from '@gitbeaker/rest';
import { suiteServer, EXTERNAL_URL } from '../support/server.js';
import { createProject, createUser, type TestUser } from '../support/factories.js';
import { startReceiver, type Receiver } from '../hooks/receiver.js';

const t = suiteServer({ allowLocalRequestsFromWebHooks: true, webhookRetryBaseMs: 0, webhookMaxAttempts: 1 });

let owner: TestUser;
let project: { id: number; path_with_namespace: string };
let receiver: Receiver;

beforeAll(async () => {
  receiver = await startReceiver();
  owner = await createUser(t);
  project = await createProject(t, owner.token);
  await t.api('POST', `/projects/${project.id}/repository/files/a.txt`, { token: owner.token, body: { branch: 'main', content: 'a', commit_message: 'First' } });
});
afterAll(() => receiver?.close());

const RELEASE = `
  id name tagName tagPath description descriptionHtml releasedAt upcomingRelease historicalRelease
  author { username } commit { sha title }
  assets { count links { nodes { id name url linkType directAssetPath directAssetUrl external } } sources { nodes { format url } } }
  links { selfUrl editUrl openedIssuesUrl }
  milestones { nodes { title } }
  evidences { nodes { sha filepath collectedAt } }
`;

describe('GraphQL', () => {
  it('creates, reads, lists, updates and deletes releases and links through relay mutations', async () => {
    const created = await t.graphql(
      `mutation($input: ReleaseCreateInput!) { releaseCreate(input: $input) { errors release { ${RELEASE} } } }`,
      { input: { projectPath: project.path_with_namespace, tagName: 'g1', ref: 'main', name: 'G1', description: '*hi*', assets: { links: [{ name: 'doc', url: 'https://example.com/doc', linkType: 'RUNBOOK' }] } } },
      owner.token,
    );
    expect(created.body.errors).toBeUndefined();
    const release = created.body.data.releaseCreate.release;
    expect(created.body.data.releaseCreate.errors).toEqual([]);
    expect(release).toMatchObject({
      id: expect.stringMatching(/^gid:\/\/gitlab\/Release\/\d+$/),
      name: 'G1',
      tagName: 'g1',
      tagPath: `/${project.path_with_namespace}/-/tags/g1`,
      descriptionHtml: '<p><em>hi</em></p>\n',
      upcomingRelease: false,
      historicalRelease: false,
      author: { username: owner.username },
      commit: { title: 'First' },
      assets: { count: 5, links: { nodes: [{ name: 'doc', linkType: 'RUNBOOK', directAssetPath: null, directAssetUrl: 'https://example.com/doc', external: true }] } },
      links: { selfUrl: `${EXTERNAL_URL}/${project.path_with_namespace}/-/releases/g1`, editUrl: `${EXTERNAL_URL}/${project.path_with_namespace}/-/releases/g1/edit` },
      milestones: { nodes: [] },
    });
    expect(release.assets.links.nodes[0].id).toMatch(/^gid:\/\/gitlab\/Releases::Link\/\d+$/);
    expect(release.assets.sources.nodes.map((s: { format: string }) => s.format)).toEqual(['zip', 'tar.gz', 'tar.bz2', 'tar']);
    expect(release.evidences.nodes).toHaveLength(1);

    await t.graphql(`mutation { releaseCreate(input: { projectPath: "${project.path_with_namespace}", tagName: "g0", ref: "main", releasedAt: "2001-01-01T00:00:00Z" }) { errors } }`, {}, owner.token);
    const list = await t.graphql(
      `query($path: ID!) { project(fullPath: $path) { asc: releases(sort: RELEASED_AT_ASC) { count nodes { tagName } } desc: releases { nodes { tagName } } one: release(tagName: "g1") { name } none: release(tagName: "nope") { name } } }`,
      { path: project.path_with_namespace },
      owner.token,
    );
    expect(list.body.data.project).toEqual({ asc: { count: 2, nodes: [{ tagName: 'g0' }, { tagName: 'g1' }] }, desc: { nodes: [{ tagName: 'g1' }, { tagName: 'g0' }] }, one: { name: 'G1' }, none: null });

    const linkId = release.assets.links.nodes[0].id;
    const updatedLink = await t.graphql(`mutation($id: ReleasesLinkID!) { releaseAssetLinkUpdate(input: { id: $id, name: "docs", directAssetPath: "/docs" }) { errors link { name directAssetPath } } }`, { id: linkId }, owner.token);
    expect(updatedLink.body.data.releaseAssetLinkUpdate).toEqual({ errors: [], link: { name: 'docs', directAssetPath: '/docs' } });
    const dupLink = await t.graphql(
      `mutation { releaseAssetLinkCreate(input: { projectPath: "${project.path_with_namespace}", tagName: "g1", name: "docs", url: "https://example.com/x" }) { errors link { name } } }`,
      {},
      owner.token,
    );
    expect(dupLink.body.data.releaseAssetLinkCreate).toEqual({ errors: ['Name has already been taken'], link: null });
    const deletedLink = await t.graphql(`mutation($id: ReleasesLinkID!) { releaseAssetLinkDelete(input: { id: $id }) { errors link { name } } }`, { id: linkId }, owner.token);
    expect(deletedLink.body.data.releaseAssetLinkDelete).toEqual({ errors: [], link: { name: 'docs' } });

    const updated = await t.graphql(`mutation { releaseUpdate(input: { projectPath: "${project.path_with_namespace}", tagName: "g1", name: "G1!" }) { errors release { name } } }`, {}, owner.token);
    expect(updated.body.data.releaseUpdate).toEqual({ errors: [], release: { name: 'G1!' } });
    const exists = await t.graphql(`mutation { releaseCreate(input: { projectPath: "${project.path_with_namespace}", tagName: "g1" }) { errors release { name } } }`, {}, owner.token);
    expect(exists.body.data.releaseCreate).toEqual({ errors: ['Release already exists'], release: null });
    const deleted = await t.graphql(`mutation { releaseDelete(input: { projectPath: "${project.path_with_namespace}", tagName: "g1" }) { errors release { tagName } } }`, {}, owner.token);
    expect(deleted.body.data.releaseDelete).toEqual({ errors: [], release: { tagName: 'g1' } });
  });

  it('hides the code from a Guest of a private project and refuses their writes', async () => {
    const guest = await createUser(t);
    const priv = await createProject(t, owner.token, { visibility: 'private' });
    await t.api('POST', `/projects/${priv.id}/repository/files/a.txt`, { token: owner.token, body: { branch: 'main', content: 'a', commit_message: 'a' } });
    await t.api('POST', `/projects/${priv.id}/releases`, { token: owner.token, body: { tag_name: 'p1', ref: 'main' } });
    await t.api('POST', `/projects/${priv.id}/members`, { token: owner.token, body: { user_id: guest.id, access_level: 10 } });
    const seen = await t.graphql(`query($p: ID!) { project(fullPath: $p) { releases { nodes { name tagName commit { sha } assets { count sources { nodes { url } } } evidences { nodes { sha } } } } } }`, { p: priv.path_with_namespace }, guest.token);
    expect(seen.body.data.project.releases.nodes).toEqual([{ name: 'p1', tagName: null, commit: null, assets: { count: 0, sources: null }, evidences: null }]);
    const write = await t.graphql(`mutation { releaseUpdate(input: { projectPath: "${priv.path_with_namespace}", tagName: "p1", name: "x" }) { errors } }`, {}, guest.token);
    expect(write.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
  });
});

describe('Release Hooks', () => {
  it('delivers GitLab’s release payload on create, update and delete to hooks with releases_events', async () => {
    const hooked = await createProject(t, owner.token);
    await t.api('POST', `/projects/${hooked.id}/repository/files/a.txt`, { token: owner.token, body: { branch: 'main', content: 'a', commit_message: 'Hooked' } });
    const hook = await t.api('POST', `/projects/${hooked.id}/hooks`, { token: owner.token, body: { url: `${receiver.url}/releases`, releases_events: true, push_events: false, tag_push_events: false } });
    expect(hook.status, hook.text).toBe(201);
    await t.api('POST', `/projects/${hooked.id}/releases`, { token: owner.token, body: { tag_name: 'h1', ref: 'main', description: 'd', assets: { links: [{ name: 'l', url: 'https://example.com/l' }] } } });
    const created = await receiver.next();
    expect(created.headers['x-gitlab-event']).toBe('Release Hook');
    const web = `${EXTERNAL_URL}/${hooked.path_with_namespace}`;
    expect(created.json).toMatchObject({
      object_kind: 'release',
      action: 'create',
      name: 'h1',
      tag: 'h1',
      description: 'd',
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/),
      released_at: expect.stringMatching(/ UTC$/),
      url: `${web}/-/releases/h1`,
      project: { id: hooked.id, path_with_namespace: hooked.path_with_namespace },
      assets: { count: 5, links: [{ id: expect.any(Number), external: true, link_type: 'other', name: 'l', url: 'https://example.com/l' }], sources: expect.arrayContaining([{ format: 'zip', url: `${web}/-/archive/h1/${hooked.path}-h1.zip` }]) },
      commit: { title: 'Hooked', author: { name: expect.any(String), email: expect.any(String) } },
    });
    await t.api('PUT', `/projects/${hooked.id}/releases/h1`, { token: owner.token, body: { name: 'H' } });
    expect((await receiver.next()).json).toMatchObject({ action: 'update', name: 'H' });
    await t.api('DELETE', `/projects/${hooked.id}/releases/h1`, { token: owner.token });
    expect((await receiver.next()).json).toMatchObject({ action: 'delete', tag: 'h1' });
  });
});

describe('gitbeaker', () => {
  it('drives ProjectReleases and ReleaseLinks', async () => {
    const api = new Gitlab({ host: t.url, token: owner.token });
    const created = await api.ProjectReleases.create(project.id, { tagName: 'gb1', ref: 'main', name: 'Beaker', description: 'notes' });
    expect(created).toMatchObject({ tag_name: 'gb1', name: 'Beaker' });
    expect((await api.ProjectReleases.show(project.id, 'gb1')).description).toBe('notes');
    expect((await api.ProjectReleases.all(project.id)).map((r) => r.tag_name)).toContain('gb1');
    expect((await api.ProjectReleases.edit(project.id, 'gb1', { description: 'changed' })).description).toBe('changed');
    const link = await api.ReleaseLinks.create(project.id, 'gb1', 'asset', 'https://example.com/asset');
    expect(link).toMatchObject({ name: 'asset', url: 'https://example.com/asset', link_type: 'other' });
    expect((await api.ReleaseLinks.all(project.id, 'gb1')).map((l) => l.name)).toEqual(['asset']);
    expect((await api.ReleaseLinks.edit(project.id, 'gb1', link.id, { name: 'asset2' })).name).toBe('asset2');
    await api.ReleaseLinks.remove(project.id, 'gb1', link.id);
    await api.ProjectReleases.remove(project.id, 'gb1');
    await expect(api.ProjectReleases.show(project.id, 'gb1')).rejects.toThrow();
  });
});
