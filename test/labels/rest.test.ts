/** Project and group labels over REST: GitLab's shapes, statuses and errors, visibility, promotion, subscriptions, and gitbeaker. */
import { beforeAll, describe, expect, it } from 'vitest';
import { Gitlab } from '@gitbeaker/rest';
import { suiteServer } from '../support/server.js';
import { addMember, createGroup, createProject, createUser, type TestUser } from '../support/factories.js';

const t = suiteServer();

const GROUP_KEYS = ['color', 'description', 'description_html', 'id', 'name', 'subscribed', 'text_color'];
const PROJECT_KEYS = [...GROUP_KEYS, 'is_project_label', 'priority'].sort();
const COUNT_KEYS = ['closed_issues_count', 'open_issues_count', 'open_merge_requests_count'];

let owner: TestUser;
let reporter: TestUser;
let guest: TestUser;
let stranger: TestUser;
let group: { id: number; full_path: string };
let project: { id: number };

beforeAll(async () => {
  [owner, reporter, guest, stranger] = await Promise.all([1, 2, 3, 4].map(() => createUser(t)));
  group = await createGroup(t, owner.token);
  project = await createProject(t, owner.token, { namespaceId: group.id });
  await addMember(t, owner.token, 'projects', project.id, reporter.id, 20);
  await addMember(t, owner.token, 'projects', project.id, guest.id, 10);
});

const labels = (suffix = '') => `/projects/${project.id}/labels${suffix}`;

describe('project labels', () => {
  it('creates a label with GitLab’s entity and lists it with and without counts', async () => {
    const created = await t.api('POST', labels(), { token: reporter.token, body: { name: 'bug', color: '#d9534f', description: 'Bug <b>report</b> for *ui* `code`', priority: 3 } });
    expect(created.status, created.text).toBe(201);
    expect(Object.keys(created.body).sort()).toEqual(PROJECT_KEYS);
    expect(created.body).toMatchObject({ name: 'bug', color: '#d9534f', text_color: '#FFFFFF', description: 'Bug <b>report</b> for *ui* `code`', description_html: 'Bug &lt;b&gt;report&lt;/b&gt; for <em>ui</em> <code>code</code>', priority: 3, is_project_label: true, subscribed: false });

    const list = await t.api('GET', labels(), { token: guest.token });
    expect(list.status).toBe(200);
    expect(list.headers.get('x-total')).toBe('1');
    expect(Object.keys(list.body[0]).sort()).toEqual(PROJECT_KEYS);
    const counted = await t.api('GET', labels('?with_counts=true'), { token: guest.token });
    expect(Object.keys(counted.body[0]).sort()).toEqual([...PROJECT_KEYS, ...COUNT_KEYS].sort());
    expect(counted.body[0]).toMatchObject({ open_issues_count: 0, closed_issues_count: 0, open_merge_requests_count: 0 });
  });

  it('takes CSS colour names, and refuses bad colours, duplicates and missing names in GitLab’s words', async () => {
    const named = await t.api('POST', labels(), { token: owner.token, body: { name: 'light', color: 'white' } });
    expect(named.status).toBe(201);
    expect(named.body).toMatchObject({ color: '#FFFFFF', text_color: '#333333', priority: null });
    const bad = await t.api('POST', labels(), { token: owner.token, body: { name: 'x', color: 'nope' } });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ message: { color: ['must be a valid color code'] } });
    const dup = await t.api('POST', labels(), { token: owner.token, body: { name: 'bug', color: '#000000' } });
    expect(dup.status).toBe(409);
    expect(dup.body).toEqual({ message: 'Label already exists' });
    const missing = await t.api('POST', labels(), { token: owner.token, body: { color: '#000000' } });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ error: 'name is missing' });
  });

  it('gets by id or name, updates with new_name and priority, and deletes', async () => {
    const created = await t.api('POST', labels(), { token: owner.token, body: { name: 'todo', color: '#123' } });
    const byName = await t.api('GET', labels('/todo'), { token: guest.token });
    expect(byName.status).toBe(200);
    expect(byName.body.id).toBe(created.body.id);
    const updated = await t.api('PUT', labels(`/${created.body.id}`), { token: reporter.token, body: { new_name: 'doing', priority: 7 } });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body).toMatchObject({ name: 'doing', priority: 7 });
    const nothing = await t.api('PUT', labels(`/${created.body.id}`), { token: reporter.token, body: {} });
    expect(nothing.status).toBe(400);
    expect((await t.api('PUT', labels(`/${created.body.id}`), { token: guest.token, body: { color: '#fff' } })).status).toBe(403);
    expect((await t.api('DELETE', labels('/doing'), { token: reporter.token })).status).toBe(204);
    const gone = await t.api('GET', labels(`/${created.body.id}`), { token: owner.token });
    expect(gone.status).toBe(404);
    expect(gone.body).toEqual({ message: '404 Label Not Found' });
  });

  it('takes GitLab’s deprecated forms naming the label in the body, and names needing encoding in the path', async () => {
    const created = await t.api('POST', labels(), { token: owner.token, body: { name: 'old', color: '#fff' } });
    const renamed = await t.api('PUT', labels(), { token: owner.token, body: { name: 'old', new_name: 'Label:that requires:encoding' } });
    expect(renamed.status, renamed.text).toBe(200);
    expect(renamed.body).toMatchObject({ id: created.body.id, name: 'Label:that requires:encoding' });
    const encoded = await t.api('GET', labels(`/${encodeURIComponent('Label:that requires:encoding')}`), { token: owner.token });
    expect(encoded.body.id).toBe(created.body.id);
    const both = await t.api('PUT', labels(), { token: owner.token, body: { name: 'x', label_id: created.body.id, color: '#000' } });
    expect(both.status).toBe(400);
    expect(both.body).toEqual({ error: 'label_id, name are mutually exclusive' });
    const neither = await t.api('PUT', labels(), { token: owner.token, body: { color: '#000' } });
    expect(neither.body).toEqual({ error: 'label_id, name are missing, exactly one parameter must be provided' });
    expect((await t.api('DELETE', labels(`?label_id=${created.body.id}`), { token: owner.token })).status).toBe(204);
  });

  it('subscribes (201, then 304) and unsubscribes', async () => {
    await t.api('POST', labels(), { token: owner.token, body: { name: 'watch', color: '#00ff00' } });
    const sub = await t.api('POST', labels('/watch/subscribe'), { token: guest.token });
    expect(sub.status, sub.text).toBe(201);
    expect(sub.body.subscribed).toBe(true);
    expect((await t.api('POST', labels('/watch/subscribe'), { token: guest.token })).status).toBe(304);
    expect((await t.api('GET', labels('/watch'), { token: owner.token })).body.subscribed).toBe(false);
    const unsub = await t.api('POST', labels('/watch/unsubscribe'), { token: guest.token });
    expect(unsub.status).toBe(201);
    expect(unsub.body.subscribed).toBe(false);
    expect((await t.api('POST', labels('/watch/unsubscribe'), { token: guest.token })).status).toBe(304);
  });

  it('hides a private project’s labels: 401 anonymous, 404 for other users, 403 for a guest creating', async () => {
    expect((await t.api('GET', labels(), { token: null })).status).toBe(401);
    const hidden = await t.api('GET', labels(), { token: stranger.token });
    expect(hidden.status).toBe(404);
    expect(hidden.body).toEqual({ message: '404 Project Not Found' });
    expect((await t.api('POST', labels(), { token: stranger.token, body: { name: 'x', color: '#fff' } })).status).toBe(404);
    expect((await t.api('POST', labels(), { token: guest.token, body: { name: 'x', color: '#fff' } })).status).toBe(403);
  });

  it('promotes a project label to a group label, merging the group’s projects’ labels of that title', async () => {
    const other = await createProject(t, owner.token, { namespaceId: group.id });
    await t.api('POST', labels(), { token: owner.token, body: { name: 'shared', color: '#abcdef', priority: 1 } });
    await t.api('POST', `/projects/${other.id}/labels`, { token: owner.token, body: { name: 'shared', color: '#000000' } });
    expect((await t.api('PUT', labels('/shared/promote'), { token: reporter.token })).status).toBe(403);
    const promoted = await t.api('PUT', labels('/shared/promote'), { token: owner.token });
    expect(promoted.status, promoted.text).toBe(200);
    expect(Object.keys(promoted.body).sort()).toEqual(GROUP_KEYS);
    expect(promoted.body).toMatchObject({ name: 'shared', color: '#abcdef' });
    const inOther = await t.api('GET', `/projects/${other.id}/labels/shared`, { token: owner.token });
    expect(inOther.body).toMatchObject({ id: promoted.body.id, is_project_label: false });
    const here = await t.api('GET', labels('/shared'), { token: owner.token });
    expect(here.body).toMatchObject({ id: promoted.body.id, priority: 1, is_project_label: false });
    const personal = await createProject(t, owner.token);
    await t.api('POST', `/projects/${personal.id}/labels`, { token: owner.token, body: { name: 'solo', color: '#000000' } });
    const failed = await t.api('PUT', `/projects/${personal.id}/labels/solo/promote`, { token: owner.token });
    expect(failed.status).toBe(400);
    expect(failed.body).toEqual({ message: 'Failed to promote project label to group label' });
  });
});

describe('public projects and bad input', () => {
  it('lets other users read a public project’s labels but not write them, and refuses bad parameters with 400', async () => {
    const open = await createProject(t, owner.token, { visibility: 'public' });
    await t.api('POST', `/projects/${open.id}/labels`, { token: owner.token, body: { name: 'open', color: '#fff' } });
    const read = await t.api('GET', `/projects/${open.id}/labels`, { token: stranger.token });
    expect(read.status).toBe(200);
    expect(read.body.map((l: { name: string }) => l.name)).toEqual(['open']);
    expect((await t.api('GET', `/projects/${open.id}/labels`, { token: null })).status).toBe(401);
    const write = await t.api('POST', `/projects/${open.id}/labels`, { token: stranger.token, body: { name: 'x', color: '#fff' } });
    expect(write.status).toBe(403);
    expect(write.body).toEqual({ message: '403 Forbidden' });
    const priority = await t.api('POST', `/projects/${open.id}/labels`, { token: owner.token, body: { name: 'p', color: '#fff', priority: 'high' } });
    expect(priority.status).toBe(400);
    expect(priority.body).toEqual({ error: 'priority is invalid' });
    const counts = await t.api('GET', `/projects/${open.id}/labels?with_counts=maybe`, { token: owner.token });
    expect(counts.status).toBe(400);
    expect(counts.body).toEqual({ error: 'with_counts is invalid' });
  });
});

describe('group labels', () => {
  it('creates, lists with ancestors and descendants, updates and deletes', async () => {
    const sub = await createGroup(t, owner.token, { parentId: group.id });
    const made = await t.api('POST', `/groups/${group.id}/labels`, { token: owner.token, body: { name: 'grouped', color: '#ff0000' } });
    expect(made.status, made.text).toBe(201);
    expect(Object.keys(made.body).sort()).toEqual(GROUP_KEYS);
    await t.api('POST', `/groups/${sub.id}/labels`, { token: owner.token, body: { name: 'deep', color: '#ff0000' } });
    const inSub = await t.api('GET', `/groups/${sub.id}/labels`, { token: owner.token });
    expect(inSub.body.map((l: { name: string }) => l.name)).toEqual(expect.arrayContaining(['grouped', 'deep']));
    const only = await t.api('GET', `/groups/${sub.id}/labels?include_ancestor_groups=false`, { token: owner.token });
    expect(only.body.map((l: { name: string }) => l.name)).toEqual(['deep']);
    const down = await t.api('GET', `/groups/${group.id}/labels?include_descendant_groups=true&search=dee`, { token: owner.token });
    expect(down.body.map((l: { name: string }) => l.name)).toEqual(['deep']);
    const renamed = await t.api('PUT', `/groups/${group.id}/labels/grouped`, { token: owner.token, body: { new_name: 'regrouped' } });
    expect(renamed.body.name).toBe('regrouped');
    expect((await t.api('GET', `/groups/${group.id}/labels`, { token: stranger.token })).status).toBe(404);
    expect((await t.api('DELETE', `/groups/${group.id}/labels/regrouped`, { token: owner.token })).status).toBe(204);
  });
});

describe('gitbeaker', () => {
  it('ProjectLabels and GroupLabels round-trip', async () => {
    const api = new Gitlab({ host: t.url, token: owner.token });
    const created = await api.ProjectLabels.create(project.id, 'beaker', '#336699', { description: 'from gitbeaker' });
    expect(created.name).toBe('beaker');
    const all = await api.ProjectLabels.all(project.id);
    expect(all.map((l) => l.name)).toContain('beaker');
    const edited = await api.ProjectLabels.edit(project.id, 'beaker', { newName: 'beaker2' });
    expect(edited.name).toBe('beaker2');
    // gitbeaker's ProjectLabels.subscribe posts to `…/issues/:id/subscribe` (its bug), so it is not called here.
    await api.ProjectLabels.remove(project.id, created.id);
    const glabel = await api.GroupLabels.create(group.id, 'gbeaker', '#112233');
    expect((await api.GroupLabels.show(group.id, glabel.id)).name).toBe('gbeaker');
    await api.GroupLabels.remove(group.id, glabel.id);
  });
});
