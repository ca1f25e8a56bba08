/**
 * The Award Emoji API on issues, merge requests, snippets, epics and their notes: GitLab's entity, name validation and
 * normalization, duplicates, who may award and delete, upvotes and downvotes, gitbeaker, and GraphQL's mutations.
 */
import { Gitlab } from '@gitbeaker/rest';
import { beforeAll, describe, expect, it } from 'vitest';
import { suiteServer } from '../support/server.js';
import { addMember, createGroup, createProject, createUser, type TestUser } from '../support/factories.js';

const t = suiteServer({ logLevel: 'error' });

let owner: TestUser;
let guest: TestUser;
let outsider: TestUser;
let admin: TestUser;
let group: { id: number };
let project: { id: number; path_with_namespace: string };
let publicProject: { id: number };

type Issue = { id: number; iid: number; project_id: number };
const newIssue = async (projectId = project.id): Promise<Issue> => (await t.api('POST', `/projects/${projectId}/issues`, { token: owner.token, body: { title: 'i' } })).body;
const awards = (issue: Issue) => `/projects/${issue.project_id}/issues/${issue.iid}/award_emoji`;

beforeAll(async () => {
  [owner, guest, outsider] = await Promise.all([createUser(t), createUser(t), createUser(t)]);
  admin = await createUser(t, { admin: true });
  group = await createGroup(t, owner.token);
  project = await createProject(t, owner.token, { namespaceId: group.id, visibility: 'private' });
  publicProject = await createProject(t, owner.token, { visibility: 'public' });
  await addMember(t, owner.token, 'projects', project.id, guest.id, 10);
});

describe('awards on issues', () => {
  it('awards an emoji with GitLab’s entity, lists it and gets it', async () => {
    const issue = await newIssue();
    const res = await t.api('POST', awards(issue), { token: guest.token, body: { name: 'blowfish' } });
    expect(res.status, res.text).toBe(201);
    expect(Object.keys(res.body)).toEqual(['id', 'name', 'user', 'created_at', 'updated_at', 'awardable_id', 'awardable_type', 'url']);
    expect(res.body).toMatchObject({ name: 'blowfish', awardable_id: issue.id, awardable_type: 'Issue', url: null, user: { id: guest.id, username: guest.username } });
    const list = await t.api('GET', awards(issue), { token: owner.token });
    expect(list.status).toBe(200);
    expect(list.headers.get('x-total')).toBe('1');
    expect(list.body).toEqual([res.body]);
    const one = await t.api('GET', `${awards(issue)}/${res.body.id}`, { token: owner.token });
    expect(one.body).toEqual(res.body);
  });

  it('normalizes +1 to thumbsup, and counts upvotes and downvotes on the issue', async () => {
    const issue = await newIssue();
    const up = await t.api('POST', awards(issue), { token: owner.token, body: { name: '+1' } });
    expect(up.body.name).toBe('thumbsup');
    await t.api('POST', awards(issue), { token: guest.token, body: { name: 'thumbsup' } });
    await t.api('POST', awards(issue), { token: guest.token, body: { name: 'thumbsdown' } });
    const shown = await t.api('GET', `/projects/${project.id}/issues/${issue.iid}`, { token: owner.token });
    expect(shown.body).toMatchObject({ upvotes: 2, downvotes: 1 });
    const listed = await t.api('GET', `/projects/${project.id}/issues?iids[]=${issue.iid}`, { token: owner.token });
    expect(listed.body[0]).toMatchObject({ upvotes: 2, downvotes: 1 });
  });

  it('refuses a duplicate, an unknown name and a missing name as GitLab does', async () => {
    const issue = await newIssue();
    await t.api('POST', awards(issue), { token: owner.token, body: { name: 'rocket' } });
    const again = await t.api('POST', awards(issue), { token: owner.token, body: { name: 'rocket' } });
    expect(again.status).toBe(404);
    expect(again.body).toEqual({ message: '404 Award Emoji Name has already been taken Not Found' });
    const unknown = await t.api('POST', awards(issue), { token: owner.token, body: { name: 'no_such_emoji' } });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ message: '404 Award Emoji Name is not a valid emoji name Not Found' });
    const none = await t.api('POST', awards(issue), { token: owner.token, body: {} });
    expect(none.status).toBe(400);
    expect(none.body).toEqual({ error: 'name is missing' });
  });

  it('lets only the awarder or an administrator delete an award (401 for others), answering 204', async () => {
    const issue = await newIssue();
    const mine = (await t.api('POST', awards(issue), { token: guest.token, body: { name: 'tada' } })).body;
    const byOwner = await t.api('DELETE', `${awards(issue)}/${mine.id}`, { token: owner.token });
    expect(byOwner.status).toBe(401);
    expect(byOwner.body).toEqual({ message: '401 Unauthorized' });
    const own = await t.api('DELETE', `${awards(issue)}/${mine.id}`, { token: guest.token });
    expect(own.status).toBe(204);
    const other = (await t.api('POST', awards(issue), { token: guest.token, body: { name: 'eyes' } })).body;
    expect((await t.api('DELETE', `${awards(issue)}/${other.id}`, { token: admin.token })).status).toBe(204);
    const gone = await t.api('GET', `${awards(issue)}/${other.id}`, { token: owner.token });
    expect(gone.status).toBe(404);
    expect(gone.body).toEqual({ message: '404 Not found' });
  });

  it('hides a private project’s awards from non-members and anonymous callers (404), and shows a public one’s to anyone', async () => {
    const issue = await newIssue();
    expect((await t.api('GET', awards(issue), { token: outsider.token })).body).toEqual({ message: '404 Project Not Found' });
    expect((await t.api('POST', awards(issue), { token: outsider.token, body: { name: 'tada' } })).status).toBe(404);
    expect((await t.api('GET', awards(issue), { token: null })).status).toBe(404);
    expect((await t.api('DELETE', `${awards(issue)}/1`, { token: null })).status).toBe(404);
    const open = await newIssue(publicProject.id);
    await t.api('POST', awards(open), { token: owner.token, body: { name: 'tada' } });
    const anonymous = await t.api('GET', awards(open), { token: null });
    expect(anonymous.status).toBe(200);
    expect(anonymous.body.map((a: { name: string }) => a.name)).toEqual(['tada']);
    const refused = await t.api('POST', awards(open), { token: null, body: { name: 'eyes' } });
    expect(refused.status).toBe(404);
    expect(refused.body).toEqual({ message: '404 Award Emoji Not Found' });
    const byStranger = await t.api('POST', awards(open), { token: outsider.token, body: { name: 'eyes' } });
    expect(byStranger.status).toBe(201);
    const missing = await t.api('GET', `/projects/${publicProject.id}/issues/999999/award_emoji`, { token: owner.token });
    expect(missing.body).toEqual({ message: '404 Not found' });
  });
});

describe('awards on notes, snippets and epics', () => {
  it('awards a note of an issue, and refuses a system note', async () => {
    const issue = await newIssue();
    const note = (await t.api('POST', `/projects/${project.id}/issues/${issue.iid}/notes`, { token: owner.token, body: { body: 'hello' } })).body;
    const path = `/projects/${project.id}/issues/${issue.iid}/notes/${note.id}/award_emoji`;
    const res = await t.api('POST', path, { token: guest.token, body: { name: 'tractor' } });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ name: 'tractor', awardable_id: note.id, awardable_type: 'Note' });
    expect((await t.api('GET', path, { token: owner.token })).body).toEqual([res.body]);
    await t.api('PUT', `/projects/${project.id}/issues/${issue.iid}`, { token: owner.token, body: { title: 'renamed' } });
    const notes = (await t.api('GET', `/projects/${project.id}/issues/${issue.iid}/notes`, { token: owner.token })).body;
    const system = notes.find((n: { system: boolean }) => n.system);
    const refused = await t.api('POST', `/projects/${project.id}/issues/${issue.iid}/notes/${system.id}/award_emoji`, { token: owner.token, body: { name: 'tada' } });
    expect(refused.status).toBe(404);
    expect(refused.body).toEqual({ message: '404 Award Emoji Awardable cannot be awarded emoji Not Found' });
    const missing = await t.api('GET', `/projects/${project.id}/issues/${issue.iid}/notes/999999/award_emoji`, { token: owner.token });
    expect(missing.body).toEqual({ message: '404 Not found' });
  });

  it('awards a project snippet and an epic', async () => {
    const snippet = (await t.api('POST', `/projects/${project.id}/snippets`, { token: owner.token, body: { title: 's', file_name: 'a.txt', content: 'x', visibility: 'private' } })).body;
    const onSnippet = await t.api('POST', `/projects/${project.id}/snippets/${snippet.id}/award_emoji`, { token: owner.token, body: { name: 'blowfish' } });
    expect(onSnippet.status, onSnippet.text).toBe(201);
    expect(onSnippet.body).toMatchObject({ awardable_id: snippet.id, awardable_type: 'Snippet' });
    const epic = (await t.api('POST', `/groups/${group.id}/epics`, { token: owner.token, body: { title: 'e' } })).body;
    const onEpic = await t.api('POST', `/groups/${group.id}/epics/${epic.iid}/award_emoji`, { token: owner.token, body: { name: 'thumbsup' } });
    expect(onEpic.status, onEpic.text).toBe(201);
    expect(onEpic.body).toMatchObject({ awardable_id: epic.id, awardable_type: 'Epic' });
    expect((await t.api('GET', `/groups/${group.id}/epics/${epic.iid}`, { token: owner.token })).body.upvotes).toBe(1);
  });
});

describe('awards on merge requests', () => {
  it('awards a merge request its readers may award, and counts its downvotes', async () => {
    const commit = (body: object) => t.api('POST', `/projects/${project.id}/repository/commits`, { token: owner.token, body });
    expect((await commit({ branch: 'main', commit_message: 'init', actions: [{ action: 'create', file_path: 'a.txt', content: 'a' }] })).status).toBe(201);
    expect((await commit({ branch: 'topic', start_branch: 'main', commit_message: 'b', actions: [{ action: 'create', file_path: 'b.txt', content: 'b' }] })).status).toBe(201);
    const created = await t.api('POST', `/projects/${project.id}/merge_requests`, { token: owner.token, body: { source_branch: 'topic', target_branch: 'main', title: 'mr' } });
    expect(created.status, created.text).toBe(201);
    const mr = created.body;
    // Guests of a private project do not read its merge requests.
    expect((await t.api('POST', `/projects/${project.id}/merge_requests/${mr.iid}/award_emoji`, { token: guest.token, body: { name: '-1' } })).status).toBe(404);
    const res = await t.api('POST', `/projects/${project.id}/merge_requests/${mr.iid}/award_emoji`, { token: owner.token, body: { name: '-1' } });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ name: 'thumbsdown', awardable_id: mr.id, awardable_type: 'MergeRequest' });
    const shown = await t.api('GET', `/projects/${project.id}/merge_requests/${mr.iid}`, { token: owner.token });
    expect(shown.body).toMatchObject({ upvotes: 0, downvotes: 1 });
    const api = new Gitlab({ host: t.url, token: owner.token });
    expect((await api.MergeRequestAwardEmojis.all(project.id, mr.iid)).map((a) => a.name)).toEqual(['thumbsdown']);
  });
});

describe('gitbeaker', () => {
  it('awards, lists, shows and removes through IssueAwardEmojis and IssueNoteAwardEmojis', async () => {
    const api = new Gitlab({ host: t.url, token: owner.token });
    const issue = await newIssue();
    const award = await api.IssueAwardEmojis.award(project.id, issue.iid, 'heart');
    expect(award.name).toBe('heart');
    expect((await api.IssueAwardEmojis.all(project.id, issue.iid)).map((a) => a.id)).toEqual([award.id]);
    expect((await api.IssueAwardEmojis.show(project.id, issue.iid, award.id)).awardable_type).toBe('Issue');
    await api.IssueAwardEmojis.remove(project.id, issue.iid, award.id);
    expect(await api.IssueAwardEmojis.all(project.id, issue.iid)).toEqual([]);
    const note = await api.IssueNotes.create(project.id, issue.iid, 'a note');
    const onNote = await api.IssueNoteAwardEmojis.award(project.id, issue.iid, note.id, 'rocket');
    expect(onNote.awardable_type).toBe('Note');
  });
});

describe('GraphQL', () => {
  it('adds, toggles and removes awards by awardableId, and lists them on the issue', async () => {
    const issue = await newIssue();
    const gid = `gid://gitlab/Issue/${issue.id}`;
    const add = await t.graphql(`mutation($input: AwardEmojiAddInput!) { awardEmojiAdd(input: $input) { awardEmoji { name emoji unicode user { username } } errors } }`, { input: { awardableId: gid, name: 'thumbsup' } }, owner.token);
    expect(add.body.data?.awardEmojiAdd).toEqual({ awardEmoji: { name: 'thumbsup', emoji: '👍', unicode: '1f44d', user: { username: owner.username } }, errors: [] });
    const again = await t.graphql(`mutation($input: AwardEmojiAddInput!) { awardEmojiAdd(input: $input) { awardEmoji { name } errors } }`, { input: { awardableId: gid, name: 'thumbsup' } }, owner.token);
    expect(again.body.data?.awardEmojiAdd).toEqual({ awardEmoji: null, errors: ['Name has already been taken'] });
    const toggle = `mutation($input: AwardEmojiToggleInput!) { awardEmojiToggle(input: $input) { awardEmoji { name } toggledOn errors } }`;
    expect((await t.graphql(toggle, { input: { awardableId: gid, name: 'thumbsup' } }, owner.token)).body.data?.awardEmojiToggle).toEqual({ awardEmoji: null, toggledOn: false, errors: [] });
    expect((await t.graphql(toggle, { input: { awardableId: gid, name: 'eyes' } }, owner.token)).body.data?.awardEmojiToggle).toEqual({ awardEmoji: { name: 'eyes' }, toggledOn: true, errors: [] });
    const remove = await t.graphql(`mutation($input: AwardEmojiRemoveInput!) { awardEmojiRemove(input: $input) { errors } }`, { input: { awardableId: gid, name: 'tada' } }, owner.token);
    expect(remove.body.data?.awardEmojiRemove).toEqual({ errors: ['User has not awarded emoji of type tada on the awardable'] });
    const read = await t.graphql(`query($path: ID!, $iid: String!) { project(fullPath: $path) { issue(iid: $iid) { upvotes awardEmoji { nodes { name } } } } }`, { path: project.path_with_namespace, iid: String(issue.iid) }, owner.token);
    expect(read.body.data?.project.issue).toEqual({ upvotes: 0, awardEmoji: { nodes: [{ name: 'eyes' }] } });
    const hidden = await t.graphql(`mutation($input: AwardEmojiAddInput!) { awardEmojiAdd(input: $input) { errors } }`, { input: { awardableId: gid, name: 'tada' } }, outsider.token);
    expect(hidden.body.errors?.[0].message).toBe("The resource that you are attempting to access does not exist or you don't have permission to perform this action");
  });

  it('shows each award’s emoji from the table: character, code points, Unicode version and description', async () => {
    const issue = await newIssue();
    const gid = `gid://gitlab/Issue/${issue.id}`;
    const add = (name: string) =>
      t.graphql(`mutation($input: AwardEmojiAddInput!) { awardEmojiAdd(input: $input) { awardEmoji { name } errors } }`, { input: { awardableId: gid, name } }, owner.token);
    // GitLab's names, an alias (`+1`), a skin tone, and a name in colons.
    for (const name of ['+1', 'thumbsdown', ':tada:', '100', 'rocket', 'eyes', 'thumbsup_tone1', 'partying_face']) expect((await add(name)).body.data?.awardEmojiAdd.errors).toEqual([]);
    expect((await add('not_an_emoji')).body.data?.awardEmojiAdd).toEqual({ awardEmoji: null, errors: ['Name is not a valid emoji name'] });
    const read = await t.graphql(
      `query($path: ID!, $iid: String!) { project(fullPath: $path) { issue(iid: $iid) { awardEmoji { nodes { name emoji unicode unicodeVersion description } } } } }`,
      { path: project.path_with_namespace, iid: String(issue.iid) },
      owner.token,
    );
    expect(read.body.data?.project.issue.awardEmoji.nodes).toEqual([
      { name: 'thumbsup', emoji: '👍', unicode: '1f44d', unicodeVersion: '6.0', description: 'thumbs up' },
      { name: 'thumbsdown', emoji: '👎', unicode: '1f44e', unicodeVersion: '6.0', description: 'thumbs down' },
      { name: 'tada', emoji: '🎉', unicode: '1f389', unicodeVersion: '6.0', description: 'party popper' },
      { name: '100', emoji: '💯', unicode: '1f4af', unicodeVersion: '6.0', description: 'hundred points' },
      { name: 'rocket', emoji: '🚀', unicode: '1f680', unicodeVersion: '6.0', description: 'rocket' },
      { name: 'eyes', emoji: '👀', unicode: '1f440', unicodeVersion: '6.0', description: 'eyes' },
      { name: 'thumbsup_tone1', emoji: '👍🏻', unicode: '1f44d-1f3fb', unicodeVersion: '8.0', description: 'thumbs up: light skin tone' },
      { name: 'partying_face', emoji: '🥳', unicode: '1f973', unicodeVersion: '11.0', description: 'partying face' },
    ]);
  });
});
