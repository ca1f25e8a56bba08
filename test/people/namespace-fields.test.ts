/**
 * Projects', groups' and namespaces' GitLab fields: descriptionHtml (notes' Markdown renderer, references resolved),
 * a project's lfsEnabled, a group's epicsEnabled, a namespace's lfsEnabled, requestAccessEnabled and sharedRunnersSetting.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { suiteServer } from '../support/server.js';
import { apiOk, createGroup, createProject, createUser, type TestUser } from '../support/factories.js';

const t = suiteServer({ epicsEnabled: false });
let owner: TestUser;
let stranger: TestUser;
let group: { id: number; full_path: string };
let project: { id: number; path_with_namespace: string };

beforeAll(async () => {
  [owner, stranger] = await Promise.all([createUser(t), createUser(t)]);
  group = await createGroup(t, owner.token);
  project = await createProject(t, owner.token, { namespaceId: group.id });
  await apiOk(t, owner.token, 'PUT', `/groups/${group.id}`, { description: `**Bold** by @${owner.username}`, lfs_enabled: false, request_access_enabled: false, shared_runners_setting: 'disabled_and_overridable' });
  await apiOk(t, owner.token, 'PUT', `/projects/${project.id}`, { description: `See @${owner.username}` });
});

describe('descriptionHtml and settings', () => {
  it("renders the project's, group's and namespace's descriptions with references", async () => {
    const res = await t.graphql(
      `query($g: ID!, $p: ID!) {
        project(fullPath: $p) { descriptionHtml lfsEnabled }
        group(fullPath: $g) { descriptionHtml epicsEnabled lfsEnabled }
        namespace(fullPath: $g) { descriptionHtml lfsEnabled requestAccessEnabled sharedRunnersSetting }
      }`,
      { g: group.full_path, p: project.path_with_namespace },
      owner.token,
    );
    expect(res.body.errors, res.text).toBeUndefined();
    const { project: p, group: g, namespace: n } = res.body.data;
    expect(p.descriptionHtml).toContain(`href="http://gitlab.example.com/${owner.username}"`);
    expect(p.descriptionHtml).toContain('See ');
    expect(p.lfsEnabled).toBe(false);
    expect(g.descriptionHtml).toContain('<strong>Bold</strong>');
    expect(g.descriptionHtml).toContain(`data-user="${owner.id}"`);
    expect(g.epicsEnabled).toBe(false);
    expect(n).toEqual({ descriptionHtml: g.descriptionHtml, lfsEnabled: false, requestAccessEnabled: false, sharedRunnersSetting: 'DISABLED_AND_OVERRIDABLE' });
  });

  it("shows an event's update time, its creation time", async () => {
    const res = await t.graphql(`query($p: ID!) { project(fullPath: $p) { events { nodes { action createdAt updatedAt } } } }`, { p: project.path_with_namespace }, owner.token);
    expect(res.body.errors, res.text).toBeUndefined();
    const nodes = res.body.data.project.events.nodes;
    expect(nodes.length).toBeGreaterThan(0);
    for (const n of nodes) expect(n.updatedAt).toBe(n.createdAt);
  });

  it('lists the namespaces the viewer may fork a project into, null for one who may not fork it', async () => {
    const open = await createProject(t, owner.token, { visibility: 'public' });
    const other = await createGroup(t, owner.token);
    await apiOk(t, owner.token, 'PUT', `/groups/${other.id}`, { project_creation_level: 'noone' });
    const q = `query($p: ID!, $s: String) { project(fullPath: $p) { forkTargets(search: $s) { count nodes { fullPath } } } }`;
    const mine = await t.graphql(q, { p: open.path_with_namespace }, owner.token);
    expect(mine.body.errors, mine.text).toBeUndefined();
    expect(mine.body.data.project.forkTargets.nodes.map((n: { fullPath: string }) => n.fullPath)).toEqual([owner.username, group.full_path]);
    const searched = await t.graphql(q, { p: open.path_with_namespace, s: group.full_path.slice(0, 12) }, owner.token);
    expect(searched.body.data.project.forkTargets.nodes).toEqual([{ fullPath: group.full_path }]);
    expect((await t.graphql(q, { p: open.path_with_namespace }, stranger.token)).body.data.project.forkTargets).toEqual({ count: 1, nodes: [{ fullPath: stranger.username }] });
    expect((await t.graphql(q, { p: open.path_with_namespace }, null)).body.data.project.forkTargets).toBeNull();
  });

  it("lists the releases of the group's projects, subgroups' included, that the viewer may read", async () => {
    const open = await createGroup(t, owner.token, { visibility: 'public' });
    const sub = await createGroup(t, owner.token, { parentId: open.id, visibility: 'public' });
    const shown = await createProject(t, owner.token, { namespaceId: open.id, visibility: 'public' });
    const nested = await createProject(t, owner.token, { namespaceId: sub.id, visibility: 'public' });
    const hidden = await createProject(t, owner.token, { namespaceId: open.id, visibility: 'private' });
    const release = async (p: { id: number }, tag: string, at: string) => {
      await apiOk(t, owner.token, 'POST', `/projects/${p.id}/repository/commits`, { branch: 'main', commit_message: 'init', actions: [{ action: 'create', file_path: 'a', content: 'a' }] });
      await apiOk(t, owner.token, 'POST', `/projects/${p.id}/releases`, { tag_name: tag, ref: 'main', released_at: at });
    };
    await release(shown, 'v1', '2026-01-01T00:00:00Z');
    await release(nested, 'v2', '2026-02-01T00:00:00Z');
    await release(hidden, 'v3', '2026-03-01T00:00:00Z');
    const q = `query($g: ID!) { group(fullPath: $g) { releases { count nodes { tagName } } asc: releases(sort: RELEASED_AT_ASC) { nodes { tagName } } } }`;
    const asOwner = await t.graphql(q, { g: open.full_path }, owner.token);
    expect(asOwner.body.errors, asOwner.text).toBeUndefined();
    expect(asOwner.body.data.group.releases).toEqual({ count: 3, nodes: [{ tagName: 'v3' }, { tagName: 'v2' }, { tagName: 'v1' }] });
    expect(asOwner.body.data.group.asc.nodes).toEqual([{ tagName: 'v1' }, { tagName: 'v2' }, { tagName: 'v3' }]);
    const asStranger = await t.graphql(q, { g: open.full_path }, stranger.token);
    expect(asStranger.body.data.group.releases).toEqual({ count: 2, nodes: [{ tagName: 'v2' }, { tagName: 'v1' }] });
    expect((await t.graphql(q, { g: sub.full_path }, null)).body.data.group.releases.nodes).toEqual([{ tagName: 'v2' }]);
  });

  it('shows a personal namespace its defaults, and hides private groups from others', async () => {
    const res = await t.graphql(`query($u: ID!) { namespace(fullPath: $u) { descriptionHtml lfsEnabled requestAccessEnabled sharedRunnersSetting } }`, { u: owner.username }, owner.token);
    expect(res.body.data.namespace).toEqual({ descriptionHtml: '', lfsEnabled: true, requestAccessEnabled: true, sharedRunnersSetting: 'ENABLED' });
    const hidden = await t.graphql(`query($g: ID!) { group(fullPath: $g) { descriptionHtml } namespace(fullPath: $g) { descriptionHtml } }`, { g: group.full_path }, stranger.token);
    expect(hidden.body.data).toEqual({ group: null, namespace: null });
  });
});
