/**
 * GraphQL's `Note.position`, GitLab's DiffPosition built from a diff note's stored position (diff refs, paths,
 * lines, an image point), on a merge request's diff and a commit's; REST keeps the position hash as given.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { suiteServer } from '../support/server.js';
import { apiOk, createProject, createUser, type TestUser } from '../support/factories.js';

const t = suiteServer({ logLevel: 'error' });
let owner: TestUser;
let project: { id: number; path_with_namespace: string };
let main: string;
let mr: { iid: number; diff_refs: { base_sha: string; start_sha: string; head_sha: string } };

const POSITION = `position { diffRefs { baseSha startSha headSha } filePath newPath oldPath newLine oldLine positionType x y width height }`;

beforeAll(async () => {
  owner = await createUser(t);
  project = await createProject(t, owner.token, { visibility: 'private' });
  const commit = (body: object) => apiOk(t, owner.token, 'POST', `/projects/${project.id}/repository/commits`, body);
  main = (await commit({ branch: 'main', commit_message: 'Start', actions: [{ action: 'create', file_path: 'a.txt', content: 'one\ntwo\n' }, { action: 'create', file_path: 'old.txt', content: 'gone\n' }] })).id;
  await commit({
    branch: 'feature',
    start_branch: 'main',
    commit_message: 'Change',
    actions: [
      { action: 'update', file_path: 'a.txt', content: 'one\nTWO\nthree\n' },
      { action: 'delete', file_path: 'old.txt' },
    ],
  });
  const made = await apiOk(t, owner.token, 'POST', `/projects/${project.id}/merge_requests`, { source_branch: 'feature', target_branch: 'main', title: 'Change' });
  await t.server.app.jobs.drain(60_000);
  mr = await apiOk(t, owner.token, 'GET', `/projects/${project.id}/merge_requests/${made.iid}`);
  expect(mr.diff_refs.head_sha).toMatch(/^[0-9a-f]{40}$/);
}, 60_000);

describe('Note.position', () => {
  it('is a DiffPosition on a merge request’s diff notes, and null on other notes', async () => {
    const refs = mr.diff_refs;
    const discussions = `/projects/${project.id}/merge_requests/${mr.iid}/discussions`;
    const line = await t.api('POST', discussions, {
      token: owner.token,
      body: { body: 'on a line', position: { ...refs, position_type: 'text', new_path: 'a.txt', old_path: 'a.txt', new_line: 2, old_line: null } },
    });
    expect(line.status, line.text).toBe(201);
    // REST keeps GitLab's hash.
    expect(line.body.notes[0].position).toMatchObject({ base_sha: refs.base_sha, head_sha: refs.head_sha, position_type: 'text', new_path: 'a.txt', new_line: 2 });
    // A deleted file's line: its path is the old one.
    const removed = await t.api('POST', discussions, {
      token: owner.token,
      body: { body: 'why remove it', position: { ...refs, position_type: 'text', old_path: 'old.txt', new_path: 'old.txt', old_line: '1' } },
    });
    expect(removed.status, removed.text).toBe(201);
    await apiOk(t, owner.token, 'POST', `/projects/${project.id}/merge_requests/${mr.iid}/notes`, { body: 'plain' });

    const res = await t.graphql(
      `query($path: ID!, $iid: String!) { project(fullPath: $path) { mergeRequest(iid: $iid) { notes { nodes { body ${POSITION} } } } } }`,
      { path: project.path_with_namespace, iid: String(mr.iid) },
      owner.token,
    );
    expect(res.body.errors).toBeUndefined();
    const byBody = Object.fromEntries(res.body.data.project.mergeRequest.notes.nodes.map((n: { body: string; position: unknown }) => [n.body, n.position]));
    const diffRefs = { baseSha: refs.base_sha, startSha: refs.start_sha, headSha: refs.head_sha };
    expect(byBody['on a line']).toEqual({ diffRefs, filePath: 'a.txt', newPath: 'a.txt', oldPath: 'a.txt', newLine: 2, oldLine: null, positionType: 'text', x: null, y: null, width: null, height: null });
    expect(byBody['why remove it']).toMatchObject({ filePath: 'old.txt', oldLine: 1, newLine: null, positionType: 'text' });
    expect(byBody.plain).toBeNull();
  });

  it('is a DiffPosition with the point and size on an image note of a commit', async () => {
    const made = await t.api('POST', `/projects/${project.id}/repository/commits/${main}/discussions`, {
      token: owner.token,
      body: { body: 'on the image', position: { base_sha: main, start_sha: main, head_sha: main, position_type: 'image', new_path: 'a.png', x: 10, y: 20, width: 100, height: 50 } },
    });
    expect(made.status, made.text).toBe(201);
    const res = await t.graphql(
      `query($id: ID!, $sha: String!) { noteableThreads(projectId: $id, noteableType: COMMIT, key: $sha) { discussions { nodes { notes { nodes { ${POSITION} } } } } } }`,
      { id: String(project.id), sha: main },
      owner.token,
    );
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.noteableThreads.discussions.nodes[0].notes.nodes[0].position).toEqual({
      diffRefs: { baseSha: main, startSha: main, headSha: main },
      filePath: 'a.png',
      newPath: 'a.png',
      oldPath: null,
      newLine: null,
      oldLine: null,
      positionType: 'image',
      x: 10,
      y: 20,
      width: 100,
      height: 50,
    });
  });
});

describe('createDiffNote and createImageDiffNote', () => {
  const CREATE = `mutation($input: CreateDiffNoteInput!) { createDiffNote(input: $input) { clientMutationId errors note { body discussion { id } ${POSITION} } } }`;
  const mrGid = async () => {
    const res = await t.graphql(`query($path: ID!, $iid: String!) { project(fullPath: $path) { mergeRequest(iid: $iid) { id } } }`, { path: project.path_with_namespace, iid: String(mr.iid) }, owner.token);
    return res.body.data.project.mergeRequest.id as string;
  };

  it('starts a diff thread on a merge request’s line, as REST’s discussions do, its base SHA optional', async () => {
    const refs = mr.diff_refs;
    const res = await t.graphql(
      CREATE,
      { input: { clientMutationId: 'c1', noteableId: await mrGid(), body: 'GraphQL line note', position: { startSha: refs.start_sha, headSha: refs.head_sha, paths: { newPath: 'a.txt', oldPath: 'a.txt' }, newLine: 3 } } },
      owner.token,
    );
    expect(res.body.errors).toBeUndefined();
    const { clientMutationId, errors, note } = res.body.data.createDiffNote;
    expect({ clientMutationId, errors }).toEqual({ clientMutationId: 'c1', errors: [] });
    expect(note.position).toMatchObject({ diffRefs: { baseSha: null, startSha: refs.start_sha, headSha: refs.head_sha }, filePath: 'a.txt', newLine: 3, oldLine: null, positionType: 'text' });
    // REST reads the same thread: a DiffNote with GitLab's position hash.
    const threads = await apiOk(t, owner.token, 'GET', `/projects/${project.id}/merge_requests/${mr.iid}/discussions?per_page=100`);
    const thread = threads.find((d: { notes: { body: string }[] }) => d.notes[0].body === 'GraphQL line note');
    expect(thread.notes[0]).toMatchObject({ type: 'DiffNote', position: { position_type: 'text', new_path: 'a.txt', new_line: 3, head_sha: refs.head_sha } });
    expect(note.discussion.id).toBe(`gid://gitlab/Discussion/${thread.id}`);
  });

  it('puts a point of an image in the thread’s position', async () => {
    const refs = mr.diff_refs;
    const res = await t.graphql(
      `mutation($input: CreateImageDiffNoteInput!) { createImageDiffNote(input: $input) { errors note { ${POSITION} } } }`,
      { input: { noteableId: await mrGid(), body: 'on a pixel', position: { baseSha: refs.base_sha, startSha: refs.start_sha, headSha: refs.head_sha, paths: { newPath: 'logo.png' }, x: 1, y: 2, width: 30, height: 40 } } },
      owner.token,
    );
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.createImageDiffNote).toEqual({
      errors: [],
      note: { position: { diffRefs: { baseSha: refs.base_sha, startSha: refs.start_sha, headSha: refs.head_sha }, filePath: 'logo.png', newPath: 'logo.png', oldPath: null, newLine: null, oldLine: null, positionType: 'image', x: 1, y: 2, width: 30, height: 40 } },
    });
  });

  it('refuses what GitLab refuses: no line, no path, a noteable without diffs, and callers who may not see it', async () => {
    const refs = mr.diff_refs;
    const base = { startSha: refs.start_sha, headSha: refs.head_sha };
    const id = await mrGid();
    const noLine = await t.graphql(CREATE, { input: { noteableId: id, body: 'x', position: { ...base, paths: { newPath: 'a.txt' } } } }, owner.token);
    expect(noLine.body.errors?.[0].message).toBe('position oldLine or newLine arguments are required');
    const noPath = await t.graphql(CREATE, { input: { noteableId: id, body: 'x', position: { ...base, paths: {}, newLine: 1 } } }, owner.token);
    expect(noPath.body.errors).toBeUndefined();
    expect(noPath.body.data.createDiffNote).toMatchObject({ errors: ['Position is incomplete'], note: null });
    const issue = await apiOk(t, owner.token, 'POST', `/projects/${project.id}/issues`, { title: 'no diffs' });
    const onIssue = await t.graphql(CREATE, { input: { noteableId: `gid://gitlab/Issue/${issue.id}`, body: 'x', position: { ...base, paths: { newPath: 'a.txt' }, newLine: 1 } } }, owner.token);
    expect(onIssue.body.data.createDiffNote).toMatchObject({ errors: ['Noteable type is not included in the list'], note: null });
    const outsider = await createUser(t);
    const hidden = await t.graphql(CREATE, { input: { noteableId: id, body: 'x', position: { ...base, paths: { newPath: 'a.txt' }, newLine: 1 } } }, outsider.token);
    expect(hidden.body.errors?.[0].message).toMatch(/does not exist or you don't have permission/);
    const threads = await apiOk(t, owner.token, 'GET', `/projects/${project.id}/merge_requests/${mr.iid}/discussions?per_page=100`);
    expect(threads.filter((d: { notes: { body: string }[] }) => d.notes[0].body === 'x')).toEqual([]);
  });
});
